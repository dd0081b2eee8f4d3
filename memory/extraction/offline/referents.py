"""Who and what a clause of the general reader is about, as refs of batch entities (the
**who** and **what** of ``offline.general``'s docstring)."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING

from memory.core.cleaning import normalise_name
from memory.core.words import STOP_WORDS, word_zipf
from memory.extraction.offline.builder import _Builder, _Sentence
from memory.extraction.offline.general_lexicon import (
    _EVENT_NOUNS,
    _MORE_GENERIC,
    _PARTITIVE,
    _PRONOUN_THIRD,
    _WE,
    _YOU,
)
from memory.extraction.offline.lexicon import (
    _FIRST_PERSON,
    _GENERIC_NOUNS,
    _NER_KIND,
    _ORG_NOUNS,
    _PLACE_NOUNS,
    plausible_person_name,
)
from memory.extraction.offline.tokens import _clean_name, _ent_of, _plausible

if TYPE_CHECKING:
    from spacy.tokens import Token

_PHRASE_WORDS = 4
_EVALUATIVE_ZIPF = 5.0  # adjectives this common ("new", "great", "big") say little of a thing
_DIALOGUE_PRONOUNS = _FIRST_PERSON | _WE | _YOU


@dataclass
class _Referents:
    """Resolves the tokens of one sentence to entity refs, creating the entities in the
    builder; ``used`` holds the tokens already resolved, so none is filed twice.

    ``people``: normalised name → name of the persons (not the speakers) the turn has named
    so far and the previous turn named, for "he"/"she". ``other``: the ref "you" resolves to
    (the previous turn's speaker in a replayed dialogue), or None. ``participants``:
    normalised names of the dialogue's speakers, never a topic of their own sentences.
    """

    b: _Builder
    ctx: _Sentence
    _: KW_ONLY
    people: dict[str, str]
    other: str | None
    participants: set[str]
    used: set[int] = field(default_factory=set, init=False)

    # -- who ---------------------------------------------------------------------------------

    def _subject_tok(self, verb: Token) -> Token | None:
        for child in verb.children:
            if child.dep_ in {"nsubj", "nsubjpass", "expl"}:
                return child
        if verb.dep_ in {"conj", "xcomp"} and verb.head is not verb:
            return self._subject_tok(verb.head)
        return None

    def _who(self, verb: Token) -> str | None:
        tok = self._subject_tok(verb)
        if tok is None:
            # Gerund clauses and subjectless fragments are the speaker's own ("Seeing my kids
            # so happy…", "Went to the beach"); imperatives address someone else.
            if verb.tag_ in {"VBG", "VBD", "VBN"} or verb.dep_ in {"csubj", "advcl", "pcomp"}:
                return self.ctx.speaker
            return None
        low = tok.lower_
        if low in _DIALOGUE_PRONOUNS:
            return self._dialogue_ref(low)
        if low in _PRONOUN_THIRD:
            return self._third_person()
        if tok.pos_ == "PRON":
            return None
        name = self._person_name(tok)
        if (
            name is None
            and _ent_of(tok) is None
            and tok.text[:1].isupper()
            and (plausible_person_name(tok.text) or normalise_name(tok.text) in self.b.self_names)
        ):
            name = tok.text  # a one-word name the small model did not tag ("Trevor works…")
        if name is not None:
            norm = normalise_name(name)
            if norm in self.b.self_names:
                return self.b.entity("PERSON", name)
            self.people[norm] = name
            return self.b.entity("PERSON", name, confidence=0.7)
        for child in tok.children:  # "My neighbour Priya Shah invited us"
            if child.dep_ in {"appos", "compound"} and (named := self._person_name(child)):
                self.people[normalise_name(named)] = named
                return self.b.entity("PERSON", named, confidence=0.7)
        if tok.pos_ in {"NOUN", "PROPN"} and _ent_of(tok) is None:
            return self._thing(tok)  # "The support group gave me courage"
        return None

    def _dialogue_ref(self, pronoun: str) -> str | None:
        """The ref of one of ``_DIALOGUE_PRONOUNS``: first person ("I", "we") is the speaker,
        "you" the other speaker (None when there is none)."""
        return self.ctx.speaker if pronoun in _FIRST_PERSON or pronoun in _WE else self.other

    def _third_person(self) -> str | None:
        if len(self.people) != 1:
            return None
        return self.b.entity("PERSON", next(iter(self.people.values())), confidence=0.6)

    def _person_name(self, tok: Token) -> str | None:
        ent = _ent_of(tok)
        if ent is None or ent.label_ != "PERSON":
            return None
        if ent.start > 0 and tok.doc[ent.start - 1].text in {'"', "“", "'", "‘"}:
            return None  # a quoted title ("Brave" by Sara Bareilles), not a person
        name = _clean_name(ent.text)
        return name if plausible_person_name(name) and _plausible(name) else None

    # -- what ---------------------------------------------------------------------------------

    def _thing(self, tok: Token) -> str | None:
        """The ref of the entity a noun token stands for, or None."""
        if tok.i in self.used:
            return None
        if tok.lower_ in _DIALOGUE_PRONOUNS:
            return self._dialogue_ref(tok.lower_)
        if tok.pos_ == "PRON" or tok.pos_ not in {"NOUN", "PROPN", "VERB", "NUM", "X"}:
            return None
        ent = _ent_of(tok)
        if ent is not None and ent.label_ in _NER_KIND:
            if ent.label_ == "PERSON":
                name = self._person_name(tok)
                if name is None:
                    return None
                norm = normalise_name(name)
                if norm not in self.participants:
                    self.people[norm] = name
                self.used.update(range(ent.start, ent.end))
                return self.b.entity("PERSON", name, confidence=0.7)
            name = _clean_name(ent.text)
            if not _plausible(name) or len(name.split()) > _PHRASE_WORDS + 2:
                return None
            self.used.update(range(ent.start, ent.end))
            return self.b.entity(_NER_KIND[ent.label_], name, confidence=0.6)
        if ent is not None:
            return None  # dates, times, quantities, ordinals
        if tok.lemma_.lower() in _PARTITIVE or tok.lower_ in _PARTITIVE:
            for prep in tok.children:
                if prep.dep_ == "prep" and prep.lower_ == "of":
                    for obj in prep.children:
                        if obj.dep_ == "pobj":
                            return self._thing(obj)
        phrase = self._phrase(tok)
        if phrase is None:
            return None
        self.used.add(tok.i)
        return self.b.entity(self._kind(tok), phrase, confidence=0.55)

    def _phrase(self, tok: Token) -> str | None:
        if tok.pos_ == "PROPN" and tok.text[:1].isupper():
            words = [t for t in tok.lefts if t.dep_ == "compound" and t.pos_ == "PROPN"]
            text = " ".join(t.text for t in [*words, tok])
        else:
            words = []
            for left in tok.lefts:
                if (
                    left.dep_ not in {"compound", "nmod", "amod"}
                    or not left.is_alpha
                    or left.pos_ in {"PRON", "DET", "NUM", "PUNCT"}
                    or left.lower_ in STOP_WORDS
                    or (left.dep_ == "amod" and word_zipf(left.text) >= _EVALUATIVE_ZIPF)
                ):
                    continue
                words.append(left)
            words = sorted(words, key=lambda t: t.i)[-(_PHRASE_WORDS - 1) :]
            text = " ".join(
                [*(t.text if t.pos_ == "PROPN" else t.lower_ for t in words), tok.lower_]
            )
        text = _clean_name(text.replace(" 's", "'s"))
        head = tok.lower_
        if (
            not text
            or len(text) < 2
            or head in STOP_WORDS
            or head in _GENERIC_NOUNS
            or head in _MORE_GENERIC
            or not any(c.isalpha() for c in text)
            or len(text.split()) > _PHRASE_WORDS
            or normalise_name(text) in self.participants
        ):
            return None
        return text if _plausible(text) else None

    def _kind(self, tok: Token) -> str:
        lemma = tok.lemma_.lower()
        if lemma in _ORG_NOUNS:
            return "ORG"
        if lemma in _PLACE_NOUNS:
            return "PLACE"
        if lemma in _EVENT_NOUNS or tok.lower_ in _EVENT_NOUNS:
            return "EVENT"
        if tok.tag_ == "VBG" or (tok.lower_.endswith("ing") and tok.pos_ == "NOUN"):
            return "TOPIC"  # an activity: painting, hiking, pottery classes stay THING
        return "THING"
