"""What the admin console shows beyond plain rows: the merge review page's side-by-side
context, node neighbourhoods, and the queue counts on the admin index.

Everything here reads; every change a moderator makes goes through ``memory.services.merge``
and ``memory.services.jobs`` (see ``memory/admin/``). Loading is bounded: a review page
costs the same handful of queries whatever the number of candidates (tested).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, Q

from memory.models import Edge, Episode, ExtractionStatus, MergeDecision, MergeStatus, Node

__all__ = [
    "EdgeLine",
    "NodeSide",
    "excerpt",
    "index_summary",
    "neighbourhoods",
    "review_actions",
    "review_context",
    "stale_before",
]

NEIGHBOURHOOD_LINES = 30  # per node, first-hop edges first
EDGE_ROWS = 600  # per query: a hub node (the self node) must not load the whole graph
EXCERPT_MESSAGES = 12
EXCERPT_CHARS = 400
SNIPPET_CHARS = 300


@dataclass
class EdgeLine:
    """One edge of a neighbourhood, as the review page prints it: ``A -[REL]-> B``."""

    id: int
    source: str
    relation: str
    target: str
    snippet: str = ""
    dormant: bool = False
    hop: int = 1
    moved: bool = False  # came with the merge under review

    @property
    def line(self) -> str:
        return f"{self.source} -[{self.relation}]-> {self.target}"


@dataclass
class NodeSide:
    """One column of the side-by-side view: the proposed entity or a candidate node."""

    role: str  # "proposed" | "candidate" | "kept"
    name: str
    kind: str = ""
    aliases: list[str] = field(default_factory=list)
    properties: dict[str, Any] = field(default_factory=dict)
    confidence: float | None = None
    node_id: int | None = None
    exists: bool = False
    score: float | None = None
    llm: float | None = None
    edges: list[EdgeLine] = field(default_factory=list)
    truncated: bool = False
    note: str = ""
    mergeable: bool = False

    @property
    def property_items(self) -> list[tuple[str, Any]]:
        return sorted(self.properties.items()) if isinstance(self.properties, dict) else []


def stale_before(now: datetime) -> datetime:
    """A ``running`` episode started before this is stuck (its worker died), as in
    ``memory.services.jobs``: older than the django-q2 task timeout."""
    return now - timedelta(seconds=int(settings.Q_CLUSTER.get("timeout") or 300))


def _snippet(edge: Edge) -> str:
    snippet = edge.snippet
    if snippet is None or snippet.user_id != edge.user_id:
        return ""
    text = " ".join(snippet.text.split())
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"


def _load_edges(user_id: int, node_ids: Iterable[int], exclude: Iterable[int] = ()) -> list[Edge]:
    ids = list(node_ids)
    if not ids:
        return []
    return list(
        Edge.objects.for_user(user_id)
        .filter(superseded_by__isnull=True)
        .filter(Q(source_id__in=ids) | Q(target_id__in=ids))
        .exclude(pk__in=list(exclude))
        .select_related("source", "target", "snippet")
        .order_by("dormant", "-strength_at_touch", "id")[:EDGE_ROWS]
    )


def neighbourhoods(
    user_id: int, node_ids: Sequence[int], *, moved: Iterable[int] = ()
) -> dict[int, tuple[list[EdgeLine], bool]]:
    """Each node's 2-hop neighbourhood: the non-superseded edges touching it (hop 1), then
    those touching its neighbours (hop 2), each with its current snippet; strongest first,
    live before dormant, at most ``NEIGHBOURHOOD_LINES`` per node. Returns
    ``{node_id: (lines, truncated)}``. Two queries whatever the number of nodes.

    ``moved``: edge ids the proposed entity brought (marked on their lines).
    """
    moved_ids = set(moved)
    first = _load_edges(user_id, node_ids)
    touching: dict[int, list[Edge]] = defaultdict(list)
    for edge in first:
        touching[edge.source_id].append(edge)
        touching[edge.target_id].append(edge)
    hop1 = {
        nid: {e.target_id if e.source_id == nid else e.source_id for e in touching[nid]}
        for nid in node_ids
    }
    second_ids = set().union(*hop1.values()) - set(node_ids) if hop1 else set()
    second = _load_edges(user_id, second_ids, exclude=[e.pk for e in first])
    for edge in second:
        for end in {edge.source_id, edge.target_id}:
            if end in second_ids:
                touching[end].append(edge)

    def line(edge: Edge, hop: int) -> EdgeLine:
        return EdgeLine(
            id=edge.pk,
            source=edge.source.name,
            relation=edge.relation,
            target=edge.target.name,
            snippet=_snippet(edge),
            dormant=edge.dormant,
            hop=hop,
            moved=edge.pk in moved_ids,
        )

    def order(edge: Edge) -> tuple:
        return (edge.dormant, -edge.strength_at_touch, edge.pk)

    out: dict[int, tuple[list[EdgeLine], bool]] = {}
    for nid in node_ids:
        near = {e.pk: e for e in touching[nid]}
        far = {
            e.pk: e
            for neighbour in hop1[nid]
            for e in touching[neighbour]
            if e.pk not in near and nid not in (e.source_id, e.target_id)
        }
        lines = [line(e, 1) for e in sorted(near.values(), key=order)]
        lines += [line(e, 2) for e in sorted(far.values(), key=order)]
        out[nid] = (lines[:NEIGHBOURHOOD_LINES], len(lines) > NEIGHBOURHOOD_LINES)
    return out


def excerpt(decision: MergeDecision) -> dict[str, Any]:
    """The cited turns of a decision's source conversation: its user turns that mention the
    proposed entity (first ``EXCERPT_MESSAGES``, each cut at ``EXCERPT_CHARS``) — what a
    review needs, not the transcript; nothing from an incognito conversation.
    Two queries; ``{"conversation": None}`` when the decision has no conversation (a manual
    merge, an imported episode, a deleted conversation)."""
    from chat.models import Message, Role

    if decision.episode_id is None:
        return {"conversation": None, "messages": [], "more": False}
    row = (
        Episode.objects.for_user(decision.user_id)
        .filter(pk=decision.episode_id, conversation__incognito=False)
        .values("conversation_id", "conversation__title")
        .first()
    )
    if row is None or row["conversation_id"] is None:
        return {"conversation": None, "messages": [], "more": False}
    forms = [
        f.lower()
        for f in [decision.proposed.get("name") or "", *(decision.proposed.get("aliases") or [])]
        if f
    ]
    mentions = Q()
    for form in forms:
        mentions |= Q(text__icontains=form)
    rows = (
        list(
            Message.objects.for_user(decision.user_id)
            .filter(mentions, conversation_id=row["conversation_id"], role=Role.USER)
            .order_by("created_at", "id")
            .values("id", "text", "created_at")[: EXCERPT_MESSAGES + 1]
        )
        if forms
        else []
    )
    messages = []
    for message in rows[:EXCERPT_MESSAGES]:
        text = message["text"]
        messages.append(
            {
                "id": message["id"],
                "created_at": message["created_at"],
                "text": text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…",
                "mentions": any(form in text.lower() for form in forms),
            }
        )
    return {
        "conversation": {
            "id": row["conversation_id"],
            "title": row["conversation__title"] or f"Conversation {row['conversation_id']}",
        },
        "messages": messages,
        "more": len(rows) > EXCERPT_MESSAGES,
    }


def review_actions(decision: MergeDecision) -> set[str]:
    """Which review buttons apply to a decision in its current status."""
    return {
        MergeStatus.MERGED: {"revert"},
        MergeStatus.FLAGGED: {"confirm", "revert", "keep_apart"},
        MergeStatus.HELD: {"merge", "keep_apart"},
    }.get(decision.status, set())


def _proposed_node_id(decision: MergeDecision) -> int | None:
    """The node that stands for the proposed entity now, if it has one of its own: a held
    or kept-apart entity's node, the node split back out by a revert, or an absorbed node
    restored by a revert."""
    moved = decision.moved or {}
    for key in ("node", "split_node"):
        if isinstance(moved.get(key), int):
            return moved[key]
    absorbed = decision.absorbed or {}
    return absorbed.get("id") if isinstance(absorbed.get("id"), int) else None


def _moved_edges(decision: MergeDecision) -> set[int]:
    moved = decision.moved or {}
    ids = {r.get("edge") for r in moved.get("edges", []) if isinstance(r, dict)}
    ids |= {r.get("edge") for r in moved.get("remapped", []) if isinstance(r, dict)}
    return {i for i in ids if isinstance(i, int)}


def review_context(decision: MergeDecision) -> dict[str, Any]:
    """Everything the review page shows about ``decision``, side by side.

    * ``proposed``: the entity as extracted (``decision.proposed``), with the node that
      stands for it now when there is one (held, kept apart, split back out) and its
      neighbourhood; for a merge still in force, the edges it brought (``moved_lines``).
    * ``candidates``: every candidate and the kept node — current name, aliases,
      properties, rule score and LLM confidence, 2-hop neighbourhood with snippets.
    * ``excerpt``: the source conversation's user turns.
    * ``dropped``: edges a stored merge deleted as self-relations (from the record).
    Five queries whatever the number of candidates.
    """
    user_id = decision.user_id
    proposed = decision.proposed or {}
    own_id = _proposed_node_id(decision)
    candidates = [c for c in (decision.candidates or []) if isinstance(c, dict)]
    candidate_ids = [c["id"] for c in candidates if isinstance(c.get("id"), int)]
    if decision.kept_id and decision.kept_id not in candidate_ids:
        candidate_ids.append(decision.kept_id)
    candidate_ids = [i for i in dict.fromkeys(candidate_ids) if i != own_id]
    wanted = [i for i in [own_id, *candidate_ids] if i is not None]
    nodes = {n.pk: n for n in Node.objects.for_user(user_id).filter(pk__in=wanted)}
    moved_ids = _moved_edges(decision)
    lines = neighbourhoods(user_id, [i for i in wanted if i in nodes], moved=moved_ids)
    held = decision.status == MergeStatus.HELD

    def side(role: str, node_id: int | None, fallback: dict) -> NodeSide:
        node = nodes.get(node_id) if node_id is not None else None
        if node is None:
            return NodeSide(
                role=role,
                node_id=node_id,
                name=fallback.get("name") or "?",
                kind=fallback.get("kind") or decision.kind,
                aliases=list(fallback.get("aliases") or []),
                properties=dict(fallback.get("properties") or {}),
                confidence=fallback.get("confidence"),
            )
        edges, truncated = lines.get(node.pk, ([], False))
        return NodeSide(
            role=role,
            node_id=node.pk,
            name=node.name,
            kind=node.kind,
            aliases=list(node.aliases),
            properties=dict(node.properties),
            confidence=node.confidence,
            exists=True,
            edges=edges,
            truncated=truncated,
        )

    mine = side("proposed", own_id, proposed)
    if own_id is not None and mine.exists:
        mine.note = f"stands alone as node #{own_id}"
    elif decision.status in (MergeStatus.MERGED, MergeStatus.FLAGGED) and decision.kept_id:
        kept = nodes.get(decision.kept_id)
        into = kept.name if kept is not None else f"node #{decision.kept_id}"
        mine.note = f"merged into {into}"
        if kept is not None:
            mine.edges = [e for e in lines.get(kept.pk, ([], False))[0] if e.moved]
    # What was extracted, beside what the node looks like now.
    mine_proposed = {
        "name": proposed.get("name") or "?",
        "kind": proposed.get("kind") or decision.kind,
        "aliases": list(proposed.get("aliases") or []),
        "properties": sorted((proposed.get("properties") or {}).items())
        if isinstance(proposed.get("properties"), dict)
        else [],
        "confidence": proposed.get("confidence"),
        "hint": proposed.get("hint"),
    }

    scores = {c["id"]: c for c in candidates if isinstance(c.get("id"), int)}
    others: list[NodeSide] = []
    for node_id in candidate_ids:
        info = scores.get(node_id, {})
        column = side(
            "kept" if node_id == decision.kept_id else "candidate",
            node_id,
            {"name": info.get("name") or f"node #{node_id}"},
        )
        column.score, column.llm = info.get("score"), info.get("llm")
        if not column.exists:
            column.note = "this node no longer exists (merged again or deleted)"
        column.mergeable = held and column.exists and column.kind == decision.kind
        others.append(column)

    names = {n.pk: n.name for n in nodes.values()}
    absorbed = decision.absorbed or {}
    if absorbed.get("id") is not None:
        names.setdefault(absorbed["id"], absorbed.get("name") or "?")
    dropped = [
        EdgeLine(
            id=row["id"],
            source=names.get(row["source"], f"#{row['source']}"),
            relation=row["relation"],
            target=names.get(row["target"], f"#{row['target']}"),
            snippet=(row.get("snippets") or [{}])[0].get("text", "")[:SNIPPET_CHARS],
            dormant=bool(row.get("dormant")),
        )
        for row in (decision.moved or {}).get("dropped_edges", [])
        if isinstance(row, dict)
    ]
    return {
        "proposed": mine,
        "extracted": mine_proposed,
        "candidates": others,
        "excerpt": excerpt(decision),
        "dropped": dropped,
        "actions": review_actions(decision),
        "log": [entry for entry in (decision.log or []) if isinstance(entry, dict)],
    }


def index_summary(request) -> dict[str, Any]:
    """Counts for the admin index: merges awaiting review (held, flagged) and extraction
    jobs needing attention (failed, stuck). One query per model the user may view."""
    from django.utils import timezone

    out: dict[str, Any] = {}
    user = request.user
    if user.has_perm("memory.view_mergedecision"):
        from memory.services.inbox import for_staff

        out["review_queue"] = for_staff(MergeDecision.objects.all(), timezone.now()).aggregate(
            held=Count("pk", filter=Q(status=MergeStatus.HELD)),
            flagged=Count("pk", filter=Q(status=MergeStatus.FLAGGED)),
        )
    if user.has_perm("memory.view_episode"):
        out["job_queue"] = Episode.objects.aggregate(
            failed=Count("pk", filter=Q(status=ExtractionStatus.FAILED)),
            stuck=Count(
                "pk",
                filter=Q(
                    status=ExtractionStatus.RUNNING, job_started_at__lt=stale_before(timezone.now())
                ),
            ),
            pending=Count("pk", filter=Q(status=ExtractionStatus.PENDING)),
        )
    return out
