"""Leak canaries (issue 12, docs/RELIABILITY.md "Leak canary").

Bob (user B) owns a graph and ended conversations full of unique canary strings
(``CANARY-<uuid4 hex>``: node names, aliases, properties, snippets, evidence, episode summaries
and tags, a relation label, his display name, his messages). Alice and Carol (users A and C)
own ordinary graphs that share node names with his ("Joshua", "Acme", "Paris"), so a missing
``user_id`` filter anywhere in seeding, spreading, passages, caches or the Write path's
neighbourhood would hand them his rows. Then A and C chat — over the websocket, the REST API
(JSON) and the REST API's server-sent events; offline and against the fake Anthropic server —
end their conversations and run their extraction jobs, and probe every read endpoint.

Every byte they could see is scanned for Bob's canaries: each prompt the fake model received,
each websocket frame, each HTTP response body, every log record (root logger at DEBUG for the
run, the Anthropic SDK's request logging included) and the captured stdout/stderr, their
account exports (service and download), API exports and explorer graph payloads. Target: 0.
The same scanner then finds the canaries in Bob's own export, recall, prompt and logs, which
proves it can.

``make test`` runs 100 turns; ``PEGASUS_RELIABILITY=full`` runs 1 000::

    PEGASUS_RELIABILITY=full .venv/bin/python -m pytest tests/reliability/test_leak_canary.py -s

Both print one summary line (turns, surfaces, bytes, canaries found).
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.testing import HttpCommunicator, WebsocketCommunicator
from django.conf import settings as django_settings
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.services import export_account, update_profile
from accounts.tokens import create_token
from chat.models import Conversation
from chat.services import begin_turn, end_conversation
from memory.models import Episode, Node
from memory.services.graph_io import import_graph
from memory.services.jobs import extract_episode
from memory.services.keys import Progress
from memory.services.read import ReadOptions, clear_key_cache, recall
from pegasus_site.asgi import application
from tests.fakes.anthropic_server import ToolCall

pytestmark = pytest.mark.django_db(transaction=True)

API = "/api/v1"
CANARY_WORD = "canary"
PREFIXED = re.compile(r"canary[-_\s]?[0-9a-f]{6}")


class Canaries:
    """Bob's canary strings; ``hex`` ids are what the scanner looks for (case-insensitive), so
    a canary is found in any spelling: ``CANARY-…``, a relation label ``HAS_CANARY_…`` or
    its key text ``has canary …``."""

    def __init__(self) -> None:
        self.ids: list[str] = []

    def new(self) -> str:
        self.ids.append(uuid.uuid4().hex)
        return f"CANARY-{self.ids[-1]}"

    def label(self) -> str:
        self.ids.append(uuid.uuid4().hex)
        return f"HAS_CANARY_{self.ids[-1].upper()}"


@dataclass
class Scanner:
    """Counts canaries in every text shown to it, per kind of surface."""

    canaries: Canaries
    surfaces: Counter = field(default_factory=Counter)
    bytes: int = 0
    hits: Counter = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def count(self, text: str) -> int:
        """Canaries in ``text``: whole ids, or a "canary" prefix with the start of an id (a
        canary cut short still counts), whichever is more."""
        lowered = text.lower()
        whole = sum(lowered.count(c) for c in self.canaries.ids) if self.canaries.ids else 0
        prefixed = len(PREFIXED.findall(lowered)) if CANARY_WORD in lowered else 0
        return max(whole, prefixed)

    def scan(self, kind: str, text: str | bytes) -> int:
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        self.surfaces[kind] += 1
        self.bytes += len(text.encode("utf-8", "replace"))
        found = self.count(text)
        if found:
            self.hits[kind] += found
            if len(self.examples) < 5:
                self.examples.append(f"{kind}: {text[:300]!r}")
        return found


class LogScanner(logging.Handler):
    def __init__(self, scanner: Scanner) -> None:
        super().__init__(logging.DEBUG)
        self.scanner = scanner
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
        except Exception:  # a malformed record is scanned as raw as it comes
            text = f"{record.msg!r} {record.args!r}"
        self.scanner.scan("log record", text)


@pytest.fixture
def debug_logs():
    """The root logger and every logger with its own level at DEBUG for the test; returns a
    function that sends every record to a scanner (one at a time; levels restored after)."""
    root = logging.getLogger()
    saved = {"": root.level}
    loggers = [
        obj for obj in logging.root.manager.loggerDict.values() if isinstance(obj, logging.Logger)
    ]
    for logger in loggers:
        if logger.level not in (logging.NOTSET, logging.DEBUG):
            saved[logger.name] = logger.level
            logger.setLevel(logging.DEBUG)
    root.setLevel(logging.DEBUG)
    handlers: list[logging.Handler] = []

    def attach(scanner: Scanner) -> LogScanner:
        for handler in handlers:  # one scanner at a time
            root.removeHandler(handler)
        handler = LogScanner(scanner)
        root.addHandler(handler)
        handlers.append(handler)
        return handler

    yield attach
    for handler in handlers:
        root.removeHandler(handler)
    for name, level in saved.items():
        logging.getLogger(name or None).setLevel(level)


# --- the users' data ------------------------------------------------------------------------


def bobs_graph(c: Canaries) -> dict:
    """Bob's graph: every text field a canary, around the names A and C also use."""
    return {
        "format": "pegasus-graph/1",
        "episodes": [
            {
                "id": "e1",
                "summary": f"Bob shared the launch code {c.new()} with Pegasus.",
                "tags": [c.new(), "launch"],
            },
        ],
        "nodes": [
            {
                "id": "me",
                "kind": "PERSON",
                "name": f"Robert {c.new()}",
                "is_self": True,
                "aliases": [c.new()],
                "properties": {"pin": c.new()},
                "episodes": ["e1"],
            },
            {
                "id": "josh",
                "kind": "PERSON",
                "name": "Joshua",
                "aliases": [f"Josh {c.new()}"],
                "properties": {"badge": c.new(), c.new(): "key"},
                "episodes": ["e1"],
            },
            {"id": "acme", "kind": "ORG", "name": "Acme", "properties": {"vault": c.new()}},
            {"id": "paris", "kind": "PLACE", "name": "Paris", "aliases": [c.new()]},
            {"id": "code", "kind": "THING", "name": f"launch code {c.new()}"},
            {"id": "secret", "kind": "TOPIC", "name": c.new()},
        ],
        "edges": [
            {
                "id": "x1",
                "source": "me",
                "relation": "HAS_BOSS",
                "target": "josh",
                "episodes": ["e1"],
                "snippet": {
                    "text": f"my boss Joshua gave me the launch code {c.new()}",
                    "evidence": c.new(),
                },
            },
            {
                "id": "x2",
                "source": "me",
                "relation": "WORKS_AT",
                "target": "acme",
                "snippet": {"text": f"I work at Acme, badge {c.new()}"},
            },
            {
                "id": "x3",
                "source": "josh",
                "relation": "WORKS_AT",
                "target": "acme",
                "snippet": {"text": f"Joshua runs the Acme vault {c.new()}"},
            },
            {
                "id": "x4",
                "source": "josh",
                "relation": "KNOWS",
                "target": "code",
                "snippet": {"text": f"Joshua knows the launch code {c.new()}"},
            },
            {
                "id": "x5",
                "source": "me",
                "relation": "TRAVELS_TO",
                "target": "paris",
                "snippet": {"text": f"my trip to Paris with Joshua, booking {c.new()}"},
            },
            {
                "id": "x6",
                "source": "josh",
                "relation": c.label(),
                "target": "secret",
                "snippet": {"text": f"the secret project at Acme is {c.new()}"},
            },
            {"id": "x7", "source": "acme", "relation": "LOCATED_IN", "target": "paris"},
        ],
    }


