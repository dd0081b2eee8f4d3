"""Special cases read from a verb: work, home, study, moves, jobs, offers, preferences,
travel and plans."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory.extraction.offline.lexicon import (
    _DISLIKE,
    _FIRST_PERSON,
    _LIKE,
    _NER_KIND,
    _NO_PLAN_VERBS,
    _STUDENT_NOUNS,
    _TRAVEL,
)
from memory.extraction.offline.special_case import _SpecialCase
from memory.extraction.offline.tokens import (
    _has_aux,
    _kind_for,
    _name_at,
    _named_noun,
    _negated,
    _phrase,
    _prep_objects,
    _span_text,
    _subject,
)

if TYPE_CHECKING:
    from spacy.tokens import Token


class _Facts(_SpecialCase):
    """Facts read from a verb and its subject, objects and prepositions."""

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
        label, confidence, stability = (
            ("VISITED", 0.7, "stable") if past else ("TRAVELS_TO", 0.65, "time_bound")
        )
        for obj in targets:
            named = _name_at(obj)
            if named is None or named[1] not in {"GPE", "LOC", "FAC"}:
                continue
            place = self.b.entity("PLACE", named[0], confidence=0.75)
            self._emit(
                self.ctx.speaker,
                label,
                place,
                _span_text(verb, obj),
                confidence=confidence,
                stability=stability,
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
