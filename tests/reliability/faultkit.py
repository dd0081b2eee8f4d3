"""Fault-injection kit (issue 12): the real processes on loopback, on a throwaway cluster.

``Stack`` runs a PostgreSQL cluster of its own (``pegasus_site.devdb``, in a temporary
directory, so restarting or locking it never disturbs other tests), migrates it, and starts
Daphne and one django-q2 worker (``manage.py qcluster``) against it, both talking to a
``FakeAnthropic`` server whose answers ``FakeLLM`` computes from each request. The test
process reaches the same database through the ORM alias ``ALIAS`` (``Model.objects.using``).

Workers: each one is ``manage.py qcluster`` (``execute_from_command_line``) in a process
forked from a "zygote" that has already imported Django, torch and sentence-transformers,
so restarting a killed worker takes a second instead of 5-20 s of imports; the worker then
runs its own cluster, sentinel, pusher and worker processes exactly as in production, in a
process group of its own that ``kill_worker`` SIGKILLs whole. A warm-up task (the sentence
model, with a 120 s task timeout) follows every start. Timing (env): ``Q_TIMEOUT=10`` and
``Q_RETRY=12``, so a killed job is re-delivered within seconds;
``ANTHROPIC_EXTRACTION_TIMEOUT=3`` (the extraction budget), ``ANTHROPIC_CHAT_TIMEOUT=1`` and
``ANTHROPIC_MAX_RETRIES=2``.

Conversations are one user turn, ``My friend <name> works at <org>.``; the fake extracts
from it ``user -[HAS_FRIEND]-> <name>`` and ``<name> -[WORKS_AT]-> <org>``, so
``graph_problems`` knows every node and edge an extraction must write, exactly once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
import psycopg
from django.conf import settings
from django.db import connections
from django.utils import timezone

from pegasus_site import devdb
from tests.fakes.anthropic_server import (
    Error,
    FakeAnthropic,
    Hang,
    Reply,
    ToolCall,
    prompt_text,
)

BASE = Path(__file__).resolve().parents[2]
LOGS = BASE / "var" / "fault-logs"
ALIAS = "faults"
Q_TIMEOUT, Q_RETRY = 10, 12
EXTRACTION_BUDGET = 3.0
CHAT_TIMEOUT = 1.0
MAX_RETRIES = 2
LOCK_NAMESPACE = 0x5E6A  # memory.services.locks.LOCK_NAMESPACE

FRIENDS = [
    "Joshua Bell",
    "Maria Lopez",
    "Kenji Sato",
    "Amara Okafor",
    "Lars Nilsson",
    "Priya Raman",
    "Diego Alvarez",
    "Ingrid Holm",
    "Tomasz Wojcik",
    "Aiko Tanaka",
    "Femi Adeyemi",
    "Chloe Martin",
    "Ravi Menon",
    "Sofia Rossi",
    "Omar Haddad",
    "Elena Petrova",
]
ORG = "Acme Rocketry"
TURN = re.compile(r"^\[(\w+)\](?: \([^)]*\))? My friend (.+?) works at (.+?)\.$", re.M)


ZYGOTE = r"""
import os, signal, sys
import django
django.setup()
# The slow imports, once: a worker forked from here is ready in a second or two instead of
# re-importing torch and sentence-transformers (5-20 s on a loaded 2-core machine).
import anthropic, sentence_transformers  # noqa
import memory.extraction.anthropic, memory.services.jobs, memory.services.write  # noqa
signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # dead workers are reaped automatically
print("ready", flush=True)
for line in sys.stdin:
    pid = os.fork()
    if pid:
        print(pid, flush=True)
        continue
    os.setsid()  # its own process group: SIGKILL to the group kills the whole cluster
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    log = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    from django.core.management import execute_from_command_line
    execute_from_command_line(["manage.py", "qcluster"])
    sys.exit(0)
"""


def wait_for(predicate: Callable[[], Any], *, timeout: float, what: str, every: float = 0.1):
    """Poll ``predicate`` until it returns something truthy; fail with ``what`` after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")
        time.sleep(every)


# --- the fake model ---------------------------------------------------------------------------


