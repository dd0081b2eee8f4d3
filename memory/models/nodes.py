from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q

from lib.owned import OwnedQuerySet
from memory.models.common import EpisodeMembership


class NodeKind(models.TextChoices):
    PERSON = "PERSON"
    ORG = "ORG"
    PLACE = "PLACE"
    EVENT = "EVENT"
    THING = "THING"
    TOPIC = "TOPIC"
    PREFERENCE = "PREFERENCE"
    OTHER = "OTHER"


class Node(models.Model):
    """A referent the user talks about. Nodes never decay (SPEC §4).

    ``normalised_name`` is ``memory.core.merge_rules.normalise_name(name)``, kept by the
    services; it backs the uniqueness of (user, kind, name) and exact-match lookups.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_nodes"
    )
    kind = models.CharField(max_length=16, choices=NodeKind.choices)
    name = models.CharField(max_length=200)
    normalised_name = models.CharField(max_length=200)
    aliases = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    properties = models.JSONField(default=dict, blank=True)
    confidence = models.FloatField(default=0.5)
    provisional = models.BooleanField(default=False)
    is_self = models.BooleanField(default=False)
    episodes = models.ManyToManyField(
        "memory.Episode", through="memory.NodeEpisode", related_name="nodes", blank=True
    )
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    objects = OwnedQuerySet.as_manager()

    CONTENT_FIELDS = (
        "kind",
        "name",
        "normalised_name",
        "aliases",
        "properties",
        "confidence",
        "provisional",
        "is_self",
    )
    """A node's own values beside its owner, episodes and times, named alike in the table: the
    columns the bulk writers (``memory.services.graph_io``'s import, ``bench.synthetic``) fill."""

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "kind", "normalised_name"], name="node_unique_name_per_kind"
            ),
            models.UniqueConstraint(
                fields=["user"], condition=Q(is_self=True), name="node_one_self_per_user"
            ),
            models.CheckConstraint(
                condition=Q(confidence__gte=0) & Q(confidence__lte=1), name="node_confidence_0_1"
            ),
            models.CheckConstraint(condition=Q(kind__in=NodeKind.values), name="node_kind_valid"),
            models.CheckConstraint(condition=~Q(name=""), name="node_name_not_empty"),
        ]
        indexes = [models.Index(fields=["user", "normalised_name"], name="node_user_name")]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


class NodeEpisode(EpisodeMembership):
    """A node appeared in an episode (the conversation it came from)."""

    member = "node"
    node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="node_episodes")
    episode = EpisodeMembership.episode_link("node")

    class Meta:
        constraints = EpisodeMembership.constraints_for("node")
        indexes = EpisodeMembership.indexes_for("node")
