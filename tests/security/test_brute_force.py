"""Issue 18 item 1: password guessing cannot hide behind a client-written X-Forwarded-For,
and one account's failures count across the website's sign-in and the API token endpoint.

X-Forwarded-For is read only when the direct peer is listed in ``TRUSTED_PROXIES`` (empty by
default); the per-account limit is ``LOGIN_FAILURE_LIMIT`` failures in
``LOGIN_FAILURE_WINDOW_MINUTES`` (accounts/lockout.py)."""

from __future__ import annotations

import sys

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from ops.management.commands.serve import daphne_command
from pegasus_site.client_ip import _networks, resolve_client_ip

pytestmark = pytest.mark.django_db

TOKEN = "/api/v1/auth/token/"


@pytest.fixture
def login_rate(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "login": "10/min",
        },
    }


def token_attempt(client, username, password, forwarded=None):
    extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded else {}
    return client.post(TOKEN, {"username": username, "password": password}, format="json", **extra)


def web_login(client, login, password, **extra):
    client.post(reverse("account_login"), {"login": login, "password": password}, **extra)
    return "_auth_user_id" in client.session


# --- the address: forwarded headers only from trusted proxies -------------------------------


def test_a_new_forwarded_address_per_request_does_not_escape_the_throttle(
    fast_hashers, login_rate, alice, settings
):
    """The probe: 40 wrong passwords, each with a new X-Forwarded-For, never met a 429.
    Without a configured proxy the header is ignored: the 11th request from one peer is
    throttled, and so is the right password after it."""
    settings.TRUSTED_PROXIES = []
    client = APIClient()
    for i in range(10):
        # A different username each time: the per-account limit is not what stops this.
        response = token_attempt(client, f"user{i}", "guess", forwarded=f"198.51.100.{i}")
        assert response.status_code == 400, i
    response = token_attempt(client, "alice", "alice-pass-123", forwarded="198.51.100.99")
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"


def test_behind_a_trusted_proxy_each_client_has_its_own_allowance(
    fast_hashers, login_rate, alice, settings
):
    """With the test client's peer (127.0.0.1) configured as a proxy, the forwarded address
    is the client: ten clients behind the proxy each have their own allowance, while one
    client — even when it prepends addresses of its own — is throttled after ten."""
    settings.TRUSTED_PROXIES = ["127.0.0.1", "10.0.0.0/8"]
    client = APIClient()
    for i in range(12):
        response = token_attempt(client, f"user{i}", "guess", forwarded=f"198.51.100.{i}")
        assert response.status_code == 400, i
    for i in range(10):
        # The client writes the left part; the proxies (10.0.0.5, then the peer) append.
        response = token_attempt(
            client, f"other{i}", "guess", forwarded=f"203.0.113.{i}, 192.0.2.7, 10.0.0.5"
        )
        assert response.status_code == 400, i
    response = token_attempt(
        client, "alice", "alice-pass-123", forwarded="203.0.113.200, 192.0.2.7, 10.0.0.5"
    )
    assert response.status_code == 429


def test_the_website_login_limit_keys_on_the_peer_without_a_trusted_proxy(
    fast_hashers, alice, settings
):
    settings.TRUSTED_PROXIES = []
    client = Client()
    for i in range(10):
        assert not web_login(client, f"user{i}", "guess", HTTP_X_FORWARDED_FOR=f"198.51.100.{i}")
    assert not web_login(client, "alice", "alice-pass-123", HTTP_X_FORWARDED_FOR="198.51.100.77")
    # Behind a trusted proxy a different forwarded client is someone else.
    settings.TRUSTED_PROXIES = ["127.0.0.1"]
    assert web_login(Client(), "alice", "alice-pass-123", HTTP_X_FORWARDED_FOR="198.51.100.77")


