from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models

from lib.owned import OwnedQuerySet


class Traversal(models.Model):
    """The edges one Read of a conversation crossed (one row per turn); reinforced at that
    conversation's Write, each edge once per conversation (SPEC §3, §5.4).

    ``edge_ids`` are plain ids, not foreign keys: a Read on a large graph crosses thousands of
    edges and one row per edge made the log the costliest write of a turn. Edge ids are never
    reused, so an id whose edge was since deleted (forgotten, merged away) matches nothing and
    the Write skips it; a merge revert restores the edge under the same id.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_traversals"
    )
    conversation = models.ForeignKey(
        "chat.Conversation", on_delete=models.CASCADE, related_name="traversals"
    )
    edge_ids = ArrayField(models.BigIntegerField(), default=list, blank=True)
    crossed_at = models.DateTimeField()
    applied_at = models.DateTimeField(null=True, blank=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["user", "conversation"], name="traversal_user_conv")]

    def __str__(self) -> str:
        return f"{len(self.edge_ids)} edges crossed in conversation {self.conversation_id}"
