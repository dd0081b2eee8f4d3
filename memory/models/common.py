"""Column and table shapes several memory models share, written once: an optional link that
outlives its target, the "when it happened" text, the cosine HNSW index over a 384-d vector,
and the node/edge-in-an-episode membership models."""

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
    episode; one row per pair. The concrete models come from ``episode_membership``."""

    member = ""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")

    objects = OwnedQuerySet.as_manager()

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self.member} {getattr(self, f'{self.member}_id')} in episode {self.episode_id}"


def episode_membership(model: type[models.Model], doc: str) -> type[EpisodeMembership]:
    """The membership model of ``model`` (``NodeEpisode`` for ``Node``), declared in its module.

    Its foreign keys are ``<member>`` (``node``) and ``episode``, both with the reverse name
    ``<member>_episodes``; one row per pair (``<member>_episode_once``) and an index on
    (user, episode) (``<member>_episode_user_episode``).
    """
    member = model.__name__.lower()
    name = f"{model.__name__}Episode"
    meta = type(
        "Meta",
        (),
        {
            "constraints": [
                models.UniqueConstraint(fields=[member, "episode"], name=f"{member}_episode_once")
            ],
            "indexes": [
                models.Index(fields=["user", "episode"], name=f"{member}_episode_user_episode")
            ],
        },
    )
    return type(
        name,
        (EpisodeMembership,),
        {
            "__module__": model.__module__,
            "__qualname__": name,
            "__doc__": doc,
            "member": member,
            member: models.ForeignKey(
                model, on_delete=models.CASCADE, related_name=f"{member}_episodes"
            ),
            "episode": models.ForeignKey(
                "memory.Episode", on_delete=models.CASCADE, related_name=f"{member}_episodes"
            ),
            "Meta": meta,
        },
    )
