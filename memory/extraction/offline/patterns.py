"""High-precision special cases: introductions, possessive roles ("my boss Joshua"), work,
home, study, moves, offers, preferences, travel and plans (see the package docstring)."""

from __future__ import annotations

from datetime import datetime, time
from typing import TYPE_CHECKING

from memory.core.cleaning import normalise_name
from memory.core.dates import resolve_date
from memory.extraction.base import SELF_REF
from memory.extraction.offline.builder import _Builder, _Sentence
from memory.extraction.offline.lexicon import (
    _DISLIKE,
    _FIRST_PERSON,
    _FORMER,
    _LIKE,
    _NER_KIND,
    _NO_PLAN_VERBS,
    _PLAN_HEADS,
    _ROLE_MODIFIERS,
    _ROLES,
    _STUDENT_NOUNS,
    _TRAVEL,
    _Role,
)
from memory.extraction.offline.tokens import (
    _clean_name,
    _has_aux,
    _kind_for,
    _name_at,
    _named_noun,
    _negated,
    _phrase,
    _plausible,
    _prep_objects,
    _span_text,
    _subject,
)

if TYPE_CHECKING:
    from spacy.tokens import Token


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
