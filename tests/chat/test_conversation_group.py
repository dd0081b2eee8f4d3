"""Every socket on a conversation hears the others' messages and its end (issue 19, item 6);
another user's sockets hear nothing."""

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.utils import timezone

from chat.models import Conversation
from tests.chat.conftest import communicator, receive_turn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture(autouse=True)
def offline(settings):
    settings.ANTHROPIC_API_KEY = ""


async def test_second_socket_receives_the_message_the_reply_and_the_end(alice, bob, conversation):
    bobs = await sync_to_async(Conversation.objects.create)(user=bob, started_at=timezone.now())
    first, second = (
        await communicator(conversation.pk, alice),
        await communicator(conversation.pk, alice),
    )
    outsider = await communicator(bobs.pk, bob)
    for comm in (first, second, outsider):
        assert (await comm.connect())[0]

    await first.send_json_to({"type": "message", "text": "Hello from tab one", "client_id": "a"})
    events = await receive_turn(first)
    assert events[-1]["type"] == "done"
    mine = await second.receive_json_from(timeout=10)
    assert mine["type"] == "message" and mine["message"]["role"] == "user"
    assert mine["message"]["text"] == "Hello from tab one"
    assert mine["title"] == "Hello from tab one"
    reply = await second.receive_json_from(timeout=10)
    assert reply["type"] == "message" and reply["message"] == events[-1]["message"]
    assert await first.receive_nothing(timeout=0.3)  # the sender is not echoed

    await first.send_json_to({"type": "end"})
    assert (await first.receive_json_from(timeout=10))["type"] == "ended"
    assert (await second.receive_json_from(timeout=10))["type"] == "ended"
    assert await first.receive_nothing(timeout=0.3)  # told once
    assert await outsider.receive_nothing(timeout=0.5)  # bob hears nothing of alice's
    for comm in (first, second, outsider):
        await comm.disconnect()


async def test_ending_over_http_tells_the_open_socket(alice, conversation):
    comm = await communicator(conversation.pk, alice)
    assert (await comm.connect())[0]

    def end_over_http():
        client = Client()
        client.force_login(alice)
        return client.post(f"/chat/{conversation.pk}/end/").status_code

    assert await sync_to_async(end_over_http)() == 302
    event = await comm.receive_json_from(timeout=10)
    assert event == {"type": "ended", "conversation": conversation.pk}
    await comm.disconnect()


async def test_bob_cannot_join_alices_conversation_group(alice, bob, conversation):
    intruder = await communicator(conversation.pk, bob)
    connected, code = await intruder.connect()
    assert not connected and code == 4404
    comm = await communicator(conversation.pk, alice)
    assert (await comm.connect())[0]
    await comm.send_json_to({"type": "end"})
    assert (await comm.receive_json_from(timeout=10))["type"] == "ended"
    await comm.disconnect()
