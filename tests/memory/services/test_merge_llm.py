"""Held entities judged by Claude (SPEC §5.6), against the local fake Messages API: the real
SDK and memory.extraction.disambiguation run; only the model's answer is scripted."""

import json
import threading
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest

from memory import embedding
from memory.models import Edge, Episode, MergeDecision, Node, Snippet
from memory.services.graph_io import export_graph
from memory.services.locks import LOCK_NAMESPACE
from memory.services.merge import confirm, keep_apart
from memory.services.write import commit_batch
from tests.fakes.anthropic_server import Error, ToolCall
from tests.memory.factories import HashEncoder, make_bare_node

pytestmark = pytest.mark.django_db

BATCHES = Path(__file__).resolve().parents[1] / "fixtures" / "batches"
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def stand_in_encoder():
    with embedding.use_encoder(HashEncoder()):
        yield


# A node row alone (no keys), created at this file's NOW.
make_node = partial(make_bare_node, at=NOW)


@pytest.fixture
def two_bills(alice):
    """Two people both known as Bill; one of them works at Acme (his neighbourhood)."""
    me = make_node(alice, "alice", is_self=True)
    smith = make_node(alice, "William Smith", aliases=["Bill"], confidence=0.7)
    jones = make_node(alice, "Robert Jones", aliases=["Bill"])
    acme = make_node(alice, "Acme", kind="ORG")
    episode = Episode.objects.create(user=alice, created_at=NOW)
    works = Edge.objects.create(
        user=alice,
        source=smith,
        relation="WORKS_AT",
        target=acme,
        last_touched_at=NOW,
        created_at=NOW,
    )
    works.snippet = Snippet.objects.create(
        user=alice, edge=works, text="Bill works at Acme", episode=episode, created_at=NOW
    )
    works.save()
    Edge.objects.create(
        user=alice,
        source=me,
        relation="HAS_COLLEAGUE",
        target=smith,
        last_touched_at=NOW,
        created_at=NOW,
    )
    return smith, jones


def bill_batch() -> dict:
    return json.loads((BATCHES / "bill.json").read_text())


def rating(smith, jones, smith_conf, jones_conf=0.05):
    return ToolCall(
        "rate_candidates",
        {
            "ratings": [
                {"id": smith.pk, "confidence": smith_conf, "reason": "works at Acme too"},
                {"id": jones.pk, "confidence": jones_conf, "reason": "nothing in common"},
            ],
            "reason": "judged on the neighbourhoods",
        },
    )


def test_confidence_above_090_merges_with_rule_llm(alice, two_bills, fake_anthropic):
    smith, jones = two_bills
    fake_anthropic.script([rating(smith, jones, 0.95)])
    summary = commit_batch(
        user=alice, batch=bill_batch(), now=NOW, messages={"1": "my friend Bill from Leeds"}
    )

    assert not Node.objects.for_user(alice).filter(name="Bill").exists()
    decision = MergeDecision.objects.for_user(alice).get()
    assert (decision.status, decision.rule, decision.kept) == ("merged", "llm", smith)
    assert decision.score == 0.95
    assert {c["id"]: c["llm"] for c in decision.candidates} == {smith.pk: 0.95, jones.pk: 0.05}
    assert "judged on the neighbourhoods" in decision.reason
    assert "alice -[HAS_FRIEND]-> William Smith" in [
        f"{e.source.name} -[{e.relation}]-> {e.target.name}"
        for e in Edge.objects.for_user(alice).live().select_related("source", "target")
    ]
    smith.refresh_from_db()
    assert smith.properties == {"city": "Leeds"} and smith.confidence == 0.95
    assert summary.merged == [
        {"name": "Bill", "into": "William Smith", "rule": "llm", "flagged": False}
    ]
    assert summary.input_tokens > 0 and summary.output_tokens > 0
    # What the model was shown: the conversation and each candidate's neighbourhood.
    prompt = fake_anthropic.prompt_texts()[0]
    assert "my friend Bill from Leeds" in prompt
    assert 'William Smith -[WORKS_AT]-> Acme: "Bill works at Acme"' in prompt
    assert "alice -[HAS_COLLEAGUE]-> William Smith" in prompt


def test_confidence_between_070_and_090_merges_and_flags(alice, two_bills, fake_anthropic, mod):
    smith, jones = two_bills
    fake_anthropic.script([rating(smith, jones, 0.8)])
    summary = commit_batch(user=alice, batch=bill_batch(), now=NOW)

    decision = MergeDecision.objects.for_user(alice).get()
    assert (decision.status, decision.rule, decision.kept) == ("merged-flagged", "llm", smith)
    assert summary.merged[0]["flagged"] is True
    assert not Node.objects.for_user(alice).filter(name="Bill").exists()

    confirmed = confirm(user=alice, decision=decision, by=mod, now=NOW + timedelta(hours=1))
    assert confirmed.status == "merged" and confirmed.decided_by == mod


def test_a_flagged_merge_kept_apart_by_a_moderator_is_split_back_out(
    alice,
    two_bills,
    fake_anthropic,
    mod,
):
    smith, jones = two_bills
    fake_anthropic.script([rating(smith, jones, 0.75)])
    commit_batch(user=alice, batch=bill_batch(), now=NOW)
    decision = MergeDecision.objects.for_user(alice).get()

    keep_apart(user=alice, decision=decision, by=mod, why="a different Bill", now=NOW)

    decision.refresh_from_db()
    assert decision.status == "kept-apart"
    bill = Node.objects.for_user(alice).get(name="Bill")
    assert decision.moved["node"] == bill.pk
    assert Edge.objects.for_user(alice).get(relation="HAS_FRIEND").target == bill
    smith.refresh_from_db()
    assert (smith.aliases, smith.properties, smith.confidence) == (["Bill"], {}, 0.7)


