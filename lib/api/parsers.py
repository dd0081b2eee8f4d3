"""The API's body parser: JSON only (strict, ``lib.strict_json``), size-limited."""

from __future__ import annotations

import codecs
import json

from django.conf import settings
from rest_framework import exceptions
from rest_framework.parsers import BaseParser

from lib import strict_json
from lib.api.errors import PayloadTooLarge

DEFAULT_MAX_BODY_BYTES = 1024 * 1024  # 1 MiB: any JSON request except a graph import
DEFAULT_IMPORT_MAX_BYTES = 5 * 1024 * 1024


class LimitedJSONParser(BaseParser):
    """JSON only, at most ``max_bytes`` (DRF reads the body as a stream, which bypasses
    Django's DATA_UPLOAD_MAX_MEMORY_SIZE): a larger body is a 413 in the error shape."""

    media_type = "application/json"
    max_bytes = DEFAULT_MAX_BODY_BYTES

    def limit(self) -> int:
        return self.max_bytes

    def parse(self, stream, media_type=None, parser_context=None):
        limit = self.limit()
        request = (parser_context or {}).get("request")
        declared = request.META.get("CONTENT_LENGTH") if request is not None else None
        try:
            if declared and int(declared) > limit:
                raise PayloadTooLarge(limit)
        except ValueError:
            pass
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise PayloadTooLarge(limit)
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = codecs.decode(raw, encoding)
            return strict_json.loads(text)
        except RecursionError:
            raise exceptions.ParseError(
                "The body is not valid JSON: it is nested too deeply."
            ) from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise exceptions.ParseError(f"The body is not valid JSON: {exc}") from None
        except ValueError as exc:  # a constant or number JSON does not allow, a long integer
            raise exceptions.ParseError(
                f"The body is not valid JSON: {strict_json.reason(exc)}"
            ) from None


class ImportJSONParser(LimitedJSONParser):
    """For graph imports: ``settings.API_IMPORT_MAX_BYTES`` (default 5 MB)."""

    def limit(self) -> int:
        return int(getattr(settings, "API_IMPORT_MAX_BYTES", DEFAULT_IMPORT_MAX_BYTES))
