"""Issue 18 item 2: API tokens and other sessions do not outlive a password change, a
password reset or a deactivation."""

from __future__ import annotations

import re

import pytest
from django.contrib.sessions.models import Session
from django.core import mail
from django.test import Client
from knox.models import AuthToken
from rest_framework.test import APIClient

from accounts.tokens import create_token

pytestmark = pytest.mark.django_db

CONVERSATIONS = "/api/v1/conversations/"
NEW_PASSWORD = "a-brand-new-passphrase-93"


def api(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {create_token(user=user, device='p').token}")
    return client


def signed_in(user) -> Client:
    client = Client()
    client.post(
        "/accounts/login/", {"login": user.username, "password": f"{user.username}-pass-123"}
    )
    assert "_auth_user_id" in client.session
    return client


def token_request(client, username, password):
    return client.post(
        "/api/v1/auth/token/", {"username": username, "password": password}, format="json"
    )


def is_signed_in(client: Client) -> bool:
    return client.get("/account/").status_code == 200


def test_a_password_change_revokes_every_token_and_other_session(fast_hashers, alice, bob):
    phone, bobs = api(alice), api(bob)
    here, elsewhere = signed_in(alice), signed_in(alice)
    assert phone.get(CONVERSATIONS).status_code == 200
    response = here.post(
        "/accounts/password/change/",
        {"oldpassword": "alice-pass-123", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert response.status_code == 302
    assert phone.get(CONVERSATIONS).status_code == 401
    assert not AuthToken.objects.filter(user=alice).exists()
    # The other session's row is gone, not merely failing its hash on its next request.
    assert list(Session.objects.values_list("pk", flat=True)) == [here.session.session_key]
    assert is_signed_in(here)  # the browser that changed it stays signed in
    assert not is_signed_in(elsewhere)
    # Bob, the outsider, keeps his token.
    assert bobs.get(CONVERSATIONS).status_code == 200


def test_a_password_reset_revokes_every_token_and_session(fast_hashers, alice, bob):
    phone, bobs, browser = api(alice), api(bob), signed_in(alice)
    bob_browser = signed_in(bob)
    for _ in range(5):  # someone guessing alice's password has locked her sign-in
        token_request(APIClient(), "alice", "wrong")
    assert token_request(APIClient(), "alice", "alice-pass-123").status_code == 429
    anonymous = Client()
    anonymous.post("/accounts/password/reset/", {"email": "alice@example.com"})
    link = re.search(
        r"https?://[^/\s]+(/accounts/password/reset/key/\S+/)", mail.outbox[-1].body
    ).group(1)
    form = anonymous.get(link, follow=True)
    response = anonymous.post(
        form.redirect_chain[-1][0] if form.redirect_chain else link,
        {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert response.status_code == 302
    assert phone.get(CONVERSATIONS).status_code == 401
    assert not is_signed_in(browser)
    assert bobs.get(CONVERSATIONS).status_code == 200 and is_signed_in(bob_browser)
    # The reset proved control of the account's address: the lock is lifted.
    assert token_request(APIClient(), "alice", NEW_PASSWORD).status_code == 200


def test_deactivation_revokes_every_token_and_session(fast_hashers, alice, bob):
    phone, bobs, browser = api(alice), api(bob), signed_in(alice)
    alice.is_active = False
    alice.save()  # as the admin's change form does
    assert not AuthToken.objects.filter(user=alice).exists()
    assert phone.get(CONVERSATIONS).status_code == 401
    assert not is_signed_in(browser)
    assert bobs.get(CONVERSATIONS).status_code == 200


def test_a_password_set_anywhere_revokes_tokens(alice):
    """manage.py changepassword, the admin's password form: no allauth signal, same effect."""
    phone = api(alice)
    alice.set_password(NEW_PASSWORD)
    alice.save()
    assert phone.get(CONVERSATIONS).status_code == 401


def test_other_saves_keep_tokens(alice):
    phone = api(alice)
    alice.first_name = "Alice"
    alice.save()
    assert phone.get(CONVERSATIONS).status_code == 200


def test_the_tokens_page_says_when_tokens_are_revoked(client, alice):
    client.force_login(alice)
    page = client.get("/account/tokens/").content.decode()
    assert "Changing or resetting your password" in page and "revokes every token" in page
