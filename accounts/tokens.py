"""API tokens (django-rest-knox): one per device, stored hashed, shown once at creation."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from knox.models import AuthToken

from accounts.models import TokenDevice


@dataclass(frozen=True)
class CreatedToken:
    token: str
    device: str
    expiry: datetime | None


def create_token(*, user, device: str) -> CreatedToken:
    """A new token for one device. The plain token exists only in the return value."""
    with transaction.atomic():
        instance, token = AuthToken.objects.create(user=user)
        TokenDevice.objects.create(user=user, digest=instance.digest, device=device.strip()[:60])
    return CreatedToken(token=token, device=device, expiry=instance.expiry)


def list_tokens(*, user) -> list[dict]:
    names = dict(TokenDevice.objects.filter(user=user).values_list("digest", "device"))
    return [
        {
            "digest": t.digest,
            "prefix": t.token_key,
            "created": t.created,
            "expiry": t.expiry,
            "device": names.get(t.digest, ""),
        }
        for t in AuthToken.objects.filter(user=user).order_by("-created")
    ]


def revoke_token(*, user, digest: str) -> bool:
    with transaction.atomic():
        deleted, _ = AuthToken.objects.filter(user=user, digest=digest).delete()
        TokenDevice.objects.filter(user=user, digest=digest).delete()
    return bool(deleted)


def revoke_all(*, user) -> int:
    with transaction.atomic():
        deleted, _ = AuthToken.objects.filter(user=user).delete()
        TokenDevice.objects.filter(user=user).delete()
    return deleted
