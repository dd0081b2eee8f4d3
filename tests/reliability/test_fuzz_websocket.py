"""Fuzzing the chat websocket protocol (issue 12): hypothesis-made frames against
``chat/consumers.py`` through the real ASGI stack (origin check, session auth, routing).

Frames: random JSON of every shape, wrong types, missing and unknown fields, unknown types,
huge strings, deep nesting, NUL characters, unpaired surrogates (what a text frame of invalid
UTF-8 becomes once decoded with ``surrogateescape``; Daphne itself closes a socket whose text
frame is not UTF-8 before any consumer sees it), binary frames, numbers as text.

For every frame the protocol's own rules (``expected``) say what must come back: a turn
(``recall``, ``delta``…, ``done``), the replay of an answered turn, or exactly one
``{"type": "error", "code", "detail"}``. After every frame a valid message still gets a full
turn on the same socket; no exception escapes the consumer; a rejected frame stores nothing.

Long run (500 frames, figures printed)::

    PEGASUS_RELIABILITY=full .venv/bin/python -m pytest tests/reliability/test_fuzz_websocket.py
"""

from __future__ import annotations

import asyncio
import json
import math
from collections import Counter
from dataclasses import dataclass

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import Client
from django.utils import timezone
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from chat.consumers import MAX_FRAME_BYTES
from chat.models import Conversation, Message
from memory import embedding
from pegasus_site.asgi import application

# The consumer reaches the database from asgiref's worker thread: rows must be committed.
pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 60


@pytest.fixture(autouse=True)
def fast_hashers(settings):
    # Autouse fixtures come first, so alice is created with it: the production hasher costs
    # a second per test under load, and nothing here is about passwords.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def offline_and_unthrottled(settings):
    settings.ANTHROPIC_API_KEY = ""
    settings.CHAT_MESSAGES_PER_MINUTE = 10**6


# --- frames -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    text: str | None = None
    binary: bytes | None = None


def lone_surrogates() -> st.SearchStrategy[str]:
    return st.integers(0xD800, 0xDFFF).map(chr)


def nasty_strings() -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(max_size=40),
        st.text(max_size=10).map(lambda t: f"{t}\x00{t}"),
        st.tuples(st.text(max_size=10), lone_surrogates()).map("".join),
        # invalid UTF-8, as a server that decoded it with surrogateescape would see it
        st.binary(min_size=1, max_size=20).map(
            lambda b: (b"\xff" + b).decode("utf-8", "surrogateescape")
        ),
        st.sampled_from([7999, 8000, 8001, 20_000, 70_000]).map(lambda n: "x" * n),
        st.sampled_from(["", " ", "\t\n", "\u3000", "message", "end", "MESSAGE", "null", "5"]),
    )


def json_values() -> st.SearchStrategy:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), nasty_strings())
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(nasty_strings(), inner, max_size=4)
        ),
        max_leaves=10,
    )


def _dump(value, ascii_only: bool) -> str:
    return json.dumps(value, ensure_ascii=ascii_only)


@st.composite
def events(draw) -> dict:
    """Objects that look like protocol events: a type (mostly ``message``), a text and a
    client id of any JSON type, extra fields. Never ``end``: it would end the conversation
    and every later turn would be refused."""
    event = {}
    kind = draw(st.sampled_from(["message", "message", "message", "other", "missing"]))
    if kind == "message":
        event["type"] = "message"
    elif kind == "other":
        event["type"] = draw(json_values().filter(lambda v: v != "end"))
    if draw(st.integers(0, 3)):
        plain = st.text(min_size=1, max_size=60)
        event["text"] = draw(st.one_of(plain, plain, nasty_strings(), json_values()))
    if draw(st.booleans()):
        event["client_id"] = draw(
            st.one_of(st.sampled_from(["a", "b", "c" * 70]), nasty_strings(), json_values())
        )
    for key, value in draw(st.dictionaries(nasty_strings(), json_values(), max_size=2)).items():
        if key not in ("type", "text", "client_id"):
            event[key] = value
    return event


