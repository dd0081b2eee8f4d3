"""Admin helpers several apps share (memory, chat, ops): the read-only base class every
moderator-console model admin uses (its ``NoEdits`` for inlines too), JSON and link rendering
for read-only pages, and the owner filter.

``ReadOnlyAdmin`` logs every page through ``ops.audit`` (the audit log is a model of the ops
app), so this module imports ``ops``: the one place ``lib`` depends on an app."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.contrib.admin.utils import quote
from django.urls import reverse
from django.utils.html import format_html

from ops.audit import AuditedAdminMixin


class NoEdits:
    """No adds, changes or deletes from the console, for a model admin or an inline: the
    rows change only through services."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(AuditedAdminMixin, NoEdits, admin.ModelAdmin):
    """Browse and search only: edits to memory and chat rows go through services. Every
    page of a user's rows is logged (``ops.audit``: who looked at whose content, when)."""


def pretty_json(value: Any):
    """JSON as an indented ``<pre>`` block for read-only pages."""
    return format_html(
        "<pre>{}</pre>",
        json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str),
    )


def admin_link(obj, label: str | None = None):
    """A link to ``obj``'s admin page, or its label when there is none."""
    if obj is None:
        return "—"
    opts = obj._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[quote(obj.pk)])
    return format_html('<a href="{}">{}</a>', url, label or str(obj))


class OwnerFilter(admin.RelatedOnlyFieldListFilter):
    """The users who own rows here. Always shown and applied: Django drops a filter with
    fewer than two choices together with its URL parameter, so a link filtered on a user
    who owns nothing here would silently list everyone's rows."""

    def has_output(self):
        return True


USER_FILTER = ("user", OwnerFilter)
