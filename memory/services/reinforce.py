"""Reinforcement: an edge re-observed at Write or crossed during a Read gains strength
(SPEC §5.4)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db import connection

from memory.core.decay import MAX_STRENGTH, REINFORCE_STEP
from memory.services.decay import EDGE_TABLE, current_strength_sql
from memory.services.locks import user_lock

__all__ = ["reinforce_edges"]


def reinforce_edges(*, user_id: int, edge_ids: Iterable[int], now: datetime) -> int:
    """Reinforce ``user_id``'s edges among ``edge_ids`` at ``now``; return rows updated.

    ``S_new = min(S_current + 15, 100)`` where ``S_current`` is the *decayed* strength at
    ``now`` (``S0 · e^(−λ t)``, computed in SQL with the same λ CASE as decay), then
    ``last_touched_at = now`` and ``dormant = false`` (SPEC §5.4). One set-based UPDATE.

    Invariants: ids not owned by ``user_id`` are ignored (the filter is on both); each edge is
    reinforced once per call however often its id is passed ("each edge once per
    conversation" — the caller passes one conversation's ids once). Superseded edges are not
    filtered out: the caller decides which edges were observed.

    Locking: callers on the Write path already hold ``user_lock(user_id)``; this takes it
    again, which is harmless (PostgreSQL advisory locks stack within a session and are all
    released at commit), so the function is also safe to call on its own.
    """
    ids = sorted({int(edge_id) for edge_id in edge_ids})
    if not ids:
        return 0
    strength, params = current_strength_sql(now)
    sql = (
        f"UPDATE {EDGE_TABLE} SET strength_at_touch = least({strength} + %s, %s),"
        " last_touched_at = %s, dormant = false"
        " WHERE user_id = %s AND id = ANY(%s)"
    )
    with user_lock(user_id), connection.cursor() as cursor:
        cursor.execute(sql, [*params, REINFORCE_STEP, MAX_STRENGTH, now, user_id, ids])
        return cursor.rowcount
