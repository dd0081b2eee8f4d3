"""The worker heartbeat (is a django-q2 cluster alive?) and the audit log of moderators' views
of user content, in the moderator's console."""

from django.conf import settings
from django.contrib import admin
from django.utils import timezone

from lib.admin import ReadOnlyAdmin
from ops.models import ModeratorView, WorkerHeartbeat


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


@admin.register(ModeratorView)
class ModeratorViewAdmin(ReadOnlyAdmin):
    """The audit log: every admin page of a user's content a moderator opened."""

    list_display = ("viewed_at", "moderator", "subject", "model", "object_id", "path")
    list_filter = ("model", ("viewed_at", admin.DateFieldListFilter))
    search_fields = ("moderator__username", "subject__username", "model", "object_id")
    list_select_related = ("moderator", "subject")
    fields = ("viewed_at", "moderator", "subject", "model", "object_id", "path")
    readonly_fields = fields
