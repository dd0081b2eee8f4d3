"""Seeding through the Read service with the real sentence model (SPEC §5.1).

The key sets are small and fixed, so the centred scores are reproducible; the tests assert the
behaviour the thresholds are for (a name seeds its node, a relation word seeds both ends of
its live edges, a clear but weak winner passes the margin gate) rather than raw numbers.
"""

import numpy as np
import pytest

from memory import embedding
from memory.core.seeding import centred_scores
from memory.models import MemoryKey, Node
from memory.services.keys import sync_node_keys
from memory.services.read import ReadOptions, recall
from memory.services.read import keys as read_keys
from tests.memory.factories import T0, make_edge, make_node

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def spec_read(settings):
    """These tests hold the Read to SPEC §5.1–§5.3 exactly: the "spec" strategy, whatever
    MEMORY_READ_STRATEGY defaults to (other strategies add to it and have their own tests)."""
    settings.MEMORY_READ_STRATEGY = "spec"


NOW = T0


def seeds(record) -> dict[str, str]:
    return {seed["name"]: seed["key"] for seed in record.seeds}


@pytest.fixture
def work_graph(alice):
    """Trevor -HAS_BOSS-> Joshua -WORKS_AT-> Deloitte; Trevor -LIVES_IN-> Boston."""
    trevor = make_node(alice, "Trevor", is_self=True)
    joshua = make_node(alice, "Joshua")
    deloitte = make_node(alice, "Deloitte", "ORG")
    boston = make_node(alice, "Boston", "PLACE")
    make_edge(alice, trevor, "HAS_BOSS", joshua, snippet="my current boss, Joshua, is great")
    make_edge(alice, joshua, "WORKS_AT", deloitte)
    make_edge(alice, trevor, "LIVES_IN", boston)
    return {"trevor": trevor, "joshua": joshua, "deloitte": deloitte, "boston": boston}


def test_a_name_seeds_only_its_node_once_scores_are_centred(alice, work_graph):
    record = recall(user=alice, message="joshua", now=NOW)

    assert record.words == ["joshua"]
    assert record.seeds == [
        {"name": "Joshua", "kind": "PERSON", "key": "Joshua", "similarity": 1.0}
    ]
    # Why centring matters: names share a large common component, so the raw cosine of
    # "joshua" with "Trevor" sits at the 0.30 threshold (0.33 with sentence-transformers,
    # 0.30 with 8-bit weights); centred on the user's keys it is far below.
    keys = list(MemoryKey.objects.for_user(alice).order_by("pk"))
    matrix = np.array([np.asarray(key.embedding) for key in keys], dtype=np.float32)
    query = embedding.embed(["joshua"])
    trevor = [key.text for key in keys].index("Trevor")
    assert float(query[0] @ matrix[trevor]) >= 0.28
    assert float(centred_scores(query, matrix)[0, trevor]) < 0.15


def test_a_clear_but_weak_winner_passes_the_margin_gate(alice, work_graph):
    # "auditor" reaches no key at the threshold, but its best key, Deloitte, scores ≥ 0.15
    # and beats the runner-up by ≥ 0.15 (centred scores ≈ 0.28–0.31 against ≈ 0.05 with this
    # key set and the default runtime, onnx-int8). The int8 products round differently on
    # CPUs with and without VNNI (0.284 exact, 0.304 on AVX2 without it), so the threshold is
    # raised above that spread: the gate under test is the margin, not where 0.30 falls.
    options = ReadOptions(seed_threshold=0.35)
    record = recall(user=alice, message="auditor", now=NOW, options=options)

    assert seeds(record) == {"Deloitte": "Deloitte"}
    assert 0.15 <= record.seeds[0]["similarity"] < 0.35


def test_a_weak_winner_without_margin_seeds_nothing(alice, work_graph):
    # "consulting": Deloitte ≈ 0.18 is on top, but the runner-up is within 0.15 of it.
    record = recall(user=alice, message="consulting", now=NOW)

    assert record.seeds == [] and record.fired == [] and record.empty