def friend_calls(request: dict, *, finish: bool = True) -> list[ToolCall]:
    """The tool calls a careful model makes for the conversation in ``request``."""
    prompt = request["messages"][0]["content"]
    calls: list[ToolCall] = []
    for i, (message_id, name, org) in enumerate(TURN.findall(prompt)):
        snippet = f"My friend {name} works at {org}"
        calls += [
            ToolCall("add_node", {"ref": f"p{i}", "kind": "PERSON", "name": name}),
            ToolCall("add_node", {"ref": f"o{i}", "kind": "ORG", "name": org}),
            ToolCall(
                "add_edge",
                {
                    "source": "user",
                    "relation": "HAS_FRIEND",
                    "target": f"p{i}",
                    "stability": "stable",
                    "snippet": snippet,
                    "message": message_id,
                },
            ),
            ToolCall(
                "add_edge",
                {
                    "source": f"p{i}",
                    "relation": "WORKS_AT",
                    "target": f"o{i}",
                    "stability": "mutable",
                    "snippet": snippet,
                    "message": message_id,
                },
            ),
        ]
    calls.append(
        ToolCall(
            "record_episode",
            {"summary": "Talked about a friend.", "importance": 0.5, "tags": ["friends"]},
        )
    )
    if finish:
        calls.append(ToolCall("finish", {}))
    return calls


def malformed(request: dict) -> Reply:
    """The valid calls, plus a truncated tool input and an edge whose snippet is not the
    user's words; no ``finish`` (the model gets the errors back and finishes next round)."""
    message_id = TURN.findall(request["messages"][0]["content"])[0][0]
    return Reply(
        tool_calls=[
            *friend_calls(request, finish=False),
            ToolCall("add_node", raw_json='{"ref": "ghost", "kind": "PERS'),
            ToolCall(
                "add_edge",
                {
                    "source": "p0",
                    "relation": "LIKES",
                    "target": "o0",
                    "snippet": "words nobody said",
                    "message": message_id,
                },
            ),
        ]
    )