def bobs_messages(c: Canaries) -> list[list[str]]:
    return [
        [
            f"My boss Joshua at Acme gave me the launch code {c.new()} today.",
            f"I work at Acme and my badge number is {c.new()}.",
            f"Joshua says the vault combination is {c.new()}.",
        ],
        [
            f"My trip to Paris with Joshua is booked under {c.new()}.",
            f"The secret project at Acme is called {c.new()}.",
        ],
    ]


def ordinary_graph(self_name: str, extra: str) -> dict:
    return {
        "format": "pegasus-graph/1",
        "nodes": [
            {"id": "me", "kind": "PERSON", "name": self_name, "is_self": True},
            {"id": "josh", "kind": "PERSON", "name": "Joshua", "aliases": ["Josh"]},
            {"id": "acme", "kind": "ORG", "name": "Acme"},
            {"id": "paris", "kind": "PLACE", "name": "Paris"},
            {"id": "extra", "kind": "THING", "name": extra},
        ],
        "edges": [
            {
                "id": "x1",
                "source": "me",
                "relation": "HAS_BOSS",
                "target": "josh",
                "snippet": {"text": "my boss Joshua is demanding but fair"},
            },
            {
                "id": "x2",
                "source": "me",
                "relation": "WORKS_AT",
                "target": "acme",
                "snippet": {"text": "I started at Acme last spring"},
            },
            {"id": "x3", "source": "me", "relation": "LIKES", "target": "paris"},
            {"id": "x4", "source": "josh", "relation": "OWNS", "target": "extra"},
        ],
    }


