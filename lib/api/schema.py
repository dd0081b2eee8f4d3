"""The API's OpenAPI schema class: every operation documents the error responses it can
give, in the one error shape."""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema

from lib.api.errors import ErrorSerializer

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
