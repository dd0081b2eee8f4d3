"""The Read's cost and side effects: bounded queries, Traversal logging only, and agreement
with the pure core run on the whole graph (SPEC §3, §5.2; STYLE 8)."""

import random
from datetime import timedelta

import pytest

from chat.models import Conversation
from memory.core.activation import EdgeView, apply_co_episode_bonus, select_fired, spread
from memory.core.decay import is_live, strength_at
from memory.core.injection import LineEdge, context_snippets, memory_lines
from memory.models import (
    Edge,
    EdgeEpisode,
    Episode,
    MemoryKey,
    Node,
    NodeEpisode,
    Snippet,
    Traversal,
)
from memory.services import read
from memory.services.keys import sync_node_keys, sync_relation_keys
from memory.services.read import ReadOptions, recall
from tests.memory.factories import T0

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def spec_read(settings):
    """These tests hold the Read to SPEC §5.1–§5.3 exactly: the "spec" strategy, whatever
    MEMORY_READ_STRATEGY defaults to (other strategies add to it and have their own tests)."""
    settings.MEMORY_READ_STRATEGY = "spec"


NOW = T0
FIRST = [
    "Joshua",
    "Priya",
    "Mateo",
    "Olivia",
    "Kenji",
    "Amara",
    "Lars",
    "Ines",
    "Tomasz",
    "Leila",
    "Dmitri",
    "Sofia",
    "Kwame",
    "Hana",
    "Rafael",
    "Yara",
]
LAST = ["Okafor", "Lindqvist", "Haddad", "Moreau", "Tanaka", "Kowalski", "Alvarez", "Novak"]
RELATIONS = ["KNOWS", "WORKS_WITH", "HAS_FRIEND", "VISITED", "OWNS", "LIKES"]
STABILITIES = ["stable", "mutable", "immutable", "time_bound", "ephemeral"]


