"""The graph as the API and the explorer present it: the dicts the memory API's output
serializers read (an edge with its current strength, a node with its degree, episodes and
merges, a merge decision), with current strength and dormancy judged at the ``now`` the view
passes in (SPEC §5.2). Reads only; the queries go through the owner gate."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from django.db.models import F, Q

from memory.core.decay import is_dormant, strength_at
from memory.models import Edge, Episode, MergeDecision, Node


def edge_state(
    s0: float, stability: str, touched: datetime, expires_at, flagged: bool, now: datetime
) -> tuple[float, bool]:
    """(current strength rounded to 2 places, dormant at ``now``): flagged, below 2.0, or
    expired (SPEC §5.2)."""
    strength = strength_at(s0, stability, touched, now)
    dormant = flagged or is_dormant(strength, stability=stability, expires_at=expires_at, now=now)
    return round(strength, 2), dormant


def _live(s0, stability, touched, expires_at, flagged, superseded_id, now) -> bool:
    if flagged or superseded_id is not None:
        return False
    return not edge_state(s0, stability, touched, expires_at, False, now)[1]


def degrees(user, node_ids: list[int], now: datetime) -> dict[int, int]:
    """Live edges (at ``now``) touching each of ``node_ids``, in one query."""
    counts: Counter[int] = Counter()
    if not node_ids:
        return counts
    rows = (
        Edge.objects.for_user(user)
        .live()
        .filter(Q(source_id__in=node_ids) | Q(target_id__in=node_ids))
        .values_list(
            "source_id",
            "target_id",
            "strength_at_touch",
            "stability",
            "last_touched_at",
            "expires_at",
        )
    )
    wanted = set(node_ids)
    for source, target, s0, stability, touched, expires_at in rows:
        if _live(s0, stability, touched, expires_at, False, None, now):
            for end in (source, target):
                if end in wanted:
                    counts[end] += 1
    return counts


def edge_payload(edge: Edge, user, now: datetime) -> dict:
    """An edge as ``EdgeSerializer`` shows it (``source``/``target`` and ``snippet`` must be
    loaded with ``select_related``)."""
    strength, dormant = edge_state(
        edge.strength_at_touch,
        edge.stability,
        edge.last_touched_at,
        edge.expires_at,
        edge.dormant,
        now,
    )
    snippet = edge.snippet
    return {
        "id": edge.pk,
        "source": {"id": edge.source_id, "name": edge.source.name},
        "target": {"id": edge.target_id, "name": edge.target.name},
        "relation": edge.relation,
        "strength": strength,
        "strength_at_touch": edge.strength_at_touch,
        "last_touched_at": edge.last_touched_at,
        "stability": edge.stability,
        "confidence": edge.confidence,
        "dormant": dormant,
        "superseded": edge.superseded_by_id is not None,
        "expires_at": edge.expires_at,
        "occurred": edge.occurred,
        "snippet": (
            {"text": snippet.text, "evidence": snippet.evidence}
            if snippet is not None and snippet.user_id == user.pk
            else None
        ),
    }


def edges_with_ends(user):
    return Edge.objects.for_user(user).select_related("source", "target", "snippet")


def node_detail(user, node: Node, now: datetime) -> dict:
    """``NodeDetailSerializer``'s dict for ``node``: its episodes, every edge touching it and
    the merges that kept it. A fixed number of queries."""
    episodes = (
        Episode.objects.for_user(user)
        .filter(node_episodes__node=node)
        .order_by(F("started_at").asc(nulls_last=True), "id")
        .values("id", "summary", "started_at", "ended_at", "conversation_id")
    )
    edges = edges_with_ends(user).filter(Q(source=node) | Q(target=node)).order_by("id")
    merges = MergeDecision.objects.for_user(user).filter(kept=node).order_by("-created_at", "-id")
    return {
        "id": node.pk,
        "name": node.name,
        "kind": node.kind,
        "aliases": list(node.aliases),
        "properties": node.properties,
        "confidence": node.confidence,
        "provisional": node.provisional,
        "is_self": node.is_self,
        "episodes": list(episodes),
        "edges": [edge_payload(edge, user, now) for edge in edges],
        "merges": [
            {
                "id": m.pk,
                "status": m.status,
                "rule": m.rule,
                "reason": m.reason,
                "created_at": m.created_at,
                "absorbed_name": _absorbed_name(m),
            }
            for m in merges
        ],
    }


def _absorbed_name(decision: MergeDecision) -> str:
    return (decision.absorbed or {}).get("name") or (decision.proposed or {}).get("name") or ""


def merge_payload(decision: MergeDecision) -> dict:
    kept = decision.kept
    return {
        "id": decision.pk,
        "status": decision.status,
        "kept": {"id": kept.pk, "name": kept.name} if kept is not None else None,
        "absorbed_name": _absorbed_name(decision),
        "rule": decision.rule,
        "created_at": decision.created_at,
    }
