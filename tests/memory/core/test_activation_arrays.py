"""The vectorised spreading (memory.core.activation_arrays) against the reference dict version
(memory.core.activation) on random graphs: same nodes, scores, hops, directions, crossed edges,
and the same co-episode gainers."""

import math
import random

import numpy as np
import pytest

from memory.core.activation import FACTOR, EdgeView, apply_co_episode_bonus, spread
from memory.core.activation_arrays import co_episode_gainers, neighbourhood, spread_arrays


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


@pytest.mark.parametrize("seed", range(25))
def test_spreading_over_the_seeds_neighbourhood_alone_gives_the_same_result(seed):
    rng = random.Random(1000 + seed)
    n = rng.randint(5, 300)
    edges = random_graph(rng, n, rng.randint(0, 4 * n))
    source = np.array([e.source for e in edges], dtype=np.int64)
    target = np.array([e.target for e in edges], dtype=np.int64)
    strength = np.array([e.strength for e in edges])
    usable = np.array([rng.random() < 0.8 for _ in edges], dtype=bool)
    seeds = np.array(rng.sample(range(n), rng.randint(1, 3)), dtype=np.int64)
    hops = rng.choice([1, 2, 2, 3])

    whole = np.flatnonzero(usable)
    near = neighbourhood(n, seeds, source, target, usable, hops=hops)
    full = spread_arrays(n, seeds, source[whole], target[whole], strength[whole], hops=hops)
    part = spread_arrays(n, seeds, source[near], target[near], strength[near], hops=hops)

    assert set(near.tolist()) <= set(whole.tolist())
    for field in ("score", "forward_in", "reverse_in", "hop", "seed"):
        assert np.array_equal(getattr(full, field), getattr(part, field)), field  # bit for bit
    assert whole[full.crossed].tolist() == near[part.crossed].tolist()
    # And it is a real cut: on sparse graphs with few seeds, far edges are left out.
    if hops == 1:
        assert all(usable[i] and (source[i] in seeds or target[i] in seeds) for i in near)


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


def test_the_neighbourhood_of_two_hops_on_a_chain_is_its_first_two_links():
    # 0 - 1 - 2 - 3 - 4 …: node 1 sends at hop 2, so its every edge counts; node 2 never sends.
    source = np.arange(0, 9)
    target = np.arange(1, 10)
    usable = np.ones(9, dtype=bool)
    assert neighbourhood(10, np.array([0]), source, target, usable, hops=2).tolist() == [0, 1]
    assert neighbourhood(10, np.array([4]), source, target, usable, hops=1).tolist() == [3, 4]
    usable[1] = False  # a dormant link cuts the way
    assert neighbourhood(10, np.array([0]), source, target, usable, hops=3).tolist() == [0]


@pytest.mark.parametrize("seed", range(10))
def test_waves_over_the_touched_nodes_alone_give_the_same_bits(seed):
    """A few edges of a large graph: ``spread_arrays`` renumbers the nodes they touch; the
    waves over the whole node range give exactly the same arrays."""
    from memory.core.activation_arrays import _spread

    rng = random.Random(3000 + seed)
    n = 5000
    edges = random_graph(rng, 200, rng.randint(1, 300))  # all within the first 200 nodes
    source = np.array([e.source for e in edges], dtype=np.int64) * 17 % n  # spread out
    target = np.array([e.target for e in edges], dtype=np.int64) * 17 % n
    strength = np.array([e.strength for e in edges])
    seeds = np.array(rng.sample(sorted(set(source.tolist())), 3), dtype=np.int64)
    initial = np.array([rng.uniform(0.3, 1.0) for _ in seeds])
    hops = rng.choice([1, 2, 3])

    compacted = spread_arrays(n, seeds, source, target, strength, hops=hops, initial=initial)
    dense = _spread(n, seeds, source, target, strength, hops=hops, factor=FACTOR, initial=initial)
    for field in ("score", "forward_in", "reverse_in", "hop", "seed", "crossed"):
        got, want = getattr(compacted, field), getattr(dense, field)
        assert got.dtype == want.dtype and np.array_equal(got, want), field
    assert compacted.reached.sum() > len(seeds) or not compacted.crossed.any()
