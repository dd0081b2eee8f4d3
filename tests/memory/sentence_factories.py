"""Conversations for sentence-store tests: rows through the ORM, indexed as the extraction
job indexes them (``memory.services.sentences.index_conversation``, the real sentence model)."""

from __future__ import annotations

from datetime import datetime, timedelta

from chat.models import Conversation, ConversationStatus, Message, Role
from memory.services import sentences
from tests.memory.factories import T0


def ended_conversation(
    user, turns, *, at: datetime = T0, incognito: bool = False, index: bool = True
):
    """An ended conversation of ``turns`` — each a text (a user turn) or a ``(role, text)`` /
    ``(role, text, speaker, offline)`` tuple — a second apart from ``at``; indexed unless
    ``index`` is False. Returns ``(conversation, messages)``."""
    conversation = Conversation.objects.create(
        user=user,
        started_at=at,
        incognito=incognito,
        status=ConversationStatus.ENDED,
        ended_at=at + timedelta(minutes=5),
    )
    rows = []
    for i, turn in enumerate(turns):
        role, text, speaker, offline = (
            (Role.USER, turn, "", False) if isinstance(turn, str) else (*turn, "", False)[:4]
        )
        rows.append(
            Message(
                user=user,
                conversation=conversation,
                role=role,
                text=text,
                speaker=speaker,
                offline=offline,
                created_at=at + timedelta(seconds=i),
            )
        )
    messages = Message.objects.bulk_create(rows)
    if index:
        sentences.index_conversation(user=user, conversation=conversation, now=at)
    return conversation, messages


def manager_story(user, *, at: datetime = T0):
    """An ended, indexed conversation about a manager and a sister, and the graph it taught:
    ``me -[HAS_MANAGER]-> Priya`` (snippet cut from the first message) and a sister ``Kate``
    (alias ``Katie``). Returns ``(conversation, messages, edge, kate)``."""
    from tests.memory.factories import make_edge, make_node

    conversation, messages = ended_conversation(
        user,
        [
            "My manager Priya keeps moving my deadlines around.",
            "Katie finally moved to Lisbon with her partner.",
            "I adopted a beagle called Biscuit last week.",
        ],
        at=at,
    )
    me = make_node(user, "Sam", is_self=True)
    priya = make_node(user, "Priya")
    kate = make_node(user, "Kate", aliases=["Katie"])
    edge = make_edge(
        user, me, "HAS_MANAGER", priya, snippet="My manager Priya keeps moving my deadlines around."
    )
    make_edge(user, me, "HAS_SISTER", kate)
    from memory.models import Snippet

    Snippet.objects.filter(edge=edge).update(message=messages[0])
    return conversation, messages, edge, kate
