"""Profile, tokens, export and real deletion, end to end with the test client."""

import json

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import models
from django.utils import timezone
from knox.models import AuthToken

from accounts import tokens
from accounts.models import Profile
from chat.models import Conversation, Message
from memory.models import Node
from tests.memory.factories import make_edge, make_node

pytestmark = pytest.mark.django_db


def _populate(user):
    """A little of everything a user can own."""
    me = make_node(user, user.username.title(), "PERSON", is_self=True)
    boss = make_node(user, f"Boss of {user.username}", "PERSON")
    make_edge(user, me, "HAS_BOSS", boss, snippet=f"{user.username}'s boss is strict")
    conversation = Conversation.objects.create(user=user, started_at=timezone.now())
    Message.objects.create(
        user=user,
        conversation=conversation,
        role="user",
        text=f"secret of {user.username}",
        created_at=timezone.now(),
    )
    tokens.create_token(user=user, device="phone")
    Profile.objects.create(user=user, display_name=user.username.title())
    return conversation


def _rows_owned_by(user_id) -> dict[str, int]:
    """Every row in every table that points at the user through a foreign key."""
    user_model = get_user_model()
    counts = {}
    for model in apps.get_models():
        for field in model._meta.get_fields():
            if (
                isinstance(field, models.ForeignKey | models.OneToOneField)
                and field.related_model is user_model
                and field.concrete
            ):
                n = model._default_manager.filter(**{field.attname: user_id}).count()
                if n:
                    counts[f"{model._meta.label}.{field.name}"] = n
    return counts


def test_profile_display_name_becomes_an_alias_of_the_self_node(client, alice):
    make_node(alice, "Alice", "PERSON", is_self=True)
    client.force_login(alice)
    response = client.post(
        "/account/", {"display_name": "Ally", "time_zone": "Europe/Paris", "memory_enabled": ""}
    )
    assert response.status_code == 302
    profile = Profile.objects.get(user=alice)
    assert (profile.display_name, profile.time_zone, profile.memory_enabled) == (
        "Ally",
        "Europe/Paris",
        False,
    )
    me = Node.objects.get(user=alice, is_self=True)
    assert me.name == "Alice" and "Ally" in me.aliases
    # memory off by default → new conversations are incognito
    client.post("/chat/new/")
    assert Conversation.objects.get(user=alice).incognito is True


def test_an_unknown_time_zone_is_rejected(client, alice):
    client.force_login(alice)
    response = client.post("/account/", {"display_name": "", "time_zone": "Mars/Olympus"})
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    assert not Profile.objects.filter(user=alice, time_zone="Mars/Olympus").exists()


def test_tokens_are_shown_once_listed_and_revoked_only_by_their_owner(client, alice, bob):
    client.force_login(alice)
    response = client.post("/account/tokens/", {"device": "Pixel"})
    assert response.status_code == 302 and response["Location"] == "/account/tokens/"
    html = client.get("/account/tokens/").content.decode()
    token = AuthToken.objects.get(user=alice)
    assert "Pixel" in html and "copy it now" in html and token.token_key in html
    # Reloading shows the list without the token, and creates no second one.
    listed = client.get("/account/tokens/").content.decode()
    assert "Pixel" in listed and "copy it now" not in listed
    assert AuthToken.objects.filter(user=alice).count() == 1
    client.force_login(bob)
    assert client.post(f"/account/tokens/{token.digest}/revoke/").status_code == 404
    assert AuthToken.objects.filter(user=alice).count() == 1
    client.force_login(alice)
    client.post(f"/account/tokens/{token.digest}/revoke/")
    assert AuthToken.objects.filter(user=alice).count() == 0


def test_export_downloads_graph_conversations_and_messages_of_the_owner_only(client, alice, bob):
    _populate(alice)
    _populate(bob)
    client.force_login(alice)
    response = client.get("/account/export/")
    assert response["Content-Disposition"].startswith("attachment;")
    data = json.loads(response.content)
    assert data["format"] == "pegasus-account/1"
    assert data["graph"]["format"] == "pegasus-graph/1"
    assert {n["name"] for n in data["graph"]["nodes"]} == {"Alice", "Boss of alice"}
    assert [m["text"] for c in data["conversations"] for m in c["messages"]] == ["secret of alice"]
    assert "bob" not in response.content.decode().lower()


def test_wrong_password_deletes_nothing(client, alice):
    _populate(alice)
    before = _rows_owned_by(alice.pk)
    client.force_login(alice)
    response = client.post("/account/delete/", {"password": "wrong", "confirm": "on"})
    assert response.status_code == 200
    assert "That password is not correct" in response.content.decode()
    assert _rows_owned_by(alice.pk) == before
    assert get_user_model().objects.filter(pk=alice.pk).exists()


def test_delete_requires_the_confirmation_box(client, alice):
    client.force_login(alice)
    client.post("/account/delete/", {"password": "alice-pass-123"})
    assert get_user_model().objects.filter(pk=alice.pk).exists()


def test_delete_erases_every_row_of_the_user_and_nothing_of_anyone_else(client, alice, bob):
    _populate(alice)
    _populate(bob)
    bob_before = _rows_owned_by(bob.pk)
    assert len(_rows_owned_by(alice.pk)) >= 8
    client.force_login(alice)
    response = client.post("/account/delete/", {"password": "alice-pass-123", "confirm": "on"})
    assert response.status_code == 302
    alice_id = alice.pk
    assert not get_user_model().objects.filter(pk=alice_id).exists()
    assert _rows_owned_by(alice_id) == {}
    assert _rows_owned_by(bob.pk) == bob_before
    assert client.get("/chat/").status_code == 302  # signed out


def test_account_pages_need_a_signed_in_user(client):
    for url in ["/account/", "/account/tokens/", "/account/export/", "/account/delete/"]:
        assert client.get(url).status_code == 302


def test_delete_removes_the_users_queued_jobs_but_not_other_peoples(
    client, alice, bob, django_capture_on_commit_callbacks
):
    from django_q.models import OrmQ

    from chat.services import end_conversation

    for user in (alice, bob):
        conversation = _populate(user)
        with django_capture_on_commit_callbacks(execute=True):
            end_conversation(user=user, conversation=conversation, now=timezone.now())
    assert OrmQ.objects.count() == 2
    client.force_login(alice)
    client.post("/account/delete/", {"password": "alice-pass-123", "confirm": "on"})
    remaining = [q.task["args"][0] for q in OrmQ.objects.all()]
    assert len(remaining) == 1
    from memory.models import Episode

    assert Episode.objects.get(pk=remaining[0]).user_id == bob.pk
