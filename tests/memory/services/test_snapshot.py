"""The Read's per-process graph snapshot (memory.services.snapshot) and the graph version the
database keeps for it: every kind of write moves the version, a current snapshot is reused, a
stale one never is, strengths at ``now`` equal the core's, and one user's snapshot holds none
of another's rows."""

import random
from datetime import timedelta

import pytest
from django.db import connection, transaction

from chat.models import Conversation
from memory.core.decay import is_live, strength_at
from memory.models import Edge, GraphVersion, NodeEpisode, Snippet
from memory.services import snapshot as snapshots
from memory.services.decay import decay_user
from memory.services.read import ReadOptions, recall
from tests.memory.factories import T0, make_edge, make_episode, make_node

pytestmark = pytest.mark.django_db


def version(user) -> int | None:
    row = GraphVersion.objects.filter(user=user).first()
    return row.version if row else None


def load(user):
    with connection.cursor() as cursor:
        return snapshots.load_snapshot(cursor, user.pk)


@pytest.fixture
def graph(alice):
    joshua, acme = make_node(alice, "Joshua"), make_node(alice, "Acme", "ORG")
    edge = make_edge(alice, joshua, "WORKS_AT", acme, snippet="Joshua works at Acme")
    return {"joshua": joshua, "acme": acme, "edge": edge}


@pytest.mark.parametrize(
    "write",
    [
        "create node",
        "rename node (raw SQL)",
        "flag edge dormant (decay)",
        "edit snippet",
        "add membership",
        "delete node",
        "delete key",
    ],
)
def test_every_kind_of_write_moves_the_version(alice, graph, write):
    before = version(alice)
    if write == "create node":
        make_node(alice, "Priya")
    elif write == "rename node (raw SQL)":
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE memory_node SET name = 'Josh' WHERE id = %s", [graph["joshua"].pk]
            )
    elif write == "flag edge dormant (decay)":
        assert decay_user(user_id=alice.pk, now=T0 + timedelta(days=3650)) == 1
    elif write == "edit snippet":
        Snippet.objects.filter(user=alice).update(text="Joshua left Acme")
    elif write == "add membership":
        NodeEpisode.objects.create(user=alice, node=graph["acme"], episode=make_episode(alice))
    elif write == "delete node":
        graph["acme"].delete()
    elif write == "delete key":
        graph["joshua"].keys.all().delete()

    assert before is not None and version(alice) not in (None, before)


def test_unrelated_writes_leave_the_version_alone(alice, bob, graph):
    before = version(alice)
    Conversation.objects.create(user=alice, started_at=T0)
    make_node(bob, "Joshua")

    assert version(alice) == before


def test_a_rolled_back_version_is_never_reused(alice, graph):
    with pytest.raises(RuntimeError), transaction.atomic():
        make_node(alice, "Priya")
        rolled_back = version(alice)
        raise RuntimeError("abandon the write")
    assert version(alice) != rolled_back

    make_node(alice, "Mateo")

    assert version(alice) != rolled_back


def test_a_current_snapshot_is_reused_and_a_stale_one_reloaded(alice, graph):
    snapshots.clear_snapshot_cache()
    first = load(alice)
    assert load(alice) is first

    with connection.cursor() as cursor:  # behind the ORM's back
        cursor.execute("UPDATE memory_node SET name = 'Josh' WHERE id = %s", [graph["joshua"].pk])
    fresh = load(alice)

    assert fresh is not first and "Josh" in fresh.names and "Joshua" not in fresh.names
    assert recall(user=alice, message="joshua", now=T0).seeds[0]["name"] == "Josh"


def test_a_read_sees_an_edge_superseded_behind_its_back(alice, graph):
    recall(user=alice, message="joshua", now=T0)  # caches the snapshot
    newer = make_edge(alice, graph["joshua"], "WORKS_AT", make_node(alice, "Globex", "ORG"))
    Edge.objects.filter(pk=graph["edge"].pk).update(superseded_by=newer)

    record = recall(user=alice, message="joshua", now=T0, options=ReadOptions(strategy="spec"))

    assert record.memory_lines == ["Joshua -[WORKS_AT]-> Globex"]


def test_strengths_and_liveness_equal_the_core_on_a_grid(alice):
    rng = random.Random(4)
    now = T0 + timedelta(days=400)
    nodes = [make_node(alice, f"N{i}", "OTHER") for i in range(12)]
    edges = []
    for i in range(60):
        stability = rng.choice(["immutable", "stable", "mutable", "time_bound", "ephemeral"])
        temporary = stability in ("time_bound", "ephemeral")
        a, b = rng.sample(nodes, 2)
        edges.append(
            Edge.objects.create(
                user=alice,
                source=a,
                target=b,
                relation=f"R{i}",
                created_at=T0,
                strength_at_touch=rng.choice([2.0, 2.0000001, rng.uniform(0, 100), 100.0]),
                stability=stability,
                last_touched_at=now - timedelta(days=rng.uniform(-5, 900)),
                expires_at=(
                    now + timedelta(seconds=rng.choice([-1, 0, 1, 86400]))
                    if temporary and rng.random() < 0.7
                    else None
                ),
            )
        )

    snapshot = load(alice)
    touched, s0 = snapshot.touched_us.copy(), snapshot.s0.copy()
    strength, live = snapshot.live_strengths(now)

    # The cached columns are inputs only: a second Read computes the same from them.
    assert (snapshot.touched_us == touched).all() and (snapshot.s0 == s0).all()
    again, live_again = snapshot.live_strengths(now)
    assert (again == strength).all() and (live_again == live).all()
    for edge in edges:
        at = int(snapshot.edge_ids.tolist().index(edge.pk))
        expected = strength_at(edge.strength_at_touch, edge.stability, edge.last_touched_at, now)
        assert strength[at] == pytest.approx(expected, rel=1e-13, abs=0)
        assert bool(live[at]) == is_live(
            expected, stability=edge.stability, expires_at=edge.expires_at, now=now
        )


def test_a_snapshot_holds_only_its_owners_rows(alice, bob, graph):
    bobs = make_node(bob, "Joshua")
    make_edge(bob, bobs, "WORKS_AT", make_node(bob, "Acme", "ORG"), snippet="bob's secret")

    mine, theirs = load(alice), load(bob)

    assert set(mine.node_ids.tolist()).isdisjoint(theirs.node_ids.tolist())
    assert set(mine.edge_ids.tolist()) == {graph["edge"].pk}
    assert all(
        node_id in {graph["joshua"].pk, graph["acme"].pk} or node_id is None
        for node_id, _, _ in mine.keys.values()
    )
    assert set(mine.keys).isdisjoint(theirs.keys)


def test_a_user_without_a_version_row_is_read_but_not_cached(alice, graph):
    GraphVersion.objects.filter(user=alice).delete()
    snapshots.clear_snapshot_cache()

    first, second = load(alice), load(alice)

    assert first.version is None and second is not first
    assert sorted(first.names) == ["Acme", "Joshua"]