@pytest.mark.parametrize(
    ("peer", "forwarded", "trusted", "client"),
    [
        ("203.0.113.1", "1.2.3.4", (), "203.0.113.1"),  # no proxies: the header is ignored
        ("203.0.113.1", "1.2.3.4", ("10.0.0.0/8",), "203.0.113.1"),  # untrusted peer
        ("10.0.0.1", "1.2.3.4", ("10.0.0.0/8",), "1.2.3.4"),
        ("10.0.0.1", "6.6.6.6, 1.2.3.4", ("10.0.0.0/8",), "1.2.3.4"),  # right-most untrusted
        ("10.0.0.1", "1.2.3.4, 10.0.0.9", ("10.0.0.0/8",), "1.2.3.4"),  # a chain of proxies
        ("10.0.0.1", "not-an-ip", ("10.0.0.0/8",), "10.0.0.1"),
        ("10.0.0.1", "6.6.6.6, junk, 10.0.0.9", ("10.0.0.0/8",), "10.0.0.9"),
        ("::1", "[2001:db8::1]:443", ("::1",), "2001:db8::1"),
        ("10.0.0.1", None, ("10.0.0.0/8",), "10.0.0.1"),
    ],
)
def test_resolving_the_client_address(peer, forwarded, trusted, client):
    assert resolve_client_ip(peer, forwarded, _networks(trusted)) == client


@pytest.mark.parametrize("proxies", [[], ["10.0.0.1"]])
def test_daphne_never_takes_forwarded_headers_itself(settings, proxies):
    """Daphne's --proxy-headers takes the left-most X-Forwarded-For from any peer; with or
    without configured proxies the serve command leaves it off."""
    settings.TRUSTED_PROXIES = proxies
    command = daphne_command(sys.executable, "127.0.0.1", 8000)
    assert "--proxy-headers" not in command
    assert command[-1] == "pegasus_site.asgi:application"


# --- the account: one failure limit for the website and the API -----------------------------


def test_an_account_locked_on_the_website_gets_no_token_from_the_api(fast_hashers, alice):
    """Five wrong passwords on the website, each from another address, lock alice's
    password sign-in: the API refuses her right password too (429, Retry-After)."""
    for i in range(5):
        assert not web_login(Client(REMOTE_ADDR=f"198.51.100.{i}"), "alice", "wrong")
    response = token_attempt(APIClient(REMOTE_ADDR="203.0.113.9"), "alice", "alice-pass-123")
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"
    assert int(response["Retry-After"]) > 60
    assert "token" not in response.json()


def test_api_failures_lock_the_website_sign_in_too(fast_hashers, alice, bob):
    for i in range(5):
        response = token_attempt(APIClient(REMOTE_ADDR=f"198.51.100.{i}"), "alice", "wrong")
        assert response.status_code == 400
    # By email address too: the lock follows the account, not the spelling of its name.
    assert not web_login(Client(REMOTE_ADDR="203.0.113.9"), "alice@example.com", "alice-pass-123")
    assert not web_login(Client(REMOTE_ADDR="203.0.113.10"), "alice", "alice-pass-123")
    # Bob, the outsider, is not affected by alice's lock.
    assert token_attempt(APIClient(), "bob", "bob-pass-123").status_code == 200
    assert web_login(Client(), "bob", "bob-pass-123")


def test_a_locked_unknown_username_answers_like_a_locked_account(fast_hashers, alice):
    for i in range(5):
        token_attempt(APIClient(REMOTE_ADDR=f"198.51.100.{i}"), "nobody", "wrong")
        token_attempt(APIClient(REMOTE_ADDR=f"198.51.100.{i}"), "alice", "wrong")
    unknown = token_attempt(APIClient(), "nobody", "anything")
    known = token_attempt(APIClient(), "alice", "alice-pass-123")
    assert unknown.status_code == known.status_code == 429
    assert unknown.json() == known.json()


def test_fewer_failures_than_the_limit_do_not_lock(fast_hashers, alice):
    for i in range(4):
        token_attempt(APIClient(REMOTE_ADDR=f"198.51.100.{i}"), "alice", "wrong")
    assert token_attempt(APIClient(), "alice", "alice-pass-123").status_code == 200
