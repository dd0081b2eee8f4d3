"""Merging one node into another, and undoing a merge exactly
(``memory.services.merge``)."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from lib.api import ApiMixin, Conflict, ErrorSerializer
from memory.api import serializers as s
from memory.api.views.common import TAGS
from memory.models import MergeDecision, Node
from memory.services.merge import MergeError, merge_nodes, revert_merge
from memory.services.presentation import merge_payload

__all__ = ["MergeRevertView", "NodeMergeView"]


class NodeMergeView(ApiMixin, GenericAPIView):
    lookup_url_kwarg = "node_id"
    serializer_class = s.MergeRequestSerializer

    def get_queryset(self):
        return Node.objects.for_user(self.request.user)

    @extend_schema(
        tags=TAGS, request=s.MergeRequestSerializer, responses={201: s.MergeDecisionSerializer}
    )
    def post(self, request, node_id):
        """Merge this node into ``into`` (same kind): its names become aliases there and its
        memories move over. Revertible with ``POST /memory/merges/{id}/revert/``."""
        node = self.get_object()
        body = s.MergeRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            decision = merge_nodes(
                user=request.user,
                keep=body.validated_data["into"],
                absorb=node,
                reason="merged by the user",
                by=request.user,
                now=timezone.now(),
            )
        except MergeError as exc:
            raise ValidationError({exc.field: [str(exc)]}) from None
        return Response(
            s.MergeDecisionSerializer(merge_payload(decision)).data, status=status.HTTP_201_CREATED
        )


class MergeRevertView(ApiMixin, GenericAPIView):
    lookup_url_kwarg = "merge_id"
    serializer_class = s.MergeDecisionSerializer

    def get_queryset(self):
        return MergeDecision.objects.for_user(self.request.user).select_related("kept")

    @extend_schema(
        tags=TAGS, request=None, responses={200: s.MergeDecisionSerializer, 409: ErrorSerializer}
    )
    def post(self, request, merge_id):
        """Undo a merge exactly (status becomes ``reverted``). 409 when it cannot be undone
        (already reverted, or a later merge must be reverted first)."""
        decision = self.get_object()
        try:
            decision = revert_merge(
                user=request.user, decision=decision, by=request.user, now=timezone.now()
            )
        except ValueError as exc:
            raise Conflict(str(exc)) from None
        decision = self.get_queryset().get(pk=decision.pk)
        return Response(s.MergeDecisionSerializer(merge_payload(decision)).data)
