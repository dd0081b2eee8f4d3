"""Operational state: the worker's heartbeat (read by /healthz) and the audit log of what
moderators viewed."""

from django.conf import settings
from django.db import models


class WorkerHeartbeat(models.Model):
    """One row per worker cluster name, touched by a scheduled task every minute."""

    name = models.CharField(max_length=100, unique=True)
    beat_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} @ {self.beat_at:%Y-%m-%d %H:%M:%S}"


class ModeratorView(models.Model):
    """One moderator's look at one user's content in the admin (who, whose, what, when).

    Written by ``ops.audit.record_view`` for every admin page of a model that has an owner
    (lists and single rows). It holds no content: the model, the row id and the page path,
    never names or text. ``subject`` is the user whose content it was (null for a list of
    several users' rows, or once that account is deleted).
    """

    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    subject = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    model = models.CharField(max_length=100)  # "chat.message"
    object_id = models.CharField(max_length=64, blank=True)  # blank: a list page
    path = models.CharField(max_length=300)
    viewed_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-viewed_at", "-id"]
        permissions = [
            (
                "read_transcripts",
                "Can read users' chat transcripts in the admin (every view is logged)",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.moderator_id} viewed {self.model} {self.object_id or '(list)'}"
