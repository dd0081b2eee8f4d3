"""What every view under ``/api/`` shares: the error shape, parsing limits, pagination,
throttles and the OpenAPI schema class.

Every error under ``/api/`` — validation, authentication, a missing or foreign id, a wrong
method, throttling, an unknown path, a crash — is one JSON shape::

    {"error": {"code": "not_found", "detail": "Not found.", "fields": {}}}

``code`` is stable and machine-readable, ``detail`` a sentence fit to show a person, and
``fields`` maps an input field to its messages (``{}`` when the error is not about a field).

API views inherit ``ApiView`` (or mix ``ApiMixin`` into a DRF generic view): it installs the
exception handler, the JSON-only size-limited parser, the throttles, the pagination and the
schema class, so the API behaves the same whatever the project-wide DRF defaults are.
"""

from __future__ import annotations

import binascii
import codecs
import json
import logging
import math

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, JsonResponse
from django.urls import Resolver404, resolve
from django.utils.dateparse import parse_datetime
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.openapi import AutoSchema
from rest_framework import exceptions, serializers, status
from rest_framework.pagination import CursorPagination, PageNumberPagination
from rest_framework.parsers import BaseParser
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from pegasus_site.client_ip import client_ip

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"
DEFAULT_MAX_BODY_BYTES = 1024 * 1024  # 1 MiB: any JSON request except a graph import
DEFAULT_IMPORT_MAX_BYTES = 5 * 1024 * 1024


# --- the error shape --------------------------------------------------------------------------


class ErrorBodySerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="Stable machine-readable code: not_found, validation_error, "
        "not_authenticated, permission_denied, method_not_allowed, throttled, "
        "conflict, payload_too_large, invalid_cursor, server_error, … (a chat "
        "turn adds its own: "
        "empty, too_long, rate_limited, conversation_ended, llm_unavailable, …).",
    )
    detail = serializers.CharField(help_text="A sentence fit to show a person.")
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Input field → its messages; empty when the error is not about a field.",
    )


class ErrorSerializer(serializers.Serializer):
    """The one error shape of the API."""

    error = ErrorBodySerializer()

    class Meta:
        ref_name = "Error"


def error_payload(code: str, detail: str, fields: dict | None = None) -> dict:
    return {"error": {"code": code, "detail": str(detail), "fields": fields or {}}}


def error_response(
    status_code: int,
    code: str,
    detail: str,
    fields: dict | None = None,
    headers: dict | None = None,
) -> JsonResponse:
    """The error shape as a plain Django response (for code outside DRF views)."""
    response = JsonResponse(error_payload(code, detail, fields), status=status_code)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


class ApiError(exceptions.APIException):
    """An error with an explicit code, status and optional field messages."""

    def __init__(self, *, status_code: int, code: str, detail: str, fields: dict | None = None):
        super().__init__(detail=detail, code=code)
        self.status_code = status_code
        self.error_code = code
        self.fields = fields or {}


class Conflict(ApiError):
    def __init__(self, detail: str, fields: dict | None = None):
        super().__init__(
            status_code=status.HTTP_409_CONFLICT, code="conflict", detail=detail, fields=fields
        )


class PayloadTooLarge(ApiError):
    def __init__(self, limit: int):
        super().__init__(
            status_code=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
            code="payload_too_large",
            detail=f"The request body is larger than the {_size(limit)} this endpoint accepts.",
        )


def _size(limit: int) -> str:
    if limit % (1024 * 1024) == 0:
        return f"{limit // (1024 * 1024)} MB"
    if limit % 1024 == 0:
        return f"{limit // 1024} KB"
    return f"{limit} bytes"


# DRF's exception classes → our codes. Anything else uses its own default code.
_CODES = {
    exceptions.ValidationError: "validation_error",
    exceptions.ParseError: "parse_error",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "not_authenticated",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
}


