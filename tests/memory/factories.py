"""Small builders for memory graphs in tests: rows straight through the ORM, keys synced.

Every node and edge gets its MemoryKey rows through ``memory.services.keys`` (the real
sentence model), so a graph built here is seeded exactly as one written by the Write path.
Times default to ``T0`` so strengths are exact: an edge touched at the Read's ``now`` has its
stored strength.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

import numpy as np

from memory.core.cleaning import normalise_name
from memory.models import Edge, EdgeEpisode, Episode, Node, NodeEpisode, Snippet
from memory.services.keys import sync_node_keys, sync_relation_keys

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def _user_id(user) -> int:
    return user if isinstance(user, int) else user.pk


def make_episode(user, *, summary: str = "", at: datetime = T0) -> Episode:
    return Episode.objects.create(
        user_id=_user_id(user), summary=summary, started_at=at, ended_at=at, created_at=at
    )


def make_node(
    user,
    name: str,
    kind: str = "PERSON",
    *,
    aliases: Iterable[str] = (),
    episodes: Iterable[Episode] = (),
    is_self: bool = False,
    at: datetime = T0,
) -> Node:
    """A node with its name/alias keys and its episode links."""
    user_id = _user_id(user)
    node = Node.objects.create(
        user_id=user_id,
        kind=kind,
        name=name,
        normalised_name=normalise_name(name),
        aliases=list(aliases),
        confidence=0.9,
        is_self=is_self,
        created_at=at,
        updated_at=at,
    )
    NodeEpisode.objects.bulk_create(
        [NodeEpisode(user_id=user_id, node=node, episode=episode) for episode in episodes]
    )
    sync_node_keys(user_id=user_id, nodes=[node])
    return node


def make_bare_node(user, name: str, kind: str = "PERSON", *, at: datetime = T0, **fields) -> Node:
    """A node row alone — no keys, no episode links — for tests that sync keys themselves or
    never read by key; ``fields`` are any other ``Node`` columns (aliases, is_self, …)."""
    return Node.objects.create(
        user_id=_user_id(user),
        kind=kind,
        name=name,
        normalised_name=normalise_name(name),
        created_at=at,
        updated_at=at,
        **fields,
    )


def make_edge(
    user,
    source: Node,
    relation: str,
    target: Node,
    *,
    strength: float = 100.0,
    touched: datetime = T0,
    stability: str = "stable",
    snippet: str | None = None,
    dormant: bool = False,
    superseded_by: Edge | None = None,
    expires_at: datetime | None = None,
    cardinality: str = "one_to_many",
    episodes: Iterable[Episode] = (),
    confidence: float = 0.8,
) -> Edge:
    """``source -[relation]-> target`` with ``strength`` stored at ``touched``, an optional
    current snippet, and the relation's key."""
    user_id = _user_id(user)
    edge = Edge.objects.create(
        user_id=user_id,
        source=source,
        relation=relation,
        target=target,
        strength_at_touch=strength,
        last_touched_at=touched,
        confidence=confidence,
        stability=stability,
        cardinality=cardinality,
        expires_at=expires_at,
        dormant=dormant,
        superseded_by=superseded_by,
        created_at=touched,
    )
    if snippet is not None:
        row = Snippet.objects.create(
            user_id=user_id, edge=edge, text=snippet, confidence=confidence, created_at=touched
        )
        Edge.objects.filter(pk=edge.pk).update(snippet=row)
        edge.snippet = row
    EdgeEpisode.objects.bulk_create(
        [EdgeEpisode(user_id=user_id, edge=edge, episode=episode) for episode in episodes]
    )
    sync_relation_keys(user_id=user_id, relations=[relation])
    return edge


class HashEncoder:
    """A deterministic stand-in for the sentence model, for tests where embeddings are not
    under test: a text's vector is seeded by its characters (same text, same vector)."""

    name, dim = "hash-stand-in", 384

    def encode(self, texts):
        rows = [np.random.default_rng(sum(map(ord, t))).standard_normal(384) for t in texts]
        return np.asarray(rows, dtype=np.float32)
