"""API authentication: device tokens, signing out, the website session with CSRF."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from knox.models import AuthToken
from rest_framework.test import APIClient

from accounts.models import TokenDevice
from tests.api.conftest import token_client

pytestmark = pytest.mark.django_db

TOKEN = "/api/v1/auth/token/"
TOKENS = "/api/v1/auth/tokens/"


def sign_in(client, **body):
    return client.post(TOKEN, body, format="json")


def test_a_username_and_password_buy_a_device_token(anon_api, alice):
    response = sign_in(anon_api, username="alice", password="alice-pass-123", device="Pixel 9")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"token", "expiry"} and body["expiry"]
    assert TokenDevice.objects.get(user=alice).device == "Pixel 9"
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert client.get("/api/v1/conversations/").status_code == 200


def test_the_device_name_defaults_and_email_works_as_a_username(anon_api, alice):
    response = sign_in(anon_api, username="alice@example.com", password="alice-pass-123")
    assert response.status_code == 200
    assert TokenDevice.objects.get(user=alice).device == "API client"


def test_wrong_credentials_do_not_tell_whether_the_user_exists(anon_api, alice):
    wrong_password = sign_in(anon_api, username="alice", password="nope")
    no_such_user = sign_in(anon_api, username="mallory", password="nope")
    assert wrong_password.status_code == no_such_user.status_code == 400
    assert (
        wrong_password.json()
        == no_such_user.json()
        == {
            "error": {
                "code": "invalid_credentials",
                "detail": "Unable to sign in with that username and password.",
                "fields": {},
            }
        }
    )
    assert not AuthToken.objects.exists()


def test_an_inactive_account_cannot_sign_in(anon_api, alice):
    alice.is_active = False
    alice.save()
    assert sign_in(anon_api, username="alice", password="alice-pass-123").status_code == 400


def test_mandatory_email_verification_holds_for_tokens_too(anon_api, alice, settings):
    settings.ACCOUNT_EMAIL_VERIFICATION = "mandatory"
    refused = sign_in(anon_api, username="alice", password="alice-pass-123")
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "email_unverified"
    EmailAddress.objects.create(user=alice, email=alice.email, verified=True, primary=True)
    assert sign_in(anon_api, username="alice", password="alice-pass-123").status_code == 200


def test_missing_fields_are_named(anon_api):
    response = sign_in(anon_api, username="alice")
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"password": ["This field is required."]}


def test_signing_in_is_throttled_per_address(anon_api, alice, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "login": "2/min",
        },
    }
    assert sign_in(anon_api, username="alice", password="x").status_code == 400
    assert sign_in(anon_api, username="alice", password="y").status_code == 400
    throttled = sign_in(anon_api, username="alice", password="alice-pass-123")
    assert throttled.status_code == 429
    assert throttled.json()["error"]["code"] == "throttled"
    assert int(throttled["Retry-After"]) > 0


def test_signing_in_ignores_a_stale_token(anon_api, alice):
    anon_api.credentials(HTTP_AUTHORIZATION="Token expired-or-revoked")
    assert sign_in(anon_api, username="alice", password="alice-pass-123").status_code == 200


def test_signing_out_revokes_only_the_calling_token(alice):
    phone, laptop = token_client(alice, "phone"), token_client(alice, "laptop")
    assert phone.delete(TOKEN).status_code == 204
    assert phone.get("/api/v1/conversations/").status_code == 401
    assert laptop.get("/api/v1/conversations/").status_code == 200
    assert list(TokenDevice.objects.filter(user=alice).values_list("device", flat=True)) == [
        "laptop"
    ]


def test_signing_out_everywhere_revokes_every_token(alice, bob):
    phone, laptop = token_client(alice, "phone"), token_client(alice, "laptop")
    bobs = token_client(bob)
    assert phone.delete(TOKENS).status_code == 204
    assert laptop.get("/api/v1/conversations/").status_code == 401
    assert not AuthToken.objects.filter(user=alice).exists()
    assert bobs.get("/api/v1/conversations/").status_code == 200


def test_the_website_session_works_with_its_csrf_token(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.get("/api/v1/conversations/").status_code == 200
    refused = client.post("/api/v1/conversations/", {}, content_type="application/json")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "permission_denied"
    csrf = "k" * 32  # what a page's csrftoken cookie holds; scripts echo it in the header
    client.cookies["csrftoken"] = csrf
    created = client.post(
        "/api/v1/conversations/", {}, content_type="application/json", headers={"X-CSRFToken": csrf}
    )
    assert created.status_code == 201


def test_a_session_has_no_token_to_revoke(alice):
    client = APIClient()
    client.force_login(alice)
    response = client.delete(TOKEN)
    assert response.status_code == 400 and response.json()["error"]["code"] == "not_a_token"
