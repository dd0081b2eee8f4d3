"""``manage.py bench_chat``: real websocket clients against a real Daphne process that serves
the test database (committed data, hence ``transaction=True``), in offline mode."""

import io
import json
import socket
import urllib.parse

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.core.management import CommandError, call_command
from django.utils import timezone

from bench import devredis, synthetic
from bench.management.commands.bench_chat import _extraction_counts
from chat.models import Conversation
from chat.services import start_conversation
from memory.models import Episode, ExtractionStatus


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_two_clients_complete_six_turns_through_a_real_daphne(monkeypatch):
    # The limit the Daphne child would inherit: one message a minute. The command lifts it in
    # the child's environment only, or every client's second message would be refused.
    monkeypatch.setenv("CHAT_MESSAGES_PER_MINUTE", "1")
    out, err = io.StringIO(), io.StringIO()

    call_command(
        "bench_chat", clients=2, turns=6, graph_nodes=100, json=True, stdout=out, stderr=err
    )

    result = json.loads(out.getvalue())
    assert result["turns"] == 6
    assert result["errors"] == 0 and result["errors_by_code"] == {}
    assert result["warmup"]["turns"] == 2 and result["warmup"]["errors_by_code"] == {}
    ttfd, done = result["ttfd_ms"], result["done_ms"]
    assert 0 < ttfd["p50"] <= ttfd["p95"] <= ttfd["p99"] <= ttfd["max"]
    # Every turn's done comes after its first delta, so each percentile does too.
    assert all(done[p] >= ttfd[p] for p in ("p50", "p95", "p99", "max"))
    assert result["turns_per_s"] > 0 and not result["interrupted"]
    # The Daphne child's CPU time over the measured turns, per turn.
    assert result["server_cpu_s"] > 0
    assert result["server_cpu_ms_per_turn"] == pytest.approx(  # both rounded
        1000 * result["server_cpu_s"] / result["turns"], abs=1000 * 0.005 / 6 + 0.05
    )

    setup = result["setup"]
    assert (setup["users"], setup["built"], setup["reused"]) == (2, 2, 0)
    assert setup["keys_inserted"] >= 2 * 100 and setup["ms_per_key"] > 0
    (daphne,) = result["processes"]
    assert daphne["role"] == "daphne-1" and daphne["peak_rss_mb"] > 50  # it loaded the model
    assert "turns" in err.getvalue() and "ETA" in err.getvalue()

    # The accounts and graphs stay for the next run; the run's chats and sessions do not.
    users = get_user_model().objects.filter(username__startswith="bench_chat_100_")
    assert users.count() == 2
    base = 7 * 1_000_003  # --seed 7: shared names, each user's own structure
    for i, user in enumerate(users.order_by("username")):
        assert synthetic.reusable(user, 100, seed=base + i, names_seed=base) is not None
    assert not Conversation.objects.filter(user__in=users).exists()
    assert not Session.objects.exists()


def test_url_mode_refuses_to_start_processes():
    with pytest.raises(CommandError, match="--daphne and --workers"):
        call_command("bench_chat", url="http://127.0.0.1:8000", workers=2, stdout=io.StringIO())


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_an_open_loop_run_reports_offered_and_served_turns(monkeypatch):
    monkeypatch.setenv("CHAT_MESSAGES_PER_MINUTE", "1")  # lifted in the child, as above
    out, err = io.StringIO(), io.StringIO()

    call_command(
        "bench_chat",
        open_loop=True,
        users=4,
        graphs=2,
        think=0.5,
        duration=4,
        graph_nodes=100,
        json=True,
        stdout=out,
        stderr=err,
    )

    result = json.loads(out.getvalue())
    assert result["mode"] == "open-loop" and not result["interrupted"]
    assert (result["users"], result["graphs"], result["think_s"]) == (4, 2, 0.5)
    # 4 users, one message every 0.5 s on average each: about 8 arrivals a second.
    assert result["nominal_offered_per_s"] == 8.0
    assert 2 <= result["offered_per_s"] <= 20
    assert result["arrivals"] >= result["offered_per_s"] * 4
    assert 0 < result["turns_per_s"] <= result["offered_per_s"] + 1
    assert result["errors"] == 0 and result["errors_by_code"] == {}
    assert result["turns"] == result["arrivals"]  # every arrival was answered
    assert result["server_cpu_ms_per_turn"] > 0
    ttfd = result["ttfd_ms"]
    assert set(ttfd) >= {"p50", "p95", "p99"}
    assert 0 < ttfd["p50"] <= ttfd["p95"] <= ttfd["p99"]
    # One warm-up turn per account, not per user; two accounts built for four users.
    assert result["warmup"]["turns"] == 2
    assert (result["setup"]["users"], result["setup"]["built"]) == (2, 2)
    (daphne,) = result["processes"]
    assert daphne["peak_rss_mb"] > 50
    assert "open loop:" in err.getvalue()
    users = get_user_model().objects.filter(username__startswith="bench_chat_100_")
    assert not Conversation.objects.filter(user__in=users).exists()
    assert not Session.objects.exists()


