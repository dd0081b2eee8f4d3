"""A turn (SPEC §3): store the user's message → Read → prompt = system prompt + recent turns +
the recalled ``[MEMORY]``/``[CONTEXT]`` blocks as quoted data → stream the reply (Claude, or
offline a reply composed from what was recalled, labelled) → store the reply with its Read
record. The websocket consumer and the API call ``run_turn`` and only translate its events to
their protocol."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import (
    IntegrityError,
    InterfaceError,
    OperationalError,
    close_old_connections,
    connection,
    transaction,
)
from django.db.models import Count, Subquery, Sum
from django.utils import timezone

from chat.models import Conversation, ConversationStatus, Message, Role
from chat.services.conversations import broadcast
from chat.services.prompt import (
    offline_reply,
    prompt_turns,
    recent_turns,
    system_prompt,
    user_self_names,
)
from chat.services.reply import Usage, claude_stream, offline_stream
from lib import llm

logger = logging.getLogger(__name__)


class TurnError(Exception):
    """A turn that cannot go ahead; ``code`` and ``detail`` go to the client as they are."""

    def __init__(self, code: str, detail: str):
        super().__init__(detail)
        self.code, self.detail = code, detail


# --- Turns -----------------------------------------------------------------------------------


@dataclass
class TurnStart:
    conversation: Conversation
    user_message: Message
    reply: Message | None  # already answered (a resend after a reconnect)


def _check_limits(user, text: str, now: datetime, recent: int | None = None) -> str:
    """The text, stripped, if it may be sent; ``recent`` is the user's messages in the last
    minute when the caller already counted them (``begin_turn``, with the conversation)."""
    if not isinstance(text, str):
        raise TurnError("bad_request", "The message text must be a string.")
    text = text.strip()
    if not text:
        raise TurnError("empty", "The message is empty.")
    if len(text) > settings.CHAT_MAX_MESSAGE_CHARS:
        raise TurnError(
            "too_long",
            f"Messages are limited to {settings.CHAT_MAX_MESSAGE_CHARS} characters "
            f"(this one has {len(text)}).",
        )
    if recent is None:
        recent = _recent_messages(user, now).count()
    if recent >= settings.CHAT_MESSAGES_PER_MINUTE:
        raise TurnError(
            "rate_limited",
            f"You can send {settings.CHAT_MESSAGES_PER_MINUTE} messages a minute; "
            "please wait a moment.",
        )
    if llm.llm_enabled():
        day_start = now.replace(hour=0, minute=0, second=0, microsecond=0)
        used = (
            Message.objects.for_user(user)
            .filter(created_at__gte=day_start)
            .aggregate(total=Sum("input_tokens") + Sum("output_tokens"))["total"]
            or 0
        )
        if used >= settings.CHAT_DAILY_TOKEN_BUDGET:
            raise TurnError(
                "budget_exhausted",
                "You have used today's assistant budget; it renews at midnight UTC.",
            )
    return text


def _recent_messages(user, now: datetime):
    """The user's own messages of the minute before ``now`` (the rate limit counts them)."""
    return Message.objects.for_user(user).filter(
        role=Role.USER, created_at__gte=now - timedelta(minutes=1)
    )


def begin_turn(*, user, conversation_id, text, client_id: str, now: datetime) -> TurnStart:
    """Validate and store the user's message (once per ``client_id``).

    Three queries for a new message (the conversation with the user's count of the last
    minute, the client id's earlier turn, the insert with the conversation's update in one
    transaction)."""
    from memory.models import get_owned_or_404

    recent = (
        _recent_messages(user, now).order_by().values("user").annotate(n=Count("id")).values("n")
    )
    conversation = get_owned_or_404(
        Conversation.objects.annotate(recent_messages=Subquery(recent)), user, pk=conversation_id
    )
    client_id = (client_id or "")[:64] if isinstance(client_id, str) else ""
    if client_id:
        earlier = {
            m.role: m
            for m in conversation.messages.filter(
                client_id=client_id, role__in=(Role.USER, Role.ASSISTANT)
            )
        }
        if Role.USER in earlier:
            return TurnStart(conversation, earlier[Role.USER], earlier.get(Role.ASSISTANT))
    if conversation.status != ConversationStatus.OPEN:
        raise TurnError(
            "conversation_ended", "This conversation has ended; start a new one to keep chatting."
        )
    text = _check_limits(user, text, now, recent=conversation.recent_messages or 0)
    try:
        with transaction.atomic():
            message = Message.objects.create(
                user=user,
                conversation=conversation,
                role=Role.USER,
                text=text,
                client_id=client_id,
                created_at=now,
            )
            updates = {"last_message_at": now}
            if not conversation.title:
                updates["title"] = _title_from(text)
            Conversation.objects.filter(pk=conversation.pk).update(**updates)
    except IntegrityError:
        # The same client_id raced in from a second socket: that one stored it.
        existing = conversation.messages.get(role=Role.USER, client_id=client_id)
        return TurnStart(conversation, existing, None)
    return TurnStart(conversation, message, None)


