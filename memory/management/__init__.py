"""Helpers shared by the memory app's management commands (SPEC §6.3)."""

from __future__ import annotations

import json
import sys
from datetime import datetime

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError
from django.utils import timezone

from lib import strict_json


def get_account(username: str):
    """The account named ``username``, or a CommandError saying there is none."""
    model = get_user_model()
    try:
        return model.objects.get(**{model.USERNAME_FIELD: username})
    except model.DoesNotExist:
        raise CommandError(f"no account with username {username!r}") from None


def parse_now(value: str | None) -> datetime:
    """``--now``: an ISO 8601 date-time with a UTC offset (``Z`` allowed); default the
    current time. A time without an offset is refused rather than guessed."""
    if value is None:
        return timezone.now()
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise CommandError(
            f"--now {value!r} is not an ISO 8601 date-time (e.g. 2026-01-01T00:00:00+00:00)"
        ) from None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise CommandError(
            f"--now {value!r} needs a UTC offset (e.g. 2026-01-01T00:00:00+00:00 or ...Z)"
        )
    return parsed


def read_json_file(path: str):
    """Parse the JSON in ``path`` (``-`` = standard input); a one-line CommandError otherwise
    (invalid JSON, NaN/Infinity, a number too large for a float or an integer too long to
    convert, nesting deeper than the parser's recursion limit)."""
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CommandError(f"{path} is not UTF-8 text") from None
    try:
        return strict_json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(
            f"{path} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise CommandError(f"{path} is not valid JSON: it is nested too deeply") from None
    except ValueError as exc:  # a constant or number JSON does not allow, an integer too long
        raise CommandError(f"{path} is not valid JSON: {strict_json.reason(exc)}") from None
