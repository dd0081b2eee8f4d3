"""The explorer's graph payload stays fast at 5 000 nodes and 20 000 edges: a fixed number of
queries, no per-row work in the database."""

from __future__ import annotations

import random
import time
from datetime import timedelta

import pytest

from memory.models import Edge, Node
from tests.memory.factories import T0

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

NODES, EDGES = 5000, 20000


def build(user) -> None:
    rng = random.Random(7)
    kinds = ["PERSON", "ORG", "PLACE", "TOPIC"]
    nodes = Node.objects.bulk_create(
        [
            Node(
                user=user,
                kind=kinds[i % 4],
                name=f"Node {i}",
                normalised_name=f"node {i}",
                aliases=[f"N{i}"],
                confidence=0.8,
                created_at=T0,
                updated_at=T0,
            )
            for i in range(NODES)
        ],
        batch_size=2000,
    )
    ids = [n.pk for n in nodes]
    claims: set[tuple[int, int, str]] = set()
    while len(claims) < EDGES:
        source, target = rng.sample(ids, 2)
        claims.add((source, target, rng.choice(["KNOWS", "WORKS_AT", "LIKES", "VISITS"])))
    Edge.objects.bulk_create(
        [
            Edge(
                user=user,
                source_id=s,
                target_id=t,
                relation=r,
                strength_at_touch=rng.uniform(1, 100),
                last_touched_at=T0 - timedelta(days=rng.randint(0, 400)),
                stability=rng.choice(["stable", "mutable", "ephemeral"]),
                confidence=0.7,
                created_at=T0,
            )
            for s, t, r in claims
        ],
        batch_size=5000,
    )


def test_the_graph_of_5000_nodes_and_20000_edges_is_fast(
    alice, alice_api, django_assert_max_num_queries
):
    build(alice)
    alice_api.get("/api/v1/memory/graph/")  # warm the token and code paths
    with django_assert_max_num_queries(6):
        started = time.perf_counter()
        response = alice_api.get("/api/v1/memory/graph/?include_dormant=1")
        elapsed = time.perf_counter() - started
    assert response.status_code == 200
    body = response.json()
    assert len(body["nodes"]) == NODES and len(body["edges"]) == EDGES
    assert elapsed < 3.0, f"{elapsed:.2f}s"
