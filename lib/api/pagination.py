"""The API's pages: numbered pages for lists, opaque cursors for a conversation's
messages."""

from __future__ import annotations

import binascii

from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.dateparse import parse_datetime
from rest_framework import exceptions, status
from rest_framework.pagination import CursorPagination, PageNumberPagination

from lib.api.errors import ApiError


class Pagination(PageNumberPagination):
    """``?page=N`` (and ``?page_size=``, at most 200): ``{"count", "next", "previous",
    "results"}``."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class InvalidCursor(ApiError):
    def __init__(self):
        super().__init__(
            status_code=status.HTTP_400_BAD_REQUEST,
            code="invalid_cursor",
            detail="That page cursor is not valid; start again from the first "
            "page and follow `next`.",
            fields={"cursor": ["Invalid."]},
        )


class MessageCursorPagination(CursorPagination):
    """Opaque ``?cursor=`` pages of a conversation's messages, oldest first; stable while new
    messages arrive. A cursor that was not made here — undecodable, or decoding to a position
    that is not a timestamp (``p=2026``) — is a 400 ``invalid_cursor``."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    ordering = ("created_at", "id")

    def decode_cursor(self, request):
        try:
            cursor = super().decode_cursor(request)
        except (exceptions.NotFound, UnicodeError, binascii.Error):
            raise InvalidCursor() from None
        # The position is compared with ``created_at`` in SQL: anything but a timestamp would
        # fail there, after the query was built (a 500).
        if cursor is not None and cursor.position is not None:
            try:
                parsed = parse_datetime(cursor.position)
            except ValueError:
                parsed = None
            if parsed is None:
                raise InvalidCursor()
        return cursor

    def paginate_queryset(self, queryset, request, view=None):
        try:
            return super().paginate_queryset(queryset, request, view)
        except (DjangoValidationError, ValueError, OverflowError):
            raise InvalidCursor() from None
