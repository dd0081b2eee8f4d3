from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q

from lib.owned import OwnedQuerySet


class ExtractionStatus(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"  # incognito conversations and imported episodes


class Episode(models.Model):
    """Everything learned in one conversation, and the state of its extraction job."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_episodes"
    )
    conversation = models.OneToOneField(
        "chat.Conversation",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="episode",
    )
    summary = models.TextField(blank=True)
    importance = models.FloatField(default=0.5)
    tags = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(
        max_length=16, choices=ExtractionStatus.choices, default=ExtractionStatus.DONE
    )
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    extractor = models.CharField(max_length=32, blank=True)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    job_started_at = models.DateTimeField(null=True, blank=True)
    job_finished_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()

    objects = OwnedQuerySet.as_manager()

    CONTENT_FIELDS = ("summary", "importance", "tags", "started_at", "ended_at")
    """What an episode records of its conversation, beside the extraction job's state: named
    alike in the table and the graph file; the bulk writers (``memory.services.graph_io``'s
    import, ``bench.synthetic``) fill these columns."""

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(importance__gte=0) & Q(importance__lte=1), name="episode_importance_0_1"
            ),
        ]
        indexes = [models.Index(fields=["user", "status"], name="episode_user_status")]

    def __str__(self) -> str:
        return f"Episode {self.pk} ({self.status})"
