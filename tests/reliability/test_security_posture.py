"""Security posture (issue 12): what an attacker or a careless log would meet.

Covered elsewhere and not repeated here:

* ``check --deploy --fail-level WARNING`` is clean in production mode —
  tests/pegasus_site/test_production_settings.py::
  test_production_mode_passes_check_deploy_at_warning_level (with the refusals to start
  without SECRET_KEY or ALLOWED_HOSTS);
* the admin's own password form is never processed (allauth's ``secure_admin_login``) and
  guessing a moderator's password is throttled after 5 failures —
  tests/admin/test_access.py::test_the_admin_login_is_allauths_login and
  ::test_password_guessing_is_rate_limited;
* the API's token endpoint is throttled per address —
  tests/api/test_auth.py::test_signing_in_is_throttled_per_address;
* a socket from a foreign origin is refused in the test settings —
  tests/chat/test_consumer.py::test_a_foreign_origin_is_refused.

Here: the CSP of every kind of page; the cookies and HTTPS behaviour of a production process;
the websocket origin check of a production process; the per-address login limit; and that no
secret (SECRET_KEY, ANTHROPIC_API_KEY, an API token) reaches a log line, at DEBUG, through a
chat turn, LLM failures, an extraction failure, API authentication and a startup.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
from html.parser import HTMLParser
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from chat.models import Conversation, Message
from lib.llm import LLMError
from memory.services import jobs
from tests.fakes.anthropic_server import Error
from tests.memory.factories import make_edge, make_node
from tests.pegasus_site.test_production_settings import BASE, PRODUCTION

# --- helpers ------------------------------------------------------------------------------


def production_python(script: str, **env: str) -> subprocess.CompletedProcess:
    """``script`` run by a fresh Python in production mode (PRODUCTION of
    test_production_settings, plus ``env``); test-process settings do not leak in."""
    dropped = {"SECRET_KEY", "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    full_env = {k: v for k, v in os.environ.items() if k not in dropped}
    full_env.update(PRODUCTION, DJANGO_SETTINGS_MODULE="pegasus_site.settings", **env)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=BASE,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def this_runs_database_url() -> str:
    """The URL of this test run's database, for a subprocess that must see its rows."""
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path="/" + connection.settings_dict["NAME"]))


class _Scripts(HTMLParser):
    """Collects what a CSP without 'unsafe-inline' would block: inline script bodies,
    ``on*`` handler attributes, ``javascript:`` URLs."""

    def __init__(self):
        super().__init__()
        self.inline: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name, value in attrs.items():
            if name.startswith("on"):
                self.inline.append(f"<{tag} {name}=...>")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith(
                "javascript:"
            ):
                self.inline.append(f"<{tag} {name}=javascript:...>")
        script_type = (attrs.get("type") or "text/javascript").lower()
        self._in_script = tag == "script" and "src" not in attrs and "json" not in script_type

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.inline.append(f"<script>{data.strip()[:60]}</script>")


def csp_directives(header: str) -> dict[str, list[str]]:
    directives = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            directives[words[0]] = words[1:]
    return directives


# --- the Content-Security-Policy of real pages ----------------------------------------------


@pytest.mark.django_db
def test_no_page_allows_inline_or_evaluated_scripts(client, alice, mod):
    """Every kind of page — public, signed in, the memory explorer, the admin, the API docs —
    sends a CSP whose scripts come from 'self' only, and contains nothing that policy would
    block (the page would be broken, or the policy loosened to make it work)."""
    conversation = Conversation.objects.create(user=alice, started_at=timezone.now())
    Message.objects.create(
        user=alice,
        conversation=conversation,
        role="user",
        text="<script>alert(1)</script> onload=",
        created_at=timezone.now(),
    )
    node = make_node(alice, "Acme <img onerror=x>", "ORG")
    make_edge(alice, make_node(alice, "Trevor", is_self=True), "WORKS_AT", node)
    pages = {
        None: ["/", reverse("account_login"), reverse("account_signup")],
        alice: [
            "/chat/",
            f"/chat/{conversation.pk}/",
            "/memory/",
            "/account/",
            "/account/tokens/",
            "/api/docs/",
        ],
        mod: ["/admin/", "/admin/memory/mergedecision/", "/admin/memory/node/"],
    }
    checked = 0
    for user, paths in pages.items():
        client.logout()
        if user is not None:
            client.force_login(user)
        for path in paths:
            response = client.get(path)
            assert response.status_code == 200, (path, response.status_code)
            policy = csp_directives(response.headers["Content-Security-Policy"])
            scripts = policy.get("script-src", policy.get("default-src"))
            assert scripts == ["'self'"], (path, scripts)
            for directive, sources in policy.items():
                assert "'unsafe-eval'" not in sources, (path, directive)
            assert policy["object-src"] == ["'none'"] and policy["base-uri"] == ["'self'"]
            parser = _Scripts()
            parser.feed(response.content.decode())
            assert parser.inline == [], (path, parser.inline)
            checked += 1
    assert checked == 12


