"""Edges (the memories): listed live by default, shown with the words that justify them,
forgotten for good (``memory.services.corrections``)."""

from __future__ import annotations

from django.db.models import BooleanField, Q
from django.db.models.expressions import RawSQL
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.generics import GenericAPIView, ListAPIView
from rest_framework.response import Response

from lib.api import ApiMixin, ErrorSerializer
from memory.api import serializers as s
from memory.api.views.common import TAGS, _query
from memory.models import Edge, Node
from memory.services import corrections
from memory.services.decay import dormancy_sql
from memory.services.presentation import edge_payload, edges_with_ends

__all__ = ["EdgeDetailView", "EdgeListView"]


class EdgeQuerySerializer(serializers.Serializer):
    node = serializers.IntegerField(required=False, help_text="Only edges touching this node.")
    include_dormant = serializers.BooleanField(required=False, default=False)
    include_superseded = serializers.BooleanField(required=False, default=False)


class EdgeListView(ApiMixin, ListAPIView):
    serializer_class = s.EdgeSerializer

    def get_queryset(self):
        return edges_with_ends(self.request.user).order_by("id")

    @extend_schema(
        tags=TAGS,
        parameters=[EdgeQuerySerializer],
        responses={200: s.EdgeSerializer(many=True), 400: ErrorSerializer},
    )
    def get(self, request):
        """Your memories, live ones by default; ``node`` narrows to one node's edges."""
        query = _query(EdgeQuerySerializer, request)
        user, now = request.user, timezone.now()
        edges = self.get_queryset()
        if "node" in query:
            if not Node.objects.for_user(user).filter(pk=query["node"]).exists():
                raise NotFound("No such node.")
            edges = edges.filter(Q(source_id=query["node"]) | Q(target_id=query["node"]))
        if not query["include_superseded"]:
            edges = edges.filter(superseded_by__isnull=True)
        if not query["include_dormant"]:
            sql, params = dormancy_sql(now, alias=f'"{Edge._meta.db_table}".')
            edges = (
                edges.filter(dormant=False)
                # Generated from constants; every value is a bound parameter.
                .annotate(
                    dormant_now=RawSQL(  # noqa: S611
                        sql,
                        params,
                        output_field=BooleanField(),
                    )
                )
                .filter(dormant_now=False)
            )
        page = self.paginate_queryset(edges)
        data = s.EdgeSerializer([edge_payload(e, user, now) for e in page], many=True).data
        return self.get_paginated_response(data)


class EdgeDetailView(ApiMixin, GenericAPIView):
    lookup_url_kwarg = "edge_id"
    serializer_class = s.EdgeSerializer

    def get_queryset(self):
        return edges_with_ends(self.request.user)

    @extend_schema(tags=TAGS, responses=s.EdgeSerializer)
    def get(self, request, edge_id):
        """One memory, with its ends and the words that justify it."""
        edge = self.get_object()
        return Response(s.EdgeSerializer(edge_payload(edge, request.user, timezone.now())).data)

    @extend_schema(tags=TAGS, responses={204: None})
    def delete(self, request, edge_id):
        """Forget a memory for good (with its snippets). A memory it had replaced becomes
        current again."""
        edge = self.get_object()
        corrections.forget_edge(user=request.user, edge=edge, now=timezone.now())
        return Response(status=status.HTTP_204_NO_CONTENT)
