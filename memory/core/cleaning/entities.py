"""The entity list of a batch: each entity's fields cleaned, duplicates folded, and a map
from every accepted ref to the kept one."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from memory.core.cleaning.instructions import _clean_properties, instruction_like
from memory.core.cleaning.schema import KINDS, Drop
from memory.core.cleaning.text import normalise_name, normalise_ws
from memory.core.cleaning.values import _confidence, _ref_of

# Kinds whose names are proper nouns: an all-lowercase name is a casing slip.
_TITLE_CASE_KINDS = frozenset({"PERSON", "ORG", "PLACE"})
_WORD_START = re.compile(r"(^|[\s\-])(\w)")


def _title_case(name: str) -> str:
    return _WORD_START.sub(lambda m: m.group(1) + m.group(2).upper(), name)


@dataclass
class _Entity:
    ref: str
    data: dict


def _describe_entity(raw: Any) -> str:
    if isinstance(raw, dict):
        name = raw.get("name")
        if isinstance(name, str) and name.strip():
            return f"entity {normalise_ws(name)!r}"
        return f"entity ref {raw.get('ref')!r}"
    return f"entity {raw!r}"[:120]


def _entity_fields(raw: dict, ref: str, name: str, item: str, fixes: list[str]) -> dict:
    """The cleaned fields of one entity whose ref and (non-empty) name are valid."""
    kind_raw = raw.get("kind")
    kind = kind_raw.strip().upper() if isinstance(kind_raw, str) else ""
    if kind not in KINDS:
        fixes.append(f"{item}: unknown kind {kind_raw!r}, set to OTHER")
        kind = "OTHER"
    if kind in _TITLE_CASE_KINDS and name == name.lower() and name != name.upper():
        fixed = _title_case(name)
        fixes.append(f"{item}: casing {name!r} → {fixed!r}")
        name = fixed

    aliases_raw = raw.get("aliases") or []
    if not isinstance(aliases_raw, list):
        fixes.append(f"{item}: aliases is not a list, dropped")
        aliases_raw = []
    aliases: list[str] = []
    alias_keys = {normalise_name(name)}
    for alias in aliases_raw:
        if not isinstance(alias, str) or not normalise_name(alias):
            fixes.append(f"{item}: alias {alias!r} dropped")
            continue
        if instruction_like(alias):
            fixes.append(f"{item}: alias {alias!r} dropped (instruction-like)")
            continue
        if normalise_name(alias) not in alias_keys:
            alias_keys.add(normalise_name(alias))
            aliases.append(normalise_ws(alias))

    properties = raw.get("properties")
    if properties is None:
        properties = {}
    if not isinstance(properties, dict):
        fixes.append(f"{item}: properties is not an object, dropped")
        properties = {}
    properties = _clean_properties(properties, item, fixes)

    hint = raw.get("hint")
    if hint is not None and not isinstance(hint, str):
        fixes.append(f"{item}: hint {hint!r} is not text, dropped")
        hint = None
    if hint is not None and instruction_like(hint):
        fixes.append(f"{item}: hint dropped (instruction-like)")
        hint = None
    return {
        "ref": ref,
        "kind": kind,
        "name": name,
        "aliases": aliases,
        "properties": dict(properties),
        "confidence": _confidence(raw.get("confidence"), item, fixes),
        "hint": normalise_ws(hint) if hint and hint.strip() else None,
        "provisional": False,
    }


def _fold(first: dict, other: dict) -> None:
    """Merge a same-kind, same-name entity of the batch into the first one."""
    known = {normalise_name(a) for a in first["aliases"]}
    first["aliases"].extend(a for a in other["aliases"] if normalise_name(a) not in known)
    for prop, value in other["properties"].items():
        first["properties"].setdefault(prop, value)
    first["confidence"] = max(first["confidence"], other["confidence"])
    first["hint"] = first["hint"] or other["hint"]


def _clean_entities(
    raw_entities: list, drops: list[Drop], fixes: list[str]
) -> tuple[list[_Entity], dict[str, str], set[str]]:
    """Clean the entity list.

    Returns the kept entities, a map from every accepted ref (including refs
    folded into an earlier duplicate) to the kept ref, and the refs of dropped
    entities (relations naming them must not turn them into provisional nodes).
    """
    kept: list[_Entity] = []
    ref_map: dict[str, str] = {}
    dropped_refs: set[str] = set()
    by_key: dict[tuple[str, str], _Entity] = {}
    for raw in raw_entities:
        item = _describe_entity(raw)
        if not isinstance(raw, dict):
            drops.append(Drop(item, "not an object"))
            continue
        ref = _ref_of(raw.get("ref"))
        name_raw = raw.get("name")
        name = normalise_ws(name_raw) if isinstance(name_raw, str) else ""
        if ref is None:
            drops.append(Drop(item, "missing ref"))
            continue
        if ref in ref_map or ref in dropped_refs:
            drops.append(Drop(item, f"duplicate ref {ref!r}"))
            continue
        if not normalise_name(name):
            drops.append(Drop(item, "empty name"))
            dropped_refs.add(ref)
            continue
        if instruction_like(name):
            drops.append(Drop(item, "instruction-like name"))
            dropped_refs.add(ref)
            continue
        data = _entity_fields(raw, ref, name, item, fixes)

        # Two entities of one kind and name in one batch would become two nodes
        # violating the (user, kind, normalised name) unique key: fold them.
        key = (data["kind"], normalise_name(data["name"]))
        first = by_key.get(key)
        if first is not None:
            fixes.append(f"{item}: ref {ref!r} folded into duplicate ref {first.ref!r}")
            _fold(first.data, data)
            ref_map[ref] = first.ref
            continue
        entity = _Entity(ref, data)
        by_key[key] = entity
        kept.append(entity)
        ref_map[ref] = ref
    return kept, ref_map, dropped_refs
