"""Fault injection (issue 12): kill, stall and break the real processes; lose nothing.

The stack (``tests/reliability/faultkit.py``) is a throwaway PostgreSQL cluster with Daphne
and one django-q2 worker on loopback, both using the fake Anthropic server. Every fault is
injected ``scaled(1, 10)`` times (``PEGASUS_RELIABILITY=full`` for the long run) and
followed by the same checks: every ended conversation extracted exactly once (one done
episode, each edge created once and never re-touched), no duplicate node or edge, no
half-written batch, no lost or duplicated message, a clear error where a turn failed.
Counts go to ``var/reliability/faults.md``.

The first tests pin the fixes these faults called for, in-process against the test
database: each fails without its fix.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from memory.services.keys import Progress
from tests.fakes.anthropic_server import Error, FakeAnthropic, Hang, Reply
from tests.reliability.faultkit import (
    ALIAS,
    CHAT_TIMEOUT,
    EXTRACTION_BUDGET,
    FRIENDS,
    LOCK_NAMESPACE,
    MAX_RETRIES,
    Q_RETRY,
    Chat,
    FakeLLM,
    Report,
    Stack,
    Talk,
    database_problems,
    end_conversations,
    episodes,
    graph_problems,
    make_user,
    malformed,
    message_problems,
    open_conversation,
    session_cookie,
    wait_done,
    wait_for,
)

pytestmark = pytest.mark.slow


# --- the fixes, in-process --------------------------------------------------------------------


def _ended_conversation(user, text="My friend Joshua Bell works at Acme Rocketry."):
    from chat.models import Conversation, Message

    now = timezone.now()
    conversation = Conversation.objects.create(
        user=user, started_at=now, status="ended", ended_at=now
    )
    Message.objects.create(
        user=user, conversation=conversation, role="user", text=text, created_at=now
    )
    return conversation


def test_a_hanging_model_fails_the_extraction_within_its_budget_despite_retries(
    fake_anthropic,
    settings,
):
    """Each SDK attempt gets its share of the budget: with the whole budget per attempt, a
    hang took (retries + 1) x budget and outlived the queue's task timeout."""
    from lib import llm
    from memory.extraction.anthropic import AnthropicExtractor
    from memory.extraction.base import Turn

    settings.ANTHROPIC_EXTRACTION_TIMEOUT = 3.0
    settings.ANTHROPIC_MAX_RETRIES = 2
    fake_anthropic.script([Hang(30)] * 3)
    now = timezone.now()
    started = time.monotonic()
    with pytest.raises(llm.LLMError, match="too long"):
        AnthropicExtractor().extract(
            turns=[Turn("1", "My friend Joshua works at Acme.")], started_at=now, ended_at=now
        )
    took = time.monotonic() - started
    assert len(fake_anthropic.requests) == 3  # the retries still happen
    # 3 s budget + the SDK's backoff between attempts (0.5 s, 1 s); 3 x 3 s without the fix.
    assert took < 3.0 + 1.5 + 1.0, took


def test_a_job_stopped_by_the_queue_timeout_is_marked_failed(db, alice, fake_anthropic):
    """django-q2 stops an overrunning task by raising its TimeoutException (a SystemExit)
    from a SIGALRM handler: the episode records it as a failure instead of staying
    "running" with no error."""
    from django_q.exceptions import TimeoutException
    from django_q.timeout import TimeoutHandler

    from memory.services.jobs import extract_episode, schedule_extraction

    # No content words: the job's Read needs no sentence model, so the signal can only
    # arrive where it is sent below, while the model call is in flight.
    conversation = _ended_conversation(alice, "Hello there, how are you?")
    episode = schedule_extraction(
        user=alice, conversation=conversation, now=timezone.now(), enqueue=False
    )

    def alarm_then_hang(request):
        os.kill(os.getpid(), signal.SIGALRM)  # what the queue's timer does, only sooner
        return Hang(20)

    fake_anthropic.script([alarm_then_hang])
    with pytest.raises(TimeoutException), TimeoutHandler(60):
        extract_episode(episode_id=episode.pk, now=timezone.now())[0]
    episode.refresh_from_db()
    assert episode.status == "failed"
    assert episode.last_error.startswith("TimeoutException: Task exceeded maximum timeout")


