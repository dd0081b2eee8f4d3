"""``clean_batch``: the whole pass over one extractor batch, with its episode and the
user's self fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memory.core.cleaning.entities import _clean_entities
from memory.core.cleaning.instructions import _clean_properties, _clean_summary, instruction_like
from memory.core.cleaning.relations import _RelationCleaner
from memory.core.cleaning.schema import (
    BATCH_FORMAT,
    SELF_PLACEHOLDERS,
    BatchError,
    CleanResult,
    Drop,
)
from memory.core.cleaning.text import normalise_name, normalise_ws
from memory.core.cleaning.values import _confidence, _valid_iso


def _clean_episode(raw: Any, fixes: list[str]) -> dict | None:
    if raw is None:
        return None
    episode: dict[str, Any] = {}
    for key in ("started_at", "ended_at"):
        value = raw.get(key)
        if value is not None and not _valid_iso(value):
            fixes.append(f"episode: {key} {value!r} is not an ISO 8601 time, dropped")
            value = None
        episode[key] = value
    summary = raw.get("summary")
    if summary is not None and not isinstance(summary, str):
        fixes.append("episode: summary is not text, dropped")
        summary = None
    episode["summary"] = _clean_summary(normalise_ws(summary), fixes) if summary else ""
    importance = raw.get("importance")
    episode["importance"] = _confidence(importance, "episode importance", fixes)
    tags = raw.get("tags")
    if tags is None:
        tags = []
    if not isinstance(tags, list):
        fixes.append("episode: tags is not a list, dropped")
        tags = []
    clean_tags: list[str] = []
    for tag in tags:
        if isinstance(tag, str) and instruction_like(tag):
            fixes.append(f"episode: tag {tag!r} dropped (instruction-like)")
        elif isinstance(tag, str) and normalise_ws(tag):
            if normalise_ws(tag) not in clean_tags:
                clean_tags.append(normalise_ws(tag))
        else:
            fixes.append(f"episode: tag {tag!r} dropped")
    episode["tags"] = clean_tags
    return episode


def _clean_self(batch: dict, fixes: list[str]) -> dict:
    """The optional ``self_name``, ``self_aliases`` and ``self_properties`` of a batch (what
    the user said about themself), type-checked, instruction-like values left out; only
    the keys the batch had, and only when something is left."""
    out: dict[str, Any] = {}
    name = batch.get("self_name")
    if name is not None:
        if not isinstance(name, str) or not normalise_name(name):
            fixes.append(f"self_name {name!r} dropped")
        elif instruction_like(name):
            fixes.append("self_name dropped (instruction-like)")
        else:
            out["self_name"] = normalise_ws(name)
    aliases = batch.get("self_aliases")
    if aliases is not None and not isinstance(aliases, list):
        fixes.append("self_aliases is not a list, dropped")
    elif aliases is not None:
        kept: list[str] = []
        for alias in aliases:
            if not isinstance(alias, str) or not normalise_name(alias):
                fixes.append(f"self alias {alias!r} dropped")
            elif instruction_like(alias):
                fixes.append("self alias dropped (instruction-like)")
            elif normalise_ws(alias) not in kept:
                kept.append(normalise_ws(alias))
        if kept:
            out["self_aliases"] = kept
    properties = batch.get("self_properties")
    if properties is not None:
        if not isinstance(properties, dict):
            fixes.append("self_properties is not an object, dropped")
        else:
            kept_properties = _clean_properties(properties, "self", fixes)
            if kept_properties:
                out["self_properties"] = kept_properties
    return out


def clean_batch(
    batch: Any,
    *,
    messages: Mapping[str, str],
    known_names: Mapping[str, str],
    self_placeholders: frozenset[str] = SELF_PLACEHOLDERS,
) -> CleanResult:
    """Clean one extractor batch (SPEC §5.5, format §6.2).

    Inputs:
        batch: the parsed ``pegasus-batch/1`` JSON. ``entities`` / ``relations`` may
            be missing (an empty batch is valid) but, when present, must be lists.
        messages: message id (string) → the message text, for the turns the
            batch was extracted from; snippets are checked against them.
        known_names: normalised name (``normalise_name``) → kind, for the user's
            existing nodes, so a relation end may name one of them.
        self_placeholders: normalised ends that mean the user.

    Raises ``BatchError`` when ``batch`` is not an object, its ``format`` is not
    ``pegasus-batch/1``, or ``episode``/``entities``/``relations`` have the wrong type.

    Entities: kind uppercased, unknown → OTHER; name whitespace-collapsed (empty →
    dropped), an all-lowercase PERSON/ORG/PLACE name title-cased; aliases and tags
    de-duplicated; confidence clamped to 0..1 (non-number → 0.5); two entities
    with the same kind and normalised name are folded into the first.

    Relations: label uppercased with spaces/hyphens → "_", must match
    ``RELATION_LABEL``; ends resolve, in order, to a batch ref, a self placeholder,
    the name of an entity of this batch, or an existing node (``known_names``); a
    relation is dropped for a malformed label, a missing or unverifiable snippet
    (``message`` set: it must be known and contain the snippet, whitespace-normalised,
    case-sensitive), an end naming a dropped entity, both ends unknown, or both
    ends being the same; a single unknown end becomes a provisional OTHER entity
    (confidence 0.3, fresh ref "p1", "p2", …), shared by every relation naming it.
    Unknown stability → "stable", unknown cardinality → "one_to_many", ``expires_at``
    kept only on time_bound/ephemeral relations and only as an ISO 8601 string.
    Of duplicate relations (same resolved source, label, target) the one with the
    higher confidence is kept (the first on a tie).

    Instruction-like text (``instruction_like``): an entity with such a name is dropped
    (and relations naming it), as is a relation with such a label, snippet or unknown
    end; such aliases, properties (key or any string inside the value), hints, evidence,
    tags and summary sentences are left out with a fix note. ``self_name``,
    ``self_aliases`` and ``self_properties`` are cleaned the same way and kept in the
    output only when present and non-empty.

    Invariants of the output: no relation joins an end to itself, every label
    matches ``RELATION_LABEL``, every snippet with a message occurs in it, every
    relation end is a ref of the output batch, a self placeholder or a known name —
    to be resolved by the caller in that order (a ref shadows a placeholder).
    """
    if not isinstance(batch, dict):
        raise BatchError(f"a batch must be a JSON object, got {type(batch).__name__}")
    if batch.get("format") != BATCH_FORMAT:
        raise BatchError(
            f"unsupported batch format {batch.get('format')!r}, expected {BATCH_FORMAT!r}"
        )
    raw_episode = batch.get("episode")
    if raw_episode is not None and not isinstance(raw_episode, dict):
        raise BatchError("'episode' must be an object or null")
    raw_entities = batch.get("entities")
    raw_relations = batch.get("relations")
    for key, value in (("entities", raw_entities), ("relations", raw_relations)):
        if value is not None and not isinstance(value, list):
            raise BatchError(f"{key!r} must be a list, got {type(value).__name__}")

    drops: list[Drop] = []
    fixes: list[str] = []
    entities, ref_map, dropped_refs = _clean_entities(raw_entities or [], drops, fixes)
    cleaner = _RelationCleaner(
        messages=messages,
        known_names=known_names,
        self_placeholders=self_placeholders,
        entities=entities,
        ref_map=ref_map,
        dropped_refs=dropped_refs,
        drops=drops,
        fixes=fixes,
    )
    relations = cleaner.clean_all(raw_relations or [])
    cleaned = {
        "format": BATCH_FORMAT,
        "episode": _clean_episode(raw_episode, fixes),
        "entities": [e.data for e in cleaner.entities],
        "relations": relations,
        **_clean_self(batch, fixes),
    }
    return CleanResult(batch=cleaned, drops=drops, provisional=cleaner.provisional, fixes=fixes)