class FakeLLM:
    """The fake server's default answer, computed per request.

    Extraction requests (they carry ``tools``) get ``friend_calls``; a later round (its last
    message holds tool results) gets ``finish``. Chat requests get a short text reply.
    ``plan(marker, items)`` queues answers for the requests whose prompt contains
    ``marker`` (a spec of ``tests.fakes.anthropic_server`` or a callable of the request),
    consumed one per HTTP attempt; ``hang(marker)`` makes every such request hang until
    ``release(marker)``. Requests of any other shape (a merge judgement) are recorded in
    ``unexpected`` and refused.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._plans: dict[str, deque] = {}
        self._hanging: set[str] = set()
        self.unexpected: list[dict] = []
        self.seen: defaultdict[str, int] = defaultdict(int)  # requests per marker

    def plan(self, marker: str, items: Iterable[Any]) -> None:
        with self._lock:
            self._plans.setdefault(marker, deque()).extend(items)

    def pending(self, marker: str) -> int:
        with self._lock:
            return len(self._plans.get(marker, ()))

    def hang(self, marker: str) -> None:
        with self._lock:
            self._hanging.add(marker)

    def release(self, marker: str) -> None:
        with self._lock:
            self._hanging.discard(marker)

    def __call__(self, request: dict) -> Any:
        text = prompt_text(request)
        with self._lock:
            for marker in set(self._plans) | self._hanging:
                if marker in text:
                    self.seen[marker] += 1
            if any(marker in text for marker in self._hanging):
                return Hang(30)
            for marker, items in self._plans.items():
                if marker in text and items:
                    item = items.popleft()
                    return item(request) if callable(item) else item
        if "tools" not in request:
            return Reply(text=["Noted", " — ", "thanks for telling me."])
        choice = request.get("tool_choice") or {}
        if choice.get("type") != "auto":
            self.unexpected.append(request)
            return Error(400, message="this fake only extracts")
        last = request["messages"][-1]["content"]
        if isinstance(last, list) and any(b.get("type") == "tool_result" for b in last):
            return Reply(tool_calls=[ToolCall("finish", {})])
        return Reply(tool_calls=friend_calls(request))


# --- processes --------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _stop(proc: subprocess.Popen | None, *, kill: bool = False) -> None:
    """Stop a process and its group (django-q2's children): SIGKILL, or SIGTERM first."""
    if proc is None:
        return
    if proc.poll() is None and not kill:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pass
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


@dataclass
class Timings:
    """Seconds spent on each start-up step (the report's cost figures)."""

    cluster: float = 0.0
    migrate: float = 0.0
    web: list[float] = field(default_factory=list)
    web_warm: float = 0.0
    worker_warm: list[float] = field(default_factory=list)
    db_restart: list[float] = field(default_factory=list)


class Stack:
    """A throwaway cluster + Daphne + one worker; see the module docstring."""

    def __init__(self, fake: FakeAnthropic):
        self.fake = fake
        parent = devdb.ROOT_STATE if devdb._is_root() else BASE / "var"
        parent.mkdir(parents=True, exist_ok=True)
        self.home = Path(tempfile.mkdtemp(prefix="faults-pg-", dir=parent))
        self.home.chmod(0o755)
        self.cluster = devdb.default_cluster(throwaway_dir=self.home)
        self.timings = Timings()
        self.web: subprocess.Popen | None = None
        self.zygote: subprocess.Popen | None = None
        self.worker_pid = 0
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        LOGS.mkdir(parents=True, exist_ok=True)
        self.database_url = ""
        self.env: dict[str, str] = {}

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> Stack:
        started = time.monotonic()
        self.database_url = devdb.ensure_running(self.cluster)
        port = int(self.database_url.rsplit(":", 1)[1].split("/")[0])
        self._pg_options = (
            f"-p {port} -c listen_addresses=127.0.0.1 "
            "-c unix_socket_directories='' -c max_connections=200"
        )
        self.timings.cluster = time.monotonic() - started
        self.env = {
            k: v
            for k, v in os.environ.items()
            if k not in {"PEGASUS_EMBEDDED_DB", "DJANGO_ALLOW_ASYNC_UNSAFE"}
        }
        self.env.update(
            DATABASE_URL=self.database_url,
            SECRET_KEY=settings.SECRET_KEY,
            DJANGO_SETTINGS_MODULE="pegasus_site.settings",
            PYTHONUNBUFFERED="1",
            DB_CONN_MAX_AGE="0",
            LOG_LEVEL="INFO",
            ANTHROPIC_API_KEY="fault-test-key",
            ANTHROPIC_BASE_URL=self.fake.url,
            ANTHROPIC_MAX_RETRIES=str(MAX_RETRIES),
            ANTHROPIC_EXTRACTION_TIMEOUT=str(EXTRACTION_BUDGET),
            ANTHROPIC_CHAT_TIMEOUT=str(CHAT_TIMEOUT),
            ANTHROPIC_MERGE_TIMEOUT="3",
            Q_WORKERS="1",
            Q_TIMEOUT=str(Q_TIMEOUT),
            Q_RETRY=str(Q_RETRY),
            CHAT_MESSAGES_PER_MINUTE="100000",
        )
        # The slow imports (the zygote's, Daphne's) run while the database is migrated.
        self._start_zygote()
        self.start_web(wait=False)
        started = time.monotonic()
        self.manage("migrate", "--no-input", "-v0")
        self.timings.migrate = time.monotonic() - started
        self._add_alias()
        self.wait_web()
        self.warm_web()  # in the background, while the worker starts and warms up
        self.start_worker()
        self.wait_warm()
        # Until its first turn is over Daphne's one sync thread is busy loading the model, and
        # new sockets would time out in the handshake (daphne --websocket_connect_timeout).
        self.web_warm()
        return self

    def close(self) -> None:
        _stop(self.web, kill=True)  # a throwaway stack: no graceful shutdown needed
        self.stop_worker()
        self._drop_alias()
        with contextlib.suppress(Exception):
            self._pg_ctl("-m", "immediate", "stop")  # throwaway: no shutdown checkpoint
        # Removing the data directory takes seconds; nothing waits for it.
        subprocess.Popen(["rm", "-rf", str(self.home)], start_new_session=True)

    def _add_alias(self) -> None:
        config = dj_database_url.parse(self.database_url, conn_max_age=0)
        configured = connections.configure_settings(
            {"default": dict(settings.DATABASES["default"]), ALIAS: config}
        )
        connections.settings[ALIAS] = configured[ALIAS]

    def _drop_alias(self) -> None:
        with contextlib.suppress(Exception):
            connections[ALIAS].close()
        with contextlib.suppress(Exception):
            del connections[ALIAS]
        connections.settings.pop(ALIAS, None)

    def reset_connection(self) -> None:
        """Drop the test process's connection (after a database restart)."""
        with contextlib.suppress(Exception):
            connections[ALIAS].close()

    def manage(self, *args: str, check: bool = True, timeout: float = 120):
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=BASE,
            env=self.env,
            capture_output=True,
            text=True,
            check=check,
            timeout=timeout,
        )

    def popen_manage(self, *args: str) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "manage.py", *args],
            cwd=BASE,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )

    # -- web ------------------------------------------------------------------------------------

    def start_web(self, *, wait: bool = True) -> None:
        self._web_started = time.monotonic()
        self.web = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(self.port),
                "pegasus_site.asgi:application",
            ],
            cwd=BASE,
            env=self.env,
            stdout=open(LOGS / "daphne.log", "a"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        if wait:
            self.wait_web()

    def wait_web(self) -> None:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(self.url + "/healthz", timeout=2)
                break
            except urllib.error.HTTPError:
                break  # 503 before the first worker heartbeat: the server is up
            except OSError:
                if time.monotonic() > deadline or self.web.poll() is not None:
                    raise RuntimeError(f"daphne did not start; see {LOGS}/daphne.log") from None
                time.sleep(0.2)
        self.timings.web.append(time.monotonic() - self._web_started)

    def warm_web(self) -> None:
        """Start one chat turn in the background, so Daphne loads the sentence model while
        the worker starts; ``web_warm()`` waits for it."""
        user = make_user("warm-up")
        conversation = open_conversation(user)
        cookie = session_cookie(user)
        started = time.monotonic()
        self._warm_events: list[dict] = []

        async def turn() -> None:
            async with Chat(self, cookie, conversation.pk) as chat:
                text = "My friend Joshua plays the cello"
                self._warm_events = await chat.turn(text, "warm-up", timeout=300)
            self.timings.web_warm = time.monotonic() - started

        self._warming = threading.Thread(target=asyncio.run, args=(turn(),), daemon=True)
        self._warming.start()

    def web_warm(self) -> None:
        """Wait for Daphne's warm-up turn (started by ``warm_web``)."""
        self._warming.join(timeout=300)
        events = self._warm_events
        assert events and events[-1]["type"] == "done", f"Daphne's warm-up turn: {events}"

    # -- worker ---------------------------------------------------------------------------------

    def _start_zygote(self) -> None:
        self.zygote = subprocess.Popen(
            [sys.executable, "-c", ZYGOTE, str(LOGS / "worker.log")],
            cwd=BASE,
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )

    def start_worker(self) -> None:
        """Fork a fresh worker (``manage.py qcluster``) off the zygote; enqueue its warm-up."""
        self._worker_started = time.monotonic()
        if not getattr(self, "_zygote_ready", False):
            line = self.zygote.stdout.readline().strip()
            assert line == "ready", f"the worker zygote did not start: {line!r}"
            self._zygote_ready = True
        self.zygote.stdin.write("fork\n")
        self.zygote.stdin.flush()
        self.worker_pid = int(self.zygote.stdout.readline())
        self._warm_id = self.enqueue(
            "memory.embedding.embed", ["warm up the sentence model"], timeout=120
        )

    def wait_warm(self) -> None:
        """Wait until the worker has run its warm-up task (the sentence model is loaded)."""
        from django_q.models import Task

        wait_for(
            lambda: Task.objects.using(ALIAS).filter(id=self._warm_id, success=True).exists(),
            timeout=180,
            what="the worker's warm-up task",
        )
        self.timings.worker_warm.append(time.monotonic() - self._worker_started)

    def _worker_group(self) -> list:
        import psutil

        alive = []
        for proc in psutil.process_iter(["pid"]):
            with contextlib.suppress(psutil.Error, OSError):
                if (
                    os.getpgid(proc.pid) == self.worker_pid
                    and proc.status() != psutil.STATUS_ZOMBIE
                ):
                    alive.append(proc)
        return alive

    def kill_worker(self) -> None:
        """SIGKILL the worker and every process it started (the cluster's children)."""
        assert self.worker_pid and self._worker_group(), "the worker is not up"
        os.killpg(self.worker_pid, signal.SIGKILL)
        wait_for(lambda: not self._worker_group(), timeout=10, what="the worker to die")
        self.worker_pid = 0

    def stop_worker(self) -> None:
        if self.worker_pid:
            # A throwaway cluster: no need to let the worker finish its tasks.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.worker_pid, signal.SIGKILL)
            self.worker_pid = 0
        if self.zygote is not None:
            with contextlib.suppress(OSError):
                self.zygote.stdin.close()
            _stop(self.zygote)

    def enqueue(self, func: str, *args: Any, timeout: int | None = None) -> str:
        """Put a task on the ORM broker of the stack's database, as ``async_task`` does."""
        from django_q.humanhash import uuid as task_uuid
        from django_q.models import OrmQ
        from django_q.signing import SignedPackage

        name, task_id = task_uuid()
        task = {
            "id": task_id,
            "name": name,
            "func": func,
            "args": args,
            "kwargs": {},
            "started": timezone.now(),
            "ack_failure": True,
        }
        if timeout is not None:
            task["timeout"] = timeout
        OrmQ.objects.using(ALIAS).create(
            key=settings.Q_CLUSTER["name"], payload=SignedPackage.dumps(task), lock=timezone.now()
        )
        return task_id

    def queue(self) -> list[tuple[int, bool]]:
        """``(episode id, available now)`` of every extraction task on the broker."""
        from django_q.models import OrmQ

        now = timezone.now()
        return [
            (row.task["args"][0], row.lock is None or row.lock <= now)
            for row in OrmQ.objects.using(ALIAS).all()
            if row.task.get("func") == "memory.tasks.extract_conversation"
        ]

    # -- database -------------------------------------------------------------------------------

    def _pg_ctl(self, *args: str) -> None:
        # pg_ctl itself, not devdb.ensure_running: that picks a new port when the old one
        # still has connections in TIME_WAIT, and every process here knows the old one.
        result = devdb._run(self.cluster, "pg_ctl", "-D", str(self.cluster.data), "-w", *args)
        assert result.returncode == 0, result.stderr

    def stop_db(self) -> None:
        """Stop PostgreSQL (fast shutdown: every session is terminated). The test process's
        own connection is dropped with ``reset_connection`` (per thread)."""
        self._pg_ctl("-m", "fast", "stop")

    def start_db(self) -> None:
        self._pg_ctl("-l", str(self.cluster.log), "-o", self._pg_options, "start")

    def restart_db(self) -> float:
        """``pg_ctl restart -m fast``: every session is terminated, the server comes back on
        the same port. Returns the seconds it took."""
        started = time.monotonic()
        self._pg_ctl("-m", "fast", "-l", str(self.cluster.log), "restart")
        took = time.monotonic() - started
        self.timings.db_restart.append(took)
        return took

    def connect(self) -> psycopg.Connection:
        """A separate autocommit connection (to hold locks from the test)."""
        return psycopg.connect(self.database_url, autocommit=True)

    def waiting_for_user_lock(self, user_id: int) -> bool:
        """Whether some session waits for ``user_id``'s graph lock (memory.services.locks)."""
        with self.connect() as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                " AND classid = %s AND objid = %s",
                [LOCK_NAMESPACE, user_id],
            ).fetchone()
        return bool(row and row[0])

    def open_transactions(self) -> int:
        """How many other sessions are inside a transaction (a dead worker's backend stays
        until PostgreSQL notices its client is gone)."""
        with self.connect() as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND xact_start IS NOT NULL"
            ).fetchone()
        return int(row[0])


