"""The one access gate to owned rows, project-wide (memory, chat, accounts).

Views, API code, consumers and the admin's user-facing parts reach memory and chat rows only
through ``Model.objects.for_user(user)`` or ``get_owned_or_404(...)``. "Not yours" and "does
not exist" are the same answer: 404. ``tests/test_architecture.py`` fails on a query of an
owned model that goes around the gate outside its allow-list.
"""

from __future__ import annotations

from typing import TypeVar

from django.db import models
from django.http import Http404

M = TypeVar("M", bound=models.Model)


class OwnedQuerySet(models.QuerySet):
    def for_user(self, user) -> OwnedQuerySet:
        """Rows owned by ``user`` (a user instance or id). Anonymous users own nothing."""
        if user is None or getattr(user, "is_anonymous", False):
            return self.none()
        user_id = user if isinstance(user, int) else user.pk
        return self.filter(user_id=user_id)


def get_owned_or_404(model_or_queryset, user, **lookup):
    """The row matching ``lookup`` among ``user``'s rows, else Http404 (never 403).

    Malformed ids (``"abc"`` for an integer key) are also a 404, not a 500.
    """
    queryset = (
        model_or_queryset._default_manager.all()
        if isinstance(model_or_queryset, type)
        else model_or_queryset
    )
    try:
        return queryset.for_user(user).get(**lookup)
    except (queryset.model.DoesNotExist, ValueError, TypeError):
        raise Http404("Not found") from None
