"""Chat turns against the local fake Anthropic Messages API (the real SDK streams)."""

import pytest
from asgiref.sync import sync_to_async

from chat.models import Message
from tests.chat.conftest import communicator, receive_turn
from tests.memory.factories import make_edge, make_node

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_a_turn_streams_claudes_reply_in_order_with_memory_in_the_prompt(
    alice, conversation, fake_anthropic
):
    def build():
        me = make_node(alice, "Trevor", "PERSON", is_self=True)
        make_edge(
            alice,
            me,
            "HAS_BOSS",
            make_node(alice, "Joshua", "PERSON"),
            snippet="my current boss, Joshua, keeps moving deadlines",
        )

    await sync_to_async(build)()
    fake_anthropic.script([["Joshua again? ", "Tell me what happened."]])
    comm = await communicator(conversation.pk, alice)
    await comm.connect()
    await comm.send_json_to({"type": "message", "text": "Joshua did it again", "client_id": "a"})
    events = await receive_turn(comm)
    kinds = [e["type"] for e in events]
    assert kinds[0] == "recall" and kinds[-1] == "done"
    deltas = "".join(e["text"] for e in events if e["type"] == "delta")
    assert deltas == "Joshua again? Tell me what happened."
    reply = await sync_to_async(Message.objects.get)(role="assistant")
    assert reply.text == deltas and reply.offline is False
    assert reply.output_tokens > 0
    request = fake_anthropic.requests[-1]
    assert request["stream"] is True
    assert "Trevor" not in request["system"] and "HAS_BOSS" not in request["system"]
    recalled, said = request["messages"][-1]["content"]
    assert recalled["text"].startswith("[MEMORY]")
    assert "Trevor -[HAS_BOSS]-> Joshua" in recalled["text"]
    assert said == {"type": "text", "text": "Joshua did it again"}
    await comm.disconnect()


async def test_a_failing_model_gives_a_clear_error_and_keeps_the_message(
    alice, conversation, fake_anthropic, settings
):
    settings.ANTHROPIC_MAX_RETRIES = 0
    fake_anthropic.script([{"status": 500}, {"status": 500}])
    comm = await communicator(conversation.pk, alice)
    await comm.connect()
    await comm.send_json_to({"type": "message", "text": "Are you there?", "client_id": "x"})
    events = await receive_turn(comm)
    assert events[-1]["type"] == "error" and events[-1]["code"] == "llm_unavailable"
    assert "saved" in events[-1]["detail"]
    assert await sync_to_async(list)(Message.objects.values_list("role", "text")) == [
        ("user", "Are you there?")
    ]
    await comm.disconnect()
