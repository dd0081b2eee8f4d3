"""Seeding: centred scores, the seed gate and key → node resolution (SPEC §5.1)."""

import math
import random

import numpy as np
import pytest

from memory.core.seeding import (
    KeyTarget,
    SeedHit,
    centred_scores,
    resolve_seed_nodes,
    resolve_seed_offers,
    select_seed_keys,
)


def _unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


# An anisotropic toy set: every key shares a large common component (0, 0, 1), as
# sentence-model embeddings do, and differs only by a small offset.
#   k1 = (0.3, 0, 1)/√1.09, k2 = (−0.3, 0, 1)/√1.09, k3 = (0, 0.3, 1)/√1.09
K1, K2, K3 = _unit(0.3, 0, 1), _unit(-0.3, 0, 1), _unit(0, 0.3, 1)
KEYS = np.stack([K1, K2, K3])


def test_raw_cosine_is_high_for_every_key_in_an_anisotropic_set():
    raw = KEYS @ K1
    # k1·k1 = 1; k1·k2 = (−0.09 + 1)/1.09 = 0.83486; k1·k3 = 1/1.09 = 0.91743
    assert raw == pytest.approx([1.0, 0.83486, 0.91743], abs=1e-5)
    assert (raw > 0.30).all()  # raw cosine would seed everything


def test_mean_centring_separates_keys_that_raw_cosine_cannot():
    scores = centred_scores(K1[None, :], KEYS)
    # μ = (0, 0.3, 3)/(3√1.09). Centred: k1−μ ∝ (3, −1, 0), k2−μ ∝ (−3, −1, 0),
    # k3−μ ∝ (0, 1, 0). The query equals k1, so q_c = (3, −1, 0)/√10.
    # scores: k1 = 1; k2 = (−9 + 1)/10 = −0.8; k3 = −1/√10 = −0.31623
    assert scores.shape == (1, 3)
    assert scores[0] == pytest.approx([1.0, -0.8, -1 / math.sqrt(10)], abs=1e-5)


def test_a_single_key_scores_zero_because_it_equals_the_mean():
    # M − μ is the zero vector when there is one key: nothing to distinguish.
    assert centred_scores(np.stack([K1, K2]), K3[None, :]).tolist() == [[0.0], [0.0]]


def test_a_query_equal_to_the_mean_scores_zero_against_every_key():
    mean = KEYS.mean(axis=0)
    assert centred_scores(mean[None, :], KEYS).tolist() == [[0.0, 0.0, 0.0]]


def test_no_keys_or_no_words_give_an_empty_matrix():
    assert centred_scores(K1[None, :], np.zeros((0, 3), np.float32)).shape == (1, 0)
    assert centred_scores(np.zeros((0, 3), np.float32), KEYS).shape == (0, 3)


def test_an_explicit_mean_replaces_the_key_mean():
    # With μ = 0 centring is a no-op: the scores are the raw cosines.
    scores = centred_scores(K1[None, :], KEYS, mean=np.zeros(3, np.float32))
    assert scores[0] == pytest.approx([1.0, 0.83486, 0.91743], abs=1e-5)


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        # Every key ≥ 0.30 seeds, best first; 0.29 does not.
        ([0.30, 0.45, 0.29], [(1, 0.45), (0, 0.30)]),
        # None ≥ 0.30: top 0.25 ≥ 0.15 and 0.25 − 0.05 = 0.20 ≥ 0.15 → the top seeds.
        ([0.05, 0.25, -0.40], [(1, 0.25)]),
        # Top 0.25 but 0.25 − 0.12 = 0.13 < 0.15 → too close to the runner-up.
        ([0.12, 0.25, -0.40], []),
        # Top 0.14 < 0.15 floor → nothing, however clear the margin.
        ([0.14, -0.50, -0.60], []),
        # One key: the missing runner-up counts as 0.0; 0.20 − 0 ≥ 0.15 → seeds.
        ([0.20], [(0, 0.20)]),
        # One key at 0.14: below the floor.
        ([0.14], []),
    ],
)
def test_seed_gate_threshold_then_margin(row, expected):
    hits = select_seed_keys(["w"], np.array([row]))
    assert [(h.key_index, h.similarity) for h in hits] == [
        (k, pytest.approx(s)) for k, s in expected
    ]


