"""What a chat turn costs the database outside the Read: every statement of ``begin_turn``,
the self names and ``_store_reply`` runs on the process's one database thread, every user's
turn queued there behind the others' (docs/BENCHMARKS.md, issue 20). The counts are upper
bounds that fail when a change adds a query."""

from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.db import connection
from django.http import Http404
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from chat.models import Conversation, Message
from chat.services import TurnError, begin_turn, run_turn
from memory.core.merge_rules import normalise_name
from memory.models import Edge, Node
from memory.services import keys

pytestmark = pytest.mark.django_db


def statements(context) -> list[str]:
    return [
        q["sql"]
        for q in context.captured_queries
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))
    ]


def small_graph(user, now):
    me = Node.objects.create(
        user=user,
        kind="PERSON",
        name="alice",
        normalised_name="alice",
        is_self=True,
        aliases=["Al"],
        created_at=now,
        updated_at=now,
    )
    joshua = Node.objects.create(
        user=user,
        kind="PERSON",
        name="Joshua",
        normalised_name=normalise_name("Joshua"),
        created_at=now,
        updated_at=now,
    )
    Edge.objects.create(
        user=user,
        source=me,
        relation="HAS_BOSS",
        target=joshua,
        last_touched_at=now,
        created_at=now,
    )
    keys.sync_node_keys(user_id=user.pk, nodes=[me, joshua])
    keys.sync_relation_keys(user_id=user.pk)


def test_storing_a_message_takes_four_statements(alice, conversation):
    now = timezone.now()
    with CaptureQueriesContext(connection) as context:
        start = begin_turn(
            user=alice, conversation_id=conversation.pk, text="hello", client_id="c1", now=now
        )
    # The conversation with the user's count of the last minute, the client id's earlier
    # turn, the insert and the conversation's update.
    assert len(statements(context)) == 4, statements(context)
    assert start.user_message.text == "hello" and start.reply is None
    conversation.refresh_from_db()
    assert conversation.title == "hello" and conversation.last_message_at == now

    # A resend of the same client id is one lookup for both sides of the turn.
    with CaptureQueriesContext(connection) as context:
        again = begin_turn(
            user=alice, conversation_id=conversation.pk, text="hello", client_id="c1", now=now
        )
    assert len(statements(context)) == 2
    assert again.user_message == start.user_message


def test_the_rate_limit_still_counts_the_last_minute(alice, conversation, settings):
    settings.CHAT_MESSAGES_PER_MINUTE = 2
    now = timezone.now()
    Message.objects.create(
        user=alice,
        conversation=conversation,
        role="user",
        text="old",
        created_at=now - timedelta(minutes=2),
    )
    for i in range(2):
        begin_turn(user=alice, conversation_id=conversation.pk, text=f"m{i}", client_id="", now=now)
    with pytest.raises(TurnError) as refused:
        begin_turn(user=alice, conversation_id=conversation.pk, text="third", client_id="", now=now)
    assert refused.value.code == "rate_limited"


def test_bobs_messages_do_not_count_against_alices_rate_limit(alice, bob, conversation, settings):
    settings.CHAT_MESSAGES_PER_MINUTE = 1
    now = timezone.now()
    bobs = Conversation.objects.create(user=bob, started_at=now)
    begin_turn(user=bob, conversation_id=bobs.pk, text="bob's", client_id="", now=now)
    start = begin_turn(
        user=alice, conversation_id=conversation.pk, text="alice's", client_id="", now=now
    )
    assert start.user_message.user == alice
    with pytest.raises(Http404):
        begin_turn(user=bob, conversation_id=conversation.pk, text="hi", client_id="", now=now)


def test_an_offline_turn_takes_a_bounded_number_of_queries(alice, conversation, settings):
    settings.ANTHROPIC_API_KEY = ""
    settings.MEMORY_READ_STRATEGY = "spec"
    now = timezone.now()
    small_graph(alice, now)
    events = []

    async def send(event):
        events.append(event)

    async_to_sync(run_turn)(
        user=alice,
        conversation_id=conversation.pk,
        text="Joshua?",
        client_id="warm",
        send=send,
        now=now,
    )  # warms the key cache
    events.clear()
    with CaptureQueriesContext(connection) as context:
        reply = async_to_sync(run_turn)(
            user=alice,
            conversation_id=conversation.pk,
            text="What about Joshua?",
            client_id="t2",
            send=send,
            now=now + timedelta(seconds=1),
        )

    # begin_turn 4, the Read (warm, on a small graph: 3) with the self names, the reply's
    # insert and the conversation's update: 10 (11 before the count was folded into the
    # conversation's lookup).
    assert len(statements(context)) <= 10, statements(context)
    assert events[0]["type"] == "recall" and events[-1]["type"] == "done"
    assert "Joshua" in reply.text and "your boss" in reply.text.lower()
