"""Recall: what the assistant would remember for a message, without logging or reinforcing
anything (``memory.services.read``)."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from lib.api import ApiView
from memory.api import serializers as s
from memory.api.views.common import TAGS
from memory.services.read import recall

__all__ = ["RecallView"]


class RecallView(ApiView):
    @extend_schema(
        tags=TAGS, request=s.RecallRequestSerializer, responses={200: s.ReadRecordSerializer}
    )
    def post(self, request):
        """What the assistant would recall for ``message`` right now (SPEC §6.4). Read-only:
        nothing is logged or reinforced."""
        body = s.RecallRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        record = recall(
            user=request.user, message=body.validated_data["message"], now=timezone.now()
        )
        return Response(s.ReadRecordSerializer(record.to_dict()).data)
