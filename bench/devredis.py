"""A throwaway Redis for the Channels layer: Debian's ``redis-server`` on a free loopback
port, with no persistence (no RDB snapshots, no append-only file).

Development and test only, like ``devdb``: ``manage.py bench_chat --redis`` and the
two-server websocket test start one and point ``REDIS_URL`` of the processes they start at
it. Production runs its own Redis and sets ``REDIS_URL`` (docs/operations.md).

    with devredis.running() as url:   # "redis://127.0.0.1:<port>/0"
        ...

``executable()`` is ``None`` when ``redis-server`` is not installed
(``apt-get install -y redis-server``); ``start`` then raises ``FileNotFoundError``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from redis import Redis, RedisError

INSTALL_HINT = "apt-get install -y redis-server"
DEBIAN_PATH = "/usr/bin/redis-server"


def executable() -> str | None:
    """The ``redis-server`` to run: on ``PATH``, else Debian's path; ``None`` if neither."""
    found = shutil.which("redis-server")
    if found:
        return found
    return DEBIAN_PATH if os.access(DEBIAN_PATH, os.X_OK) else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _client(port: int, timeout: float) -> Redis:
    return Redis(
        host="127.0.0.1", port=port, socket_timeout=timeout, socket_connect_timeout=timeout
    )


def _pong(port: int) -> bool:
    try:
        with _client(port, 1) as client:
            return bool(client.ping())
    except RedisError:
        return False


@dataclass
class LocalRedis:
    """One started ``redis-server``; ``stop()`` ends it (and is safe to call twice)."""

    proc: subprocess.Popen
    port: int

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def commands_processed(self) -> int | None:
        """Redis's ``total_commands_processed`` so far (``None`` if it does not answer): how
        much the Channels layer went through it."""
        try:
            with _client(self.port, 5) as client:
                return int(client.info("stats")["total_commands_processed"])
        except (RedisError, KeyError, ValueError):
            return None

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM (Redis shuts down cleanly; nothing to save), SIGKILL past ``timeout``."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)


def start(*, log: Path | None = None, timeout: float = 20.0) -> LocalRedis:
    """Start ``redis-server`` on a free 127.0.0.1 port and wait until it answers PING.

    Its own session (a Ctrl-C in the terminal does not reach it; the caller stops it), its
    output to ``log`` (appended) or nowhere. Raises ``FileNotFoundError`` when it is not
    installed, ``RuntimeError`` when it does not answer within ``timeout`` seconds.
    """
    exe = executable()
    if exe is None:
        raise FileNotFoundError(f"redis-server is not installed ({INSTALL_HINT})")
    port = _free_port()
    argv = [
        exe,
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--protected-mode",
        "yes",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        tempfile.gettempdir(),
    ]
    out = open(log, "ab") if log is not None else subprocess.DEVNULL
    try:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    finally:
        if log is not None:
            out.close()  # the child has its own descriptor
    redis = LocalRedis(proc, port)
    try:
        deadline = time.monotonic() + timeout
        while not _pong(port):
            if proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with {proc.returncode} on port {port}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not answer on port {port} in {timeout} s")
            time.sleep(0.1)
    except BaseException:  # also a Ctrl-C while waiting: never leave it running
        redis.stop()
        raise
    return redis


@contextlib.contextmanager
def running(**kwargs) -> Iterator[str]:
    """``start`` for the duration of a ``with`` block; yields its ``REDIS_URL``."""
    redis = start(**kwargs)
    try:
        yield redis.url
    finally:
        redis.stop()
