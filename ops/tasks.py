"""Worker tasks of the ops app. Thin: each calls one function."""

from django.conf import settings
from django.utils import timezone

from ops.models import WorkerHeartbeat


def heartbeat() -> None:
    """Record that a worker of this cluster just executed a task."""
    WorkerHeartbeat.objects.update_or_create(
        name=settings.Q_CLUSTER["name"], defaults={"beat_at": timezone.now()}
    )
