"""Bob never sees or touches Alice's graph through export, import, decay, reinforcement or
key maintenance (SPEC §4: every row carries its owner, every query filters on it)."""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.db import connection

from memory.models import Edge, MemoryKey, Node, Snippet
from memory.services.decay import decay_all, decay_user
from memory.services.graph_io import export_graph, import_graph
from memory.services.keys import reembed, sync_relation_keys
from memory.services.reinforce import reinforce_edges

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
RICH = Path(__file__).resolve().parent.parent / "fixtures" / "rich_graph.json"
BOBS = {
    "format": "pegasus-graph/1",
    "nodes": [
        {"id": "b1", "kind": "PERSON", "name": "Bob", "is_self": True},
        {"id": "b2", "kind": "ORG", "name": "Initech"},
    ],
    "edges": [
        {
            "id": "bx",
            "source": "b1",
            "relation": "WORKS_AT",
            "target": "b2",
            "stability": "ephemeral",
            "last_touched_at": "2020-01-01T00:00:00Z",
            "snippet": {"text": "I work at Initech", "evidence": "employer"},
        }
    ],
}


@pytest.fixture
def graphs(alice, bob):
    import_graph(user=alice, data=json.loads(RICH.read_text(encoding="utf-8")), now=NOW)
    import_graph(user=bob, data=BOBS, now=NOW)


def raw_rows(table: str, user) -> list[tuple]:
    """Every column of the user's rows plus the tuple's physical location: an UPDATE, even
    one writing identical values, moves a row to a new ctid."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT ctid::text, * FROM {table} WHERE user_id = %s ORDER BY id", [user.pk]
        )
        return cursor.fetchall()


def alices_rows(alice) -> dict:
    return {
        t: raw_rows(t, alice)
        for t in (
            "memory_node",
            "memory_edge",
            "memory_snippet",
            "memory_episode",
            "memory_memorykey",
            "memory_nodeepisode",
            "memory_edgeepisode",
        )
    }


def test_bobs_export_contains_nothing_of_alices(alice, bob, graphs):
    exported = export_graph(user=bob)
    text = json.dumps(exported)
    assert [n["name"] for n in exported["nodes"]] == ["Bob", "Initech"]
    assert len(exported["edges"]) == 1 and exported["episodes"] == []
    for name in Node.objects.for_user(alice).values_list("name", flat=True):
        assert f'"{name}"' not in text
    alice_labels = {f"n{pk}" for pk in Node.objects.for_user(alice).values_list("pk", flat=True)}
    assert not alice_labels & {n["id"] for n in exported["nodes"]}


def test_bobs_export_never_shows_a_snippet_row_of_alices_even_if_misfiled(alice, bob, graphs):
    # A bug elsewhere pointing Bob's edge at Alice's snippet must not leak her words.
    alices = Snippet.objects.for_user(alice).get(text="my brother Dana")
    Edge.objects.for_user(bob).update(snippet=alices)
    exported = export_graph(user=bob)
    assert exported["edges"][0]["snippet"] is None
    assert "Dana" not in json.dumps(exported)


def test_alices_names_do_not_block_bobs_import(alice, bob, graphs):
    # Same (kind, name) as Alice's nodes and a self node of his own: all Bob's business.
    import_graph(
        user=bob,
        data={
            "format": "pegasus-graph/1",
            "nodes": [
                {"id": "p", "kind": "PLACE", "name": "Paris"},
                {"id": "t", "kind": "PERSON", "name": "Trevor"},
            ],
        },
        now=NOW,
    )
    assert Node.objects.for_user(bob).filter(name__in=["Paris", "Trevor"]).count() == 2
    assert Node.objects.for_user(alice).filter(name__in=["Paris", "Trevor"]).count() == 3


def test_decay_for_bob_leaves_alices_rows_bit_identical(alice, bob, graphs):
    before = alices_rows(alice)
    far_future = NOW + timedelta(days=100_000)  # every decaying edge of Alice's would flag
    assert decay_user(user_id=bob.pk, now=far_future) == 1
    assert decay_all(now=far_future, user_ids=[bob.pk]) == (1, 0)
    assert alices_rows(alice) == before
    assert Edge.objects.for_user(bob).get().dormant


def test_reinforcing_for_bob_cannot_reach_alices_edges(alice, bob, graphs):
    before = alices_rows(alice)
    alices_ids = list(Edge.objects.for_user(alice).values_list("pk", flat=True))
    assert reinforce_edges(user_id=bob.pk, edge_ids=alices_ids, now=NOW) == 0
    assert alices_rows(alice) == before


def test_key_maintenance_for_bob_never_touches_alices_keys(alice, bob, graphs):
    before = alices_rows(alice)
    # WORKS_AT is a label of both: Bob's sync must neither drop nor duplicate Alice's key.
    Edge.objects.for_user(bob).update(relation="MANAGES")
    sync_relation_keys(user_id=bob.pk)
    assert reembed(user_id=bob.pk) == MemoryKey.objects.for_user(bob).count()
    assert alices_rows(alice) == before
    bobs = set(MemoryKey.objects.for_user(bob).filter(node=None).values_list("relation", flat=True))
    assert bobs == {"MANAGES"}
    assert not MemoryKey.objects.for_user(bob).exclude(node=None).exclude(node__user=bob).exists()
