"""Conversations: start, rename, delete, end (enqueueing their one extraction job), the idle
sweep, and the live updates every open tab of a conversation receives."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import (
    transaction,
)

from chat.models import Conversation, ConversationStatus, Role

logger = logging.getLogger(__name__)


# --- Live updates to every open tab of a conversation ---------------------------------------


def conversation_group(conversation_id: int) -> str:
    """The channel-layer group every socket open on a conversation joins."""
    return f"conversation.{int(conversation_id)}"


async def broadcast(conversation_id: int, payload: dict, *, origin: str = "") -> None:
    """Send ``payload`` (a protocol event) to every socket on the conversation except the
    channel ``origin`` (the tab that caused it already has it). Best effort: a channel layer
    outage must not fail a turn that is already stored."""
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    if layer is None:
        return
    try:
        await layer.group_send(
            conversation_group(conversation_id),
            {"type": "conversation.event", "origin": origin, "payload": payload},
        )
    except Exception:
        logger.warning("could not broadcast to conversation %s", conversation_id, exc_info=True)


def broadcast_on_commit(conversation_id: int, payload: dict, *, origin: str = "") -> None:
    """``broadcast`` from synchronous code, once the surrounding transaction commits."""
    from asgiref.sync import async_to_sync

    transaction.on_commit(lambda: async_to_sync(broadcast)(conversation_id, payload, origin=origin))


# --- Conversations ---------------------------------------------------------------------------


def start_conversation(
    *, user, now: datetime, title: str = "", incognito: bool | None = None
) -> Conversation:
    """A new open conversation. ``incognito`` defaults to the user's preference."""
    if incognito is None:
        incognito = _default_incognito(user)
    return Conversation.objects.create(
        user=user, title=title.strip()[:200], incognito=incognito, started_at=now
    )


def _default_incognito(user) -> bool:
    profile = getattr(user, "profile", None)
    return bool(profile is not None and not getattr(profile, "memory_enabled", True))


def rename_conversation(*, conversation: Conversation, title: str) -> Conversation:
    conversation.title = title.strip()[:200]
    conversation.save(update_fields=["title"])
    return conversation


def delete_conversation(*, conversation: Conversation) -> None:
    """Delete a conversation and its messages. What was already learned from it stays in
    the memory graph (its episode loses the link); forget it from the explorer."""
    conversation.delete()


def end_conversation(*, user, conversation: Conversation, now: datetime, origin: str = ""):
    """End an open conversation and enqueue its one extraction job (idempotent).

    Returns the Episode (None for an empty conversation). Ending twice, or ending an
    already-ended conversation, enqueues nothing new. Every socket on the conversation but
    the channel ``origin`` is told it ended.
    """
    from memory.services.jobs import schedule_extraction

    with transaction.atomic():
        locked = Conversation.objects.for_user(user).select_for_update().get(pk=conversation.pk)
        if locked.status == ConversationStatus.OPEN:
            locked.status = ConversationStatus.ENDED
            locked.ended_at = now
            locked.save(update_fields=["status", "ended_at"])
            # Every other tab on it (and its sidebar) learns it ended, whoever ended it.
            broadcast_on_commit(
                locked.pk, {"type": "ended", "conversation": locked.pk}, origin=origin
            )
        conversation.status, conversation.ended_at = locked.status, locked.ended_at
        if not locked.messages.filter(role=Role.USER).exists():
            return None
        return schedule_extraction(user=user, conversation=locked, now=now)


def close_idle_conversations(*, now: datetime, idle_minutes: int) -> int:
    """End every open conversation whose last message is older than ``idle_minutes``."""
    cutoff = now - timedelta(minutes=idle_minutes)
    # Materialised up front: enqueueing a job may recycle the database connection (django-q2's
    # ORM broker), which would kill a server-side cursor.
    idle = list(
        Conversation.objects.filter(
            status=ConversationStatus.OPEN, last_message_at__lt=cutoff
        ).select_related("user")
    )
    for conversation in idle:
        end_conversation(user=conversation.user, conversation=conversation, now=now)
    return len(idle)
