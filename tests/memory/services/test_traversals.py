"""The crossed edges of a conversation's Reads (one Traversal row per turn, an array of edge
ids) applied at its Write: each edge reinforced once per conversation (SPEC §5.4), edges
re-observed by the batch skipped, ids of edges that are gone or not the user's ignored."""

import json
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from chat.models import Conversation
from memory import embedding
from memory.models import Edge, Traversal
from memory.services.corrections import forget_edge
from memory.services.write import commit_batch
from tests.memory.factories import HashEncoder, make_bare_node

pytestmark = pytest.mark.django_db

BATCHES = Path(__file__).resolve().parents[1] / "fixtures" / "batches"
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
NOTHING = {"format": "pegasus-batch/1", "relations": []}


@pytest.fixture(autouse=True)
def stand_in_encoder():
    with embedding.use_encoder(HashEncoder()):
        yield


# A node row alone (no keys), created at this file's NOW.
make_node = partial(make_bare_node, at=NOW)


def make_edge(user, source, relation, target, **fields):
    return Edge.objects.create(
        user=user,
        source=source,
        relation=relation,
        target=target,
        strength_at_touch=50.0,
        last_touched_at=NOW,
        created_at=NOW,
        **fields,
    )


def strength(edge) -> float:
    edge.refresh_from_db()
    return edge.strength_at_touch


def turn(user, conversation, *edges, at=NOW):
    return Traversal.objects.create(
        user=user,
        conversation=conversation,
        crossed_at=at,
        edge_ids=[e if isinstance(e, int) else e.pk for e in edges],
    )


@pytest.fixture
def graph(alice):
    me = make_node(alice, "alice", is_self=True)
    anna, joshua = make_node(alice, "Anna"), make_node(alice, "Joshua")
    return {
        "sister": make_edge(alice, me, "HAS_SISTER", anna),
        "knows": make_edge(alice, anna, "KNOWS", joshua),
        "boss": make_edge(
            alice, me, "HAS_BOSS", joshua, stability="mutable", cardinality="one_to_one"
        ),
        "conversation": Conversation.objects.create(user=alice, started_at=NOW),
    }


def test_an_edge_crossed_in_several_turns_is_reinforced_once_per_conversation(alice, graph):
    sister, knows, conversation = graph["sister"], graph["knows"], graph["conversation"]
    turn(alice, conversation, sister, knows)
    turn(alice, conversation, sister, at=NOW + timedelta(minutes=1))

    summary = commit_batch(user=alice, batch=NOTHING, now=NOW, conversation=conversation)

    assert (strength(sister), strength(knows)) == (65.0, 65.0)
    assert sorted(summary.crossed) == ["Anna -[KNOWS]-> Joshua", "alice -[HAS_SISTER]-> Anna"]
    assert not Traversal.objects.filter(applied_at__isnull=True).exists()
    # A later turn of the same conversation crosses it again: a second Write leaves it alone.
    turn(alice, conversation, sister, at=NOW + timedelta(minutes=2))
    again = commit_batch(user=alice, batch=NOTHING, now=NOW, conversation=conversation)
    assert strength(sister) == 65.0 and again.crossed == []
    assert not Traversal.objects.filter(applied_at__isnull=True).exists()
    # Another conversation reinforces it once more.
    other = Conversation.objects.create(user=alice, started_at=NOW)
    turn(alice, other, sister)
    commit_batch(user=alice, batch=NOTHING, now=NOW, conversation=other)
    assert strength(sister) == 80.0


def test_an_edge_the_batch_reobserves_is_not_reinforced_again_by_its_crossing(alice, graph):
    boss, conversation = graph["boss"], graph["conversation"]
    turn(alice, conversation, boss, graph["knows"])
    batch = json.loads((BATCHES / "reobserve_boss.json").read_text())

    summary = commit_batch(user=alice, batch=batch, now=NOW, conversation=conversation)

    assert strength(boss) == 65.0  # re-observed: +15 once, not +30
    assert summary.reinforced == ["alice -[HAS_BOSS]-> Joshua"]
    assert summary.crossed == ["Anna -[KNOWS]-> Joshua"]
    assert Traversal.objects.get().applied_at == NOW