def _flatten(prefix: str, value, out: dict[str, list[str]]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(f"{prefix}.{key}" if prefix else str(key), inner, out)
    elif isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        for index, inner in enumerate(value):
            if inner:
                _flatten(f"{prefix}.{index}" if prefix else str(index), inner, out)
    elif isinstance(value, list):
        out.setdefault(prefix, []).extend(str(v) for v in value)
    else:
        out.setdefault(prefix, []).append(str(value))


def _validation_body(detail) -> tuple[str, dict]:
    fields: dict[str, list[str]] = {}
    _flatten("", detail if isinstance(detail, (dict, list)) else [detail], fields)
    general = fields.pop("", []) + fields.pop(api_settings.NON_FIELD_ERRORS_KEY, [])
    if general:
        return " ".join(general), fields
    if fields:
        name, messages = next(iter(fields.items()))
        return f"{name}: {messages[0]}", fields
    return "Invalid input.", fields


def exception_handler(exc, context):
    """DRF's handler (status, headers, rollback), then the body rewritten to the error shape.
    Unexpected exceptions still propagate: Django logs them and ``handler500`` answers."""
    if isinstance(exc, Http404):
        # Django's messages name the model ("No Node matches …"); one sentence for all.
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ApiError):
        response.data = error_payload(exc.error_code, exc.detail, exc.fields)
        return response
    if isinstance(exc, exceptions.ValidationError):
        detail, fields = _validation_body(exc.detail)
        response.data = error_payload("validation_error", detail, fields)
        return response
    code = next((c for cls, c in _CODES.items() if isinstance(exc, cls)), None)
    if code is None:
        default = getattr(exc, "default_code", "error")
        code = default if isinstance(default, str) else "error"
    detail = getattr(exc, "detail", None)
    if isinstance(detail, (list, dict)):
        text, fields = _validation_body(detail)
        response.data = error_payload(code, text, fields)
    else:
        text = str(detail) if detail else "Not found." if code == "not_found" else "Error."
        response.data = error_payload(code, text)
    return response


# --- JSON for any /api/ path, even outside DRF --------------------------------------------------


@csrf_exempt
def api_not_found(request, *args, **kwargs):
    """The catch-all at the end of the API's URLconf: unknown paths answer in the error shape
    (a trailing slash forgotten is pointed out rather than redirected: redirects drop POST
    bodies)."""
    detail = "No API endpoint at this address."
    if not request.path.endswith("/"):
        try:
            match = resolve(request.path + "/")
        except Resolver404:
            match = None
        if match is not None and match.func is not api_not_found:
            detail = f"No API endpoint at this address; did you mean {request.path}/ ?"
    return error_response(404, "not_found", detail)


def handler500(request):
    if request.path.startswith(API_PREFIX):
        return error_response(
            500, "server_error", "Something went wrong on our side; it has been logged."
        )
    return defaults.server_error(request)


# --- parsing ----------------------------------------------------------------------------------


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
            return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
        except RecursionError:
            raise exceptions.ParseError(
                "The body is not valid JSON: it is nested too deeply."
            ) from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise exceptions.ParseError(f"The body is not valid JSON: {exc}") from None
        except ValueError as exc:  # a constant or number JSON does not allow, a long integer
            # The first clause only: Python's integer limit goes on to advise a developer.
            raise exceptions.ParseError(
                f"The body is not valid JSON: {str(exc).split(':')[0]}"
            ) from None


def _reject_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    # 1e400 is valid JSON syntax but no float: it would decode to Infinity, which neither
    # the JSON renderer nor PostgreSQL's jsonb accept.
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value


class ImportJSONParser(LimitedJSONParser):
    """For graph imports: ``settings.API_IMPORT_MAX_BYTES`` (default 5 MB)."""

    def limit(self) -> int:
        return int(getattr(settings, "API_IMPORT_MAX_BYTES", DEFAULT_IMPORT_MAX_BYTES))


# --- pagination -------------------------------------------------------------------------------


class Pagination(PageNumberPagination):
    """``?page=N`` (and ``?page_size=``, at most 200): ``{"count", "next", "previous",
    "results"}``."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class InvalidCursor(ApiError):
    def __init__(self):
        super().__init__(
            status_code=status.HTTP_400_BAD_REQUEST,
            code="invalid_cursor",
            detail="That page cursor is not valid; start again from the first "
            "page and follow `next`.",
            fields={"cursor": ["Invalid."]},
        )


class MessageCursorPagination(CursorPagination):
    """Opaque ``?cursor=`` pages of a conversation's messages, oldest first; stable while new
    messages arrive. A cursor that was not made here — undecodable, or decoding to a position
    that is not a timestamp (``p=2026``) — is a 400 ``invalid_cursor``."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    ordering = ("created_at", "id")

    def decode_cursor(self, request):
        try:
            cursor = super().decode_cursor(request)
        except (exceptions.NotFound, UnicodeError, binascii.Error):
            raise InvalidCursor() from None
        # The position is compared with ``created_at`` in SQL: anything but a timestamp would
        # fail there, after the query was built (a 500).
        if cursor is not None and cursor.position is not None:
            try:
                parsed = parse_datetime(cursor.position)
            except ValueError:
                parsed = None
            if parsed is None:
                raise InvalidCursor()
        return cursor

    def paginate_queryset(self, queryset, request, view=None):
        try:
            return super().paginate_queryset(queryset, request, view)
        except (DjangoValidationError, ValueError, OverflowError):
            raise InvalidCursor() from None


# --- throttles --------------------------------------------------------------------------------


