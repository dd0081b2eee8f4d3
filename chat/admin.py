"""Conversations and messages, browsable per user in the moderator's console (read-only:
conversations change only through ``chat.services``)."""

from django.contrib import admin
from django.db.models import Count

from chat.models import Conversation, Message
from memory.admin import USER_FILTER, ReadOnlyAdmin, admin_link, pretty_json


class MessageInline(admin.TabularInline):
    model = Message
    fields = ("created_at", "role", "speaker", "text", "offline", "input_tokens", "output_tokens")
    readonly_fields = fields
    ordering = ("created_at", "id")
    extra = 0
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Conversation)
class ConversationAdmin(ReadOnlyAdmin):
    list_display = (
        "__str__",
        "user",
        "status",
        "incognito",
        "message_count",
        "started_at",
        "last_message_at",
        "ended_at",
    )
    list_filter = (USER_FILTER, "status", "incognito", ("started_at", admin.DateFieldListFilter))
    search_fields = ("title", "user__username")
    list_select_related = ("user",)
    ordering = ("-started_at", "-id")
    fields = (
        "user",
        "title",
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
        return super().get_queryset(request).annotate(n_messages=Count("messages"))

    @admin.display(description="messages", ordering="n_messages")
    def message_count(self, obj):
        return obj.n_messages

    @admin.display(description="extraction job")
    def extraction(self, obj):
        episode = getattr(obj, "episode", None)
        return admin_link(episode) if episode is not None else "— (not ended yet)"


@admin.register(Message)
class MessageAdmin(ReadOnlyAdmin):
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
