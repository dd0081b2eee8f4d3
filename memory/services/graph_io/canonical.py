"""Comparison: a graph in a label-free canonical form, to test the round trip (SPEC §6.1)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from memory.services.graph_io.document import FORMAT
from memory.services.graph_io.export import _iso
from memory.services.graph_io.parse import parse_graph


def canonical_graph(data: Any, *, now: datetime | None = None) -> dict:
    """``data`` in a label-free canonical form, for testing two graphs for equality modulo
    id labels (the round-trip guarantee of SPEC §6.1).

    The document is parsed (so omitted fields take their defaults; pass the import's ``now``
    to compare a document whose edges omit ``last_touched_at``), datetimes are rewritten
    as UTC ISO 8601, and every id is replaced by one derived from content: a node's by its
    kind and normalised name (unique in a valid graph), episodes and edges by their rank in
    the sorted list of their dereferenced contents. Reference lists are sorted. Two exactly
    identical episodes or edges are interchangeable; if only their referrers tell them apart
    the result may depend on input order.
    """
    graph = parse_graph(data, default_touch=now or datetime(1970, 1, 1, tzinfo=UTC))

    def dump(value: Any) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)

    episode_items = sorted(
        (
            (
                {
                    "started_at": _iso(e.started_at),
                    "ended_at": _iso(e.ended_at),
                    "summary": e.summary,
                    "importance": e.importance,
                    "tags": e.tags,
                },
                e.label,
            )
            for e in graph.episodes
        ),
        key=lambda pair: dump(pair[0]),
    )
    episode_label = {label: f"e{i}" for i, (_, label) in enumerate(episode_items, start=1)}
    episodes = [{"id": episode_label[label], **body} for body, label in episode_items]

    node_label = {n.label: f"n:{n.kind}:{n.normalised_name}" for n in graph.nodes}
    nodes = sorted(
        (
            {
                "id": node_label[n.label],
                "kind": n.kind,
                "name": n.name,
                "aliases": n.aliases,
                "properties": n.properties,
                "confidence": n.confidence,
                "provisional": n.provisional,
                "is_self": n.is_self,
                "episodes": sorted(episode_label[x] for x in n.episodes),
            }
            for n in graph.nodes
        ),
        key=lambda node: node["id"],
    )

    edge_items = sorted(
        (
            (
                {
                    "source": node_label[e.source],
                    "relation": e.relation,
                    "target": node_label[e.target],
                    "strength": e.strength,
                    "last_touched_at": _iso(e.last_touched_at),
                    "confidence": e.confidence,
                    "stability": e.stability,
                    "cardinality": e.cardinality,
                    "expires_at": _iso(e.expires_at),
                    "dormant": e.dormant,
                    "episodes": sorted(episode_label[x] for x in e.episodes),
                    "snippet": (
                        {"text": e.snippet[0], "evidence": e.snippet[1]} if e.snippet else None
                    ),
                    "occurred": e.occurred,
                },
                e,
            )
            for e in graph.edges
        ),
        key=lambda pair: dump(pair[0]),
    )
    edge_label = {e.label: f"x{i}" for i, (_, e) in enumerate(edge_items, start=1)}
    edges = [
        {
            "id": edge_label[e.label],
            **body,
            "superseded_by": edge_label[e.superseded_by] if e.superseded_by else None,
        }
        for body, e in edge_items
    ]
    return {"format": FORMAT, "nodes": nodes, "edges": edges, "episodes": episodes}
