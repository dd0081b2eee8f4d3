"""How fast a user may open conversations (website and API; the services stay unlimited for
replays, benchmarks and commands, which pass their own ``now``).

Each conversation is a row, an episode and an extraction job when it ends: an unbounded
loop of "new conversation" costs the worker and the database. The limit counts the user's
conversations started in the last minute (``CHAT_CONVERSATIONS_PER_MINUTE``, default 10).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings

from chat.models import Conversation

WINDOW = timedelta(minutes=1)


class TooManyConversations(Exception):
    """``retry_after`` is in seconds."""

    def __init__(self, limit: int, retry_after: int):
        super().__init__(
            f"You can start at most {limit} conversations a minute; try again "
            f"in {retry_after} seconds."
        )
        self.retry_after = retry_after


def check_new_conversation(*, user, now: datetime) -> None:
    """Raise ``TooManyConversations`` if ``user`` started the limit's worth in the minute
    before ``now``."""
    limit = int(getattr(settings, "CHAT_CONVERSATIONS_PER_MINUTE", 10))
    recent = list(
        Conversation.objects.for_user(user)
        .filter(started_at__gt=now - WINDOW, started_at__lte=now)
        .order_by("-started_at")
        .values_list("started_at", flat=True)[:limit]
    )
    if len(recent) >= limit:
        oldest = recent[-1]
        raise TooManyConversations(limit, max(1, int((oldest + WINDOW - now).total_seconds())))
