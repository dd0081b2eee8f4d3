"""Spreading activation through the Read service on hand-built graphs (SPEC §5.2).

Every graph is seeded by a message that names exactly one node ("joshua" → Joshua, checked
first in each test), so the expected scores follow from the strengths alone; the arithmetic is
written next to each assertion. Edges are touched at NOW, so current strength = stored.
"""

from datetime import timedelta

import pytest

from memory.services.read import ReadOptions, recall
from tests.memory.factories import T0, make_edge, make_episode, make_node

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def spec_read(settings):
    """These tests hold the Read to SPEC §5.1–§5.3 exactly: the "spec" strategy, whatever
    MEMORY_READ_STRATEGY defaults to (other strategies add to it and have their own tests)."""
    settings.MEMORY_READ_STRATEGY = "spec"


NOW = T0


def fired(record) -> dict[str, tuple[float, str, int]]:
    return {f["name"]: (f["score"], f["direction"], f["hop"]) for f in record.fired}


def seed_names(record) -> list[str]:
    return [seed["name"] for seed in record.seeds]


def test_a_seed_divides_its_activation_in_proportion_to_edge_strength(alice):
    joshua = make_node(alice, "Joshua")
    priya, mateo = make_node(alice, "Priya"), make_node(alice, "Mateo")
    guitar = make_node(alice, "guitar", "THING")
    make_edge(alice, joshua, "KNOWS", priya, strength=60)
    make_edge(alice, joshua, "KNOWS", mateo, strength=30)
    make_edge(alice, joshua, "OWNS", guitar, strength=10)

    record = recall(user=alice, message="joshua", now=NOW, options=ReadOptions(fire_threshold=0.01))

    assert seed_names(record) == ["Joshua"]
    # Σ strength of Joshua = 60 + 30 + 10 = 100; contrib = 1.0 · s/100 · 0.6.
    # Each leaf's only edge leads back, so at hop 2 it returns all it got · 0.6:
    # Joshua = 1 + (0.36 + 0.18 + 0.06) · 0.6 = 1.36.
    assert fired(record) == {
        "Joshua": (1.36, "seed", 0),
        "Priya": (0.36, "forward", 1),  # 60/100 · 0.6
        "Mateo": (0.18, "forward", 1),  # 30/100 · 0.6
        "guitar": (0.06, "forward", 1),  # 10/100 · 0.6
    }


def test_degree_counts_incoming_and_outgoing_edges_and_records_both_directions(alice):
    joshua, trevor = make_node(alice, "Joshua"), make_node(alice, "Trevor")
    deloitte = make_node(alice, "Deloitte", "ORG")
    boss = make_edge(alice, trevor, "HAS_BOSS", joshua, strength=50)  # reaches Trevor in reverse
    job = make_edge(alice, joshua, "WORKS_AT", deloitte, strength=50)  # reaches Deloitte forward

    record = recall(user=alice, message="joshua", now=NOW)

    assert seed_names(record) == ["Joshua"]
    # Σ Joshua = 50 (incoming) + 50 (outgoing) = 100 → 0.5 · 0.6 = 0.3 each way.
    # Hop 2: each sends its 0.3 back over its only edge · 0.6 → Joshua = 1 + 2 · 0.18 = 1.36.
    assert fired(record) == {
        "Joshua": (1.36, "seed", 0),
        "Deloitte": (0.3, "forward", 1),
        "Trevor": (0.3, "reverse", 1),
    }
    assert record.crossed_edges == sorted([boss.pk, job.pk])


def test_activation_travels_two_hops_and_not_three(alice):
    joshua, a = make_node(alice, "Joshua"), make_node(alice, "Lisbon", "PLACE")
    b, c = make_node(alice, "kayak", "THING"), make_node(alice, "Reykjavik", "PLACE")
    first = make_edge(alice, joshua, "VISITED", a)
    second = make_edge(alice, a, "KEPT_IN", b)
    third = make_edge(alice, b, "SHIPPED_TO", c)

    record = recall(user=alice, message="joshua", now=NOW, options=ReadOptions(fire_threshold=0.01))

    assert seed_names(record) == ["Joshua"]
    # Hop 1: Lisbon = 1 · 100/100 · 0.6 = 0.6.
    # Hop 2: Lisbon sends 0.6 over Σ 200: to Joshua 0.18 and to kayak 0.18 (forward).
    # Reykjavik would need a third hop.
    assert fired(record) == {
        "Joshua": (1.18, "seed", 0),
        "Lisbon": (0.6, "forward", 1),
        "kayak": (0.18, "forward", 2),
    }
    assert record.crossed_edges == sorted([first.pk, second.pk])
    assert third.pk not in record.crossed_edges