def test_a_job_whose_worker_died_on_its_last_attempt_becomes_a_visible_failure(db, alice):
    """A worker killed during the last allowed attempt left the episode "running" forever;
    the next delivery now marks it failed (the admin sees it and can retry)."""
    from memory.models import Episode
    from memory.services.jobs import extract_episode, schedule_extraction

    now = timezone.now()
    episode = schedule_extraction(
        user=alice, conversation=_ended_conversation(alice), now=now, enqueue=False
    )
    Episode.objects.filter(pk=episode.pk).update(
        status="running", attempts=3, job_started_at=now - timedelta(hours=1)
    )
    result = extract_episode(episode_id=episode.pk, now=now)[0]
    assert result.status == "failed"
    assert "stopped" in result.last_error and "3 attempts" in result.last_error
    assert result.job_finished_at == now


def test_a_redelivered_task_of_a_job_still_running_is_not_acknowledged(db, alice):
    """A task re-delivered while its episode is running (not yet presumed dead) must raise,
    so the ORM broker keeps it: acknowledging it lost the job when that worker had died."""
    from memory.services import jobs
    from memory.tasks import extract_conversation

    episode = jobs.schedule_extraction(
        user=alice, conversation=_ended_conversation(alice), now=timezone.now(), enqueue=False
    )
    assert jobs._claim(episode.pk, timezone.now())
    with pytest.raises(jobs.EpisodeBusy):
        extract_conversation(episode.pk)
    episode.refresh_from_db()
    assert (episode.status, episode.attempts, episode.last_error) == ("running", 1, "")


# --- the stack --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def report():
    from django.conf import settings

    collected = Report()
    yield collected
    if collected.rows:
        out = settings.VAR_DIR / "reliability"
        out.mkdir(parents=True, exist_ok=True)
        (out / "faults.md").write_text(collected.table() + "\n")
        print("\n" + collected.table())


@pytest.fixture(scope="module")
def llm():
    return FakeLLM()


@pytest.fixture(scope="module")
def stack(django_db_blocker, llm, report):
    fake = FakeAnthropic(default=llm).start()
    with django_db_blocker.unblock():
        stack = Stack(fake)
        report.timings = stack.timings
        try:
            yield stack.start()
        finally:
            stack.close()
            fake.stop()


@pytest.fixture
def faults(stack, django_db_blocker, llm):
    """The stack, with the test process allowed to query it; checks after every test that
    the fake saw nothing unexpected and no episode was left running."""
    with django_db_blocker.unblock():
        yield stack
        stack.reset_connection()  # a restarted database ended it
        assert llm.unexpected == []
        assert database_problems() == []


def _talks(prefix: str, count: int, rng: random.Random):
    user = make_user(prefix)
    names = rng.sample(FRIENDS, count)
    return user, [Talk(open_conversation(user, friend=name).pk, name) for name in names]


def _ids(talks) -> list[int]:
    return [t.conversation_id for t in talks]


def _runs(found) -> int:
    """Runs the jobs took beyond one each: the killed job's second run, plus any run that
    django-q2's task timeout ended on a loaded machine."""
    return sum(e.attempts - 1 for e in found.values())


def _rounds(report, fault: str, count: int, one_round) -> None:
    """Inject ``fault`` ``count`` times (``one_round()`` returns its problems, a note and
    named measures), recording each in the report, with progress lines for the long run."""
    progress = Progress(print, fault)
    for done in range(1, count + 1):
        started = time.monotonic()
        problems, note, measures = one_round()
        report.record(
            fault, problems=problems, seconds=time.monotonic() - started, note=note, **measures
        )
        assert problems == [], problems
        progress(done, count)