def _title_from(text: str) -> str:
    first = " ".join(text.split())
    return first if len(first) <= 60 else first[:57].rstrip() + "…"


RECORD_LIST_LIMIT = 100
"""Seeds and crossed edge ids a turn's recall frame and stored message carry at most (the
rest are counted in ``record["omitted"]``; ``manage.py recall --json`` and the API's recall
endpoint give the whole record). A Read on a 10 000-node graph can seed thousands of nodes:
the full record was ~390 kB per turn."""


def _recall(
    user, conversation: Conversation, text: str, now: datetime, *, self_names: bool = False
) -> tuple[dict, list[str]]:
    """The turn's Read, and with ``self_names`` the user's own names for the offline reply
    (in the same call: one hop less)."""
    from memory.services.read import recall

    record = recall(
        user=user,
        message=text,
        now=now,
        conversation=None if conversation.incognito else conversation,
    )
    names = user_self_names(user) if self_names else []
    return record.to_dict(limit=RECORD_LIST_LIMIT), names


def _store_reply(
    *,
    user,
    conversation: Conversation,
    user_message: Message,
    text: str,
    record: dict,
    offline: bool,
    usage: Usage,
    now: datetime,
) -> Message:
    reply = Message.objects.create(
        user=user,
        conversation=conversation,
        role=Role.ASSISTANT,
        text=text,
        recall=record,
        offline=offline,
        client_id=user_message.client_id,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        created_at=now,
    )
    Conversation.objects.filter(pk=conversation.pk).update(last_message_at=now)
    return reply


def message_payload(message: Message) -> dict:
    return {
        "id": message.pk,
        "role": message.role,
        "text": message.text,
        "created_at": message.created_at.isoformat(),
        "client_id": message.client_id,
        "offline": message.offline,
        "recall": message.recall if message.role == Role.ASSISTANT else None,
    }


Send = Callable[[dict], Awaitable[None]]

# The database went away mid-turn (a restart, a dropped connection).
DATABASE_DOWN = (OperationalError, InterfaceError)


async def database_failed(send: Send, *, saved: bool) -> None:
    """Tell the user the turn failed on the database, and drop this thread's broken
    connection so that the next turn (this socket's or another's) connects afresh."""
    logger.warning("chat turn failed: the database is unavailable", exc_info=True)
    await sync_to_async(close_old_connections)()
    detail = (
        "Pegasus could not reach its database. Your message is saved; send it again to retry."
        if saved
        else "Pegasus could not reach its database, so your message "
        "was not saved. Please send it again."
    )
    await send({"type": "error", "code": "server_error", "detail": detail})


def _in_transaction() -> bool:
    return connection.in_atomic_block


def _with_own_connection(function, *args, **kwargs):
    """``function`` on a pool thread's own connection, released as Django releases a
    request's: closed when broken or older than ``DB_CONN_MAX_AGE`` (default 60 s), and
    health-checked before its next use (``conn_health_checks``), so a database restart cannot
    leave a thread holding a dead one."""
    close_old_connections()
    try:
        return function(*args, **kwargs)
    finally:
        close_old_connections()


