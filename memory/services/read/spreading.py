"""Spreading activation over a graph snapshot (SPEC §5.2), and the one Traversal row a turn
leaves behind — shared by every Read strategy."""

from __future__ import annotations

from datetime import datetime

import numpy as np
from django.db import connection

from memory.core.activation import FORWARD, REVERSE, SEED, Activation, select_fired
from memory.core.activation_arrays import co_episode_gainers, neighbourhood, spread_arrays
from memory.models import Traversal
from memory.services.read.record import ReadOptions
from memory.services.read.sql import id_array
from memory.services.snapshot import GraphSnapshot

__all__ = ["log_traversals", "spread_and_fire"]


def spread_and_fire(
    snapshot: GraphSnapshot,
    strength: np.ndarray,
    live: np.ndarray,
    seed_ids: list[int],
    options: ReadOptions,
    initial: np.ndarray | None = None,
) -> tuple[list[Activation], list[int]]:
    """SPEC §5.2 over the snapshot: spread from the seeds along the live edges, add the
    co-episode bonus, pick the nodes that fire. Returns ``(fired, crossed edge ids)``.

    The same rules as ``spread`` → ``apply_co_episode_bonus`` → ``select_fired`` of
    ``memory.core.activation`` (a test runs both on random graphs): the waves and the bonus
    are vectorised, and only each side's ``budget`` best candidates become Activation
    records for ``select_fired`` — it takes at most that many from either side.
    """
    seeds = snapshot.indices(seed_ids)
    # Only the live edges the waves can reach (``neighbourhood``: the same result as the
    # whole live graph, at the cost of what the Read touches).
    at = neighbourhood(
        len(snapshot.node_ids),
        seeds,
        snapshot.source,
        snapshot.target,
        live,
        hops=options.hops,
    )
    result = spread_arrays(
        len(snapshot.node_ids),
        seeds,
        snapshot.source[at],
        snapshot.target[at],
        strength[at],
        hops=options.hops,
        factor=options.spread_factor,
        initial=initial,
    )
    crossed = snapshot.edge_ids[at[result.crossed]].tolist()

    reached = result.reached
    score = result.score.copy()
    bonus = np.zeros(len(score))
    strong = reached & (result.score >= options.fire_threshold)
    gaining = co_episode_gainers(strong, snapshot.pair_node, snapshot.pair_episode) & ~result.seed
    bonus[gaining] = options.co_episode_bonus
    score += bonus
    entered = gaining & ~reached  # reached only through the bonus: forward, hop 1
    hop = np.where(entered, 1, result.hop)
    forward = (result.forward | entered) & ~result.seed
    reverse = reached & ~result.seed & ~forward

    picked: list[int] = []
    candidate = (reached | entered) & (score >= options.fire_threshold)
    for side in (candidate & (result.seed | forward), candidate & reverse):
        index = np.flatnonzero(side)
        order = np.lexsort((index, -score[index]))  # score descending, then node id
        picked.extend(index[order[: max(options.budget, 0)]].tolist())
    acts = {}
    for i in picked:
        node_id = int(snapshot.node_ids[i])
        direction = SEED if result.seed[i] else FORWARD if forward[i] else REVERSE
        acts[node_id] = Activation(
            node_id=node_id,
            score=float(score[i]),
            direction=direction,
            hop=int(hop[i]),
            forward_in=float(result.forward_in[i]),
            reverse_in=float(result.reverse_in[i]),
            bonus=float(bonus[i]),
        )
    fired = select_fired(
        acts,
        threshold=options.fire_threshold,
        budget=options.budget,
        forward_share=options.forward_share,
    )
    return fired, crossed


def log_traversals(user_id: int, conversation_id: int, edge_ids: list[int], now: datetime) -> None:
    """One row for the turn: the crossed edges' ids as one array (a Read on a large graph
    crosses thousands; a row each made this the costliest write of a turn). Ids are taken as
    the Read found them; the Write applies only ids of the user's edges that still exist, each
    edge once per conversation (``write._apply_traversals``)."""
    ids = sorted({int(i) for i in edge_ids})
    if not ids:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            INSERT INTO {Traversal._meta.db_table} (user_id, conversation_id, edge_ids, crossed_at)
            VALUES (%s, %s, %s::bigint[], %s)
            """,
            [user_id, conversation_id, id_array(ids), now],
        )
