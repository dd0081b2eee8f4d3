"""The merge inbox over the API (mobile): list, show one, answer, undo — and bob, signed in
with his own token, gets a 404 for every one of alice's questions and changes nothing.

Held decisions come from the real Write path (tests/memory/test_inbox_service.py)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from memory import embedding
from memory.models import MergeDecision, Node
from memory.services.graph_io import export_graph
from memory.services.merge import merge_nodes
from tests.memory.factories import HashEncoder, make_node
from tests.memory.test_inbox_service import held_bill, held_coach

pytestmark = pytest.mark.django_db

INBOX = "/api/v1/memory/inbox/"


@pytest.fixture(autouse=True)
def stand_in_encoder():
    with embedding.use_encoder(HashEncoder()):
        yield


def item(pk: int, action: str = "") -> str:
    return f"{INBOX}{pk}/" + (f"{action}/" if action else "")


def error_code(response) -> str:
    return response.json()["error"]["code"]


@pytest.fixture
def bill(alice):
    return held_bill(alice)


def test_the_inbox_lists_pending_questions(alice_api, bill):
    decision, smith, jones = bill
    response = alice_api.get(INBOX)
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 1
    [row] = body["results"]
    assert row["id"] == decision.pk and row["state"] == "pending"
    assert row["question"] == "Is Bill the same person as William Smith or Robert Jones?"
    assert row["noun"] == "person" and row["kind"] == "PERSON"
    assert [c["id"] for c in row["candidates"]] == [smith.pk, jones.pk]
    assert "lines" not in row["entity"]
    assert alice_api.get(INBOX + "?state=settled").json()["count"] == 0


def test_one_question_shows_both_neighbourhoods_and_sentences(alice_api, bill):
    decision, smith, _jones = bill
    body = alice_api.get(item(decision.pk)).json()
    assert body["entity"]["lines"][0]["text"] == "alice -[HAS_FRIEND]-> Bill"
    assert body["entity"]["lines"][0]["snippet"] == "my friend Bill from Leeds"
    william = next(c for c in body["candidates"] if c["id"] == smith.pk)
    assert william["lines"][0] == {
        "id": william["lines"][0]["id"],
        "dormant": False,
        "text": "William Smith -[WORKS_AT]-> Acme",
        "snippet": "Bill works at Acme",
    }
    assert william["more"] == 0


def test_same_then_undo(alice_api, alice, bill):
    decision, _smith, jones = bill
    before = export_graph(user=alice)
    response = alice_api.post(
        item(decision.pk, "answer"), {"answer": "same", "into": jones.pk}, format="json"
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["state"] == "same" and body["can_undo"] is True
    assert body["merged_into"] == {"id": jones.pk, "name": "Robert Jones"}
    assert body["entity"]["exists"] is False
    assert not Node.objects.filter(pk=decision.moved["node"]).exists()
    assert alice_api.get(INBOX).json()["count"] == 0
    settled = alice_api.get(INBOX + "?state=settled").json()["results"]
    assert [(r["id"], r["state"]) for r in settled] == [(decision.pk, "same")]

    response = alice_api.post(item(decision.pk, "undo"), format="json")
    assert response.status_code == 200, response.content
    assert response.json()["state"] == "pending"
    assert export_graph(user=alice) == before
    assert alice_api.get(INBOX).json()["count"] == 1


def test_different_and_not_sure(alice_api, bill):
    decision, _smith, _jones = bill
    body = alice_api.post(
        item(decision.pk, "answer"), {"answer": "different"}, format="json"
    ).json()
    assert body["state"] == "different" and body["status"] == "kept-apart"
    assert alice_api.post(item(decision.pk, "undo")).json()["state"] == "pending"
    body = alice_api.post(item(decision.pk, "answer"), {"answer": "unsure"}, format="json").json()
    assert body["state"] == "unsure" and body["status"] == "held"
    assert MergeDecision.objects.get(pk=decision.pk).answer == "unsure"


def test_a_single_candidate_needs_no_into(alice_api, alice):
    decision, dan = held_coach(alice)
    body = alice_api.post(item(decision.pk, "answer"), {"answer": "same"}, format="json").json()
    assert body["merged_into"] == {"id": dan.pk, "name": "Dan Miller"}


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "answer"),
        ({"answer": "maybe"}, "answer"),
        ({"answer": "same"}, "into"),  # two candidates: which one?
        ({"answer": "same", "into": 999999}, "into"),
        ({"answer": "different", "into": 1}, "into"),
    ],
)
def test_bad_answers_are_400_with_the_field(alice_api, bill, payload, field):
    decision = bill[0]
    response = alice_api.post(item(decision.pk, "answer"), payload, format="json")
    assert response.status_code == 400, response.content
    assert error_code(response) == "validation_error"
    assert field in response.json()["error"]["fields"]
    assert MergeDecision.objects.get(pk=decision.pk).status == "held"


def test_a_bad_state_is_400(alice_api):
    response = alice_api.get(INBOX + "?state=everything")
    assert response.status_code == 400 and "state" in response.json()["error"]["fields"]


def test_answering_twice_or_undoing_nothing_is_409(alice_api, bill):
    decision = bill[0]
    response = alice_api.post(item(decision.pk, "undo"))
    assert response.status_code == 409 and error_code(response) == "conflict"
    alice_api.post(item(decision.pk, "answer"), {"answer": "unsure"}, format="json")
    response = alice_api.post(item(decision.pk, "answer"), {"answer": "different"}, format="json")
    assert response.status_code == 409 and "undo it first" in response.json()["error"]["detail"]


def test_a_decision_that_is_not_a_question_is_404(alice_api, alice):
    manual = merge_nodes(
        user=alice,
        keep=make_node(alice, "William"),
        absorb=make_node(alice, "Billy"),
        reason="same",
        now=timezone.now(),
    )
    for response in (
        alice_api.get(item(manual.pk)),
        alice_api.post(item(manual.pk, "answer"), {"answer": "different"}, format="json"),
        alice_api.post(item(manual.pk, "undo")),
    ):
        assert response.status_code == 404 and error_code(response) == "not_found"


# --- bob, with his own token, on alice's questions -----------------------------------------------


def alices_inbox(alice) -> list[dict]:
    return list(
        MergeDecision.objects.for_user(alice)
        .order_by("id")
        .values("id", "status", "answer", "answered_at", "kept_id", "log")
    )


def test_bob_does_not_see_alices_questions_in_his_list(bob_api, bill):
    for state in ("pending", "settled"):
        body = bob_api.get(f"{INBOX}?state={state}").json()
        assert body["count"] == 0 and body["results"] == []


def test_bob_cannot_open_alices_question(bob_api, bill):
    response = bob_api.get(item(bill[0].pk))
    assert response.status_code == 404 and error_code(response) == "not_found"
    assert "Bill" not in response.content.decode()


@pytest.mark.parametrize("answer", ["same", "different", "unsure"])
def test_bob_cannot_answer_alices_question(bob_api, alice, bill, answer):
    decision, smith, _jones = bill
    before = alices_inbox(alice)
    graph = export_graph(user=alice)
    payload = {"answer": answer, **({"into": smith.pk} if answer == "same" else {})}
    response = bob_api.post(item(decision.pk, "answer"), payload, format="json")
    assert response.status_code == 404 and error_code(response) == "not_found"
    assert alices_inbox(alice) == before
    assert export_graph(user=alice) == graph


def test_bob_cannot_undo_alices_answer(alice_api, bob_api, alice, bill):
    decision, smith, _jones = bill
    alice_api.post(item(decision.pk, "answer"), {"answer": "same", "into": smith.pk}, format="json")
    before = alices_inbox(alice)
    graph = export_graph(user=alice)
    response = bob_api.post(item(decision.pk, "undo"))
    assert response.status_code == 404 and error_code(response) == "not_found"
    assert alices_inbox(alice) == before
    assert export_graph(user=alice) == graph
