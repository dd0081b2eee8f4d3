"""The chat API: conversations, messages, turns (JSON and server-sent events), ending."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import HttpCommunicator
from django.utils import timezone

from accounts.tokens import create_token
from chat.models import Conversation, Message
from memory.models import Episode
from pegasus_site.asgi import application
from tests.memory.factories import make_edge, make_node

pytest_plugins = ["tests.fakes.conftest_plugin"]

API = "/api/v1/conversations"


@pytest.fixture
def conversation(alice):
    return Conversation.objects.create(user=alice, title="Work", started_at=timezone.now())


def add_message(conversation, role, text, at):
    return Message.objects.create(
        user=conversation.user, conversation=conversation, role=role, text=text, created_at=at
    )


# --- conversations ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_conversations_are_created_listed_renamed_and_deleted(alice_api, alice):
    created = alice_api.post(f"{API}/", {"title": "Plans", "incognito": True}, format="json")
    assert created.status_code == 201
    body = created.json()
    assert set(body) == {
        "id",
        "title",
        "status",
        "incognito",
        "started_at",
        "last_message_at",
        "ended_at",
    }
    assert (body["title"], body["status"], body["incognito"]) == ("Plans", "open", True)
    default = alice_api.post(f"{API}/", {}, format="json").json()
    assert default["title"] == "" and default["incognito"] is False

    listed = alice_api.get(f"{API}/").json()
    assert listed["count"] == 2
    assert [c["id"] for c in listed["results"]] == [default["id"], body["id"]]

    url = f"{API}/{body['id']}/"
    assert alice_api.get(url).json() == body
    renamed = alice_api.patch(url, {"title": "  Holiday plans "}, format="json")
    assert renamed.status_code == 200 and renamed.json()["title"] == "Holiday plans"
    assert Conversation.objects.get(pk=body["id"]).title == "Holiday plans"

    add_message(Conversation.objects.get(pk=body["id"]), "user", "hello", timezone.now())
    assert alice_api.delete(url).status_code == 204
    assert not Conversation.objects.filter(pk=body["id"]).exists()
    assert not Message.objects.filter(conversation_id=body["id"]).exists()
    assert alice_api.get(url).status_code == 404


@pytest.mark.django_db
def test_a_title_is_required_to_rename(alice_api, conversation):
    response = alice_api.patch(f"{API}/{conversation.pk}/", {}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"title": ["This field is required."]}


@pytest.mark.django_db
def test_messages_come_in_cursor_pages_oldest_first(alice_api, conversation):
    start = timezone.now()
    rows = [
        add_message(conversation, role, f"m{i}", start + timedelta(seconds=i))
        for i, role in enumerate(["user", "assistant", "user"])
    ]
    first = alice_api.get(f"{API}/{conversation.pk}/messages/?page_size=2").json()
    assert [m["id"] for m in first["results"]] == [rows[0].pk, rows[1].pk]
    assert first["previous"] is None and "cursor=" in first["next"]
    assert set(first["results"][0]) == {
        "id",
        "role",
        "text",
        "created_at",
        "client_id",
        "offline",
        "recall",
    }
    second = alice_api.get(first["next"]).json()
    assert [m["text"] for m in second["results"]] == ["m2"] and second["next"] is None
    broken = alice_api.get(f"{API}/{conversation.pk}/messages/?cursor=garbage")
    assert broken.status_code == 400 and broken.json()["error"]["code"] == "invalid_cursor"


@pytest.mark.django_db
def test_ending_a_conversation_queues_its_extraction_once(alice_api, conversation):
    add_message(conversation, "user", "My boss Joshua is great", timezone.now())
    response = alice_api.post(f"{API}/{conversation.pk}/end/")
    assert response.status_code == 200
    body = response.json()
    episode = Episode.objects.get(conversation=conversation)
    assert body == {"id": conversation.pk, "status": "ended", "episode_id": episode.pk}
    again = alice_api.post(f"{API}/{conversation.pk}/end/").json()
    assert again == body
    assert Episode.objects.filter(conversation=conversation).count() == 1


@pytest.mark.django_db
def test_ending_an_empty_conversation_remembers_nothing(alice_api, conversation):
    body = alice_api.post(f"{API}/{conversation.pk}/end/").json()
    assert body == {"id": conversation.pk, "status": "ended", "episode_id": None}


# --- a turn as JSON ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_turn_returns_both_messages_and_what_was_recalled(alice_api, alice, conversation):
    me = make_node(alice, "Trevor", "PERSON", is_self=True)
    make_edge(
        alice,
        me,
        "HAS_BOSS",
        make_node(alice, "Joshua", "PERSON"),
        snippet="my boss Joshua is great",
    )
    response = alice_api.post(
        f"{API}/{conversation.pk}/messages/",
        {"text": "What about Joshua?", "client_id": "c-1"},
        format="json",
    )
    assert response.status_code == 201
    body = response.json()
    assert body["user_message"]["text"] == "What about Joshua?"
    assert body["user_message"]["role"] == "user" and body["user_message"]["recall"] is None
    reply = body["assistant_message"]
    assert reply["role"] == "assistant" and reply["offline"] is True
    assert "Joshua" in reply["text"] and "-[" not in reply["text"]  # plain sentences
    assert body["recall"]["memory_lines"] == ["Trevor -[HAS_BOSS]-> Joshua"]
    assert reply["recall"]["memory_lines"] == body["recall"]["memory_lines"]
    assert list(conversation.messages.values_list("role", "client_id")) == [
        ("user", "c-1"),
        ("assistant", "c-1"),
    ]

    resent = alice_api.post(
        f"{API}/{conversation.pk}/messages/",
        {"text": "What about Joshua?", "client_id": "c-1"},
        format="json",
    )
    assert resent.status_code == 201
    assert resent.json()["assistant_message"]["id"] == reply["id"]
    assert conversation.messages.count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize(("text", "code"), [("   ", "empty"), ("x" * 30, "too_long")])
def test_an_invalid_message_is_a_400_with_the_turns_code(
    alice_api, conversation, settings, text, code
):
    settings.CHAT_MAX_MESSAGE_CHARS = 20
    response = alice_api.post(f"{API}/{conversation.pk}/messages/", {"text": text}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code and error["fields"] == {"text": [error["detail"]]}
    assert not conversation.messages.exists()


@pytest.mark.django_db
def test_a_message_to_an_ended_conversation_is_a_conflict(alice_api, conversation):
    alice_api.post(f"{API}/{conversation.pk}/end/")
    response = alice_api.post(f"{API}/{conversation.pk}/messages/", {"text": "hi"}, format="json")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "conversation_ended"


@pytest.mark.django_db
def test_too_many_messages_a_minute_is_a_429(alice_api, conversation, settings):
    settings.CHAT_MESSAGES_PER_MINUTE = 1
    url = f"{API}/{conversation.pk}/messages/"
    assert alice_api.post(url, {"text": "one"}, format="json").status_code == 201
    response = alice_api.post(url, {"text": "two"}, format="json")
    assert response.status_code == 429 and response.json()["error"]["code"] == "rate_limited"


@pytest.mark.django_db
def test_a_failing_model_is_a_503_and_the_message_stays(
    alice_api, conversation, fake_anthropic, settings
):
    settings.ANTHROPIC_MAX_RETRIES = 0
    fake_anthropic.script([{"status": 500}])
    response = alice_api.post(
        f"{API}/{conversation.pk}/messages/", {"text": "Are you there?"}, format="json"
    )
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "llm_unavailable"
    assert list(conversation.messages.values_list("role", "text")) == [("user", "Are you there?")]


@pytest.mark.django_db
def test_a_turn_with_the_model_returns_its_reply(alice_api, conversation, fake_anthropic):
    fake_anthropic.script([["Hello ", "Alice."]])
    body = alice_api.post(
        f"{API}/{conversation.pk}/messages/", {"text": "Hi"}, format="json"
    ).json()
    assert body["assistant_message"]["text"] == "Hello Alice."
    assert body["assistant_message"]["offline"] is False


# --- a turn as server-sent events -------------------------------------------------------------


def parse_sse(raw: str) -> list[tuple[str, dict]]:
    events = []
    for block in raw.split("\n\n"):
        lines = [line for line in block.split("\n") if line and not line.startswith(":")]
        if not lines:
            continue
        fields = dict(line.split(": ", 1) for line in lines)
        events.append((fields["event"], json.loads(fields["data"])))
    return events


async def stream(user, conversation_id, body) -> tuple[int, dict, int, list]:
    """POST a streamed turn through the project's ASGI application (as Daphne would) and
    read the response message by message: (status, headers, body messages, events)."""
    token = (await database_sync_to_async(create_token)(user=user, device="phone")).token
    payload = json.dumps(body).encode()
    comm = HttpCommunicator(
        application,
        "POST",
        f"{API}/{conversation_id}/messages/?stream=1",
        body=payload,
        headers=[
            (b"host", b"testserver"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(payload)).encode()),
            (b"authorization", f"Token {token}".encode()),
        ],
    )
    await comm.send_input({"type": "http.request", "body": comm.body})
    start = await comm.receive_output(timeout=30)
    assert start["type"] == "http.response.start"
    chunks = []
    while True:
        message = await comm.receive_output(timeout=30)
        assert message["type"] == "http.response.body"
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    await comm.wait()
    headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    return start["status"], headers, len(chunks), parse_sse(b"".join(chunks).decode())


@pytest.mark.django_db(transaction=True)
async def test_the_stream_delivers_recall_then_deltas_then_done(alice):
    def build():
        me = make_node(alice, "Trevor", "PERSON", is_self=True)
        make_edge(
            alice,
            me,
            "HAS_BOSS",
            make_node(alice, "Joshua", "PERSON"),
            snippet="my boss Joshua is great",
        )
        return Conversation.objects.create(user=alice, started_at=timezone.now()).pk

    conversation_id = await database_sync_to_async(build)()
    status, headers, messages, events = await stream(
        alice, conversation_id, {"text": "How is Joshua?"}
    )
    assert status == 200
    assert headers["content-type"].startswith("text/event-stream")
    assert headers["cache-control"] == "no-cache"
    assert messages > len(events)  # sent as they happen, not as one body
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "recall" and kinds[-1] == "done" and len(kinds) > 3
    assert set(kinds[1:-1]) == {"delta"}
    assert all(data["type"] == kind for kind, data in events)
    recall = events[0][1]
    assert "Trevor -[HAS_BOSS]-> Joshua" in recall["record"]["memory_lines"]
    assert recall["user_message"]["text"] == "How is Joshua?"
    streamed = "".join(data["text"] for kind, data in events if kind == "delta")
    done = events[-1][1]["message"]
    assert done["text"] == streamed
    stored = await database_sync_to_async(list)(
        Message.objects.filter(conversation_id=conversation_id).values_list("role", "text")
    )
    assert stored == [("user", "How is Joshua?"), ("assistant", streamed)]


@pytest.mark.django_db(transaction=True)
async def test_the_stream_reports_a_refused_turn_as_one_error_event(alice):
    def build():
        return Conversation.objects.create(
            user=alice, started_at=timezone.now(), status="ended", ended_at=timezone.now()
        ).pk

    conversation_id = await database_sync_to_async(build)()
    status, _, _, events = await stream(alice, conversation_id, {"text": "Still there?"})
    assert status == 200
    assert [(kind, data["code"]) for kind, data in events] == [("error", "conversation_ended")]
