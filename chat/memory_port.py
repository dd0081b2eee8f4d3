"""Chat's side of ``memory.ports.Conversations``: what memory reads of conversations and
their turns, answered through the owner gate. Registered in ``ChatConfig.ready()``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from django.db.models import Q

from chat.models import Conversation, ConversationStatus, Message, Role
from memory.ports import ConversationInfo, MessageInfo

_MESSAGE_FIELDS = ("id", "role", "speaker", "offline", "text", "created_at")


class ChatConversations:
    """``memory.ports.Conversations`` over ``chat.models``."""

    def get(self, *, user, conversation_id: int, lock: bool = False) -> ConversationInfo | None:
        rows = Conversation.objects.for_user(user)
        if lock:
            rows = rows.select_for_update()
        row = rows.filter(pk=conversation_id).first()
        if row is None:
            return None
        return ConversationInfo(
            id=row.pk,
            user_id=row.user_id,
            ended=row.status == ConversationStatus.ENDED,
            incognito=row.incognito,
            started_at=row.started_at,
            ended_at=row.ended_at,
        )

    def owner_id(self, conversation_id: int) -> int | None:
        # Across users on purpose: an operator's command names a conversation by id.
        rows = Conversation.objects.filter(pk=conversation_id)
        return rows.values_list("user_id", flat=True).first()

    def first_message_at(self, *, user, conversation_id: int) -> datetime | None:
        return (
            Message.objects.for_user(user)
            .filter(conversation_id=conversation_id)
            .order_by("created_at", "id")
            .values_list("created_at", flat=True)
            .first()
        )

    def has_user_turns(self, *, user, conversation_id: int) -> bool:
        return (
            Message.objects.for_user(user)
            .filter(conversation_id=conversation_id, role=Role.USER)
            .exists()
        )

    def messages(
        self, *, user, conversation_id: int, user_turns_only: bool = False
    ) -> list[MessageInfo]:
        rows = Message.objects.for_user(user).filter(conversation_id=conversation_id)
        if user_turns_only:
            rows = rows.filter(role=Role.USER)
        return [
            MessageInfo(*row)
            for row in rows.order_by("created_at", "id").values_list(*_MESSAGE_FIELDS)
        ]

    def mentioning_user_turns(
        self, *, user, conversation_id: int, forms: Sequence[str], limit: int
    ) -> list[MessageInfo]:
        if not forms:
            return []
        mentions = Q()
        for form in forms:
            mentions |= Q(text__icontains=form)
        rows = (
            Message.objects.for_user(user)
            .filter(mentions, conversation_id=conversation_id, role=Role.USER)
            .order_by("created_at", "id")
            .values_list(*_MESSAGE_FIELDS)[:limit]
        )
        return [MessageInfo(*row) for row in rows]

    def user_turn_texts(self, *, user, message_ids: Iterable[int]) -> dict[str, str]:
        ids = set(message_ids)
        if not ids:
            return {}
        rows = Message.objects.for_user(user).filter(pk__in=ids, role=Role.USER)
        return {str(pk): text for pk, text in rows.values_list("pk", "text")}

    def existing_message_ids(self, *, user, message_ids: Iterable[int]) -> set[int]:
        return set(
            Message.objects.for_user(user)
            .filter(pk__in=list(message_ids))
            .values_list("pk", flat=True)
        )

    def existing_conversation_ids(self, *, user, conversation_ids: Iterable[int]) -> set[int]:
        return set(
            Conversation.objects.for_user(user)
            .filter(pk__in=list(conversation_ids))
            .values_list("pk", flat=True)
        )
