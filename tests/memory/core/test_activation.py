"""Spreading activation, the co-episode bonus and the firing budget (SPEC §5.2)."""

from collections import deque

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.core.activation import (
    Activation,
    EdgeView,
    apply_co_episode_bonus,
    select_fired,
    spread,
)


def edge(id_: int, source: int, target: int, strength: float, relation: str = "KNOWS"):
    return EdgeView(id=id_, source=source, target=target, relation=relation, strength=strength)


def score(acts, node):
    return acts[node].score


# --- spreading -----------------------------------------------------------------


def test_hub_passes_activation_in_proportion_to_edge_strength():
    # Seed 1 has edges of strength 60, 30, 10 (Σ = 100) to leaf nodes 2, 3, 4.
    edges = [edge(1, 1, 2, 60), edge(2, 1, 3, 30), edge(3, 1, 4, 10)]
    acts, crossed = spread([1], edges)
    assert score(acts, 2) == pytest.approx(0.36)  # 1.0 · 60/100 · 0.6
    assert score(acts, 3) == pytest.approx(0.18)  # 1.0 · 30/100 · 0.6
    assert score(acts, 4) == pytest.approx(0.06)  # 1.0 · 10/100 · 0.6
    # Each leaf has one edge, so at hop 2 it sends all it got back, · 0.6:
    # 1 + 0.36·0.6 + 0.18·0.6 + 0.06·0.6 = 1 + 0.216 + 0.108 + 0.036 = 1.36
    assert score(acts, 1) == pytest.approx(1.36)
    assert crossed == [1, 2, 3]


def test_degree_counts_incoming_and_outgoing_edges():
    # Seed 1: outgoing 1→2 (50) and incoming 3→1 (50); Σ = 100 either way.
    acts, _ = spread([1], [edge(1, 1, 2, 50), edge(2, 3, 1, 50)])
    assert score(acts, 2) == pytest.approx(0.3)  # 1.0 · 50/100 · 0.6
    assert acts[2].direction == "forward"  # travelled source → target
    assert score(acts, 3) == pytest.approx(0.3)  # 1.0 · 50/100 · 0.6
    assert acts[3].direction == "reverse"  # travelled target → source
    assert (acts[2].hop, acts[3].hop) == (1, 1)


def test_back_flow_makes_a_seed_score_above_one():
    # §6.4: Trevor -[HAS_BOSS]-> Joshua (100); Trevor has 3 more edges of 100.
    joshua, trevor = 1, 2
    edges = [
        edge(1, trevor, joshua, 100, "HAS_BOSS"),
        edge(2, trevor, 10, 100),
        edge(3, trevor, 11, 100),
        edge(4, trevor, 12, 100),
    ]
    acts, crossed = spread([joshua], edges)
    # hop 1: Joshua (Σ = 100) sends 1.0 · 100/100 · 0.6 = 0.6 to Trevor, against the edge.
    assert score(acts, trevor) == pytest.approx(0.6)
    assert (acts[trevor].direction, acts[trevor].hop) == ("reverse", 1)
    # hop 2: Trevor (Σ = 400) sends 0.6 · 100/400 · 0.6 = 0.09 down each edge,
    # including back to Joshua: 1.0 + 0.09 = 1.09.
    assert score(acts, joshua) == pytest.approx(1.09)
    assert (acts[joshua].direction, acts[joshua].hop) == ("seed", 0)
    assert score(acts, 10) == pytest.approx(0.09)
    assert (acts[10].direction, acts[10].hop) == ("forward", 2)
    assert crossed == [1, 2, 3, 4]


def test_two_hops_and_not_three():
    # Chain a→b→c→d, strength 50 each, seed a.
    a, b, c, d = 1, 2, 3, 4
    acts, crossed = spread([a], [edge(1, a, b, 50), edge(2, b, c, 50), edge(3, c, d, 50)])
    assert score(acts, b) == pytest.approx(0.6)  # 1.0 · 50/50 · 0.6
    assert score(acts, c) == pytest.approx(0.18)  # 0.6 · 50/100 · 0.6
    assert score(acts, a) == pytest.approx(1.18)  # 1.0 + 0.6 · 50/100 · 0.6
    assert d not in acts  # three hops away
    assert crossed == [1, 2]  # c→d never carried anything


def test_contributions_from_two_paths_add():
    # s→a, s→b, a→t, b→t, all 50.
    s, a, b, t = 1, 2, 3, 4
    edges = [edge(1, s, a, 50), edge(2, s, b, 50), edge(3, a, t, 50), edge(4, b, t, 50)]
    acts, _ = spread([s], edges)
    assert score(acts, a) == pytest.approx(0.3)  # 1.0 · 50/100 · 0.6
    # a and b each send 0.3 · 50/100 · 0.6 = 0.09 to t: 0.09 + 0.09 = 0.18
    assert score(acts, t) == pytest.approx(0.18)
    assert acts[t].hop == 2
    assert score(acts, s) == pytest.approx(1.18)  # 1.0 + 0.09 + 0.09 back


