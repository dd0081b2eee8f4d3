"""Forgetting through the chat (issue: "Forget does not forget"): after Alice forgets a
memory, a new conversation's turn recalls none of its words — not from the graph, not from
the sentence store — while Bob's identical words stay his and never reach her."""

import json

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from chat.models import Conversation
from memory.services import corrections
from tests.chat.conftest import communicator, receive_turn
from tests.memory.sentence_factories import manager_story

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

ASK = "Tell me about my manager Priya and the deadlines"


async def turn(user, text: str) -> str:
    """One websocket turn in a new conversation of ``user``: every frame but the echo of the
    message, as one string."""
    conversation = await sync_to_async(Conversation.objects.create)(
        user=user, started_at=timezone.now()
    )
    comm = await communicator(conversation.pk, user)
    connected, _ = await comm.connect()
    assert connected
    await comm.send_json_to({"type": "message", "text": text, "client_id": "c1"})
    events = await receive_turn(comm)
    await comm.disconnect()
    assert events[-1]["type"] == "done"
    return json.dumps(_without_words(events)).replace(json.dumps(text)[1:-1], "")


def _without_words(value):
    # A Read record's "words" echo the message; everything else is what was recalled.
    if isinstance(value, dict):
        return {k: _without_words(v) for k, v in value.items() if k != "words"}
    if isinstance(value, list):
        return [_without_words(v) for v in value]
    return value


async def test_a_forgotten_memory_never_comes_back_in_a_new_conversation(alice, bob, settings):
    settings.ANTHROPIC_API_KEY = ""
    _, _, edge, kate = await sync_to_async(manager_story)(alice)
    await sync_to_async(manager_story)(bob)
    before = await turn(alice, ASK + " and who moved to Lisbon")
    assert "moving my deadlines" in before and "with her partner" in before

    await sync_to_async(corrections.forget_edge)(user=alice, edge=edge, now=timezone.now())
    await sync_to_async(corrections.forget_node)(user=alice, node=kate, now=timezone.now())

    after = await turn(alice, ASK + " and who moved to Lisbon")
    # The reply may name a word of the question ("nothing about Lisbon yet"), never the
    # forgotten sentences.
    for forgotten in ("moving my deadlines", "with her partner", "Katie"):
        assert forgotten not in after
    bobs = await turn(bob, ASK + " and who moved to Lisbon")
    assert "moving my deadlines" in bobs and "with her partner" in bobs
