"""The worker heartbeat in the moderator's console: is a django-q2 cluster alive?"""

from django.conf import settings
from django.contrib import admin
from django.utils import timezone

from memory.admin import ReadOnlyAdmin
from ops.models import WorkerHeartbeat


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(ReadOnlyAdmin):
    list_display = ("name", "beat_at", "age", "alive")
    fields = ("name", "beat_at", "age", "alive")
    readonly_fields = fields

    @admin.display(description="seconds since the last beat")
    def age(self, obj):
        return round((timezone.now() - obj.beat_at).total_seconds(), 1)

    @admin.display(description="alive", boolean=True)
    def alive(self, obj):
        """As /healthz judges it: a beat within WORKER_STALE_SECONDS."""
        return (timezone.now() - obj.beat_at).total_seconds() <= settings.WORKER_STALE_SECONDS
