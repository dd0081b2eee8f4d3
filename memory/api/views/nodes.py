"""Nodes: listed and searched, shown with their episodes, edges and merges, corrected and
forgotten (corrections go through ``memory.services.corrections``)."""

from __future__ import annotations

from django.db.models import CharField, F, Func, Q, Value
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import GenericAPIView, ListAPIView
from rest_framework.response import Response

from lib.api import ApiMixin, ErrorSerializer
from memory.api import serializers as s
from memory.api.views.common import TAGS, _query
from memory.models import Node, NodeKind
from memory.services import corrections
from memory.services.presentation import degrees, node_detail

__all__ = ["NodeDetailView", "NodeListView"]

_ALIAS_SEPARATOR = "\x1f"  # joins aliases for substring search; never part of a name


class NodeQuerySerializer(serializers.Serializer):
    search = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="Case-insensitive substring of a name or alias.",
    )
    kind = serializers.ChoiceField(choices=NodeKind.choices, required=False)


class NodeListView(ApiMixin, ListAPIView):
    serializer_class = s.NodeSummarySerializer

    def get_queryset(self):
        return Node.objects.for_user(self.request.user).order_by("normalised_name", "id")

    @extend_schema(
        tags=TAGS,
        parameters=[NodeQuerySerializer],
        responses={200: s.NodeSummarySerializer(many=True), 400: ErrorSerializer},
    )
    def get(self, request):
        """Your nodes by name, filtered by ``search`` (name or alias) and ``kind``."""
        query = _query(NodeQuerySerializer, request)
        nodes = self.get_queryset()
        if query.get("search"):
            term = query["search"].replace(_ALIAS_SEPARATOR, "")
            nodes = nodes.annotate(
                alias_text=Func(
                    F("aliases"),
                    Value(_ALIAS_SEPARATOR),
                    function="array_to_string",
                    output_field=CharField(),
                )
            ).filter(Q(name__icontains=term) | Q(alias_text__icontains=term))
        if query.get("kind"):
            nodes = nodes.filter(kind=query["kind"])
        rows = nodes.values("id", "name", "kind", "aliases", "is_self", "provisional")
        page = self.paginate_queryset(rows)
        counts = degrees(request.user, [row["id"] for row in page], timezone.now())
        for row in page:
            row["degree"] = counts[row["id"]]
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


def _correction_failed(exc: corrections.CorrectionError) -> ValidationError:
    if exc.field:
        return ValidationError({exc.field: [str(exc)]})
    return ValidationError(str(exc))


class NodeDetailView(ApiMixin, GenericAPIView):
    lookup_url_kwarg = "node_id"
    serializer_class = s.NodeDetailSerializer

    def get_queryset(self):
        return Node.objects.for_user(self.request.user)

    @extend_schema(tags=TAGS, responses=s.NodeDetailSerializer)
    def get(self, request, node_id):
        """A node with its episodes, every edge touching it and the merges that kept it."""
        node = self.get_object()
        return Response(
            s.NodeDetailSerializer(node_detail(request.user, node, timezone.now())).data
        )

    @extend_schema(tags=TAGS, request=s.NodePatchSerializer, responses=s.NodeDetailSerializer)
    def patch(self, request, node_id):
        """Correct a node: rename (the old name stays an alias), change its kind, add or
        remove an alias. Several keys apply together or not at all."""
        node = self.get_object()
        patch = s.NodePatchSerializer(data=request.data)
        patch.is_valid(raise_exception=True)
        user, now = request.user, timezone.now()
        try:
            node = corrections.correct_node(
                user=user, node=node, changes=dict(patch.validated_data), now=now
            )
        except corrections.CorrectionError as exc:
            raise _correction_failed(exc) from None
        return Response(s.NodeDetailSerializer(node_detail(user, node, now)).data)

    @extend_schema(tags=TAGS, responses={204: None, 400: ErrorSerializer})
    def delete(self, request, node_id):
        """Forget a node and every memory touching it, for good. The node that stands for
        you cannot be forgotten (400)."""
        node = self.get_object()
        try:
            corrections.forget_node(user=request.user, node=node, now=timezone.now())
        except corrections.CorrectionError as exc:
            raise _correction_failed(exc) from None
        return Response(status=status.HTTP_204_NO_CONTENT)