# --- 1. SIGKILL during the LLM call -----------------------------------------------------------


def _kill_during_llm_call(faults, llm, rng):
    user, talks = _talks("kill-llm", 3, rng)
    for talk in talks:
        llm.hang(talk.friend)
    seen = sum(llm.seen[t.friend] for t in talks)  # names recur across rounds
    end_conversations(faults, user, _ids(talks))
    wait_for(
        lambda: sum(llm.seen[t.friend] for t in talks) > seen,
        timeout=30,
        what="an extraction request to hang",
    )
    # Let the worker's pusher take the other jobs off the broker too (1 running, 1 in its
    # queue, 1 in hand), so they are lost with it and the restarted worker warms up first.
    wait_for(
        lambda: not any(available for _, available in faults.queue()),
        timeout=10,
        what="the worker to take every job off the broker",
    )
    faults.kill_worker()
    states = sorted(e.status for e in episodes(_ids(talks)).values())
    assert states == ["pending", "pending", "running"]
    assert graph_problems(user, talks, extracted=False) == []
    for talk in talks:
        llm.release(talk.friend)
    faults.start_worker()
    faults.wait_warm()
    found = wait_done(_ids(talks), timeout=3 * Q_RETRY + 60)
    return graph_problems(user, talks), "each job done once", {"extra runs": _runs(found)}


def test_sigkill_during_the_llm_call_loses_no_job(faults, llm, scaled, report):
    rng = random.Random(1)
    _rounds(
        report,
        "SIGKILL worker during the LLM call (3 jobs queued)",
        scaled(1, 10),
        lambda: _kill_during_llm_call(faults, llm, rng),
    )


# --- 2. SIGKILL while the commit waits ------------------------------------------------------


def _kill_during_commit(faults, rng):
    user, talks = _talks("kill-commit", 3, rng)
    with faults.connect() as lock:
        # The commit takes the user's graph lock after marking the episode done and before
        # writing anything; holding it here stops the job right there, mid-transaction.
        lock.execute("SELECT pg_advisory_lock(%s, %s)", [LOCK_NAMESPACE, user.pk])
        end_conversations(faults, user, _ids(talks))
        wait_for(
            lambda: faults.waiting_for_user_lock(user.pk),
            timeout=30,
            what="the job's commit to wait for the user lock",
        )
        faults.kill_worker()
        lock.execute("SELECT pg_advisory_unlock(%s, %s)", [LOCK_NAMESPACE, user.pk])
    # The dead worker's transaction rolls back: its "done" never became visible.
    wait_for(
        lambda: faults.open_transactions() == 0,
        timeout=10,
        what="the dead worker's transaction to end",
    )
    states = sorted(e.status for e in episodes(_ids(talks)).values())
    assert states == ["pending", "pending", "running"]
    assert graph_problems(user, talks, extracted=False) == []
    faults.start_worker()
    faults.wait_warm()
    found = wait_done(_ids(talks), timeout=3 * Q_RETRY + 60)
    return graph_problems(user, talks), "each job done once", {"extra runs": _runs(found)}


def test_sigkill_while_the_commit_waits_writes_no_half_batch(faults, scaled, report):
    rng = random.Random(2)
    _rounds(
        report,
        "SIGKILL worker while its commit waits (3 jobs queued)",
        scaled(1, 10),
        lambda: _kill_during_commit(faults, rng),
    )


# --- 4. the model misbehaves during extraction ------------------------------------------------


def _overloaded(faults, llm, rng):
    user, talks = _talks("overloaded", 1, rng)
    llm.plan(talks[0].friend, [Error(529), Error(529)])
    end_conversations(faults, user, _ids(talks))
    found = wait_done(_ids(talks), timeout=3 * Q_RETRY + 60)
    # One run absorbs both 529s: the SDK's retries, not the queue's.
    assert (llm.pending(talks[0].friend), found[talks[0].conversation_id].attempts) == (0, 1)
    return graph_problems(user, talks), "absorbed by the SDK's retries in one run", {}