async def _database(function, *args, in_transaction: bool, **kwargs):
    """Run a turn's database step off the event loop.

    On a pool thread (``thread_sensitive=False``) with that thread's own connection: on the
    process's one sync thread every user's steps queued behind the others', each waiting on
    PostgreSQL — at 50 turns/s storing the message and storing the reply waited 90 ms there
    each (docs/BENCHMARKS.md). A caller inside a transaction (an API view in an atomic block,
    a test) must read its own uncommitted writes: then the step runs on the caller's thread
    and connection."""
    if in_transaction:
        return await sync_to_async(function, thread_sensitive=True)(*args, **kwargs)
    return await sync_to_async(_with_own_connection, thread_sensitive=False)(
        function, *args, **kwargs
    )


async def run_turn(
    *,
    user,
    conversation_id,
    text,
    client_id: str = "",
    send: Send,
    now: datetime | None = None,
    origin: str = "",
) -> Message | None:
    """One chat turn, reported through ``send`` as protocol events:
    ``recall`` → ``delta``… → ``done`` (or one ``error``). Returns the stored reply.

    The user's message is stored before anything can fail, so a failed reply loses nothing.
    A database outage gives ``server_error`` (saying whether the message was stored); the
    same ``client_id`` sent again is answered once.
    """
    fixed_clock = now is not None
    now = now or timezone.now()

    # Read on the caller's thread: no database work, so it waits for nothing there.
    in_transaction = await sync_to_async(_in_transaction)()
    try:
        start = await _database(
            begin_turn,
            user=user,
            conversation_id=conversation_id,
            text=text,
            client_id=client_id,
            now=now,
            in_transaction=in_transaction,
        )
    except TurnError as exc:
        await send({"type": "error", "code": exc.code, "detail": exc.detail})
        return None
    except DATABASE_DOWN:
        await database_failed(send, saved=False)
        return None
    if start.reply is not None:  # a resend of a turn that was already answered
        await send(
            {
                "type": "done",
                "message": message_payload(start.reply),
                "user_message": message_payload(start.user_message),
            }
        )
        return start.reply

    conversation, user_message = start.conversation, start.user_message
    # Other tabs on this conversation see the message (and below, the reply) as it is stored.
    title = conversation.title or _title_from(user_message.text)
    await broadcast(
        conversation.pk,
        {"type": "message", "title": title, "message": message_payload(user_message)},
        origin=origin,
    )
    offline = not llm.llm_enabled()
    try:
        record, self_names = await _database(
            _recall,
            user,
            conversation,
            user_message.text,
            now,
            self_names=offline,
            in_transaction=in_transaction,
        )
    except DATABASE_DOWN:
        await database_failed(send, saved=True)
        return None
    await send({"type": "recall", "record": record, "user_message": message_payload(user_message)})

    usage = Usage()
    chunks: list[str] = []
    try:
        if offline:
            stream = offline_stream(
                offline_reply(record, message=user_message.text, self_names=self_names)
            )
        else:
            turns = await _database(
                recent_turns, conversation, user_message, in_transaction=in_transaction
            )
            stream = claude_stream(
                system_prompt(record["text"]), prompt_turns(turns, record["text"]), usage
            )
        async for chunk in stream:
            chunks.append(chunk)
            await send({"type": "delta", "text": chunk})
    except Exception as exc:  # the LLM failed after retries: tell the user, lose nothing
        error = llm.as_llm_error(exc)
        logger.warning(
            "chat reply failed for conversation %s: %s (%s)",
            conversation.pk,
            type(exc).__name__,
            getattr(error, "detail", ""),
        )
        await send(
            {
                "type": "error",
                "code": "llm_unavailable",
                "detail": f"{error} Your message is saved; send it again to retry.",
            }
        )
        return None
    try:
        reply = await _database(
            _store_reply,
            in_transaction=in_transaction,
            user=user,
            conversation=conversation,
            user_message=user_message,
            text="".join(chunks),
            record=record,
            offline=offline,
            usage=usage,
            now=now if fixed_clock else timezone.now(),
        )
    except DATABASE_DOWN:
        await database_failed(send, saved=True)
        return None
    await send({"type": "done", "message": message_payload(reply)})
    await broadcast(
        conversation.pk, {"type": "message", "message": message_payload(reply)}, origin=origin
    )
    return reply
