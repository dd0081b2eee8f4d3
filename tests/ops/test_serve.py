"""`manage.py serve` (what `make run` runs): web server and worker start, answer, and stop."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

BASE = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PEGASUS_EMBEDDED_DB"}
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _get_health(port: int) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as resp:
            return resp.status, json.load(resp)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


def test_serve_answers_healthz_with_a_live_worker_and_stops_on_ctrl_c():
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port), "--keep-db"],
        cwd=BASE,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        status, body = 0, {}
        while time.monotonic() < deadline:
            try:
                status, body = _get_health(port)
                if status == 200:
                    break
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            assert proc.poll() is None, proc.stdout.read()
            time.sleep(0.5)
        assert status == 200, body
        assert body["worker"]["ok"] is True
        assert body["database"]["pgvector"]
    finally:
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    assert f"http://127.0.0.1:{port}/" in out
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1)


def test_serve_refuses_a_port_in_use_with_one_clear_line():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "manage.py", "serve", "--port", str(port), "--keep-db"],
            cwd=BASE,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert result.returncode != 0
    assert f"port {port} on 127.0.0.1 is already in use" in result.stderr
    assert "Traceback" not in result.stderr