@st.composite
def frames(draw) -> Frame:
    ascii_only = draw(st.booleans())
    shape = draw(
        st.sampled_from(
            ["event"] * 6 + ["json", "text", "deep", "deep", "number", "binary", "binary"]
        )
    )
    if shape == "event":
        return Frame(text=_dump(draw(events()), ascii_only))
    if shape == "json":
        return Frame(text=_dump(draw(json_values()), ascii_only))
    if shape == "text":
        return Frame(text=draw(nasty_strings()))
    if shape == "deep":
        opener = draw(st.sampled_from(["[", '{"type":', '{"type": "message", "text":']))
        depth = draw(st.integers(50, 30_000))
        return Frame(text=opener * depth + "1" + ("]" if opener == "[" else "}") * depth)
    if shape == "number":
        return Frame(
            text=draw(
                st.sampled_from(
                    [
                        "5",
                        "-0",
                        "1e400",
                        "NaN",
                        "Infinity",
                        "9" * 5000,
                        "true",
                        '{"type": "message", "text": NaN}',
                        '{"type": "message", "text": 1e400}',
                    ]
                )
            )
        )
    binary = st.one_of(
        st.binary(max_size=100),
        st.just(json.dumps({"type": "message", "text": "hi"}).encode()),
    )
    return Frame(binary=draw(binary))


# --- what the protocol says must happen --------------------------------------------------------


def _storable(value) -> bool:
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if "\x00" in item or any("\ud800" <= ch <= "\udfff" for ch in item):
                return False
        elif isinstance(item, float) and not math.isfinite(item):
            return False
        elif isinstance(item, (dict, list)):
            if depth >= 64:
                return False
            items = item.items() if isinstance(item, dict) else enumerate(item)
            for key, inner in items:
                if isinstance(key, str) and not _storable(key):
                    return False
                stack.append((inner, depth + 1))
    return True


def expected(frame: Frame, answered: set[str]) -> tuple[str, str | None]:
    """``("turn", None)``, ``("replay", None)`` or ``("error", code)`` — the protocol of
    chat/consumers.py and chat/services/ written out independently of their code."""
    if frame.text is None:
        return "error", "bad_request"
    if len(frame.text.encode("utf-8", "surrogatepass")) > MAX_FRAME_BYTES:
        return "error", "too_long"
    try:
        event = json.loads(frame.text)
    except (ValueError, RecursionError):
        return "error", "bad_request"
    if not isinstance(event, dict) or not isinstance(event.get("type"), str):
        return "error", "bad_request"
    if not _storable(event):
        return "error", "bad_request"
    if event["type"] != "message":
        return "error", "bad_request"
    client_id = event.get("client_id")
    client_id = client_id[:64] if isinstance(client_id, str) else ""
    if client_id and client_id in answered:
        return "replay", None
    text = event.get("text")
    if not isinstance(text, str):
        return "error", "bad_request"
    if not text.strip():
        return "error", "empty"
    if len(text.strip()) > 8000:
        return "error", "too_long"
    if client_id:
        answered.add(client_id)
    return "turn", None


# --- the run ------------------------------------------------------------------------------------


async def _connect(conversation_id: int, cookie: str) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(
        application,
        f"/ws/chat/{conversation_id}/",
        headers=[
            (b"origin", b"http://localhost"),
            (b"host", b"localhost"),
            (b"cookie", f"sessionid={cookie}".encode()),
        ],
    )
    connected, code = await comm.connect()
    assert connected, code
    return comm


async def _receive(comm: WebsocketCommunicator) -> dict:
    try:
        return await comm.receive_json_from(timeout=TIMEOUT)
    except TimeoutError:
        raise AssertionError(f"no answer within {TIMEOUT} s") from None
    finally:
        # An exception that escaped the consumer ends its application instance.
        if comm.future.done() and not comm.future.cancelled():
            comm.future.result()


async def _turn(comm: WebsocketCommunicator) -> list[dict]:
    events = [await _receive(comm)]
    while events[-1]["type"] not in ("done", "error"):
        events.append(await _receive(comm))
    return events


def _messages(conversation_id: int) -> int:
    return Message.objects.filter(conversation_id=conversation_id).count()


