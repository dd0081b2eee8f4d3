"""Edge strength over time and reinforcement (SPEC §5.4).

An edge stores ``strength_at_touch`` (S0) and ``last_touched_at``; its current
strength is always derived as ``S(t) = S0 · e^(−λ t)`` with t in days. Because the
value is recomputed from S0 rather than decayed step by step, running decay twice
changes nothing. The database path does the same arithmetic as one set-based
UPDATE; these functions are the reference it is tested against, and what the
Read path uses to judge liveness before the daily run has flagged anything.
"""

from __future__ import annotations

import math
from datetime import datetime

__all__ = [
    "DORMANT_BELOW",
    "LAMBDA",
    "MAX_STRENGTH",
    "MIN_EXPONENT",
    "REINFORCE_STEP",
    "TEMPORARY",
    "client_constants",
    "days_between",
    "is_dormant",
    "is_live",
    "reinforce",
    "strength_at",
]

LAMBDA: dict[str, float] = {
    "immutable": 0.0,
    "stable": 0.005,
    "mutable": 0.020,
    "time_bound": 0.050,
    "ephemeral": 0.200,
}
"""Decay rate per day, by edge stability."""

DORMANT_BELOW = 2.0
REINFORCE_STEP = 15.0
MAX_STRENGTH = 100.0
TEMPORARY: frozenset[str] = frozenset({"time_bound", "ephemeral"})
"""Stabilities whose edges may carry ``expires_at``."""

MIN_EXPONENT = -700.0
"""Floor of the exponent ``−λ t``. PostgreSQL's exp() raises "value out of range: underflow"
instead of returning 0 below about −708 (an ephemeral edge untouched for ten years), so the
decay SQL and the Read's numpy arrays clamp there, and so does ``strength_at`` to stay equal
to them. e^−700 ≈ 1e−304, so S0 · e^−700 < 2.0 for every S0 ≤ 100: the clamp never changes a
decision, and ``reinforce`` of such an edge is exactly 15."""

_SECONDS_PER_DAY = 86_400.0


def _require_aware(value: datetime, label: str) -> None:
    # A naive datetime would silently be read as local time; the core only deals
    # in aware instants so replays give the same answer on every machine.
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{label} must be a timezone-aware datetime, got {value!r}")


def days_between(then: datetime, now: datetime) -> float:
    """Days elapsed from ``then`` to ``now`` as a float (both timezone-aware).

    Never negative: a touch recorded after ``now`` (clock skew, a replay with an
    earlier ``now``) counts as 0 days, so it neither decays nor grows.
    """
    _require_aware(then, "then")
    _require_aware(now, "now")
    return max(0.0, (now - then).total_seconds() / _SECONDS_PER_DAY)


def _rate(stability: str) -> float:
    try:
        return LAMBDA[stability]
    except KeyError:
        raise ValueError(f"unknown stability {stability!r}") from None


def strength_at(s0: float, stability: str, last_touched_at: datetime, now: datetime) -> float:
    """Current strength ``S0 · e^(−λ t)`` (SPEC §5.4).

    Inputs: ``s0`` = strength_at_touch (0–100), ``stability`` (a key of ``LAMBDA``),
    ``last_touched_at`` and ``now`` (aware datetimes; t in days, floored at 0).

    Invariants: never more than ``s0`` for s0 ≥ 0; immutable edges never decay;
    ``strength_at(strength_at(s0, t1), t2) == strength_at(s0, t1 + t2)`` up to rounding.
    """
    exponent = -_rate(stability) * days_between(last_touched_at, now)
    return s0 * math.exp(max(MIN_EXPONENT, exponent))


def client_constants() -> dict[str, object]:
    """The constants a client needs to redo ``strength_at`` and the dormancy threshold
    (JSON-ready): the memory explorer draws faded strengths from these, never its own copy."""
    return {"lambda": dict(LAMBDA), "dormantBelow": DORMANT_BELOW, "minExponent": MIN_EXPONENT}


def _expired(stability: str, expires_at: datetime | None, now: datetime) -> bool:
    # Expiry only means something for temporary relations; cleaning drops it on
    # the others (§5.5), and a stray value there must not hide a stable memory.
    if expires_at is None or stability not in TEMPORARY:
        return False
    _require_aware(expires_at, "expires_at")
    _require_aware(now, "now")
    return expires_at <= now


def is_dormant(
    strength: float, *, stability: str, expires_at: datetime | None, now: datetime
) -> bool:
    """Whether decay flags the edge dormant (SPEC §5.4).

    Inputs: the *current* strength (from ``strength_at``), the edge's stability and
    expiry, and ``now``. Dormant when strength < 2.0, or when a time_bound or
    ephemeral edge's ``expires_at`` is at or before ``now``.
    """
    return strength < DORMANT_BELOW or _expired(stability, expires_at, now)


def is_live(
    strength: float,
    *,
    stability: str,
    expires_at: datetime | None,
    now: datetime,
    dormant: bool = False,
    superseded: bool = False,
) -> bool:
    """Whether an edge conducts and may be injected at read time (SPEC §5.2, §5.3).

    Inputs: the current strength, stability, expiry, ``now``, the stored ``dormant``
    flag and whether ``superseded_by`` is set. Live means: not superseded, not
    flagged dormant, current strength ≥ 2.0 and not expired — the read path applies
    the decay rule itself instead of waiting for the daily run.
    """
    if superseded or dormant:
        return False
    return not is_dormant(strength, stability=stability, expires_at=expires_at, now=now)


def reinforce(current: float) -> float:
    """Strength after one reinforcement: ``min(current + 15, 100)`` (SPEC §5.4).

    Input: the current (decayed) strength, 0–100. The caller also sets
    ``last_touched_at = now`` and clears ``dormant``; each edge at most once per
    conversation.
    """
    return min(current + REINFORCE_STEP, MAX_STRENGTH)
