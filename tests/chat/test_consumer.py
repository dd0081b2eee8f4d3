"""The chat websocket: protocol, ownership, limits, idempotent end."""

import pytest
from asgiref.sync import sync_to_async
from django_q.models import OrmQ

from chat.models import Conversation, Message
from memory.models import Episode, Traversal
from tests.chat.conftest import communicator, receive_turn
from tests.memory.factories import make_edge, make_node

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture(autouse=True)
def offline(settings):
    settings.ANTHROPIC_API_KEY = ""


async def test_offline_turn_sends_recall_then_deltas_then_done_and_stores_both(alice, conversation):
    comm = await communicator(conversation.pk, alice)
    connected, _ = await comm.connect()
    assert connected
    await comm.send_json_to({"type": "message", "text": "Hello there", "client_id": "c1"})
    events = await receive_turn(comm)
    kinds = [e["type"] for e in events]
    assert kinds[0] == "recall" and kinds[-1] == "done"
    assert set(kinds[1:-1]) == {"delta"}
    assert set(events[0]["record"]) >= {
        "words",
        "seeds",
        "fired",
        "memory_lines",
        "context_snippets",
        "crossed_edges",
        "text",
    }
    streamed = "".join(e["text"] for e in events if e["type"] == "delta")
    done = events[-1]["message"]
    assert done["text"] == streamed and "Offline mode" in streamed
    stored = await sync_to_async(list)(
        Message.objects.filter(conversation=conversation).values_list("role", "text", "offline")
    )
    assert stored == [("user", "Hello there", False), ("assistant", streamed, True)]
    await comm.disconnect()


async def test_offline_reply_is_composed_from_what_was_recalled(alice, conversation):
    def build():
        me = make_node(alice, "Trevor", "PERSON", is_self=True)
        boss = make_node(alice, "Joshua", "PERSON")
        make_edge(alice, me, "HAS_BOSS", boss, snippet="my current boss, Joshua, is great")

    await sync_to_async(build)()
    comm = await communicator(conversation.pk, alice)
    await comm.connect()
    await comm.send_json_to({"type": "message", "text": "What does Joshua think?"})
    events = await receive_turn(comm)
    record = events[0]["record"]
    assert "Trevor -[HAS_BOSS]-> Joshua" in record["memory_lines"]
    reply = events[-1]["message"]["text"]
    assert "Joshua is your boss." in reply and "-[" not in reply  # sentences, not the panel
    assert "“my current boss, Joshua, is great”" in reply
    stored = await sync_to_async(Message.objects.get)(conversation=conversation, role="assistant")
    assert stored.recall["memory_lines"] == record["memory_lines"]
    logged = await sync_to_async(Traversal.objects.get)(conversation=conversation)
    assert len(logged.edge_ids) >= 1
    await comm.disconnect()


async def test_incognito_conversation_logs_no_traversals(alice, conversation):
    def build():
        conversation.incognito = True
        conversation.save()
        me = make_node(alice, "Trevor", "PERSON", is_self=True)
        make_edge(alice, me, "HAS_BOSS", make_node(alice, "Joshua", "PERSON"), snippet="Joshua")

    await sync_to_async(build)()
    comm = await communicator(conversation.pk, alice)
    await comm.connect()
    await comm.send_json_to({"type": "message", "text": "Joshua"})
    events = await receive_turn(comm)
    assert events[0]["record"]["crossed_edges"]
    assert await sync_to_async(Traversal.objects.count)() == 0
    await comm.disconnect()


async def test_bob_cannot_open_alices_conversation(bob, conversation):
    comm = await communicator(conversation.pk, bob)
    connected, code = await comm.connect()
    assert not connected and code == 4404


async def test_a_missing_conversation_looks_the_same_as_someone_elses(alice):
    comm = await communicator(999999, alice)
    connected, code = await comm.connect()
    assert not connected and code == 4404


async def test_anonymous_user_cannot_open_a_conversation(conversation):
    comm = await communicator(conversation.pk, None)
    connected, code = await comm.connect()
    assert not connected and code == 4401


async def test_a_foreign_origin_is_refused(alice, conversation):
    comm = await communicator(conversation.pk, alice, origin=b"http://evil.example.com")
    connected, _ = await comm.connect()
    assert not connected


