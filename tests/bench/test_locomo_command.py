"""``manage.py bench_locomo`` end to end on the bundled sample: the real Write path (offline spaCy
extraction, decay between sessions), the real Read and sentence model, the exact JSON shape."""

import json
from collections import Counter
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from chat.models import Message
from memory.models import Episode, ExtractionStatus

SAMPLE = Path(__file__).resolve().parents[2] / "bench" / "fixtures" / "locomo_sample.json"
SYSTEM = {"recall", "tokens", "p50_ms", "p95_ms"}
SYSTEMS = [
    "pegasus",
    "bm25@5",
    "bm25@10",
    "bm25@match",
    "dense@5",
    "dense@10",
    "dense@match",
    "hybrid@match",
    "bm25-sentences@match",
    "hybrid-sentences@match",
    "full_context",
]

pytestmark = pytest.mark.django_db


def test_json_output_has_exactly_the_documented_shape_and_cleans_up(settings, alice):
    settings.ANTHROPIC_API_KEY = "sk-test-not-used"  # --extractor offline hides it for the run
    out, err = StringIO(), StringIO()

    call_command(
        "bench_locomo",
        str(SAMPLE),
        "--samples",
        "1",
        "--budget",
        "100",
        "--json",
        stdout=out,
        stderr=err,
    )

    result = json.loads(out.getvalue())
    assert list(result) == ["systems", "by_category", "questions", "skipped_evidence", "graph"]
    graph = result["graph"]
    assert list(graph) == [
        "coverage",
        "evidence_turns",
        "nodes_per_100_turns",
        "edges_per_100_turns",
        "person_nodes",
        "suspect_person_nodes",
        "suspect_person_share",
        "timed_evidence_turns",
        "timed_evidence_dated",
        "resolution",
    ]
    resolution = graph["resolution"]
    # Both speakers are named again session after session: later mentions find them stored.
    assert resolution["outcomes"]["matched"] > 0
    assert resolution["entities"] == sum(resolution["outcomes"].values())
    assert (
        resolution["entities"] > resolution["with_candidate"] >= resolution["outcomes"]["matched"]
    )
    assert 0.0 <= resolution["held_share"] <= 1.0
    assert 0.0 < graph["coverage"] <= 1.0 and graph["evidence_turns"] > 0
    assert graph["edges_per_100_turns"] > 0 and graph["person_nodes"] >= 2  # both speakers
    assert isinstance(graph["suspect_person_nodes"], list)
    assert list(result["systems"]) == SYSTEMS
    for name, row in result["systems"].items():
        assert set(row) == ({"tokens"} if name == "full_context" else SYSTEM), name
        assert all(isinstance(value, float | int) and value >= 0 for value in row.values())
    assert list(result["by_category"]) == ["1", "2", "3", "4"]
    assert all(list(table) == SYSTEMS for table in result["by_category"].values())
    # Sample 1: 13 questions in categories 1-4 (two of category 5 are excluded); one
    # evidence id ("D2-8") is malformed.
    assert (result["questions"], result["skipped_evidence"]) == (13, 1)
    systems = result["systems"]
    assert 0.0 <= systems["pegasus"]["recall"] <= 1.0
    assert systems["full_context"]["tokens"] > 5 * systems["pegasus"]["tokens"] > 0
    assert systems["bm25@10"]["tokens"] > systems["bm25@5"]["tokens"]
    assert "questions: 13/13" in err.getvalue()
    # The throwaway account, its turns and episodes are gone; nobody else was touched.
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["alice"]
    assert not Message.objects.exists() and not Episode.objects.exists()


