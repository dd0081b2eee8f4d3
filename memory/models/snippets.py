from django.conf import settings
from django.db import models

from lib.owned import OwnedQuerySet
from memory.models.common import occurred_field, optional_link


class Snippet(models.Model):
    """The user's own words, verbatim, that justify an edge (SPEC §4).

    Every sighting of an edge keeps its snippet; ``Edge.snippet`` points at the current one
    (refreshed only by a higher-confidence sighting, SPEC §5.4).
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_snippets"
    )
    edge = models.ForeignKey("memory.Edge", on_delete=models.CASCADE, related_name="snippets")
    text = models.TextField()
    evidence = models.CharField(max_length=500, blank=True)
    confidence = models.FloatField(default=0.5)
    episode = optional_link("memory.Episode", "snippets")
    message = optional_link("chat.Message", "snippets")
    occurred = occurred_field("when what it says happened (Edge.occurred's format)")
    created_at = models.DateTimeField()

    objects = OwnedQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["user", "edge"], name="snippet_user_edge")]

    def __str__(self) -> str:
        return self.text[:60]
