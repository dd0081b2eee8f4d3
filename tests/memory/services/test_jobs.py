"""Extraction jobs (SPEC §3): one per ended conversation, never run twice, never lost."""

import math
from datetime import UTC, datetime, timedelta

import pytest
from django_q.models import OrmQ

from chat.models import Conversation, Message
from memory.core.merge_rules import normalise_name
from memory.models import Edge, Episode, Node, Traversal
from memory.services import jobs, keys
from memory.services.jobs import (
    extract_episode,
    retry_extraction,
    schedule_extraction,
)
from memory.tasks import extract_conversation

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
END = START + timedelta(minutes=40)
NOW = END + timedelta(minutes=1)


def ended_conversation(user, *texts, incognito=False):
    conversation = Conversation.objects.create(
        user=user, started_at=START, status="ended", ended_at=END, incognito=incognito
    )
    for i, text in enumerate(texts):
        Message.objects.create(
            user=user,
            conversation=conversation,
            role="user",
            text=text,
            created_at=START + timedelta(minutes=i * 2),
        )
        Message.objects.create(
            user=user,
            conversation=conversation,
            role="assistant",
            text="I see.",
            created_at=START + timedelta(minutes=i * 2 + 1),
        )
    return conversation


def queued_extractions():
    return [
        q.task["args"]
        for q in OrmQ.objects.all()
        if q.task["func"] == "memory.tasks.extract_conversation"
    ]


def live_lines(user):
    rows = Edge.objects.for_user(user).live().select_related("source", "target")
    return sorted(f"{e.source.name} -[{e.relation}]-> {e.target.name}" for e in rows)


# --- scheduling -------------------------------------------------------------------------------


def test_ending_twice_gives_one_episode_and_one_job(alice, django_capture_on_commit_callbacks):
    conversation = ended_conversation(alice, "My boss Joshua is great.")
    with django_capture_on_commit_callbacks(execute=True):
        first = schedule_extraction(user=alice, conversation=conversation, now=NOW)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        second = schedule_extraction(user=alice, conversation=conversation, now=NOW)

    assert first.pk == second.pk
    assert callbacks == []
    assert Episode.objects.for_user(alice).count() == 1
    assert queued_extractions() == [(first.pk,)]
    task = OrmQ.objects.get().task
    assert task["name"] == f"extract-{first.pk}"
    assert task["ack_failure"] is False  # failures stay queued for re-delivery
    assert (first.status, first.started_at, first.ended_at) == ("pending", START, END)


def test_the_job_is_enqueued_only_after_commit(alice, django_capture_on_commit_callbacks):
    conversation = ended_conversation(alice, "My boss Joshua is great.")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        schedule_extraction(user=alice, conversation=conversation, now=NOW)
    assert len(callbacks) == 1 and queued_extractions() == []


@pytest.mark.parametrize(
    ("incognito", "texts", "reason"),
    [
        (True, ["My boss Joshua is great."], "incognito conversation"),
        (False, [], "no user turns"),
    ],
)
def test_incognito_and_empty_conversations_are_skipped_without_a_job(
    alice,
    django_capture_on_commit_callbacks,
    incognito,
    texts,
    reason,
):
    conversation = ended_conversation(alice, *texts, incognito=incognito)
    with django_capture_on_commit_callbacks(execute=True):
        episode = schedule_extraction(user=alice, conversation=conversation, now=NOW)
    assert (episode.status, episode.last_error) == ("skipped", reason)
    assert queued_extractions() == []
    assert extract_episode(episode_id=episode.pk, now=NOW)[0].status == "skipped"
    assert not Node.objects.for_user(alice).exists()


# --- running ----------------------------------------------------------------------------------