# --- production cookies and HTTPS -------------------------------------------------------------

_LOGIN_SCRIPT = """
    import json
    import django
    django.setup()
    from django.test import Client
    from django.test.utils import override_settings

    # Only the static files storage changes: the manifest needs collectstatic, which a test
    # does not run; every security setting is the production one.
    with override_settings(STORAGES={
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }):
        client = Client(HTTP_HOST="pegasus.example.com")
        plain = client.get("/accounts/login/")
        page = client.get("/accounts/login/", secure=True)
        login = client.post("/accounts/login/", {"login": "alice", "password": "alice-pass-123"},
                            secure=True)
    cookies = {}
    for response in (page, login):
        for name, morsel in response.cookies.items():
            cookies[name] = {"secure": bool(morsel["secure"]), "httponly": bool(morsel["httponly"]),
                             "samesite": morsel["samesite"]}
    print(json.dumps({
        "plain": [plain.status_code, plain.headers.get("Location")],
        "page": page.status_code, "login": [login.status_code, login.headers.get("Location")],
        "hsts": page.headers.get("Strict-Transport-Security"), "cookies": cookies,
    }))
"""


@pytest.mark.django_db(transaction=True)
def test_production_cookies_are_secure_and_http_is_redirected(alice):
    """A production process (its own settings, this run's database): plain HTTP is
    redirected to HTTPS, HSTS is sent, and signing in sets a session cookie that is Secure,
    HttpOnly and SameSite, and a CSRF cookie that is Secure and SameSite (readable by the
    page's scripts on purpose: they send it back as X-CSRFToken)."""
    result = production_python(_LOGIN_SCRIPT, DATABASE_URL=this_runs_database_url())
    assert result.returncode == 0, result.stderr[-3000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["plain"] == [301, "https://pegasus.example.com/accounts/login/"]
    assert seen["page"] == 200
    assert seen["login"][0] == 302, seen  # signed in
    assert seen["hsts"] == "max-age=31536000; includeSubDomains; preload"
    assert seen["cookies"]["sessionid"] == {"secure": True, "httponly": True, "samesite": "Lax"}
    assert seen["cookies"]["csrftoken"] == {"secure": True, "httponly": False, "samesite": "Lax"}


# --- websocket origins in production -----------------------------------------------------------

_ORIGIN_SCRIPT = """
    import asyncio, json, os
    from channels.testing import WebsocketCommunicator
    from pegasus_site.asgi import application

    ORIGINS = ["https://pegasus.example.com", "http://pegasus.example.com",
               "https://evil.example.com", "https://pegasus.example.com.evil.com",
               "https://evilpegasus.example.com", "null", "", None]
    PATH = f"/ws/chat/{os.environ['CONVERSATION']}/"

    async def handshake(origin, cookie):
        headers = [(b"host", b"pegasus.example.com")]
        if origin is not None:
            headers.append((b"origin", origin.encode()))
        if cookie:
            headers.append((b"cookie", f"sessionid={cookie}".encode()))
        comm = WebsocketCommunicator(application, PATH, headers=headers)
        connected, code = await comm.connect()
        if connected:
            await comm.disconnect()
        return [connected, code]

    async def main():
        return {
            "signed in": {str(o): await handshake(o, os.environ["COOKIE"]) for o in ORIGINS},
            "anonymous": {str(o): await handshake(o, "") for o in ORIGINS},
        }

    print(json.dumps(asyncio.run(main())))
"""


@pytest.mark.django_db(transaction=True)
def test_a_production_socket_checks_its_origin_against_allowed_hosts(alice, settings):
    """A production process (ALLOWED_HOSTS pegasus.example.com, this run's database and
    signing key, so alice's session is valid there): the site's own https origin is accepted —
    and, anonymous, gets through to the consumer, which refuses it (4401); every other
    origin, lookalikes, "null" and a missing Origin header included, is refused before the
    consumer, signed in or not."""
    conversation = Conversation.objects.create(user=alice, started_at=timezone.now())
    client = Client()
    client.force_login(alice)
    result = production_python(
        _ORIGIN_SCRIPT,
        DATABASE_URL=this_runs_database_url(),
        SECRET_KEY=settings.SECRET_KEY,
        COOKIE=client.cookies["sessionid"].value,
        CONVERSATION=str(conversation.pk),
    )
    assert result.returncode == 0, result.stderr[-3000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    for who, through in (("signed in", [True, None]), ("anonymous", [False, 4401])):
        outcomes = seen[who]
        assert outcomes.pop("https://pegasus.example.com") == through, who
        # With SECURE_SSL_REDIRECT no page is served over http, so its origin is not the
        # site's (the scheme is compared since issue 18: pegasus_site/origins.py).
        assert outcomes.pop("http://pegasus.example.com") == [False, 1000], who
        assert all(outcome == [False, 1000] for outcome in outcomes.values()), (who, outcomes)


# --- login throttling ------------------------------------------------------------------------


@pytest.fixture
def clean_rate_limits():
    # allauth keeps its counters in the cache, which outlives a test's database.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def fast_hashers(settings):
    # Every attempt, even for an unknown username, hashes a password: with the production
    # hasher eleven attempts cost seconds. The limit under test does not depend on it.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.mark.django_db
def test_guessing_across_many_accounts_is_throttled_per_address(
    fast_hashers, client, alice, clean_rate_limits
):
    """Credential stuffing: one address trying a different username each time meets
    allauth's per-address limit (10 failures a minute); after that even a right password is
    refused for a while. (Per account: tests/admin/test_access.py.)"""
    login = reverse("account_login")
    for i in range(10):
        response = client.post(login, {"login": f"user{i}", "password": "guess"})
        assert response.status_code == 200
        assert "Too many failed login attempts" not in response.content.decode()
    response = client.post(login, {"login": "alice", "password": "alice-pass-123"})
    assert "_auth_user_id" not in client.session
    assert "Too many failed login attempts" in response.content.decode()
    # Another address is not affected.
    other = Client(REMOTE_ADDR="10.0.0.2")
    response = other.post(login, {"login": "alice", "password": "alice-pass-123"})
    assert response.status_code == 302 and "_auth_user_id" in other.session


# --- secrets never logged --------------------------------------------------------------------

SECRET_MARKER = "h3-secret-key-marker-7f3a9c1e5b2d4f60a8e7c6b5a4d3e2f1-never-log-me"
API_KEY_MARKER = "sk-ant-h3-api-key-marker-0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a"


class _Everything(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(self.format(record))  # message, arguments and any traceback


@pytest.fixture
def debug_logs():
    """Every logger at DEBUG, every record formatted (arguments and tracebacks included),
    SQL included (the debug cursor logs each query with its parameters)."""
    handler = _Everything()
    loggers = [logging.getLogger()] + [
        logging.getLogger(name) for name in list(logging.root.manager.loggerDict)
    ]
    levels = [(logger, logger.level) for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.DEBUG)
        if not logger.propagate or logger is logging.getLogger():
            logger.addHandler(handler)
    connection.force_debug_cursor = True
    try:
        yield handler.lines
    finally:
        connection.force_debug_cursor = False
        for logger, level in levels:
            logger.setLevel(level)
            logger.removeHandler(handler)


def sent_key(headers: dict[str, str]) -> str:
    """The API key a request to the fake carried (the SDK sends a bearer token)."""
    return headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")


def assert_never_logged(lines: list[str], *secrets: str) -> None:
    assert len(lines) > 20, "the capture saw (almost) nothing"
    for secret in secrets:
        leaks = [line[:200] for line in lines if secret in line]
        assert leaks == [], leaks


@pytest.mark.django_db
def test_secrets_and_tokens_never_reach_a_log_line(alice, settings, fake_anthropic, debug_logs):
    settings.SECRET_KEY = SECRET_MARKER
    settings.ANTHROPIC_API_KEY = API_KEY_MARKER
    settings.ANTHROPIC_MAX_RETRIES = 1
    cache.clear()
    anon = APIClient()
    signed_in = anon.post(
        "/api/v1/auth/token/", {"username": "alice", "password": "alice-pass-123"}, format="json"
    )
    assert signed_in.status_code == 200
    token = signed_in.json()["token"]
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    conversation = api.post("/api/v1/conversations/", {}, format="json").json()["id"]
    messages = f"/api/v1/conversations/{conversation}/messages/"

    # a chat turn against the fake Messages API
    fake_anthropic.script(["A reply from the fake model."])
    turn = api.post(
        messages, {"text": "Hello, my boss is Joshua.", "client_id": "t1"}, format="json"
    )
    assert turn.status_code == 201, turn.content[:300]
    # the key in use is the marker: what must not be logged was really there to leak
    assert sent_key(fake_anthropic.headers[-1]) == API_KEY_MARKER

    # the LLM failing: 500s past the retries, then a rejected key
    fake_anthropic.script([Error(500), Error(500), Error(401)])
    for client_id in ("t2", "t3"):
        failed = api.post(
            messages, {"text": "Are you there?", "client_id": client_id}, format="json"
        )
        assert failed.status_code >= 400, failed.content[:300]

    # an extraction failing the same way
    fake_anthropic.script([Error(500), Error(500)])
    episode = jobs.schedule_extraction(
        user=alice,
        conversation=Conversation.objects.get(pk=conversation),
        now=timezone.now(),
        enqueue=False,
    )
    with pytest.raises(LLMError):
        jobs.extract_episode(episode_id=episode.pk, now=timezone.now())[0]
    episode.refresh_from_db()
    assert episode.status == "failed" and "500" in episode.last_error

    # a token misused, revoked, then used again
    assert APIClient().get(messages, HTTP_AUTHORIZATION=f"Token {token[:-2]}xx").status_code == 401
    assert api.delete("/api/v1/auth/token/").status_code == 204
    assert api.get(messages).status_code == 401

    assert any("chat reply failed" in line for line in debug_logs)  # the error paths logged
    assert any("SELECT" in line for line in debug_logs)  # and the SQL did
    assert_never_logged(debug_logs, SECRET_MARKER, API_KEY_MARKER, token)


_STARTUP_SCRIPT = """
    import logging
    import django
    django.setup()
    for name in ["", *logging.root.manager.loggerDict]:
        logging.getLogger(name).setLevel(logging.DEBUG)
    from django.core.management import call_command
    call_command("check", "--deploy")
    from pegasus_site.asgi import application  # noqa: F401  (the web process's start)
    from lib import llm
    reply = llm.client(timeout=10).messages.create(
        model="claude-sonnet-4-6", max_tokens=16, messages=[{"role": "user", "content": "hi"}])
    print("reply:", reply.content[0].text)
"""


def test_a_production_startup_logs_no_secret(fake_anthropic):
    """A production process starting at LOG_LEVEL=DEBUG — settings, deploy checks, the ASGI
    application, the Anthropic client and its first request — prints neither key."""
    result = production_python(
        _STARTUP_SCRIPT,
        LOG_LEVEL="DEBUG",
        SECRET_KEY=SECRET_MARKER,
        ANTHROPIC_API_KEY=API_KEY_MARKER,
        ANTHROPIC_BASE_URL=fake_anthropic.url,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "reply: This is a fake reply." in result.stdout
    output = result.stdout + result.stderr
    assert "DEBUG" in output and "System check identified no issues" in output
    assert sent_key(fake_anthropic.headers[-1]) == API_KEY_MARKER
    assert_never_logged(output.splitlines(), SECRET_MARKER, API_KEY_MARKER)
