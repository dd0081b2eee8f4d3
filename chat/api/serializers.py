"""Shapes of the chat API. Explicit fields only; never an owner id."""

from __future__ import annotations

from rest_framework import serializers

from memory.api.serializers import ReadRecordSerializer

RO = {"read_only": True}


class ConversationSerializer(serializers.Serializer):
    id = serializers.IntegerField(**RO)
    title = serializers.CharField(**RO)
    status = serializers.CharField(**RO, help_text="open or ended.")
    incognito = serializers.BooleanField(
        **RO, help_text="Nothing from an incognito conversation is remembered."
    )
    started_at = serializers.DateTimeField(**RO)
    last_message_at = serializers.DateTimeField(allow_null=True, **RO)
    ended_at = serializers.DateTimeField(allow_null=True, **RO)


class ConversationCreateSerializer(serializers.Serializer):
    title = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="Empty: named after the first message.",
    )
    incognito = serializers.BooleanField(
        required=False, help_text="Default: your account's preference."
    )


class ConversationUpdateSerializer(serializers.Serializer):
    title = serializers.CharField(allow_blank=True, max_length=200)


class MessageSerializer(serializers.Serializer):
    id = serializers.IntegerField(**RO)
    role = serializers.CharField(**RO, help_text="user or assistant.")
    text = serializers.CharField(**RO)
    created_at = serializers.DateTimeField(**RO)
    client_id = serializers.CharField(**RO, help_text="The id the client chose for the turn.")
    offline = serializers.BooleanField(
        **RO, help_text="Composed from memory without a language model (offline mode)."
    )
    recall = ReadRecordSerializer(
        allow_null=True,
        **RO,
        help_text="For assistant messages: what was recalled for this reply (SPEC §6.4).",
    )


class TurnRequestSerializer(serializers.Serializer):
    text = serializers.CharField(
        allow_blank=True,
        trim_whitespace=False,
        help_text="Your message (limits are checked by the turn).",
    )
    client_id = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=64,
        help_text="Your id for this turn: sending it again never stores the message twice "
        "and returns the reply already given.",
    )


class TurnQuerySerializer(serializers.Serializer):
    stream = serializers.BooleanField(
        required=False,
        default=False,
        help_text="1: answer with a text/event-stream of recall, delta…, done (or error).",
    )


class TurnResultSerializer(serializers.Serializer):
    user_message = MessageSerializer(**RO)
    assistant_message = MessageSerializer(**RO)
    recall = ReadRecordSerializer(**RO)


class EndResultSerializer(serializers.Serializer):
    id = serializers.IntegerField(**RO)
    status = serializers.CharField(**RO)
    episode_id = serializers.IntegerField(
        allow_null=True,
        **RO,
        help_text="The episode whose extraction was queued (null: nothing to remember).",
    )
