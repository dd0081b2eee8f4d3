"""The vectorised spreading (memory.core.activation_arrays) against the reference dict version
(memory.core.activation) on random graphs: same nodes, scores, hops, directions, crossed edges,
and the same co-episode gainers."""

import math
import random

import numpy as np
import pytest

from memory.core.activation import EdgeView, apply_co_episode_bonus, spread
from memory.core.activation_arrays import co_episode_gainers, spread_arrays


def random_graph(rng: random.Random, n: int, m: int) -> list[EdgeView]:
    edges = []
    for edge_id in range(1, m + 1):
        a, b = rng.randrange(n), rng.randrange(n)
        strength = rng.choice([rng.uniform(0, 100), 100.0, 50.0, 0.0])
        edges.append(EdgeView(edge_id, a, b, "KNOWS", strength))
    return edges


def run_both(n, edges, seeds, hops=2, factor=0.6):
    acts, crossed = spread(seeds, edges, hops=hops, factor=factor)
    arrays = spread_arrays(
        n,
        np.array(seeds, dtype=np.int64),
        np.array([e.source for e in edges], dtype=np.int64),
        np.array([e.target for e in edges], dtype=np.int64),
        np.array([e.strength for e in edges]),
        hops=hops,
        factor=factor,
    )
    return acts, crossed, arrays


@pytest.mark.parametrize("seed", range(25))
def test_arrays_agree_with_the_reference_on_random_graphs(seed):
    rng = random.Random(seed)
    n = rng.randint(5, 120)
    edges = random_graph(rng, n, rng.randint(0, 4 * n))
    seeds = rng.sample(range(n), rng.randint(1, max(1, n // 5)))
    hops = rng.choice([1, 2, 2, 3])

    acts, crossed, arrays = run_both(n, edges, seeds, hops=hops)

    assert set(np.flatnonzero(arrays.reached).tolist()) == set(acts)
    for node, act in acts.items():
        assert arrays.score[node] == pytest.approx(act.score, rel=1e-12, abs=1e-15)
        assert arrays.hop[node] == act.hop
        if act.direction == "seed":
            assert arrays.seed[node]
        elif not math.isclose(act.forward_in, act.reverse_in, rel_tol=1e-9):
            assert ("forward" if arrays.forward[node] else "reverse") == act.direction
    assert [edges[i].id for i in np.flatnonzero(arrays.crossed)] == crossed


def test_a_hub_with_thousands_of_seeds_agrees_too():
    rng = random.Random(99)
    n = 3000
    edges = [EdgeView(i + 1, 0, i + 1, "KNOWS", rng.uniform(2, 100)) for i in range(n - 1)]
    edges += random_graph(rng, n, 4000)
    edges = [
        EdgeView(i + 1, e.source, e.target, e.relation, e.strength) for i, e in enumerate(edges)
    ]
    seeds = rng.sample(range(n), 1500)

    acts, crossed, arrays = run_both(n, edges, seeds)

    assert set(np.flatnonzero(arrays.reached).tolist()) == set(acts)
    got = arrays.score[list(acts)]
    want = np.array([act.score for act in acts.values()])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert len(crossed) == int(arrays.crossed.sum())


def test_negative_nan_and_self_loop_edges_conduct_nothing():
    edges = [
        EdgeView(1, 0, 1, "A", -5.0),
        EdgeView(2, 0, 2, "A", float("nan")),
        EdgeView(3, 0, 0, "A", 50.0),
        EdgeView(4, 0, 3, "A", 40.0),
    ]

    acts, crossed, arrays = run_both(4, edges, [0])

    assert crossed == [4] and [edges[i].id for i in np.flatnonzero(arrays.crossed)] == [4]
    # Node 3 receives everything node 0 sends: 1.0 · 40/40 · 0.6.
    assert arrays.score[3] == acts[3].score == pytest.approx(0.6)
    assert not arrays.reached[1] and not arrays.reached[2]


def test_two_hops_and_not_three():
    chain = [EdgeView(i + 1, i, i + 1, "NEXT", 100.0) for i in range(4)]

    _, _, arrays = run_both(5, chain, [0], hops=2)

    assert arrays.hop.tolist() == [0, 1, 2, -1, -1]


@pytest.mark.parametrize("seed", range(15))
def test_co_episode_gainers_match_the_reference_bonus(seed):
    rng = random.Random(seed)
    n = rng.randint(3, 60)
    edges = random_graph(rng, n, 2 * n)
    seeds = rng.sample(range(n), rng.randint(1, 4))
    acts, _, arrays = run_both(n, edges, seeds)
    memberships = {
        (rng.randrange(n), rng.randrange(max(1, n // 4))) for _ in range(rng.randint(0, 3 * n))
    }
    node_episodes: dict[int, list[int]] = {}
    for node, episode in sorted(memberships):
        node_episodes.setdefault(node, []).append(episode)

    bonused = apply_co_episode_bonus(acts, node_episodes, threshold=0.3, bonus=0.15)
    pairs = sorted(memberships)
    _, dense = np.unique([e for _, e in pairs], return_inverse=True)
    strong = arrays.reached & (arrays.score >= 0.3)
    gainers = co_episode_gainers(strong, np.array([p for p, _ in pairs], dtype=np.int64), dense)

    expected = {node for node, act in bonused.items() if act.bonus > 0}
    assert set(np.flatnonzero(gainers & ~arrays.seed).tolist()) == expected