# --- data -------------------------------------------------------------------------------------


@dataclass
class Talk:
    """One conversation of a fault run and what its extraction must write."""

    conversation_id: int
    friend: str
    org: str = ORG


def make_user(prefix: str):
    from django.contrib.auth import get_user_model

    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    return get_user_model().objects.db_manager(ALIAS).create_user(name, f"{name}@example.com", None)


def session_cookie(user) -> str:
    """A signed-in session for ``user`` in the stack's database (Daphne reads it)."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.utils.crypto import get_random_string

    data = {
        SESSION_KEY: str(user.pk),
        BACKEND_SESSION_KEY: "django.contrib.auth.backends.ModelBackend",
        HASH_SESSION_KEY: user.get_session_auth_hash(),
    }
    key = get_random_string(32, "abcdefghijklmnopqrstuvwxyz0123456789")
    Session.objects.using(ALIAS).create(
        session_key=key,
        session_data=SessionStore().encode(data),
        expire_date=timezone.now() + timedelta(days=1),
    )
    return key


def open_conversation(user, *, friend: str | None = None):
    """An open conversation; with ``friend``, holding the turn about them and a reply."""
    from chat.models import Conversation, Message

    now = timezone.now()
    conversation = Conversation.objects.using(ALIAS).create(
        user=user, started_at=now, last_message_at=now
    )
    if friend:
        Message.objects.using(ALIAS).create(
            user=user,
            conversation=conversation,
            role="user",
            text=f"My friend {friend} works at {ORG}.",
            created_at=now,
        )
        Message.objects.using(ALIAS).create(
            user=user,
            conversation=conversation,
            role="assistant",
            text="Good to know.",
            created_at=now + timedelta(milliseconds=1),
        )
    return conversation


# --- the websocket client ---------------------------------------------------------------------


class Chat:
    """A websocket client of one conversation, as the browser's chat page speaks to it."""

    def __init__(self, stack: Stack, cookie: str, conversation_id: int):
        self.url = f"ws://127.0.0.1:{stack.port}/ws/chat/{conversation_id}/"
        self.headers = {"Cookie": f"sessionid={cookie}", "Origin": stack.url}
        self.ws = None

    async def __aenter__(self) -> Chat:
        import websockets

        self.ws = await websockets.connect(self.url, additional_headers=self.headers)
        return self

    async def __aexit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()

    async def send(self, text: str, client_id: str) -> None:
        await self.ws.send(json.dumps({"type": "message", "text": text, "client_id": client_id}))

    async def events(
        self, timeout: float = 30, until: frozenset[str] = frozenset({"done", "error"})
    ) -> list[dict]:
        """The frames of one turn up to ``done`` or ``error`` (or a type in ``until``); a
        close ends the list with ``{"type": "closed", "code": ...}``."""
        import websockets

        out: list[dict] = []
        while True:
            try:
                frame = await asyncio.wait_for(self.ws.recv(), timeout)
            except websockets.ConnectionClosed as exc:
                out.append({"type": "closed", "code": exc.rcvd.code if exc.rcvd else None})
                return out
            event = json.loads(frame)
            out.append(event)
            if event["type"] in until:
                return out

    async def turn(self, text: str, client_id: str, timeout: float = 30) -> list[dict]:
        await self.send(text, client_id)
        return await self.events(timeout)

    async def end(self) -> None:
        await self.ws.send(json.dumps({"type": "end"}))
        event = json.loads(await asyncio.wait_for(self.ws.recv(), 30))
        assert event["type"] == "ended", event


