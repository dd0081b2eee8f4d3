"""The audit log of moderators' views of user content (``ops.models.ModeratorView``).

``AuditedAdminMixin`` goes on every admin class of an owned model (a ``user`` foreign key):
each list page and each row page a moderator opens is logged, with the user whose content it
was when there is one. The log holds no content, only who, whose, which model, which row,
which path and when; it is itself shown read-only in the admin.
"""

from __future__ import annotations

from django.utils import timezone

from ops.models import ModeratorView

TRANSCRIPT_PERMISSION = "ops.read_transcripts"


def owned(model) -> bool:
    return any(f.name == "user" and f.is_relation for f in model._meta.concrete_fields)


def record_view(request, model, *, object_id: str = "", subject_id: int | None = None) -> None:
    """Log that ``request.user`` viewed ``model`` (a row ``object_id``, or a list)."""
    user = getattr(request, "user", None)
    ModeratorView.objects.create(
        moderator=user if user is not None and user.is_authenticated else None,
        subject_id=subject_id,
        model=model._meta.label_lower,
        object_id=str(object_id or ""),
        path=request.get_full_path()[:300],
        viewed_at=timezone.now(),
    )


def _list_subject(request) -> int | None:
    # The owner filter (USER_FILTER in lib.admin) narrows a list to one user.
    for key in ("user__id__exact", "user"):
        value = request.GET.get(key)
        if value and value.isdigit():
            return int(value)
    return None


class AuditedAdminMixin:
    """Logs every successful list and row page of an owned model (``record_view``)."""

    def changelist_view(self, request, extra_context=None):
        response = super().changelist_view(request, extra_context)
        if owned(self.model) and getattr(response, "status_code", 500) == 200:
            record_view(request, self.model, subject_id=_list_subject(request))
        return response

    def change_view(self, request, object_id, form_url="", extra_context=None):
        response = super().change_view(request, object_id, form_url, extra_context)
        if owned(self.model) and getattr(response, "status_code", 500) == 200:
            subject = (
                self.model._default_manager.filter(pk=object_id)
                .values_list("user_id", flat=True)
                .first()
                if str(object_id).isdigit()
                else None
            )
            record_view(request, self.model, object_id=object_id, subject_id=subject)
        return response
