"""Conversations and messages in the moderator's console (read-only: conversations change
only through ``chat.services``).

A moderator sees that conversations exist (owner, status, incognito, times, message count,
extraction job), not what was said: titles and transcripts need the separate
``ops.read_transcripts`` permission, and every page is logged (``ops.audit``). An incognito
conversation's title and messages are never shown, whatever the permission."""

from django.contrib import admin
from django.db.models import Case, Count, F, Value, When

from chat.models import Conversation, Message
from lib.admin import USER_FILTER, NoEdits, ReadOnlyAdmin, admin_link, pretty_json
from ops.audit import TRANSCRIPT_PERMISSION


def can_read_transcripts(request) -> bool:
    return request.user.has_perm(TRANSCRIPT_PERMISSION)


class MessageInline(NoEdits, admin.TabularInline):
    model = Message
    fields = ("created_at", "role", "speaker", "text", "offline", "input_tokens", "output_tokens")
    readonly_fields = fields
    ordering = ("created_at", "id")
    extra = 0
    show_change_link = True


@admin.register(Conversation)
class ConversationAdmin(ReadOnlyAdmin):
    list_display = (
        "label",
        "user",
        "status",
        "incognito",
        "message_count",
        "started_at",
        "last_message_at",
        "ended_at",
    )
    list_filter = (USER_FILTER, "status", "incognito", ("started_at", admin.DateFieldListFilter))
    search_fields = ("user__username",)
    list_select_related = ("user",)
    ordering = ("-started_at", "-id")
    fields = (
        "user",
        "shown_title",
        "status",
        "incognito",
        "started_at",
        "last_message_at",
        "ended_at",
        "extraction",
    )
    readonly_fields = fields
    inlines = [MessageInline]

    def get_queryset(self, request):
        # The title is read in SQL only when this moderator may read transcripts, and never
        # for an incognito conversation (the display methods have no request).
        title = (
            Case(When(incognito=True, then=Value("")), default=F("title"))
            if can_read_transcripts(request)
            else Value("")
        )
        return super().get_queryset(request).annotate(n_messages=Count("messages"), shown=title)

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is not None and (obj.incognito or not can_read_transcripts(request)):
            # Page titles and breadcrumbs print the object; it is never saved from here.
            obj.title = ""
        return obj

    def get_inlines(self, request, obj):
        if obj is None or obj.incognito or not can_read_transcripts(request):
            return []
        return self.inlines

    @admin.display(description="conversation")
    def label(self, obj):
        return getattr(obj, "shown", "") or f"Conversation {obj.pk}"

    @admin.display(description="title")
    def shown_title(self, obj):
        return getattr(obj, "shown", "") or "— (not shown)"

    @admin.display(description="messages", ordering="n_messages")
    def message_count(self, obj):
        return obj.n_messages

    @admin.display(description="extraction job")
    def extraction(self, obj):
        episode = getattr(obj, "episode", None)
        return admin_link(episode) if episode is not None else "— (not ended yet)"


@admin.register(Message)
class MessageAdmin(ReadOnlyAdmin):
    """Transcripts: only with ``ops.read_transcripts``, never an incognito conversation's,
    every page logged."""

    list_display = ("__str__", "role", "conversation", "user", "offline", "created_at")
    list_filter = (USER_FILTER, "role", "offline")
    search_fields = ("text", "user__username", "conversation__title")
    list_select_related = ("user", "conversation")
    ordering = ("-created_at", "-id")
    fields = (
        "user",
        "conversation",
        "role",
        "speaker",
        "text",
        "created_at",
        "offline",
        "input_tokens",
        "output_tokens",
        "client_id",
        "external_id",
        "recall_json",
    )
    readonly_fields = fields

    @admin.display(description="recalled for this reply")
    def recall_json(self, obj):
        return pretty_json(obj.recall) if obj.recall else "—"

    def has_module_permission(self, request):
        return can_read_transcripts(request) and super().has_module_permission(request)

    def has_view_permission(self, request, obj=None):
        return can_read_transcripts(request) and super().has_view_permission(request, obj)

    def get_queryset(self, request):
        return super().get_queryset(request).filter(conversation__incognito=False)
