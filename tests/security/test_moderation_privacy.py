"""Issue 18 item 9: moderators do not read transcripts by default, never an incognito one,
and every moderator view of user content is logged (and shown in the admin)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from chat.models import Conversation, Message
from ops.models import ModeratorView
from tests.memory.factories import make_node

pytestmark = pytest.mark.django_db

SECRET = "my-private-transcript-line-4f2a"
INCOGNITO = "an-incognito-confession-9c1d"


@pytest.fixture
def chats(alice):
    now = timezone.now()
    normal = Conversation.objects.create(user=alice, title=f"About {SECRET}", started_at=now)
    hidden = Conversation.objects.create(
        user=alice, title=f"About {INCOGNITO}", started_at=now, incognito=True
    )
    said = Message.objects.create(
        user=alice, conversation=normal, role="user", text=SECRET, created_at=now
    )
    confessed = Message.objects.create(
        user=alice, conversation=hidden, role="user", text=INCOGNITO, created_at=now
    )
    return normal, hidden, said, confessed


@pytest.fixture
def viewer(django_user_model):
    """Staff with every view permission except ops.read_transcripts."""
    user = django_user_model.objects.create_user(
        "viewer", "v@example.com", "viewer-pass-1", is_staff=True
    )
    user.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    return user


def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def page(client, name, *args) -> tuple[int, str]:
    response = client.get(reverse(name, args=args))
    return response.status_code, response.content.decode()


def test_without_the_transcript_permission_no_title_or_message_is_shown(viewer, chats):
    normal, _hidden, said, _ = chats
    client = browser(viewer)
    status, body = page(client, "admin:chat_conversation_changelist")
    assert status == 200 and SECRET not in body and INCOGNITO not in body
    assert f"Conversation {normal.pk}" in body  # that it exists is visible
    status, body = page(client, "admin:chat_conversation_change", normal.pk)
    assert status == 200 and SECRET not in body
    assert page(client, "admin:chat_message_changelist")[0] == 403
    assert page(client, "admin:chat_message_change", said.pk)[0] == 403
    assert "chat/message/" not in page(client, "admin:index")[1]


def test_with_it_transcripts_show_but_never_incognito_ones(mod, chats):
    normal, hidden, _said, confessed = chats
    client = browser(mod)  # a superuser holds ops.read_transcripts
    status, body = page(client, "admin:chat_conversation_change", normal.pk)
    assert status == 200 and SECRET in body
    status, body = page(client, "admin:chat_conversation_change", hidden.pk)
    assert status == 200 and INCOGNITO not in body
    status, body = page(client, "admin:chat_conversation_changelist")
    assert SECRET in body and INCOGNITO not in body
    status, body = page(client, "admin:chat_message_changelist")
    assert status == 200 and SECRET in body and INCOGNITO not in body
    response = client.get(reverse("admin:chat_message_change", args=[confessed.pk]), follow=True)
    assert INCOGNITO not in response.content.decode()


def test_every_view_of_user_content_is_logged_and_shown_in_the_admin(mod, alice, bob, chats):
    _normal, _, said, _ = chats
    node = make_node(alice, "Joshua")
    client = browser(mod)
    client.get(reverse("admin:memory_node_change", args=[node.pk]))
    client.get(reverse("admin:chat_message_change", args=[said.pk]))
    client.get(reverse("admin:chat_conversation_changelist") + f"?user__id__exact={alice.pk}")
    client.get(reverse("admin:ops_workerheartbeat_changelist"))  # no user content: not logged
    logged = list(
        ModeratorView.objects.order_by("id").values_list(
            "moderator__username", "subject__username", "model", "object_id"
        )
    )
    assert logged == [
        ("mod", "alice", "memory.node", str(node.pk)),
        ("mod", "alice", "chat.message", str(said.pk)),
        ("mod", "alice", "chat.conversation", ""),
    ]
    # The log holds no content.
    assert not ModeratorView.objects.filter(path__contains=SECRET).exists()
    status, body = page(client, "admin:ops_moderatorview_changelist")
    assert status == 200 and "memory.node" in body and "chat.message" in body
    # Bob, not staff, reaches neither the log nor alice's content.
    bobs = browser(bob)
    assert page(bobs, "admin:ops_moderatorview_changelist")[0] == 302
    assert page(bobs, "admin:chat_message_change", said.pk)[0] == 302


def test_a_refused_page_is_not_logged_as_a_view(viewer, chats):
    _, _, said, _ = chats
    browser(viewer).get(reverse("admin:chat_message_change", args=[said.pk]))
    assert not ModeratorView.objects.exists()
