"""``python -m pegasus_site.devdb url | stop | throwaway -- CMD ...`` (usage: the package's
docstring)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from pegasus_site.devdb.cluster import (
    BASE_DIR,
    ROOT_STATE,
    DevDatabaseError,
    _is_root,
    default_cluster,
)
from pegasus_site.devdb.server import ensure_running, stop


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
        sys.stderr.write(sys.modules["pegasus_site.devdb"].__doc__ or "")
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
