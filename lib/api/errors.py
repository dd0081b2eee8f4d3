"""The API's one error shape, and the exception handler that gives every error under
``/api/`` that shape (see ``lib.api``); ``api_not_found`` and ``handler500`` give it outside
DRF views too."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, JsonResponse
from django.urls import Resolver404, resolve
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, serializers, status
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

API_PREFIX = "/api/"


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
