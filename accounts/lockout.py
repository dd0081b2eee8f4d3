"""Per-account password failure limit, shared by every way to sign in with a password.

The website's sign-in (and the admin's, which is the same allauth form) and the API's token
endpoint both end in ``django.contrib.auth.authenticate``: a failure is counted from its
``user_login_failed`` signal (``accounts.signals``), and ``LockoutBackend``, first in
``AUTHENTICATION_BACKENDS``, refuses every password for a locked account before any other
backend checks it. The lock follows the account, not the address, so neither a new address
per request nor switching between the website and the API escapes it.

``settings.LOGIN_FAILURE_LIMIT`` failures (default 5) within ``LOGIN_FAILURE_WINDOW_MINUTES``
(default 15) lock password sign-in for ``LOGIN_LOCKOUT_MINUTES`` (default 15). Failures
while locked are not counted (the lock does not grow). An unknown login is counted under its
own name, so a locked answer says nothing about whether an account exists. Counters live in
Django's cache (shared by every process when the cache is).
"""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import BaseBackend, ModelBackend
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db.models import Q

_PREFIX = "pegasus:login-failures"


def _subject(login: str) -> str:
    """One key per account whether it is named by username or email; an unknown login by a
    digest of its lowercased text."""
    login = (login or "").strip()
    users = list(
        get_user_model()
        ._default_manager.filter(Q(username__iexact=login) | Q(email__iexact=login))
        .values_list("pk", flat=True)[:2]
    )
    if len(users) == 1:
        return f"user:{users[0]}"
    return "name:" + hashlib.sha256(login.lower().encode("utf-8", "surrogatepass")).hexdigest()


def _keys(login: str) -> tuple[str, str]:
    subject = _subject(login)
    return f"{_PREFIX}:count:{subject}", f"{_PREFIX}:lock:{subject}"


def locked_for(login: str) -> int:
    """Seconds until password sign-in is possible again for ``login`` (0: not locked)."""
    if not login:
        return 0
    _, lock_key = _keys(login)
    until = cache.get(lock_key)
    if not until:
        return 0
    return max(1, int(until - time.time()))


def record_failure(login: str) -> bool:
    """Count one failed password for ``login``; lock it when the limit is reached. Returns
    whether the account is locked now."""
    if not login:
        return False
    count_key, lock_key = _keys(login)
    if cache.get(lock_key):
        return True
    window = settings.LOGIN_FAILURE_WINDOW_MINUTES * 60
    cache.add(count_key, 0, timeout=window)  # the window starts at the first failure
    try:
        count = cache.incr(count_key)
    except ValueError:  # expired between add and incr
        cache.set(count_key, 1, timeout=window)
        count = 1
    if count < settings.LOGIN_FAILURE_LIMIT:
        return False
    lockout = settings.LOGIN_LOCKOUT_MINUTES * 60
    cache.set(lock_key, time.time() + lockout, timeout=lockout)
    cache.delete(count_key)
    return True


def login_of(credentials: dict) -> str:
    """The login a set of ``authenticate`` credentials names (allauth passes ``email`` and
    ``username`` for an address, ``username`` otherwise)."""
    return str(credentials.get("email") or credentials.get("username") or "")


class LockoutBackend(BaseBackend):
    """Authenticates no one; refuses a password for a locked account, which stops
    ``authenticate`` before the real backends run. Being first in the list, it is the one
    ``Client.force_login`` and similar helpers record in a session: ``get_user`` loads the
    user as ``ModelBackend`` does (active accounts only)."""

    def authenticate(self, request, password=None, **credentials):
        if password is not None and locked_for(login_of(credentials)):
            raise PermissionDenied("too many failed sign-ins for this account")
        return None

    def get_user(self, user_id):
        return ModelBackend().get_user(user_id)


def clear(user) -> None:
    """Forget failures and any lock of ``user``'s username and email (after a password
    reset, which proves control of the account's address)."""
    for login in {user.get_username(), user.email}:
        if login:
            cache.delete_many(list(_keys(login)))
