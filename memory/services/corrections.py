"""A user's own corrections to their memory graph: rename, aliases, kind, forget.

The explorer and the REST API both call these; nothing else edits a node's identity outside
the Write and merge paths. Every function:

* runs in one transaction under ``memory.services.locks.user_lock`` (so a correction never
  interleaves with a Write, a Decay run or a merge of the same graph);
* reaches the row through ``for_user`` (another user's node or edge is ``Http404``, exactly
  like a missing one);
* keeps the MemoryKeys in step (``keys.sync_node_keys`` / ``keys.sync_relation_keys``), so
  the next Read seeds from the corrected names;
* records a ``Correction`` row with what changed (``before`` / ``after``), and returns the
  updated node (``None`` for a forget).

Forgetting means it: the record of a forget keeps ids and labels, never the forgotten words
(the sentence store keeps its own keyed digests of them), and older records naming the
forgotten node (its corrections, the merge decisions that kept it) lose their text at once.
Every other record keeps the text an undo needs for ``MEMORY_UNDO_WINDOW_DAYS`` (default
30); then ``erase_expired_history`` (a daily job) replaces it with ``ERASED`` in place, and a
merge can no longer be reverted.

A correction that changes nothing (adding an alias the node already has, renaming to the
same name, the same kind) is not recorded. Invalid input raises ``CorrectionError`` whose
message is fit to show the user and whose ``field`` names the input at fault.

Forgetting deletes rows for good (the user asked for it): an edge with its snippets, episode
links and traversals, and the stored sentences its snippets were cut from; a node with every
edge touching it and every stored sentence naming it (``memory.services.sentences``). An
edge that the forgotten edge had superseded takes over the forgotten edge's own successor,
or — when there is none — becomes current again (the claim it was replaced by is gone),
unless the same claim is live on another edge, which then supersedes it.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q

from memory.core.merge_rules import normalise_name
from memory.models import (
    Correction,
    CorrectionAction,
    Edge,
    MergeDecision,
    MergeStatus,
    Node,
    NodeKind,
    get_owned_or_404,
)
from memory.services import keys, sentences
from memory.services.edges import delete_edge_rows, edge_row
from memory.services.locks import user_lock

__all__ = [
    "MAX_NAME",
    "CorrectionError",
    "add_alias",
    "change_kind",
    "correct_node",
    "erase_expired_history",
    "forget_edge",
    "forget_node",
    "remove_alias",
    "rename_node",
]

MAX_NAME = 200  # Node.name and each alias
ERASED = "[erased]"
# Keys of Correction / MergeDecision JSON whose values are the user's words or names.
TEXT_KEYS = frozenset(
    (
        "name",
        "aliases",
        "aliases_added",
        "properties",
        "properties_added",
        "text",
        "evidence",
        "summary",
        "why",
        "hint",
        "source_name",
        "target_name",
        "snippet",
        "normalised_name",
        "title",
        "lines",
        "neighbourhood",
        "conversation",
        "keys",
    )
)
# What erase_expired_history leaves in MergeDecision.moved, so that revert_merge refuses.
ERASED_MARK = "erased_at"
FORGET_ACTIONS = (CorrectionAction.FORGET_NODE, CorrectionAction.FORGET_EDGE)


class CorrectionError(ValueError):
    """A correction that cannot be made; ``str(exc)`` is the reason, ``field`` the input."""

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.field = field


# --- helpers ----------------------------------------------------------------------------------


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _clean(value, field: str) -> str:
    if not isinstance(value, str):
        raise CorrectionError("Must be a string.", field=field)
    text = " ".join(value.split())
    if not text or not normalise_name(text):
        raise CorrectionError("Must not be empty.", field=field)
    if len(text) > MAX_NAME:
        raise CorrectionError(f"Must be at most {MAX_NAME} characters.", field=field)
    return text


def _locked_node(user, node) -> Node:
    node_id = node.pk if isinstance(node, Node) else node
    return get_owned_or_404(Node.objects.select_for_update(), user, pk=node_id)


def _node_state(node: Node) -> dict:
    return {"name": node.name, "kind": node.kind, "aliases": list(node.aliases)}


def _record(
    user, action: str, target_type: str, target_id: int, before: dict, after: dict, now: datetime
) -> Correction:
    return Correction.objects.create(
        user_id=user.pk,
        action=action,
        target_type=target_type,
        target_id=target_id,
        before=before,
        after=after,
        created_at=now,
    )


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


# --- node identity ----------------------------------------------------------------------------


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


# --- forgetting -------------------------------------------------------------------------------


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


def _edge_row(edge: Edge, names: dict[int, str]) -> dict:
    return {
        **edge_row(edge),
        "source_name": names.get(edge.source_id, ""),
        "target_name": names.get(edge.target_id, ""),
    }


def _delete_edges(user, edges: list[Edge]) -> list[dict]:
    """Delete ``edges`` and everything hanging off them; re-point the edges they superseded.

    Returns ``[{"edge", "superseded_by"}]`` for each edge outside the set whose successor
    changed (None: current again).
    """
    if not edges:
        return []
    gone = {e.pk: e for e in edges}
    successor = {e.pk: e.superseded_by_id for e in edges}

    def surviving(edge_id: int | None) -> int | None:
        seen: set[int] = set()
        while edge_id in successor and edge_id not in seen:
            seen.add(edge_id)
            edge_id = successor[edge_id]
        return None if edge_id in successor else edge_id

    orphans = list(
        Edge.objects.for_user(user)
        .filter(superseded_by_id__in=list(gone))
        .exclude(pk__in=list(gone))
        .order_by("id")
    )
    # The sentences the snippets were cut from, while the snippets still say which they are:
    # a forgotten memory is never recalled again, from the graph or from the sentence store.
    sentences.forget_edges(user=user, edge_ids=list(gone))
    delete_edge_rows(user, list(gone))
    if not orphans:
        return []
    revived_claims = {
        (e.source_id, e.relation, e.target_id)
        for e in orphans
        if surviving(e.superseded_by_id) is None
    }
    live: dict[tuple, int] = {}
    if revived_claims:
        claim_filter = Q()
        for source_id, relation, target_id in revived_claims:
            claim_filter |= Q(source_id=source_id, relation=relation, target_id=target_id)
        for pk, source_id, relation, target_id in (
            Edge.objects.for_user(user)
            .filter(superseded_by__isnull=True)
            .filter(claim_filter)
            .values_list("id", "source_id", "relation", "target_id")
        ):
            live[(source_id, relation, target_id)] = pk
    changes = []
    for edge in orphans:
        new = surviving(edge.superseded_by_id)
        if new is None:
            claim = (edge.source_id, edge.relation, edge.target_id)
            new = live.get(claim)
            if new is None:
                live[claim] = edge.pk
        edge.superseded_by_id = new
        changes.append({"edge": edge.pk, "superseded_by": new})
    Edge.objects.bulk_update(orphans, ["superseded_by"])
    return changes


def forget_edge(*, user, edge, now: datetime) -> None:
    """Delete ``edge`` (an Edge or id of ``user``'s) with its snippets, episode links and
    traversals; record the forgotten row; drop its relation's key if no edge carries it."""
    edge_id = edge.pk if isinstance(edge, Edge) else edge
    with user_lock(user.pk):
        edge = get_owned_or_404(Edge.objects.select_for_update(), user, pk=edge_id)
        names = dict(
            Node.objects.for_user(user)
            .filter(pk__in=[edge.source_id, edge.target_id])
            .values_list("id", "name")
        )
        # Which memory was forgotten (ids, relation), never its words.
        row = erase_text({**_edge_row(edge, names), "snippet": ERASED if edge.snippet_id else None})
        repointed = _delete_edges(user, [edge])
        keys.sync_relation_keys(user_id=user.pk, relations=[])
        _record(
            user, CorrectionAction.FORGET_EDGE, "edge", edge_id, row, {"repointed": repointed}, now
        )


def forget_node(*, user, node, now: datetime) -> None:
    """Delete ``node`` (a Node or id of ``user``'s), every edge touching it (as
    ``forget_edge`` does), its episode links and keys. Merge decisions that kept it lose
    their node (they can no longer be reverted).

    Raises ``CorrectionError`` for the self node: it stands for the user (forget its
    memories instead).
    """
    with user_lock(user.pk):
        node = _locked_node(user, node)
        if node.is_self:
            raise CorrectionError(
                "The node that stands for you cannot be forgotten; forget its memories instead."
            )
        edges = list(
            Edge.objects.for_user(user)
            .select_for_update()
            .filter(Q(source=node) | Q(target=node))
            .order_by("id")
        )
        ends = {e.source_id for e in edges} | {e.target_id for e in edges}
        names = dict(Node.objects.for_user(user).filter(pk__in=ends).values_list("id", "name"))
        before = erase_text(
            {
                **_node_state(node),
                "id": node.pk,
                "properties": node.properties,
                "confidence": node.confidence,
                "provisional": node.provisional,
                "edges": [_edge_row(e, names) for e in edges],
            }
        )
        _erase_records_of_node(user, node.pk, now)
        repointed = _delete_edges(user, edges)
        # Nothing that names it, by name or alias, is recalled again.
        sentences.forget_names(user=user, names=[node.name, *node.aliases])
        node_id = node.pk
        node.delete()
        keys.sync_relation_keys(user_id=user.pk, relations=[])
        _record(
            user,
            CorrectionAction.FORGET_NODE,
            "node",
            node_id,
            before,
            {"repointed": repointed},
            now,
        )


# --- the undo window ---------------------------------------------------------------------------


def max_aliases() -> int:
    """Aliases one node may have (``GRAPH_MAX_ALIASES_PER_NODE``, default 100)."""
    return int(getattr(settings, "GRAPH_MAX_ALIASES_PER_NODE", 100))


def undo_window() -> timedelta:
    """How long corrections and merge decisions keep the text an undo needs
    (``MEMORY_UNDO_WINDOW_DAYS``, default 30 days)."""
    return timedelta(days=int(getattr(settings, "MEMORY_UNDO_WINDOW_DAYS", 30)))


def _blank(value: Any) -> Any:
    if isinstance(value, str):
        return ERASED
    if isinstance(value, list):
        return [_blank(item) for item in value]
    if isinstance(value, dict):
        return {}  # properties: their keys are the user's words too
    return value  # ids, numbers, booleans, null


def erase_text(value: Any, *, keep: frozenset[str] = frozenset()) -> Any:
    """``value`` (decoded JSON) with every value under a ``TEXT_KEYS`` key replaced by
    ``ERASED`` (lists keep their length, objects become empty); ids, labels, numbers and
    dates are kept, and so are the top-level keys in ``keep``. Idempotent."""
    if isinstance(value, dict):
        return {
            key: item if key in keep else _blank(item) if key in TEXT_KEYS else erase_text(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [erase_text(item) for item in value]
    return value


def _erase_decision(decision: MergeDecision, now: datetime) -> None:
    decision.reason = ERASED if decision.reason else ""
    decision.proposed = erase_text(decision.proposed)
    decision.candidates = erase_text(decision.candidates)
    decision.absorbed = erase_text(decision.absorbed)
    decision.moved = {**erase_text(decision.moved), ERASED_MARK: now.isoformat()}
    decision.log = erase_text(decision.log)


_DECISION_TEXT = ["reason", "proposed", "candidates", "absorbed", "moved", "log"]


def _erase_records_of_node(user, node_id: int, now: datetime) -> None:
    """When a node is forgotten: its earlier corrections and the merge decisions that kept
    it (they cannot be reverted without it) lose their text now; a decision still held for
    review keeps its proposal but forgets this node among its candidates."""
    corrections = list(
        Correction.objects.for_user(user).filter(target_type="node", target_id=node_id)
    )
    for correction in corrections:
        correction.before, correction.after = (
            erase_text(correction.before),
            erase_text(correction.after),
        )
    Correction.objects.bulk_update(corrections, ["before", "after"])
    decisions = list(MergeDecision.objects.for_user(user).filter(kept_id=node_id))
    for decision in decisions:
        _erase_decision(decision, now)
    listed = [
        d
        for d in MergeDecision.objects.for_user(user)
        .filter(candidates__contains=[{"id": node_id}])
        .exclude(kept_id=node_id)
    ]
    for decision in listed:
        decision.candidates = [
            erase_text(c) if isinstance(c, dict) and c.get("id") == node_id else c
            for c in decision.candidates
        ]
    MergeDecision.objects.bulk_update(decisions + listed, _DECISION_TEXT)


def erase_expired_history(*, now: datetime, user=None, batch: int = 500) -> dict[str, int]:
    """Replace the text of records older than the undo window with ``ERASED``, in place:
    corrections (``created_at``) and merge decisions that are no longer
    open (held ones wait for a moderator) by ``decided_at`` or else ``created_at``.
    Afterwards such a merge cannot be reverted (``moved`` carries ``ERASED_MARK``). All
    users, or only ``user``; idempotent (already erased rows are skipped); ``batch`` rows
    per transaction. Returns counts."""
    cutoff = now - undo_window()
    corrections = Correction.objects.filter(created_at__lt=cutoff).exclude(before__has_key="erased")
    decisions = (
        MergeDecision.objects.exclude(status=MergeStatus.HELD)
        .filter(
            models.Q(decided_at__lt=cutoff)
            | models.Q(decided_at__isnull=True, created_at__lt=cutoff)
        )
        .exclude(moved__has_key=ERASED_MARK)
    )
    if user is not None:
        corrections, decisions = corrections.for_user(user), decisions.for_user(user)
    counts = {"corrections": 0, "merge_decisions": 0}
    while True:
        with transaction.atomic():
            rows = list(corrections.select_for_update(skip_locked=True).order_by("id")[:batch])
            for row in rows:
                row.before = {**erase_text(row.before), "erased": True}
                row.after = erase_text(row.after)
            Correction.objects.bulk_update(rows, ["before", "after"])
        counts["corrections"] += len(rows)
        if len(rows) < batch:
            break
    while True:
        with transaction.atomic():
            rows = list(decisions.select_for_update(skip_locked=True).order_by("id")[:batch])
            for row in rows:
                _erase_decision(row, now)
            MergeDecision.objects.bulk_update(rows, _DECISION_TEXT)
        counts["merge_decisions"] += len(rows)
        if len(rows) < batch:
            break
    return counts
