"""The moderator's console (Django admin, staff only): the merge review queue, the review page
and its actions, the extraction job monitor, and read-only browsing of every user's graph.

Rows are never edited here: every change goes through a service that takes the user's
advisory lock and records who, when, what and why — ``memory.services.merge`` (confirm,
revert, merge a held entity, keep apart) and ``memory.services.jobs`` (retry). A service's
refusal ("revert the later merge first") is shown as an admin error message.

Permissions: viewing needs the model's ``view`` permission (superusers have all); acting on
merge decisions needs ``memory.change_mergedecision`` and retrying jobs
``memory.change_episode`` — "change" here means "may act through the services", since no
form in this console saves a row. Embeddings (MemoryKey) are not registered at all.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import quote, unquote
from django.contrib.auth import get_permission_codename
from django.core.exceptions import PermissionDenied
from django.db import DatabaseError
from django.db.models import DurationField, ExpressionWrapper, F
from django.http import Http404, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.text import Truncator

from memory.admin_views import index_summary, neighbourhoods, review_context, stale_before
from memory.core.decay import strength_at
from memory.models import (
    Correction,
    Edge,
    Episode,
    ExtractionStatus,
    MergeDecision,
    MergeStatus,
    Node,
    NodeKind,
    Snippet,
)
from memory.models.merges import InboxAnswer
from memory.services import inbox as inbox_service
from memory.services import jobs as job_service
from memory.services import merge as merge_service
from ops.audit import AuditedAdminMixin

logger = logging.getLogger(__name__)

MAX_SKIP_REASONS = 10


# --- shared pieces ----------------------------------------------------------------------------


class ReadOnlyAdmin(AuditedAdminMixin, admin.ModelAdmin):
    """Browse and search only: edits to memory and chat rows go through services. Every
    page of a user's rows is logged (``ops.audit``: who looked at whose content, when)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


def pretty_json(value: Any):
    """JSON as an indented ``<pre>`` block for read-only pages."""
    return format_html(
        "<pre>{}</pre>",
        json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str),
    )


def admin_link(obj, label: str | None = None):
    """A link to ``obj``'s admin page, or its label when there is none."""
    if obj is None:
        return "—"
    opts = obj._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[quote(obj.pk)])
    return format_html('<a href="{}">{}</a>', url, label or str(obj))


def _short(text: str, chars: int = 80) -> str:
    return Truncator(" ".join((text or "").split())).chars(chars)


def _has_perm(request, opts, action: str) -> bool:
    return request.user.has_perm(f"{opts.app_label}.{get_permission_codename(action, opts)}")


def _report(
    model_admin: admin.ModelAdmin, request, *, verb: str, done: int, skipped: list[str]
) -> None:
    """The summary of a bulk action: counts, then the first reasons for skipping."""
    total = done + len(skipped)
    level = messages.SUCCESS if not skipped else messages.WARNING
    model_admin.message_user(
        request, f"{verb} {done} of {total} selected; skipped {len(skipped)}.", level
    )
    if skipped:
        more = len(skipped) - MAX_SKIP_REASONS
        reasons = "; ".join(skipped[:MAX_SKIP_REASONS]) + (f"; and {more} more" if more > 0 else "")
        model_admin.message_user(request, f"Skipped: {reasons}", messages.WARNING)


# --- list filters -----------------------------------------------------------------------------


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


class ScoreBandFilter(admin.SimpleListFilter):
    """The LLM bands of SPEC §5.6: < 0.70 keep apart, 0.70–0.90 flag, > 0.90 merge."""

    title = "score band"
    parameter_name = "score_band"

    def lookups(self, request, model_admin):
        return [("low", "< 0.70"), ("mid", "0.70 – 0.90"), ("high", "> 0.90"), ("none", "no score")]

    def queryset(self, request, queryset):
        return {
            "low": lambda: queryset.filter(score__lt=0.7),
            "mid": lambda: queryset.filter(score__gte=0.7, score__lte=0.9),
            "high": lambda: queryset.filter(score__gt=0.9),
            "none": lambda: queryset.filter(score__isnull=True),
        }.get(self.value(), lambda: queryset)()


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


class LiveEdgeFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [("live", "Live"), ("dormant", "Dormant"), ("superseded", "Superseded")]

    def queryset(self, request, queryset):
        return {
            "live": lambda: queryset.filter(superseded_by__isnull=True, dormant=False),
            "dormant": lambda: queryset.filter(superseded_by__isnull=True, dormant=True),
            "superseded": lambda: queryset.filter(superseded_by__isnull=False),
        }.get(self.value(), lambda: queryset)()


class OwnerFilter(admin.RelatedOnlyFieldListFilter):
    """The users who own rows here. Always shown and applied: Django drops a filter with
    fewer than two choices together with its URL parameter, so a link filtered on a user
    who owns nothing here would silently list everyone's rows."""

    def has_output(self):
        return True


USER_FILTER = ("user", OwnerFilter)


# --- the merge review queue and review page ---------------------------------------------------


@admin.register(MergeDecision)
class MergeDecisionAdmin(ReadOnlyAdmin):
    """The review queue (changelist) and the review page (change view, read-only, with the
    side-by-side context and the review buttons)."""

    list_display = (
        "proposed_name",
        "user",
        "kind",
        "status",
        "answer",
        "rule",
        "score",
        "kept_name",
        "created_at",
    )
    list_display_links = ("proposed_name",)
    list_filter = (
        USER_FILTER,
        ReviewStatusFilter,
        KindFilter,
        ScoreBandFilter,
        ("created_at", admin.DateFieldListFilter),
    )
    search_fields = ("proposed__name", "kept__name", "user__username")
    list_select_related = ("user", "kept")
    ordering = ("-created_at", "-id")
    actions = ["revert_merges", "confirm_merges", "keep_apart"]
    change_form_template = "admin/memory/mergedecision/change_form.html"
    fieldsets = (
        (
            "Decision",
            {
                "fields": (
                    "user",
                    "status",
                    "kind",
                    "rule",
                    "score",
                    "reason",
                    "kept_link",
                    "episode_link",
                    "decided_by",
                    "created_at",
                    "decided_at",
                    "answer",
                    "answered_at",
                )
            },
        ),
        (
            "Recorded for revert",
            {
                "classes": ("collapse",),
                "fields": (
                    "proposed_json",
                    "candidates_json",
                    "moved_json",
                    "absorbed_json",
                    "log_json",
                ),
            },
        ),
    )
    readonly_fields = (
        "user",
        "status",
        "kind",
        "rule",
        "score",
        "reason",
        "kept_link",
        "episode_link",
        "decided_by",
        "created_at",
        "decided_at",
        "answer",
        "answered_at",
        "proposed_json",
        "candidates_json",
        "moved_json",
        "absorbed_json",
        "log_json",
    )

    # columns and read-only fields

    @admin.display(description="proposed name", ordering="proposed__name")
    def proposed_name(self, obj):
        return obj.proposed.get("name") or "?"

    @admin.display(description="into", ordering="kept__name")
    def kept_name(self, obj):
        return obj.kept.name if obj.kept_id else "—"

    @admin.display(description="kept node")
    def kept_link(self, obj):
        return admin_link(obj.kept)

    @admin.display(description="episode")
    def episode_link(self, obj):
        return admin_link(obj.episode)

    @admin.display(description="proposed")
    def proposed_json(self, obj):
        return pretty_json(obj.proposed)

    @admin.display(description="candidates")
    def candidates_json(self, obj):
        return pretty_json(obj.candidates)

    @admin.display(description="moved")
    def moved_json(self, obj):
        return pretty_json(obj.moved)

    @admin.display(description="absorbed")
    def absorbed_json(self, obj):
        return pretty_json(obj.absorbed)

    @admin.display(description="log")
    def log_json(self, obj):
        return pretty_json(obj.log)

    def get_queryset(self, request):
        """Every decision except held ones still waiting for their owner: moderators see a
        held decision once the owner says "not sure" in their inbox or leaves it unanswered
        for ``MERGE_INBOX_STAFF_AFTER_DAYS`` days (``memory.services.inbox``)."""
        return inbox_service.for_staff(super().get_queryset(request), timezone.now())

    # permissions

    def has_review_permission(self, request) -> bool:
        """May act on decisions (through the merge service)."""
        return _has_perm(request, self.opts, "change")

    # the review page

    def get_urls(self):
        name = f"{self.opts.app_label}_{self.opts.model_name}_review"
        return [
            path(
                "<path:object_id>/review/<str:action>/",
                self.admin_site.admin_view(self.review_view),
                name=name,
            ),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        decision = self.get_object(request, unquote(object_id))
        context = dict(extra_context or {})
        if decision is not None and self.has_view_permission(request, decision):
            context["review"] = review_context(decision)
            context["can_review"] = self.has_review_permission(request)
        return super().change_view(request, object_id, form_url, extra_context=context)

    REVIEW_ACTIONS = ("confirm", "revert", "merge", "keep_apart")

    def review_view(self, request, object_id, action):
        """POST only: one review action on one decision, through the merge service."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_review_permission(request):
            raise PermissionDenied
        if action not in self.REVIEW_ACTIONS:
            raise Http404("unknown review action")
        decision = self.get_object(request, unquote(object_id))
        if decision is None:
            raise Http404("merge decision not found")
        change_url = reverse(
            f"admin:{self.opts.app_label}_{self.opts.model_name}_change",
            args=[quote(decision.pk)],
            current_app=self.admin_site.name,
        )
        try:
            done = self._review(request, decision, action)
        except ValueError as exc:
            self.message_user(request, f"Nothing changed: {exc}", messages.ERROR)
        except DatabaseError as exc:
            logger.exception("review action %s on decision %s failed", action, decision.pk)
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            self.message_user(
                request, f"Nothing changed: the database refused it ({first})", messages.ERROR
            )
        else:
            self.log_change(request, decision, done)
            self.message_user(request, done, messages.SUCCESS)
        return HttpResponseRedirect(change_url)

    def _review(self, request, decision: MergeDecision, action: str) -> str:
        """Run ``action``; return what was done, for the message and the admin history.
        Raises ``ValueError`` with the service's reason when it refuses."""
        user, by, now = decision.user, request.user, timezone.now()
        name = decision.proposed.get("name") or "?"
        if action == "confirm":
            merge_service.confirm(user=user, decision=decision, by=by, now=now)
            return f"Confirmed the merge of {name!r}."
        if action == "revert":
            merge_service.revert_merge(user=user, decision=decision, by=by, now=now)
            return f"Reverted the merge of {name!r}: what it moved is split back out."
        if action == "merge":
            try:
                into = int(request.POST.get("into", ""))
            except ValueError:
                raise ValueError("choose the node to merge into") from None
            merge_service.merge_held(
                user=user, decision=decision, into_node_id=into, by=by, now=now
            )
            decision.refresh_from_db(fields=["kept"])
            into_name = decision.kept.name if decision.kept_id else f"node #{into}"
            return f"Merged the held entity {name!r} into {into_name!r}."
        why = " ".join(request.POST.get("why", "").split())
        if not why:
            raise ValueError("say why the entities are different (the reason is logged)")
        merge_service.keep_apart(user=user, decision=decision, by=by, why=why[:500], now=now)
        return f"Kept {name!r} apart: {why[:500]}"

    # bulk actions

    def _bulk(
        self, request, queryset, *, verb: str, run: Callable[[MergeDecision, Any], None]
    ) -> None:
        """Each selected decision through the service, newest first (a later merge must be
        reverted before an earlier one it depends on), then one summary message."""
        now = timezone.now()
        done, skipped = 0, []
        for decision in queryset.select_related("user").order_by("-created_at", "-id"):
            label = f"#{decision.pk} {decision.proposed.get('name') or '?'}"
            try:
                run(decision, now)
            except ValueError as exc:
                skipped.append(f"{label}: {exc}")
            except DatabaseError as exc:
                logger.exception("bulk %s of decision %s failed", verb, decision.pk)
                skipped.append(f"{label}: the database refused it ({type(exc).__name__})")
            else:
                done += 1
                self.log_change(request, decision, f"{verb} (bulk action)")
        _report(self, request, verb=verb, done=done, skipped=skipped)

    @admin.action(
        description="Revert selected merges (split back what they moved)", permissions=["review"]
    )
    def revert_merges(self, request, queryset):
        self._bulk(
            request,
            queryset,
            verb="Reverted",
            run=lambda d, now: merge_service.revert_merge(
                user=d.user, decision=d, by=request.user, now=now
            ),
        )

    @admin.action(description="Confirm selected flagged merges", permissions=["review"])
    def confirm_merges(self, request, queryset):
        self._bulk(
            request,
            queryset,
            verb="Confirmed",
            run=lambda d, now: merge_service.confirm(
                user=d.user, decision=d, by=request.user, now=now
            ),
        )

    @admin.action(description="Keep selected apart (held or flagged)…", permissions=["review"])
    def keep_apart(self, request, queryset):
        """Asks for the reason on an intermediate page, then keeps each decision apart."""
        why = " ".join(request.POST.get("why", "").split())[:500]
        if request.POST.get("post") == "yes":
            if why:
                self._bulk(
                    request,
                    queryset,
                    verb="Kept apart",
                    run=lambda d, now: merge_service.keep_apart(
                        user=d.user, decision=d, by=request.user, why=why, now=now
                    ),
                )
                return None
            self.message_user(
                request,
                "Say why the entities are different (the reason is logged).",
                messages.ERROR,
            )
        decisions = list(queryset.select_related("user").order_by("-created_at", "-id"))
        context = {
            **self.admin_site.each_context(request),
            "title": "Keep apart: why are these different?",
            "opts": self.opts,
            "decisions": decisions,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "why": why,
            "media": self.media,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "admin/memory/mergedecision/keep_apart.html", context)


# --- the extraction job monitor ---------------------------------------------------------------


@admin.register(Episode)
class EpisodeAdmin(ReadOnlyAdmin):
    """Extraction jobs: one episode per ended conversation, with its job state."""

    list_display = (
        "id",
        "user",
        "conversation_link",
        "status",
        "attempts",
        "duration",
        "tokens",
        "extractor",
        "error",
        "created_at",
    )
    list_filter = (
        JobStateFilter,
        "extractor",
        USER_FILTER,
        ("created_at", admin.DateFieldListFilter),
    )
    search_fields = ("summary", "last_error", "user__username", "conversation__title")
    list_select_related = ("user", "conversation")
    ordering = ("-created_at", "-id")
    actions = ["retry_extraction"]
    change_form_template = "admin/memory/episode/change_form.html"
    fieldsets = (
        (
            "Job",
            {
                "fields": (
                    "user",
                    "conversation_link",
                    "status",
                    "attempts",
                    "extractor",
                    "job_started_at",
                    "job_finished_at",
                    "duration",
                    "input_tokens",
                    "output_tokens",
                    "last_error",
                    "queue_records",
                )
            },
        ),
        (
            "Episode",
            {"fields": ("summary", "importance", "tags", "started_at", "ended_at", "created_at")},
        ),
    )
    readonly_fields = (
        "user",
        "conversation_link",
        "status",
        "attempts",
        "extractor",
        "job_started_at",
        "job_finished_at",
        "duration",
        "input_tokens",
        "output_tokens",
        "last_error",
        "queue_records",
        "summary",
        "importance",
        "tags",
        "started_at",
        "ended_at",
        "created_at",
    )

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                job_duration=ExpressionWrapper(
                    F("job_finished_at") - F("job_started_at"), output_field=DurationField()
                )
            )
        )

    @admin.display(description="conversation", ordering="conversation__title")
    def conversation_link(self, obj):
        return admin_link(obj.conversation)

    @admin.display(description="duration", ordering="job_duration")
    def duration(self, obj):
        value = getattr(obj, "job_duration", None)
        if value is None and obj.job_started_at and obj.job_finished_at:
            value = obj.job_finished_at - obj.job_started_at
        return f"{value.total_seconds():.1f} s" if value is not None else "—"

    @admin.display(description="tokens (in / out)")
    def tokens(self, obj):
        return f"{obj.input_tokens} / {obj.output_tokens}"

    @admin.display(description="last error")
    def error(self, obj):
        return _short(obj.last_error, 80) or "—"

    @admin.display(description="queue records")
    def queue_records(self, obj):
        """django-q2's own records of this episode's task (named ``extract-<id>``)."""
        name = f"extract-{obj.pk}"
        links = [
            (reverse(f"admin:django_q_{model}_changelist") + f"?q={name}", label)
            for model, label in (("failure", "failures"), ("success", "successes"))
        ]
        return format_html_join(" · ", '<a href="{}">{}</a>', links)

    def has_retry_permission(self, request) -> bool:
        return _has_perm(request, self.opts, "change")

    def get_urls(self):
        name = f"{self.opts.app_label}_{self.opts.model_name}_retry"
        return [
            path("<path:object_id>/retry/", self.admin_site.admin_view(self.retry_view), name=name),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        context = {**(extra_context or {}), "can_retry": self.has_retry_permission(request)}
        return super().change_view(request, object_id, form_url, extra_context=context)

    def _retry(self, request, episode: Episode, *, force: bool = False) -> None:
        job_service.retry_extraction(
            user=episode.user, episode=episode, now=timezone.now(), force=force
        )
        self.log_change(request, episode, "Extraction job retried")

    def retry_view(self, request, object_id):
        """POST only: re-queue one episode's extraction (failed or stuck)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_retry_permission(request):
            raise PermissionDenied
        episode = self.get_object(request, unquote(object_id))
        if episode is None:
            raise Http404("episode not found")
        try:
            self._retry(request, episode)
        except ValueError as exc:
            self.message_user(request, f"Not retried: {exc}", messages.ERROR)
        else:
            self.message_user(
                request, f"Episode {episode.pk} is queued for extraction again.", messages.SUCCESS
            )
        return HttpResponseRedirect(
            reverse("admin:memory_episode_change", args=[quote(episode.pk)])
        )

    @admin.action(
        description="Retry extraction of selected failed or stuck jobs", permissions=["retry"]
    )
    def retry_extraction(self, request, queryset):
        done, skipped = 0, []
        for episode in queryset.select_related("user").order_by("id"):
            try:
                self._retry(request, episode)
            except ValueError as exc:
                skipped.append(f"#{episode.pk}: {exc}")
            else:
                done += 1
        _report(self, request, verb="Queued again", done=done, skipped=skipped)


# --- the graph, read-only ---------------------------------------------------------------------


@admin.register(Node)
class NodeAdmin(ReadOnlyAdmin):
    list_display = (
        "name",
        "kind",
        "user",
        "alias_list",
        "confidence",
        "provisional",
        "is_self",
        "updated_at",
    )
    list_filter = (USER_FILTER, "kind", "provisional", "is_self")
    search_fields = ("name", "normalised_name", "user__username")
    list_select_related = ("user",)
    ordering = ("user", "kind", "normalised_name")
    fields = (
        "user",
        "kind",
        "name",
        "normalised_name",
        "aliases",
        "properties_json",
        "confidence",
        "provisional",
        "is_self",
        "created_at",
        "updated_at",
        "related",
        "neighbourhood",
    )
    readonly_fields = fields

    @admin.display(description="aliases")
    def alias_list(self, obj):
        return _short(", ".join(obj.aliases), 60) or "—"

    @admin.display(description="properties")
    def properties_json(self, obj):
        return pretty_json(obj.properties)

    @admin.display(description="related")
    def related(self, obj):
        edges = reverse("admin:memory_edge_changelist")
        decisions = reverse("admin:memory_mergedecision_changelist")
        return format_html_join(
            " · ",
            '<a href="{}">{}</a>',
            [
                (f"{edges}?source__id__exact={obj.pk}", "outgoing edges"),
                (f"{edges}?target__id__exact={obj.pk}", "incoming edges"),
                (f"{decisions}?kept__id__exact={obj.pk}", "merge decisions that kept it"),
            ],
        )

    @admin.display(description="2-hop neighbourhood")
    def neighbourhood(self, obj):
        lines, truncated = neighbourhoods(obj.user_id, [obj.pk])[obj.pk]
        if not lines:
            return "—"
        items = format_html_join(
            "",
            "<li>{}{}{}</li>",
            [
                (
                    e.line,
                    " (2 hops)" if e.hop == 2 else "",
                    format_html(": “{}”", e.snippet) if e.snippet else "",
                )
                for e in lines
            ],
        )
        return format_html("<ul>{}</ul>{}", items, "…" if truncated else "")


@admin.register(Edge)
class EdgeAdmin(ReadOnlyAdmin):
    list_display = (
        "claim",
        "user",
        "strength_at_touch",
        "current_strength",
        "stability",
        "cardinality",
        "dormant",
        "superseded",
        "last_touched_at",
    )
    list_filter = (USER_FILTER, LiveEdgeFilter, "stability", "cardinality")
    search_fields = ("relation", "source__name", "target__name", "user__username")
    list_select_related = ("user", "source", "target")
    ordering = ("-last_touched_at", "-id")
    fields = (
        "user",
        "source",
        "relation",
        "target",
        "strength_at_touch",
        "current_strength",
        "last_touched_at",
        "confidence",
        "stability",
        "cardinality",
        "expires_at",
        "dormant",
        "superseded_by",
        "snippet_text",
        "created_at",
    )
    readonly_fields = fields

    @admin.display(description="edge", ordering="relation")
    def claim(self, obj):
        return f"{obj.source.name} -[{obj.relation}]-> {obj.target.name}"

    @admin.display(description="strength now")
    def current_strength(self, obj):
        return round(
            strength_at(obj.strength_at_touch, obj.stability, obj.last_touched_at, timezone.now()),
            1,
        )

    @admin.display(description="superseded", boolean=True)
    def superseded(self, obj):
        return obj.superseded_by_id is not None

    @admin.display(description="current snippet")
    def snippet_text(self, obj):
        return obj.snippet.text if obj.snippet_id else "—"


@admin.register(Snippet)
class SnippetAdmin(ReadOnlyAdmin):
    list_display = ("short_text", "edge_claim", "user", "confidence", "episode", "created_at")
    list_filter = (USER_FILTER,)
    search_fields = ("text", "evidence", "user__username")
    list_select_related = ("user", "edge__source", "edge__target", "episode")
    ordering = ("-created_at", "-id")
    fields = (
        "user",
        "edge_link",
        "text",
        "evidence",
        "confidence",
        "episode",
        "message",
        "created_at",
    )
    readonly_fields = fields

    @admin.display(description="text")
    def short_text(self, obj):
        return _short(obj.text, 80)

    @admin.display(description="edge")
    def edge_claim(self, obj):
        edge = obj.edge
        return f"{edge.source.name} -[{edge.relation}]-> {edge.target.name}"

    @admin.display(description="edge")
    def edge_link(self, obj):
        return admin_link(obj.edge, self.edge_claim(obj))


@admin.register(Correction)
class CorrectionAdmin(ReadOnlyAdmin):
    """Corrections users made to their own memory (explorer, API), as history."""

    list_display = ("action", "target_type", "target_id", "user", "created_at")
    list_filter = (USER_FILTER, "action", "target_type")
    search_fields = ("user__username",)
    list_select_related = ("user",)
    fields = (
        "user",
        "action",
        "target_type",
        "target_id",
        "before_json",
        "after_json",
        "created_at",
    )
    readonly_fields = fields

    @admin.display(description="before")
    def before_json(self, obj):
        return pretty_json(obj.before)

    @admin.display(description="after")
    def after_json(self, obj):
        return pretty_json(obj.after)


# --- the index: review and job counts ---------------------------------------------------------


def _with_queue_counts(index):
    """The admin index with the held/flagged merge counts and failed/stuck job counts
    (``templates/admin/index.html``); the default site stays, so django-q2's and the other
    apps' registrations are untouched."""

    @functools.wraps(index)
    def view(request, extra_context=None):
        return index(request, extra_context={**index_summary(request), **(extra_context or {})})

    view.with_queue_counts = True
    return view


if not getattr(admin.site.index, "with_queue_counts", False):
    admin.site.index = _with_queue_counts(admin.site.index)
