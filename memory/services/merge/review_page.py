"""What the merge review page shows beyond plain rows: the side-by-side context of a
decision (the proposed entity, every candidate with its neighbourhood), the cited turns of
its conversation and the actions that apply.

Everything here reads; every change a moderator makes goes through
``memory.services.merge`` (see ``memory/admin/``). Loading is bounded: a review page costs
the same handful of queries whatever the number of candidates (tested).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memory import ports
from memory.models import Episode, MergeDecision, MergeStatus, Node
from memory.services.neighbourhood import SNIPPET_CHARS, EdgeLine, neighbourhoods

__all__ = ["NodeSide", "excerpt", "review_actions", "review_context"]

EXCERPT_MESSAGES = 12
EXCERPT_CHARS = 400


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


def excerpt(decision: MergeDecision) -> dict[str, Any]:
    """The cited turns of a decision's source conversation: its user turns that mention the
    proposed entity (first ``EXCERPT_MESSAGES``, each cut at ``EXCERPT_CHARS``) — what a
    review needs, not the transcript; nothing from an incognito conversation.
    Two queries; ``{"conversation": None}`` when the decision has no conversation (a manual
    merge, an imported episode, a deleted conversation)."""
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
    rows = ports.conversations().mentioning_user_turns(
        user=decision.user_id,
        conversation_id=row["conversation_id"],
        forms=forms,
        limit=EXCERPT_MESSAGES + 1,
    )
    messages = []
    for message in rows[:EXCERPT_MESSAGES]:
        text = message.text
        messages.append(
            {
                "id": message.id,
                "created_at": message.created_at,
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