ORDINARY_MESSAGES = [
    "My boss Joshua at Acme wants the launch plan by Friday.",
    "I went to Paris with my sister last year.",
]

# What A and C say: the names and words of Bob's memories, so that seeding, spreading and
# passages would reach his rows if anything let them.
POOL = [
    "How is Joshua doing at Acme these days?",
    "What did Joshua say about the launch code?",
    "Remind me what I know about the Acme vault.",
    "Any news about the Paris trip with Joshua?",
    "My boss Joshua at Acme wants the launch plan by Friday.",
    "Tell me about the secret project at Acme.",
    "Did Joshua mention my badge number?",
    "What do you remember about my trip to Paris?",
    "Joshua and I met at the Acme office in Paris.",
    "What is the launch code Joshua gave me?",
    "Who is Josh, again?",
    "What does Robert know about Joshua?",
    "I like the new vault design at Acme.",
    "What combination did Joshua tell me?",
]

CHANNELS = ("websocket", "rest", "sse")
MODES = ("offline", "claude")


def fake_model(request: dict):
    """The fake Anthropic server's answer: extraction calls ``finish`` (nothing to add), a
    chat turn gets a short streamed reply."""
    if request.get("tools"):
        return ToolCall("finish", {})
    return ["Thanks, ", "I remember ", "what you told me."]


@dataclass
class Person:
    user: object
    api: APIClient
    web: Client
    cookie: str
    token: str
    conversation_id: int = 0
    turns_here: int = 0


def person(user) -> Person:
    token = create_token(user=user, device="leak canary").token
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    web = Client()
    web.force_login(user)
    return Person(user, api, web, web.cookies["sessionid"].value, token)


def ended_and_extracted(user, texts: list[str], now) -> None:
    conversation = Conversation.objects.create(user=user, started_at=now)
    for i, text in enumerate(texts):
        begin_turn(
            user=user,
            conversation_id=conversation.pk,
            text=text,
            client_id="",
            now=now + timedelta(seconds=i),
        )
    episode = end_conversation(user=user, conversation=conversation, now=now)
    assert extract_episode(episode_id=episode.pk, now=now)[0].status == "done"


# --- the channels ---------------------------------------------------------------------------


def socket(p: Person, conversation_id: int) -> WebsocketCommunicator:
    return WebsocketCommunicator(
        application,
        f"/ws/chat/{conversation_id}/",
        headers=[
            (b"origin", b"http://localhost"),
            (b"host", b"localhost"),
            (b"cookie", f"sessionid={p.cookie}".encode()),
        ],
    )