def test_contributions_from_several_paths_add_up_and_direction_follows_the_larger_share(alice):
    joshua, priya = make_node(alice, "Joshua"), make_node(alice, "Priya")
    lisbon = make_node(alice, "Lisbon", "PLACE")
    make_edge(alice, joshua, "KNOWS", priya, strength=50)
    make_edge(alice, lisbon, "HOME_OF", joshua, strength=50)
    make_edge(alice, priya, "VISITED", lisbon, strength=100)

    record = recall(user=alice, message="joshua", now=NOW)

    assert seed_names(record) == ["Joshua"]
    # Hop 1: Priya 0.3 (forward), Lisbon 0.3 (reverse: Lisbon → Joshua crossed backwards).
    # Hop 2: Priya (Σ 150) sends 0.3: to Joshua 0.3·50/150·0.6 = 0.06 and to Lisbon
    # 0.3·100/150·0.6 = 0.12 (forward); Lisbon (Σ 150) sends to Joshua 0.06 (forward) and to
    # Priya 0.12 (reverse). Priya = 0.3 fwd + 0.12 rev = 0.42 → forward;
    # Lisbon = 0.3 rev + 0.12 fwd = 0.42 → reverse; Joshua = 1 + 0.06 + 0.06 = 1.12.
    assert fired(record) == {
        "Joshua": (1.12, "seed", 0),
        "Priya": (0.42, "forward", 1),
        "Lisbon": (0.42, "reverse", 1),
    }


def test_nodes_below_the_fire_threshold_do_not_fire(alice):
    joshua = make_node(alice, "Joshua")
    priya, mateo = make_node(alice, "Priya"), make_node(alice, "Mateo")
    guitar = make_node(alice, "guitar", "THING")
    make_edge(alice, joshua, "KNOWS", priya, strength=50)
    make_edge(alice, joshua, "KNOWS", mateo, strength=45)
    make_edge(alice, joshua, "OWNS", guitar, strength=5)

    record = recall(user=alice, message="joshua", now=NOW)

    # Priya: 50/100 · 0.6 = 0.30 (fires, ≥ 0.30); Mateo: 45/100 · 0.6 = 0.27 (does not);
    # guitar 0.03. Joshua = 1 + (0.30 + 0.27 + 0.03) · 0.6 = 1.36.
    assert fired(record) == {"Joshua": (1.36, "seed", 0), "Priya": (0.3, "forward", 1)}


def test_co_episode_bonus_lifts_a_non_seed_once_and_never_a_seed(alice):
    chat_1, chat_2 = make_episode(alice), make_episode(alice)
    joshua = make_node(alice, "Joshua", episodes=[chat_1])
    priya = make_node(alice, "Priya", episodes=[chat_1, chat_2])
    mateo = make_node(alice, "Mateo", episodes=[chat_1, chat_2])
    make_node(alice, "Reykjavik", "PLACE", episodes=[chat_2])  # never reached
    make_edge(alice, joshua, "KNOWS", priya, strength=70)
    make_edge(alice, joshua, "KNOWS", mateo, strength=30)

    record = recall(user=alice, message="joshua", now=NOW)

    assert seed_names(record) == ["Joshua"]
    # Spread: Priya 70/100 · 0.6 = 0.42 (≥ 0.30: a partner); Mateo 30/100 · 0.6 = 0.18.
    # Joshua = 1 + 0.42 · 0.6 + 0.18 · 0.6 = 1.36, and as a seed gains no bonus.
    # Mateo shares two episodes with Priya but gains +0.15 once: 0.33 ≥ 0.30 → fires.
    # Priya shares chat_1 with Joshua (1.36 ≥ 0.30): 0.42 + 0.15 = 0.57.
    # Reykjavik shares chat_2 with Priya: enters with 0.15 (hop 1), below the threshold.
    assert fired(record) == {
        "Joshua": (1.36, "seed", 0),
        "Priya": (0.57, "forward", 1),
        "Mateo": (0.33, "forward", 1),
    }


def test_without_a_shared_episode_there_is_no_bonus(alice):
    chat_1, chat_2 = make_episode(alice), make_episode(alice)
    joshua = make_node(alice, "Joshua", episodes=[chat_1])
    priya = make_node(alice, "Priya", episodes=[chat_1])
    mateo = make_node(alice, "Mateo", episodes=[chat_2])
    make_edge(alice, joshua, "KNOWS", priya, strength=70)
    make_edge(alice, joshua, "KNOWS", mateo, strength=30)

    record = recall(user=alice, message="joshua", now=NOW)

    # Mateo stays at 0.18 (its episode has no strong node) and does not fire.
    assert fired(record) == {"Joshua": (1.36, "seed", 0), "Priya": (0.57, "forward", 1)}


def _star(user, forward: list[float], reverse: list[float]):
    """Joshua → F1… with the ``forward`` strengths, R1… → Joshua with the ``reverse`` ones."""
    joshua = make_node(user, "Joshua")
    for i, strength in enumerate(forward, start=1):
        make_edge(user, joshua, "KNOWS", make_node(user, f"F{i}", "OTHER"), strength=strength)
    for i, strength in enumerate(reverse, start=1):
        make_edge(user, make_node(user, f"R{i}", "OTHER"), "KNOWS", joshua, strength=strength)