def test_overloaded_twice_then_success_extracts_once(faults, llm, scaled, report):
    rng = random.Random(3)
    _rounds(
        report,
        "LLM 529 overloaded x2, then success (extraction)",
        scaled(1, 10),
        lambda: _overloaded(faults, llm, rng),
    )


def _malformed(faults, llm, rng):
    user, talks = _talks("malformed", 1, rng)
    llm.plan(talks[0].friend, [malformed])
    end_conversations(faults, user, _ids(talks))
    found = wait_done(_ids(talks), timeout=3 * Q_RETRY + 60)
    # graph_problems also rejects the LIKES edge and any node beyond the valid ones.
    note = "bad calls returned to the model as errors; the valid items committed"
    return graph_problems(user, talks), note, {"extra runs": _runs(found)}


def test_malformed_tool_input_keeps_only_the_valid_items(faults, llm, scaled, report):
    rng = random.Random(4)
    _rounds(
        report,
        "LLM malformed tool input (extraction)",
        scaled(1, 10),
        lambda: _malformed(faults, llm, rng),
    )


def _hang(faults, llm, rng, *, forever: bool = False):
    user, talks = _talks("hang", 1, rng)
    talk = talks[0]
    llm.plan(talk.friend, [Hang(30)] * ((MAX_RETRIES + 1) * (3 if forever else 1)))
    seen = llm.seen[talk.friend]  # names recur across rounds (for other users)
    end_conversations(faults, user, _ids(talks))

    def failed(attempts: int = 1):
        episode = episodes(_ids(talks)).get(talk.conversation_id)
        return (
            episode
            if episode and episode.status == "failed" and episode.attempts >= attempts
            else None
        )

    wait_for(lambda: llm.seen[talk.friend] > seen, timeout=30, what="the hanging request")
    asked = time.monotonic()
    episode = wait_for(failed, timeout=30, what="the hanging job to fail", every=0.05)
    took = time.monotonic() - asked
    assert episode.last_error.startswith("LLMError: ") and "timed out" in episode.last_error
    assert took < EXTRACTION_BUDGET + 3, took  # its budget + the SDK's backoff
    if not forever:
        found = wait_done(_ids(talks), timeout=3 * Q_RETRY + 60)
        assert found[talk.conversation_id].attempts >= 2
        note = f"failed with its error, re-delivered after {Q_RETRY}s, then done once"
        return (
            graph_problems(user, talks),
            note,
            {"s to fail": round(took, 1), "runs": _runs(found) + 1},
        )
    wait_for(lambda: failed(3), timeout=3 * Q_RETRY + 60, what="the third attempt to fail")
    time.sleep(Q_RETRY + 2)  # the broker has given the task up: nothing runs it again
    problems = graph_problems(user, talks, extracted=False)
    if not failed(3):
        problems.append("a final failure did not stay visible")
    return problems, "failed after 3 attempts, stays failed with its error", {}


def test_a_model_hanging_past_the_timeout_fails_cleanly_then_succeeds_once(
    faults,
    llm,
    scaled,
    reliability_full,
    report,
):
    rng = random.Random(5)
    _rounds(
        report,
        "LLM hangs past the timeout, then recovers (extraction)",
        scaled(1, 10),
        lambda: _hang(faults, llm, rng),
    )
    if reliability_full:
        _rounds(
            report,
            "LLM hangs on every attempt (extraction)",
            1,
            lambda: _hang(faults, llm, rng, forever=True),
        )


# --- 4. the model misbehaves during a chat turn -----------------------------------------------

REPLY = ("assistant", "Noted — thanks for telling me.")


