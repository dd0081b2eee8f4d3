"""A node's identity as the user corrects it: its name, aliases and kind, one at a time or
several together (``correct_node``)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings

from memory.core.merge_rules import normalise_name
from memory.models import CorrectionAction, Node, NodeKind
from memory.services import keys
from memory.services.corrections.common import (
    CorrectionError,
    _locked_node,
    _node_state,
    _record,
)
from memory.services.locks import user_lock

MAX_NAME = 200  # Node.name and each alias


def _clean(value, field: str) -> str:
    if not isinstance(value, str):
        raise CorrectionError("Must be a string.", field=field)
    text = " ".join(value.split())
    if not text or not normalise_name(text):
        raise CorrectionError("Must not be empty.", field=field)
    if len(text) > MAX_NAME:
        raise CorrectionError(f"Must be at most {MAX_NAME} characters.", field=field)
    return text


def _name_taken(user, node: Node, kind: str, normalised: str) -> Node | None:
    return (
        Node.objects.for_user(user)
        .filter(kind=kind, normalised_name=normalised)
        .exclude(pk=node.pk)
        .first()
    )


def _save_node(user, node: Node, fields: list[str], now: datetime) -> None:
    node.updated_at = now
    node.save(update_fields=[*fields, "updated_at"])
    keys.sync_node_keys(user_id=user.pk, nodes=[node])


def rename_node(*, user, node, name: str, now: datetime) -> Node:
    """Give ``node`` (a Node or id of ``user``'s) the name ``name``; the old name becomes an
    alias (unless it only differed in case or spacing), and ``name`` stops being an alias.

    Raises ``CorrectionError`` (field ``name``) for an empty or over-long name, or when
    another node of the same kind already has that name (merge the two instead).
    """
    name = _clean(name, "name")
    with user_lock(user.pk):
        node = _locked_node(user, node)
        if name == node.name:
            return node
        normalised = normalise_name(name)
        other = _name_taken(user, node, node.kind, normalised)
        if other is not None:
            raise CorrectionError(
                f"Another {node.kind.lower()} is already called {other.name!r}; merge the two "
                "instead of renaming.",
                field="name",
            )
        before = _node_state(node)
        aliases = [a for a in node.aliases if normalise_name(a) != normalised]
        if normalise_name(node.name) != normalised and all(
            normalise_name(a) != node.normalised_name for a in aliases
        ):
            aliases.append(node.name)
        node.name, node.normalised_name, node.aliases = name, normalised, aliases
        _save_node(user, node, ["name", "normalised_name", "aliases"], now)
        _record(user, CorrectionAction.RENAME, "node", node.pk, before, _node_state(node), now)
        return node


def add_alias(*, user, node, alias: str, now: datetime) -> Node:
    """Add ``alias`` to ``node``'s aliases; a form the node already has (its name or an
    alias, compared case- and spacing-insensitively) changes nothing.

    Raises ``CorrectionError`` (field ``add_alias``) for an empty or over-long alias.
    """
    alias = _clean(alias, "add_alias")
    with user_lock(user.pk):
        node = _locked_node(user, node)
        normalised = normalise_name(alias)
        if normalised in {normalise_name(form) for form in [node.name, *node.aliases]}:
            return node
        limit = max_aliases()
        if len(node.aliases) >= limit:
            # Each alias is a key to embed and match on every Read: bounded per node.
            raise CorrectionError(
                f"A node has at most {limit} aliases; remove one first.", field="add_alias"
            )
        before = _node_state(node)
        node.aliases = [*node.aliases, alias]
        _save_node(user, node, ["aliases"], now)
        _record(user, CorrectionAction.ADD_ALIAS, "node", node.pk, before, _node_state(node), now)
        return node


def remove_alias(*, user, node, alias: str, now: datetime) -> Node:
    """Remove ``alias`` (matched case- and spacing-insensitively) from ``node``'s aliases.

    Raises ``CorrectionError`` (field ``remove_alias``) when the node has no such alias.
    """
    if not isinstance(alias, str):
        raise CorrectionError("Must be a string.", field="remove_alias")
    normalised = normalise_name(alias)
    with user_lock(user.pk):
        node = _locked_node(user, node)
        kept = [a for a in node.aliases if normalise_name(a) != normalised]
        if not normalised or len(kept) == len(node.aliases):
            raise CorrectionError(f"{node.name!r} has no alias {alias!r}.", field="remove_alias")
        before = _node_state(node)
        node.aliases = kept
        _save_node(user, node, ["aliases"], now)
        _record(
            user, CorrectionAction.REMOVE_ALIAS, "node", node.pk, before, _node_state(node), now
        )
        return node


def change_kind(*, user, node, kind: str, now: datetime) -> Node:
    """Make ``node`` a ``kind`` (one of ``NodeKind``).

    Raises ``CorrectionError`` (field ``kind``) for an unknown kind, for the self node (it
    stands for the user, a PERSON), or when a node of that kind already has this name.
    """
    if kind not in NodeKind.values:
        raise CorrectionError(f"Must be one of {', '.join(NodeKind.values)}.", field="kind")
    with user_lock(user.pk):
        node = _locked_node(user, node)
        if node.kind == kind:
            return node
        if node.is_self:
            raise CorrectionError("The node that stands for you is always a PERSON.", field="kind")
        other = _name_taken(user, node, kind, node.normalised_name)
        if other is not None:
            raise CorrectionError(
                f"A {kind.lower()} called {other.name!r} already exists; merge the two instead.",
                field="kind",
            )
        before = _node_state(node)
        node.kind = kind
        node.updated_at = now
        node.save(update_fields=["kind", "updated_at"])
        _record(user, CorrectionAction.CHANGE_KIND, "node", node.pk, before, _node_state(node), now)
        return node


NODE_CORRECTIONS = ("name", "kind", "add_alias", "remove_alias")


def correct_node(*, user, node, changes: dict[str, str], now: datetime) -> Node:
    """Apply several corrections to ``node`` together or not at all (the explorer's and the
    API's node edit): ``changes`` maps ``name`` → ``rename_node``, ``kind`` →
    ``change_kind``, ``add_alias`` → ``add_alias``, ``remove_alias`` → ``remove_alias``, run
    in that order in one transaction under ``user_lock`` (each recorded as its own
    ``Correction``). Returns the node as corrected. The first ``CorrectionError`` undoes
    the ones before it; an unknown key is a ``CorrectionError`` of that field.
    """
    unknown = sorted(set(changes) - set(NODE_CORRECTIONS))
    if unknown:
        raise CorrectionError("Not a correction of a node.", field=unknown[0])
    with user_lock(user.pk):
        if "name" in changes:
            node = rename_node(user=user, node=node, name=changes["name"], now=now)
        if "kind" in changes:
            node = change_kind(user=user, node=node, kind=changes["kind"], now=now)
        if "add_alias" in changes:
            node = add_alias(user=user, node=node, alias=changes["add_alias"], now=now)
        if "remove_alias" in changes:
            node = remove_alias(user=user, node=node, alias=changes["remove_alias"], now=now)
        return _locked_node(user, node)


def max_aliases() -> int:
    """Aliases one node may have (``GRAPH_MAX_ALIASES_PER_NODE``, default 100)."""
    return int(getattr(settings, "GRAPH_MAX_ALIASES_PER_NODE", 100))
