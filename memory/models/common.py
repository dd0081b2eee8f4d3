"""Column and table shapes several memory models share, written once: an optional link that
outlives its target, the "when it happened" text, the cosine HNSW index over a 384-d vector,
and the abstract node/edge-in-an-episode membership row."""

from django.conf import settings
from django.db import models
from pgvector.django import HnswIndex

from lib.owned import OwnedQuerySet


def optional_link(to: str, related_name: str) -> models.ForeignKey:
    """A nullable foreign key cleared (``SET_NULL``) when its target is deleted."""
    return models.ForeignKey(
        to, null=True, blank=True, on_delete=models.SET_NULL, related_name=related_name
    )


def occurred_field(help_text: str) -> models.CharField:
    """When something happened, as the extractor dated it (``OCCURRED_PATTERN``; "" unknown)."""
    return models.CharField(
        max_length=21, blank=True, default="", db_default="", help_text=help_text
    )


def cosine_hnsw(name: str, field: str) -> HnswIndex:
    """The HNSW index pgvector searches ``field`` by cosine distance with (m 16, ef 64)."""
    return HnswIndex(
        name=name, fields=[field], m=16, ef_construction=64, opclasses=["vector_cosine_ops"]
    )


class EpisodeMembership(models.Model):
    """A node or an edge (``member``: the subclass's foreign key to it) was seen in an
    episode; one row per pair. Constraint and index names start ``{member}_episode_``, and
    both foreign keys' reverse names are ``{member}_episodes``."""

    member = ""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")

    objects = OwnedQuerySet.as_manager()

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self.member} {getattr(self, f'{self.member}_id')} in episode {self.episode_id}"

    @staticmethod
    def episode_link(member: str) -> models.ForeignKey:
        return models.ForeignKey(
            "memory.Episode", on_delete=models.CASCADE, related_name=f"{member}_episodes"
        )

    @staticmethod
    def constraints_for(member: str) -> list:
        return [models.UniqueConstraint(fields=[member, "episode"], name=f"{member}_episode_once")]

    @staticmethod
    def indexes_for(member: str) -> list:
        return [models.Index(fields=["user", "episode"], name=f"{member}_episode_user_episode")]
