"""Reinforcement from the decayed strength (SPEC §5.4)."""

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from memory.core.decay import LAMBDA, reinforce, strength_at
from memory.models import Edge, Node
from memory.services.locks import user_lock
from memory.services.reinforce import reinforce_edges

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def make_edges(user, specs):
    source, target = (
        Node.objects.create(
            user=user,
            kind="PERSON",
            name=name,
            normalised_name=name.lower(),
            created_at=NOW,
            updated_at=NOW,
        )
        for name in ("Trevor", "Joshua")
    )
    return Edge.objects.bulk_create(
        [
            Edge(
                user=user,
                source=source,
                target=target,
                relation=f"R{i}",
                created_at=NOW,
                **{"last_touched_at": NOW, **spec},
            )
            for i, spec in enumerate(specs)
        ]
    )


def days_ago(days: float) -> datetime:
    return NOW - timedelta(days=days)


def test_reinforcement_starts_from_the_decayed_strength(alice):
    # mutable, 100 touched 10 days ago: 100·e^(−0.2) = 81.87 now, 96.87 after +15.
    (edge,) = make_edges(
        alice,
        [{"stability": "mutable", "strength_at_touch": 100.0, "last_touched_at": days_ago(10)}],
    )
    assert reinforce_edges(user_id=alice.pk, edge_ids=[edge.pk], now=NOW) == 1
    edge.refresh_from_db()
    assert edge.strength_at_touch == pytest.approx(96.87307530779819, abs=1e-9)
    assert edge.last_touched_at == NOW


def test_reinforcement_is_capped_at_100(alice):
    (edge,) = make_edges(
        alice, [{"stability": "stable", "strength_at_touch": 95.0, "last_touched_at": days_ago(1)}]
    )
    reinforce_edges(user_id=alice.pk, edge_ids=[edge.pk], now=NOW)
    edge.refresh_from_db()
    assert edge.strength_at_touch == 100.0


def test_reinforcement_wakes_a_dormant_edge(alice):
    (edge,) = make_edges(
        alice,
        [
            {
                "stability": "ephemeral",
                "strength_at_touch": 100.0,
                "last_touched_at": days_ago(365 * 20),
                "dormant": True,
            }
        ],
    )
    reinforce_edges(user_id=alice.pk, edge_ids=[edge.pk], now=NOW)
    edge.refresh_from_db()
    # Decayed to ~0 (and e^(−1460) would underflow in SQL without the clamp): 0 + 15.
    assert (edge.strength_at_touch, edge.dormant, edge.last_touched_at) == (15.0, False, NOW)


def test_each_edge_is_reinforced_once_per_call_however_often_it_is_listed(alice):
    (edge,) = make_edges(alice, [{"stability": "immutable", "strength_at_touch": 40.0}])
    assert reinforce_edges(user_id=alice.pk, edge_ids=[edge.pk, edge.pk, edge.pk], now=NOW) == 1
    edge.refresh_from_db()
    assert edge.strength_at_touch == 55.0


def test_sql_reinforcement_equals_the_core_on_a_grid(alice):
    specs = [
        {"stability": stability, "strength_at_touch": s0, "last_touched_at": days_ago(age)}
        for stability, s0, age in itertools.product(
            LAMBDA, [0.0, 2.0, 40.0, 90.0, 100.0], [0, 0.5, 3, 30, 300]
        )
    ]
    edges = make_edges(alice, specs)
    reinforce_edges(user_id=alice.pk, edge_ids=[e.pk for e in edges], now=NOW)
    got = dict(Edge.objects.for_user(alice).values_list("id", "strength_at_touch"))
    for e in edges:
        expected = reinforce(strength_at(e.strength_at_touch, e.stability, e.last_touched_at, NOW))
        assert got[e.pk] == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_only_the_listed_edges_change(alice):
    touched, untouched = make_edges(
        alice, [{"last_touched_at": days_ago(5)}, {"last_touched_at": days_ago(5)}]
    )
    reinforce_edges(user_id=alice.pk, edge_ids=[touched.pk], now=NOW)
    untouched_after = Edge.objects.get(pk=untouched.pk)
    assert (untouched_after.strength_at_touch, untouched_after.last_touched_at) == (
        100.0,
        days_ago(5),
    )


def test_bob_cannot_reinforce_alices_edges(alice, bob):
    (edge,) = make_edges(
        alice,
        [
            {
                "stability": "mutable",
                "strength_at_touch": 50.0,
                "last_touched_at": days_ago(10),
                "dormant": True,
            }
        ],
    )
    assert reinforce_edges(user_id=bob.pk, edge_ids=[edge.pk], now=NOW) == 0
    edge.refresh_from_db()
    assert (edge.strength_at_touch, edge.last_touched_at, edge.dormant) == (
        50.0,
        days_ago(10),
        True,
    )


def test_reinforcement_works_inside_the_callers_lock(alice):
    (edge,) = make_edges(alice, [{"stability": "immutable", "strength_at_touch": 10.0}])
    with user_lock(alice.pk):
        assert reinforce_edges(user_id=alice.pk, edge_ids=[edge.pk], now=NOW) == 1
    edge.refresh_from_db()
    assert edge.strength_at_touch == 25.0


def test_no_ids_means_no_query(alice, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert reinforce_edges(user_id=alice.pk, edge_ids=[], now=NOW) == 0
