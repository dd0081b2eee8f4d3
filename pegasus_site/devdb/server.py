"""The server's life: find a live postmaster, start one (initdb first when needed), stop it,
and point ``DATABASE_URL`` at it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import socket
import subprocess
import sys
import time

from pegasus_site.devdb.cluster import (
    DB_NAME,
    START_TIMEOUT_S,
    Cluster,
    DevDatabaseError,
    _chown,
    _run,
    default_cluster,
)


def _read_pid_file(cluster: Cluster) -> tuple[int, int] | None:
    """(pid, port) of a live postmaster for this data directory, else None."""
    pid_file = cluster.data / "postmaster.pid"
    try:
        lines = pid_file.read_text().splitlines()
        pid, port = int(lines[0]), int(lines[3])
        status = lines[7].strip() if len(lines) > 7 else ""
    except (OSError, ValueError, IndexError):
        return None
    import psutil

    # A SIGKILLed postmaster can linger as a zombie (containers often have no reaper at
    # PID 1), and its pid can be reused: only a running "postgres" process counts.
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE or proc.name() != "postgres":
            return None
    except psutil.NoSuchProcess:
        return None
    except psutil.AccessDenied:
        pass
    if status and status != "ready":
        return None
    return pid, port


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # As PostgreSQL binds: a port whose old connections linger in TIME_WAIT is free, so a
        # restarted cluster keeps its port (and every process keeps a working DATABASE_URL).
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _pick_port(cluster: Cluster) -> int:
    saved = cluster.data.parent / "port"
    with contextlib.suppress(OSError, ValueError):
        port = int(saved.read_text())
        if _port_free(port):
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    saved.write_text(str(port))
    return port


def _kill_orphans(cluster: Cluster) -> None:
    """Kill backends left behind when the postmaster itself was SIGKILLed.

    Orphaned backends keep the old shared memory attached and stop a new postmaster from
    starting; every PostgreSQL process runs with the data directory as its working directory,
    which is how they are recognised.
    """
    import psutil

    data = str(cluster.data.resolve())
    for proc in psutil.process_iter(["name"]):
        try:
            if proc.info["name"] == "postgres" and proc.cwd() == data:
                proc.kill()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue


def _initdb(cluster: Cluster) -> None:
    home = cluster.data.parent
    home.mkdir(parents=True, exist_ok=True)
    _chown(home, cluster.run_as)
    if cluster.run_as:
        home.chmod(0o755)
    result = _run(
        cluster,
        "initdb",
        "-D",
        str(cluster.data),
        "-U",
        "postgres",
        "--auth=trust",
        "--encoding=UTF8",
        "--no-instructions",
    )
    if result.returncode != 0:
        raise DevDatabaseError(
            f"initdb failed for {cluster.data}: {result.stderr.strip().splitlines()[-1:]}"
        )


def _shared_buffers() -> str:
    """PostgreSQL's own page cache: large enough to hold the HNSW indexes of the big bench
    graphs (≈ 250 MB of key index at 275 000 keys) — a search that misses it copies every
    page from the OS cache. 128 MB is PostgreSQL's default; ``PEGASUS_DB_SHARED_BUFFERS``
    sets it (docs/operations.md)."""
    value = os.environ.get("PEGASUS_DB_SHARED_BUFFERS", "1GB").strip()
    return value if re.fullmatch(r"\d+(kB|MB|GB)?", value) else "1GB"


def _start(cluster: Cluster) -> int:
    port = _pick_port(cluster)
    options = (
        f"-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' "
        f"-c max_connections=200 -c fsync=on -c shared_buffers={_shared_buffers()}"
    )
    if not cluster.log.exists():
        cluster.log.touch()
        _chown(cluster.log, cluster.run_as)
    stale = cluster.data / "postmaster.pid"
    if stale.exists():
        # Called only when no live postmaster owns it (see _read_pid_file): the server was
        # killed. Its orphaned backends would keep the shared memory; PostgreSQL itself
        # would trust a zombie pid in the file and refuse to start.
        _kill_orphans(cluster)
        stale.unlink(missing_ok=True)
    for attempt in (1, 2):
        result = _run(
            cluster,
            "pg_ctl",
            "-D",
            str(cluster.data),
            "-l",
            str(cluster.log),
            "-o",
            options,
            "-w",
            "-t",
            str(START_TIMEOUT_S),
            "start",
        )
        if result.returncode == 0:
            return port
        if attempt == 1:
            # A stale postmaster.pid or orphaned backends after a SIGKILL: clean up once.
            _kill_orphans(cluster)
            time.sleep(0.5)
    tail = cluster.log.read_text(errors="replace").strip().splitlines()[-3:]
    raise DevDatabaseError(
        "the embedded PostgreSQL server did not start: " + (" | ".join(tail) or result.stderr)
    )


def _ensure_database(port: int) -> None:
    import psycopg

    deadline = time.monotonic() + 15
    while True:
        try:
            with psycopg.connect(
                host="127.0.0.1",
                port=port,
                user="postgres",
                dbname="postgres",
                autocommit=True,
                connect_timeout=5,
            ) as conn:
                exists = conn.execute(
                    "SELECT 1 FROM pg_database WHERE datname = %s", [DB_NAME]
                ).fetchone()
                if not exists:
                    conn.execute(f'CREATE DATABASE "{DB_NAME}"')
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def url_for(port: int) -> str:
    return f"postgres://postgres@127.0.0.1:{port}/{DB_NAME}"


def ensure_running(cluster: Cluster | None = None) -> str:
    """Start or reuse the cluster; return its DATABASE_URL. Safe to call concurrently."""
    cluster = cluster or default_cluster()
    cluster.data.parent.mkdir(parents=True, exist_ok=True)
    with open(cluster.lock, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        live = _read_pid_file(cluster)
        if live:
            port = live[1]
        else:
            if not (cluster.data / "PG_VERSION").exists():
                if cluster.data.exists():
                    shutil.rmtree(cluster.data)  # a half-made cluster from an interrupted initdb
                _initdb(cluster)
            port = _start(cluster)
        _ensure_database(port)
    return url_for(port)


def stop(cluster: Cluster | None = None) -> bool:
    """Stop the cluster cleanly (fast shutdown). Returns False when it was not running."""
    cluster = cluster or default_cluster()
    if not (cluster.data / "PG_VERSION").exists() or not _read_pid_file(cluster):
        return False
    _run(cluster, "pg_ctl", "-D", str(cluster.data), "-m", "fast", "-w", "stop")
    return True


def bootstrap_environment() -> None:
    """Point DATABASE_URL at the embedded server unless the operator set one."""
    if os.environ.get("DATABASE_URL"):
        return
    try:
        os.environ["DATABASE_URL"] = ensure_running()
        os.environ["PEGASUS_EMBEDDED_DB"] = "1"
    except (DevDatabaseError, OSError, subprocess.SubprocessError) as exc:
        sys.stderr.write(f"pegasus: cannot start the embedded PostgreSQL server: {exc}\n")
        sys.exit(2)
