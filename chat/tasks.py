"""Worker tasks of the chat app."""

from django.conf import settings
from django.utils import timezone

from chat import services


def close_idle_conversations() -> int:
    """End conversations idle for CONVERSATION_IDLE_MINUTES (each enqueues its extraction)."""
    return services.close_idle_conversations(
        now=timezone.now(), idle_minutes=settings.CONVERSATION_IDLE_MINUTES
    )
