"""``manage.py write_batch`` and ``manage.py extract`` (SPEC §6.2, §6.3)."""

import json
from datetime import UTC, datetime, timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django_q.models import OrmQ

from chat.models import Conversation, Message
from memory import embedding
from memory.core.merge_rules import normalise_name
from memory.models import Edge, Episode, Node
from tests.memory.factories import HashEncoder

pytestmark = pytest.mark.django_db

BATCHES = Path(__file__).resolve().parents[1] / "fixtures" / "batches"
NOW = "2026-03-01T12:00:00+00:00"


@pytest.fixture(autouse=True)
def stand_in_encoder():
    with embedding.use_encoder(HashEncoder()):
        yield


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def live_lines(user):
    rows = Edge.objects.for_user(user).live().select_related("source", "target")
    return sorted(f"{e.source.name} -[{e.relation}]-> {e.target.name}" for e in rows)


# --- write_batch --------------------------------------------------------------------------------


def test_write_batch_prints_what_was_added_merged_held_and_dropped(alice):
    Node.objects.create(
        user=alice,
        kind="PERSON",
        name="William",
        normalised_name="william",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        updated_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    run("write_batch", str(BATCHES / "bill.json"), "--user", "alice", "--now", NOW)
    output = run("write_batch", str(BATCHES / "dirty.json"), "--user", "alice", "--now", NOW)

    assert "added nodes: 2" in output  # Joshua and the provisional Zanzibar Cafe
    assert "  alice -[VISITED]-> Zanzibar Cafe" in output
    assert "provisional: 1\n  Zanzibar Cafe" in output
    assert "  relation user -[has boss!!]-> a: malformed relation label" in output
    assert "  relation Nobody Known -[KNOWS]-> Somebody Else: both ends unknown" in output
    assert "held for review: 0" in output

    merged = run("write_batch", str(BATCHES / "bill.json"), "--user", "alice", "--now", NOW)
    assert "reinforced: 1\n  alice -[HAS_FRIEND]-> William" in merged


def test_write_batch_json_prints_the_summary(alice):
    output = run(
        "write_batch", str(BATCHES / "placeholders.json"), "--user", "alice", "--now", NOW, "--json"
    )
    data = json.loads(output)
    assert data["added"]["edges"] == [
        "alice -[HAS_BOSS]-> Joshua",
        "alice -[WORKS_AT]-> Acme",
        "alice -[LIKES]-> hiking",
    ]
    episode = Episode.objects.for_user(alice).get()
    assert data["episode"] == episode.pk
    assert episode.created_at == datetime(2026, 3, 1, 12, tzinfo=UTC)
    edge = Edge.objects.for_user(alice).get(relation="HAS_BOSS")
    assert edge.last_touched_at == datetime(2026, 3, 1, 12, tzinfo=UTC)


def test_write_batch_refuses_bad_input_and_writes_nothing(alice, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "pegasus-batch/1", "relations": {}}')
    with pytest.raises(
        CommandError, match="'relations' must be a list, got dict; nothing was written"
    ):
        run("write_batch", str(bad), "--user", "alice")
    bad.write_text("{nope")
    with pytest.raises(CommandError, match="not valid JSON"):
        run("write_batch", str(bad), "--user", "alice")
    with pytest.raises(CommandError, match="cannot read"):
        run("write_batch", str(tmp_path / "missing.json"), "--user", "alice")
    with pytest.raises(CommandError, match="no account"):
        run("write_batch", str(BATCHES / "bill.json"), "--user", "nobody")
    with pytest.raises(CommandError, match="UTC offset"):
        run(
            "write_batch",
            str(BATCHES / "bill.json"),
            "--user",
            "alice",
            "--now",
            "2026-03-01T12:00:00",
        )
    assert not Episode.objects.exists() and not Node.objects.exists()


def test_write_batch_for_bob_never_touches_alices_graph(alice, bob):
    run("write_batch", str(BATCHES / "placeholders.json"), "--user", "alice", "--now", NOW)
    before = live_lines(alice)
    run(
        "write_batch",
        str(BATCHES / "reobserve_boss.json"),
        "--user",
        "bob",
        "--now",
        "2026-03-05T12:00:00+00:00",
    )
    assert live_lines(alice) == before
    assert Edge.objects.for_user(alice).get(relation="HAS_BOSS").last_touched_at == datetime(
        2026, 3, 1, 12, tzinfo=UTC
    )
    assert live_lines(bob) == ["bob -[HAS_BOSS]-> Joshua"]


# --- extract ------------------------------------------------------------------------------------


def ended(user, *texts, incognito=False):
    start = datetime(2026, 3, 1, 9, tzinfo=UTC)
    conversation = Conversation.objects.create(
        user=user,
        started_at=start,
        status="ended",
        ended_at=start + timedelta(minutes=30),
        incognito=incognito,
    )
    for i, text in enumerate(texts):
        Message.objects.create(
            user=user,
            conversation=conversation,
            role="user",
            text=text,
            created_at=start + timedelta(minutes=i),
        )
    return conversation


def test_extract_sync_runs_once_and_force_runs_the_write_again(alice):
    conversation = ended(alice, "My boss Joshua is great.")
    output = run("extract", "--conversation", str(conversation.pk), "--sync")
    assert "done (offline-spacy, attempt 1)" in output
    assert "  alice -[HAS_BOSS]-> Joshua" in output
    boss = Edge.objects.for_user(alice).get(relation="HAS_BOSS")
    touched = boss.last_touched_at

    again = run("extract", "--conversation", str(conversation.pk), "--sync")
    assert "already done (use --force to re-run)" in again
    boss.refresh_from_db()
    assert boss.last_touched_at == touched

    forced = run("extract", "--conversation", str(conversation.pk), "--sync", "--force", "--json")
    assert json.loads(forced)["reinforced"] == ["alice -[HAS_BOSS]-> Joshua"]
    assert Edge.objects.for_user(alice).count() == 1
    assert Episode.objects.for_user(alice).count() == 1


def test_extract_without_sync_enqueues(alice, django_capture_on_commit_callbacks):
    conversation = ended(alice, "My boss Joshua is great.")
    with django_capture_on_commit_callbacks(execute=True):
        output = run("extract", "--conversation", str(conversation.pk))
    episode = Episode.objects.for_user(alice).get()
    assert output.strip() == f"episode {episode.pk}: created and enqueued"
    assert [q.task["args"] for q in OrmQ.objects.all()] == [(episode.pk,)]
    assert not Edge.objects.exists()


def test_extract_never_runs_an_incognito_or_open_conversation(alice):
    secret = ended(alice, "My boss Joshua is great.", incognito=True)
    output = run("extract", "--conversation", str(secret.pk), "--sync", "--force")
    assert "skipped (incognito conversation); never extracted" in output
    open_one = Conversation.objects.create(user=alice, started_at=datetime(2026, 3, 1, tzinfo=UTC))
    with pytest.raises(CommandError, match="still open"):
        run("extract", "--conversation", str(open_one.pk), "--sync")
    assert not Edge.objects.exists()


def test_extract_with_bobs_name_cannot_reach_alices_conversation(alice, bob):
    conversation = ended(alice, "My boss Joshua is great.")
    with pytest.raises(CommandError, match=f"no conversation {conversation.pk}"):
        run("extract", "--conversation", str(conversation.pk), "--user", "bob", "--sync")
    assert not Episode.objects.exists() and not Edge.objects.exists()
    assert not Node.objects.filter(normalised_name=normalise_name("Joshua")).exists()
