"""Conversations and their messages (SPEC §4, chat)."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from lib.owned import OwnedQuerySet


class ConversationStatus(models.TextChoices):
    OPEN = "open"
    ENDED = "ended"


class Conversation(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations"
    )
    title = models.CharField(max_length=200, blank=True)
    status = models.CharField(
        max_length=8, choices=ConversationStatus.choices, default=ConversationStatus.OPEN
    )
    incognito = models.BooleanField(
        default=False, help_text="No extraction and no reinforcement for this conversation."
    )
    started_at = models.DateTimeField()
    last_message_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["user", "-started_at"], name="conversation_user_started"),
            models.Index(fields=["status", "last_message_at"], name="conversation_idle"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status="open", ended_at__isnull=True)
                | Q(status="ended", ended_at__isnull=False),
                name="conversation_ended_at_matches_status",
            )
        ]

    def __str__(self) -> str:
        return self.title or f"Conversation {self.pk}"


class Role(models.TextChoices):
    USER = "user"
    ASSISTANT = "assistant"


class Message(models.Model):
    """One turn. Assistant turns keep the Read record that was injected for them (SPEC §6.4).

    ``speaker`` names who spoke a user turn when it is not the account holder (replayed
    multi-party conversations such as LoCoMo); ``external_id`` keeps an imported turn's id.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages"
    )
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="messages"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    text = models.TextField()
    speaker = models.CharField(max_length=100, blank=True)
    external_id = models.CharField(max_length=64, blank=True)
    # Chosen by the client for a user turn so a resend after a dropped socket is recognised
    # instead of stored twice; the assistant reply to it carries the same value.
    client_id = models.CharField(max_length=64, blank=True)
    recall = models.JSONField(null=True, blank=True)
    offline = models.BooleanField(default=False)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField()

    objects = OwnedQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(fields=["user", "conversation", "created_at"], name="message_user_conv"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["conversation", "role", "client_id"],
                condition=~Q(client_id=""),
                name="message_client_id_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.role}: {self.text[:40]}"
