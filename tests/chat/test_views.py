"""Chat pages: the owner sees them; bob gets 404 for everything of alice's."""

import pytest
from django.utils import timezone

from chat.models import Conversation, Message

pytestmark = pytest.mark.django_db


def test_anonymous_users_are_sent_to_sign_in(client, conversation):
    for url in ["/chat/", f"/chat/{conversation.pk}/"]:
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_owner_sees_the_conversation_page_with_its_history(
    client, alice, conversation, settings
):
    settings.ANTHROPIC_API_KEY = ""
    Message.objects.create(
        user=alice,
        conversation=conversation,
        role="user",
        text="<b>hi</b>",
        created_at=timezone.now(),
    )
    client.force_login(alice)
    response = client.get(f"/chat/{conversation.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert f'data-ws-path="/ws/chat/{conversation.pk}/"' in html
    assert "<b>hi</b>" not in html  # history travels as escaped JSON, rendered as text
    assert "Offline mode" in html
    assert "Content-Security-Policy" in response.headers
    assert "unsafe-inline" not in response.headers["Content-Security-Policy"]


def test_new_conversation_is_created_and_opened(client, alice):
    client.force_login(alice)
    response = client.post("/chat/new/", {"incognito": "1"})
    conversation = Conversation.objects.get(user=alice)
    assert response["Location"] == f"/chat/{conversation.pk}/"
    assert conversation.incognito is True


@pytest.mark.parametrize(
    "method,suffix",
    [
        ("get", ""),
        ("get", "messages/"),
        ("post", "rename/"),
        ("post", "delete/"),
        ("post", "end/"),
    ],
)
def test_bob_gets_404_for_every_page_of_alices_conversation(
    client, bob, conversation, method, suffix
):
    client.force_login(bob)
    response = getattr(client, method)(f"/chat/{conversation.pk}/{suffix}", {"title": "pwned"})
    assert response.status_code == 404
    conversation.refresh_from_db()
    assert conversation.title == "" and conversation.status == "open"


def test_rename_end_and_delete(client, alice, conversation):
    client.force_login(alice)
    response = client.post(
        f"/chat/{conversation.pk}/rename/", {"title": "  Career  "}, HTTP_ACCEPT="application/json"
    )
    assert response.json()["title"] == "Career"
    client.post(f"/chat/{conversation.pk}/end/")
    conversation.refresh_from_db()
    assert conversation.status == "ended"
    client.post(f"/chat/{conversation.pk}/delete/")
    assert not Conversation.objects.filter(pk=conversation.pk).exists()


def test_messages_endpoint_returns_only_newer_messages(client, alice, conversation):
    now = timezone.now()
    first = Message.objects.create(
        user=alice, conversation=conversation, role="user", text="one", created_at=now
    )
    Message.objects.create(
        user=alice, conversation=conversation, role="user", text="two", created_at=now
    )
    client.force_login(alice)
    data = client.get(f"/chat/{conversation.pk}/messages/?after={first.pk}").json()
    assert [m["text"] for m in data["messages"]] == ["two"]
    assert data["status"] == "open"
