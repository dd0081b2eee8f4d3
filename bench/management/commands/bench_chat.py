"""``manage.py bench_chat``: concurrent websocket chat turns over loopback, offline mode.

    manage.py bench_chat [--clients 50] [--turns 1000] [--graph-nodes 10000] [--seed 7]
                         [--duration SECONDS] [--url URL] [--daphne 1] [--workers 0]
                         [--redis] [--end] [--rebuild] [--drop] [--distinct-names] [--json]
    manage.py bench_chat --open-loop --users 500 --think 20 [--duration 60] [--graphs 50]
                         [--graph-nodes 1000] [--end] [...] [--json]
    manage.py bench_chat --open-loop ... --daphne 2 --workers 2 --redis --end

**Setup.** Every client is its own bench account ``bench_chat_<graph-nodes>_<i>`` with its own
synthetic memory graph of ``--graph-nodes`` nodes (``bench.synthetic``): user i's
edges, hubs, strengths and episodes come from seed ``--seed`` × 1 000 003 + i; the node names
are one shared sample (seed ``--seed`` × 1 000 003), so 50 graphs need the vectors of one —
``--distinct-names`` draws each user's names with its own seed instead (~``--graph-nodes``
new forms to embed per user, once). Graphs are reused across runs when they are unchanged
(same size, seeds, generator version and model); missing or stale ones are built: every
surface form comes from a fixed vocabulary, so each distinct form is embedded once and cached
on disk (``var/bench-cache/embeddings/``), then each graph goes in with COPY in its own
transaction (an interrupted setup keeps the graphs it finished). Most of a build is the
MemoryKey inserts (HNSW index maintenance, ~1–3 ms per key): the figures show it. Each
client gets a fresh conversation and a session made server-side (cookie), and sends the
Origin of its server.

**Run.** Without ``--url`` it starts ``--daphne`` Daphne processes (``daphne
pegasus_site.asgi:application`` on free loopback ports; clients spread round-robin) and
``--workers`` ``manage.py qcluster`` processes (``Q_WORKERS=1`` each), all on this command's
database, in offline mode (no ``ANTHROPIC_API_KEY``), with ``DEBUG`` off as in production
(Django's debug cursor records every query) and with the per-minute message limit and the
daily token budget lifted in their environment only. Logs go to ``var/bench-logs/``.
``--redis`` also starts Debian's ``redis-server`` on a free loopback port without persistence
(``bench.devredis``) and gives every started process its ``REDIS_URL``, so the Channels
layer is shared as in a deployment on several machines; Redis is stopped at the end, also
after Ctrl-C. Each client warms up with one unmeasured turn, then sends its next message as
soon as the previous ``done`` arrives, until ``--turns`` turns were sent in all or, with
``--duration``, until the time is up. With ``--end`` each client ends its conversation
(``{"type": "end"}``) at the end (open loop: after its last reply); when workers run, the
command waits for the extraction jobs, counts the episodes by status and checks that every
ended conversation was extracted exactly once: the extraction runs of a conversation are its
episode's ``attempts`` (each claim of the job runs the extractor once; SPEC §3,
``memory.services.jobs``), so ``extracted_once`` = done after one run,
``extracted_twice_or_more`` = two runs or more, ``not_extracted`` = the rest (no episode, or
not done after at most one run), plus the failed deliveries django-q2 recorded.

**Open loop** (``--open-loop``): ``--users`` simulated users, each on its own socket and
conversation, send messages at the times of a Poisson process (think time between arrivals
exponential, mean ``--think`` seconds, independent of the replies), for ``--duration``
seconds (default 60). A message that arrives while the user's previous turn is still running
is sent at once and waits on its socket: its latencies count from its arrival, so a server
that falls behind shows as served < offered and growing latencies, not as fewer arrivals.
Users share ``--graphs`` bench accounts (default: ``--users``, at most 50), user j on account
j mod ``--graphs``, so that 500 users need not 500 graph builds. One unmeasured warm-up turn
per account. Reported: offered turns/s (arrivals in the window over the window), served
turns/s (turns done within the window over the window, ``turns_per_s``), time to first
delta, errors, peak RSS per process. Turns still running at the deadline are waited for
(up to ``--turn-timeout``) and count in the latencies.

``--url http://127.0.0.1:8000`` drives an already running ``make run`` instead. That server's
limits cannot be lifted from here: start it with them raised, e.g.
``CHAT_MESSAGES_PER_MINUTE=1000000 CHAT_DAILY_TOKEN_BUDGET=1000000000 make run``, and without
``ANTHROPIC_API_KEY`` for offline mode. It must use the same database as this command.

**Output.** Progress with counts and an ETA on stderr, then turns/s, p50/p95/p99 of the time to
first delta (send → first ``delta`` frame) and to ``done``, errors by code, the setup time
(and how much of it went into MemoryKey inserts, i.e. HNSW index maintenance), the peak RSS
(VmHWM) of every process started, and the machine's load. ``--json`` prints the same figures
as JSON on stdout.

**Afterwards.** The bench accounts are kept for the next run to reuse; ``--drop`` deletes them.
The run's conversations and sessions are deleted, except with ``--end`` (the extraction jobs
need them; the next run's setup removes them). ``--end`` changes the graphs (extraction writes
to them), so those accounts are rebuilt by the next run. Ctrl-C stops the clients at once,
then the child processes (SIGTERM, SIGKILL after 15 s), and prints what was measured so far.

Refuses to run in production: it creates accounts and writes large graphs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.utils import timezone

from bench import devredis, synthetic
from chat import services as chat_services
from chat.models import Conversation
from memory.models import Episode, ExtractionStatus
from memory.services.keys import Progress

PREFIX = "bench_chat_"
UNLIMITED_ENV = {
    "CHAT_MESSAGES_PER_MINUTE": "1000000000",
    "CHAT_DAILY_TOKEN_BUDGET": "1000000000000",
}
TARGET_P95_TTFD_MS = 150.0
STOP_GRACE_S = 15.0


class Interrupted(Exception):
    pass


@dataclass
class Client:
    username: str
    user_id: int
    session_key: str
    conversation_id: int
    names: dict[str, list[str]]
    rng: random.Random
    base_url: str = ""


@dataclass
class Stats:
    ttfd: list[float] = field(default_factory=list)
    finished_at: list[float] = field(default_factory=list)
    to_recall: list[float] = field(default_factory=list)
    read: list[float] = field(default_factory=list)
    recall_bytes: list[int] = field(default_factory=list)
    done: list[float] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    warmup_done: list[float] = field(default_factory=list)
    warmup_errors: Counter = field(default_factory=Counter)
    ended: int = 0
    ended_ids: list[int] = field(default_factory=list)  # conversations ended
    claimed: int = 0


@dataclass
class Turn:
    recall_ms: float  # send → the recall frame (queueing + storing the message + the Read)
    read_ms: float | None  # the Read itself, as the server timed it
    ttfd_ms: float  # send → the first delta
    done_ms: float  # send → done
    recall_bytes: int


class TurnFailed(Exception):
    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


def _percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p95": None, "p99": None, "max": None}
    ordered = sorted(values)

    def at(p: float) -> float:
        k = (len(ordered) - 1) * p / 100
        lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
        return round(ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo), 1)

    return {"p50": at(50), "p95": at(95), "p99": at(99), "max": round(ordered[-1], 1)}


def _read_ms(frame: str) -> float | None:
    """The server's own Read time (the sum of the record's ``timings_ms``), picked out of a
    recall frame without decoding the whole record (it can be hundreds of kB)."""
    start = frame.rfind('"timings_ms": {')
    if start < 0:
        return None
    end = frame.find("}", start)
    try:
        timings = json.loads(frame[start + len('"timings_ms": ') : end + 1])
        return float(sum(timings.values()))
    except (ValueError, TypeError):
        return None


def _cpu_figures(before: float | None, after: float | None, turns: int) -> dict:
    """The started processes' CPU time over the measured turns (None when this command
    started none, with --url): machine time per turn, whatever the machine's other load."""
    if before is None or after is None:
        return {"server_cpu_s": None, "server_cpu_ms_per_turn": None}
    used = after - before
    return {
        "server_cpu_s": round(used, 2),
        "server_cpu_ms_per_turn": round(1000 * used / turns, 1) if turns else None,
    }


