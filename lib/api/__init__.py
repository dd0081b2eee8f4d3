"""What every view under ``/api/`` shares: the error shape, parsing limits, pagination,
throttles and the OpenAPI schema class (``lib.api``: code every app's API uses).

Every error under ``/api/`` — validation, authentication, a missing or foreign id, a wrong
method, throttling, an unknown path, a crash — is one JSON shape::

    {"error": {"code": "not_found", "detail": "Not found.", "fields": {}}}

``code`` is stable and machine-readable, ``detail`` a sentence fit to show a person, and
``fields`` maps an input field to its messages (``{}`` when the error is not about a field).

API views inherit ``ApiView`` (or mix ``ApiMixin`` into a DRF generic view): it installs the
exception handler, the JSON-only size-limited parser, the throttles, the pagination and the
schema class, so the API behaves the same whatever the project-wide DRF defaults are.

The modules: ``errors`` (the shape, ``ApiError``, the exception handler, the 404/500
handlers), ``parsers``, ``pagination``, ``throttles``, ``schema`` and ``views`` (the base
view). Every public name is importable from ``lib.api``.
"""

from lib.api.errors import (
    API_PREFIX,
    ApiError,
    Conflict,
    ErrorBodySerializer,
    ErrorSerializer,
    PayloadTooLarge,
    api_not_found,
    error_payload,
    error_response,
    exception_handler,
    handler500,
)
from lib.api.pagination import (
    InvalidCursor,
    MessageCursorPagination,
    Pagination,
)
from lib.api.parsers import (
    DEFAULT_IMPORT_MAX_BYTES,
    DEFAULT_MAX_BODY_BYTES,
    ImportJSONParser,
    LimitedJSONParser,
)
from lib.api.schema import (
    PegasusAutoSchema,
)
from lib.api.throttles import (
    AnonRateThrottle,
    LoginRateThrottle,
    UserRateThrottle,
)
from lib.api.views import (
    ApiMixin,
    ApiView,
    JsonErrorsMixin,
)

__all__ = [
    "API_PREFIX",
    "DEFAULT_IMPORT_MAX_BYTES",
    "DEFAULT_MAX_BODY_BYTES",
    "AnonRateThrottle",
    "ApiError",
    "ApiMixin",
    "ApiView",
    "Conflict",
    "ErrorBodySerializer",
    "ErrorSerializer",
    "ImportJSONParser",
    "InvalidCursor",
    "JsonErrorsMixin",
    "LimitedJSONParser",
    "LoginRateThrottle",
    "MessageCursorPagination",
    "Pagination",
    "PayloadTooLarge",
    "PegasusAutoSchema",
    "UserRateThrottle",
    "api_not_found",
    "error_payload",
    "error_response",
    "exception_handler",
    "handler500",
]