def test_seeds_spread_to_each_other_and_keep_direction_seed():
    # Two seeds joined by one edge of 50: each sends 0.6 to the other at hop 1 and
    # passes that 0.6 on at hop 2 (0.6 · 50/50 · 0.6 = 0.36): 1 + 0.6 + 0.36 = 1.96.
    acts, _ = spread([1, 2], [edge(1, 1, 2, 50)])
    assert score(acts, 1) == pytest.approx(1.96)
    assert score(acts, 2) == pytest.approx(1.96)
    assert {acts[1].direction, acts[2].direction} == {"seed"}
    assert acts[1].hop == acts[2].hop == 0


def test_direction_tie_counts_as_forward_and_majority_decides_otherwise():
    # Seeds 1 and 3 both reach node 2: 1→2 (forward) and 2→3 (reverse from 3).
    acts, _ = spread([1, 3], [edge(1, 1, 2, 50), edge(2, 2, 3, 50)])
    assert acts[2].forward_in == pytest.approx(0.6)  # 1.0 · 50/50 · 0.6
    assert acts[2].reverse_in == pytest.approx(0.6)
    assert acts[2].direction == "forward"
    # Weaken the forward path: seed 1 now splits 50/(50+50) toward node 2.
    acts, _ = spread([1, 3], [edge(1, 1, 2, 50), edge(2, 2, 3, 50), edge(3, 1, 9, 50)])
    assert acts[2].forward_in == pytest.approx(0.3)  # 1.0 · 50/100 · 0.6
    assert acts[2].direction == "reverse"


def test_damping_factor_and_hops_are_parameters():
    acts, _ = spread([1], [edge(1, 1, 2, 50), edge(2, 2, 3, 50)], hops=1, factor=0.5)
    assert score(acts, 2) == pytest.approx(0.5)  # 1.0 · 50/50 · 0.5
    assert 3 not in acts and score(acts, 1) == 1.0


def test_zero_strength_edges_carry_nothing():
    acts, crossed = spread([1], [edge(1, 1, 2, 0.0)])
    assert acts == {1: Activation(1, 1.0, "seed", 0)}
    assert crossed == []


def test_a_seed_without_edges_still_scores_one():
    acts, crossed = spread([7], [])
    assert acts[7].score == 1.0 and crossed == []


# A random graph: up to 14 edges over nodes 0..9, strengths 0..100.
graphs = st.lists(
    st.tuples(
        st.integers(0, 9),
        st.integers(0, 9),
        # 0 (conducts nothing) or a realistic strength; subnormal floats would
        # underflow to 0 after two divisions and blur the hop check below.
        st.one_of(st.just(0.0), st.floats(min_value=0.5, max_value=100)),
    ),
    max_size=14,
)


@given(graphs, st.sets(st.integers(0, 9), max_size=3))
def test_spread_never_reaches_beyond_two_hops_or_goes_negative(raw_edges, seeds):
    edges = [edge(i, s, t, w) for i, (s, t, w) in enumerate(raw_edges) if s != t]
    acts, crossed = spread(seeds, edges)
    # Undirected BFS distance from the seeds along edges that can carry anything.
    neighbours: dict[int, set[int]] = {}
    for e in edges:
        if e.strength > 0:
            neighbours.setdefault(e.source, set()).add(e.target)
            neighbours.setdefault(e.target, set()).add(e.source)
    dist = dict.fromkeys(seeds, 0)
    queue = deque(seeds)
    while queue:
        node = queue.popleft()
        for other in neighbours.get(node, ()):
            if other not in dist:
                dist[other] = dist[node] + 1
                queue.append(other)
    for node, act in acts.items():
        assert dist.get(node, 99) <= 2
        assert act.score >= 0
        assert act.hop == dist[node] or act.direction == "seed"
    assert crossed == sorted(set(crossed))
    assert set(crossed) <= {e.id for e in edges}


# --- co-episode bonus -----------------------------------------------------------


def act(node, score_, direction="forward", hop=1):
    return Activation(node_id=node, score=score_, direction=direction, hop=hop)


