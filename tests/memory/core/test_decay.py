"""Decay and reinforcement (SPEC §5.4)."""

import math
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.core.decay import (
    LAMBDA,
    days_between,
    is_dormant,
    is_live,
    reinforce,
    strength_at,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def days(n: float) -> datetime:
    return T0 + timedelta(days=n)


@pytest.mark.parametrize(
    ("s0", "stability", "elapsed", "expected"),
    [
        (100, "mutable", 10, 81.87307530779819),  # 100 · e^(−0.020·10) = 100 · e^(−0.2)
        (100, "stable", 100, 60.653065971263345),  # 100 · e^(−0.005·100) = 100 · e^(−0.5)
        (100, "immutable", 1000, 100.0),  # λ = 0: never decays
        (50, "ephemeral", 1, 40.936537653899094),  # 50 · e^(−0.200·1)
        (80, "time_bound", 0.5, 78.02479296226662),  # 80 · e^(−0.050·0.5) = 80 · e^(−0.025)
        (100, "mutable", 0, 100.0),  # untouched since now
    ],
)
def test_strength_decays_exponentially_by_stability(s0, stability, elapsed, expected):
    assert strength_at(s0, stability, T0, days(elapsed)) == pytest.approx(expected, rel=1e-12)


def test_a_touch_in_the_future_counts_as_zero_days():
    assert days_between(days(3), T0) == 0.0
    assert strength_at(70, "ephemeral", days(3), T0) == 70


def test_days_between_uses_fractions_of_a_day_and_any_timezone():
    plus2 = timezone(timedelta(hours=2))
    # 2026-01-02 12:00+02:00 is 10:00 UTC: 1 day and 10 hours = 1.41666… days
    assert days_between(T0, datetime(2026, 1, 2, 12, tzinfo=plus2)) == pytest.approx(34 / 24)


def test_naive_datetimes_are_rejected():
    with pytest.raises(ValueError):
        days_between(datetime(2026, 1, 1), T0)
    with pytest.raises(ValueError):
        strength_at(100, "stable", T0, datetime(2026, 2, 1))


def test_unknown_stability_is_an_error():
    with pytest.raises(ValueError):
        strength_at(100, "forever", T0, days(1))


def test_mutable_edge_goes_dormant_after_about_196_days():
    # 100 · e^(−0.02 t) < 2 ⇔ t > ln(50)/0.02 = 195.6 days
    assert not is_dormant(
        strength_at(100, "mutable", T0, days(195)),
        stability="mutable",
        expires_at=None,
        now=days(195),
    )  # 100·e^(−3.90) = 2.02
    assert is_dormant(
        strength_at(100, "mutable", T0, days(196)),
        stability="mutable",
        expires_at=None,
        now=days(196),
    )  # 100·e^(−3.92) = 1.98


@pytest.mark.parametrize(
    ("strength", "stability", "expires_at", "dormant"),
    [
        (1.99, "stable", None, True),  # below 2.0
        (2.0, "stable", None, False),  # 2.0 itself is live
        (90.0, "time_bound", T0, True),  # expires exactly now → expired
        (90.0, "ephemeral", days(-1), True),  # expired yesterday
        (90.0, "time_bound", days(1), False),  # expires tomorrow
        (90.0, "stable", days(-1), False),  # expiry means nothing on a stable edge
    ],
)
def test_dormant_below_two_or_when_a_temporary_edge_expired(
    strength, stability, expires_at, dormant
):
    assert is_dormant(strength, stability=stability, expires_at=expires_at, now=T0) is dormant


@pytest.mark.parametrize(
    ("kwargs", "live"),
    [
        ({}, True),
        ({"superseded": True}, False),
        ({"dormant": True}, False),
        ({"strength": 1.5}, False),
        ({"stability": "ephemeral", "expires_at": days(-1)}, False),
    ],
)
def test_live_edges_are_not_superseded_dormant_weak_or_expired(kwargs, live):
    args = {"strength": 50.0, "stability": "stable", "expires_at": None, "now": T0} | kwargs
    strength = args.pop("strength")
    assert is_live(strength, **args) is live


@pytest.mark.parametrize(
    ("current", "expected"),
    [(50.0, 65.0), (0.0, 15.0), (90.0, 100.0), (85.0, 100.0), (100.0, 100.0)],
)
def test_reinforce_adds_fifteen_up_to_one_hundred(current, expected):
    assert reinforce(current) == expected


strengths = st.floats(min_value=0, max_value=100)
stabilities = st.sampled_from(sorted(LAMBDA))
spans = st.floats(min_value=0, max_value=1000)


@given(strengths, stabilities, spans)
def test_decay_never_increases_strength(s0, stability, t):
    assert strength_at(s0, stability, T0, days(t)) <= s0


@given(strengths, stabilities, spans, spans)
def test_decaying_in_two_steps_equals_decaying_once(s0, stability, t1, t2):
    once = strength_at(s0, stability, T0, days(t1 + t2))
    twice = strength_at(
        strength_at(s0, stability, T0, days(t1)), stability, days(t1), days(t1 + t2)
    )
    assert math.isclose(once, twice, rel_tol=1e-9, abs_tol=1e-300)


@given(strengths)
def test_reinforce_never_exceeds_one_hundred_and_never_decreases(current):
    assert current <= reinforce(current) <= 100.0
