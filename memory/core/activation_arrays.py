"""Spreading activation over numpy arrays: the rules of ``activation.py``, vectorised.

``activation.spread`` walks dicts of edge objects, which is clear and fast for the handful of
seeds a personal graph usually gives. A Read on a large graph can start from thousands of
seeds (a first name shared by hundreds of people, a relation word seeding both ends of every
edge with that label, SPEC §5.1 step 5) and cross most of the graph; these functions do the
same waves over index arrays in a few milliseconds. Same inputs, same rules, same results —
``tests/memory/core/test_activation_arrays.py`` holds them equal to the dict version on
random graphs. Only the order in which floating-point sums are added differs, so scores
agree to ~1e-12, not bit for bit.

Nodes are dense indices ``0 … n−1`` (the caller maps database ids to them); edges are
parallel arrays ``source``, ``target``, ``strength`` of *live* edges at current strength.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memory.core.activation import FACTOR, HOPS

__all__ = ["SpreadArrays", "co_episode_gainers", "neighbourhood", "spread_arrays"]


@dataclass(frozen=True)
class SpreadArrays:
    """Per node index: ``score`` (1.0 for seeds plus everything received), ``forward_in`` and
    ``reverse_in`` (received along / against edge direction), ``hop`` (0 for seeds, the hop
    at which a positive amount first arrived, −1 if never reached) and ``seed``; per edge,
    ``crossed`` (it carried a positive contribution in either direction)."""

    score: np.ndarray
    forward_in: np.ndarray
    reverse_in: np.ndarray
    hop: np.ndarray
    seed: np.ndarray
    crossed: np.ndarray

    @property
    def reached(self) -> np.ndarray:
        """Seeds and every node that received a positive amount."""
        return self.hop >= 0

    @property
    def forward(self) -> np.ndarray:
        """Non-seeds where at least as much arrived forward as in reverse (SPEC §5.2)."""
        return ~self.seed & (self.forward_in >= self.reverse_in)


def _interleave(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.empty(2 * len(a), dtype=np.result_type(a, b))
    out[0::2] = a
    out[1::2] = b
    return out


def spread_arrays(
    n_nodes: int,
    seeds: np.ndarray,
    source: np.ndarray,
    target: np.ndarray,
    strength: np.ndarray,
    *,
    hops: int = HOPS,
    factor: float = FACTOR,
    initial: np.ndarray | None = None,
) -> SpreadArrays:
    """``activation.spread`` over arrays (SPEC §5.2).

    Inputs: ``n_nodes``; ``seeds``, node indices starting at 1.0 (duplicates ignored), or at
    ``initial`` (one activation per seed, SPEC §5.7);
    ``source``/``target``/``strength``, one entry per live edge (current strength; a
    negative or NaN strength conducts nothing, a self-loop is ignored); ``hops`` waves damped
    by ``factor``. Every sender's degree is the sum over *all* the given edges, so pass the
    whole live graph (or at least every edge incident to a node within ``hops − 1`` of a
    seed).

    Waves: at hop 1 each seed sends 1.0; at hop h+1 each node sends what it received at hop
    h, split as ``amount · strength / Σ strength(incident) · factor``.

    When the edges touch few of the nodes (a ``neighbourhood`` of a large graph: ~10 000
    edges of a 100 000-node graph), the waves run over those nodes alone, renumbered in
    order, and the results are put back at their indices: the same numbers bit for bit, each
    wave then costing the edges it crosses rather than the whole graph's node count.
    """
    source = np.asarray(source, dtype=np.int64)
    target = np.asarray(target, dtype=np.int64)
    seeds = np.asarray(seeds, dtype=np.int64)
    if n_nodes <= _COMPACT_ABOVE * (2 * len(source) + len(seeds)):
        return _spread(
            n_nodes, seeds, source, target, strength, hops=hops, factor=factor, initial=initial
        )
    # Renumbered in ascending order, so every per-node sum adds the same terms in the same
    # order; the results are then scattered back to the graph's indices.
    touched = np.zeros(n_nodes, dtype=bool)
    touched[source] = True
    touched[target] = True
    touched[seeds] = True
    nodes = np.flatnonzero(touched)
    local = np.full(n_nodes, -1, dtype=np.int64)
    local[nodes] = np.arange(len(nodes))
    inner = _spread(
        len(nodes),
        local[seeds],
        local[source],
        local[target],
        strength,
        hops=hops,
        factor=factor,
        initial=initial,
    )

    def back(values: np.ndarray, fill) -> np.ndarray:
        out = np.full(n_nodes, fill, dtype=values.dtype)
        out[nodes] = values
        return out

    return SpreadArrays(
        score=back(inner.score, 0.0),
        forward_in=back(inner.forward_in, 0.0),
        reverse_in=back(inner.reverse_in, 0.0),
        hop=back(inner.hop, -1),
        seed=back(inner.seed, False),
        crossed=inner.crossed,
    )


# Renumber the nodes when there are this many times more of them than edge ends and seeds.
_COMPACT_ABOVE = 2


def _spread(
    n_nodes: int,
    seeds: np.ndarray,
    source: np.ndarray,
    target: np.ndarray,
    strength: np.ndarray,
    *,
    hops: int,
    factor: float,
    initial: np.ndarray | None,
) -> SpreadArrays:
    weight = np.asarray(strength, dtype=np.float64)
    # Strength is 0–100 by contract; negative or NaN conducts nothing (as ``_positive``).
    weight = np.where((weight > 0) & (source != target), weight, 0.0)
    # Summed per node in edge order, source end before target end — the order in which the
    # dict version adds them, so degrees agree bit for bit.
    degree = np.bincount(
        _interleave(source, target), weights=_interleave(weight, weight), minlength=n_nodes
    )

    seed = np.zeros(n_nodes, dtype=bool)
    seed[np.asarray(seeds, dtype=np.int64)] = True
    score = seed.astype(np.float64)
    if initial is not None:  # SPEC §5.7: a seed starts at its similarity
        score[np.asarray(seeds, dtype=np.int64)] = np.asarray(initial, dtype=np.float64)
    forward_in = np.zeros(n_nodes)
    reverse_in = np.zeros(n_nodes)
    hop = np.where(seed, 0, -1)
    crossed = np.zeros(len(source), dtype=bool)
    sending = score.copy()

    for wave in range(1, hops + 1):
        if not sending.any():
            break
        with np.errstate(divide="ignore", invalid="ignore"):
            # The same expression, in the same order, as the dict version's ``contrib``.
            out_fwd = sending[source] * weight / degree[source] * factor
            out_rev = sending[target] * weight / degree[target] * factor
        out_fwd = np.where(
            (sending[source] > 0) & (degree[source] > 0) & (out_fwd > 0), out_fwd, 0.0
        )
        out_rev = np.where(
            (sending[target] > 0) & (degree[target] > 0) & (out_rev > 0), out_rev, 0.0
        )
        crossed |= (out_fwd > 0) | (out_rev > 0)
        got_fwd = np.bincount(target, weights=out_fwd, minlength=n_nodes)
        got_rev = np.bincount(source, weights=out_rev, minlength=n_nodes)
        received = got_fwd + got_rev
        forward_in += got_fwd
        reverse_in += got_rev
        score += received
        hop = np.where((hop < 0) & (received > 0), wave, hop)
        sending = received

    return SpreadArrays(
        score=score,
        forward_in=forward_in,
        reverse_in=reverse_in,
        hop=hop,
        seed=seed,
        crossed=crossed,
    )


def neighbourhood(
    n_nodes: int,
    seeds: np.ndarray,
    source: np.ndarray,
    target: np.ndarray,
    usable: np.ndarray,
    *,
    hops: int = HOPS,
) -> np.ndarray:
    """Positions (ascending) of the ``usable`` edges that ``spread_arrays`` from ``seeds``
    can need in ``hops`` waves: every usable edge incident to a node within ``hops − 1``
    edges of a seed — what such a node sends, and the whole degree it divides by.

    Spreading over these edges alone, in their original order, gives the same result as over
    every usable edge, bit for bit: nodes further out never send, and each sender's degree
    adds the same strengths in the same order. A Read on a 100 000-node graph crosses a few
    thousand of its 250 000 edges; the waves then cost that, not the whole graph."""
    source = np.asarray(source, dtype=np.int64)
    target = np.asarray(target, dtype=np.int64)
    inside = np.zeros(n_nodes, dtype=bool)
    inside[np.asarray(seeds, dtype=np.int64)] = True
    for _ in range(max(hops - 1, 0)):
        touching = usable & (inside[source] | inside[target])
        inside[source[touching]] = True
        inside[target[touching]] = True
    return np.flatnonzero(usable & (inside[source] | inside[target]))


def co_episode_gainers(
    strong: np.ndarray, pair_node: np.ndarray, pair_episode: np.ndarray
) -> np.ndarray:
    """Which nodes share an episode with *another* strong node (SPEC §5.2 co-episode bonus).

    Inputs: ``strong``, a bool per node index (spread score ≥ the fire threshold);
    ``pair_node``/``pair_episode``, one entry per distinct (node, episode) membership, episode
    as a dense index. Output: a bool per node index. The caller adds the bonus once to the
    non-seeds among them (``activation.apply_co_episode_bonus``'s rule).
    """
    gainers = np.zeros(len(strong), dtype=bool)
    if len(pair_node) == 0:
        return gainers
    pair_node = np.asarray(pair_node, dtype=np.int64)
    pair_episode = np.asarray(pair_episode, dtype=np.int64)
    member_strong = strong[pair_node].astype(np.int64)
    strong_members = np.bincount(pair_episode, weights=member_strong)
    others = strong_members[pair_episode] - member_strong
    gainers[pair_node[others > 0]] = True
    return gainers
