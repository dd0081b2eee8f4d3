from django.conf import settings
from django.db import models

from memory.models.owned import OwnedQuerySet


class Traversal(models.Model):
    """An edge crossed by a Read in a conversation; reinforced once at that conversation's
    Write (SPEC §3, §5.4)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="memory_traversals")
    conversation = models.ForeignKey("chat.Conversation", on_delete=models.CASCADE,
                                     related_name="traversals")
    edge = models.ForeignKey("memory.Edge", on_delete=models.CASCADE, related_name="traversals")
    crossed_at = models.DateTimeField()
    applied_at = models.DateTimeField(null=True, blank=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["conversation", "edge"],
                                               name="traversal_once_per_conversation")]
        indexes = [models.Index(fields=["user", "conversation"], name="traversal_user_conv")]

    def __str__(self) -> str:
        return f"edge {self.edge_id} crossed in conversation {self.conversation_id}"
