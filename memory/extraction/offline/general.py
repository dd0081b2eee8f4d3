"""The general reader (SPEC §5.5, offline path): every sentence that states something files
at least one edge, from who it is about to what it is about, labelled by its verb.

Per clause (a verb, or a copula with its complement), in sentence order:

* **who** — the clause's subject: first person ("I", "we") is the turn's speaker; "you" is
  the other speaker of a replayed dialogue (the account holder's "you" is the assistant, and
  is skipped); "he"/"she" is the one person the turn, or else the previous turn, names (none
  or several: skipped); a plausible PERSON name is that person. A clause without a subject
  of its own ("Seeing my kids so happy…") belongs to the speaker.
* **what** — named entities and the head noun phrase of its objects, prepositional objects,
  copula complements and gerund complements ("started painting"): "my kids", "the kids",
  "kids" → ``kids``; "a group of religious conservatives" → ``religious conservatives``;
  evaluative adjectives (very common ones: "new", "great") are dropped; never more than
  four words, never a pronoun or a generic noun ("thing", "time").
* **label** — the verb as said: past tense as written (``WENT_TO``, ``ADOPTED``,
  ``SIGNED_UP_FOR``), otherwise its lemma (``PLAY``, ``HAS``); a particle and the preposition
  join it; "not" → ``NOT_…``; "will"/"going to"/"plan to" → ``PLANS_TO_…``; "want/hope/
  decide/try to" → ``WANTS_TO_…`` etc.; adjectives with a preposition ("proud of",
  "passionate about") → ``PROUD_OF``. At most four words (SPEC §4).

Then, while the sentence has fewer than ``MAX_EDGES``: possessions ("my guinea pig" →
``HAS``), and as a last resort, for a statement that filed nothing, ``MENTIONED`` to its
most salient noun phrase. Pure questions, greetings, thanks and fillers file nothing: they
have no clause with a "what".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memory.core.cleaning import normalise_name
from memory.core.words import word_zipf
from memory.extraction.offline.general_lexicon import (
    _FUTURE_AUX,
    _GREETINGS,
    _HYPOTHETICAL,
    _INTENT_HEADS,
    _NO_PREP_LABEL,
    _OBJECT_DEPS,
    _SKIP_VERBS,
    _WISH_HEADS,
    _YOU,
)
from memory.extraction.offline.lexicon import _ROLES
from memory.extraction.offline.referents import _Referents
from memory.extraction.offline.tokens import _ent_of, _negated

if TYPE_CHECKING:
    from spacy.tokens import Token

__all__ = ["MAX_EDGES", "GeneralReader"]

MAX_EDGES = 3
"""Edges filed per sentence, at most (special cases included)."""


@dataclass
class _Target:
    ref: str
    label: str
    tok: Token


@dataclass
class GeneralReader(_Referents):
    """Reads one sentence into the builder after the special cases have run, which filed
    ``already`` edges for it."""

    already: int = 0
    budget: int = field(init=False)  # the most edges this reader may file
    emitted: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.budget = MAX_EDGES - self.already

    # -- entry ---------------------------------------------------------------------------------

    def read(self) -> int:
        """File this sentence's edges; return how many were filed."""
        sent = self.ctx.sent
        if sent.text.strip().endswith("?"):
            return 0
        words = [t for t in sent if t.is_alpha]
        if not words or (words[0].lower_ in _GREETINGS and len(words) <= 6):
            return 0  # "Hey Mel! Good to see you!", "Thanks, Caroline!"
        for ent in sent.ents:  # who "he"/"she" may mean in this sentence and the next
            if ent.label_ == "PERSON" and (name := self._person_name(sent.doc[ent.start])):
                norm = normalise_name(name)
                if norm not in self.participants and norm not in self.b.self_names:
                    self.people[norm] = name
        for verb in sent:
            if self.emitted >= self.budget:
                break
            if verb.pos_ in {"VERB", "AUX"} and verb.dep_ not in {"aux", "auxpass"}:
                self._clause(verb)
        if self.emitted < self.budget:
            self._possessions()
        if self.emitted == 0 and self.already == 0 and self._states_something():
            self._mentioned()
        return self.emitted

    def _states_something(self) -> bool:
        """Not a hypothetical ("You could be…"), nor about people the sentence does not
        name ("They work at Google"), nor addressed to the assistant."""
        root = self.ctx.sent.root
        if self._hypothetical(root):
            return False
        subject = self._subject_tok(root)
        if subject is None:
            return True
        if subject.lower_ in _YOU:
            return self.other is not None
        return subject.lower_ not in {"they", "he", "she", "them"} or self._who(root) is not None

    # -- clauses -------------------------------------------------------------------------------

    def _clause(self, verb: Token) -> None:
        lemma = verb.lemma_.lower()
        if self._hypothetical(verb) or (
            verb.dep_ == "xcomp"
            and self._hypothetical(verb.head)
            and verb.head.lemma_.lower() not in _WISH_HEADS
        ):
            return  # "You'd be a great counselor", "It could be fun": not a fact
        source = self._who(verb)
        if source is None:
            return
        targets: list[_Target] = []
        base = self._verb_label(verb)
        if base is None:
            return
        for child in verb.children:
            if child.dep_ in _OBJECT_DEPS:
                for obj in [child, *(c for c in child.conjuncts if c.dep_ == "conj")]:
                    label = (
                        base
                        if not (lemma == "be" and child.dep_ == "attr")
                        else self._be_label(verb)
                    )
                    targets.append(_Target("", label, obj))
            elif child.dep_ == "prep":
                targets += self._prep_targets(base, child)
            elif child.dep_ == "acomp":
                for adj in [child, *child.conjuncts]:
                    if adj.lower_.isascii() and adj.lower_.isalpha():
                        for prep in adj.children:
                            if prep.dep_ == "prep":
                                targets += self._prep_targets(
                                    adj.lower_.upper(), prep, keep_of=True
                                )
            elif (
                child.dep_ == "xcomp"
                and child.tag_ == "VBG"
                and not any(c.dep_ in {"dobj", "prep"} for c in child.children)
            ):
                targets.append(_Target("", base, child))  # "started painting"
        if lemma in _SKIP_VERBS and not targets:
            return
        for target in targets:
            if self.emitted >= self.budget:
                return
            ref = self._thing(target.tok)
            if ref is None or ref == source:
                continue
            self._emit(source, target.label, ref, planned=self._planned(verb))

    def _prep_targets(self, base: str, prep: Token, *, keep_of: bool = False) -> list[_Target]:
        word = prep.lower_
        if not word.isascii() or not word.isalpha():
            return []
        label = base if (word in _NO_PREP_LABEL and not keep_of) else f"{base}_{word.upper()}"
        found = []
        for obj in prep.children:
            if obj.dep_ in {"pobj", "pcomp"}:
                found += [
                    _Target("", label, o)
                    for o in [obj, *(c for c in obj.conjuncts if c.dep_ == "conj")]
                ]
        return found

    @staticmethod
    def _hypothetical(verb: Token) -> bool:
        return any(c.dep_ == "aux" and c.lower_ in _HYPOTHETICAL for c in verb.children)

    def _planned(self, verb: Token) -> bool:
        if any(c.dep_ == "aux" and c.lower_ in _FUTURE_AUX for c in verb.children):
            return True
        head = verb.head
        return verb.dep_ == "xcomp" and head.lemma_.lower() == "go" and head.tag_ == "VBG"

    def _be_label(self, verb: Token) -> str:
        label = "WAS" if verb.tag_ == "VBD" else "IS"
        return f"NOT_{label}" if _negated(verb) else label

    def _verb_label(self, verb: Token) -> str | None:
        """The relation label of a clause's verb (see the module docstring)."""
        lemma = verb.lemma_.lower()
        if lemma == "be":
            return self._be_label(verb)
        if lemma == "have":
            word = "HAD" if verb.tag_ in {"VBD", "VBN"} else "HAS"
        elif verb.tag_ in {"VBD", "VBN"}:
            word = verb.lower_.replace("’", "'")
        else:
            word = lemma
        if not word.isascii() or not word.isalpha():
            return None
        parts = [word.upper()]
        particle = next((c for c in verb.children if c.dep_ == "prt"), None)
        if particle is not None and particle.lower_.isalpha() and particle.lower_.isascii():
            parts.append(particle.lower_.upper())
        head = verb.head
        if self._planned(verb):
            parts = ["PLANS", "TO", lemma.upper(), *parts[1:]]
        elif (
            verb.dep_ == "xcomp"
            and self._hypothetical(head)
            and (head.lemma_.lower() in _WISH_HEADS)
        ):
            parts = ["WANTS", "TO", lemma.upper(), *parts[1:]]  # "I'd love to visit Japan"
        elif verb.dep_ == "xcomp" and head.lemma_.lower() in _INTENT_HEADS:
            parts = [*_INTENT_HEADS[head.lemma_.lower()].split("_"), lemma.upper(), *parts[1:]]
        if _negated(verb) or (verb.dep_ == "xcomp" and _negated(head)):
            parts = ["NOT", *parts]
        return "_".join(parts[:3])

    def _emit(
        self, source: str, label: str, target: str, *, planned: bool, confidence: float = 0.55
    ) -> None:
        parts = label.split("_")
        if len(parts) > 4:
            label = "_".join(parts[:4])
        snippet = self.ctx.sent.text.strip()
        for relation in reversed(self.b.relations[-2 * MAX_EDGES :]):
            if (relation["snippet"], relation["source"], relation["target"]) == (
                snippet,
                source,
                target,
            ):
                return  # a special case already filed this claim ("I work at" → WORKS_AT)
        before = len(self.b.relations)
        self.b.relation(
            source=source,
            label=label,
            target=target,
            ctx=self.ctx,
            evidence=self.ctx.sent.text[:100],
            confidence=confidence,
            stability="time_bound" if planned else "stable",
            cardinality="one_to_many",
        )
        if len(self.b.relations) > before:
            self.emitted += 1

    # -- possessions and mentions ----------------------------------------------------------

    def _possessions(self) -> None:
        for tok in self.ctx.sent:
            if self.emitted >= self.budget:
                return
            if tok.dep_ != "poss" or tok.lower_ not in {"my", "our"}:
                continue
            noun = tok.head
            if noun.lemma_.lower() in _ROLES or noun.lower_ in _ROLES:
                continue  # the special cases file roles ("my boss Joshua")
            ref = self._thing(noun)
            if ref is not None and ref != self.ctx.speaker:
                self._emit(self.ctx.speaker, "HAS", ref, planned=False, confidence=0.5)

    def _mentioned(self) -> None:
        sent = self.ctx.sent
        if not any(t.pos_ in {"VERB", "AUX"} for t in sent) or len(sent) < 4:
            return  # "Thanks, Caroline!", "Wow!": nothing stated
        candidates = [t for t in sent if _ent_of(t) is not None] + [
            chunk.root for chunk in sent.noun_chunks
        ]
        for tok in candidates:
            if (
                tok.dep_ in {"npadvmod", "intj"}
                or tok.i in self.used
                or tok.pos_ not in {"NOUN", "PROPN"}
            ):
                continue
            if tok.pos_ == "PROPN" and _ent_of(tok) is None and word_zipf(tok.text) >= 4.5:
                continue  # a capitalised common word ("Good to see you")
            ref = self._thing(tok)
            if ref is not None and ref not in {self.ctx.speaker, self.other}:
                self._emit(self.ctx.speaker, "MENTIONED", ref, planned=False, confidence=0.4)
                return
