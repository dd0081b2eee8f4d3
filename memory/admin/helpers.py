"""Small helpers the memory console's admin classes share: permission checks, bulk-action
reports, one-line text, read-only JSON and link columns, and the fields of a fieldset."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth import get_permission_codename
from django.utils.text import Truncator

from lib.admin import admin_link, pretty_json
from memory.core.cleaning import normalise_ws

MAX_SKIP_REASONS = 10


def _short(text: str, chars: int = 80) -> str:
    return Truncator(normalise_ws(text or "")).chars(chars)


def json_column(field: str, description: str | None = None):
    """A read-only admin column showing ``obj.<field>`` as indented JSON."""

    @admin.display(description=description or field)
    def column(model_admin, obj):
        return pretty_json(getattr(obj, field))

    return column


def link_column(field: str, description: str):
    """A read-only admin column linking to the row ``obj.<field>`` points at (``—`` if none)."""

    @admin.display(description=description)
    def column(model_admin, obj):
        return admin_link(getattr(obj, field))

    return column


def fieldset_fields(fieldsets) -> tuple[str, ...]:
    """Every field named in ``fieldsets``, in order: what a read-only page lists as
    ``readonly_fields`` without writing the names twice."""
    return tuple(name for _, options in fieldsets for name in options["fields"])


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
