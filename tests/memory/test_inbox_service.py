"""The user's merge inbox (memory.services.inbox): held decisions asked as questions, answered
same / different / not sure through the merge service, undone exactly, and shown to moderators
only once escalated or left unanswered for MERGE_INBOX_STAFF_AFTER_DAYS.

Held decisions come from the real Write path (offline, so nothing judges them): "Bill" is an
alias of two people (William Smith, Robert Jones), and "Coach" names Dan Miller only through
the extractor's hint — both rules that send an entity to review, never merge it (SPEC §5.6).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from chat.models import Conversation, Message
from memory import embedding
from memory.models import Edge, Episode, MergeDecision, Node
from memory.services import inbox, merge
from memory.services.corrections import change_kind, forget_node
from memory.services.graph_io import export_graph
from memory.services.write import commit_batch
from tests.admin.conftest import build_two_bills, make_edge, make_node
from tests.memory.factories import HashEncoder

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
LATER = NOW + timedelta(hours=1)


@pytest.fixture(autouse=True)
def offline(settings):
    settings.ANTHROPIC_API_KEY = ""
    settings.MERGE_INBOX_STAFF_AFTER_DAYS = 14
    with embedding.use_encoder(HashEncoder()):
        yield


def say(user, text: str, entity: dict, relation: str, snippet: str, *, at=NOW) -> MergeDecision:
    """One user turn through the real Write path: ``user -[relation]-> entity``. Returns the
    merge decision it made for the entity."""
    conversation = Conversation.objects.create(
        user=user, title="chat", status="ended", started_at=at, ended_at=at
    )
    message = Message.objects.create(
        user=user, conversation=conversation, role="user", text=text, created_at=at
    )
    episode = Episode.objects.create(
        user=user,
        conversation=conversation,
        created_at=at,
        started_at=at,
        ended_at=at,
        status="done",
    )
    batch = {
        "format": "pegasus-batch/1",
        "episode": {"summary": text, "importance": 0.4, "tags": []},
        "entities": [
            {
                "ref": "a",
                "kind": "PERSON",
                "aliases": [],
                "properties": {},
                "confidence": 0.9,
                "hint": None,
                **entity,
            }
        ],
        "relations": [
            {
                "source": "user",
                "relation": relation,
                "target": "a",
                "confidence": 0.8,
                "stability": "stable",
                "cardinality": "one_to_many",
                "expires_at": None,
                "snippet": snippet,
                "evidence": "said so",
                "message": str(message.pk),
            }
        ],
    }
    commit_batch(
        user=user,
        batch=batch,
        now=at,
        episode=episode.pk,
        messages={str(message.pk): text},
        conversation=conversation,
    )
    return MergeDecision.objects.for_user(user).filter(episode=episode).get()


def held_bill(user) -> tuple[MergeDecision, Node, Node]:
    smith, jones = build_two_bills(user)
    decision = say(
        user,
        "Had drinks with my friend Bill from Leeds yesterday.",
        {"name": "Bill"},
        "HAS_FRIEND",
        "my friend Bill from Leeds",
    )
    assert decision.status == "held" and decision.rule == "alias-ambiguous"
    return decision, smith, jones


def held_coach(user) -> tuple[MergeDecision, Node]:
    make_node(user, user.username, is_self=True, confidence=1.0)
    dan = make_node(user, "Dan Miller")
    make_edge(
        user,
        dan,
        "COACHES",
        make_node(user, "Riverside FC", kind="ORG"),
        snippet="Dan coaches Riverside FC",
    )
    decision = say(
        user,
        "My coach said I should rest this week.",
        {"name": "Coach", "hint": "Dan Miller"},
        "HAS_COACH",
        "My coach said",
    )
    assert decision.status == "held" and decision.rule == "hint"
    return decision, dan


def test_a_held_decision_is_a_pending_question_with_both_neighbourhoods(alice):
    decision, _smith, _jones = held_bill(alice)
    assert list(inbox.pending(alice)) == [decision]
    [item] = inbox.summaries(alice, [decision])
    assert item["question"] == "Is Bill the same person as William Smith or Robert Jones?"
    assert item["state"] == "pending" and item["can_undo"] is False
    assert item["staff_from"] == NOW + timedelta(days=14)

    shown = inbox.detail(alice, decision)
    bill_id = decision.moved["node"]
    assert shown["entity"] == {**shown["entity"], "id": bill_id, "name": "Bill", "exists": True}
    assert [(line["text"], line["snippet"]) for line in shown["entity"]["lines"]] == [
        ("alice -[HAS_FRIEND]-> Bill", "my friend Bill from Leeds")
    ]
    sides = {c["name"]: c for c in shown["candidates"]}
    assert [(line["text"], line["snippet"]) for line in sides["William Smith"]["lines"]] == [
        ("William Smith -[WORKS_AT]-> Acme", "Bill works at Acme"),
        ("alice -[HAS_COLLEAGUE]-> William Smith", ""),
    ]
    assert sides["Robert Jones"]["lines"] == [] and sides["Robert Jones"]["exists"]


def test_the_wording_follows_the_kind(alice):
    make_node(alice, "Springfield, Illinois", kind="PLACE", aliases=["Springfield"])
    make_node(alice, "Springfield, Oregon", kind="PLACE", aliases=["Springfield"])
    decision = say(
        alice,
        "I love Springfield.",
        {"name": "Springfield", "kind": "PLACE"},
        "LOVES",
        "I love Springfield",
    )
    assert decision.status == "held"
    [item] = inbox.summaries(alice, [decision])
    assert item["question"] == (
        "Is Springfield the same place as Springfield, Illinois or Springfield, Oregon?"
    )
    decision.kind = "THING"
    assert inbox.summaries(alice, [decision])[0]["question"].startswith(
        "Is Springfield the same thing as"
    )


def test_same_merges_into_the_chosen_candidate_like_a_moderator(alice):
    decision, _smith, jones = held_bill(alice)
    bill_id = decision.moved["node"]

    answered = inbox.answer(user=alice, decision=decision, answer="same", into=jones.pk, now=LATER)

    assert answered.status == "merged" and answered.kept_id == jones.pk
    assert answered.answer == "same" and answered.answered_at == LATER
    assert answered.decided_by == alice
    assert [e["action"] for e in answered.log] == ["held", "merged", "answered-same"]
    assert answered.log[-1]["by"] == "alice"
    assert not Node.objects.filter(pk=bill_id).exists()
    friend = Edge.objects.for_user(alice).get(relation="HAS_FRIEND")
    assert friend.target_id == jones.pk
    node_merge = MergeDecision.objects.get(pk=answered.moved["merge_decision"])
    assert node_merge.status == "merged" and node_merge.decided_by == alice
    assert list(inbox.pending(alice)) == []
    [item] = inbox.summaries(alice, list(inbox.settled(alice)))
    assert item["state"] == "same" and item["can_undo"] is True
    assert item["merged_into"] == {"id": jones.pk, "name": "Robert Jones"}


def test_undoing_same_restores_the_graph_exactly_and_reopens_the_question(alice):
    decision, smith, jones = held_bill(alice)
    before = export_graph(user=alice)
    inbox.answer(user=alice, decision=decision, answer="same", into=smith.pk, now=LATER)
    assert export_graph(user=alice) != before

    reopened = inbox.undo(user=alice, decision=decision, now=LATER + timedelta(minutes=1))

    assert export_graph(user=alice) == before
    assert reopened.status == "held" and reopened.answer == "" and reopened.kept_id is None
    assert reopened.answered_at is None and reopened.decided_by is None
    assert "merge_decision" not in reopened.moved
    assert reopened.log[-1]["action"] == "reopened" and "reverted" in reopened.log[-1]["why"]
    assert list(inbox.pending(alice)) == [reopened]
    # Answerable again, and differently.
    again = inbox.answer(user=alice, decision=reopened, answer="same", into=jones.pk, now=LATER)
    assert again.kept_id == jones.pk


def test_same_needs_one_of_the_candidates(alice, bob):
    decision, smith, _jones = held_bill(alice)
    with pytest.raises(inbox.InboxError) as several:
        inbox.answer(user=alice, decision=decision, answer="same", now=LATER)
    assert several.value.field == "into"
    stranger = make_node(alice, "Bill Stranger")
    bobs = make_node(bob, "Bill")
    for into in (stranger.pk, bobs.pk):
        with pytest.raises(inbox.InboxError, match="not one of this question's candidates"):
            inbox.answer(user=alice, decision=decision, answer="same", into=into, now=LATER)
    with pytest.raises(inbox.InboxError) as bad:
        inbox.answer(user=alice, decision=decision, answer="maybe", now=LATER)
    assert bad.value.field == "answer"
    with pytest.raises(inbox.InboxError):
        inbox.answer(user=alice, decision=decision, answer="different", into=smith.pk, now=LATER)
    decision.refresh_from_db()
    assert decision.status == "held" and decision.answer == ""


def test_same_into_a_candidate_of_another_kind_is_refused(alice):
    decision, smith, jones = held_bill(alice)
    change_kind(user=alice, node=jones, kind="ORG", now=LATER)
    [item] = inbox.summaries(alice, [decision])
    assert [(c["name"], c["kind"]) for c in item["candidates"]] == [
        ("William Smith", "PERSON"),
        ("Robert Jones", "ORG"),
    ]
    with pytest.raises(inbox.InboxConflict, match="only nodes of the same kind"):
        inbox.answer(user=alice, decision=decision, answer="same", into=jones.pk, now=LATER)
    # With one candidate of its kind left, "same" needs no choice.
    assert inbox.answer(user=alice, decision=decision, answer="same", now=LATER).kept_id == smith.pk


def test_same_with_a_single_candidate_needs_no_choice(alice):
    decision, dan = held_coach(alice)
    [item] = inbox.summaries(alice, [decision])
    assert item["question"] == "Is Coach the same person as Dan Miller?"
    answered = inbox.answer(user=alice, decision=decision, answer="same", now=LATER)
    assert answered.kept_id == dan.pk
    dan.refresh_from_db()
    assert "Coach" in dan.aliases


def test_different_keeps_apart_and_is_remembered(alice):
    decision, _smith, _jones = held_bill(alice)
    bill_id = decision.moved["node"]

    answered = inbox.answer(user=alice, decision=decision, answer="different", now=LATER)

    assert answered.status == "kept-apart" and answered.decided_by == alice
    assert answered.answer == "different"
    assert [e["action"] for e in answered.log] == ["held", "kept-apart", "answered-different"]
    assert Node.objects.filter(pk=bill_id).exists()
    assert list(inbox.pending(alice)) == []
    assert inbox.summaries(alice, list(inbox.settled(alice)))[0]["state"] == "different"

    reopened = inbox.undo(user=alice, decision=answered, now=LATER)
    assert reopened.status == "held" and reopened.answer == ""
    assert list(inbox.pending(alice)) == [reopened]


def test_not_sure_escalates_to_moderators_at_once(alice):
    decision, _smith, _jones = held_bill(alice)
    fresh = MergeDecision.objects.filter(pk=decision.pk)
    assert not inbox.for_staff(fresh, LATER).exists()  # the owner's to answer first

    answered = inbox.answer(user=alice, decision=decision, answer="unsure", now=LATER)

    assert answered.status == "held" and answered.answer == "unsure"
    assert answered.log[-1]["action"] == "answered-unsure"
    assert inbox.for_staff(fresh, LATER).exists()
    assert list(inbox.pending(alice)) == []
    [item] = inbox.summaries(alice, list(inbox.settled(alice)))
    assert item["state"] == "unsure" and item["can_undo"] and item["staff_from"] is None

    inbox.undo(user=alice, decision=decision, now=LATER)
    assert not inbox.for_staff(fresh, LATER).exists()
    assert list(inbox.pending(alice)) == [decision]


def test_an_unanswered_question_reaches_moderators_after_the_setting(alice, settings):
    decision, _smith, _jones = held_bill(alice)
    rows = MergeDecision.objects.filter(pk=decision.pk)
    assert not inbox.for_staff(rows, NOW + timedelta(days=13, hours=23)).exists()
    assert inbox.for_staff(rows, NOW + timedelta(days=14, seconds=1)).exists()
    settings.MERGE_INBOX_STAFF_AFTER_DAYS = 2
    assert inbox.for_staff(rows, NOW + timedelta(days=2, seconds=1)).exists()
    # Still the owner's to answer after that: the inbox keeps it.
    assert list(inbox.pending(alice)) == [decision]


def test_an_answer_is_given_once_and_undone_only_when_there_is_one(alice, mod):
    decision, smith, _jones = held_bill(alice)
    with pytest.raises(inbox.InboxConflict, match="not been answered"):
        inbox.undo(user=alice, decision=decision, now=LATER)
    inbox.answer(user=alice, decision=decision, answer="unsure", now=LATER)
    with pytest.raises(inbox.InboxConflict, match="already answered"):
        inbox.answer(user=alice, decision=decision, answer="same", into=smith.pk, now=LATER)
    # A moderator settles the escalated question: the owner can no longer take it back.
    merge.keep_apart(user=alice, decision=decision, by=mod, why="two people", now=LATER)
    decision.refresh_from_db()
    assert inbox.summaries(alice, [decision])[0]["state"] == "moderator"
    with pytest.raises(inbox.InboxConflict, match="moderator"):
        inbox.undo(user=alice, decision=decision, now=LATER)
    with pytest.raises(inbox.InboxConflict, match="already settled"):
        inbox.answer(user=alice, decision=decision, answer="same", into=smith.pk, now=LATER)


def test_a_question_whose_node_is_gone_leaves_the_inbox(alice):
    decision, _smith, _jones = held_bill(alice)
    forget_node(user=alice, node=decision.moved["node"], now=LATER)
    assert list(inbox.pending(alice)) == []
    with pytest.raises(inbox.InboxConflict, match="no longer applies"):
        inbox.answer(user=alice, decision=decision, answer="different", now=LATER)


def test_bob_reaches_nothing_of_alices_inbox(alice, bob):
    decision, smith, _jones = held_bill(alice)
    build_two_bills(bob)
    before = list(MergeDecision.objects.values("id", "status", "answer", "kept_id"))
    assert list(inbox.pending(bob)) == [] and list(inbox.settled(bob)) == []
    with pytest.raises(LookupError):
        inbox.get_item(bob, decision.pk)
    for answer in ("same", "different", "unsure"):
        with pytest.raises(LookupError):
            inbox.answer(
                user=bob,
                decision=decision.pk,
                answer=answer,
                into=smith.pk if answer == "same" else None,
                now=LATER,
            )
    inbox.answer(user=alice, decision=decision, answer="unsure", now=LATER)
    with pytest.raises(LookupError):
        inbox.undo(user=bob, decision=decision.pk, now=LATER)
    assert MergeDecision.objects.get(pk=decision.pk).answer == "unsure"
    assert [r for r in before if r["id"] != decision.pk] == [
        r
        for r in MergeDecision.objects.values("id", "status", "answer", "kept_id")
        if r["id"] != decision.pk
    ]
    # bob's summaries of alice's decision name none of her nodes.
    assert inbox.summaries(bob, [decision])[0]["candidates"][0]["exists"] is False


def test_a_decision_that_was_never_a_question_is_not_in_the_inbox(alice):
    william = make_node(alice, "William")
    billy = make_node(alice, "Billy")
    manual = merge.merge_nodes(user=alice, keep=william, absorb=billy, reason="same", now=NOW)
    with pytest.raises(LookupError):
        inbox.get_item(alice, manual.pk)
