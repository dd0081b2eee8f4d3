from django.conf import settings
from django.db import models
from django.db.models import F, Q

from lib.owned import OwnedQuerySet
from memory.core.cleaning import OCCURRED_PATTERN
from memory.models.common import EpisodeMembership, occurred_field, optional_link

RELATION_PATTERN = r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+){0,3}$"


class Stability(models.TextChoices):
    IMMUTABLE = "immutable"
    STABLE = "stable"
    MUTABLE = "mutable"
    TIME_BOUND = "time_bound"
    EPHEMERAL = "ephemeral"


class Cardinality(models.TextChoices):
    ONE_TO_ONE = "one_to_one"
    ONE_TO_MANY = "one_to_many"


class EdgeQuerySet(OwnedQuerySet):
    def live(self):
        """Not superseded and not flagged dormant. Read-time strength and expiry are applied
        on top by the Read path (an edge below 2.0 or past expiry is dormant even before the
        daily decay flags it)."""
        return self.filter(superseded_by__isnull=True, dormant=False)


class Edge(models.Model):
    """A memory: ``source -[relation]-> target`` (SPEC §4).

    Strength is stored as ``strength_at_touch`` at ``last_touched_at``; the current strength
    is derived (``memory.core.decay.strength_at``), so decay never loses information.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_edges"
    )
    source = models.ForeignKey("memory.Node", on_delete=models.CASCADE, related_name="out_edges")
    relation = models.CharField(max_length=64)
    target = models.ForeignKey("memory.Node", on_delete=models.CASCADE, related_name="in_edges")
    strength_at_touch = models.FloatField(default=100.0)
    last_touched_at = models.DateTimeField()
    confidence = models.FloatField(default=0.5)
    stability = models.CharField(max_length=16, choices=Stability.choices, default=Stability.STABLE)
    cardinality = models.CharField(
        max_length=16, choices=Cardinality.choices, default=Cardinality.ONE_TO_MANY
    )
    expires_at = models.DateTimeField(null=True, blank=True)
    dormant = models.BooleanField(default=False)
    superseded_by = optional_link("self", "supersedes")
    snippet = optional_link("memory.Snippet", "+")
    episodes = models.ManyToManyField(
        "memory.Episode", through="memory.EdgeEpisode", related_name="edges", blank=True
    )
    occurred = occurred_field("when it happened, from its latest dated sighting")
    created_at = models.DateTimeField()

    objects = EdgeQuerySet.as_manager()

    STATE_FIELDS = (
        "last_touched_at",
        "confidence",
        "stability",
        "cardinality",
        "expires_at",
        "dormant",
    )
    """An edge's state beside its ends, relation and strength: named alike in the table, in
    the graph file (``memory.services.graph_io``) and on the admin page."""

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~Q(source=F("target")), name="edge_no_self_relation"),
            models.UniqueConstraint(
                fields=["user", "source", "relation", "target"],
                condition=Q(superseded_by__isnull=True),
                name="edge_one_live_per_claim",
            ),
            models.CheckConstraint(
                condition=Q(relation__regex=RELATION_PATTERN), name="edge_relation_label"
            ),
            models.CheckConstraint(
                condition=Q(strength_at_touch__gte=0) & Q(strength_at_touch__lte=100),
                name="edge_strength_0_100",
            ),
            models.CheckConstraint(
                condition=Q(confidence__gte=0) & Q(confidence__lte=1), name="edge_confidence_0_1"
            ),
            models.CheckConstraint(
                condition=Q(expires_at__isnull=True)
                | Q(stability__in=[Stability.TIME_BOUND, Stability.EPHEMERAL]),
                name="edge_expiry_only_temporary",
            ),
            models.CheckConstraint(
                condition=Q(stability__in=Stability.values), name="edge_stability_valid"
            ),
            models.CheckConstraint(
                condition=Q(cardinality__in=Cardinality.values), name="edge_cardinality_valid"
            ),
            models.CheckConstraint(
                condition=Q(occurred__regex=OCCURRED_PATTERN), name="edge_occurred_format"
            ),
        ]
        indexes = [
            models.Index(fields=["user", "source"], name="edge_user_source"),
            models.Index(fields=["user", "target"], name="edge_user_target"),
            models.Index(fields=["user", "relation"], name="edge_user_relation"),
        ]

    def __str__(self) -> str:
        return f"{self.source_id} -[{self.relation}]-> {self.target_id}"


class EdgeEpisode(EpisodeMembership):
    """An edge was observed in an episode."""

    member = "edge"
    edge = models.ForeignKey(Edge, on_delete=models.CASCADE, related_name="edge_episodes")
    episode = EpisodeMembership.episode_link("edge")

    class Meta:
        constraints = EpisodeMembership.constraints_for("edge")
        indexes = EpisodeMembership.indexes_for("edge")
