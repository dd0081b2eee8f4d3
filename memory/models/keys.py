from django.conf import settings
from django.db import models
from django.db.models import Q
from pgvector.django import VectorField

from lib.owned import OwnedQuerySet
from memory.models.common import cosine_hnsw


class MemoryKey(models.Model):
    """What seeding matches a content word against (SPEC §4, §5.1).

    One row per surface form: a node's name, each alias (``node`` set), and each distinct
    relation label as a phrase (``relation`` set, ``HAS_PARTNER`` → ``has partner``).
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_keys"
    )
    text = models.CharField(max_length=200)
    node = models.ForeignKey(
        "memory.Node", null=True, blank=True, on_delete=models.CASCADE, related_name="keys"
    )
    relation = models.CharField(max_length=64, blank=True)
    embedding = VectorField(dimensions=384)
    model = models.CharField(max_length=100, blank=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "node", "text"],
                condition=Q(node__isnull=False),
                name="key_node_text_once",
            ),
            models.UniqueConstraint(
                fields=["user", "relation"],
                condition=Q(node__isnull=True),
                name="key_relation_once",
            ),
            models.CheckConstraint(
                condition=(Q(node__isnull=False) & Q(relation=""))
                | (Q(node__isnull=True) & ~Q(relation="")),
                name="key_node_xor_relation",
            ),
        ]
        indexes = [
            models.Index(fields=["user"], name="key_user"),
            cosine_hnsw("key_embedding_hnsw", "embedding"),
        ]

    def __str__(self) -> str:
        return self.text