async def websocket_turn(p: Person, text: str, scanner: Scanner, *, end: bool) -> list[dict]:
    comm = socket(p, p.conversation_id)
    connected, code = await comm.connect()
    assert connected, code
    events = []
    await comm.send_to(text_data=json.dumps({"type": "message", "text": text}))
    while True:
        raw = await comm.receive_from(timeout=60)
        scanner.scan("websocket frame", raw)
        events.append(json.loads(raw))
        if events[-1]["type"] in {"done", "error"}:
            break
    if end:
        await comm.send_to(text_data=json.dumps({"type": "end"}))
        raw = await comm.receive_from(timeout=60)
        scanner.scan("websocket frame", raw)
        assert json.loads(raw)["type"] == "ended"
    await comm.disconnect()
    return events


async def open_socket(p: Person, conversation_id: int) -> tuple[bool, int | None]:
    comm = socket(p, conversation_id)
    connected, code = await comm.connect()
    await comm.disconnect()
    return connected, code


async def sse_turn(p: Person, text: str, scanner: Scanner) -> list[dict]:
    payload = json.dumps({"text": text}).encode()
    comm = HttpCommunicator(
        application,
        "POST",
        f"{API}/conversations/{p.conversation_id}/messages/?stream=1",
        body=payload,
        headers=[
            (b"host", b"testserver"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(payload)).encode()),
            (b"authorization", f"Token {p.token}".encode()),
        ],
    )
    await comm.send_input({"type": "http.request", "body": comm.body})
    start = await comm.receive_output(timeout=60)
    assert start["status"] == 200
    chunks = []
    while True:
        message = await comm.receive_output(timeout=60)
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    await comm.wait()
    body = b"".join(chunks).decode()
    scanner.scan("http response", body)
    return [
        json.loads(line[len("data: ") :]) for line in body.split("\n") if line.startswith("data: ")
    ]


def rest_turn(p: Person, text: str, scanner: Scanner) -> list[dict]:
    response = p.api.post(
        f"{API}/conversations/{p.conversation_id}/messages/", {"text": text}, format="json"
    )
    scanner.scan("http response", response.content)
    assert response.status_code == 201, response.content[:300]
    return [{"type": "done", **response.json()}]


def get(client, url: str, scanner: Scanner, status: int = 200) -> bytes:
    response = client.get(url)
    body = b"".join(response.streaming_content) if response.streaming else response.content
    scanner.scan("http response", body)
    assert response.status_code == status, (url, response.status_code, body[:200])
    return body


def probe_everything(p: Person, bob_ids: dict, scanner: Scanner) -> None:
    """Every read endpoint A or C can call, and Bob's ids tried directly (404 each)."""
    for url in [
        f"{API}/memory/graph/?include_dormant=1&include_superseded=1",
        f"{API}/memory/nodes/?search=Josh",
        f"{API}/memory/nodes/?search={bob_ids['canary'][:12]}",
        f"{API}/memory/edges/?include_dormant=1&include_superseded=1",
        f"{API}/memory/episodes/",
        f"{API}/memory/export/",
        f"{API}/conversations/",
        f"{API}/conversations/{p.conversation_id}/messages/?page_size=200",
    ]:
        get(p.api, url, scanner)
    response = p.api.post(
        f"{API}/memory/recall/",
        {"message": "Joshua Acme launch code vault Paris Robert"},
        format="json",
    )
    scanner.scan("http response", response.content)
    assert response.status_code == 200
    for url in [
        f"/chat/{p.conversation_id}/",
        f"/chat/{p.conversation_id}/messages/",
        "/chat/",
        "/memory/",
    ]:
        get(p.web, url, scanner)
    for node_id in bob_ids["nodes"][:3]:
        get(p.api, f"{API}/memory/nodes/{node_id}/", scanner, 404)
    get(p.api, f"{API}/conversations/{bob_ids['conversation']}/messages/", scanner, 404)
    get(p.web, f"/chat/{bob_ids['conversation']}/", scanner, 404)
    assert async_to_sync(open_socket)(p, bob_ids["conversation"]) == (False, 4404)