def test_the_replay_extracts_every_session_with_speakers_at_its_date():
    from bench import locomo
    from chat.models import Conversation
    from memory.models import Node

    sample = locomo.load_file(SAMPLE)[1]
    user = locomo.create_user(1)

    outcomes = Counter()
    end = locomo.replay(sample, user=user, outcomes=outcomes)

    conversations = list(Conversation.objects.for_user(user).order_by("started_at"))
    assert [c.started_at.date().isoformat() for c in conversations] == [
        "2023-03-14",
        "2023-04-02",
        "2023-04-21",
    ]
    episodes = [Episode.objects.get(conversation=c) for c in conversations]
    assert [e.status for e in episodes] == [ExtractionStatus.DONE] * 3
    assert [e.extractor for e in episodes] == ["offline-spacy"] * 3
    assert episodes[-1].ended_at == end == conversations[-1].ended_at
    turns = Message.objects.for_user(user).order_by("created_at")
    assert [(m.speaker, m.external_id) for m in turns[:2]] == [
        ("Marcus", "D1:1"),
        ("Elena", "D1:2"),
    ]
    assert turns.count() == len(sample.turns)
    # First person resolved to the speaker: both speakers are people of the graph, and the
    # account holder (nobody in the dialogue) has no self node.
    people = set(Node.objects.for_user(user).filter(kind="PERSON").values_list("name", flat=True))
    assert {"Marcus", "Elena"} <= people
    assert not Node.objects.for_user(user).filter(is_self=True).exists()
    # Every extracted entity was counted once, by what became of it: each PERSON node was new
    # once, and a speaker named again matched the stored node.
    assert outcomes["new"] >= len(people) and outcomes["matched"] > 0
    assert sum(outcomes.values()) >= outcomes["new"] + outcomes["matched"]


def test_a_file_that_is_not_locomo_is_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}')

    with pytest.raises(CommandError, match="a JSON list"):
        call_command("bench_locomo", str(bad))


def test_the_anthropic_extractor_needs_a_key(settings):
    settings.ANTHROPIC_API_KEY = ""

    with pytest.raises(CommandError, match="ANTHROPIC_API_KEY"):
        call_command("bench_locomo", str(SAMPLE), "--extractor", "anthropic")


def _two_sessions(path: Path) -> Path:
    """A sister named in full in one session and by a short form of her name in the next."""
    turn = lambda dia, speaker, text: {"speaker": speaker, "dia_id": dia, "text": text}  # noqa: E731
    sample = {
        "sample_id": "merges-1",
        "conversation": {
            "speaker_a": "Anna",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                turn("D1:1", "Anna", "My sister Melanie Brooks took up painting last month."),
                turn("D1:2", "Ben", "That's great! What does she paint?"),
                turn("D1:3", "Anna", "Mostly landscapes. Melanie Brooks is really patient."),
            ],
            "session_2_date_time": "10:37 am on 27 May, 2023",
            "session_2": [
                turn("D2:1", "Anna", "Mel sold two of her paintings at the fair on Saturday!"),
                turn("D2:2", "Ben", "Wow, tell Mel congratulations from me."),
            ],
        },
        "qa": [
            {
                "question": "What did Anna's sister take up?",
                "answer": "painting",
                "evidence": ["D1:1"],
                "category": 4,
            }
        ],
    }
    path.write_text(json.dumps([sample]))
    return path


def test_merges_writes_every_merge_decision_of_the_replay_by_name(tmp_path):
    out_file = tmp_path / "merges.json"
    err = StringIO()

    call_command(
        "bench_locomo",
        str(_two_sessions(tmp_path / "sample.json")),
        "--budget",
        "100",
        "--merges",
        str(out_file),
        stdout=StringIO(),
        stderr=err,
    )

    written = json.loads(out_file.read_text())
    assert list(written) == ["file", "summary", "decisions"]
    # "Mel" in the second session was merged into the sister stored in the first, and the
    # file says so by name, not by ids of the deleted account.
    mel = [d for d in written["decisions"] if d["proposed"]["name"] == "Mel"]
    assert len(mel) == 1
    assert mel[0] | {"reason": ""} == {
        "sample": "merges-1",
        "status": "merged",
        "rule": "short-form",
        "kind": "PERSON",
        "proposed": {"name": "Mel", "properties": {}},
        "kept": "Melanie Brooks",
        "candidates": [{"name": "Melanie Brooks", "kind": "PERSON"}],
        "reason": "",
    }
    assert "Mel" in mel[0]["reason"]
    # The summary counts the decisions by status and rule.
    assert sum(row["count"] for row in written["summary"]) == len(written["decisions"])
    assert {"status": "merged", "rule": "short-form", "count": 1} in written["summary"]
    assert f"{len(written['decisions'])} merge decisions written to {out_file}" in err.getvalue()
    assert list(get_user_model().objects.values_list("username", flat=True)) == []


def test_merges_into_a_folder_that_does_not_exist_is_refused_before_the_replay(tmp_path):
    with pytest.raises(CommandError, match="no folder"):
        call_command("bench_locomo", str(SAMPLE), "--merges", str(tmp_path / "nope" / "m.json"))
