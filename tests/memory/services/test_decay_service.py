"""The decay run (SPEC §5.4): one set-based UPDATE per user that only flags dormancy."""

import itertools
import math
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from memory.core.decay import LAMBDA, TEMPORARY, is_dormant, strength_at
from memory.models import Edge, Node
from memory.services.decay import current_strength_sql, decay_all, decay_user
from memory.tasks import decay_all_users

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
FIELDS = (
    "id",
    "user_id",
    "source_id",
    "relation",
    "target_id",
    "strength_at_touch",
    "last_touched_at",
    "confidence",
    "stability",
    "cardinality",
    "expires_at",
    "dormant",
    "superseded_by_id",
    "snippet_id",
    "created_at",
)


def two_nodes(user):
    return [
        Node.objects.create(
            user=user,
            kind="PERSON",
            name=name,
            normalised_name=name.lower(),
            created_at=NOW,
            updated_at=NOW,
        )
        for name in ("Trevor", "Joshua")
    ]


def make_edges(user, specs):
    """``specs``: dicts of Edge fields; each gets its own relation label so none collide."""
    source, target = two_nodes(user)
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


def snapshot(user):
    return list(Edge.objects.for_user(user).order_by("id").values_list(*FIELDS))


def days_ago(days: float) -> datetime:
    return NOW - timedelta(days=days)


# The age at which S0 = 100 decays to exactly 2.0: ln(50) / λ days.
@pytest.mark.parametrize(
    ("stability", "crossing_days"),
    [(s, math.log(50) / lam) for s, lam in LAMBDA.items() if lam > 0],
)
def test_each_stability_class_turns_dormant_when_it_decays_below_2(alice, stability, crossing_days):
    young, old = make_edges(
        alice,
        [
            {"stability": stability, "last_touched_at": days_ago(crossing_days - 0.01)},
            {"stability": stability, "last_touched_at": days_ago(crossing_days + 0.01)},
        ],
    )
    assert decay_user(user_id=alice.pk, now=NOW) == 1
    young.refresh_from_db()
    old.refresh_from_db()
    assert (young.dormant, old.dormant) == (False, True)


def test_the_crossing_ages_are_what_the_spec_rates_give():
    # stable 782 d, mutable 196 d, time_bound 78 d, ephemeral 19.6 d (from λ of SPEC §5.4)
    assert round(math.log(50) / LAMBDA["stable"]) == 782
    assert round(math.log(50) / LAMBDA["mutable"]) == 196
    assert round(math.log(50) / LAMBDA["time_bound"]) == 78
    assert round(math.log(50) / LAMBDA["ephemeral"], 1) == 19.6


def test_immutable_edges_never_decay_however_old(alice):
    (edge,) = make_edges(
        alice,
        [
            {
                "stability": "immutable",
                "strength_at_touch": 2.0,
                "last_touched_at": days_ago(365 * 80),
            }
        ],
    )
    assert decay_user(user_id=alice.pk, now=NOW) == 0
    edge.refresh_from_db()
    assert edge.dormant is False


@pytest.mark.parametrize("stability", sorted(TEMPORARY))
def test_temporary_edges_turn_dormant_once_expired_even_at_full_strength(alice, stability):
    past, exact, future = make_edges(
        alice,
        [
            {"stability": stability, "expires_at": NOW - timedelta(seconds=1)},
            {"stability": stability, "expires_at": NOW},
            {"stability": stability, "expires_at": NOW + timedelta(seconds=1)},
        ],
    )
    assert decay_user(user_id=alice.pk, now=NOW) == 2
    flags = dict(Edge.objects.for_user(alice).values_list("id", "dormant"))
    assert (flags[past.pk], flags[exact.pk], flags[future.pk]) == (True, True, False)


def _grid():
    ages = [0, 0.25, 1, 10, 19.56, 50, 78.24, 150, 195.6, 400, 782.4, 1500, 4000, 20000, 80000]
    strengths = [0.0, 1.5, 2.0, 2.5, 10.0, 50.0, 100.0]
    specs = []
    for stability, age, s0 in itertools.product(LAMBDA, ages, strengths):
        expiries = [None]
        if stability in TEMPORARY:
            expiries += [NOW - timedelta(days=3), NOW, NOW + timedelta(hours=1)]
        for expires_at in expiries:
            specs.append(
                {
                    "stability": stability,
                    "strength_at_touch": s0,
                    "last_touched_at": days_ago(age),
                    "expires_at": expires_at,
                }
            )
    # Touched in the future (clock skew, replay): counts as zero days.
    specs.append(
        {
            "stability": "ephemeral",
            "strength_at_touch": 2.0,
            "last_touched_at": NOW + timedelta(days=5),
        }
    )
    # As close to the 2.0 boundary as microseconds allow, on both sides.
    for stability, lam in LAMBDA.items():
        if lam == 0:
            continue
        for s0 in (3.0, 77.7, 100.0):
            crossing = timedelta(days=math.log(s0 / 2.0) / lam)
            for offset_us in (-2, -1, 0, 1, 2):
                specs.append(
                    {
                        "stability": stability,
                        "strength_at_touch": s0,
                        "last_touched_at": NOW - crossing - timedelta(microseconds=offset_us),
                    }
                )
    return specs


