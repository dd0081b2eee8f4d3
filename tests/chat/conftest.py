import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import timezone

from chat.models import Conversation
from pegasus_site.asgi import application


@pytest.fixture
def conversation(alice):
    return Conversation.objects.create(user=alice, started_at=timezone.now())


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


async def communicator(conversation_id, user=None, origin=b"http://localhost"):
    """A WebsocketCommunicator signed in as ``user`` (a real session cookie)."""
    headers = [(b"origin", origin), (b"host", b"localhost")]
    if user is not None:
        cookie = await sync_to_async(session_cookie)(user)
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    return WebsocketCommunicator(application, f"/ws/chat/{conversation_id}/", headers=headers)


async def receive_turn(comm, timeout=30):
    """Events of one turn, up to and including done or error."""
    events = []
    while True:
        event = await comm.receive_json_from(timeout=timeout)
        events.append(event)
        if event["type"] in {"done", "error"}:
            return events
