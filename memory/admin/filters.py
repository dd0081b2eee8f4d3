"""The console's list filters: review status, node kind, LLM score band, job state, edge
state. The owner filter every app uses is ``lib.admin.OwnerFilter``."""

from __future__ import annotations

from django.contrib import admin
from django.utils import timezone

from memory.models import ExtractionStatus, MergeStatus, NodeKind
from memory.models.merges import InboxAnswer
from memory.services.queues import stale_before


class ReviewStatusFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [
            ("review", "Needs review (flagged or held)"),
            (MergeStatus.FLAGGED, "Flagged"),
            (MergeStatus.HELD, "Held"),
            ("escalated", "Held: the owner was not sure"),
            ("unanswered", "Held: the owner did not answer"),
            (MergeStatus.MERGED, "Merged"),
            (MergeStatus.KEPT_APART, "Kept apart"),
            (MergeStatus.REVERTED, "Reverted"),
        ]

    def queryset(self, request, queryset):
        value = self.value()
        if value == "review":
            return queryset.filter(status__in=[MergeStatus.FLAGGED, MergeStatus.HELD])
        if value == "escalated":
            return queryset.filter(status=MergeStatus.HELD, answer=InboxAnswer.UNSURE)
        if value == "unanswered":
            return queryset.filter(status=MergeStatus.HELD, answer="")
        if value in MergeStatus.values:
            return queryset.filter(status=value)
        return queryset


class KindFilter(admin.SimpleListFilter):
    title = "kind"
    parameter_name = "kind"

    def lookups(self, request, model_admin):
        return NodeKind.choices

    def queryset(self, request, queryset):
        if self.value() in NodeKind.values:
            return queryset.filter(kind=self.value())
        return queryset


class _ConditionFilter(admin.SimpleListFilter):
    """A list filter whose every choice is one ``filter(**conditions)``: ``options`` holds
    ``(value, label, conditions)``; an unknown value filters nothing. (Not ``choices``: that
    is the method Django renders the filter with.)"""

    options: tuple[tuple[str, str, dict], ...] = ()

    def lookups(self, request, model_admin):
        return [(value, label) for value, label, _ in self.options]

    def queryset(self, request, queryset):
        for value, _, conditions in self.options:
            if self.value() == value:
                return queryset.filter(**conditions)
        return queryset


class ScoreBandFilter(_ConditionFilter):
    """The LLM bands of SPEC §5.6: < 0.70 keep apart, 0.70–0.90 flag, > 0.90 merge."""

    title = "score band"
    parameter_name = "score_band"
    options = (
        ("low", "< 0.70", {"score__lt": 0.7}),
        ("mid", "0.70 – 0.90", {"score__gte": 0.7, "score__lte": 0.9}),
        ("high", "> 0.90", {"score__gt": 0.9}),
        ("none", "no score", {"score__isnull": True}),
    )


class JobStateFilter(admin.SimpleListFilter):
    """Extraction status, plus "stuck": running longer than the task timeout (its worker
    died; ``retry_extraction`` takes it)."""

    title = "job status"
    parameter_name = "job"

    def lookups(self, request, model_admin):
        return [
            ("attention", "Needs attention (failed or stuck)"),
            (ExtractionStatus.FAILED, "Failed"),
            ("stuck", "Stuck (running past the timeout)"),
            (ExtractionStatus.RUNNING, "Running"),
            (ExtractionStatus.PENDING, "Pending"),
            (ExtractionStatus.DONE, "Done"),
            (ExtractionStatus.SKIPPED, "Skipped"),
        ]

    def queryset(self, request, queryset):
        value = self.value()
        stuck = {
            "status": ExtractionStatus.RUNNING,
            "job_started_at__lt": stale_before(timezone.now()),
        }
        if value == "stuck":
            return queryset.filter(**stuck)
        if value == "attention":
            from django.db.models import Q

            return queryset.filter(Q(status=ExtractionStatus.FAILED) | Q(**stuck))
        if value in ExtractionStatus.values:
            return queryset.filter(status=value)
        return queryset


class LiveEdgeFilter(_ConditionFilter):
    title = "state"
    parameter_name = "state"
    options = (
        ("live", "Live", {"superseded_by__isnull": True, "dormant": False}),
        ("dormant", "Dormant", {"superseded_by__isnull": True, "dormant": True}),
        ("superseded", "Superseded", {"superseded_by__isnull": False}),
    )
