"""Small helpers the memory console's admin classes share: permission checks, bulk-action
reports, one-line text."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth import get_permission_codename
from django.utils.text import Truncator

MAX_SKIP_REASONS = 10


def _short(text: str, chars: int = 80) -> str:
    return Truncator(" ".join((text or "").split())).chars(chars)


def _has_perm(request, opts, action: str) -> bool:
    return request.user.has_perm(f"{opts.app_label}.{get_permission_codename(action, opts)}")


def _report(
    model_admin: admin.ModelAdmin, request, *, verb: str, done: int, skipped: list[str]
) -> None:
    """The summary of a bulk action: counts, then the first reasons for skipping."""
    total = done + len(skipped)
    level = messages.SUCCESS if not skipped else messages.WARNING
    model_admin.message_user(
        request, f"{verb} {done} of {total} selected; skipped {len(skipped)}.", level
    )
    if skipped:
        more = len(skipped) - MAX_SKIP_REASONS
        reasons = "; ".join(skipped[:MAX_SKIP_REASONS]) + (f"; and {more} more" if more > 0 else "")
        model_admin.message_user(request, f"Skipped: {reasons}", messages.WARNING)