def test_co_episode_bonus_lifts_non_seeds_once_and_lets_unreached_nodes_enter():
    acts = {
        1: act(1, 1.0, "seed", 0),  # strong partner
        2: act(2, 0.20),  # shares e1 and e2 with node 1
        3: act(3, 0.50, "seed", 0),  # a seed: exempt
        4: act(4, 0.10, "reverse", 2),  # shares nothing with a strong node
    }
    episodes = {1: [10, 11], 2: [10, 11], 3: [10], 4: [12], 5: [11]}
    out = apply_co_episode_bonus(acts, episodes)
    assert out[2].score == pytest.approx(0.35)  # 0.20 + 0.15, once despite two episodes
    assert out[2].bonus == 0.15 and out[2].direction == "forward"
    assert out[1].score == 1.0 and out[3].score == 0.5  # seeds exempt
    assert out[4].score == 0.10  # no strong partner in episode 12
    # Node 5 was not reached: it enters with 0.15, forward, hop 1.
    assert (out[5].score, out[5].direction, out[5].hop) == (0.15, "forward", 1)
    assert acts[2].score == 0.20  # the input is not mutated


def test_co_episode_bonus_needs_another_strong_node():
    # Node 2 scores 0.5 but is alone in its episode: its own score does not count.
    out = apply_co_episode_bonus({2: act(2, 0.5)}, {2: [10]})
    assert out[2].score == 0.5


def test_co_episode_bonus_does_not_cascade():
    # Node 2 (0.25) gains 0.15 → 0.40 through seed 1; node 3 only shares episode 20
    # with node 2, whose score *after spreading* was below 0.30, so node 3 gets nothing.
    acts = {1: act(1, 1.0, "seed", 0), 2: act(2, 0.25)}
    out = apply_co_episode_bonus(acts, {1: [10], 2: [10, 20], 3: [20]})
    assert out[2].score == pytest.approx(0.40)
    assert 3 not in out


def test_co_episode_threshold_is_inclusive():
    # 0.30 qualifies as a partner (≥), 0.29 does not.
    assert 5 in apply_co_episode_bonus({1: act(1, 0.30)}, {1: [1], 5: [1]})
    assert 5 not in apply_co_episode_bonus({1: act(1, 0.29)}, {1: [1], 5: [1]})


# --- firing ---------------------------------------------------------------------


def test_threshold_decides_who_fires():
    fired = select_fired({1: act(1, 0.30), 2: act(2, 0.29), 3: act(3, 1.0, "seed", 0)})
    assert [a.node_id for a in fired] == [3, 1]


def test_budget_splits_six_forward_or_seed_and_two_reverse():
    # Forward 0.90, 0.85, … 0.50 (nodes 1–9) and reverse 0.40, 0.35, 0.33 (nodes 21–23):
    # round(8 · 0.7) = 6 forward slots, 2 reverse slots.
    acts = {i: act(i, 0.95 - 0.05 * i) for i in range(1, 10)}
    acts[1].direction = "seed"
    acts.update(
        {21: act(21, 0.40, "reverse"), 22: act(22, 0.35, "reverse"), 23: act(23, 0.33, "reverse")}
    )
    fired = select_fired(acts)
    assert [a.node_id for a in fired] == [1, 2, 3, 4, 5, 6, 21, 22]


def test_reverse_nodes_backfill_unused_forward_slots():
    # 2 forward-or-seed nodes fill 2 of 6 slots; 6 reverse nodes take 2 + 4 spare.
    acts = {1: act(1, 1.0, "seed", 0), 2: act(2, 0.5)}
    acts.update({10 + i: act(10 + i, 0.9 - 0.05 * i, "reverse") for i in range(7)})
    fired = select_fired(acts)
    assert len(fired) == 8
    assert sorted(a.node_id for a in fired) == [1, 2, 10, 11, 12, 13, 14, 15]


def test_forward_nodes_backfill_unused_reverse_slots():
    # 10 forward nodes, 1 reverse: 6 + 1 spare reverse slot → 7 forward + 1 reverse.
    acts = {i: act(i, 0.9 - 0.01 * i) for i in range(10)}
    acts[50] = act(50, 0.31, "reverse")
    fired = select_fired(acts)
    assert sorted(a.node_id for a in fired) == [0, 1, 2, 3, 4, 5, 6, 50]


def test_fired_order_is_score_then_node_id():
    fired = select_fired({5: act(5, 0.5), 3: act(3, 0.5), 4: act(4, 0.7, "reverse")})
    assert [a.node_id for a in fired] == [4, 3, 5]


def test_budget_ties_go_to_the_lower_node_id():
    acts = {i: act(i, 0.5) for i in range(10, 0, -1)}
    assert [a.node_id for a in select_fired(acts)] == [1, 2, 3, 4, 5, 6, 7, 8]


def test_zero_budget_fires_nothing():
    assert select_fired({1: act(1, 1.0, "seed", 0)}, budget=0) == []
