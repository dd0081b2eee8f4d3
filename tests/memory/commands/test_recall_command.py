"""``manage.py recall`` (SPEC §6.3, §6.4) and ``manage.py bench_recall``."""

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from chat.models import Conversation
from memory.models import Edge, Node, Sentence, Traversal
from tests.memory.factories import T0, make_edge, make_node

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def spec_read(settings):
    """These tests hold the Read to SPEC §5.1–§5.3 exactly: the "spec" strategy, whatever
    MEMORY_READ_STRATEGY defaults to (other strategies add to it and have their own tests)."""
    settings.MEMORY_READ_STRATEGY = "spec"


NOW = "2026-01-01T12:00:00+00:00"  # = T0


@pytest.fixture
def graph(alice):
    trevor = make_node(alice, "Trevor", is_self=True)
    joshua = make_node(alice, "Joshua")
    edge = make_edge(alice, trevor, "HAS_BOSS", joshua, snippet="my current boss, Joshua")
    return trevor, joshua, edge


def run(*args) -> str:
    out = io.StringIO()
    call_command("recall", *args, stdout=out)
    return out.getvalue()


def test_json_output_is_the_spec_record(alice, graph):
    trevor, joshua, edge = graph

    data = json.loads(run("How is Joshua?", "--user", "alice", "--now", NOW, "--json"))

    assert list(data) == [
        "words",
        "seeds",
        "fired",
        "memory_lines",
        "context_snippets",
        "crossed_edges",
        "text",
        "timings_ms",
    ]
    assert data["seeds"] == [
        {"name": "Joshua", "kind": "PERSON", "key": "Joshua", "similarity": 1.0}
    ]
    # Trevor gets 1 · 100/100 · 0.6 = 0.6 (reverse) and returns 0.6 · 0.6 = 0.36.
    assert [(f["id"], f["score"], f["direction"], f["hop"]) for f in data["fired"]] == [
        (joshua.pk, 1.36, "seed", 0),
        (trevor.pk, 0.6, "reverse", 1),
    ]
    assert data["memory_lines"] == ["Trevor -[HAS_BOSS]-> Joshua"]
    assert data["crossed_edges"] == [edge.pk]
    assert data["text"].startswith("[MEMORY]\nTrevor -[HAS_BOSS]-> Joshua\n[/MEMORY]")


def test_human_output_shows_every_part_of_the_record(alice, graph):
    text = run("How is Joshua?", "--user", "alice", "--now", NOW)

    assert "words: joshua" in text
    assert "1.0000  Joshua (PERSON)  via key 'Joshua'" in text
    assert "1.3600  seed" in text and "0.6000  reverse" in text
    assert "  Trevor -[HAS_BOSS]-> Joshua" in text
    assert "[Joshua, edge #" in text and '"my current boss, Joshua"' in text
    assert "timings: embed" in text
    assert "  [MEMORY]" in text


def test_recall_is_read_only(alice, graph):
    before = (list(Edge.objects.values_list()), list(Node.objects.values_list()))

    run("joshua", "--user", "alice", "--now", NOW)

    assert (list(Edge.objects.values_list()), list(Node.objects.values_list())) == before
    assert not Traversal.objects.exists()


def test_recall_as_bob_shows_none_of_alices_memory(alice, bob, graph):
    data = json.loads(run("joshua trevor boss", "--user", "bob", "--now", NOW, "--json"))

    assert (data["seeds"], data["fired"], data["text"]) == ([], [], "")


def test_the_time_of_the_read_decides_what_is_live(alice):
    trevor, joshua = make_node(alice, "Trevor", is_self=True), make_node(alice, "Joshua")
    make_edge(alice, trevor, "MEETS", joshua, stability="ephemeral", touched=T0)

    soon = json.loads(run("joshua", "--user", "alice", "--now", NOW, "--json"))
    # Ephemeral: 100 · e^(−0.2 · 30) = 0.25 after 30 days — below 2.0, dormant at read time.
    later = json.loads(run("joshua", "--user", "alice", "--now", "2026-01-31T12:00:00Z", "--json"))

    assert soon["memory_lines"] == ["Trevor -[MEETS]-> Joshua"]
    assert later["memory_lines"] == [] and later["crossed_edges"] == []


