"""The admin index with the review and job counts."""

from __future__ import annotations

import functools

from django.contrib import admin

from memory.services.queues import index_summary


def _with_queue_counts(index):
    """The admin index with the held/flagged merge counts and failed/stuck job counts
    (``templates/admin/index.html``); the default site stays, so django-q2's and the other
    apps' registrations are untouched."""

    @functools.wraps(index)
    def view(request, extra_context=None):
        return index(request, extra_context={**index_summary(request), **(extra_context or {})})

    view.with_queue_counts = True
    return view


if not getattr(admin.site.index, "with_queue_counts", False):
    admin.site.index = _with_queue_counts(admin.site.index)
