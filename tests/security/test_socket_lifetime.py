"""Issue 18 items 3 and 4, through real Channels sockets (``WebsocketCommunicator`` on the
project's ASGI application): an open socket does not outlive its session, the password or
the account; and its Origin must be the site's own, scheme, host and port."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.utils import timezone

from chat.models import Conversation, Message
from pegasus_site.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)  # async tests: asyncio_mode = "auto"

NEW_PASSWORD = "a-brand-new-passphrase-93"


@pytest.fixture
def conversation(alice):
    return Conversation.objects.create(user=alice, started_at=timezone.now())


@pytest.fixture(autouse=True)
async def close_worker_thread_connection():
    # The consumer's own thread-sensitive calls share the worker thread; whatever they left
    # open is closed before the test database is dropped.
    yield
    await in_thread(lambda: None)


def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    # This runs in a worker thread of the test's event loop: no request ends there to close
    # its connection, which would then outlive the test database.
    connection.close()
    return client


async def open_socket(
    conversation_id, client: Client | None, *, host=b"localhost", origin=b"http://localhost"
):
    headers = [(b"host", host)]
    if origin is not None:
        headers.append((b"origin", origin))
    if client is not None:
        headers.append((b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode()))
    comm = WebsocketCommunicator(application, f"/ws/chat/{conversation_id}/", headers=headers)
    connected, code = await comm.connect()
    return comm, connected, code


async def closed_with(comm, timeout=5) -> int | None:
    output = await comm.receive_output(timeout=timeout)
    assert output["type"] == "websocket.close", output
    return output.get("code")


async def in_thread(fn, *args, **kwargs):
    """``fn`` in a worker thread, closing that thread's connection afterwards (see
    ``browser``)."""

    def run():
        try:
            return fn(*args, **kwargs)
        finally:
            connection.close()

    return await sync_to_async(run)()


async def stored_messages(conversation) -> int:
    return await in_thread(Message.objects.filter(conversation=conversation).count)


# --- item 3: sockets end with the session, the password and the account ---------------------


async def test_signing_out_closes_that_sessions_socket_only(alice, conversation):
    here, other = await sync_to_async(browser)(alice), await sync_to_async(browser)(alice)
    comm, connected, _ = await open_socket(conversation.pk, here)
    other_comm, other_connected, _ = await open_socket(conversation.pk, other)
    assert connected and other_connected
    await sync_to_async(here.post)("/accounts/logout/")
    assert await closed_with(comm) == 4401
    # The other browser's socket is still open and still works.
    assert await other_comm.receive_nothing(timeout=0.3)
    await other_comm.send_json_to({"type": "message", "text": "still here"})
    event = await other_comm.receive_json_from(timeout=30)
    assert event["type"] == "recall"
    await other_comm.disconnect()


async def test_a_password_change_elsewhere_closes_the_socket(fast_hashers, alice, conversation):
    comm, connected, _ = await open_socket(conversation.pk, await sync_to_async(browser)(alice))
    assert connected

    def change_password_in_another_browser():
        client = Client()
        client.post("/accounts/login/", {"login": "alice", "password": "alice-pass-123"})
        return client.post(
            "/accounts/password/change/",
            {"oldpassword": "alice-pass-123", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
        ).status_code

    assert await sync_to_async(change_password_in_another_browser)() == 302
    assert await closed_with(comm) == 4401


async def test_deactivation_closes_the_socket(alice, conversation):
    comm, connected, _ = await open_socket(conversation.pk, await sync_to_async(browser)(alice))
    assert connected

    def deactivate():
        alice.is_active = False
        alice.save()

    await sync_to_async(deactivate)()
    assert await closed_with(comm) == 4401


async def test_a_turn_re_checks_the_session_and_stores_nothing_once_it_is_gone(alice, conversation):
    """No close event reached this socket (the session row was removed behind its back, as
    another server process or an expiry would): the next frame is refused all the same."""
    client = await sync_to_async(browser)(alice)
    comm, connected, _ = await open_socket(conversation.pk, client)
    assert connected
    await in_thread(Session.objects.filter(pk=client.cookies["sessionid"].value).delete)
    await comm.send_json_to({"type": "message", "text": "Does this still work?"})
    assert await closed_with(comm) == 4401
    assert await stored_messages(conversation) == 0


async def test_a_turn_after_deactivation_is_refused_even_without_the_close_event(
    alice, conversation
):
    comm, connected, _ = await open_socket(conversation.pk, await sync_to_async(browser)(alice))
    assert connected
    # A queryset update sends no signal: only the per-turn check can notice.
    await in_thread(type(alice).objects.filter(pk=alice.pk).update, is_active=False)
    await comm.send_json_to({"type": "message", "text": "hello"})
    assert await closed_with(comm) == 4401
    assert await stored_messages(conversation) == 0


async def test_bobs_password_change_leaves_alices_socket_open(
    fast_hashers, alice, bob, conversation
):
    comm, connected, _ = await open_socket(conversation.pk, await sync_to_async(browser)(alice))
    assert connected

    def change_bobs_password():
        bob.set_password(NEW_PASSWORD)
        bob.save()
        bob.is_active = False
        bob.save()

    await sync_to_async(change_bobs_password)()
    assert await comm.receive_nothing(timeout=0.3)
    await comm.send_json_to({"type": "message", "text": "hello"})
    assert (await comm.receive_json_from(timeout=30))["type"] == "recall"
    await comm.disconnect()


# --- item 4: the Origin's scheme, host and port ------------------------------------------------


@pytest.mark.parametrize(
    ("origin", "accepted"),
    [
        (b"http://127.0.0.1:8000", True),  # the served origin
        (b"http://localhost:9999", False),  # the probe's three
        (b"http://127.0.0.1:1", False),
        (b"https://127.0.0.1", False),
        (b"https://127.0.0.1:8000", False),  # right port, wrong scheme
        (b"http://127.0.0.1", False),  # default port 80 is another port
        (b"http://127.0.0.1:8000/path", False),
        (b"http://user@127.0.0.1:8000", False),
        (b"null", False),
        (None, False),
    ],
)
async def test_the_origin_must_be_the_served_one(alice, conversation, origin, accepted):
    comm, connected, _ = await open_socket(
        conversation.pk, await sync_to_async(browser)(alice), host=b"127.0.0.1:8000", origin=origin
    )
    assert connected is accepted, origin
    if connected:
        await comm.disconnect()


@pytest.mark.parametrize(
    ("origin", "accepted"),
    [
        (b"https://localhost:8443", True),  # listed in CSRF_TRUSTED_ORIGINS
        (b"https://localhost:8444", False),
        (b"http://localhost:8443", False),
        (b"http://app.localhost", False),
    ],
)
async def test_csrf_trusted_origins_are_accepted_exactly(
    alice, conversation, settings, origin, accepted
):
    settings.CSRF_TRUSTED_ORIGINS = ["https://localhost:8443"]
    comm, connected, _ = await open_socket(
        conversation.pk, await sync_to_async(browser)(alice), host=b"localhost:8000", origin=origin
    )
    assert connected is accepted, origin
    if connected:
        await comm.disconnect()


async def test_bob_cannot_open_alices_conversation_from_the_right_origin(bob, conversation):
    _comm, connected, code = await open_socket(conversation.pk, await sync_to_async(browser)(bob))
    assert not connected and code == 4404


@pytest.mark.parametrize(
    ("origin", "accepted"),
    [
        ("https://app.example.com", True),
        ("https://deep.app.example.com", True),
        ("https://example.com", False),  # the wildcard is for subdomains only
        ("https://evilexample.com", False),
        ("http://app.example.com", False),
        ("https://app.example.com:444", False),
        ("https://pegasus.example.com", True),  # served origin: TLS ended by a trusted proxy
        ("http://pegasus.example.com", False),
    ],
)
def test_origin_rules_without_a_socket(settings, origin, accepted):
    """The rules themselves (ALLOWED_HOSTS, checked before them, is bound at start-up)."""
    from pegasus_site.origins import origin_allowed

    settings.CSRF_TRUSTED_ORIGINS = ["https://*.example.com"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    scope = {
        "type": "websocket",
        "scheme": "ws",
        "headers": [(b"host", b"pegasus.example.com"), (b"x-forwarded-proto", b"https")],
    }
    assert origin_allowed(origin, scope) is accepted
