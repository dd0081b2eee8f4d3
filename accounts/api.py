"""API authentication: trade a username and password for a device token, revoke tokens.

Tokens are django-rest-knox tokens made by ``accounts.tokens`` (one per device, stored
hashed, expiring, refreshed on use). Requests carry ``Authorization: Token <token>``; the
website's session cookie (with the ``X-CSRFToken`` header) is accepted too.
"""

from __future__ import annotations

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import authenticate
from drf_spectacular.utils import extend_schema
from knox.models import AuthToken
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response

from accounts.lockout import locked_for
from accounts.tokens import create_token, revoke_all, revoke_token
from lib.api import (
    AnonRateThrottle,
    ApiError,
    ApiView,
    ErrorSerializer,
    LoginRateThrottle,
    UserRateThrottle,
)

TAGS = ["auth"]
DEFAULT_DEVICE = "API client"


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150, help_text="Your username or email.")
    password = serializers.CharField(
        max_length=4096, trim_whitespace=False, style={"input_type": "password"}
    )
    device = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=60,
        help_text="A name for this device, shown in your account's "
        'token list (default "API client").',
    )


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(
        read_only=True, help_text="Send as `Authorization: Token <token>`. Shown only this once."
    )
    expiry = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="Pushed forward each time the token is used."
    )


def _needs_verified_email() -> bool:
    return getattr(settings, "ACCOUNT_EMAIL_VERIFICATION", "optional") == "mandatory"


class TokenView(ApiView):
    """``POST`` signs in (no credentials needed); ``DELETE`` signs this token out."""

    _method = ""

    def initialize_request(self, request, *args, **kwargs):
        # The authenticators are chosen inside, before ``self.request`` is the DRF request.
        self._method = request.method
        return super().initialize_request(request, *args, **kwargs)

    def _signing_in(self) -> bool:
        return self._method == "POST"

    def get_authenticators(self):
        # Signing in takes no credentials: a stale token or a session cookie without CSRF
        # must not stand in the way of getting a new token.
        return [] if self._signing_in() else super().get_authenticators()

    def get_permissions(self):
        return [AllowAny()] if self._signing_in() else [IsAuthenticated()]

    def get_throttles(self):
        if self._signing_in():
            return [LoginRateThrottle()]
        return [UserRateThrottle(), AnonRateThrottle()]

    @extend_schema(
        tags=TAGS, request=TokenRequestSerializer, responses={200: TokenSerializer}, auth=[]
    )
    def post(self, request):
        """Sign in: a new token for this device. Wrong credentials are a 400
        (`invalid_credentials`) that does not say whether the username exists; when email
        verification is mandatory, an unconfirmed address is a 400 `email_unverified`.
        After `LOGIN_FAILURE_LIMIT` wrong passwords for one account (here or on the website)
        its password sign-in is locked for a while: a 429 (`throttled`) with `Retry-After`.
        Changing or resetting the password revokes every token of the account."""
        body = TokenRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        wait = locked_for(data["username"])
        if wait:
            # Shared with the website's sign-in (accounts/lockout.py); said for unknown
            # usernames too, so it does not tell which accounts exist.
            raise exceptions.Throttled(
                wait=wait,
                detail="Too many failed sign-ins for this account; try again "
                f"in {max(1, round(wait / 60))} minutes or reset your "
                "password.",
            )
        user = authenticate(request._request, username=data["username"], password=data["password"])
        if user is None or not user.is_active:
            raise ApiError(
                status_code=400,
                code="invalid_credentials",
                detail="Unable to sign in with that username and password.",
            )
        if (
            _needs_verified_email()
            and not EmailAddress.objects.filter(user=user, verified=True).exists()
        ):
            # Same rule as the website's sign-in; only said after a correct password.
            raise ApiError(
                status_code=400,
                code="email_unverified",
                detail="Confirm your email address first: follow the link in the "
                "message we sent you, then sign in again.",
            )
        created = create_token(user=user, device=data.get("device") or DEFAULT_DEVICE)
        return Response(TokenSerializer({"token": created.token, "expiry": created.expiry}).data)

    @extend_schema(tags=TAGS, request=None, responses={204: None, 400: ErrorSerializer})
    def delete(self, request):
        """Sign out: revoke the token this request carries (400 for a session)."""
        if not isinstance(request.auth, AuthToken):
            raise ApiError(
                status_code=400,
                code="not_a_token",
                detail="This request was not made with a token; sign out of the website instead.",
            )
        revoke_token(user=request.user, digest=request.auth.digest)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenListView(ApiView):
    @extend_schema(tags=TAGS, request=None, responses={204: None})
    def delete(self, request):
        """Sign out everywhere: revoke every token of your account."""
        revoke_all(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