async def test_oversize_message_gets_an_error_and_the_socket_keeps_working(alice, conversation):
    comm = await communicator(conversation.pk, alice)
    await comm.connect()
    await comm.send_json_to({"type": "message", "text": "x" * 8001})
    error = await comm.receive_json_from(timeout=10)
    assert error["type"] == "error" and error["code"] == "too_long"
    assert "8000" in error["detail"]
    await comm.send_json_to({"type": "message", "text": "short one"})
    events = await receive_turn(comm)
    assert events[-1]["type"] == "done"
    assert await sync_to_async(Message.objects.filter(role="user").count)() == 1
    await comm.disconnect()


@pytest.mark.parametrize(
    "frame",
    [
        "not json",
        "[1, 2]",
        '{"kind": "message"}',
        '{"type": "dance"}',
        '{"type": "message", "text": 5}',
    ],
)
async def test_malformed_frames_get_a_clear_error(alice, conversation, frame):
    comm = await communicator(conversation.pk, alice)
    await comm.connect()
    await comm.send_to(text_data=frame)
    error = await comm.receive_json_from(timeout=10)
    assert error["type"] == "error" and error["code"] == "bad_request"
    assert error["detail"]
    await comm.disconnect()


async def test_a_resent_message_is_stored_once_and_the_reply_replayed(alice, conversation):
    comm = await communicator(conversation.pk, alice)
    await comm.connect()
    await comm.send_json_to({"type": "message", "text": "Remember this", "client_id": "same"})
    first = await receive_turn(comm)
    await comm.send_json_to({"type": "message", "text": "Remember this", "client_id": "same"})
    second = await receive_turn(comm)
    assert [e["type"] for e in second] == ["done"]
    assert second[0]["message"]["id"] == first[-1]["message"]["id"]
    assert await sync_to_async(Message.objects.count)() == 2
    await comm.disconnect()


async def test_end_enqueues_exactly_one_extraction_job(alice, conversation):
    comm = await communicator(conversation.pk, alice)
    await comm.connect()
    await comm.send_json_to({"type": "message", "text": "My boss is Joshua."})
    await receive_turn(comm)
    await comm.send_json_to({"type": "end"})
    assert (await comm.receive_json_from(timeout=10))["type"] == "ended"
    await comm.send_json_to({"type": "end"})
    assert (await comm.receive_json_from(timeout=10))["type"] == "ended"
    assert await sync_to_async(Episode.objects.filter(conversation=conversation).count)() == 1
    assert await sync_to_async(OrmQ.objects.count)() == 1
    ended = await sync_to_async(Conversation.objects.get)(pk=conversation.pk)
    assert ended.status == "ended" and ended.ended_at is not None
    await comm.send_json_to({"type": "message", "text": "one more"})
    error = await comm.receive_json_from(timeout=10)
    assert error["code"] == "conversation_ended"
    await comm.disconnect()


@pytest.mark.parametrize(("window", "served"), [(3600, True), (0, False)])
async def test_the_sign_in_is_re_checked_once_its_last_check_is_older_than_the_window(
    alice, conversation, settings, window, served
):
    """A positive check is reused for CHAT_SIGNIN_RECHECK_SECONDS; sign-outs, password
    changes and deactivations close the socket at once by a close event
    (tests/security/test_socket_lifetime.py), the re-check is for what sends none."""
    from django.contrib.sessions.models import Session

    settings.CHAT_SIGNIN_RECHECK_SECONDS = window
    comm = await communicator(conversation.pk, alice)
    assert (await comm.connect())[0]
    await comm.send_json_to({"type": "message", "text": "first", "client_id": "a"})
    assert (await receive_turn(comm))[-1]["type"] == "done"
    await sync_to_async(Session.objects.all().delete)()  # behind the socket's back

    await comm.send_json_to({"type": "message", "text": "second", "client_id": "b"})
    if served:
        assert (await receive_turn(comm))[-1]["type"] == "done"
        await comm.disconnect()
    else:
        output = await comm.receive_output(timeout=5)
        assert (output["type"], output.get("code")) == ("websocket.close", 4401)
    texts = await sync_to_async(list)(
        Message.objects.filter(conversation=conversation, role="user")
        .order_by("id")
        .values_list("text", flat=True)
    )
    assert texts == (["first", "second"] if served else ["first"])