def test_a_forgotten_edge_is_never_reinforced_by_its_crossings(alice, graph):
    sister, knows, conversation = graph["sister"], graph["knows"], graph["conversation"]
    turn(alice, conversation, sister, knows)
    forget_edge(user=alice, edge=sister, now=NOW)

    summary = commit_batch(user=alice, batch=NOTHING, now=NOW, conversation=conversation)

    assert not Edge.objects.filter(pk=sister.pk).exists()
    assert summary.crossed == ["Anna -[KNOWS]-> Joshua"] and strength(knows) == 65.0
    assert Traversal.objects.get().applied_at == NOW


def test_bobs_edge_id_in_alices_log_reinforces_nothing_of_bobs(alice, bob, graph):
    bobs_self, carl = make_node(bob, "bob", is_self=True), make_node(bob, "Carl")
    bobs = make_edge(bob, bobs_self, "KNOWS", carl)
    conversation = graph["conversation"]
    turn(alice, conversation, bobs, graph["knows"])

    summary = commit_batch(user=alice, batch=NOTHING, now=NOW, conversation=conversation)

    assert strength(bobs) == 50.0
    assert summary.crossed == ["Anna -[KNOWS]-> Joshua"]


@pytest.mark.django_db(transaction=True)
def test_the_migration_groups_per_edge_rows_by_conversation_and_back(alice):
    before, after = ("memory", "0008_inbox_answer"), ("memory", "0009_traversal_edge_ids")
    executor = MigrationExecutor(connection)
    executor.migrate([before])
    old = executor.loader.project_state(before).apps
    OldNode, OldEdge, OldTraversal = (
        old.get_model("memory", name) for name in ("Node", "Edge", "Traversal")
    )
    OldConversation = old.get_model("chat", "Conversation")
    a = OldNode.objects.create(
        user_id=alice.pk,
        kind="PERSON",
        name="A",
        normalised_name="a",
        created_at=NOW,
        updated_at=NOW,
    )
    b = OldNode.objects.create(
        user_id=alice.pk,
        kind="PERSON",
        name="B",
        normalised_name="b",
        created_at=NOW,
        updated_at=NOW,
    )
    edges = [
        OldEdge.objects.create(
            user_id=alice.pk,
            source=a,
            relation=f"R{i}",
            target=b,
            last_touched_at=NOW,
            created_at=NOW,
        )
        for i in range(3)
    ]
    first, second = (
        OldConversation.objects.create(user_id=alice.pk, started_at=NOW) for _ in range(2)
    )
    later = NOW + timedelta(minutes=5)
    for edge, conversation, crossed, applied in [
        (edges[2], first, later, None),
        (edges[0], first, NOW, None),
        (edges[1], first, NOW, NOW),
        (edges[0], second, later, None),
    ]:
        OldTraversal.objects.create(
            user_id=alice.pk,
            conversation=conversation,
            edge=edge,
            crossed_at=crossed,
            applied_at=applied,
        )

    executor = MigrationExecutor(connection)
    executor.migrate([after])
    rows = sorted(
        Traversal.objects.for_user(alice).values_list(
            "conversation_id", "applied_at", "crossed_at", "edge_ids"
        ),
        key=lambda r: (r[0], r[1] is None),
    )
    assert rows == [
        (first.pk, NOW, NOW, [edges[1].pk]),
        (first.pk, None, NOW, [edges[0].pk, edges[2].pk]),
        (second.pk, None, later, [edges[0].pk]),
    ]

    executor = MigrationExecutor(connection)
    executor.migrate([before])
    old = executor.loader.project_state(before).apps
    back = sorted(
        old.get_model("memory", "Traversal").objects.values_list(
            "conversation_id", "edge_id", "crossed_at", "applied_at"
        )
    )
    assert back == sorted(
        [
            (first.pk, edges[2].pk, NOW, None),
            (first.pk, edges[0].pk, NOW, None),
            (first.pk, edges[1].pk, NOW, NOW),
            (second.pk, edges[0].pk, later, None),
        ]
    )
    executor = MigrationExecutor(connection)
    executor.migrate([after])
