"""The merge review queue (changelist) and the review page with its actions, each a call to
``memory.services.merge`` or ``memory.services.inbox``."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import quote, unquote
from django.core.exceptions import PermissionDenied
from django.db import DatabaseError
from django.http import Http404, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone

from lib.admin import USER_FILTER, ReadOnlyAdmin
from memory.admin.filters import KindFilter, ReviewStatusFilter, ScoreBandFilter
from memory.admin.helpers import _has_perm, _report, fieldset_fields, json_column, link_column
from memory.core.cleaning import normalise_ws
from memory.models import MergeDecision
from memory.services import inbox as inbox_service
from memory.services import merge as merge_service
from memory.services.merge.review_page import review_context

logger = logging.getLogger(__name__)


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
    readonly_fields = fieldset_fields(fieldsets)

    # columns and read-only fields

    @admin.display(description="proposed name", ordering="proposed__name")
    def proposed_name(self, obj):
        return obj.proposed.get("name") or "?"

    @admin.display(description="into", ordering="kept__name")
    def kept_name(self, obj):
        return obj.kept.name if obj.kept_id else "—"

    kept_link = link_column("kept", "kept node")
    episode_link = link_column("episode", "episode")
    proposed_json = json_column("proposed")
    candidates_json = json_column("candidates")
    moved_json = json_column("moved")
    absorbed_json = json_column("absorbed")
    log_json = json_column("log")

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
        why = normalise_ws(request.POST.get("why", ""))
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
        why = normalise_ws(request.POST.get("why", ""))[:500]
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