def test_every_frame_gets_its_answer_and_the_socket_keeps_working(
    alice, scaled, reliability_full, capsys
):
    conversation = Conversation.objects.create(user=alice, started_at=timezone.now())
    client = Client()
    client.force_login(alice)
    cookie = client.cookies["sessionid"].value
    count = sync_to_async(_messages)
    embedding.embed(["warm up"])  # loading the model must not count against the first turn

    # One socket for the whole run, on a loop of this test's own: hypothesis drives examples
    # synchronously, and each example runs its frame to completion on that loop.
    loop = asyncio.new_event_loop()
    comm = loop.run_until_complete(_connect(conversation.pk, cookie))
    answered: set[str] = set()
    outcomes: Counter[str] = Counter()
    probes = reconnects = 0
    slowest = (0.0, None)

    async def one(frame: Frame) -> None:
        nonlocal comm, probes, reconnects, slowest
        if comm.future.done():
            # An earlier example failed (and hypothesis is replaying): each example gets a
            # working socket, so the one reported is the one that broke it.
            comm = await _connect(conversation.pk, cookie)
            reconnects += 1
        started = loop.time()
        outcome, code = expected(frame, answered)
        before = await count(conversation.pk)
        # send_input, not send_to: an empty frame is a frame too
        content = {"text": frame.text} if frame.text is not None else {"bytes": frame.binary}
        await comm.send_input({"type": "websocket.receive", **content})
        events = await _turn(comm)
        after = await count(conversation.pk)
        if outcome == "error":
            assert len(events) == 1 and events[0]["type"] == "error", events
            error = events[0]
            assert set(error) == {"type", "code", "detail"}, error
            assert error["code"] == code, (error, frame)
            assert isinstance(error["detail"], str) and len(error["detail"]) > 10, error
            assert "Traceback" not in error["detail"]
            assert after == before, "a rejected frame stored a message"
        elif outcome == "replay":
            assert [e["type"] for e in events] == ["done"], events
            assert after == before
        else:
            kinds = [e["type"] for e in events]
            assert kinds[0] == "recall" and kinds[-1] == "done", kinds
            assert set(kinds[1:-1]) <= {"delta"}
            assert after == before + 2
        outcomes[code or outcome] += 1
        # The socket still works: a valid message right after gets a whole turn.
        probes += 1
        await comm.send_json_to({"type": "message", "text": f"still here {probes}"})
        events = await _turn(comm)
        assert [events[0]["type"], events[-1]["type"]] == ["recall", "done"], events
        assert await count(conversation.pk) == after + 2
        slowest = max(slowest, (loop.time() - started, outcome), key=lambda pair: pair[0])

    @given(frames())
    @hypothesis_settings(
        max_examples=scaled(30, 500),
        deadline=None,
        database=None,
        derandomize=not reliability_full,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    def check(frame: Frame) -> None:
        loop.run_until_complete(one(frame))

    try:
        check()
        loop.run_until_complete(comm.receive_nothing(timeout=0.2))
        assert not comm.future.done(), "the consumer stopped"
        loop.run_until_complete(comm.disconnect())
    finally:
        loop.run_until_complete(sync_to_async(connections.close_all)())
        loop.close()

    frames_sent = sum(outcomes.values())
    line = (
        f"fuzz websocket: {frames_sent} frames, {dict(sorted(outcomes.items()))}, "
        f"{probes} follow-up turns all answered, 0 exceptions escaped, slowest frame "
        f"{slowest[0]:.2f} s ({slowest[1]} + follow-up turn)"
    )
    if reliability_full:
        with capsys.disabled():
            print(f"\n{line}")
    else:
        print(line)
    assert outcomes["turn"] and outcomes["bad_request"] and reconnects == 0


# --- the defects the fuzzing found (each test fails without its fix) --------------------------


@pytest.mark.parametrize(
    ("frame", "detail"),
    [
        pytest.param(
            '{"type": "message", "text": "a\\u0000b"}', "text contains a NUL character", id="nul"
        ),
        pytest.param(
            '{"type": "message", "text": "a\\ud800b"}',
            "text contains an unpaired surrogate",
            id="surrogate",
        ),
        pytest.param(
            '{"type": "message", "text": "hi", "client_id": "c\\u0000"}',
            "client_id contains a NUL character",
            id="nul-client-id",
        ),
        pytest.param("[" * 5000 + "]" * 5000, "nested too deeply", id="deep"),
        pytest.param(
            '{"type": "message", "text": "hi", "x": ' + "[" * 100 + "]" * 100 + "}",
            "[0] is nested more than 64 levels deep",
            id="nested",
        ),
        pytest.param(
            '{"type": "message", "text": "hi", "n": 1e400}',
            "n is not a finite number",
            id="infinity",
        ),
    ],
)
async def test_frames_the_database_or_the_parser_would_choke_on_get_a_clear_error(
    alice, frame, detail
):
    conversation = await sync_to_async(Conversation.objects.create)(
        user=alice, started_at=timezone.now()
    )
    client = Client()
    await sync_to_async(client.force_login)(alice)
    comm = await _connect(conversation.pk, client.cookies["sessionid"].value)
    await comm.send_to(text_data=frame)
    error = await _receive(comm)
    assert error["type"] == "error" and error["code"] == "bad_request", error
    assert detail in error["detail"]
    assert await sync_to_async(_messages)(conversation.pk) == 0
    await comm.send_json_to({"type": "message", "text": "still here"})
    assert (await _turn(comm))[-1]["type"] == "done"
    await comm.disconnect()
