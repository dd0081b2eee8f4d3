from django.conf import settings
from django.db import models

from lib.owned import OwnedQuerySet
from memory.models.common import optional_link


class MergeStatus(models.TextChoices):
    MERGED = "merged"
    FLAGGED = "merged-flagged"
    HELD = "held"
    KEPT_APART = "kept-apart"
    REVERTED = "reverted"


class InboxAnswer(models.TextChoices):
    """The owner's answer to a held decision in their inbox (``memory.services.inbox``)."""

    SAME = "same"
    DIFFERENT = "different"
    UNSURE = "unsure"


class MergeDecision(models.Model):
    """A non-trivial merge decision and everything needed to revert it (SPEC §4, §5.6).

    * ``proposed``: the entity as extracted (name, kind, aliases, properties, hint).
    * ``candidates``: ``[{"id", "name", "score"}]`` considered.
    * ``kept``: the surviving node (``None`` while held or kept apart).
    * ``absorbed``: for a committed merge of two stored nodes, the absorbed node's full row.
    * ``moved``: what the merge changed — aliases and properties added to ``kept``, edges
      remapped (id, field, old node), edges dropped as self-relations (full rows), episodes
      and keys moved — so ``revert_merge`` can split back exactly that.
    * ``log``: ``[{"at", "by", "action", "why"}]`` for every action taken on the decision.
    * ``answer`` / ``answered_at``: the owner's answer to a held decision in their inbox
      ("same", "different" or "unsure" — the last escalates it to moderators), empty while
      unanswered or after an undo. A held decision is shown to moderators only once it is
      escalated or ``MERGE_INBOX_STAFF_AFTER_DAYS`` old (``memory.services.inbox``).
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="merge_decisions"
    )
    status = models.CharField(max_length=16, choices=MergeStatus.choices)
    kind = models.CharField(max_length=16)
    # The rule that decided, with what picked or held it ("first-name-by-context-role-differs").
    rule = models.CharField(max_length=64)
    reason = models.TextField(blank=True)
    score = models.FloatField(null=True, blank=True)
    proposed = models.JSONField(default=dict)
    candidates = models.JSONField(default=list)
    kept = optional_link("memory.Node", "merge_decisions")
    absorbed = models.JSONField(default=dict, blank=True)
    moved = models.JSONField(default=dict, blank=True)
    episode = optional_link("memory.Episode", "merge_decisions")
    log = models.JSONField(default=list, blank=True)
    decided_by = optional_link(settings.AUTH_USER_MODEL, "+")
    created_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    answer = models.CharField(max_length=16, choices=InboxAnswer.choices, blank=True, default="")
    answered_at = models.DateTimeField(null=True, blank=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["user", "status"], name="merge_user_status")]
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.proposed.get('name', '?')} ({self.status})"
