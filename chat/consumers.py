"""The chat websocket, ``/ws/chat/<conversation_id>/`` — protocol translation only.

client → ``{"type": "message", "text": "...", "client_id": "..."}`` | ``{"type": "end"}``
server → ``recall`` · ``delta``… · ``done`` | ``ended`` | ``error {code, detail}``
server, from another tab or client on the same conversation → ``message {message, title?}``
(a stored user message or reply) | ``ended``

Anonymous users and other users' conversation ids get the socket closed (4401 / 4404)
before it is accepted; routing already validated the Origin header (scheme, host and port:
``pegasus_site.origins``). An open socket is closed (4401) when its user signs out of that
session, changes or resets the password or is deactivated (a close event through the channel
layer, at once), and a frame re-checks that against the database when the last check is older
than ``CHAT_SIGNIN_RECHECK_SECONDS`` (default 5; the first frame always checks): what no close
event reports — a session row expired or removed behind the socket's back, an account
deactivated by a bulk update — stops the socket within that time.
"""

from __future__ import annotations

import json
import time

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.http import Http404
from django.utils import timezone

from chat import services
from chat.models import Conversation
from lib.sessions import still_signed_in, user_group
from memory.models import get_owned_or_404
from memory.services.graph_io.storable import find_unstorable

MAX_FRAME_BYTES = 64 * 1024


class ChatConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=4401)
            return
        try:
            self.conversation = await sync_to_async(get_owned_or_404)(
                Conversation, user, pk=self.scope["url_route"]["kwargs"]["conversation_id"]
            )
        except Http404:
            await self.close(code=4404)
            return
        self.user = user
        # This user's sockets are closed when the account's password changes, it is
        # deactivated or this session signs out (accounts.services.close_sockets); listed in
        # ``groups`` so that Channels leaves the group on disconnect.
        self.session_key = getattr(self.scope.get("session"), "session_key", None) or ""
        # When the sign-in was last found valid (monotonic seconds; None: not yet on a frame).
        self.signed_in_at: float | None = None
        self.groups = [*self.groups, user_group(user.pk)]
        await self.channel_layer.group_add(user_group(user.pk), self.channel_name)
        # Every tab on this conversation joins its group: each sees the others' messages and
        # the end (across server processes with the Redis channel layer).
        self.group = services.conversation_group(self.conversation.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        group = getattr(self, "group", None)
        if group:
            await self.channel_layer.group_discard(group, self.channel_name)

    async def conversation_event(self, event: dict) -> None:
        """A group event (``services.broadcast``): pass it on unless this socket caused it."""
        if event.get("origin") != self.channel_name:
            await self.send_event(event["payload"])

    async def account_revoked(self, event: dict) -> None:
        """``accounts.services.close_sockets``: close unless this socket's session is the one
        kept (``keep``) or another one was meant (``only``)."""
        if event.get("only") and event["only"] != self.session_key:
            return
        if event.get("keep") and event["keep"] == self.session_key:
            return
        await self.close(code=4401)

    async def send_event(self, event: dict) -> None:
        await self.send(text_data=json.dumps(event, ensure_ascii=False))

    async def error(self, code: str, detail: str) -> None:
        await self.send_event({"type": "error", "code": code, "detail": detail})

    async def still_signed_in(self) -> bool:
        """Whether this socket may act; closes it (4401) or sends a database error when not.
        A positive answer is reused for ``CHAT_SIGNIN_RECHECK_SECONDS``: the check is two
        queries and a hop to the process's one database thread, every frame of every user
        queued there behind the others' turns."""
        window = float(settings.CHAT_SIGNIN_RECHECK_SECONDS)
        checked = self.signed_in_at
        if checked is not None and time.monotonic() - checked < window:
            return True
        try:
            signed_in = await database_sync_to_async(still_signed_in)(
                user_id=self.user.pk, session_key=self.session_key
            )
        except services.DATABASE_DOWN:
            # A database restart is an error frame the client can retry on, not a dead socket.
            await services.database_failed(self.send_event, saved=False)
            return False
        if not signed_in:
            self.signed_in_at = None
            await self.close(code=4401)
            return False
        self.signed_in_at = time.monotonic()
        return True

    async def receive(self, text_data=None, bytes_data=None):
        if text_data is None:
            await self.error("bad_request", "Send JSON text frames.")
            return
        if len(text_data.encode("utf-8", "surrogatepass")) > MAX_FRAME_BYTES:
            await self.error("too_long", "That frame is too large.")
            return
        try:
            event = json.loads(text_data)
        except RecursionError:
            await self.error("bad_request", "That JSON is nested too deeply.")
            return
        except ValueError:
            await self.error("bad_request", "That was not valid JSON.")
            return
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            await self.error("bad_request", 'Expected an object with a "type".')
            return
        unstorable = find_unstorable(event)
        if unstorable:
            # PostgreSQL would refuse it (NUL, an unpaired surrogate), or it is not JSON data.
            await self.error("bad_request", f"That frame cannot be accepted: {unstorable}.")
            return
        # Signed out, deactivated or the password changed since the socket opened (a close
        # event may not have reached it yet): nothing more happens on it.
        if not await self.still_signed_in():
            return
        if event["type"] == "message":
            await services.run_turn(
                user=self.user,
                conversation_id=self.conversation.pk,
                text=event.get("text"),
                client_id=event.get("client_id") or "",
                send=self.send_event,
                origin=self.channel_name,
            )
        elif event["type"] == "end":
            await sync_to_async(services.end_conversation)(
                user=self.user,
                conversation=self.conversation,
                now=timezone.now(),
                origin=self.channel_name,
            )
            await self.send_event({"type": "ended"})
        else:
            await self.error("bad_request", f"Unknown message type {event['type'][:40]!r}.")
