"""What every memory view shares: the schema tag and the parsing of query parameters."""

from __future__ import annotations

TAGS = ["memory"]


def _query(serializer_class, request) -> dict:
    query = serializer_class(data=request.query_params)
    query.is_valid(raise_exception=True)
    return query.validated_data
