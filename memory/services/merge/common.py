"""Small helpers every part of a merge shares: timestamps in records, a decision's log, a
node's known forms, aliases and properties added (and taken back), the locked decision."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from django.utils.dateparse import parse_datetime

from memory.core.merge_rules import normalise_name
from memory.models import MergeDecision, Node


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _when(value: str | None) -> datetime | None:
    return parse_datetime(value) if value else None


def _actor(by) -> str:
    return by.get_username() if by is not None else "system"


def _log(decision: MergeDecision, *, at: datetime, by, action: str, why: str) -> None:
    decision.log = [
        *decision.log,
        {"at": at.isoformat(), "by": _actor(by), "action": action, "why": why},
    ]


def _known_forms(node: Node) -> set[str]:
    return {normalise_name(form) for form in [node.name, *node.aliases]}


def _add_aliases(node: Node, forms: Iterable[str]) -> list[str]:
    """Append each form that is not already the node's name or an alias (case-insensitive,
    SPEC §5.6 "the new surface form becomes an alias"); return exactly those appended."""
    known = _known_forms(node)
    added: list[str] = []
    for form in forms:
        norm = normalise_name(form)
        if norm and norm not in known:
            known.add(norm)
            added.append(form[:200])
    if added:
        node.aliases = [*node.aliases, *added]
    return added


def _fill_properties(node: Node, properties: Mapping[str, Any]) -> list[str]:
    """New values fill missing keys only (stored facts win on conflict); return the keys
    added."""
    added = [key for key in properties if key not in node.properties]
    if added:
        node.properties = {**node.properties, **{key: properties[key] for key in added}}
    return added


def _undo_node_changes(node: Node, moved: Mapping[str, Any]) -> None:
    """Remove the aliases and property keys a merge added and restore confidence and the
    provisional flag."""
    added = list(moved.get("aliases_added", []))
    aliases = list(node.aliases)
    for alias in reversed(added):  # remove the last occurrence: that is the one appended
        for i in range(len(aliases) - 1, -1, -1):
            if aliases[i] == alias:
                del aliases[i]
                break
    node.aliases = aliases
    added_keys = set(moved.get("properties_added", []))
    node.properties = {k: v for k, v in node.properties.items() if k not in added_keys}
    if "previous_confidence" in moved:
        node.confidence = moved["previous_confidence"]
    if "previous_provisional" in moved:
        node.provisional = moved["previous_provisional"]


def _locked_decision(user, decision) -> MergeDecision:
    pk = decision.pk if isinstance(decision, MergeDecision) else decision
    found = MergeDecision.objects.for_user(user).select_for_update().filter(pk=pk).first()
    if found is None:
        raise ValueError("merge decision not found")
    return found
