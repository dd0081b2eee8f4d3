"""Export: one user's whole graph as a ``pegasus-graph/1`` dict (SPEC §6.1)."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime

from memory.models import Edge, EdgeEpisode, Episode, Node, NodeEpisode
from memory.services.graph_io.document import FORMAT, _user_id


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat()


def export_graph(*, user) -> dict:
    """``user``'s whole graph as a ``pegasus-graph/1`` dict (SPEC §6.1).

    Five queries whatever the size (nodes, node episodes, episodes, edges with their current
    snippet, edge episodes), every one filtered on the owner. Lists are ordered by primary
    key and each row's episode list by episode key, so the same graph always exports to the
    same JSON.
    """
    user_id = _user_id(user)
    node_episodes: dict[int, list[str]] = defaultdict(list)
    for node, episode in (
        NodeEpisode.objects.for_user(user_id)
        .order_by("node_id", "episode_id")
        .values_list("node_id", "episode_id")
    ):
        node_episodes[node].append(f"e{episode}")
    edge_episodes: dict[int, list[str]] = defaultdict(list)
    for edge, episode in (
        EdgeEpisode.objects.for_user(user_id)
        .order_by("edge_id", "episode_id")
        .values_list("edge_id", "episode_id")
    ):
        edge_episodes[edge].append(f"e{episode}")

    nodes = [
        {
            "id": f"n{row['id']}",
            "kind": row["kind"],
            "name": row["name"],
            "aliases": list(row["aliases"]),
            "properties": row["properties"],
            "confidence": row["confidence"],
            "provisional": row["provisional"],
            "is_self": row["is_self"],
            "episodes": node_episodes.get(row["id"], []),
        }
        for row in Node.objects.for_user(user_id)
        .order_by("id")
        .values(
            "id", "kind", "name", "aliases", "properties", "confidence", "provisional", "is_self"
        )
    ]
    edges = []
    for row in (
        Edge.objects.for_user(user_id)
        .order_by("id")
        .values(
            "id",
            "source_id",
            "relation",
            "target_id",
            "strength_at_touch",
            *Edge.STATE_FIELDS,
            "superseded_by_id",
            "snippet__user_id",
            "snippet__text",
            "snippet__evidence",
            "occurred",
        )
    ):
        # A snippet row of another owner would be a bug elsewhere; never let it leak here.
        own_snippet = row["snippet__user_id"] == user_id
        edges.append(
            {
                "id": f"x{row['id']}",
                "source": f"n{row['source_id']}",
                "relation": row["relation"],
                "target": f"n{row['target_id']}",
                "strength": row["strength_at_touch"],
                "last_touched_at": _iso(row["last_touched_at"]),
                "confidence": row["confidence"],
                "stability": row["stability"],
                "cardinality": row["cardinality"],
                "expires_at": _iso(row["expires_at"]),
                "dormant": row["dormant"],
                "superseded_by": (
                    f"x{row['superseded_by_id']}" if row["superseded_by_id"] is not None else None
                ),
                "episodes": edge_episodes.get(row["id"], []),
                "snippet": (
                    {"text": row["snippet__text"], "evidence": row["snippet__evidence"]}
                    if own_snippet
                    else None
                ),
                "occurred": row["occurred"],
            }
        )
    episodes = [
        {
            "id": f"e{row['id']}",
            "started_at": _iso(row["started_at"]),
            "ended_at": _iso(row["ended_at"]),
            "summary": row["summary"],
            "importance": row["importance"],
            "tags": list(row["tags"]),
        }
        for row in Episode.objects.for_user(user_id)
        .order_by("id")
        .values("id", "started_at", "ended_at", "summary", "importance", "tags")
    ]
    return {"format": FORMAT, "nodes": nodes, "edges": edges, "episodes": episodes}
