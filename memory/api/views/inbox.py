"""The merge inbox: the questions the memory could not settle on its own, answered and
taken back by their owner (``memory.services.inbox``)."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.response import Response

from lib.api import ApiMixin, ApiView, Conflict, ErrorSerializer
from memory.api import serializers as s
from memory.api.views.common import TAGS, _query
from memory.services import inbox

__all__ = ["InboxAnswerView", "InboxItemView", "InboxListView", "InboxUndoView"]


class InboxQuerySerializer(serializers.Serializer):
    state = serializers.ChoiceField(
        choices=[("pending", "pending"), ("settled", "settled")],
        required=False,
        default="pending",
        help_text="pending: questions waiting for your answer (default); settled: the ones "
        "you answered, most recent first.",
    )


class InboxListView(ApiMixin, ListAPIView):
    serializer_class = s.InboxItemSerializer

    def get_queryset(self):
        return inbox.pending(self.request.user)

    @extend_schema(
        tags=TAGS,
        parameters=[InboxQuerySerializer],
        responses={200: s.InboxItemSerializer(many=True), 400: ErrorSerializer},
    )
    def get(self, request):
        """Your merge inbox: names the memory could not place on its own ("Is Matt the same
        person as Matt Patterson?"), newest first; ``count`` is the badge."""
        query = _query(InboxQuerySerializer, request)
        rows = inbox.settled(request.user) if query["state"] == "settled" else self.get_queryset()
        page = self.paginate_queryset(rows)
        data = s.InboxItemSerializer(inbox.summaries(request.user, page), many=True).data
        return self.get_paginated_response(data)


def _inbox_item(request, merge_id):
    try:
        return inbox.get_item(request.user, merge_id)
    except LookupError:
        raise NotFound("No such question.") from None


def _inbox_detail(request, decision) -> Response:
    return Response(s.InboxDetailSerializer(inbox.detail(request.user, decision)).data)


class InboxItemView(ApiView):
    @extend_schema(tags=TAGS, responses=s.InboxDetailSerializer)
    def get(self, request, merge_id):
        """One question with both neighbourhoods: a few memories touching the new name and
        each candidate, each with the sentence you said it in."""
        return _inbox_detail(request, _inbox_item(request, merge_id))


class InboxAnswerView(ApiView):
    @extend_schema(
        tags=TAGS,
        request=s.InboxAnswerSerializer,
        responses={200: s.InboxDetailSerializer, 409: ErrorSerializer},
    )
    def post(self, request, merge_id):
        """Answer a question: ``same`` merges the name into the candidate (``into``; optional
        with one candidate), ``different`` keeps them apart for good, ``unsure`` asks a
        moderator. 409 when it is already answered or no longer applies."""
        decision = _inbox_item(request, merge_id)
        body = s.InboxAnswerSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            decision = inbox.answer(
                user=request.user,
                decision=decision,
                answer=body.validated_data["answer"],
                into=body.validated_data.get("into"),
                now=timezone.now(),
            )
        except LookupError:
            raise NotFound("No such question.") from None
        except inbox.InboxError as exc:
            raise (
                ValidationError({exc.field: [str(exc)]}) if exc.field else ValidationError(str(exc))
            ) from None
        except inbox.InboxConflict as exc:
            raise Conflict(str(exc)) from None
        return _inbox_detail(request, _inbox_item(request, decision.pk))


class InboxUndoView(ApiView):
    @extend_schema(
        tags=TAGS, request=None, responses={200: s.InboxDetailSerializer, 409: ErrorSerializer}
    )
    def post(self, request, merge_id):
        """Take back your answer: a merge is undone exactly and the question is open again.
        409 when there is nothing to undo (unanswered, or a moderator settled it since)."""
        decision = _inbox_item(request, merge_id)
        try:
            decision = inbox.undo(user=request.user, decision=decision, now=timezone.now())
        except LookupError:
            raise NotFound("No such question.") from None
        except inbox.InboxConflict as exc:
            raise Conflict(str(exc)) from None
        return _inbox_detail(request, _inbox_item(request, decision.pk))
