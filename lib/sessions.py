"""Who a websocket belongs to and whether it may still act: the channel-layer group of a
user's sockets (joined by ``chat.consumers``, closed by ``accounts.services.close_sockets``)
and the per-frame sign-in check. Pure Django: sessions and the user model."""

from __future__ import annotations

from importlib import import_module

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.utils.crypto import constant_time_compare


def user_group(user_id: int) -> str:
    """The channel-layer group every open socket of a user joins (``chat.consumers``)."""
    return f"user.{user_id}"


def still_signed_in(*, user_id: int, session_key: str | None) -> bool:
    """Whether a socket opened by ``user_id`` with session ``session_key`` may still act:
    the account is active, the session still exists and still names this user with the
    current password (Django's session hash changes with the password)."""
    user = get_user_model()._default_manager.filter(pk=user_id, is_active=True).first()
    if user is None or not session_key:
        return False
    data = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key).load()
    return data.get(SESSION_KEY) == str(user.pk) and constant_time_compare(
        data.get(HASH_SESSION_KEY, ""), user.get_session_auth_hash()
    )