def _chat_fault(faults, llm, label: str, items: list, phrase: str | None):
    user = make_user("chat-llm")
    conversation = open_conversation(user)
    cookie = session_cookie(user)
    text = f"Chat fault: {label}, {user.username}"
    llm.plan(text, items)

    async def run():
        async with Chat(faults, cookie, conversation.pk) as chat:
            sent = time.monotonic()
            first = await chat.turn(text, "c1", timeout=30)
            took = time.monotonic() - sent
            again = await chat.turn(text, "c1") if first[-1]["type"] == "error" else []
        return first, took, again

    first, took, again = asyncio.run(run())
    problems: list[str] = []
    if phrase is None:
        if first[-1]["type"] != "done":
            problems.append(f"{label}: the retries did not absorb it: {first[-1]}")
    else:
        error = first[-1]
        if (
            error["type"] != "error"
            or phrase not in error["detail"]
            or "saved" not in error["detail"]
        ):
            problems.append(f"{label}: no clear error frame: {error}")
        if again[-1]["type"] != "done":
            problems.append(f"{label}: sending again failed: {again[-1]}")
    problems += message_problems(conversation.pk, [("user", text), REPLY])
    note = f"ANTHROPIC_CHAT_TIMEOUT={CHAT_TIMEOUT:g}s, {MAX_RETRIES + 1} attempts" + (
        "" if phrase is None else "; error frame, message kept, sent again: answered once"
    )
    return problems, note, {f"s to the {first[-1]['type']} frame": round(took, 1)}


@pytest.mark.parametrize(
    ("label", "items", "phrase"),
    [
        ("529 overloaded on every attempt", [Error(529)] * (MAX_RETRIES + 1), "busy"),
        ("hangs on every attempt", [Hang(30)] * (MAX_RETRIES + 1), "too long"),
        ("529 overloaded x2, then success", [Error(529)] * MAX_RETRIES, None),
    ],
)
def test_a_chat_turn_against_a_failing_model_gives_a_clear_error_and_keeps_the_message(
    faults,
    llm,
    scaled,
    report,
    label,
    items,
    phrase,
):
    _rounds(
        report,
        f"LLM {label} (chat turn)",
        scaled(1, 10),
        lambda: _chat_fault(faults, llm, label, items, phrase),
    )


# --- 3. PostgreSQL restarts -------------------------------------------------------------------


STREAMED = [f"part {n} " for n in range(10)]
DOWN_WHILE_STREAMING = "down while the reply streams"
RESTARTED_WHILE_STREAMING = "restarted while the reply streams"
DOWN_WHILE_SENDING = "down while the user sends"


def _restart_during_turn(faults, llm, phase: str):
    """One turn with PostgreSQL stopped or restarted at ``phase``. Down until the reply has
    failed to be stored, or down while the message is sent: an error frame saying to send
    again, and the same client_id sent again is answered once. Restarted while the reply
    streams: the turn's database steps run on connections checked before use, so the reply is
    stored once the server is back — no error, nothing lost, and a resend replays it."""
    user = make_user("db-chat")
    conversation = open_conversation(user)
    cookie = session_cookie(user)
    text = f"Database {phase}, {user.username}"
    if phase != DOWN_WHILE_SENDING:
        llm.plan(text, [Reply(text=STREAMED, chunk_delay=0.25)])

    async def run():
        async with Chat(faults, cookie, conversation.pk) as chat:
            if phase == DOWN_WHILE_SENDING:
                await asyncio.to_thread(faults.stop_db)
                first = await chat.turn(text, "r1")
                await asyncio.to_thread(faults.start_db)
            else:
                await chat.send(text, "r1")
                first = await chat.events(until=frozenset({"delta", "done", "error"}))
                if first[-1]["type"] == "delta":
                    if phase == RESTARTED_WHILE_STREAMING:
                        await asyncio.to_thread(faults.restart_db)
                        first += await chat.events()
                    else:
                        await asyncio.to_thread(faults.stop_db)
                        first += await chat.events()
                        await asyncio.to_thread(faults.start_db)
        async with Chat(faults, cookie, conversation.pk) as chat:  # reconnect, send again
            again = await chat.turn(text, "r1")
        return first, again

    first, again = asyncio.run(run())
    faults.reset_connection()
    problems: list[str] = []
    if phase == RESTARTED_WHILE_STREAMING:
        reply = ("assistant", "".join(STREAMED))
        if first[-1]["type"] != "done":
            problems.append(f"{phase}: the reply was not stored after the restart: {first[-1]}")
        elif (
            again[-1]["type"] != "done" or again[-1]["message"]["id"] != first[-1]["message"]["id"]
        ):
            problems.append(f"{phase}: sending again did not replay the stored reply: {again[-1]}")
    else:
        reply = REPLY
        if first[-1]["type"] != "error" or "again" not in first[-1].get("detail", ""):
            problems.append(f"{phase}: no clear error frame: {first[-1]}")
        if again[-1]["type"] != "done":
            problems.append(f"{phase}: sending again after reconnecting failed: {again[-1]}")
    problems += message_problems(conversation.pk, [("user", text), reply])
    return problems, user, conversation.pk


