"""``manage.py bench_chat``: real websocket clients against a real Daphne process that serves
the test database (committed data, hence ``transaction=True``), in offline mode."""

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.core.management import CommandError, call_command

from chat.models import Conversation
from memory.bench import synthetic


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
        1000 * result["server_cpu_s"] / result["turns"], abs=1000 * 0.005 / 6 + 0.05)

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
        "bench_chat", open_loop=True, users=4, graphs=2, think=0.5, duration=4,
        graph_nodes=100, json=True, stdout=out, stderr=err,
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