def end_conversations(stack: Stack, user, conversation_ids: Iterable[int]) -> None:
    """End each conversation through its websocket (the real path: Daphne schedules the
    extraction and enqueues its job)."""

    cookie = session_cookie(user)

    async def run() -> None:
        for conversation_id in conversation_ids:
            async with Chat(stack, cookie, conversation_id) as chat:
                await chat.end()

    asyncio.run(run())


# --- invariants -------------------------------------------------------------------------------


def episodes(conversation_ids: Iterable[int]) -> dict[int, Any]:
    from memory.models import Episode

    return {
        e.conversation_id: e
        for e in Episode.objects.using(ALIAS).filter(conversation_id__in=list(conversation_ids))
    }


def wait_done(conversation_ids: list[int], *, timeout: float = 60) -> dict[int, Any]:
    """Wait until every conversation's episode is done, skipped or finally failed (a failed
    episode with attempts left is retried by the broker: a timeout under load is a fault the
    jobs must absorb too)."""
    final = settings.Q_CLUSTER["max_attempts"]

    def finished():
        found = episodes(conversation_ids)
        if len(found) == len(conversation_ids) and all(
            e.status in {"done", "skipped"} or (e.status == "failed" and e.attempts >= final)
            for e in found.values()
        ):
            return found
        return None

    return wait_for(
        finished, timeout=timeout, what=f"the episodes of {conversation_ids}", every=0.2
    )