def _restart_round(faults, llm, report) -> list[str]:
    """Both phases, then both conversations ended: the worker, whose broker polling failed
    during the restarts, must still extract each exactly once."""
    results = []
    for phase in (DOWN_WHILE_STREAMING, RESTARTED_WHILE_STREAMING, DOWN_WHILE_SENDING):
        started = time.monotonic()
        found, user, conversation_id = _restart_during_turn(faults, llm, phase)
        results.append((phase, found, user, conversation_id, time.monotonic() - started))
    ended = time.monotonic()
    for _, _, user, conversation_id, _ in results:
        end_conversations(faults, user, [conversation_id])
    finished = wait_done([r[3] for r in results], timeout=3 * Q_RETRY + 60)
    waited = time.monotonic() - ended
    problems: list[str] = []
    for phase, found, user, conversation_id, seconds in results:
        episode = finished[conversation_id]
        if (episode.status, episode.attempts) != ("done", 1):
            found.append(f"{phase}: extracted {episode.status} in {episode.attempts} runs")
        found += graph_problems(user, [])  # one user turn with nothing to remember
        report.record(
            f"PostgreSQL restart during a chat turn ({phase})",
            problems=found,
            seconds=seconds + waited / 2,
            note=(
                "the reply stored after the restart, a resend replays it"
                if phase == RESTARTED_WHILE_STREAMING
                else "error frame; the same client_id sent again is answered once"
            )
            + "; the conversation, ended, is extracted once",
            s_from_end_to_extracted=round(waited, 1),
        )
        problems += found
    return problems


def test_a_database_restart_during_a_chat_turn_loses_no_message(faults, llm, scaled, report):
    """The server goes down while the reply streams (the reply cannot be stored) or while the
    user sends (the message cannot be stored): the user gets an error frame, reconnects,
    sends again with the same client_id and gets one answer; nothing is stored twice, and
    the conversation, once ended, is extracted once."""
    rounds = scaled(1, 10)
    progress = Progress(print, "PostgreSQL restarts during chat turns")
    for done in range(1, rounds + 1):
        assert _restart_round(faults, llm, report) == []
        progress(done, rounds)


