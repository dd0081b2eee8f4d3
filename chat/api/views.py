"""The chat API: conversations, their messages, a turn (JSON or a server-sent-event stream)
and ending a conversation.

Thin views over ``chat.services``: a turn is ``run_turn`` — the same protocol events the
websocket sends (``recall`` → ``delta``… → ``done``, or one ``error``) — either collected into
one JSON answer or relayed as they happen as ``text/event-stream``.
"""

from __future__ import annotations

import asyncio
import json
import logging

from asgiref.sync import async_to_sync
from django.http import Http404, StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.generics import GenericAPIView, ListCreateAPIView
from rest_framework.response import Response

from chat import services
from chat.api import serializers as s
from chat.limits import TooManyConversations, check_new_conversation
from chat.models import Conversation, Message
from lib.api import ApiError, ApiMixin, ErrorSerializer, MessageCursorPagination
from memory.api.serializers import ReadRecordSerializer

logger = logging.getLogger(__name__)

TAGS = ["chat"]

# A turn's error code → HTTP status of the JSON answer (a stream reports it as an event).
TURN_ERROR_STATUS = {
    "bad_request": 400,
    "empty": 400,
    "too_long": 400,
    "not_found": 404,
    "conversation_ended": 409,
    "rate_limited": 429,
    "budget_exhausted": 429,
    "llm_unavailable": 503,
    "server_error": 500,
}
_TEXT_ERRORS = {"bad_request", "empty", "too_long"}

# Streams whose client went away keep running to the end (the reply is stored and shows up
# in the message list); this keeps their tasks referenced until then.
_running: set[asyncio.Task] = set()


class ConversationListView(ApiMixin, ListCreateAPIView):
    serializer_class = s.ConversationSerializer

    def get_queryset(self):
        return Conversation.objects.for_user(self.request.user).order_by("-started_at", "-id")

    @extend_schema(tags=TAGS)
    def get(self, request):
        """Your conversations, newest first."""
        return self.list(request)

    @extend_schema(
        tags=TAGS, request=s.ConversationCreateSerializer, responses={201: s.ConversationSerializer}
    )
    def post(self, request):
        """Start a conversation (at most `CHAT_CONVERSATIONS_PER_MINUTE`, default 10, a
        minute: then a 429 `throttled` with `Retry-After`)."""
        body = s.ConversationCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            check_new_conversation(user=request.user, now=timezone.now())
        except TooManyConversations as exc:
            raise exceptions.Throttled(wait=exc.retry_after, detail=str(exc)) from None
        conversation = services.start_conversation(
            user=request.user,
            now=timezone.now(),
            title=body.validated_data.get("title", ""),
            incognito=body.validated_data.get("incognito"),
        )
        return Response(s.ConversationSerializer(conversation).data, status=status.HTTP_201_CREATED)


class ConversationDetailView(ApiMixin, GenericAPIView):
    lookup_url_kwarg = "conversation_id"
    serializer_class = s.ConversationSerializer

    def get_queryset(self):
        return Conversation.objects.for_user(self.request.user)

    @extend_schema(tags=TAGS, responses=s.ConversationSerializer)
    def get(self, request, conversation_id):
        """One conversation."""
        return Response(s.ConversationSerializer(self.get_object()).data)

    @extend_schema(
        tags=TAGS, request=s.ConversationUpdateSerializer, responses=s.ConversationSerializer
    )
    def patch(self, request, conversation_id):
        """Rename a conversation."""
        conversation = self.get_object()
        body = s.ConversationUpdateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        services.rename_conversation(conversation=conversation, title=body.validated_data["title"])
        return Response(s.ConversationSerializer(conversation).data)

    @extend_schema(tags=TAGS, responses={204: None})
    def delete(self, request, conversation_id):
        """Delete a conversation and its messages. What was already learned from it stays in
        your memory (forget it there)."""
        services.delete_conversation(conversation=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)


def _sse(event: dict) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def _failure(exc: BaseException) -> dict:
    if isinstance(exc, Http404):
        return {"type": "error", "code": "not_found", "detail": "Not found."}
    logger.error("chat turn failed", exc_info=exc)
    return {
        "type": "error",
        "code": "server_error",
        "detail": "Something went wrong on our side; your message is saved.",
    }


async def stream_turn(*, user, conversation_id: int, text: str, client_id: str):
    """Server-sent events of one turn: ``event: <type>`` and ``data: <the event as JSON>``
    for ``recall``, each ``delta``, then ``done`` (or ``error``). Runs ``run_turn`` as a task
    so that a client that goes away does not cut the reply short."""
    queue: asyncio.Queue = asyncio.Queue()

    async def send(event: dict) -> None:
        await queue.put(event)

    async def turn() -> None:
        try:
            await services.run_turn(
                user=user,
                conversation_id=conversation_id,
                text=text,
                client_id=client_id,
                send=send,
            )
        except Exception as exc:  # the stream must still end with an event
            await queue.put(_failure(exc))
        finally:
            await queue.put(None)

    task = asyncio.ensure_future(turn())
    _running.add(task)
    task.add_done_callback(_running.discard)
    yield b": turn started\n\n"  # sends the headers at once
    while (event := await queue.get()) is not None:
        yield _sse(event)


