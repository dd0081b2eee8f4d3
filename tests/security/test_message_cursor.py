"""Issue 18 item 5: a crafted message cursor is a 400 in the API's error shape, not a 500."""

from base64 import b64encode

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.tokens import create_token
from chat.models import Conversation, Message

API = "/api/v1/conversations"


def token_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {create_token(user=user, device='t').token}")
    return client


@pytest.fixture
def conversation(alice):
    conversation = Conversation.objects.create(user=alice, started_at=timezone.now())
    for i in range(3):
        Message.objects.create(
            user=alice,
            conversation=conversation,
            role="user",
            text=f"m{i}",
            created_at=timezone.now(),
        )
    return conversation


def cursor(text: str) -> str:
    return b64encode(text.encode()).decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "raw",
    [
        "cD0yMDI2",  # p=2026, the probe's cursor
        cursor("p=not-a-date"),
        cursor("p=2026-13-45T99:99:99"),
        cursor("p=\x00"),
        cursor("o=-1"),
        cursor("r=x"),
        "garbage",
        cursor("p=9999999-01-01"),
    ],
)
def test_a_crafted_cursor_is_a_400_in_the_error_shape(alice, conversation, raw):
    response = token_client(alice).get(f"{API}/{conversation.pk}/messages/?cursor={raw}")
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert error["code"] == "invalid_cursor"
    assert set(error) == {"code", "detail", "fields"}


@pytest.mark.django_db
def test_a_real_cursor_still_pages(alice, conversation):
    client = token_client(alice)
    first = client.get(f"{API}/{conversation.pk}/messages/?page_size=2").json()
    second = client.get(first["next"])
    assert second.status_code == 200
    assert [m["text"] for m in second.json()["results"]] == ["m2"]


@pytest.mark.django_db
def test_bob_cannot_page_alices_messages_with_her_cursor(alice, bob, conversation):
    first = token_client(alice).get(f"{API}/{conversation.pk}/messages/?page_size=2").json()
    assert token_client(bob).get(first["next"]).status_code == 404