def _decay_graph(user, now, rng: random.Random) -> None:
    """Edges of every stability, touched between 1 and 900 days ago (some expired), so a
    decay at ``now`` flags about half of them."""
    from memory.core.merge_rules import normalise_name
    from memory.models import Edge, Node

    def node(name, kind="THING", is_self=False):
        return Node.objects.using(ALIAS).create(
            user=user,
            kind=kind,
            name=name,
            normalised_name=normalise_name(name),
            is_self=is_self,
            created_at=now,
            updated_at=now,
        )

    me = node(user.username, "PERSON", is_self=True)
    stabilities = ["immutable", "stable", "mutable", "time_bound", "ephemeral"]
    for i in range(20):
        stability = stabilities[i % 5]
        touched = now - timedelta(days=rng.choice([1, 30, 120, 400, 900]))
        expires = (
            now + timedelta(days=rng.choice([-3, 3]))
            if stability in {"time_bound", "ephemeral"}
            else None
        )
        Edge.objects.using(ALIAS).create(
            user=user,
            source=me,
            relation="LIKES",
            target=node(f"thing {i}"),
            strength_at_touch=rng.choice([30.0, 100.0]),
            last_touched_at=touched,
            stability=stability,
            expires_at=expires,
            created_at=touched,
        )


def _dormancy(users, now) -> tuple[dict[int, bool], dict[int, bool]]:
    """(stored dormant flag, dormant by ``memory.core.decay`` at ``now``) of every edge."""
    from memory.core.decay import is_dormant, strength_at
    from memory.models import Edge

    stored, expected = {}, {}
    for edge in Edge.objects.using(ALIAS).filter(user__in=users):
        stored[edge.pk] = edge.dormant
        strength = strength_at(edge.strength_at_touch, edge.stability, edge.last_touched_at, now)
        expected[edge.pk] = is_dormant(
            strength, stability=edge.stability, expires_at=edge.expires_at, now=now
        )
    return stored, expected


def _restart_during_decay(faults, rng):
    from memory.models import Edge

    now = timezone.now().replace(microsecond=0)
    users = [make_user("decay") for _ in range(3)]
    for user in users:
        _decay_graph(user, now, rng)
    second = users[1].pk
    lock = faults.connect()
    # Decay goes user by user (ascending ids), one transaction each: holding the second
    # user's lock stops the run after the first user has committed.
    lock.execute("SELECT pg_advisory_lock(%s, %s)", [LOCK_NAMESPACE, second])
    run = faults.popen_manage("decay", "--now", now.isoformat())
    wait_for(
        lambda: faults.waiting_for_user_lock(second),
        timeout=60,
        what="decay to wait for the second user",
    )
    faults.restart_db()  # also ends the session holding the lock
    faults.reset_connection()
    lock.close()
    out, err = run.communicate(timeout=60)
    problems: list[str] = []
    if run.returncode == 0:
        problems.append(f"decay did not notice the restart: {out}")
    stored, expected = _dormancy(users, now)
    first = set(Edge.objects.using(ALIAS).filter(user=users[0]).values_list("pk", flat=True))
    if any(stored[pk] != expected[pk] for pk in first):
        problems.append("the first user's committed decay was lost")
    if any(stored[pk] for pk in stored.keys() - first):
        problems.append("a user after the interruption was decayed although not reached")
    rerun = faults.manage("decay", "--now", now.isoformat(), check=False)
    stored, expected = _dormancy(users, now)
    if rerun.returncode != 0 or stored != expected:
        problems.append(f"the re-run did not complete the decay: {rerun.stderr[-300:]}")
    left = sum(expected[pk] for pk in stored.keys() - first)
    if f" {left} edges flagged" not in rerun.stdout:
        problems.append(f"the re-run flagged other than the {left} edges left: {rerun.stdout}")
    traceback = "Traceback" in err
    note = (
        "the interrupted run stops"
        + (" with a traceback" if traceback else "")
        + "; the committed users keep their flags; a re-run completes it"
    )
    return problems, note, {"exit code": run.returncode}


def test_a_database_restart_during_a_decay_run_is_repaired_by_running_it_again(
    faults,
    scaled,
    report,
):
    rng = random.Random(6)
    _rounds(
        report,
        "PostgreSQL restart during a decay run",
        scaled(1, 10),
        lambda: _restart_during_decay(faults, rng),
    )
