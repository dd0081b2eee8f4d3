"""Daily decay: flag edges dormant when their derived strength falls below 2.0 or they expire
(SPEC §5.4).

Why decay only flags: an edge stores ``strength_at_touch`` (S0) and ``last_touched_at`` and its
current strength ``S0 · e^(−λ t)`` is always *derived* (``memory.core.decay.strength_at``). So
the decay run never rewrites S0 — doing so would compound the decay on every run and lose the
value the Read path and reinforcement start from. All it has to do is set ``dormant = true``
where the derived strength is below ``DORMANT_BELOW`` or a temporary edge's expiry has passed.
Re-running at the same ``now`` changes nothing; nothing is ever deleted; decay never clears a
flag (only reinforcement does, §5.4).

The arithmetic is one set-based UPDATE per user, generated from ``memory.core.decay.LAMBDA`` so
the SQL and the pure core cannot drift (a test compares them on a grid of edges).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from django.db import connection

from memory.core.decay import DORMANT_BELOW, LAMBDA, MIN_EXPONENT, TEMPORARY
from memory.models import Edge
from memory.services.locks import user_lock

__all__ = ["current_strength_sql", "decay_all", "decay_user", "dormancy_sql"]

EDGE_TABLE = Edge._meta.db_table


def _require_aware(now: datetime) -> None:
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"now must be a timezone-aware datetime, got {now!r}")


def current_strength_sql(now: datetime, *, alias: str = "") -> tuple[str, list]:
    """SQL for an edge's current strength ``S0 · e^(−λ t)`` at ``now`` (SPEC §5.4), and its
    parameters.

    λ comes from a CASE built from ``memory.core.decay.LAMBDA``; t is in days, floored at 0
    (a touch after ``now`` counts as no time), computed from exact epoch seconds cast to
    double precision so the result equals ``memory.core.decay.strength_at`` bit for bit.
    ``alias`` prefixes the column names (``"e."``) for use in joins.
    """
    _require_aware(now)
    whens = " ".join("WHEN %s THEN %s::float8" for _ in LAMBDA)
    rate = f"(CASE {alias}stability {whens} END)"
    days = (
        f"(greatest(0, extract(epoch FROM %s::timestamptz)"
        f" - extract(epoch FROM {alias}last_touched_at))::float8 / 86400.0::float8)"
    )
    sql = f"({alias}strength_at_touch * exp(greatest(%s::float8, -{rate} * {days})))"
    params: list = [MIN_EXPONENT]  # the core's clamp: PostgreSQL's exp() raises on underflow
    for stability, lam in LAMBDA.items():
        params += [stability, float(lam)]
    params.append(now)
    return sql, params


def dormancy_sql(now: datetime, *, alias: str = "") -> tuple[str, list]:
    """SQL condition: the edge is dormant at ``now`` — derived strength below 2.0, or a
    time_bound/ephemeral edge whose ``expires_at`` is at or before ``now`` (SPEC §5.4; the
    same rule as ``memory.core.decay.is_dormant``)."""
    strength, params = current_strength_sql(now, alias=alias)
    temporary = ", ".join("%s" for _ in TEMPORARY)
    sql = (
        f"({strength} < %s::float8 OR ({alias}stability IN ({temporary})"
        f" AND {alias}expires_at IS NOT NULL AND {alias}expires_at <= %s))"
    )
    return sql, [*params, DORMANT_BELOW, *sorted(TEMPORARY), now]


def decay_user(*, user_id: int, now: datetime) -> int:
    """Flag ``user_id``'s newly dormant edges at ``now``; return how many were flagged.

    One UPDATE, inside ``user_lock(user_id)`` (its own transaction, serialised with Write and
    merges). Superseded edges are included: they are history, and flagging them is harmless.
    Only rows that are not dormant yet change, so a re-run at the same ``now`` returns 0.
    """
    condition, params = dormancy_sql(now)
    sql = (
        f"UPDATE {EDGE_TABLE} SET dormant = true WHERE user_id = %s AND NOT dormant AND {condition}"
    )
    owns_transaction = not connection.in_atomic_block
    with user_lock(user_id), connection.cursor() as cursor:
        if owns_transaction:
            # Decay is derived data and idempotent: if the server crashed right after this
            # commit, the next run would flag the same edges again. So the commit need not
            # wait for its WAL flush — that wait, once per user, was most of a 1000-user run.
            # Only when this function owns the transaction: a caller's own writes keep
            # their durability.
            cursor.execute("SET LOCAL synchronous_commit TO OFF")
        cursor.execute(sql, [user_id, *params])
        return cursor.rowcount


def users_with_edges() -> list[int]:
    """Ids of every user owning at least one edge, ascending."""
    return list(Edge.objects.order_by("user_id").values_list("user_id", flat=True).distinct())


def decay_all(
    *,
    now: datetime,
    progress: Callable[[int, int], None] | None = None,
    user_ids: Sequence[int] | None = None,
) -> tuple[int, int]:
    """Run ``decay_user`` for every user with edges (or only ``user_ids``); return
    ``(users, edges_flagged)``.

    Each user is its own transaction, committed before the next starts, so an interrupted run
    keeps what it did and a re-run finishes the rest (already-flagged edges are skipped).
    ``progress(done, total)`` is called after each user.
    """
    _require_aware(now)
    ids = users_with_edges() if user_ids is None else sorted(set(user_ids))
    flagged = 0
    for done, user_id in enumerate(ids, start=1):
        flagged += decay_user(user_id=user_id, now=now)
        if progress:
            progress(done, len(ids))
    return len(ids), flagged