def test_a_relation_word_seeds_both_ends_of_every_live_edge_with_that_label(alice):
    trevor, priya = make_node(alice, "Trevor", is_self=True), make_node(alice, "Priya")
    mateo, lisbon = make_node(alice, "Mateo"), make_node(alice, "Lisbon", "PLACE")
    current = make_edge(alice, trevor, "HAS_PARTNER", priya)
    make_edge(alice, trevor, "HAS_PARTNER", mateo, superseded_by=current)  # history, hidden
    make_edge(alice, trevor, "VISITED", lisbon)

    record = recall(user=alice, message="How is my partner doing?", now=NOW)

    assert record.words == ["partner"]  # "how", "is", "my", "doing" are function words
    assert seeds(record) == {"Trevor": "has partner", "Priya": "has partner"}
    assert "Trevor -[HAS_PARTNER]-> Priya" in record.memory_lines
    assert "Mateo" not in record.text


def test_keys_of_a_relation_without_live_edges_seed_nothing(alice):
    trevor, priya = make_node(alice, "Trevor", is_self=True), make_node(alice, "Priya")
    make_edge(alice, trevor, "HAS_PARTNER", priya, dormant=True)

    record = recall(user=alice, message="partner", now=NOW)

    assert record.seeds == []


def test_aliases_seed_their_node(alice):
    make_node(alice, "Joshua Whitfield", aliases=["Josh"])

    record = recall(user=alice, message="josh", now=NOW)

    assert seeds(record) == {"Joshua Whitfield": "Josh"}


def test_new_keys_are_seen_by_the_next_read(alice, work_graph):
    assert recall(user=alice, message="massachusetts bay", now=NOW).seeds  # fills the cache
    assert not any(
        s["key"] == "Beantown" for s in recall(user=alice, message="beantown", now=NOW).seeds
    )

    boston = work_graph["boston"]
    boston.aliases = ["Beantown"]
    boston.save(update_fields=["aliases"])
    sync_node_keys(user_id=alice.pk, nodes=[boston])

    assert seeds(recall(user=alice, message="beantown", now=NOW)) == {"Boston": "Beantown"}


def test_a_key_moved_to_another_node_seeds_that_node_at_once(alice, work_graph):
    recall(user=alice, message="joshua", now=NOW)  # caches the key matrix
    josh = make_node(alice, "Josh Whitfield")
    # A merge moves keys between nodes in place: same ids, same vectors.
    MemoryKey.objects.for_user(alice).filter(node=work_graph["joshua"]).update(node=josh)

    assert seeds(recall(user=alice, message="joshua", now=NOW)) == {"Josh Whitfield": "Joshua"}


def test_a_key_vector_changed_in_place_is_not_served_from_the_cache(alice, work_graph):
    recall(user=alice, message="joshua", now=NOW)  # caches the key matrix
    # As ``reembed`` with another model would: same rows, new vectors.
    boston_vector = embedding.embed(["Boston"])[0]
    MemoryKey.objects.for_user(alice).filter(text="Joshua").update(embedding=boston_vector)

    assert "Joshua" not in seeds(recall(user=alice, message="joshua", now=NOW))


def test_a_deleted_node_no_longer_seeds(alice, work_graph):
    recall(user=alice, message="deloitte", now=NOW)
    Node.objects.for_user(alice).filter(pk=work_graph["deloitte"].pk).delete()

    assert recall(user=alice, message="deloitte", now=NOW).seeds == []


def test_cached_centring_gives_the_core_scores(alice, work_graph):
    words = ["joshua", "boss", "city", "accountant"]
    vectors = embedding.embed(words)
    keys = list(MemoryKey.objects.for_user(alice).order_by("id").values_list("id", "embedding"))
    expected = centred_scores(vectors, np.array([vector for _, vector in keys]))

    read_keys.clear_key_cache()
    from django.db import connection

    with connection.cursor() as cursor:
        scored = read_keys.score_keys(cursor, alice.pk, vectors)  # fills the cache
        again = read_keys.score_keys(cursor, alice.pk, vectors)  # served from it

    assert list(scored.key_ids) == [key_id for key_id, _ in keys]
    np.testing.assert_allclose(scored.scores, expected, atol=1e-5)
    np.testing.assert_allclose(again.scores, expected, atol=1e-5)


def _people(user, count: int) -> list[Node]:
    firsts = [
        "James",
        "Mary",
        "Robert",
        "Linda",
        "Michael",
        "Sarah",
        "David",
        "Karen",
        "Daniel",
        "Nancy",
        "Priya",
        "Mateo",
        "Olivia",
        "Noah",
        "Hannah",
        "Ethan",
        "Grace",
        "Logan",
    ]
    lasts = [
        "Smith",
        "Garcia",
        "Nguyen",
        "Okafor",
        "Kowalski",
        "Haddad",
        "Yamamoto",
        "Rossi",
        "Fischer",
        "Larsen",
        "Dubois",
        "Silva",
        "Novak",
        "Murphy",
        "Chen",
        "Patel",
    ]
    now = NOW
    nodes = Node.objects.bulk_create(
        Node(
            user=user,
            kind="PERSON",
            name=f"{first} {last}",
            normalised_name=f"{first} {last}".lower(),
            created_at=now,
            updated_at=now,
        )
        for first, last in [(f, la) for f in firsts for la in lasts][:count]
    )
    sync_node_keys(user_id=user.pk, nodes=nodes)
    return nodes