def graph_problems(user, talks: list[Talk], *, extracted: bool = True) -> list[str]:
    """What is wrong with ``user``'s graph after ``talks`` were extracted (``extracted``)
    or not: an episode not done exactly once, a missing, duplicated or re-touched node or
    edge, a half-written batch, a stray item. Empty when all is well."""
    from memory.core.merge_rules import normalise_name
    from memory.models import Edge, EdgeEpisode, Node, NodeEpisode

    problems: list[str] = []
    found = episodes(t.conversation_id for t in talks)
    nodes = list(Node.objects.using(ALIAS).filter(user=user))
    edges = list(Edge.objects.using(ALIAS).filter(user=user).select_related("source", "target"))
    by_name: defaultdict[tuple[str, str], list] = defaultdict(list)
    for node in nodes:
        by_name[(node.kind, normalise_name(node.name))].append(node)
    by_claim: defaultdict[tuple[str, str, str], list] = defaultdict(list)
    for edge in edges:
        source = "user" if edge.source.is_self else edge.source.name
        by_claim[(source, edge.relation, edge.target.name)].append(edge)
    problems += [f"duplicate nodes {key}" for key, rows in by_name.items() if len(rows) > 1]
    problems += [f"duplicate edges {key}" for key, rows in by_claim.items() if len(rows) > 1]
    cites = set(
        NodeEpisode.objects.using(ALIAS).filter(user=user).values_list("node_id", "episode_id")
    )
    edge_cites = set(
        EdgeEpisode.objects.using(ALIAS).filter(user=user).values_list("edge_id", "episode_id")
    )
    expected_claims: set[tuple[str, str, str]] = set()
    for talk in talks:
        episode = found.get(talk.conversation_id)
        claims = {("user", "HAS_FRIEND", talk.friend), (talk.friend, "WORKS_AT", talk.org)}
        person = by_name.get(("PERSON", normalise_name(talk.friend)), [])
        if not extracted:
            if person or any(by_claim.get(c) for c in claims):
                problems.append(f"{talk.friend}: written although not extracted")
            continue
        if episode is None or episode.status != "done":
            problems.append(f"{talk.friend}: episode {getattr(episode, 'status', None)}")
            if person or any(by_claim.get(c) for c in claims):
                problems.append(f"{talk.friend}: half-written batch of an unfinished episode")
            continue
        expected_claims |= claims
        if len(person) != 1:
            problems.append(f"{talk.friend}: {len(person)} PERSON nodes")
        elif (person[0].pk, episode.pk) not in cites:
            problems.append(f"{talk.friend}: the node does not cite episode {episode.pk}")
        for claim in claims:
            rows = by_claim.get(claim, [])
            if len(rows) != 1:
                problems.append(f"{talk.friend}: {len(rows)} edges {claim} (half-written?)")
                continue
            edge = rows[0]
            if edge.last_touched_at != edge.created_at:
                problems.append(f"{claim}: touched again after its creation (extracted twice?)")
            if (edge.pk, episode.pk) not in edge_cites:
                problems.append(f"{claim}: does not cite episode {episode.pk}")
    stray = set(by_claim) - expected_claims
    problems += [f"unexpected edge {claim}" for claim in sorted(stray)]
    named = {normalise_name(t.friend) for t in talks} | {normalise_name(ORG)}
    problems += [
        f"unexpected node {n.kind} {n.name!r}"
        for n in nodes
        if not n.is_self and normalise_name(n.name) not in named
    ]
    return problems