class _SettingsRate:
    """Reads the rate from the current DRF settings on every request (DRF's own classes bind
    it at import, which tests and operators cannot change afterwards)."""

    def get_rate(self):
        rates = api_settings.DEFAULT_THROTTLE_RATES or {}
        if self.scope not in rates:
            raise exceptions.APIException(f"No throttle rate set for the {self.scope!r} scope.")
        return rates[self.scope]


class _ClientAddress:
    """The client's address as ``ClientIpMiddleware`` resolved it: X-Forwarded-For counts
    only from ``TRUSTED_PROXIES`` (DRF's own ``get_ident`` takes it from anyone)."""

    def get_ident(self, request):
        return client_ip(request)


class UserRateThrottle(_SettingsRate, SimpleRateThrottle):
    """Per signed-in user (``user`` rate); anonymous requests are left to the IP throttle."""

    scope = "user"

    def get_cache_key(self, request, view):
        if not (request.user and request.user.is_authenticated):
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class AnonRateThrottle(_ClientAddress, _SettingsRate, SimpleRateThrottle):
    """Per client IP for requests that are not signed in (``anon`` rate)."""

    scope = "anon"

    def get_cache_key(self, request, view):
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class LoginRateThrottle(_ClientAddress, _SettingsRate, SimpleRateThrottle):
    """Token requests per client IP (``login`` rate), whatever the outcome: slows password
    guessing without telling which usernames exist."""

    scope = "login"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


# --- schema -----------------------------------------------------------------------------------

_ERROR_DESCRIPTIONS = {
    "400": "The request is not valid (`validation_error`, `parse_error`, …); `fields` says "
    "which input is at fault.",
    "401": "No credentials, or an invalid or expired token (`not_authenticated`).",
    "403": "Signed in by session without a valid CSRF token (`permission_denied`).",
    "404": "No such object among yours (`not_found`) — another user's id looks the same.",
    "409": "The object is not in a state that allows this (`conflict`).",
    "413": "The request body is too large (`payload_too_large`).",
    "429": "Too many requests (`throttled`); retry after `Retry-After` seconds.",
    "500": "An unexpected error on the server (`server_error`).",
    "503": "A service the request needs is unavailable right now.",
}


class PegasusAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema that documents the error responses every operation can
    give, all with the ``Error`` component: 400 for a body, 401/403 unless anonymous, 404 for
    an id in the path or a page, 429 and 500 always. Operations add their own (409, 413, 503,
    400 for query parameters …) with ``extend_schema(responses={409: ErrorSerializer})``; an
    error response without a description gets the standard one."""

    def _error_codes(self) -> list[str]:
        codes = ["400"] if self.method in ("POST", "PUT", "PATCH") else []
        if any(perm.__class__.__name__ != "AllowAny" for perm in self.view.get_permissions()):
            codes += ["401", "403"]
        if "{" in self.path or (self.method == "GET" and self._is_list_view()):
            codes.append("404")
        codes += ["429", "500"]
        return codes

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for code, body in responses.items():
            if not code.startswith("2") and not body.get("description"):
                body["description"] = _ERROR_DESCRIPTIONS.get(code, "Error.")
        for code in self._error_codes():
            if code in responses:
                continue
            body = self._get_response_for_code(ErrorSerializer, code, direction=direction)
            body["description"] = _ERROR_DESCRIPTIONS.get(code, "Error.")
            responses[code] = body
        return dict(sorted(responses.items()))


# --- the base view ----------------------------------------------------------------------------


class ApiMixin:
    """The API's policies, set on the view so they hold whatever the global DRF defaults."""

    parser_classes = [LimitedJSONParser]
    renderer_classes = [JSONRenderer]
    throttle_classes = [UserRateThrottle, AnonRateThrottle]
    pagination_class = Pagination
    # OPTIONS is not part of the API (no CORS, no metadata): a 405 like any other method.
    http_method_names = ["get", "post", "put", "patch", "delete", "head"]
    metadata_class = None
    schema = PegasusAutoSchema()

    def get_exception_handler(self):
        return exception_handler

    def initial(self, request, *args, **kwargs):
        """DRF's ``initial`` with the throttles checked before the permissions, so that
        requests refused as unauthenticated (guessed tokens included) count against the
        caller's address too."""
        self.format_kwarg = self.get_format_suffix(**kwargs)
        request.accepted_renderer, request.accepted_media_type = self.perform_content_negotiation(
            request
        )
        request.version, request.versioning_scheme = self.determine_version(
            request, *args, **kwargs
        )
        self.perform_authentication(request)
        self.check_throttles(request)
        self.check_permissions(request)


class ApiView(ApiMixin, APIView):
    pass


class JsonErrorsMixin:
    """For DRF views that render something else (the schema, Swagger UI): their errors still
    come in the error shape, as JSON."""

    def get_exception_handler(self):
        return exception_handler

    def finalize_response(self, request, response, *args, **kwargs):
        if isinstance(response, Response) and response.status_code >= 400:
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)