async def collect_turn(*, user, conversation_id: int, text: str, client_id: str) -> list[dict]:
    events: list[dict] = []

    async def send(event: dict) -> None:
        events.append(event)

    await services.run_turn(
        user=user, conversation_id=conversation_id, text=text, client_id=client_id, send=send
    )
    return events


def _turn_result(user, events: list[dict]) -> dict:
    by_type = {event["type"]: event for event in events}
    if "error" in by_type:
        error = by_type["error"]
        code = error.get("code", "bad_request")
        raise ApiError(
            status_code=TURN_ERROR_STATUS.get(code, 400),
            code=code,
            detail=error.get("detail", ""),
            fields={"text": [error.get("detail", "")]} if code in _TEXT_ERRORS else None,
        )
    done = by_type["done"]
    user_message = (by_type.get("recall") or done).get("user_message") or {}
    ids = [done["message"]["id"], user_message.get("id")]
    rows = {m.pk: m for m in Message.objects.for_user(user).filter(pk__in=[i for i in ids if i])}
    reply = rows[done["message"]["id"]]
    record = by_type["recall"]["record"] if "recall" in by_type else reply.recall
    return {
        "user_message": rows.get(user_message.get("id")),
        "assistant_message": reply,
        "recall": record,
    }


_STREAM_DESCRIPTION = (
    "With `?stream=1`: `text/event-stream`. Each event is `event: <type>` and `data: <JSON>` "
    "(the event object, including its `type`): `recall` ({record, user_message}), then "
    "`delta` ({text}) for each piece of the reply, then `done` ({message}); or a single "
    "`error` ({code, detail}) in place of what could not happen. Lines starting with `:` are "
    "comments."
)


# One server-sent event, as a client's SSE parser delivers it.
_SSE_EVENT = {
    "type": "object",
    "properties": {
        "event": {"type": "string", "enum": ["recall", "delta", "done", "error"]},
        "data": {"type": "string", "description": "The event as JSON, `type` included."},
    },
    "required": ["event", "data"],
}


class MessageListView(ApiMixin, GenericAPIView):
    lookup_url_kwarg = "conversation_id"
    serializer_class = s.MessageSerializer
    pagination_class = MessageCursorPagination

    def get_queryset(self):
        return Conversation.objects.for_user(self.request.user)

    @extend_schema(tags=TAGS, responses={200: s.MessageSerializer(many=True), 400: ErrorSerializer})
    def get(self, request, conversation_id):
        """The conversation's messages, oldest first, in cursor pages (follow ``next``). A
        cursor not taken from ``next``/``previous`` is a 400 (`invalid_cursor`)."""
        conversation = self.get_object()
        page = self.paginate_queryset(conversation.messages.all())
        return self.get_paginated_response(s.MessageSerializer(page, many=True).data)

    @extend_schema(
        tags=TAGS,
        request=s.TurnRequestSerializer,
        parameters=[s.TurnQuerySerializer],
        responses={
            201: s.TurnResultSerializer,
            (200, "text/event-stream"): OpenApiResponse(
                _SSE_EVENT, description=_STREAM_DESCRIPTION
            ),
            409: ErrorSerializer,
            503: ErrorSerializer,
        },
    )
    def post(self, request, conversation_id):
        """Send a message and get the assistant's reply with what was recalled for it.

        Errors of the turn use their own codes: `empty`, `too_long` (400),
        `conversation_ended` (409), `rate_limited`, `budget_exhausted` (429),
        `llm_unavailable` (503). Your message is stored before anything can fail; resend
        it with the same `client_id` to retry."""
        conversation = self.get_object()
        body = s.TurnRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        query = s.TurnQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        turn = {
            "user": request.user,
            "conversation_id": conversation.pk,
            "text": body.validated_data["text"],
            "client_id": body.validated_data.get("client_id", ""),
        }
        if query.validated_data["stream"]:
            response = StreamingHttpResponse(stream_turn(**turn), content_type="text/event-stream")
            response["Cache-Control"] = "no-cache"
            response["X-Accel-Buffering"] = "no"  # proxies must not hold the stream back
            return response
        result = _turn_result(request.user, async_to_sync(collect_turn)(**turn))
        return Response(
            {
                "user_message": s.MessageSerializer(result["user_message"]).data,
                "assistant_message": s.MessageSerializer(result["assistant_message"]).data,
                "recall": ReadRecordSerializer(result["recall"]).data,
            },
            status=status.HTTP_201_CREATED,
        )


class ConversationEndView(ApiMixin, GenericAPIView):
    lookup_url_kwarg = "conversation_id"
    serializer_class = s.EndResultSerializer

    def get_queryset(self):
        return Conversation.objects.for_user(self.request.user)

    @extend_schema(tags=TAGS, request=None, responses={200: s.EndResultSerializer})
    def post(self, request, conversation_id):
        """End a conversation: what you shared is extracted into your memory, once (ending
        again changes nothing)."""
        conversation = self.get_object()
        episode = services.end_conversation(
            user=request.user, conversation=conversation, now=timezone.now()
        )
        return Response(
            s.EndResultSerializer(
                {
                    "id": conversation.pk,
                    "status": conversation.status,
                    "episode_id": episode.pk if episode is not None else None,
                }
            ).data
        )