def build_graph(user, *, nodes: int, edges: int, hub_degree: int, seed: int = 1):
    """A random graph with a self node linked to ``hub_degree`` others, episodes of ~6 nodes,
    snippets, and a share of dead edges (decayed, expired, dormant, superseded)."""
    rng = random.Random(seed)
    names = [f"{f} {la}" for f in FIRST for la in LAST]
    rng.shuffle(names)
    made = Node.objects.bulk_create(
        Node(
            user=user,
            kind="PERSON",
            name=name,
            normalised_name=name.lower(),
            is_self=(i == 0),
            created_at=NOW,
            updated_at=NOW,
        )
        for i, name in enumerate(names[:nodes])
    )
    sync_node_keys(user_id=user.pk, nodes=made)
    episodes = Episode.objects.bulk_create(
        Episode(user=user, created_at=NOW) for _ in range(max(1, nodes // 6))
    )
    NodeEpisode.objects.bulk_create(
        NodeEpisode(user=user, node=node, episode=rng.choice(episodes)) for node in made
    )
    pairs: set[tuple[int, str, int]] = set()
    hub = made[0]
    for other in rng.sample(made[1:], hub_degree):
        pairs.add((hub.pk, rng.choice(RELATIONS), other.pk))
    while len(pairs) < hub_degree + edges:
        a, b = rng.sample(made, 2)
        pairs.add((a.pk, rng.choice(RELATIONS), b.pk))
    rows = []
    for source, relation, target in sorted(pairs):
        stability = rng.choice(STABILITIES)
        temporary = stability in ("time_bound", "ephemeral")
        rows.append(
            Edge(
                user=user,
                source_id=source,
                relation=relation,
                target_id=target,
                strength_at_touch=rng.uniform(5, 100),
                stability=stability,
                last_touched_at=NOW - timedelta(days=rng.uniform(0, 300)),
                expires_at=NOW + timedelta(days=rng.uniform(-30, 30)) if temporary else None,
                dormant=rng.random() < 0.05,
                created_at=NOW,
            )
        )
    made_edges = Edge.objects.bulk_create(rows)
    # Half the snippets repeat one of five texts, so de-duplication has work to do.
    snippets = Snippet.objects.bulk_create(
        Snippet(
            user=user,
            edge=edge,
            created_at=NOW,
            text=(
                f"note {edge.pk % 5}"
                if rng.random() < 0.5
                else f"snippet {edge.pk} {edge.relation.lower()}"
            ),
        )
        for edge in made_edges
    )
    for edge, snippet in zip(made_edges, snippets, strict=True):
        edge.snippet = snippet
    Edge.objects.bulk_update(made_edges, ["snippet"])
    # Supersede a few: the old edge stays, pointing at a live successor.
    for old, new in zip(made_edges[:6:2], made_edges[1:6:2], strict=True):
        old.superseded_by = new
    Edge.objects.bulk_update(made_edges[:6:2], ["superseded_by"])
    sync_relation_keys(user_id=user.pk)
    return made


def snapshot(user) -> dict:
    return {
        model.__name__: sorted(model.objects.for_user(user).values_list(), key=lambda r: r[0])
        for model in (Node, Edge, Snippet, MemoryKey, NodeEpisode, EdgeEpisode, Episode, Traversal)
    }


def test_a_read_with_a_hub_in_reach_takes_at_most_six_queries(
    alice, django_assert_max_num_queries, settings
):
    # The SPEC §5 Read; the default strategy's passages cost one query more (tested in
    # tests/bench/test_locomo_default_read.py).
    settings.MEMORY_READ_STRATEGY = "spec"
    made = build_graph(alice, nodes=120, edges=200, hub_degree=100)
    hub_edges = [
        e
        for e in Edge.objects.for_user(alice).filter(source=made[0])
        if e.superseded_by_id is None
        and not e.dormant
        and is_live(
            strength_at(e.strength_at_touch, e.stability, e.last_touched_at, NOW),
            stability=e.stability,
            expires_at=e.expires_at,
            now=NOW,
        )
    ]
    neighbour = Node.objects.get(pk=hub_edges[0].target_id)
    message = f"Did {neighbour.name} ever call back?"

    read.clear_key_cache()
    with django_assert_max_num_queries(6):  # cold key cache
        first = recall(user=alice, message=message, now=NOW)
    with django_assert_max_num_queries(6):  # warm
        again = recall(user=alice, message=message, now=NOW)

    assert first.to_dict() | {"timings_ms": None} == again.to_dict() | {"timings_ms": None}
    assert neighbour.name in {s["name"] for s in first.seeds}
    # The hub was reached at hop 1 and sent along every one of its live edges at hop 2.
    assert {e.pk for e in hub_edges} <= set(first.crossed_edges)
    assert len(hub_edges) > 30  # of 100: the rest decayed, expired or were flagged


def test_logging_traversals_adds_one_query(alice, django_assert_max_num_queries, settings):
    settings.MEMORY_READ_STRATEGY = "spec"  # as above
    made = build_graph(alice, nodes=60, edges=80, hub_degree=30)
    conversation = Conversation.objects.create(user=alice, started_at=NOW)
    recall(user=alice, message=made[1].name, now=NOW)  # warm the key cache

    with django_assert_max_num_queries(7):
        record = recall(user=alice, message=made[1].name, now=NOW, conversation=conversation)

    assert record.crossed_edges
    assert Traversal.objects.for_user(alice).get().edge_ids == sorted(record.crossed_edges)


def test_a_read_changes_nothing_but_its_conversations_traversals(alice, bob):
    made = build_graph(alice, nodes=60, edges=80, hub_degree=30)
    build_graph(bob, nodes=20, edges=20, hub_degree=5, seed=2)
    message = f"{made[1].name} and {made[2].name} say hi"
    before, bobs = snapshot(alice), snapshot(bob)

    record = recall(user=alice, message=message, now=NOW)
    assert record.crossed_edges
    assert snapshot(alice) == before

    conversation = Conversation.objects.create(user=alice, started_at=NOW)
    recall(user=alice, message=message, now=NOW, conversation=conversation)
    after = snapshot(alice)
    assert after.pop("Traversal") and before.pop("Traversal") == []
    assert after == before
    assert snapshot(bob) == bobs


def test_crossed_edges_are_logged_as_one_row_per_turn(alice):
    made = build_graph(alice, nodes=40, edges=60, hub_degree=15)
    first = Conversation.objects.create(user=alice, started_at=NOW)
    second = Conversation.objects.create(user=alice, started_at=NOW)
    message = made[1].name

    record = recall(user=alice, message=message, now=NOW, conversation=first)
    later = NOW + timedelta(minutes=1)
    recall(user=alice, message=message, now=later, conversation=first)
    recall(user=alice, message=message, now=NOW + timedelta(minutes=2), conversation=second)

    logged = Traversal.objects.for_user(alice)
    # Each turn is one row of the crossed ids in order; the Write reinforces each edge once
    # per conversation however many turns crossed it (tests/memory/services/test_traversals.py).
    assert list(
        logged.filter(conversation=first)
        .order_by("crossed_at")
        .values_list("crossed_at", "edge_ids")
    ) == [(NOW, record.crossed_edges), (later, record.crossed_edges)]
    assert logged.get(conversation=second).edge_ids == record.crossed_edges
    assert logged.filter(applied_at__isnull=False).count() == 0


def test_an_incognito_conversation_logs_no_traversals(alice):
    made = build_graph(alice, nodes=30, edges=40, hub_degree=10)
    incognito = Conversation.objects.create(user=alice, started_at=NOW, incognito=True)

    record = recall(user=alice, message=made[1].name, now=NOW, conversation=incognito)

    assert record.crossed_edges
    assert not Traversal.objects.exists()


def core_on_whole_graph(user, seed_ids, options: ReadOptions):
    """The reference: every live edge (judged in Python by memory.core.decay) and every
    episode membership of the user, straight into the core."""
    edges, line_edges = [], []
    for e in Edge.objects.for_user(user).select_related("snippet"):
        strength = strength_at(e.strength_at_touch, e.stability, e.last_touched_at, NOW)
        if is_live(
            strength,
            stability=e.stability,
            expires_at=e.expires_at,
            now=NOW,
            dormant=e.dormant,
            superseded=e.superseded_by_id is not None,
        ):
            edges.append(EdgeView(e.pk, e.source_id, e.target_id, e.relation, strength))
            line_edges.append(
                LineEdge(
                    e.pk,
                    e.source_id,
                    e.target_id,
                    e.relation,
                    strength,
                    e.snippet.text if e.snippet else None,
                )
            )
    acts, crossed = spread(seed_ids, edges, hops=options.hops, factor=options.spread_factor)
    episodes: dict[int, list[int]] = {}
    for node_id, episode_id in NodeEpisode.objects.for_user(user).values_list(
        "node_id", "episode_id"
    ):
        episodes.setdefault(node_id, []).append(episode_id)
    acts = apply_co_episode_bonus(
        acts, episodes, threshold=options.fire_threshold, bonus=options.co_episode_bonus
    )
    fired = select_fired(
        acts,
        threshold=options.fire_threshold,
        budget=options.budget,
        forward_share=options.forward_share,
    )
    names = dict(Node.objects.for_user(user).values_list("id", "name"))
    lines = [line for _, line in memory_lines([a.node_id for a in fired], line_edges, names)]
    snippets = context_snippets(
        fired,
        line_edges,
        names,
        threshold=options.context_threshold,
        per_node=options.snippets_per_node,
    )
    return (
        [(a.node_id, round(a.score, 4), a.direction, a.hop) for a in fired],
        crossed,
        lines,
        snippets,
    )


@pytest.mark.parametrize(
    "options",
    [
        ReadOptions(strategy="spec"),
        ReadOptions(strategy="spec", fire_threshold=0.02, budget=12),  # pruning matters
        ReadOptions(strategy="spec", fire_threshold=0.1, co_episode_bonus=0.15),  # bonus fires
    ],
    ids=["spec", "low-threshold", "bonus-fires"],
)
def test_the_service_fires_what_the_core_fires_on_the_whole_graph(alice, options):
    made = build_graph(alice, nodes=100, edges=220, hub_degree=40)
    names = {node.name: node.pk for node in made}
    rng = random.Random(5)
    for _ in range(6):
        message = " and ".join(node.name for node in rng.sample(made, 3))
        record = recall(user=alice, message=message, now=NOW, options=options)
        seed_ids = [names[s["name"]] for s in record.seeds]
        assert seed_ids, message

        fired, crossed, lines, snippets = core_on_whole_graph(alice, seed_ids, options)

        assert [(f["id"], f["score"], f["direction"], f["hop"]) for f in record.fired] == fired
        assert record.crossed_edges == crossed
        assert record.memory_lines == lines
        assert record.context_snippets == snippets
