"""Episodes: what each conversation taught the memory."""

from __future__ import annotations

from django.db.models import F
from drf_spectacular.utils import extend_schema
from rest_framework.generics import ListAPIView

from lib.api import ApiMixin
from memory.api import serializers as s
from memory.api.views.common import TAGS
from memory.models import Episode

__all__ = ["EpisodeListView"]


class EpisodeListView(ApiMixin, ListAPIView):
    serializer_class = s.EpisodeSerializer

    def get_queryset(self):
        return Episode.objects.for_user(self.request.user).order_by(
            F("started_at").desc(nulls_last=True), "-id"
        )

    @extend_schema(tags=TAGS)
    def get(self, request):
        """What each conversation taught the memory, newest first, with its extraction
        status."""
        return self.list(request)
