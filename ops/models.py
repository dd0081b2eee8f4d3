"""Operational state: the worker's heartbeat (read by /healthz)."""

from django.db import models


class WorkerHeartbeat(models.Model):
    """One row per worker cluster name, touched by a scheduled task every minute."""

    name = models.CharField(max_length=100, unique=True)
    beat_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} @ {self.beat_at:%Y-%m-%d %H:%M:%S}"
