"""The extraction job monitor: one episode per ended conversation, with its job state and
the retry action (``memory.services.jobs``)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.utils import quote, unquote
from django.core.exceptions import PermissionDenied
from django.db.models import DurationField, ExpressionWrapper, F
from django.http import Http404, HttpResponseNotAllowed, HttpResponseRedirect
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html_join

from lib.admin import USER_FILTER, ReadOnlyAdmin, admin_link
from memory.admin.filters import JobStateFilter
from memory.admin.helpers import _has_perm, _report, _short, fieldset_fields
from memory.models import Episode
from memory.services import jobs as job_service


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
    readonly_fields = fieldset_fields(fieldsets)

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
