"""What every special case is built on: the sentence, who a subject is, whether a verb is
planned and when the plan expires, and filing one relation."""

from __future__ import annotations

from datetime import datetime, time
from typing import TYPE_CHECKING

from memory.core.cleaning import normalise_name
from memory.core.dates import resolve_date
from memory.extraction.base import SELF_REF
from memory.extraction.offline.builder import _Builder, _Sentence
from memory.extraction.offline.lexicon import _FIRST_PERSON, _PLAN_HEADS
from memory.extraction.offline.tokens import _clean_name, _has_aux, _name_at

if TYPE_CHECKING:
    from spacy.tokens import Token


class _SpecialCase:
    """One sentence read by the special cases (``offline.patterns``)."""

    def __init__(
        self, builder: _Builder, ctx: _Sentence, account_holder: bool, known_roles: dict[str, str]
    ):
        self.b = builder
        self.ctx = ctx
        self.account_holder = account_holder
        self.known_roles = known_roles

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