def test_unknown_user_is_a_clear_error(graph):
    with pytest.raises(CommandError, match="no account with username 'nobody'"):
        run("joshua", "--user", "nobody")


@pytest.mark.parametrize("bad", ["yesterday", "2026-01-01T12:00:00"])
def test_bad_now_is_a_clear_error(alice, bad):
    with pytest.raises(CommandError, match="--now"):
        run("joshua", "--user", "alice", "--now", bad)


@pytest.mark.slow
def test_bench_recall_measures_and_cleans_up_with_drop(settings):
    out = io.StringIO()
    call_command(
        "bench_recall", "--sizes", "120", "--messages", "5", "--json", "--drop", stdout=out
    )

    result = json.loads(out.getvalue())["results"][0]
    assert result["nodes"] == 120 and result["messages"] == 5
    assert result["edges"] >= 120 * 2 and result["keys"] >= 120
    assert result["queries"]["max"] <= 6
    assert set(result["stages_ms"]) == {"embed", "seed", "spread", "format"}
    assert result["read_ms"]["p50"] <= result["read_ms"]["p99"]
    assert not get_user_model().objects.filter(username__startswith="bench_recall_").exists()
    assert not Node.objects.exists() and not Edge.objects.exists()


def _bench_recall(*args) -> dict:
    out, args = io.StringIO(), ["--sizes", "120", "--messages", "3", "--json", *args]
    call_command("bench_recall", *args, stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())["results"][0]


def _graph_ids() -> set[int]:
    user = get_user_model().objects.get(username="bench_recall_120")
    return set(Node.objects.for_user(user).values_list("id", flat=True))


@pytest.mark.slow
def test_bench_recall_keeps_and_reuses_its_graph_until_told_otherwise(settings):
    first = _bench_recall()
    assert first["setup_s"]["total"] > 0 and first["setup_s"]["distinct_surface_forms"] > 120
    built = _graph_ids()
    assert len(built) == 120  # kept by default

    second = _bench_recall()
    assert second["setup_s"] is None  # reused, not rebuilt
    assert _graph_ids() == built
    assert (second["edges"], second["keys"]) == (first["edges"], first["keys"])
    # Reused Reads run at the build time on the same messages: the same seeds.
    assert second["seeds"] == first["seeds"]

    other_seed = _bench_recall("--seed", "8")
    assert other_seed["setup_s"] is not None
    assert _graph_ids().isdisjoint(built)

    forced = _bench_recall("--seed", "8", "--rebuild", "--drop")
    assert forced["setup_s"] is not None
    assert not get_user_model().objects.filter(username__startswith="bench_recall_").exists()
    assert not Node.objects.exists()


@pytest.mark.slow
def test_bench_recall_history_fills_the_sentence_store_and_times_cold_reads(settings):
    first = _bench_recall("--history", "45", "--cold", "3", "--strategy", "default")
    user = get_user_model().objects.get(username="bench_recall_120")
    # 45 turns in three ended conversations, indexed by the job's own indexer.
    assert first["history"]["turns"] == 45 and first["history"]["built_s"] is not None
    assert first["history"]["sentences"] == Sentence.objects.for_user(user).count() >= 45
    assert Conversation.objects.for_user(user).filter(status="ended").count() == 3
    assert first["first_read"]["reads"] == 3
    assert first["first_read"]["p50_ms"] <= first["first_read"]["max_ms"]
    assert first["queries"]["max"] <= 6 and first["messages"] == 3

    again = _bench_recall("--history", "45", "--cold", "1", "--strategy", "default", "--drop")
    assert again["history"]["built_s"] is None  # the same history is reused
    assert not Sentence.objects.exists() and not Conversation.objects.exists()


def test_bench_recall_refuses_to_run_in_production(settings):
    settings.PRODUCTION = True

    with pytest.raises(CommandError, match="not in production"):
        call_command("bench_recall", "--sizes", "100", stdout=io.StringIO())