def test_hnsw_preselection_finds_the_same_seeds_as_the_exact_scan(alice, settings):
    people = _people(alice, 280)
    for a, b in zip(people[::2], people[1::2], strict=True):
        make_edge(alice, a, "KNOWS", b)
    for place in ["Lisbon", "Boston", "Kyoto", "Nairobi", "Oslo", "Lima"]:
        make_node(alice, place, "PLACE")
    messages = [
        "Did Priya Okafor call?",
        "grace and logan",
        "Lunch in Kyoto with Noah Chen",
        "smith",
        "who does mateo know",
        "I miss Oslo",
        "Yamamoto's birthday",
    ]
    options = ReadOptions(fire_threshold=0.0, budget=1000)

    read_keys.clear_key_cache()
    settings.EXACT_SCAN_MAX_KEYS = 20000
    exact = [recall(user=alice, message=m, now=NOW, options=options) for m in messages]
    settings.EXACT_SCAN_MAX_KEYS = 50  # ~300 keys: this user now goes through HNSW
    settings.HNSW_CANDIDATES_PER_WORD = 64
    approximate = [recall(user=alice, message=m, now=NOW, options=options) for m in messages]

    assert MemoryKey.objects.for_user(alice).count() > 250
    assert read_keys._cache[read_keys._cache_key(alice.pk)].large  # really went through HNSW
    for e, a in zip(exact, approximate, strict=True):
        assert e.seeds, e.words
        assert {s["name"] for s in a.seeds} == {s["name"] for s in e.seeds}
        for x, y in zip(
            sorted(e.seeds, key=lambda s: s["name"]),
            sorted(a.seeds, key=lambda s: s["name"]),
            strict=True,
        ):
            assert x["similarity"] == pytest.approx(y["similarity"], abs=1e-3)
        assert [f["id"] for f in a.fired] == [f["id"] for f in e.fired]


def test_a_large_users_new_key_seeds_at_once(alice, settings):
    _people(alice, 60)
    read_keys.clear_key_cache()
    settings.EXACT_SCAN_MAX_KEYS = 50
    assert "Zanzibar" not in seeds(recall(user=alice, message="zanzibar", now=NOW))

    make_node(alice, "Zanzibar", "PLACE")

    assert seeds(recall(user=alice, message="zanzibar", now=NOW)) == {"Zanzibar": "Zanzibar"}


def test_a_large_users_mean_follows_the_keys_at_once(alice, settings):
    _people(alice, 60)
    read_keys.clear_key_cache()
    settings.EXACT_SCAN_MAX_KEYS = 50
    recall(user=alice, message="linda", now=NOW)
    before = read_keys._cache[read_keys._cache_key(alice.pk)]
    make_node(alice, "Zanzibar", "PLACE")

    recall(user=alice, message="linda", now=NOW)

    vectors = np.array(MemoryKey.objects.for_user(alice).values_list("embedding", flat=True))
    cached = read_keys._cache[read_keys._cache_key(alice.pk)]
    assert cached.large and cached.version != before.version
    np.testing.assert_allclose(cached.mean, vectors.mean(axis=0), atol=1e-5)
    assert cached.n == len(vectors) == before.n + 1


def test_a_user_shrinking_below_the_hnsw_threshold_goes_back_to_the_exact_scan(alice, settings):
    _people(alice, 60)
    read_keys.clear_key_cache()
    settings.EXACT_SCAN_MAX_KEYS = 50
    assert seeds(recall(user=alice, message="linda", now=NOW))
    assert read_keys._cache[read_keys._cache_key(alice.pk)].large

    settings.EXACT_SCAN_MAX_KEYS = 100  # the decision is taken again
    record = recall(user=alice, message="linda", now=NOW)

    assert not read_keys._cache[read_keys._cache_key(alice.pk)].large
    assert seeds(record) and all(name.startswith("Linda") for name in seeds(record))
