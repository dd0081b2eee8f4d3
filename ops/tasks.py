"""Worker tasks of the ops app. Thin: each calls one function."""

from django.conf import settings
from django.utils import timezone

from ops.models import WorkerHeartbeat


def heartbeat() -> None:
    """Record that a worker of this cluster just executed a task."""
    WorkerHeartbeat.objects.update_or_create(
        name=settings.Q_CLUSTER["name"], defaults={"beat_at": timezone.now()}
    )


def erase_expired_history() -> dict:
    """Strip the text of corrections and merge decisions past the undo window (daily)."""
    from memory.services.corrections import erase_expired_history as erase

    return erase(now=timezone.now())