def test_open_loop_options_are_refused_in_the_closed_loop():
    with pytest.raises(CommandError, match="--open-loop"):
        call_command("bench_chat", users=10, stdout=io.StringIO())
    with pytest.raises(CommandError, match="--think"):
        call_command("bench_chat", open_loop=True, users=2, think=0, stdout=io.StringIO())


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_two_daphne_two_workers_on_redis_extract_every_ended_conversation_once(monkeypatch):
    if devredis.executable() is None:
        pytest.fail(f"redis-server is not installed ({devredis.INSTALL_HINT})")
    monkeypatch.setenv("CHAT_MESSAGES_PER_MINUTE", "1")  # lifted in the children, as above
    out, err = io.StringIO(), io.StringIO()

    # Two users, one per Daphne (round-robin), each with a warm-up turn, so both
    # conversations have turns to extract; both workers poll the one queue.
    call_command(
        "bench_chat",
        open_loop=True,
        users=2,
        graphs=2,
        think=0.5,
        duration=3,
        graph_nodes=100,
        daphne=2,
        workers=2,
        redis=True,
        end=True,
        json=True,
        stdout=out,
        stderr=err,
    )

    result = json.loads(out.getvalue())
    assert not result["interrupted"]
    assert result["errors"] == 0 and result["errors_by_code"] == {}
    assert result["turns"] == result["arrivals"] > 0
    roles = sorted(p["role"] for p in result["processes"])
    assert roles == ["daphne-1", "daphne-2", "qcluster-1", "qcluster-2"]
    # Every started process had the Channels layer on that Redis: each socket joined its
    # groups and every turn's frames went through it.
    redis = result["redis"]
    assert redis["url"].startswith("redis://127.0.0.1:")
    assert redis["commands_processed"] > result["turns"]
    extraction = result["extraction"]
    assert extraction["conversations_ended"] == 2 and extraction["workers_ran"]
    assert extraction["by_status"] == {"done": 2}
    assert (
        extraction["extracted_once"],
        extraction["extracted_twice_or_more"],
        extraction["not_extracted"],
    ) == (2, 0, 0)
    assert extraction["runs_per_conversation"] == {"1": 2}
    assert extraction["failed_deliveries"] == 0
    users = get_user_model().objects.filter(username__startswith="bench_chat_100_")
    episodes = Episode.objects.filter(user__in=users, conversation__isnull=False)
    assert sorted(episodes.values_list("attempts", flat=True)) == [1, 1]
    # Redis was stopped with the run: nothing answers at its address any more.
    port = urllib.parse.urlsplit(redis["url"]).port
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_redis_is_refused_with_url():
    with pytest.raises(CommandError, match="--redis"):
        call_command("bench_chat", url="http://127.0.0.1:8000", redis=True, stdout=io.StringIO())


@pytest.mark.django_db
def test_extraction_counts_tell_once_twice_and_not_extracted(alice):
    now = timezone.now()
    conversations = [
        start_conversation(user=alice, now=now, title=f"c{i}", incognito=False) for i in range(5)
    ]
    states = [  # (status, attempts): once, twice, done twice, failed once, none
        (ExtractionStatus.DONE, 1),
        (ExtractionStatus.FAILED, 2),
        (ExtractionStatus.DONE, 2),
        (ExtractionStatus.FAILED, 1),
        None,
    ]
    for conversation, state in zip(conversations, states, strict=True):
        if state is not None:
            Episode.objects.create(
                user=alice,
                conversation=conversation,
                status=state[0],
                attempts=state[1],
                created_at=now,
            )

    counts = _extraction_counts([c.pk for c in conversations])

    assert (
        counts["extracted_once"],
        counts["extracted_twice_or_more"],
        counts["not_extracted"],
    ) == (1, 2, 2)
    assert counts["runs_per_conversation"] == {"0": 1, "1": 2, "2": 2}
    assert counts["failed_deliveries"] == 0