def test_seed_hits_follow_word_order_then_score():
    scores = np.array([[0.2, 0.9, 0.5], [0.8, 0.1, 0.1]])
    hits = select_seed_keys(["boss", "denver"], scores)
    assert hits == [
        SeedHit("boss", 1, 0.9),
        SeedHit("boss", 2, 0.5),
        SeedHit("denver", 0, 0.8),
    ]


def test_seed_gate_constants_are_keyword_arguments():
    scores = np.array([[0.25, 0.05]])
    assert select_seed_keys(["w"], scores, threshold=0.2) == [SeedHit("w", 0, 0.25)]
    assert select_seed_keys(["w"], scores, margin_floor=0.3) == []


def test_scores_must_match_the_words():
    with pytest.raises(ValueError):
        select_seed_keys(["a", "b"], np.zeros((1, 3)))


TARGETS = [
    KeyTarget(node_id=1, relation=None),  # 0: "Joshua"
    KeyTarget(node_id=None, relation="HAS_BOSS"),  # 1: "has boss"
    KeyTarget(node_id=99, relation=None),  # 2: a node merged away (stale)
    KeyTarget(node_id=None, relation="LIVED_IN"),  # 3: no live edge left (stale)
    KeyTarget(node_id=6, relation=None),  # 4: "Trevor"
]
RELATION_ENDS = {"HAS_BOSS": [(5, 6), (7, 6)]}
LIVE = {1, 5, 6, 7}


def test_relation_key_seeds_both_ends_of_every_live_edge_with_that_label():
    seeds = resolve_seed_nodes([SeedHit("boss", 1, 0.5)], TARGETS, RELATION_ENDS, LIVE)
    assert sorted(seeds) == [5, 6, 7]
    assert all(hit == SeedHit("boss", 1, 0.5) for hit in seeds.values())


def test_stale_keys_are_ignored():
    hits = [SeedHit("old", 2, 0.9), SeedHit("moved", 3, 0.8), SeedHit("joshua", 0, 0.7)]
    assert resolve_seed_nodes(hits, TARGETS, RELATION_ENDS, LIVE) == {1: SeedHit("joshua", 0, 0.7)}


def test_a_node_seeded_twice_keeps_its_best_hit():
    # Node 6 is an end of HAS_BOSS (0.5) and has its own key (0.6): 0.6 wins.
    hits = [SeedHit("boss", 1, 0.5), SeedHit("trevor", 4, 0.6)]
    seeds = resolve_seed_nodes(hits, TARGETS, RELATION_ENDS, LIVE)
    assert seeds[6] == SeedHit("trevor", 4, 0.6)
    assert seeds[5] == SeedHit("boss", 1, 0.5)


def test_relation_ends_outside_the_live_nodes_are_skipped():
    seeds = resolve_seed_nodes([SeedHit("boss", 1, 0.5)], TARGETS, RELATION_ENDS, {5, 6})
    assert sorted(seeds) == [5, 6]


@pytest.mark.parametrize("seed", range(20))
def test_resolve_seed_offers_agrees_with_resolve_seed_nodes(seed):
    rng = random.Random(seed)
    n_nodes = rng.randint(1, 40)
    live = set(rng.sample(range(n_nodes), rng.randint(1, n_nodes)))
    labels = ["KNOWS", "WORKS_AT", "LIKES"]
    relation_ends = {
        label: [(rng.randrange(n_nodes), rng.randrange(n_nodes)) for _ in range(rng.randint(0, 15))]
        for label in labels
    }
    relation_ends = {
        label: [(a, b) for a, b in ends if a in live and b in live]
        for label, ends in relation_ends.items()
    }
    targets, hits, offers = [], [], []
    for i in range(rng.randint(0, 12)):
        similarity = rng.choice([0.3, 0.5, 0.5, rng.uniform(0.3, 1.0)])
        if rng.random() < 0.5:
            node = rng.randrange(n_nodes)
            targets.append(KeyTarget(node, None))
            offers.append([node] if node in live else [])
        else:
            label = rng.choice(labels)
            targets.append(KeyTarget(None, label))
            offers.append([end for pair in relation_ends[label] for end in pair])
        hits.append(SeedHit("w", i, similarity))

    expected = resolve_seed_nodes(hits, targets, relation_ends, live)
    nodes, chosen = resolve_seed_offers([h.similarity for h in hits], offers)

    assert nodes.tolist() == list(expected)
    assert [hits[i] for i in chosen.tolist()] == list(expected.values())
