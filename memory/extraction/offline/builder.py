"""The batch being built: entities by (kind, name), relations de-duplicated per claim."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from memory.core.cleaning import RELATION_LABEL, normalise_name, normalise_ws
from memory.core.dates import resolve_occurred
from memory.extraction.base import SELF_REF, Turn
from memory.extraction.offline.lexicon import plausible_person_name

if TYPE_CHECKING:
    from spacy.tokens import Span


@dataclass
class _Builder:
    self_names: set[str]
    entities: list[dict] = field(default_factory=list)
    relations: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    self_name: str | None = None
    self_aliases: list[str] = field(default_factory=list)
    speakers: dict[str, str] = field(default_factory=dict)  # normalised → the speaker's name
    rejected: set[str] = field(default_factory=set)  # refs of implausible PERSON names
    _refs: dict[tuple[str, str], str] = field(default_factory=dict)
    _relation_keys: set[tuple[str, str, str, str]] = field(default_factory=set)

    def entity(
        self, kind: str, name: str, *, confidence: float = 0.7, properties: dict | None = None
    ) -> str:
        """The ref of the batch entity (kind, name), created on first use; the account
        holder's own name resolves to the self placeholder, a short form of exactly one
        speaker's first name ("Mel" for Melanie) to that speaker. A PERSON that is not a
        speaker and whose name is not plausible ("Nature", "Wanna") gets a ref that every
        relation refuses, and never reaches the batch."""
        norm = normalise_name(name)
        if kind == "PERSON" and norm in self.self_names:
            return SELF_REF
        if kind == "PERSON" and norm not in self.speakers:
            owners = {
                full
                for short, full in self.speakers.items()
                if len(norm) >= 3 and short.split()[0].startswith(norm)
            }
            if len(owners) == 1:
                name, norm = next(iter(owners)), normalise_name(next(iter(owners)))
        key = (kind, norm)
        rejected = (
            kind == "PERSON" and norm not in self.speakers and not plausible_person_name(name)
        )
        ref = self._refs.get(key)
        if ref is None:
            ref = f"e{len(self._refs) + 1}"
            self._refs[key] = ref
            if rejected:
                self.rejected.add(ref)
                return ref
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
        elif ref not in self.rejected:
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
        if source == target or not RELATION_LABEL.match(label) or {source, target} & self.rejected:
            return
        # A claim repeated in another turn is another sighting (its own snippet and date).
        key = (source, label, target, ctx.turn.message_id)
        if key in self._relation_keys:
            return
        self._relation_keys.add(key)
        occurred = resolve_occurred(ctx.sent.text, ctx.today, future=stability == "time_bound")
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
                **({"occurred": occurred} if occurred else {}),
            }
        )


@dataclass
class _Sentence:
    turn: Turn
    sent: Span
    speaker: str  # the ref first person resolves to
    today: date
    zone: ZoneInfo