def message_problems(conversation_id: int, expected: list[tuple[str, str]]) -> list[str]:
    """Compare a conversation's stored messages (``(role, text)`` in order) with what the
    user sent and was answered: nothing lost, nothing duplicated."""
    from chat.models import Message

    stored = list(
        Message.objects.using(ALIAS)
        .filter(conversation_id=conversation_id)
        .order_by("created_at", "id")
        .values_list("role", "text")
    )
    return [] if stored == expected else [f"messages {stored} != {expected}"]


def database_problems() -> list[str]:
    """Whole-database checks: no duplicate node (user, kind, name) or live edge claim, no
    episode left running, every extraction task either queued or finished."""
    with connections[ALIAS].cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM (SELECT 1 FROM memory_node GROUP BY user_id, kind,"
            " normalised_name HAVING count(*) > 1) d"
        )
        nodes = cursor.fetchone()[0]
        cursor.execute(
            "SELECT count(*) FROM (SELECT 1 FROM memory_edge WHERE superseded_by_id IS NULL"
            " GROUP BY source_id, relation, target_id HAVING count(*) > 1) d"
        )
        edges = cursor.fetchone()[0]
        cursor.execute("SELECT count(*) FROM memory_episode WHERE status = 'running'")
        running = cursor.fetchone()[0]
    problems = []
    if nodes:
        problems.append(f"{nodes} duplicated nodes")
    if edges:
        problems.append(f"{edges} duplicated live edges")
    if running:
        problems.append(f"{running} episodes left running")
    return problems