def test_sql_dormancy_equals_the_core_rule_on_a_grid_of_edges(alice):
    edges = make_edges(alice, _grid())
    decay_user(user_id=alice.pk, now=NOW)
    flagged = dict(Edge.objects.for_user(alice).values_list("id", "dormant"))
    expected = {
        e.pk: is_dormant(
            strength_at(e.strength_at_touch, e.stability, e.last_touched_at, NOW),
            stability=e.stability,
            expires_at=e.expires_at,
            now=NOW,
        )
        for e in edges
    }
    assert flagged == expected
    assert 0 < sum(expected.values()) < len(expected)  # the grid has both outcomes


def test_sql_current_strength_equals_the_core_bit_for_bit(alice):
    edges = make_edges(alice, [s for s in _grid() if s["last_touched_at"] > days_ago(3000)])
    sql, params = current_strength_sql(NOW)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, {sql} FROM memory_edge WHERE user_id = %s", [*params, alice.pk])
        got = dict(cursor.fetchall())
    for e in edges:
        assert got[e.pk] == strength_at(e.strength_at_touch, e.stability, e.last_touched_at, NOW), (
            e.stability,
            e.strength_at_touch,
        )


def test_decay_of_edges_untouched_for_centuries_does_not_underflow(alice):
    make_edges(alice, [{"stability": "ephemeral", "last_touched_at": days_ago(365 * 300)}])
    assert decay_user(user_id=alice.pk, now=NOW) == 1


def test_decay_twice_at_the_same_time_changes_nothing_the_second_time(alice):
    make_edges(alice, _grid())
    first = decay_user(user_id=alice.pk, now=NOW)
    after_first = snapshot(alice)
    assert first > 0
    assert decay_user(user_id=alice.pk, now=NOW) == 0
    assert snapshot(alice) == after_first


def test_decay_deletes_nothing_and_rewrites_no_strength_or_touch(alice):
    make_edges(alice, _grid())
    before = snapshot(alice)
    decay_user(user_id=alice.pk, now=NOW + timedelta(days=10_000))
    after = snapshot(alice)
    assert len(after) == len(before)
    dormant_at = FIELDS.index("dormant")
    for old, new in zip(before, after, strict=True):
        assert old[:dormant_at] + old[dormant_at + 1 :] == new[:dormant_at] + new[dormant_at + 1 :]
    assert all(row[dormant_at] for row in after if row[FIELDS.index("stability")] != "immutable")


def test_decay_never_clears_a_dormant_flag(alice):
    (edge,) = make_edges(alice, [{"stability": "stable", "dormant": True}])
    assert decay_user(user_id=alice.pk, now=NOW) == 0
    edge.refresh_from_db()
    assert edge.dormant is True


def test_superseded_edges_are_flagged_too(alice):
    old, new = make_edges(
        alice,
        [
            {"stability": "ephemeral", "last_touched_at": days_ago(30)},
            {"stability": "ephemeral", "last_touched_at": days_ago(30)},
        ],
    )
    Edge.objects.filter(pk=old.pk).update(superseded_by=new)
    assert decay_user(user_id=alice.pk, now=NOW) == 2


def test_decay_all_processes_every_user_with_edges_and_reports_progress(alice, bob):
    make_edges(alice, [{"stability": "ephemeral", "last_touched_at": days_ago(30)}] * 3)
    make_edges(
        bob,
        [{"stability": "ephemeral", "last_touched_at": days_ago(30)}, {"stability": "ephemeral"}],
    )
    calls = []
    users, flagged = decay_all(now=NOW, progress=lambda done, total: calls.append((done, total)))
    assert (users, flagged) == (2, 4)
    assert calls == [(1, 2), (2, 2)]
    assert decay_all(now=NOW) == (2, 0)


def test_decay_all_can_be_limited_to_some_users(alice, bob):
    make_edges(alice, [{"stability": "ephemeral", "last_touched_at": days_ago(30)}])
    make_edges(bob, [{"stability": "ephemeral", "last_touched_at": days_ago(30)}])
    assert decay_all(now=NOW, user_ids=[bob.pk, bob.pk]) == (1, 1)
    assert not Edge.objects.for_user(alice).get().dormant


def test_decay_refuses_a_naive_time(alice):
    with pytest.raises(ValueError, match="timezone-aware"):
        decay_user(user_id=alice.pk, now=NOW.replace(tzinfo=None))


def test_the_daily_task_decays_every_user_at_the_current_time(alice, bob):
    make_edges(alice, [{"stability": "ephemeral", "last_touched_at": days_ago(5000)}])
    make_edges(bob, [{"stability": "immutable", "last_touched_at": days_ago(5000)}])
    assert decay_all_users() == {"users": 2, "edges_flagged": 1}
    assert Edge.objects.for_user(alice).get().dormant
    assert not Edge.objects.for_user(bob).get().dormant


@pytest.mark.django_db(transaction=True)
def test_decay_in_its_own_transaction_commits_and_keeps_later_commits_durable(alice):
    # Outside any transaction decay_user owns its commit and relaxes only that commit's
    # WAL wait (re-running decay redoes anything a crash could lose).
    make_edges(alice, [{"stability": "ephemeral", "last_touched_at": days_ago(30)}])
    assert not connection.in_atomic_block
    assert decay_user(user_id=alice.pk, now=NOW) == 1
    assert Edge.objects.for_user(alice).get().dormant
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone()[0] == "on"