def test_confidence_below_070_keeps_apart_as_a_new_node(alice, two_bills, fake_anthropic):
    smith, jones = two_bills
    before = export_graph(user=alice)["nodes"]
    fake_anthropic.script([rating(smith, jones, 0.5, 0.3)])
    summary = commit_batch(user=alice, batch=bill_batch(), now=NOW)

    bill = Node.objects.for_user(alice).get(name="Bill")
    decision = MergeDecision.objects.for_user(alice).get()
    assert (decision.status, decision.rule, decision.kept) == ("kept-apart", "llm", None)
    assert decision.moved == {"node": bill.pk}
    assert summary.kept_apart == [{"name": "Bill", "candidates": ["William Smith", "Robert Jones"]}]
    after = {n["name"]: n for n in export_graph(user=alice)["nodes"]}
    for node in before:
        assert after[node["name"]]["aliases"] == node["aliases"]


def test_when_the_model_fails_the_entity_is_held_for_a_moderator(
    alice,
    two_bills,
    fake_anthropic,
    settings,
):
    settings.ANTHROPIC_MAX_RETRIES = 0
    fake_anthropic.script([Error(500)])
    summary = commit_batch(user=alice, batch=bill_batch(), now=NOW)
    decision = MergeDecision.objects.for_user(alice).get()
    assert (decision.status, decision.rule) == ("held", "alias-ambiguous")
    assert "language model unavailable" in decision.reason
    assert summary.held[0]["name"] == "Bill"
    assert Node.objects.for_user(alice).filter(name="Bill").exists()


def test_offline_nothing_is_sent_and_the_entity_is_held(alice, two_bills, settings):
    settings.ANTHROPIC_API_KEY = ""
    commit_batch(user=alice, batch=bill_batch(), now=NOW)
    decision = MergeDecision.objects.for_user(alice).get()
    assert decision.status == "held" and decision.reason.startswith("offline")


def test_bobs_held_entity_never_sees_alices_candidates(alice, bob, two_bills, fake_anthropic):
    make_node(bob, "Bill Bobson", aliases=["Bill"])
    make_node(bob, "Billy Bobbins", aliases=["Bill"])
    bobs = list(Node.objects.for_user(bob).values_list("pk", flat=True))
    fake_anthropic.script(
        [
            ToolCall(
                "rate_candidates",
                {
                    "ratings": [
                        {"id": bobs[0], "confidence": 0.2, "reason": "-"},
                        {"id": bobs[1], "confidence": 0.2, "reason": "-"},
                    ]
                },
            )
        ]
    )
    commit_batch(user=bob, batch=bill_batch(), now=NOW)
    prompt = fake_anthropic.prompt_texts()[0]
    assert "William Smith" not in prompt and "Acme" not in prompt
    decision = MergeDecision.objects.for_user(bob).get()
    assert {c["id"] for c in decision.candidates} == set(bobs)
    assert not MergeDecision.objects.for_user(alice).exists()


# --- the judgement is asked before the user's lock is taken (issue 22) ------------------------


def _users_lock_is_held(user_id: int) -> bool:
    """Whether any session holds ``user_id``'s graph lock, seen from a connection of this
    thread's own (the caller's session is busy waiting for the model's answer)."""
    from django.db import connection

    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                " AND classid::bigint = %s AND objid::bigint = %s AND objsubid = 2",
                [LOCK_NAMESPACE, user_id],
            )
            return cursor.fetchone()[0] > 0
    finally:
        connection.close()


def _in_another_thread(function, *args):
    out: list = []
    thread = threading.Thread(target=lambda: out.append(function(*args)))
    thread.start()
    thread.join()
    return out[0]


def test_the_model_is_asked_while_the_users_lock_is_free(alice, two_bills, fake_anthropic):
    smith, jones = two_bills
    seen: list[bool] = []

    def answer(request):  # runs in the fake server's thread, during the HTTP request
        seen.append(_users_lock_is_held(alice.pk))
        return rating(smith, jones, 0.95)

    fake_anthropic.script([answer])
    commit_batch(user=alice, batch=bill_batch(), now=NOW)

    assert seen == [False]
    assert MergeDecision.objects.for_user(alice).get().status == "merged"
    # The probe does see the lock when it is held: the commit's transaction-scoped lock lasts
    # until this test's own transaction ends.
    assert _in_another_thread(_users_lock_is_held, alice.pk) is True


@pytest.mark.django_db(transaction=True)
def test_a_candidate_appearing_during_the_judgement_holds_the_entity(
    alice,
    two_bills,
    fake_anthropic,
):
    smith, jones = two_bills

    def answer(request):  # meanwhile another writer commits a third Bill
        from django.db import connection

        try:
            make_node(alice, "Bill Brown", aliases=["Bill"])
        finally:
            connection.close()
        return rating(smith, jones, 0.95)

    fake_anthropic.script([answer])
    summary = commit_batch(user=alice, batch=bill_batch(), now=NOW)

    assert len(fake_anthropic.requests) == 1  # never asked again under the lock
    brown = Node.objects.for_user(alice).get(name="Bill Brown")
    decision = MergeDecision.objects.for_user(alice).get()
    assert (decision.status, decision.kept) == ("held", None)
    assert {c["id"] for c in decision.candidates} == {smith.pk, jones.pk, brown.pk}
    assert "graph changed" in decision.reason
    assert summary.merged == [] and summary.held[0]["name"] == "Bill"
    assert summary.input_tokens > 0  # the judgement's tokens were spent all the same
    smith.refresh_from_db()
    assert (smith.aliases, smith.properties) == (["Bill"], {})
    bill = Node.objects.for_user(alice).get(name="Bill")
    assert decision.moved == {"node": bill.pk}
