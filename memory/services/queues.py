"""What waits for a moderator, as the admin index counts it: merges awaiting review (held,
flagged) and extraction jobs needing attention (failed, stuck)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, Q

from memory.models import Episode, ExtractionStatus, MergeDecision, MergeStatus

__all__ = ["index_summary", "stale_before"]


def stale_before(now: datetime) -> datetime:
    """A ``running`` episode started before this is stuck (its worker died), as in
    ``memory.services.jobs``: older than the django-q2 task timeout."""
    return now - timedelta(seconds=int(settings.Q_CLUSTER.get("timeout") or 300))


def index_summary(request) -> dict[str, Any]:
    """Counts for the admin index: merges awaiting review (held, flagged) and extraction
    jobs needing attention (failed, stuck). One query per model the user may view."""
    from django.utils import timezone

    out: dict[str, Any] = {}
    user = request.user
    if user.has_perm("memory.view_mergedecision"):
        from memory.services.inbox import for_staff

        out["review_queue"] = for_staff(MergeDecision.objects.all(), timezone.now()).aggregate(
            held=Count("pk", filter=Q(status=MergeStatus.HELD)),
            flagged=Count("pk", filter=Q(status=MergeStatus.FLAGGED)),
        )
    if user.has_perm("memory.view_episode"):
        out["job_queue"] = Episode.objects.aggregate(
            failed=Count("pk", filter=Q(status=ExtractionStatus.FAILED)),
            stuck=Count(
                "pk",
                filter=Q(
                    status=ExtractionStatus.RUNNING, job_started_at__lt=stale_before(timezone.now())
                ),
            ),
            pending=Count("pk", filter=Q(status=ExtractionStatus.PENDING)),
        )
    return out