def _latency_figures(stats: Stats) -> dict:
    """What both loops report of their turns: errors, latencies, recall frames, warm-up."""
    return {
        "errors": sum(stats.errors.values()),
        "errors_by_code": dict(stats.errors),
        "ttfd_ms": _percentiles(stats.ttfd),
        "done_ms": _percentiles(stats.done),
        "recall_frame_ms": _percentiles(stats.to_recall),
        "server_read_ms": _percentiles(stats.read),
        "recall_frame_kb_mean": (
            round(sum(stats.recall_bytes) / len(stats.recall_bytes) / 1024, 1)
            if stats.recall_bytes
            else None
        ),
        "warmup": {
            "turns": len(stats.warmup_done),
            "errors_by_code": dict(stats.warmup_errors),
            "done_ms": _percentiles(stats.warmup_done),
        },
        "conversations_ended": stats.ended,
        "ended_ids": stats.ended_ids,
    }


def _extraction_counts(conversation_ids: list[int]) -> dict:
    """How many times each of these (ended) conversations was extracted.

    A conversation has at most one Episode (one-to-one), and every run of its extraction job
    first claims the episode with a conditional UPDATE that adds one to ``attempts``
    (``memory.services.jobs``): ``attempts`` is the number of runs. Once = done after one
    run; twice or more = two runs or more, whatever the outcome; not extracted = no episode,
    or not done after at most one run. ``failed_deliveries``: django-q2's failed task
    records of these episodes (failures are always kept; successes only up to its
    ``save_limit``, so they cannot be counted here).
    """
    from django_q.models import Task

    episodes = {
        conversation: (pk, attempts, status)
        for conversation, pk, attempts, status in Episode.objects.filter(
            conversation_id__in=conversation_ids
        ).values_list("conversation_id", "pk", "attempts", "status")
    }
    once = twice = missing = 0
    by_runs: Counter = Counter()
    for conversation_id in conversation_ids:
        _, runs, status = episodes.get(conversation_id, (None, 0, None))
        by_runs[runs] += 1
        if runs >= 2:
            twice += 1
        elif runs == 1 and status == ExtractionStatus.DONE:
            once += 1
        else:
            missing += 1
    failed = Task.objects.filter(
        name__in=[f"extract-{pk}" for pk, _, _ in episodes.values()], success=False
    ).count()
    return {
        "extracted_once": once,
        "extracted_twice_or_more": twice,
        "not_extracted": missing,
        "runs_per_conversation": {str(k): v for k, v in sorted(by_runs.items())},
        "failed_deliveries": failed,
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _database_url() -> str:
    """The URL of the database this command uses (the test database under pytest)."""
    s = connection.settings_dict
    auth = urllib.parse.quote(s["USER"] or "", safe="")
    if s.get("PASSWORD"):
        auth += ":" + urllib.parse.quote(s["PASSWORD"], safe="")
    host = s.get("HOST") or "localhost"
    port = f":{s['PORT']}" if s.get("PORT") else ""
    return f"postgres://{auth}@{host}{port}/{urllib.parse.quote(s['NAME'], safe='')}"


def _vm_hwm_kb(pid: int) -> int | None:
    """Peak resident set size of a live process (``VmHWM``), in KiB."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time a live process has used so far, in seconds."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # After "pid (comm)": state is field 3, utime 14 and stime 15 (1-based, proc(5)).
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Children:
    """The Daphne and qcluster processes this command starts, and their peak memory."""

    def __init__(self, log_dir: Path):
        self.log_dir = log_dir
        self.procs: list[tuple[str, subprocess.Popen]] = []
        self.peaks: dict[int, dict] = {}  # pid → {"role", "name", "kb", "parent"}

    def start(self, role: str, argv: list[str], env: dict) -> subprocess.Popen:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.log_dir / f"bench_chat-{role}.log", "ab")
        try:
            proc = subprocess.Popen(
                argv,
                cwd=settings.BASE_DIR,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            log.close()  # the child has its own descriptor
        self.procs.append((role, proc))
        return proc

    def sample(self) -> None:
        """Record VmHWM of every child and its descendants (qcluster forks its workers)."""
        try:
            import psutil
        except ImportError:  # only the leaders then
            psutil = None
        for role, proc in self.procs:
            if proc.poll() is not None:
                continue
            pids = [(proc.pid, role, None)]
            if psutil is not None:
                with contextlib.suppress(psutil.Error):
                    pids += [
                        (c.pid, f"{role} child", proc.pid)
                        for c in psutil.Process(proc.pid).children(recursive=True)
                    ]
            for pid, name, parent in pids:
                kb = _vm_hwm_kb(pid)
                if kb is None:
                    continue
                seen = self.peaks.setdefault(
                    pid, {"role": role, "name": name, "kb": 0, "parent": parent}
                )
                seen["kb"] = max(seen["kb"], kb)

    def cpu_seconds(self) -> float | None:
        """CPU seconds used so far by every live child and its descendants (None: none)."""
        try:
            import psutil
        except ImportError:
            psutil = None
        total, seen = 0.0, False
        for _, proc in self.procs:
            if proc.poll() is not None:
                continue
            pids = [proc.pid]
            if psutil is not None:
                with contextlib.suppress(psutil.Error):
                    pids += [c.pid for c in psutil.Process(proc.pid).children(recursive=True)]
            for pid in pids:
                used = _cpu_seconds(pid)
                if used is not None:
                    total, seen = total + used, True
        return total if seen else None

    def died(self) -> list[str]:
        return [
            f"{role} (exit {proc.returncode})"
            for role, proc in self.procs
            if proc.poll() is not None
        ]

    def stop(self) -> None:
        """SIGTERM the leaders (qcluster stops its own workers), SIGKILL the groups of those
        that overrun the grace period; a second Ctrl-C kills at once."""
        try:
            for _, proc in self.procs:
                if proc.poll() is None:
                    proc.terminate()
            deadline = time.monotonic() + STOP_GRACE_S
            for _, proc in self.procs:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        finally:
            for _, proc in self.procs:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=5)

    def report(self) -> list[dict]:
        out = []
        for role, proc in self.procs:
            leader = self.peaks.get(proc.pid, {})
            kids = [
                {"pid": pid, "name": p["name"], "peak_rss_mb": round(p["kb"] / 1024, 1)}
                for pid, p in sorted(self.peaks.items())
                if p["role"] == role and pid != proc.pid
            ]
            out.append(
                {
                    "role": role,
                    "pid": proc.pid,
                    "peak_rss_mb": round(leader.get("kb", 0) / 1024, 1),
                    "descendants": kids,
                    "tree_peak_rss_mb": round(
                        (leader.get("kb", 0) + sum(k["peak_rss_mb"] * 1024 for k in kids)) / 1024, 1
                    ),
                }
            )
        return out


class Command(BaseCommand):
    help = "Concurrent websocket chat turns over loopback (offline mode); latency figures."

    def add_arguments(self, parser):
        parser.add_argument(
            "--clients",
            type=int,
            default=50,
            help="concurrent clients, one bench account each (default 50)",
        )
        parser.add_argument(
            "--turns",
            type=int,
            default=1000,
            help="measured turns in all (default 1000; ignored with --duration)",
        )
        parser.add_argument(
            "--graph-nodes",
            type=int,
            default=10000,
            help="nodes in each client's memory graph (default 10000)",
        )
        parser.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
        parser.add_argument(
            "--duration",
            type=float,
            default=None,
            help="run for this many seconds instead of a turn count",
        )
        parser.add_argument(
            "--url",
            default=None,
            help="drive an already running server (e.g. http://127.0.0.1:8000) "
            "instead of starting Daphne",
        )
        parser.add_argument(
            "--daphne", type=int, default=1, help="Daphne processes to start (default 1)"
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=0,
            help="manage.py qcluster processes to start (default 0)",
        )
        parser.add_argument(
            "--redis",
            action="store_true",
            help="start redis-server on loopback (no persistence) and point the Channels "
            "layer of every started process at it (REDIS_URL)",
        )
        parser.add_argument(
            "--end",
            action="store_true",
            help="end every conversation at the end (enqueues its extraction)",
        )
        parser.add_argument(
            "--turn-timeout",
            type=float,
            default=300.0,
            help="seconds to wait for a turn's done (default 300)",
        )
        parser.add_argument(
            "--extract-timeout",
            type=float,
            default=600.0,
            help="seconds to wait for the extraction jobs with --end",
        )
        parser.add_argument(
            "--rebuild",
            action="store_true",
            help="rebuild the bench graphs even when reusable ones exist",
        )
        parser.add_argument(
            "--drop",
            action="store_true",
            help="delete the bench accounts at the end (default: keep them)",
        )
        parser.add_argument(
            "--distinct-names",
            action="store_true",
            help="draw each user's node names with its own seed (about --graph-nodes new "
            "surface forms to embed per user, once) instead of one shared name sample",
        )
        parser.add_argument(
            "--open-loop",
            action="store_true",
            help="Poisson arrivals per user (exponential think time) instead of a closed loop",
        )
        parser.add_argument(
            "--users",
            type=int,
            default=None,
            help="simulated users in open loop (default: --clients)",
        )
        parser.add_argument(
            "--think",
            type=float,
            default=20.0,
            help="mean think time between a user's messages in open loop, seconds (default 20)",
        )
        parser.add_argument(
            "--graphs",
            type=int,
            default=None,
            help="bench accounts the open-loop users share (default: --users, at most 50)",
        )
        parser.add_argument("--json", action="store_true", help="print the figures as JSON")

    # --- orchestration --------------------------------------------------------------------

    def handle(self, *args, **opts):
        if settings.PRODUCTION:
            raise CommandError("bench_chat creates accounts and large graphs; not in production")
        try:
            import websockets  # noqa: F401
        except ImportError as exc:
            raise CommandError("bench_chat needs the dev extras (pip install -e '.[dev]')") from exc
        self._validate(opts)
        self.quiet = opts["json"]
        self.opts = opts
        load_before = os.getloadavg()
        children = Children(Path(settings.VAR_DIR) / "bench-logs")
        clients: list[Client] = []
        result: dict = {"interrupted": False}
        redis: devredis.LocalRedis | None = None
        started = time.perf_counter()
        try:
            try:
                clients, result["setup"] = self._setup(opts)
                if opts["url"]:
                    bases = [opts["url"].rstrip("/")]
                else:
                    if opts["redis"]:
                        children.log_dir.mkdir(parents=True, exist_ok=True)
                        redis = devredis.start(log=children.log_dir / "bench_chat-redis.log")
                        self._say(f"start: redis-server at {redis.url} (Channels layer)")
                    bases = self._start_children(
                        children,
                        opts,
                        redis_url=redis.url if redis else None,
                    )
                for i, client in enumerate(clients):
                    client.base_url = bases[i % len(bases)]
                load = self._open_load if opts["open_loop"] else self._load
                result.update(asyncio.run(load(clients, children, opts)))
                ended = result.pop("ended_ids")
                if opts["end"] and not result["interrupted"]:
                    result["extraction"] = self._await_extraction(
                        clients, children, opts, ended=ended
                    )
            except (KeyboardInterrupt, Interrupted):
                result["interrupted"] = True
                self._say("interrupted: stopping the clients and the child processes")
        finally:
            children.sample()
            children.stop()
            if redis is not None:  # after its clients, so none logs a lost connection
                result["redis"] = {
                    "url": redis.url,
                    "commands_processed": redis.commands_processed(),
                }
                redis.stop()
            with contextlib.suppress(KeyboardInterrupt):
                self._cleanup(clients, opts)
        if opts["open_loop"]:
            result.update(users=opts["clients"], graphs=opts["graphs"], think_s=opts["think"])
        result.update(
            clients=opts["clients"],
            graph_nodes=opts["graph_nodes"],
            seed=opts["seed"],
            mode=(
                "open-loop" if opts["open_loop"] else "duration" if opts["duration"] else "turns"
            ),
            target=opts["url"] or "spawned",
            daphne=0 if opts["url"] else opts["daphne"],
            workers=0 if opts["url"] else opts["workers"],
            processes=children.report(),
            total_s=round(time.perf_counter() - started, 1),
            target_p95_ttfd_ms=TARGET_P95_TTFD_MS,
            machine={
                "cpus": os.cpu_count(),
                "load_before": [round(x, 2) for x in load_before],
                "load_after": [round(x, 2) for x in os.getloadavg()],
            },
        )
        if opts["json"]:
            self.stdout.write(json.dumps(result, indent=2))
        else:
            self.stdout.write(self._summary(result))
        if result["interrupted"]:
            raise CommandError("interrupted (Ctrl-C); the figures above are partial")

    def _validate(self, opts) -> None:
        if opts["open_loop"]:
            opts["clients"] = opts["users"] if opts["users"] is not None else opts["clients"]
            opts["duration"] = opts["duration"] if opts["duration"] is not None else 60.0
            if opts["think"] <= 0:
                raise CommandError("--think must be positive")
            graphs = opts["graphs"] if opts["graphs"] is not None else min(opts["clients"], 50)
            if not 1 <= graphs <= max(opts["clients"], 1):
                raise CommandError("--graphs must be between 1 and --users")
            opts["graphs"] = graphs
        elif opts["users"] is not None or opts["graphs"] is not None:
            raise CommandError("--users and --graphs are for --open-loop (closed loop: --clients)")
        if opts["clients"] < 1 or opts["graph_nodes"] < 50:
            raise CommandError("--clients must be ≥ 1 and --graph-nodes ≥ 50")
        if opts["duration"] is None and opts["turns"] < 1:
            raise CommandError("--turns must be ≥ 1")
        if opts["duration"] is not None and opts["duration"] <= 0:
            raise CommandError("--duration must be positive")
        if opts["daphne"] < 1 or opts["workers"] < 0:
            raise CommandError("--daphne must be ≥ 1 and --workers ≥ 0")
        if opts["url"]:
            if opts["daphne"] != 1 or opts["workers"]:
                raise CommandError(
                    "--daphne and --workers start processes; with --url the "
                    "server's own processes serve the clients"
                )
            if opts["redis"]:
                raise CommandError(
                    "--redis starts Redis for the processes this command starts; with --url "
                    "the running server's own REDIS_URL decides its Channels layer"
                )
            if urllib.parse.urlsplit(opts["url"]).scheme not in {"http", "https"}:
                raise CommandError("--url must be an http:// or https:// address")
        if opts["redis"] and devredis.executable() is None:
            raise CommandError(f"--redis needs redis-server ({devredis.INSTALL_HINT})")

    def _say(self, line: str) -> None:
        # With --json, stdout carries only the JSON; progress still shows, on stderr.
        (self.stderr if self.quiet else self.stdout).write(line)

    # --- setup ----------------------------------------------------------------------------

    def _setup(self, opts) -> tuple[list[Client], dict]:
        # Open loop: the users share --graphs accounts (user j on account j mod --graphs).
        size, sockets = opts["graph_nodes"], opts["clients"]
        count = opts["graphs"] if opts["open_loop"] else sockets
        started = time.perf_counter()
        user_model = get_user_model()
        usernames = [f"{PREFIX}{size}_{i}" for i in range(count)]
        base = opts["seed"] * 1_000_003
        seeds = [base + i for i in range(count)]
        # Shared names: every graph has the same nodes (one set of vectors to embed), with its
        # own edges, hubs, strengths and episodes. --distinct-names: own names too.
        names = seeds if opts["distinct_names"] else [base] * count

        existing = {u.username: u for u in user_model.objects.filter(username__in=usernames)}
        to_build: list[int] = []
        check = Progress(self._say, "setup: check existing graphs")
        for i, username in enumerate(usernames):
            user = existing.get(username)
            marker = synthetic.reusable(user, size, seed=seeds[i], names_seed=names[i])
            if opts["rebuild"] or marker is None:
                to_build.append(i)
            check(i + 1, count)
        checked = time.perf_counter()
        self._say(f"setup: {count - len(to_build)} graphs reused, {len(to_build)} to build")

        figures = {
            "users": count,
            "reused": count - len(to_build),
            "built": len(to_build),
            "check_s": round(checked - started, 1),
        }
        if to_build:
            cache = synthetic.VectorCache.default()
            forms_progress = Progress(self._say, "setup: collect surface forms")
            forms: set[str] = set(synthetic.relation_forms())
            for n, i in enumerate(to_build, start=1):
                forms.update(synthetic.node_forms(size, seed=seeds[i], names_seed=names[i]))
                forms_progress(n, len(to_build))
            embedded = cache.ensure(sorted(forms), say=self._say)
            self._say(
                f"setup: {len(forms)} distinct surface forms, {embedded['embedded']} "
                f"embedded now, {embedded['cached']} from the cache "
                f"({embedded['seconds']} s)"
            )
            build_started = time.perf_counter()
            totals = Counter()
            progress = Progress(self._say, f"setup: build {size}-node graphs")
            now = timezone.now()
            for n, i in enumerate(to_build, start=1):
                synthetic.drop_user(usernames[i])
                user = user_model.objects.create_user(
                    usernames[i], f"{usernames[i]}@example.invalid"
                )
                built = synthetic.build_graph(
                    user, size, seed=seeds[i], names_seed=names[i], now=now, cache=cache
                )
                totals["generate"] += built["generate"]
                totals["insert"] += built["insert"]
                totals["keys_s"] += built["insert_stages"]["keys"]
                totals["keys"] += built["keys"]
                totals["nodes"] += built["nodes"]
                totals["edges"] += built["edges"]
                progress(n, len(to_build))
            analysed = time.perf_counter()
            synthetic.analyse()
            figures.update(
                forms=len(forms),
                forms_embedded=embedded["embedded"],
                embed_s=embedded["seconds"],
                build_s=round(analysed - build_started, 1),
                generate_s=round(totals["generate"], 1),
                insert_s=round(totals["insert"], 1),
                nodes_inserted=totals["nodes"],
                edges_inserted=totals["edges"],
                keys_inserted=totals["keys"],
                keys_insert_s=round(totals["keys_s"], 1),
                ms_per_key=round(1000 * totals["keys_s"] / max(1, totals["keys"]), 3),
                keys_share_of_insert=round(totals["keys_s"] / max(1e-9, totals["insert"]), 2),
                analyse_s=round(time.perf_counter() - analysed, 1),
            )

        users = list(user_model.objects.filter(username__in=usernames))
        by_name = {u.username: u for u in users}
        # Conversations of earlier runs: their messages would change the Read (passages).
        Conversation.objects.filter(user__in=users).delete()
        if opts["end"]:
            for user in users:  # extraction will write to these graphs
                synthetic.invalidate(user)
        now = timezone.now()
        clients = []
        known: dict[str, dict[str, list[str]]] = {}
        progress = Progress(self._say, "setup: conversations and sessions")
        for j in range(sockets):
            i = j % count
            username = usernames[i]
            user = by_name[username]
            if username not in known:
                known[username] = synthetic.names_by_kind(user, per_kind=200)
            conversation = chat_services.start_conversation(
                user=user, now=now, title=f"bench_chat {j}", incognito=False
            )
            clients.append(
                Client(
                    username=username,
                    user_id=user.pk,
                    session_key=self._session(user),
                    conversation_id=conversation.pk,
                    names=known[username],
                    rng=random.Random(seeds[i] + 1 + 7919 * (j // count)),
                )
            )
            progress(j + 1, sockets)
        figures["total_s"] = round(time.perf_counter() - started, 1)
        return clients, figures

    def _session(self, user) -> str:
        store = import_module(settings.SESSION_ENGINE).SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        return store.session_key

    def _cleanup(self, clients: list[Client], opts) -> None:
        store_class = import_module(settings.SESSION_ENGINE).SessionStore
        for client in clients:
            store_class(client.session_key).delete()
        if not opts["end"]:
            Conversation.objects.filter(pk__in=[c.conversation_id for c in clients]).delete()
        if opts["drop"]:
            accounts = sorted({c.username for c in clients})
            progress = Progress(self._say, "drop bench accounts")
            for n, username in enumerate(accounts, start=1):
                synthetic.drop_user(username)
                progress(n, len(accounts))

    # --- child processes ------------------------------------------------------------------

    def _child_env(self, redis_url: str | None) -> dict:
        env = {k: v for k, v in os.environ.items() if k != "PEGASUS_EMBEDDED_DB"}
        env.update(
            UNLIMITED_ENV,
            DATABASE_URL=_database_url(),
            ANTHROPIC_API_KEY="",
            DEBUG="0",
            PYTHONUNBUFFERED="1",
        )
        if redis_url:  # else whatever this shell has (none: each process's in-memory layer)
            env["REDIS_URL"] = redis_url
        return env

    def _start_children(self, children: Children, opts, *, redis_url: str | None) -> list[str]:
        env = self._child_env(redis_url)
        bases = []
        for i in range(opts["daphne"]):
            port = _free_port()
            children.start(
                f"daphne-{i + 1}",
                [
                    sys.executable,
                    "-m",
                    "daphne",
                    "-b",
                    "127.0.0.1",
                    "-p",
                    str(port),
                    "pegasus_site.asgi:application",
                ],
                env,
            )
            bases.append(f"http://127.0.0.1:{port}")
        worker_env = dict(env, Q_WORKERS="1")
        for i in range(opts["workers"]):
            children.start(
                f"qcluster-{i + 1}",
                [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "qcluster"],
                worker_env,
            )
        progress = Progress(self._say, "start: Daphne processes answering")
        deadline = time.monotonic() + 180
        for n, base in enumerate(bases, start=1):
            while not self._answers(base):
                if children.died():
                    raise CommandError(
                        f"a child process exited: {', '.join(children.died())}; "
                        f"see {children.log_dir}/"
                    )
                if time.monotonic() > deadline:
                    raise CommandError(f"Daphne did not answer at {base} within 180 s")
                time.sleep(0.3)
            progress(n, len(bases))
        return bases

    @staticmethod
    def _answers(base: str) -> bool:
        try:
            urllib.request.urlopen(base + "/healthz", timeout=2)  # noqa: S310
        except urllib.error.HTTPError:
            return True  # 503 before the first worker heartbeat: the server is up
        except OSError:
            return False
        return True

    # --- load -----------------------------------------------------------------------------

    async def _load(self, clients: list[Client], children: Children, opts) -> dict:
        loop = asyncio.get_running_loop()
        stats = Stats()
        tasks: list[asyncio.Task] = []
        interrupted = False

        def on_sigint() -> None:
            nonlocal interrupted
            interrupted = True
            for task in tasks:
                task.cancel()

        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGINT, on_sigint)
        sampler = asyncio.create_task(self._sample(children))
        try:
            # Warm-up: one unmeasured turn per client loads the model and each user's keys.
            warm = Progress(self._say, "warm-up turns")
            warmed = 0
            sockets: dict[int, object] = {}

            async def warm_up(i: int, client: Client) -> None:
                nonlocal warmed
                try:
                    sockets[i] = await self._connect(client)
                    turn = await self._turn(sockets[i], self._message(client), opts)
                    stats.warmup_done.append(turn.done_ms)
                except TurnFailed as exc:
                    stats.warmup_errors[exc.code] += 1
                warmed += 1
                warm(warmed, len(clients))

            tasks[:] = [asyncio.create_task(warm_up(i, c)) for i, c in enumerate(clients)]
            await asyncio.gather(*tasks, return_exceptions=True)
            if interrupted:
                raise Interrupted

            cpu_before = await asyncio.to_thread(children.cpu_seconds)
            began = time.perf_counter()
            deadline = began + opts["duration"] if opts["duration"] else None
            total = opts["turns"]
            progress = Progress(self._say, "turns")
            shown = [0.0]

            def report() -> None:
                finished = len(stats.done) + sum(stats.errors.values())
                if deadline is None:
                    progress.label = f"turns ({sum(stats.errors.values())} errors)"
                    progress(finished, total)
                else:  # the same line, counted in seconds; the rate stays turns per second
                    now = time.perf_counter()
                    if now - shown[0] < 1.0:
                        return
                    shown[0] = now
                    elapsed = max(min(now - began, opts["duration"]), 1e-9)
                    self._say(
                        f"load: {elapsed:.0f}/{opts['duration']:.0f} s · {finished} turns · "
                        f"{finished / elapsed:.1f} turns/s · {sum(stats.errors.values())} errors"
                        f" · ETA {opts['duration'] - elapsed:.0f}s"
                    )

            async def run(i: int, client: Client) -> None:
                ws = sockets.get(i)
                failures = 0
                try:
                    while True:
                        if deadline is not None:
                            if time.perf_counter() >= deadline:
                                break
                        elif stats.claimed >= total:
                            break
                        else:
                            stats.claimed += 1
                        try:
                            if ws is None:
                                ws = await self._connect(client)
                            turn = await self._turn(ws, self._message(client), opts)
                            stats.ttfd.append(turn.ttfd_ms)
                            stats.done.append(turn.done_ms)
                            stats.finished_at.append(time.perf_counter())
                            stats.to_recall.append(turn.recall_ms)
                            stats.recall_bytes.append(turn.recall_bytes)
                            if turn.read_ms is not None:
                                stats.read.append(turn.read_ms)
                            failures = 0
                        except TurnFailed as exc:
                            stats.errors[exc.code] += 1
                            if exc.code.startswith(("closed", "connect", "handshake", "timeout")):
                                ws = await self._close(ws)
                                failures += 1
                                if failures >= 3:
                                    stats.errors["client_gave_up"] += 1
                                    return
                                await asyncio.sleep(0.5)
                        report()
                    if opts["end"]:
                        try:
                            if ws is None:
                                ws = await self._connect(client)
                            await self._end(ws, opts)
                            stats.ended += 1
                            stats.ended_ids.append(client.conversation_id)
                        except TurnFailed as exc:
                            stats.errors[f"end:{exc.code}"] += 1
                finally:
                    await self._close(ws)

            async def tick() -> None:  # progress even while every turn is still queued
                while True:
                    await asyncio.sleep(2.0)
                    report()

            ticker = asyncio.create_task(tick())
            tasks[:] = [asyncio.create_task(run(i, c)) for i, c in enumerate(clients)]
            outcomes = await asyncio.gather(*tasks, return_exceptions=True)
            ticker.cancel()
            cpu_after = await asyncio.to_thread(children.cpu_seconds)
            for outcome in outcomes:  # a client that crashed (a bug here, or a bad frame)
                if isinstance(outcome, Exception):
                    stats.errors[f"client:{type(outcome).__name__}"] += 1
            elapsed = time.perf_counter() - began
            report()
        finally:
            sampler.cancel()
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signal.SIGINT)
        turns = len(stats.done)
        if deadline is not None and not interrupted:
            # Turns in flight at the deadline still finish (and count in the latencies), but
            # the rate is the turns done within the window over the window.
            in_window = sum(1 for t in stats.finished_at if t <= deadline)
            rate = in_window / opts["duration"]
        else:
            in_window, rate = turns, (turns / elapsed if elapsed > 0 else 0.0)
        return {
            "interrupted": interrupted,
            "turns": turns,
            "turns_in_window": in_window,
            **_cpu_figures(cpu_before, cpu_after, turns),
            "elapsed_s": round(elapsed, 2),
            "turns_per_s": round(rate, 2),
            **_latency_figures(stats),
        }

    async def _open_load(self, clients: list[Client], children: Children, opts) -> dict:
        """Open loop: Poisson arrivals per user for ``--duration`` seconds (module docstring)."""
        import websockets

        loop = asyncio.get_running_loop()
        stats = Stats()
        arrivals: list[float] = []
        tasks: list[asyncio.Task] = []
        interrupted = False

        def on_sigint() -> None:
            nonlocal interrupted
            interrupted = True
            for task in tasks:
                task.cancel()

        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGINT, on_sigint)
        sampler = asyncio.create_task(self._sample(children))
        sockets: dict[int, object] = {}
        began = elapsed = 0.0
        cpu_before = cpu_after = None
        try:
            # One unmeasured turn per account (loads the model and the account's keys); every
            # user's socket is opened before the clock starts, and before the warm-up turns:
            # Daphne drops a handshake not accepted within 5 s (--websocket_connect_timeout),
            # which a server busy with warm-up turns missed for most of 500 sockets. A socket
            # that still fails to open is tried twice more; one that never opens sends nothing
            # (counted in the warm-up errors and in ``sockets_open``).
            first_of = {}
            for i, client in enumerate(clients):
                first_of.setdefault(client.username, i)
            gate = asyncio.Semaphore(50)
            opening = Progress(self._say, "warm-up: open the sockets")
            opened = [0]

            async def open_socket(i: int, client: Client) -> None:
                async with gate:
                    for attempt in range(3):
                        try:
                            sockets[i] = await self._connect(client)
                            break
                        except TurnFailed as exc:
                            if attempt == 2:
                                stats.warmup_errors[f"open:{exc.code}"] += 1
                            else:
                                await asyncio.sleep(1.0 + attempt)
                opened[0] += 1
                opening(opened[0], len(clients))

            warm = Progress(self._say, "warm-up: one turn per account")
            warmed = [0]

            async def warm_up(i: int, client: Client) -> None:
                async with gate:
                    try:
                        turn = await self._turn(sockets[i], self._message(client), opts)
                        stats.warmup_done.append(turn.done_ms)
                    except TurnFailed as exc:
                        stats.warmup_errors[exc.code] += 1
                warmed[0] += 1
                warm(warmed[0], len(first_of))

            tasks[:] = [asyncio.create_task(open_socket(i, c)) for i, c in enumerate(clients)]
            await asyncio.gather(*tasks, return_exceptions=True)
            if interrupted:
                raise Interrupted
            tasks[:] = [
                asyncio.create_task(warm_up(i, c))
                for i, c in enumerate(clients)
                if first_of[c.username] == i and i in sockets
            ]
            await asyncio.gather(*tasks, return_exceptions=True)
            if interrupted:
                raise Interrupted

            duration, think = opts["duration"], opts["think"]
            cpu_before = await asyncio.to_thread(children.cpu_seconds)
            began = time.perf_counter()
            deadline = began + duration
            shown = [0.0]

            def report() -> None:
                now = time.perf_counter()
                if now - shown[0] < 1.0:
                    return
                shown[0] = now
                elapsed = max(min(now - began, duration), 1e-9)
                self._say(
                    f"open loop: {elapsed:.0f}/{duration:.0f} s · {len(arrivals)} arrived "
                    f"({len(arrivals) / elapsed:.1f}/s) · {len(stats.done)} done · "
                    f"{sum(stats.errors.values())} errors · ETA {duration - elapsed:.0f}s"
                )

            async def user(i: int, client: Client) -> None:
                ws = sockets.get(i)
                pending: asyncio.Queue = asyncio.Queue()  # arrival times, in send order
                sent_all = asyncio.Event()

                async def receive() -> bool:
                    # Replies come back in the order the messages were sent (the consumer
                    # handles one frame at a time): each frame belongs to the oldest turn.
                    # True when every turn was answered and the socket is still usable.
                    first = None
                    while True:
                        if sent_all.is_set() and pending.empty():
                            return True
                        try:
                            arrived = await asyncio.wait_for(pending.get(), timeout=0.5)
                        except TimeoutError:
                            continue
                        first = None
                        try:
                            async with asyncio.timeout(opts["turn_timeout"]):
                                while True:
                                    frame = await ws.recv()
                                    if frame.startswith('{"type": "recall"'):
                                        read_ms = _read_ms(frame)
                                        if read_ms is not None:
                                            stats.read.append(read_ms)
                                        stats.to_recall.append(
                                            (time.perf_counter() - arrived) * 1000.0
                                        )
                                        stats.recall_bytes.append(len(frame))
                                        continue
                                    event = json.loads(frame)
                                    kind = event.get("type")
                                    if kind == "delta" and first is None:
                                        first = time.perf_counter()
                                    elif kind == "done":
                                        finished = time.perf_counter()
                                        first = first if first is not None else finished
                                        stats.ttfd.append((first - arrived) * 1000.0)
                                        stats.done.append((finished - arrived) * 1000.0)
                                        stats.finished_at.append(finished)
                                        break
                                    elif kind == "error":
                                        stats.errors[str(event.get("code") or "error")] += 1
                                        break
                        except TimeoutError:
                            stats.errors["timeout"] += 1 + pending.qsize()
                            return False
                        except websockets.ConnectionClosed as exc:
                            code = exc.rcvd.code if exc.rcvd is not None else "none"
                            stats.errors[f"closed:{code}"] += 1 + pending.qsize()
                            return False
                        report()

                if ws is None:
                    return  # counted in the warm-up errors
                receiver = asyncio.create_task(receive())
                try:
                    at = began + client.rng.expovariate(1.0 / think)
                    while at < deadline and not receiver.done():
                        await asyncio.sleep(max(0.0, at - time.perf_counter()))
                        text = self._message(client)
                        arrivals.append(at)
                        try:
                            await ws.send(
                                json.dumps(
                                    {"type": "message", "text": text, "client_id": uuid.uuid4().hex}
                                )
                            )
                        except websockets.ConnectionClosed:
                            stats.errors["closed:send"] += 1
                            break
                        pending.put_nowait(at)
                        at += client.rng.expovariate(1.0 / think)
                    sent_all.set()
                    if await receiver and opts["end"]:
                        try:
                            await self._end(ws, opts)
                            stats.ended += 1
                            stats.ended_ids.append(client.conversation_id)
                        except TurnFailed as exc:
                            stats.errors[f"end:{exc.code}"] += 1
                finally:
                    receiver.cancel()
                    await self._close(ws)

            async def tick() -> None:
                while True:
                    await asyncio.sleep(2.0)
                    report()

            ticker = asyncio.create_task(tick())
            tasks[:] = [asyncio.create_task(user(i, c)) for i, c in enumerate(clients)]
            outcomes = await asyncio.gather(*tasks, return_exceptions=True)
            ticker.cancel()
            cpu_after = await asyncio.to_thread(children.cpu_seconds)
            for outcome in outcomes:
                if isinstance(outcome, Exception) and not isinstance(
                    outcome, asyncio.CancelledError
                ):
                    stats.errors[f"client:{type(outcome).__name__}"] += 1
            elapsed = time.perf_counter() - began
        except asyncio.CancelledError:
            interrupted = True
        finally:
            sampler.cancel()
            for ws in sockets.values():
                await self._close(ws)
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signal.SIGINT)
        duration = opts["duration"]
        in_window = sum(1 for t in stats.finished_at if t <= began + duration)
        offered = sum(1 for t in arrivals if t <= began + duration)
        return {
            "interrupted": interrupted,
            "turns": len(stats.done),
            "turns_in_window": in_window,
            "arrivals": len(arrivals),
            **_cpu_figures(cpu_before, cpu_after, len(stats.done)),
            "offered_per_s": round(offered / duration, 2),
            "nominal_offered_per_s": round(len(clients) / opts["think"], 2),
            "sockets_open": len(sockets),
            "elapsed_s": round(elapsed, 2),
            "turns_per_s": round(in_window / duration, 2),
            **_latency_figures(stats),
        }

    async def _sample(self, children: Children) -> None:
        while True:
            await asyncio.to_thread(children.sample)
            await asyncio.sleep(1.0)

    def _message(self, client: Client) -> str:
        return synthetic.sample_messages(client.names, 1, client.rng)[0]

    async def _connect(self, client: Client):
        import websockets

        parts = urllib.parse.urlsplit(client.base_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        url = f"{scheme}://{parts.netloc}/ws/chat/{client.conversation_id}/"
        headers = {
            "Cookie": f"{settings.SESSION_COOKIE_NAME}={client.session_key}",
            "Origin": f"{parts.scheme}://{parts.netloc}",
        }
        try:
            # No keepalive pings: a busy server must not look dead; the turn timeout decides.
            return await websockets.connect(
                url, additional_headers=headers, max_size=2**25, open_timeout=60, ping_interval=None
            )
        except websockets.InvalidStatus as exc:
            raise TurnFailed(f"handshake:{exc.response.status_code}") from None
        except (OSError, TimeoutError, websockets.WebSocketException) as exc:
            raise TurnFailed(f"connect:{type(exc).__name__}") from None

    async def _close(self, ws) -> None:
        if ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), timeout=5)
        return None

    async def _turn(self, ws, text: str, opts) -> Turn:
        """Send one message and wait for its ``done``; TurnFailed on an error frame, a closed
        socket or the turn timeout."""
        import websockets

        sent = time.perf_counter()
        first = recalled = read_ms = None
        size = 0
        try:
            async with asyncio.timeout(opts["turn_timeout"]):
                await ws.send(
                    json.dumps({"type": "message", "text": text, "client_id": uuid.uuid4().hex})
                )
                while True:
                    frame = await ws.recv()
                    # The recall frame carries the whole Read record; no need to decode it.
                    if frame.startswith('{"type": "recall"'):
                        recalled, read_ms, size = time.perf_counter(), _read_ms(frame), len(frame)
                        continue
                    event = json.loads(frame)
                    kind = event.get("type")
                    if kind == "delta":
                        if first is None:
                            first = time.perf_counter()
                    elif kind == "done":
                        finished = time.perf_counter()
                        first = first if first is not None else finished
                        recalled = recalled if recalled is not None else first
                        return Turn(
                            recall_ms=(recalled - sent) * 1000.0,
                            read_ms=read_ms,
                            ttfd_ms=(first - sent) * 1000.0,
                            done_ms=(finished - sent) * 1000.0,
                            recall_bytes=size,
                        )
                    elif kind == "error":
                        raise TurnFailed(str(event.get("code") or "error"))
        except TimeoutError:
            raise TurnFailed("timeout") from None
        except websockets.ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd is not None else "none"
            raise TurnFailed(f"closed:{code}") from None

    async def _end(self, ws, opts) -> None:
        import websockets

        try:
            async with asyncio.timeout(opts["turn_timeout"]):
                await ws.send(json.dumps({"type": "end"}))
                while True:
                    frame = await ws.recv()
                    event = json.loads(frame)
                    if event.get("type") == "ended":
                        return
                    if event.get("type") == "error":
                        raise TurnFailed(str(event.get("code") or "error"))
        except TimeoutError:
            raise TurnFailed("timeout") from None
        except websockets.ConnectionClosed:
            raise TurnFailed("closed") from None

    # --- extraction -----------------------------------------------------------------------

    def _await_extraction(
        self, clients: list[Client], children: Children, opts, *, ended: list[int]
    ) -> dict:
        """Wait for the ended conversations' extraction jobs (when anything can run them),
        then count how many times each ended conversation was extracted."""
        ids = [c.conversation_id for c in clients]
        started = time.perf_counter()
        workers = bool(opts["workers"]) or bool(opts["url"])
        finished_states = {"done", "failed", "skipped"}
        progress = Progress(self._say, "extraction: episodes finished")
        shown, shown_at = -1, 0.0
        while True:
            rows = Episode.objects.filter(conversation_id__in=ids).values_list("status", flat=True)
            by_status = Counter(rows)
            total = sum(by_status.values())
            finished = sum(n for s, n in by_status.items() if s in finished_states)
            if not workers:
                break
            if finished != shown or time.monotonic() - shown_at > 10:
                progress.last = 0.0
                progress(finished, total)
                shown, shown_at = finished, time.monotonic()
            if finished >= total or time.perf_counter() - started > opts["extract_timeout"]:
                break
            if children.died():
                break
            children.sample()
            time.sleep(1.0)
        return {
            "conversations_ended": len(ended),
            "episodes": total,
            "by_status": dict(by_status),
            "workers_ran": workers,
            "waited_s": round(time.perf_counter() - started, 1),
            **_extraction_counts(ended),
        }

    # --- output ---------------------------------------------------------------------------

    def _summary(self, r: dict) -> str:
        setup = r.get("setup") or {}
        lines = [
            f"== bench_chat: {r['clients']} clients · {r['graph_nodes']}-node graph each · "
            + (
                f"against {r['target']}"
                if r["target"] != "spawned"
                else f"{r['daphne']} Daphne · {r['workers']} workers"
            )
            + " =="
        ]
        if setup:
            line = (
                f"setup: {setup['total_s']} s · {setup['reused']} graphs reused, "
                f"{setup['built']} built"
            )
            if setup.get("built"):
                line += (
                    f" · {setup['forms']} surface forms ({setup['forms_embedded']} "
                    f"embedded, {setup['embed_s']} s) · build {setup['build_s']} s, of "
                    f"which MemoryKey inserts {setup['keys_insert_s']} s for "
                    f"{setup['keys_inserted']} keys ({setup['ms_per_key']} ms/key, "
                    f"{round(100 * setup['keys_share_of_insert'])}% of the inserts)"
                )
            lines.append(line)
        if "offered_per_s" in r:
            lines.append(
                f"open loop: {r['users']} users on {r['graphs']} accounts · think "
                f"{r['think_s']} s · offered {r['offered_per_s']} turns/s ({r['arrivals']} "
                f"arrivals; nominal {r['nominal_offered_per_s']}) · served "
                f"{r['turns_per_s']} turns/s"
            )
        if "turns" in r:
            t, d, w = r["ttfd_ms"], r["done_ms"], r["warmup"]
            lines += [
                f"turns: {r['turns']} in {r['elapsed_s']} s"
                + (
                    f" ({r['turns_in_window']} within the {self.opts['duration']:.0f} s window)"
                    if r["mode"] in ("duration", "open-loop")
                    else ""
                )
                + f" = {r['turns_per_s']} turns/s · "
                f"errors {r['errors']} {r['errors_by_code'] or ''}",
                f"time to first delta ms: p50 {t['p50']} · p95 {t['p95']} · p99 {t['p99']} · "
                f"max {t['max']}  (target p95 ≤ {r['target_p95_ttfd_ms']:.0f})",
                f"time to done ms:        p50 {d['p50']} · p95 {d['p95']} · p99 {d['p99']} · "
                f"max {d['max']}",
                f"  of which send → recall frame p50 {r['recall_frame_ms']['p50']} · p95 "
                f"{r['recall_frame_ms']['p95']} ms; the Read as timed by the server p50 "
                f"{r['server_read_ms']['p50']} · p95 {r['server_read_ms']['p95']} ms; recall "
                f"frames {r['recall_frame_kb_mean']} kB on average",
                f"server CPU over the measured turns: {r['server_cpu_s']} s = "
                f"{r['server_cpu_ms_per_turn']} ms per turn (every started process)",
                f"warm-up (first turn of each client): {w['turns']} · done p50 "
                f"{w['done_ms']['p50']} · p95 {w['done_ms']['p95']} ms · errors "
                f"{w['errors_by_code'] or 0}",
            ]
        extraction = r.get("extraction")
        if extraction:
            lines.append(
                f"extraction: {extraction['conversations_ended']} conversations ended · "
                f"episodes {extraction['by_status']} "
                f"(waited {extraction['waited_s']} s"
                f"{'' if extraction['workers_ran'] else ', no workers started'}) · "
                f"extracted once {extraction['extracted_once']}, twice or more "
                f"{extraction['extracted_twice_or_more']}, not {extraction['not_extracted']} "
                f"· failed deliveries {extraction['failed_deliveries']}"
            )
        for proc in r["processes"]:
            kids = ", ".join(f"{k['name']} {k['peak_rss_mb']}" for k in proc["descendants"])
            lines.append(
                f"peak RSS {proc['role']}: {proc['peak_rss_mb']} MB"
                + (f" (children: {kids} MB)" if kids else "")
            )
        if r.get("redis"):
            lines.append(
                f"redis: {r['redis']['url']} · {r['redis']['commands_processed']} commands "
                f"processed (the Channels layer of every started process)"
            )
        m = r["machine"]
        lines.append(
            f"machine: {m['cpus']} CPUs · load {m['load_before']} → {m['load_after']} "
            f"· total {r['total_s']} s"
        )
        return "\n".join(lines)