def test_the_offline_extractor_end_to_end_builds_the_graph_and_applies_traversals(alice):
    conversation = ended_conversation(
        alice, "My boss Joshua is great.", "I work at Google.", "I like jazz music."
    )
    # A Read in this conversation crossed an older edge: it is reinforced at the Write.
    me = Node.objects.create(
        user=alice,
        kind="PERSON",
        name="alice",
        normalised_name="alice",
        is_self=True,
        created_at=START,
        updated_at=START,
    )
    anna = Node.objects.create(
        user=alice,
        kind="PERSON",
        name="Anna",
        normalised_name="anna",
        created_at=START,
        updated_at=START,
    )
    crossed = Edge.objects.create(
        user=alice,
        source=me,
        relation="HAS_SISTER",
        target=anna,
        strength_at_touch=50,
        stability="stable",
        last_touched_at=START - timedelta(days=10),
        created_at=START,
    )
    Traversal.objects.create(
        user=alice, conversation=conversation, edge_ids=[crossed.pk], crossed_at=START
    )
    episode = schedule_extraction(user=alice, conversation=conversation, now=NOW)

    done = extract_episode(episode_id=episode.pk, now=NOW)[0]

    assert (done.status, done.attempts, done.extractor) == ("done", 1, "offline-spacy")
    assert done.job_started_at == NOW
    # The real time the job took, on the job's clock (the admin shows it as its duration).
    assert NOW < done.job_finished_at < NOW + timedelta(minutes=5)
    assert done.last_error == ""
    lines = live_lines(alice)
    assert "alice -[HAS_BOSS]-> Joshua" in lines
    assert "alice -[WORKS_AT]-> Google" in lines
    assert any(line.startswith("alice -[LIKES]-> ") for line in lines)
    boss = Edge.objects.for_user(alice).get(relation="HAS_BOSS")
    assert boss.snippet.message.conversation == conversation
    assert boss.snippet.message.text == "My boss Joshua is great."
    assert set(boss.episodes.all()) == {done}
    days = (NOW - crossed.last_touched_at).total_seconds() / 86400  # 10 days 41 minutes
    crossed.refresh_from_db()
    assert crossed.strength_at_touch == pytest.approx(50 * math.exp(-0.005 * days) + 15)
    assert crossed.last_touched_at == NOW
    assert Traversal.objects.get().applied_at == NOW


def test_a_done_episode_is_never_extracted_again(alice):
    conversation = ended_conversation(alice, "My boss Joshua is great.")
    episode = schedule_extraction(user=alice, conversation=conversation, now=NOW)
    extract_episode(episode_id=episode.pk, now=NOW)[0]
    boss = Edge.objects.for_user(alice).get(relation="HAS_BOSS")

    again = extract_episode(episode_id=episode.pk, now=NOW + timedelta(days=5))[0]
    assert extract_conversation(episode.pk) == episode.pk  # the task wrapper, too

    assert (again.status, again.attempts) == ("done", 1)
    boss.refresh_from_db()
    assert boss.last_touched_at == NOW  # not reinforced by a second run
    assert Edge.objects.for_user(alice).count() == 1


def test_a_crash_leaves_the_episode_failed_with_nothing_written_and_a_retry_succeeds(
    alice,
    monkeypatch,
):
    conversation = ended_conversation(alice, "My boss Joshua is great.")
    episode = schedule_extraction(user=alice, conversation=conversation, now=NOW)

    def boom(**kwargs):
        raise RuntimeError("injected crash")

    # Crash injection at the last write of the commit (see test_write_rules for why).
    monkeypatch.setattr(keys, "sync_relation_keys", boom)
    with pytest.raises(RuntimeError, match="injected crash"):
        extract_episode(episode_id=episode.pk, now=NOW)[0]
    episode.refresh_from_db()
    assert (episode.status, episode.attempts) == ("failed", 1)
    assert episode.last_error == "RuntimeError: injected crash"
    assert not Node.objects.for_user(alice).exists()
    assert not Edge.objects.for_user(alice).exists()

    monkeypatch.undo()
    done = extract_episode(episode_id=episode.pk, now=NOW + timedelta(minutes=6))[0]
    assert (done.status, done.attempts) == ("done", 2)
    assert live_lines(alice) == ["alice -[HAS_BOSS]-> Joshua"]