# --- the report -------------------------------------------------------------------------------


@dataclass
class Row:
    injected: int = 0
    survived: int = 0
    lost: int = 0
    seconds: float = 0.0
    notes: set[str] = field(default_factory=set)
    measures: dict[str, list[float]] = field(default_factory=dict)


class Report:
    """Counts per fault, written to ``var/reliability/faults.md`` at the end of the module."""

    def __init__(self) -> None:
        self.rows: dict[str, Row] = {}
        self.timings: Timings | None = None

    def record(
        self, fault: str, *, problems: list[str], seconds: float, note: str = "", **measures
    ) -> None:
        """One injection of ``fault``: ``problems`` found afterwards (each counts as one
        thing lost), a fixed ``note``, and named numbers shown as min–max over injections."""
        row = self.rows.setdefault(fault, Row())
        row.injected += 1
        row.survived += not problems
        row.lost += len(problems)
        row.seconds += seconds
        if note:
            row.notes.add(note)
        for name, value in measures.items():
            row.measures.setdefault(name.replace("_", " "), []).append(float(value))

    def table(self) -> str:
        lines = [
            "| fault | injected | survived | lost | seconds | notes |",
            "|---|---:|---:|---:|---:|---|",
        ]
        for fault, row in self.rows.items():
            notes = sorted(row.notes) + [
                f"{name} {_span(values)}" for name, values in row.measures.items()
            ]
            lines.append(
                f"| {fault} | {row.injected} | {row.survived} | {row.lost} | "
                f"{row.seconds:.1f} | {'; '.join(notes)} |"
            )
        if self.timings is not None:
            t = self.timings
            lines += [
                "",
                f"Start-up: cluster {t.cluster:.1f}s, migrate {t.migrate:.1f}s, Daphne up "
                f"{_seconds(t.web)} and its first turn (the sentence model, in the background) "
                f"{t.web_warm:.1f}s, worker up and warm {_seconds(t.worker_warm)}, "
                f"PostgreSQL restarts {_seconds(t.db_restart)}.",
            ]
        return "\n".join(lines)


def _span(values: list[float]) -> str:
    low, high = min(values), max(values)
    return f"{low:g}" if low == high else f"{low:g}–{high:g}"


def _seconds(values: list[float]) -> str:
    return "/".join(f"{v:.1f}" for v in values) + "s" if values else "-"
