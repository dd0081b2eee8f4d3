"""The relation list of a batch: labels normalised, ends resolved (batch ref, self, batch
name, known node, else a provisional entity), snippets checked against the user's words,
duplicates dropped."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from memory.core.cleaning.entities import _Entity
from memory.core.cleaning.instructions import instruction_like
from memory.core.cleaning.schema import (
    CARDINALITIES,
    OCCURRED_PATTERN,
    PROVISIONAL_CONFIDENCE,
    RELATION_LABEL,
    STABILITIES,
    TEMPORARY,
    Drop,
)
from memory.core.cleaning.text import normalise_name, normalise_ws
from memory.core.cleaning.values import _confidence, _ref_of, _valid_iso

_LABEL_SEPARATORS = re.compile(r"[\s\-]+")
_OCCURRED = re.compile(OCCURRED_PATTERN)


def _end_label(value: Any) -> str:
    return normalise_ws(value) if isinstance(value, str) else repr(value)


_EndKey = tuple[str, str]  # (category, identity): what an end means, for comparisons


@dataclass
class _End:
    category: str  # "ref" | "self" | "known" | "unknown" | "dropped"
    identity: str  # the ref, "" for self, or the normalised name
    out: str  # what the cleaned relation writes for this end

    @property
    def key(self) -> _EndKey:
        return (self.category, self.identity)


@dataclass
class _RelationCleaner:
    """State shared by the relations of one batch: refs, provisional nodes, dedup."""

    messages: Mapping[str, str]
    known_names: Mapping[str, str]
    self_placeholders: frozenset[str]
    entities: list[_Entity]
    ref_map: dict[str, str]
    dropped_refs: set[str]
    drops: list[Drop]
    fixes: list[str]
    provisional: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._batch_names: dict[str, str] = {}
        for entity in self.entities:
            self._batch_names.setdefault(normalise_name(entity.data["name"]), entity.ref)
        self._provisional_by_name: dict[str, str] = {}
        self._used_refs = set(self.ref_map) | self.dropped_refs
        self._counter = 0

    def clean_all(self, raw_relations: list) -> list[dict]:
        kept: list[dict] = []
        kept_items: list[str] = []  # the description of each kept relation, for drops
        index_by_key: dict[tuple[_EndKey, str, _EndKey], int] = {}
        for raw in raw_relations:
            cleaned = self._clean_one(raw)
            if cleaned is None:
                continue
            relation, key, item = cleaned
            if key not in index_by_key:
                index_by_key[key] = len(kept)
                kept.append(relation)
                kept_items.append(item)
                continue
            position = index_by_key[key]
            loser = item
            if relation["confidence"] > kept[position]["confidence"]:
                loser = kept_items[position]
                kept[position], kept_items[position] = relation, item
            self.drops.append(Drop(loser, "duplicate relation (kept the higher confidence)"))
        return kept

    def _resolve(self, value: str) -> _End:
        """Resolve an end: batch ref, self placeholder, batch entity name, known node."""
        if value in self.ref_map:
            ref = self.ref_map[value]
            return _End("ref", ref, ref)
        if value in self.dropped_refs:
            return _End("dropped", value, value)
        norm = normalise_name(value)
        if norm in self.self_placeholders:
            return _End("self", "", normalise_ws(value))
        if norm in self._batch_names:
            # Extractors often name an entity of the same batch instead of citing
            # its ref; a provisional twin of it would never merge (kind OTHER).
            ref = self._batch_names[norm]
            self.fixes.append(f"relation end {value!r} resolved to batch ref {ref!r}")
            return _End("ref", ref, ref)
        if norm in self.known_names:
            return _End("known", norm, normalise_ws(value))
        return _End("unknown", norm, normalise_ws(value))

    def _provisional_ref(self, end: _End, item: str) -> str:
        ref = self._provisional_by_name.get(end.identity)
        if ref is not None:
            return ref
        while True:
            self._counter += 1
            ref = f"p{self._counter}"
            if ref not in self._used_refs:
                break
        self._used_refs.add(ref)
        self._provisional_by_name[end.identity] = ref
        self.provisional.append(ref)
        data = {
            "ref": ref,
            "kind": "OTHER",
            "name": end.out,
            "aliases": [],
            "properties": {},
            "confidence": PROVISIONAL_CONFIDENCE,
            "hint": None,
            "provisional": True,
        }
        self.entities.append(_Entity(ref, data))
        self.fixes.append(f"{item}: unknown end {end.out!r} created as provisional {ref!r}")
        return ref

    def _drop(self, item: str, reason: str) -> None:
        self.drops.append(Drop(item, reason))

    def _clean_one(self, raw: Any) -> tuple[dict, tuple[_EndKey, str, _EndKey], str] | None:
        if not isinstance(raw, dict):
            self._drop(f"relation {raw!r}"[:120], "not an object")
            return None
        label_raw = raw.get("relation")
        src_raw, tgt_raw = raw.get("source"), raw.get("target")
        item = f"relation {_end_label(src_raw)} -[{_end_label(label_raw)}]-> {_end_label(tgt_raw)}"

        label = _relation_label(label_raw)
        if label is None:
            self._drop(item, "malformed relation label")
            return None
        if label != label_raw:
            self.fixes.append(f"{item}: label normalised to {label}")
        if instruction_like(label.replace("_", " ")):
            self._drop(item, "instruction-like relation label")
            return None

        src_value, tgt_value = _ref_of(src_raw), _ref_of(tgt_raw)
        if src_value is None or tgt_value is None:
            self._drop(item, "missing source" if src_value is None else "missing target")
            return None

        snippet = raw.get("snippet")
        if not isinstance(snippet, str) or not snippet.strip():
            self._drop(item, "missing snippet")
            return None
        snippet = snippet.strip()
        if instruction_like(snippet):
            self._drop(item, "instruction-like snippet")
            return None
        message = raw.get("message")
        if message is not None:
            message = _ref_of(message)
            if message is None or message not in self.messages:
                self._drop(item, "unknown message")
                return None
            # §4: the snippet is the user's own words, so it must be in the message.
            if normalise_ws(snippet) not in normalise_ws(self.messages[message]):
                self._drop(item, "snippet not found in message")
                return None

        src, tgt = self._resolve(src_value), self._resolve(tgt_value)
        if "dropped" in (src.category, tgt.category):
            self._drop(item, "end refers to a dropped entity")
            return None
        if src.category == "unknown" and tgt.category == "unknown":
            self._drop(item, "both ends unknown")
            return None
        if src.key == tgt.key:
            self._drop(item, "self-relation")
            return None
        if any(end.category == "unknown" and instruction_like(end.out) for end in (src, tgt)):
            self._drop(item, "instruction-like end")
            return None
        for end in (src, tgt):
            if end.category == "unknown":
                ref = self._provisional_ref(end, item)
                end.category, end.identity, end.out = "ref", ref, ref

        stability = _choice(raw.get("stability"), STABILITIES, "stable", "stability")
        cardinality = _choice(raw.get("cardinality"), CARDINALITIES, "one_to_many", "cardinality")
        for note in (stability[1], cardinality[1]):
            if note:
                self.fixes.append(f"{item}: {note}")
        relation = {
            "source": src.out,
            "relation": label,
            "target": tgt.out,
            "confidence": _confidence(raw.get("confidence"), item, self.fixes),
            "stability": stability[0],
            "cardinality": cardinality[0],
            "expires_at": self._expiry(raw.get("expires_at"), stability[0], item),
            "snippet": snippet,
            "evidence": self._evidence(raw.get("evidence"), item),
            "message": message,
            "occurred": self._occurred(raw.get("occurred"), item),
        }
        # The same claim cited from two messages is two sightings, each with its snippet.
        return relation, (src.key, label, tgt.key, message), item

    def _occurred(self, value: Any, item: str) -> str:
        if value is None or value == "":
            return ""
        if not isinstance(value, str) or not _OCCURRED.match(value.strip()):
            self.fixes.append(
                f"{item}: occurred {value!r} is not a date, month, year or day range, dropped"
            )
            return ""
        text = value.strip()
        if "/" in text:
            first, last = text.split("/")
            if not (_valid_iso(first) and _valid_iso(last)) or first > last:
                self.fixes.append(f"{item}: occurred {value!r} is not a valid range, dropped")
                return ""
        elif len(text) == 10 and not _valid_iso(text):
            self.fixes.append(f"{item}: occurred {value!r} is not a valid date, dropped")
            return ""
        return text

    def _expiry(self, value: Any, stability: str, item: str) -> str | None:
        if value is None:
            return None
        if stability not in TEMPORARY:
            # §5.5: only time_bound/ephemeral relations expire.
            self.fixes.append(f"{item}: expires_at dropped on a {stability} relation")
            return None
        if not _valid_iso(value):
            self.fixes.append(f"{item}: expires_at {value!r} is not ISO 8601, dropped")
            return None
        return value.strip()

    def _evidence(self, value: Any, item: str) -> str:
        if value is not None and not isinstance(value, str):
            self.fixes.append(f"{item}: evidence is not text, dropped")
            return ""
        if value and instruction_like(value):
            self.fixes.append(f"{item}: evidence dropped (instruction-like)")
            return ""
        return normalise_ws(value) if value else ""


def _relation_label(value: Any) -> str | None:
    """The normalised label, or None when it cannot be one (§4 regex)."""
    if not isinstance(value, str):
        return None
    label = _LABEL_SEPARATORS.sub("_", value.strip().upper()).strip("_")
    return label if RELATION_LABEL.match(label) else None


def _choice(value: Any, allowed: frozenset[str], default: str, label: str) -> tuple[str, str]:
    """(the value lowercased if allowed else ``default``, a fix note or "")."""
    if value is None:
        return default, ""
    if isinstance(value, str) and value.strip().lower() in allowed:
        return value.strip().lower(), ""
    return default, f"unknown {label} {value!r}, set to {default}"
