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

from dataclasses import dataclass
from typing import TYPE_CHECKING

from memory.core.cleaning import normalise_name
from memory.core.words import STOP_WORDS
from memory.extraction.offline.builder import _Builder, _Sentence
from memory.extraction.offline.lexicon import (
    _FIRST_PERSON,
    _GENERIC_NOUNS,
    _NER_KIND,
    _ORG_NOUNS,
    _PLACE_NOUNS,
    _ROLES,
    plausible_person_name,
    word_zipf,
)
from memory.extraction.offline.tokens import _clean_name, _ent_of, _negated, _plausible

if TYPE_CHECKING:
    from spacy.tokens import Token

__all__ = ["MAX_EDGES", "GeneralReader"]

MAX_EDGES = 3
"""Edges filed per sentence, at most (special cases included)."""

_PHRASE_WORDS = 4
_EVALUATIVE_ZIPF = 5.0  # adjectives this common ("new", "great", "big") say little of a thing
_PARTITIVE = {
    "group",
    "lot",
    "lots",
    "bunch",
    "couple",
    "kind",
    "sort",
    "type",
    "piece",
    "part",
    "set",
    "pair",
    "number",
    "variety",
    "plenty",
    "bit",
    "few",
    "some",
    "one",
    "all",
    "most",
    "each",
    "any",
    "none",
    "series",
    "collection",
    "handful",
}
_EVENT_NOUNS = {
    "party",
    "parade",
    "concert",
    "festival",
    "fest",
    "trip",
    "wedding",
    "conference",
    "meeting",
    "game",
    "match",
    "race",
    "show",
    "event",
    "ceremony",
    "class",
    "workshop",
    "camp",
    "tournament",
    "fair",
    "vacation",
    "holiday",
    "retreat",
    "session",
    "reunion",
    "marathon",
    "birthday",
    "celebration",
    "funeral",
    "graduation",
    "hike",
    "picnic",
    "exhibition",
    "exhibit",
    "gig",
    "meetup",
    "interview",
    "appointment",
    "competition",
    "lesson",
    "course",
    "seminar",
    "talk",
    "date",
    "road trip",
    "camping trip",
    "fundraiser",
    "protest",
    "rally",
    "march",
    "service",
    "performance",
    "recital",
    "play",
}
_MORE_GENERIC = {
    "everyone",
    "everything",
    "someone",
    "something",
    "anything",
    "nothing",
    "people",
    "lot",
    "lots",
    "moment",
    "moments",
    "experience",
    "stuff",
    "life",
    "world",
    "fun",
    "blast",
    "chance",
    "opportunity",
    "place",
    "one",
    "ones",
    "today",
    "tonight",
    "tomorrow",
    "yesterday",
    "week",
    "weekend",
    "month",
    "year",
    "morning",
    "evening",
    "night",
    "while",
    "bit",
    "pic",
    "picture",
    "photo",
    "pics",
    "photos",
    "kind",
    "sort",
    "type",
    "way",
    "reason",
    "end",
    "start",
    "rest",
    "side",
    "hey",
    "hi",
    "hello",
    "thanks",
    "wow",
    "yeah",
    "ok",
    "okay",
    "lol",
    "haha",
    "sense",
    "fact",
    "point",
    "care",
    "luck",
    "look",
    "feelings",
    "feeling",
    "thoughts",
    "thought",
    "idea",
    "ideas",
    "touch",
    "day",
    "days",
    "times",
    "things",
    "step",
    "journey",
    "heart",
    "mind",
    "soul",
    "self",
    "yourself",
    "myself",
    "guts",
    "news",
    "update",
    "question",
    "questions",
    "answer",
    "advice",
    "tip",
    "tips",
    "help",
}
_INTENT_HEADS = {
    "want": "WANTS_TO",
    "hope": "HOPES_TO",
    "plan": "PLANS_TO",
    "decide": "DECIDED_TO",
    "try": "TRIED_TO",
    "need": "NEEDS_TO",
    "love": "LOVES_TO",
    "like": "LIKES_TO",
    "start": "STARTED_TO",
    "begin": "STARTED_TO",
    "learn": "LEARNED_TO",
    "intend": "PLANS_TO",
    "aim": "AIMS_TO",
    "wish": "WANTS_TO",
}
_FUTURE_AUX = {"will", "'ll", "’ll", "shall", "wo", "gonna"}
_PRONOUN_THIRD = {"he": "PERSON", "she": "PERSON", "him": "PERSON", "her": "PERSON"}
_YOU = {"you", "u", "ya"}
_WE = {"we", "us"}
_SKIP_VERBS = {
    "be",
    "have",
    "do",
    "get",
    "let",
    "seem",
    "say",
    "tell",
    "think",
    "know",
    "guess",
    "mean",
    "hope",
    "bet",
    "reckon",
    "suppose",
    "wonder",
    "feel",
    "look",
    "sound",
    "thank",
    "glad",
    "appreciate",
}
_WISH_HEADS = {"love", "like", "want", "prefer", "enjoy"}
_HYPOTHETICAL = {"would", "'d", "’d", "could", "might", "should", "may", "must"}
_GREETINGS = {
    "hey",
    "hi",
    "hello",
    "thanks",
    "thank",
    "wow",
    "omg",
    "yeah",
    "yes",
    "no",
    "nah",
    "ok",
    "okay",
    "aww",
    "aw",
    "haha",
    "lol",
    "congrats",
    "congratulations",
    "bye",
    "cheers",
    "sure",
    "yep",
    "yup",
    "oh",
    "ah",
    "hmm",
    "good",
    "great",
    "nice",
    "awesome",
    "cool",
    "glad",
    "sorry",
    "totally",
    "absolutely",
    "definitely",
}
_OBJECT_DEPS = {"dobj", "attr", "oprd", "dative"}
_NO_PREP_LABEL = {"of"}  # "a bunch of", "proud of" keep "of" only after adjectives


@dataclass
class _Target:
    ref: str
    label: str
    tok: Token


class GeneralReader:
    """Reads one sentence into the builder after the special cases have run.

    ``people``: normalised name → name of the persons (not the speakers) the turn has named
    so far and the previous turn named, for "he"/"she". ``other``: the ref "you" resolves to
    (the previous turn's speaker in a replayed dialogue), or None. ``participants``:
    normalised names of the dialogue's speakers, never a topic of their own sentences.
    """

    def __init__(
        self,
        builder: _Builder,
        ctx: _Sentence,
        *,
        people: dict[str, str],
        other: str | None,
        participants: set[str],
        already: int = 0,
    ):
        self.b = builder
        self.ctx = ctx
        self.people = people
        self.other = other
        self.participants = participants
        self.budget = MAX_EDGES - already
        self.already = already  # edges the special cases filed for this sentence
        self.emitted = 0
        self.used: set[int] = set()

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
        if low in _FIRST_PERSON or low in _WE:
            return self.ctx.speaker
        if low in _YOU:
            return self.other
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
        low = tok.lower_
        if low in _FIRST_PERSON or low in _WE:
            return self.ctx.speaker
        if low in _YOU:
            return self.other
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
