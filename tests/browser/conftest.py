"""Real-browser tests: Debian's Chromium driven by Playwright against the real processes.

``live_stack`` starts Daphne (HTTP + websockets) and the django-q2 worker as subprocesses
on the test database (committed data: ``transactional_db``), so a page, its socket and the
background job run exactly as under ``make run``. Screenshots go to ``var/screenshots/``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.db import connection

BASE = Path(__file__).resolve().parents[2]
SCREENSHOTS = BASE / "var" / "screenshots"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _test_database_url() -> str:
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    return f"postgres://{auth}@{s['HOST']}:{s['PORT']}/{s['NAME']}"


class LiveStack:
    """Daphne + one django-q2 worker on the test database; ``restart_web`` drops sockets."""

    def __init__(self, env: dict):
        self.env = env
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.logs = BASE / "var" / "browser-logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.web = self._start_web()
        self.worker = subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"],
            cwd=BASE,
            env=env,
            stdout=open(self.logs / "worker.log", "a"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def _start_web(self) -> subprocess.Popen:
        proc = subprocess.Popen(
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
            stdout=open(self.logs / "daphne.log", "a"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(self.url + "/healthz", timeout=2)
                return proc
            except urllib.error.HTTPError:
                return proc  # 503 before the first worker heartbeat: the server is up
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("daphne did not start; see var/browser-logs/") from None
                time.sleep(0.3)

    def stop_web(self) -> None:
        _stop(self.web)

    def start_web(self) -> None:
        self.web = self._start_web()

    def close(self) -> None:
        _stop(self.web)
        _stop(self.worker)


def _stop(proc: subprocess.Popen) -> None:
    """Stop a process and everything it started (django-q2's workers), so no connection to
    the test database outlives the test."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture
def live_stack(transactional_db):
    """Daphne + a worker serving the test database, in offline LLM mode."""
    env = {k: v for k, v in os.environ.items() if k != "PEGASUS_EMBEDDED_DB"}
    env.update(
        DATABASE_URL=_test_database_url(), ANTHROPIC_API_KEY="", PYTHONUNBUFFERED="1", Q_WORKERS="1"
    )
    stack = LiveStack(env)
    try:
        yield stack
    finally:
        stack.close()


@pytest.fixture(autouse=True)
def allow_sync_orm_beside_playwright(monkeypatch):
    """Playwright's sync API keeps an event loop running in this thread; the ORM calls made by
    fixtures and assertions here are still plain synchronous code (SPEC §2 names this
    setting). Scoped to browser tests so it never leaks into other tests' subprocesses."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is required for browser tests: apt-get install chromium")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        instance = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    tab = context.new_page()
    tab.set_default_timeout(20000)
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.js_errors = errors
    yield tab
    context.close()


def sign_in(page, base_url: str, username: str, password: str) -> None:
    page.goto(base_url + "/accounts/login/")
    page.fill("input[name=login]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(base_url + "/chat/")