def test_after_three_attempts_it_stays_failed_until_retried(
    alice,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    conversation = ended_conversation(alice, "My boss Joshua is great.")
    episode = schedule_extraction(user=alice, conversation=conversation, now=NOW)
    Episode.objects.filter(pk=episode.pk).update(
        status="failed", attempts=3, last_error="RuntimeError: x"
    )

    assert extract_episode(episode_id=episode.pk, now=NOW)[0].status == "failed"
    assert not Edge.objects.for_user(alice).exists()

    with django_capture_on_commit_callbacks(execute=True):
        retried = retry_extraction(user=alice, episode=episode, now=NOW)
    assert (retried.status, retried.attempts) == ("pending", 0)
    assert queued_extractions() == [(episode.pk,)]
    assert extract_episode(episode_id=episode.pk, now=NOW)[0].status == "done"
    with pytest.raises(ValueError, match="done"):
        retry_extraction(user=alice, episode=episode, now=NOW)


def test_a_running_episode_is_left_alone_until_its_worker_is_presumed_dead(alice):
    conversation = ended_conversation(alice, "My boss Joshua is great.")
    episode = schedule_extraction(user=alice, conversation=conversation, now=NOW)
    # A worker claimed it and was killed before committing.
    assert jobs._claim(episode.pk, NOW)

    busy = extract_episode(episode_id=episode.pk, now=NOW + timedelta(seconds=60))[0]
    assert (busy.status, busy.attempts) == ("running", 1)
    assert not Edge.objects.for_user(alice).exists()
    with pytest.raises(ValueError, match="running"):
        retry_extraction(user=alice, episode=episode, now=NOW + timedelta(seconds=60))

    # Past Q_CLUSTER["timeout"] (300 s) the re-delivered task takes it over.
    later = NOW + timedelta(seconds=301)
    done = extract_episode(episode_id=episode.pk, now=later)[0]
    assert (done.status, done.attempts, done.job_started_at) == ("done", 2, later)
    assert live_lines(alice) == ["alice -[HAS_BOSS]-> Joshua"]


def test_a_worker_that_lost_its_claim_writes_nothing(alice):
    conversation = ended_conversation(alice, "My boss Joshua is great.")
    episode = schedule_extraction(user=alice, conversation=conversation, now=NOW)
    assert jobs._claim(episode.pk, NOW)
    episode = Episode.objects.select_related("user", "conversation").get(pk=episode.pk)
    # Another worker took the stale episode over and finished it meanwhile.
    assert (
        extract_episode(episode_id=episode.pk, now=NOW + timedelta(seconds=400))[0].status == "done"
    )
    edges = Edge.objects.count()
    with pytest.raises(jobs.ClaimLost):
        jobs._extract_and_write(episode, NOW)
    assert Edge.objects.count() == edges


def test_the_task_wrapper_runs_a_pending_episode(alice):
    conversation = ended_conversation(alice, "I work at Google.")
    episode = schedule_extraction(user=alice, conversation=conversation, now=NOW)
    assert extract_conversation(episode.pk) == episode.pk
    episode.refresh_from_db()
    assert episode.status == "done"
    assert extract_conversation(10**9) is None  # a deleted episode is not an error


# --- ownership ----------------------------------------------------------------------------------


def test_bob_cannot_schedule_or_retry_alices_extraction(
    alice, bob, django_capture_on_commit_callbacks
):
    conversation = ended_conversation(alice, "My boss Joshua is great.")
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(ValueError, match="conversation not found"):
            schedule_extraction(user=bob, conversation=conversation, now=NOW)
    assert not Episode.objects.exists() and queued_extractions() == []

    episode = schedule_extraction(user=alice, conversation=conversation, now=NOW, enqueue=False)
    Episode.objects.filter(pk=episode.pk).update(status="failed", attempts=3)
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(ValueError, match="episode not found"):
            retry_extraction(user=bob, episode=episode, now=NOW)
    episode.refresh_from_db()
    assert (episode.status, episode.attempts) == ("failed", 3)
    assert queued_extractions() == []


def test_bobs_extraction_touches_only_bobs_graph(alice, bob):
    joshua = Node.objects.create(
        user=alice,
        kind="PERSON",
        name="Joshua",
        normalised_name=normalise_name("Joshua"),
        created_at=START,
        updated_at=START,
    )
    conversation = ended_conversation(bob, "My boss Joshua is great.")
    episode = schedule_extraction(user=bob, conversation=conversation, now=NOW)
    extract_episode(episode_id=episode.pk, now=NOW)[0]
    assert live_lines(bob) == ["bob -[HAS_BOSS]-> Joshua"]
    assert not Edge.objects.for_user(alice).exists()
    assert Node.objects.for_user(alice).get() == joshua
