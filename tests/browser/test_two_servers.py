"""Two tabs on one conversation, each served by a different Daphne process, stay in step
through the Redis channel layer (issue 19, item 6; SPEC §7 scale-out).

The test starts its own ``redis-server`` (Debian's package) on a free port and two Daphne
processes with ``REDIS_URL`` pointing at it. ``make test`` installs ``redis-server`` when it is
missing; without it the test fails, saying what to install.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import expect

from bench import devredis
from tests.browser.conftest import BASE, _free_port, _stop, _test_database_url, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _wait_http(url: str, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=2)
            return
        except urllib.error.HTTPError:
            return  # 503 without a worker heartbeat: the server is up
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("daphne did not start; see var/browser-logs/") from None
            time.sleep(0.3)


@pytest.fixture
def redis_url():
    if devredis.executable() is None:
        pytest.fail(f"redis-server is not installed ({devredis.INSTALL_HINT})")
    with devredis.running() as url:
        yield url


@pytest.fixture
def two_servers(transactional_db, redis_url):
    """Two Daphne processes on the test database sharing one Redis channel layer."""
    env = {k: v for k, v in os.environ.items() if k != "PEGASUS_EMBEDDED_DB"}
    env.update(
        DATABASE_URL=_test_database_url(),
        ANTHROPIC_API_KEY="",
        PYTHONUNBUFFERED="1",
        REDIS_URL=redis_url,
    )
    logs = BASE / "var" / "browser-logs"
    logs.mkdir(parents=True, exist_ok=True)
    procs, urls = [], []
    try:
        for n in (1, 2):
            port = _free_port()
            proc = subprocess.Popen(
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
                cwd=BASE,
                env=env,
                stdout=open(logs / f"daphne-{n}.log", "a"),
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            procs.append(proc)
            urls.append(f"http://127.0.0.1:{port}")
            _wait_http(urls[-1], proc)
        yield urls
    finally:
        for proc in procs:
            _stop(proc)


def test_tabs_on_two_servers_see_each_others_messages_and_the_end(two_servers, browser, alice, bob):
    one, two = two_servers
    context = browser.new_context(viewport={"width": 1366, "height": 860})
    first = context.new_page()
    first.set_default_timeout(20000)
    sign_in(first, one, "alice", "alice-pass-123")
    first.click("text=New conversation")
    first.wait_for_selector("#connection.ok")
    path = first.url.removeprefix(one)
    second = context.new_page()  # cookies are per host, not per port: still alice
    second.set_default_timeout(20000)
    second.goto(two + path)
    second.wait_for_selector("#connection.ok")

    # Bob on the second server, on a conversation of his own, hears nothing of alice's.
    bob_context = browser.new_context()
    bob_tab = bob_context.new_page()
    bob_tab.set_default_timeout(20000)
    sign_in(bob_tab, two, "bob", "bob-pass-123")
    bob_tab.click("text=New conversation")
    bob_tab.wait_for_selector("#connection.ok")
    assert bob_tab.goto(two + path).status == 404

    first.fill("#message", "Sent through the first server")
    first.keyboard.press("Enter")
    expect(second.locator("li.message.user .body")).to_have_text("Sent through the first server")
    expect(second.locator("li.message.assistant")).to_have_count(1)

    second.fill("#message", "And back through the second")
    second.keyboard.press("Enter")
    expect(first.locator("li.message.user")).to_have_count(2)
    expect(first.locator("li.message.assistant")).to_have_count(2)

    first.click("#end-button")
    expect(second.locator("#ended-note")).to_be_visible()
    expect(second.locator("#composer")).to_be_hidden()
    bob_tab.go_back()
    bob_tab.wait_for_selector("#connection.ok")
    assert bob_tab.locator("li.message").count() == 0
    context.close()
    bob_context.close()