def test_budget_gives_six_slots_to_seed_or_forward_and_two_to_reverse(alice):
    _star(alice, forward=[14, 13, 12, 11, 10, 9, 8], reverse=[9, 8, 6])  # Σ = 100

    record = recall(user=alice, message="joshua", now=NOW, options=ReadOptions(fire_threshold=0.01))

    assert seed_names(record) == ["Joshua"]
    # Each neighbour gets s/100 · 0.6: F1..F7 = .084 .078 .072 .066 .060 .054 .048 (forward),
    # R1..R3 = .054 .048 .036 (reverse). 8 slots: 6 for seed+forward (Joshua, F1..F5), 2 for
    # reverse (R1, R2). F6 (.054) loses to R1 (.054) because it competes on its own side.
    assert [f["name"] for f in record.fired] == ["Joshua", "F1", "F2", "F3", "F4", "F5", "R1", "R2"]
    assert [f["score"] for f in record.fired][1:] == [
        0.084,
        0.078,
        0.072,
        0.066,
        0.06,
        0.054,
        0.048,
    ]


def test_unused_reverse_slots_backfill_with_forward_nodes(alice):
    _star(alice, forward=[14, 13, 12, 11, 10, 9, 8, 7], reverse=[16])  # Σ = 100

    record = recall(user=alice, message="joshua", now=NOW, options=ReadOptions(fire_threshold=0.01))

    # One reverse node (R1: 16/100 · 0.6 = .096) fills one of its two slots; the spare slot
    # goes to the next forward node, F6 (9/100 · 0.6 = .054). F7, F8 stay out.
    names = [f["name"] for f in record.fired]
    assert sorted(names) == sorted(["Joshua", "R1", "F1", "F2", "F3", "F4", "F5", "F6"])
    assert names[:2] == ["Joshua", "R1"]  # highest scores first


def test_dead_edges_neither_conduct_nor_appear_in_the_injection(alice):
    joshua, priya = make_node(alice, "Joshua"), make_node(alice, "Priya")
    lisbon, boston = make_node(alice, "Lisbon", "PLACE"), make_node(alice, "Boston", "PLACE")
    deloitte, mateo = make_node(alice, "Deloitte", "ORG"), make_node(alice, "Mateo")
    guitar = make_node(alice, "guitar", "THING")
    knows = make_edge(alice, joshua, "KNOWS", priya, snippet="Priya is my oldest friend")
    moved = make_edge(alice, joshua, "LIVES_IN", lisbon, snippet="we moved to Lisbon")
    # Superseded (Lisbon replaced Boston), flagged dormant, expired, decayed below 2.0:
    make_edge(alice, joshua, "LIVES_IN", boston, superseded_by=moved, snippet="Boston is home")
    make_edge(alice, joshua, "WORKS_AT", deloitte, dormant=True, snippet="I'm at Deloitte")
    make_edge(
        alice,
        joshua,
        "MEETS",
        mateo,
        stability="time_bound",
        expires_at=NOW - timedelta(days=1),
        snippet="meeting Mateo on Friday",
    )
    make_edge(
        alice,
        joshua,
        "OWNS",
        guitar,
        stability="mutable",
        strength=10,
        touched=NOW - timedelta(days=400),
        snippet="my old guitar",
    )  # 10·e^−8 ≈ 0.003
    # Both ends of this dormant edge fire through live edges; it still must not be a line.
    make_edge(alice, priya, "ADMIRES", joshua, dormant=True, snippet="Priya admires him")

    record = recall(user=alice, message="joshua", now=NOW)

    assert seed_names(record) == ["Joshua"]
    # Only the two live edges count in Joshua's Σ = 200: Priya and Lisbon get 0.3 each (a
    # dead edge in the sum would have cut that share); Joshua = 1 + 2 · 0.3 · 0.6 = 1.36.
    assert fired(record) == {
        "Joshua": (1.36, "seed", 0),
        "Priya": (0.3, "forward", 1),
        "Lisbon": (0.3, "forward", 1),
    }
    assert record.crossed_edges == sorted([knows.pk, moved.pk])
    assert sorted(record.memory_lines) == ["Joshua -[KNOWS]-> Priya", "Joshua -[LIVES_IN]-> Lisbon"]
    assert sorted(s["text"] for s in record.context_snippets) == [
        "Priya is my oldest friend",
        "we moved to Lisbon",
    ]
    for dead in ("Boston", "Deloitte", "Mateo", "guitar", "admires"):
        assert dead not in record.text


def test_an_edge_decays_with_time_between_touch_and_now(alice):
    joshua, priya = make_node(alice, "Joshua"), make_node(alice, "Priya")
    mateo = make_node(alice, "Mateo")
    # Same stored strength; the mutable one was touched 50 days before NOW:
    # 100 · e^(−0.02 · 50) = 100 · e^−1 = 36.788; the immutable one stays 100.
    make_edge(alice, joshua, "KNOWS", priya, stability="immutable")
    make_edge(alice, joshua, "KNOWS", mateo, stability="mutable", touched=NOW - timedelta(days=50))

    record = recall(user=alice, message="joshua", now=NOW)

    # Σ = 136.788 → Priya = 100/136.788 · 0.6 = 0.4386; Mateo = 36.788/136.788 · 0.6 = 0.1614.
    assert fired(record)["Priya"] == (0.4386, "forward", 1)
    assert "Mateo" not in fired(record)
