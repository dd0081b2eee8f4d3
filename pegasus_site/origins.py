"""The websocket Origin check: scheme, host and port must be one of the site's own origins.

Channels' ``AllowedHostsOriginValidator`` compares only the host with ``ALLOWED_HOSTS``, so
a page on ``http://localhost:9999`` (any local program) or ``https://127.0.0.1`` could open a
socket carrying the user's cookies. ``SiteOriginValidator`` also requires the Origin's
scheme and port to match either

* an entry of ``CSRF_TRUSTED_ORIGINS`` (``https://chat.example.com``, ``https://*.example.com``
  for its subdomains), or
* the origin this socket is served on: the ``Host`` header's host and port, with ``https``
  when the connection is TLS (``wss``), when a TLS-ending proxy says so through
  ``SECURE_PROXY_SSL_HEADER`` (as for HTTP), or in production with ``SECURE_SSL_REDIRECT``
  on (no page is ever served over plain HTTP there).

A missing, ``null`` or unparsable Origin is refused. Ports are compared after filling in the
scheme's default (80 for http, 443 for https).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings

DEFAULT_PORTS = {"http": 80, "https": 443}

Origin = tuple[str, str, int]


def parse_origin(text: str) -> Origin | None:
    """``scheme://host[:port]`` → (scheme, lowercase host, port); ``None`` if it is not one
    (paths, credentials, other schemes and bad ports included)."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if (
        scheme not in DEFAULT_PORTS
        or not parts.hostname
        or parts.username is not None
        or parts.password is not None
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
    ):
        return None
    return scheme, parts.hostname.lower().rstrip("."), port or DEFAULT_PORTS[scheme]


def _headers(scope) -> dict[bytes, str]:
    out: dict[bytes, str] = {}
    for name, value in scope.get("headers", []):
        out.setdefault(name.lower(), value.decode("latin1"))
    return out


def served_origin(scope) -> Origin | None:
    """The origin a browser shows for the page that opened this socket on this server."""
    headers = _headers(scope)
    scheme = "https" if scope.get("scheme") in ("wss", "https") else "http"
    proxy_header = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy_header:
        name, value = proxy_header
        name = name.removeprefix("HTTP_").replace("_", "-").lower().encode()
        if headers.get(name, "").split(",")[0].strip() == value:
            scheme = "https"
    if getattr(settings, "SECURE_SSL_REDIRECT", False):
        scheme = "https"
    host = headers.get(b"host")
    if not host:
        return None
    return parse_origin(f"{scheme}://{host}")


def trusted_origins() -> list[tuple[str, str, int, bool]]:
    """``CSRF_TRUSTED_ORIGINS`` parsed: (scheme, host, port, subdomains-only wildcard)."""
    out = []
    for entry in getattr(settings, "CSRF_TRUSTED_ORIGINS", []):
        wildcard = "://*." in entry
        parsed = parse_origin(entry.replace("://*.", "://", 1) if wildcard else entry)
        if parsed is not None:
            out.append((*parsed, wildcard))
    return out


def origin_allowed(origin_header: str | None, scope) -> bool:
    """Whether a socket whose Origin header is ``origin_header`` may connect (pure apart from
    settings)."""
    if not origin_header:
        return False
    origin = parse_origin(origin_header)
    if origin is None:
        return False
    if origin == served_origin(scope):
        return True
    scheme, host, port = origin
    for t_scheme, t_host, t_port, wildcard in trusted_origins():
        if (scheme, port) != (t_scheme, t_port):
            continue
        if host == t_host if not wildcard else host.endswith("." + t_host):
            return True
    return False


class SiteOriginValidator:
    """ASGI middleware for websockets: refuses the handshake (403) unless the Origin is one
    of the site's own (module docstring)."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            raise ValueError("SiteOriginValidator only wraps websocket connections")
        if origin_allowed(_headers(scope).get(b"origin"), scope):
            return await self.application(scope, receive, send)
        return await WebsocketDenier()(scope, receive, send)