def new_conversation(p: Person, scanner: Scanner) -> None:
    response = p.api.post(f"{API}/conversations/", {}, format="json")
    scanner.scan("http response", response.content)
    p.conversation_id, p.turns_here = response.json()["id"], 0


def end_and_extract(p: Person, scanner: Scanner, *, ended: bool) -> None:
    """End the conversation (unless the socket already did) and run its job synchronously."""
    if not ended:
        response = p.api.post(f"{API}/conversations/{p.conversation_id}/end/")
        scanner.scan("http response", response.content)
    episode = Episode.objects.for_user(p.user).get(conversation_id=p.conversation_id)
    done = extract_episode(episode_id=episode.pk, now=timezone.now())[0]
    assert done.status == "done", done.last_error


def use_model(on: bool) -> None:
    """Claude (the fake server) or offline for what follows. Set on the override layer the
    ``settings`` fixture already holds (and removes after the test): each assignment through
    the fixture stacks one more layer, and a thousand of them overflow the stack."""
    django_settings.ANTHROPIC_API_KEY = "test-key" if on else ""


# --- the test -------------------------------------------------------------------------------


def test_nothing_of_bobs_reaches_alice_or_carol(
    alice, bob, django_user_model, settings, fake_anthropic, scaled, debug_logs, capfd
):
    turns = scaled(100, 1000)
    per_conversation = scaled(13, 25)
    carol = django_user_model.objects.create_user("carol", "carol@example.com", "carol-pass-1")
    settings.CHAT_MESSAGES_PER_MINUTE = 1_000_000
    settings.CHAT_DAILY_TOKEN_BUDGET = 10**12
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            "user": "1000000/min",
            "anon": "1000000/min",
            "login": "1000000/min",
        },
    }
    cache.clear()
    clear_key_cache()
    fake_anthropic.default = fake_model
    settings.ANTHROPIC_API_KEY = ""
    now = timezone.now()

    # Bob: his canaries everywhere; A and C: the same names, nothing secret.
    c = Canaries()
    import_graph(user=bob, data=bobs_graph(c), now=now - timedelta(days=1))
    update_profile(user=bob, display_name=f"Robert {c.new()}", time_zone="UTC", memory_enabled=True)
    for texts in bobs_messages(c):
        ended_and_extracted(bob, texts, now - timedelta(hours=2))
    import_graph(user=alice, data=ordinary_graph("Alice", "budget sheet"), now=now)
    import_graph(user=carol, data=ordinary_graph("Carol", "office plant"), now=now)
    for user in (alice, carol):
        ended_and_extracted(user, ORDINARY_MESSAGES, now - timedelta(hours=1))
    # Warm Bob's per-process caches (keys, passages): a cache keyed wrongly would now serve
    # them to the next reader.
    bob_record = recall(user=bob, message=POOL[1], now=timezone.now())
    assert c.ids[0] in bob_record.text.lower() or "canary" in bob_record.text.lower()
    bob_ids = {
        "nodes": list(Node.objects.for_user(bob).values_list("id", flat=True)),
        "conversation": Conversation.objects.for_user(bob).first().pk,
        "canary": c.ids[0],
    }

    scanner = Scanner(c)
    capfd.readouterr()  # what setup printed is Bob's business
    debug_logs(scanner)
    people = [person(alice), person(carol)]
    for p in people:
        new_conversation(p, scanner)
    first_request = len(fake_anthropic.requests)

    def report(line: str) -> None:
        with capfd.disabled():
            print(line, flush=True)

    progress = Progress(report, "leak canary turns") if turns > 200 else None
    started = time.monotonic()
    combos: Counter = Counter()
    extractions: Counter = Counter()
    for i in range(turns):
        p = people[i % 2]
        channel = CHANNELS[(i // 2) % 3]
        mode = MODES[(i // 6) % 2]
        use_model(mode == "claude")
        text = POOL[(i * 5 + i // len(POOL)) % len(POOL)]
        p.turns_here += 1
        last = p.turns_here >= per_conversation
        if channel == "websocket":
            events = async_to_sync(websocket_turn)(p, text, scanner, end=last)
        elif channel == "sse":
            events = async_to_sync(sse_turn)(p, text, scanner)
        else:
            events = rest_turn(p, text, scanner)
        assert events[-1]["type"] == "done", events[-1]
        combos[channel, mode] += 1
        if last:
            extraction_mode = MODES[sum(extractions.values()) % 2]
            use_model(extraction_mode == "claude")
            end_and_extract(p, scanner, ended=channel == "websocket")
            extractions[extraction_mode] += 1
            probe_everything(p, bob_ids, scanner)
            new_conversation(p, scanner)
        if progress is not None:
            progress(i + 1, turns)
    settings.ANTHROPIC_API_KEY = ""
    for p in people:
        probe_everything(p, bob_ids, scanner)
        scanner.scan(
            "account export", json.dumps(export_account(user=p.user, now=now), ensure_ascii=False)
        )
        get(p.web, "/account/export/", scanner)
    for request in fake_anthropic.requests[first_request:]:
        scanner.scan("model prompt", json.dumps(request, ensure_ascii=False))
    out, err = capfd.readouterr()
    scanner.scan("stdout", out)
    scanner.scan("stderr", err)
    elapsed = time.monotonic() - started
    prompts = len(fake_anthropic.requests) - first_request

    # The counter can find them: Bob's own surfaces, through the same scanner and channels.
    control = Scanner(c)
    debug_logs(control)
    bob_p = person(bob)
    exported = control.scan("account export", json.dumps(export_account(user=bob, now=now)))
    api_export = control.scan("http response", get(bob_p.api, f"{API}/memory/export/", control))
    recalled = bob_p.api.post(f"{API}/memory/recall/", {"message": POOL[1]}, format="json")
    recalled_found = control.scan("http response", recalled.content)
    new_conversation(bob_p, control)
    settings.ANTHROPIC_API_KEY = "test-key"
    before = len(fake_anthropic.requests)
    async_to_sync(websocket_turn)(bob_p, POOL[1], control, end=False)
    prompt_found = sum(
        control.scan("model prompt", json.dumps(r)) for r in fake_anthropic.requests[before:]
    )
    settings.ANTHROPIC_API_KEY = ""

    mix = ", ".join(f"{ch}/{mode} {n}" for (ch, mode), n in sorted(combos.items()))
    kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(scanner.surfaces.items()))
    summary = (
        f"leak canary: {turns} turns as A and C ({mix}), extractions offline "
        f"{extractions['offline']} / claude {extractions['claude']}, "
        f"{prompts} model prompts, {sum(scanner.surfaces.values())} surfaces scanned ({kinds}), "
        f"{scanner.bytes / 1e6:.1f} MB, {len(c.ids)} canaries planted, found in A/C: "
        f"{sum(scanner.hits.values())}; found in Bob's own export {exported}, API export "
        f"{api_export}, recall {recalled_found}, prompt {prompt_found}, logs "
        f"{control.hits['log record']}; {elapsed:.1f} s"
    )
    with capfd.disabled():
        print("\n" + summary)

    assert sum(scanner.hits.values()) == 0, scanner.examples
    assert sum(combos.values()) == turns and len(combos) == len(CHANNELS) * len(MODES)
    claude_turns = sum(n for (_, mode), n in combos.items() if mode == "claude")
    # Every claude-mode turn and extraction reached the fake model.
    assert prompts >= claude_turns + extractions["claude"] and extractions["claude"] > 0
    assert scanner.surfaces["log record"] > turns  # logging was on and captured
    assert exported >= len(c.ids) - 2 and api_export >= 10
    assert recalled_found > 0 and prompt_found > 0 and control.hits["log record"] > 0
    assert ReadOptions().strategy == "default"  # passages were part of every Read
