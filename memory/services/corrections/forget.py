"""Forgetting an edge or a node for good, with everything hanging off it; the record of a
forget keeps ids and labels, never the forgotten words."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Q

from memory.models import CorrectionAction, Edge, Node, get_owned_or_404
from memory.services import keys, sentences
from memory.services.corrections.common import (
    CorrectionError,
    _locked_node,
    _node_state,
    _record,
)
from memory.services.corrections.history import ERASED, _erase_records_of_node, erase_text
from memory.services.edges import delete_edge_rows, edge_row
from memory.services.locks import user_lock


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
