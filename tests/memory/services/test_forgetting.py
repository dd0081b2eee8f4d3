"""Forgetting forgets (issue: the Read found forgotten words again in the sentence store): a
forgotten memory's sentences, every sentence naming a forgotten node, and a deleted
conversation's sentences are never recalled again — through the API's recall endpoint, the
explorer's recall preview (the same endpoint with the browser session) and the Read itself;
the export says what was forgotten and when, without the text. Bob's identical words never
appear in Alice's Read, before or after."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.services import export_account
from accounts.tokens import create_token
from memory.models import ForgottenText, Sentence
from memory.services import corrections
from memory.services.read import recall
from tests.memory.factories import T0
from tests.memory.sentence_factories import ended_conversation, manager_story

pytestmark = pytest.mark.django_db

API = "/api/v1/memory"
MANAGER = "Tell me about my manager Priya and the deadlines"


@pytest.fixture(autouse=True)
def offline(settings):
    settings.ANTHROPIC_API_KEY = ""


def api(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {create_token(user=user, device='t').token}")
    return client


def explorer(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def recalled(client, message: str) -> str:
    """What a recall endpoint recalled (everything but the echo of the message's words), as
    one string."""
    response = client.post(f"{API}/recall/", {"message": message}, content_type="application/json")
    assert response.status_code == 200
    return json.dumps({k: v for k, v in response.json().items() if k != "words"})


def test_a_forgotten_memory_is_never_recalled_again_anywhere(alice, bob):
    _, _, edge, _ = manager_story(alice)
    manager_story(bob)
    assert "deadlines" in recalled(api(alice), MANAGER)  # it was there before

    response = api(alice).delete(f"{API}/edges/{edge.pk}/")
    assert response.status_code == 204

    assert "deadlines" not in recalled(api(alice), MANAGER)
    assert "deadlines" not in recalled(explorer(alice), MANAGER)
    assert "deadlines" not in recall(user=alice, message=MANAGER, now=timezone.now()).text
    # Bob forgot nothing: his own identical sentence is still his, and only his.
    assert "deadlines" in recalled(api(bob), MANAGER)
    assert not Sentence.objects.for_user(alice).filter(text__contains="deadlines").exists()


def test_a_forgotten_node_takes_every_sentence_naming_it_by_name_or_alias(alice, bob):
    _, _, _, kate = manager_story(alice)
    ended_conversation(alice, ["KATE called about the Lisbon flat again."])
    manager_story(bob)
    assert "Lisbon" in recalled(api(alice), "Who moved to Lisbon?")

    response = api(alice).delete(f"{API}/nodes/{kate.pk}/")
    assert response.status_code == 204

    for client in (api(alice), explorer(alice)):
        assert "Lisbon" not in recalled(client, "Who moved to Lisbon?")
    assert "Lisbon" in recalled(api(bob), "Who moved to Lisbon?")
    # The other sentences of the conversation stay.
    assert "beagle" in recalled(api(alice), "What is my beagle called?")


def test_a_deleted_conversation_is_never_recalled_again(alice, bob):
    conversation, _, _, _ = manager_story(alice)
    manager_story(bob)
    assert "beagle" in recalled(api(alice), "What is my beagle called?")

    response = api(alice).delete(f"/api/v1/conversations/{conversation.pk}/")
    assert response.status_code == 204

    assert "beagle" not in recalled(api(alice), "What is my beagle called?")
    assert "beagle" not in recalled(explorer(alice), "What is my beagle called?")
    assert "beagle" in recalled(api(bob), "What is my beagle called?")


def test_bobs_identical_sentences_never_appear_in_alices_read(alice, bob):
    manager_story(bob)
    ended_conversation(alice, ["The bakery on my street sells sourdough."])

    for client in (api(alice), explorer(alice)):
        text = recalled(client, MANAGER + " and my beagle Biscuit in Lisbon")
        assert "Priya" not in text and "Biscuit" not in text and "Lisbon" not in text


def test_forgetting_bobs_rows_through_alice_is_a_404_and_changes_nothing(alice, bob):
    _, _, edge, kate = manager_story(bob)
    before = Sentence.objects.for_user(bob).count()

    assert api(alice).delete(f"{API}/edges/{edge.pk}/").status_code == 404
    assert api(alice).delete(f"{API}/nodes/{kate.pk}/").status_code == 404

    assert Sentence.objects.for_user(bob).count() == before


def test_a_reindex_after_forgetting_does_not_bring_the_sentence_back(alice):
    from memory.services import sentences

    conversation, _, edge, kate = manager_story(alice)
    corrections.forget_edge(user=alice, edge=edge, now=T0)
    corrections.forget_node(user=alice, node=kate, now=T0)

    sentences.index_conversation(user=alice, conversation=conversation, now=T0)

    assert list(Sentence.objects.for_user(alice).values_list("text", flat=True)) == [
        "I adopted a beagle called Biscuit last week."
    ]
    # What is kept to make that so holds no text.
    kept = list(ForgottenText.objects.for_user(alice).values_list("kind", "digest"))
    assert {kind for kind, _ in kept} == {"sentence", "name"}
    assert not any("Katie" in digest or "Priya" in digest for _, digest in kept)


def test_bobs_forgetting_never_hides_alices_sentences(alice, bob):
    _, _, edge, kate = manager_story(bob)
    conversation, _, _, _ = manager_story(alice)
    corrections.forget_edge(user=bob, edge=edge, now=T0)
    corrections.forget_node(user=bob, node=kate, now=T0)

    from memory.services import sentences

    sentences.index_conversation(user=alice, conversation=conversation, now=T0)

    assert Sentence.objects.for_user(alice).count() == 3


def test_the_export_says_what_was_forgotten_and_when_without_the_text(alice):
    _, _, edge, kate = manager_story(alice)
    corrections.forget_edge(user=alice, edge=edge, now=T0)
    corrections.forget_node(user=alice, node=kate, now=T0)

    data = export_account(user=alice, now=T0)

    assert data["forgotten"] == [
        {"what": "memory", "id": edge.pk, "forgotten_at": T0.isoformat()},
        {"what": "node", "id": kate.pk, "forgotten_at": T0.isoformat()},
    ]
    assert "deadlines" not in json.dumps(data["forgotten"])
    assert "Katie" not in json.dumps(data["forgotten"])
