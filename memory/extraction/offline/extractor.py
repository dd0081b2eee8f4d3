"""``OfflineExtractor``: turns in, a raw ``pegasus-batch/1`` out."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from memory.core.cleaning import instruction_like, normalise_name, normalise_ws
from memory.core.words import STOP_WORDS
from memory.extraction.base import (
    SELF_REF,
    ExtractionResult,
    Extractor,
    Transcript,
    empty_batch,
    resolve_zone,
)
from memory.extraction.offline.builder import _Builder, _Sentence
from memory.extraction.offline.general import GeneralReader
from memory.extraction.offline.lexicon import _GENERIC_NOUNS
from memory.extraction.offline.model import load_model
from memory.extraction.offline.patterns import _Reader

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


class OfflineExtractor(Extractor):
    """Deterministic spaCy extraction (see the package docstring for the patterns)."""

    name = "offline-spacy"

    def _extract(self, transcript: Transcript) -> ExtractionResult:
        turns = transcript.turns
        zone = resolve_zone(transcript.time_zone)
        today = transcript.started_at.astimezone(zone).date()
        self_name = transcript.self_name
        self_names = {"user"} | ({normalise_name(self_name)} if self_name else set())
        builder = _Builder(
            self_names=self_names,
            speakers={
                normalise_name(t.speaker): normalise_ws(t.speaker)
                for t in turns
                if t.speaker and t.speaker.strip()
            },
        )
        known_roles = _known_roles(transcript.neighbourhood, self_names)
        nlp = load_model()
        docs = list(nlp.pipe([turn.text for turn in turns]))
        leads: list[str] = []
        participants = {normalise_name(t.speaker) for t in turns if t.speaker and t.speaker.strip()}
        previous: tuple[str | None, dict[str, str]] = (None, {})  # (speaker ref, people named)
        for turn, doc in zip(turns, docs, strict=True):
            account_holder = not (turn.speaker and turn.speaker.strip())
            speaker = (
                SELF_REF
                if account_holder
                else builder.entity("PERSON", normalise_ws(turn.speaker or ""), confidence=0.9)
            )
            # "you": the other speaker of a replayed dialogue; the account holder's "you" is
            # the assistant, which has no node.
            other = (
                previous[0] if not account_holder and previous[0] not in {None, speaker} else None
            )
            people: dict[str, str] = {}
            kept: list[str] = []
            for sent in doc.sents:
                if not sent.text.strip():
                    continue
                if instruction_like(sent.text):
                    builder.notes.append(f"{turn.message_id}: skipped an instruction-like sentence")
                    continue
                kept.append(sent.text.strip())
                ctx = _Sentence(turn=turn, sent=sent, speaker=speaker, today=today, zone=zone)
                before = len(builder.relations)
                _Reader(builder, ctx, account_holder, known_roles).read()
                named = {**previous[1], **people} if not people else people
                GeneralReader(
                    builder,
                    ctx,
                    people=named,
                    other=other,
                    participants=participants | builder.self_names,
                    already=len(builder.relations) - before,
                ).read()
                people.update({k: v for k, v in named.items() if k not in previous[1]})
            previous = (speaker, people)
            # A turn's lead: its first sentence of six words or more, else its first.
            lead = next((s for s in kept if len(s.split()) >= 6), kept[0] if kept else None)
            if lead:
                leads.append(lead if account_holder else f"{turn.speaker}: {lead}")

        batch = empty_batch(transcript.started_at, transcript.ended_at)
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
