"""The whole graph for the explorer, in one response."""

from __future__ import annotations

from collections import Counter

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from lib.api import ApiView, ErrorSerializer
from memory.api import serializers as s
from memory.api.views.common import TAGS, _query
from memory.models import Edge, Node
from memory.services.presentation import edge_state

__all__ = ["GraphView"]


class GraphQuerySerializer(serializers.Serializer):
    as_of = serializers.DateTimeField(
        required=False,
        help_text="Judge strength and dormancy at this instant (ISO 8601; default now).",
    )
    include_dormant = serializers.BooleanField(required=False, default=False)
    include_superseded = serializers.BooleanField(required=False, default=False)


class GraphView(ApiView):
    @extend_schema(
        tags=TAGS,
        parameters=[GraphQuerySerializer],
        responses={200: s.GraphSerializer, 400: ErrorSerializer},
    )
    def get(self, request):
        """The whole graph for the explorer: every node, and the edges live at ``as_of``
        (dormant and superseded ones on request). One query per table."""
        query = _query(GraphQuerySerializer, request)
        as_of = query.get("as_of") or timezone.now()
        user = request.user
        edges_qs = Edge.objects.for_user(user)
        if not query["include_superseded"]:
            edges_qs = edges_qs.filter(superseded_by__isnull=True)
        edges, degree = [], Counter()
        for (
            pk,
            source,
            target,
            relation,
            s0,
            touched,
            stability,
            confidence,
            flagged,
            superseded_id,
            expires_at,
        ) in edges_qs.order_by("id").values_list(
            "id",
            "source_id",
            "target_id",
            "relation",
            "strength_at_touch",
            "last_touched_at",
            "stability",
            "confidence",
            "dormant",
            "superseded_by_id",
            "expires_at",
        ):
            strength, dormant = edge_state(s0, stability, touched, expires_at, flagged, as_of)
            superseded = superseded_id is not None
            if not dormant and not superseded:
                degree[source] += 1
                degree[target] += 1
            elif dormant and not query["include_dormant"]:
                continue
            edges.append(
                {
                    "id": pk,
                    "source": source,
                    "target": target,
                    "relation": relation,
                    "strength": strength,
                    "strength_at_touch": s0,
                    "last_touched_at": touched,
                    "stability": stability,
                    "confidence": confidence,
                    "dormant": dormant,
                    "superseded": superseded,
                    "expires_at": expires_at,
                }
            )
        nodes = [
            {
                "id": pk,
                "name": name,
                "kind": kind,
                "aliases": aliases,
                "degree": degree[pk],
                "is_self": is_self,
                "provisional": provisional,
            }
            for pk, name, kind, aliases, is_self, provisional in Node.objects.for_user(user)
            .order_by("id")
            .values_list("id", "name", "kind", "aliases", "is_self", "provisional")
        ]
        return Response({"as_of": as_of, "nodes": nodes, "edges": edges})
