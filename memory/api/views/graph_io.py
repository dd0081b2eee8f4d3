"""Export and import of the whole graph as ``pegasus-graph/1`` JSON
(``memory.services.graph_io``, SPEC §6.1)."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from lib.api import ApiError, ApiView, Conflict, ErrorSerializer, ImportJSONParser
from memory.api import serializers as s
from memory.api.views.common import TAGS
from memory.services.graph_io.document import (
    GraphConflictError,
    GraphFormatError,
    GraphTooLargeError,
)
from memory.services.graph_io.export import export_graph
from memory.services.graph_io.import_ import import_graph

__all__ = ["ExportView", "ImportView"]


class ExportView(ApiView):
    @extend_schema(tags=TAGS, responses=s.GraphDocumentSerializer)
    def get(self, request):
        """Your whole graph as ``pegasus-graph/1`` JSON (SPEC §6.1)."""
        return Response(export_graph(user=request.user))


class ImportView(ApiView):
    parser_classes = [ImportJSONParser]

    @extend_schema(
        tags=TAGS,
        request=s.GraphDocumentSerializer,
        responses={201: s.ImportSummarySerializer, 409: ErrorSerializer, 413: ErrorSerializer},
    )
    def post(self, request):
        """Add a ``pegasus-graph/1`` document to your graph, all or nothing. A node whose
        kind and name already exist in your graph rejects the whole file (409): merge graphs
        with the merge actions instead."""
        # parse_graph names anything PostgreSQL could not store (NUL, unpaired surrogates).
        try:
            summary = import_graph(user=request.user, data=request.data, now=timezone.now())
        except GraphConflictError as exc:
            raise Conflict(str(exc)) from None
        except GraphTooLargeError as exc:
            raise ApiError(status_code=413, code="payload_too_large", detail=str(exc)) from None
        except GraphFormatError as exc:
            raise ValidationError(str(exc)) from None
        return Response(
            s.ImportSummarySerializer(summary.to_dict()).data, status=status.HTTP_201_CREATED
        )
