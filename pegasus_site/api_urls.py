"""Everything under ``/api/``: version 1 of the API, its OpenAPI schema and Swagger UI, and a
catch-all that answers unknown paths in the API's error shape."""

from csp.decorators import csp_update
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts.api import TokenListView, TokenView
from lib.api import JsonErrorsMixin, api_not_found

API_DESCRIPTION = """\
Chat with an assistant that remembers you, and explore, correct, export and import that memory.

**Authentication.** `POST /api/v1/auth/token/` with your username (or email) and password
returns a token for this device; send it as `Authorization: Token <token>`. Tokens expire
after a month without use. The website's session cookie works too (unsafe methods then need
the `X-CSRFToken` header).

**Errors** all have one shape: `{"error": {"code", "detail", "fields"}}` — a stable `code`, a
`detail` sentence to show a person, and `fields` naming the inputs at fault. Another user's id
is always a 404, exactly like a missing one.

**Lists** are pages (`count`, `next`, `previous`, `results`; `?page=`, `?page_size=` up to
200); a conversation's messages use cursor pages: follow `next`.

**Throttling**: per user and per address; `429` with `Retry-After` when over the limit.

**Streaming**: `POST /api/v1/conversations/{id}/messages/?stream=1` answers with server-sent
events `recall`, `delta`…, `done` (or `error`).
"""

TAGS = [
    {"name": "auth", "description": "Device tokens: sign in, sign out, sign out everywhere."},
    {"name": "chat", "description": "Conversations, messages and turns with the assistant."},
    {
        "name": "memory",
        "description": "Your memory graph: nodes (people, places, things), "
        "edges (the memories), merges, episodes, recall, "
        "export and import.",
    },
]


class SchemaView(JsonErrorsMixin, SpectacularAPIView):
    """The OpenAPI 3 schema (YAML; ``?format=json`` for JSON)."""

    custom_settings = {"DESCRIPTION": API_DESCRIPTION, "TAGS": TAGS}


class DocsView(JsonErrorsMixin, SpectacularSwaggerSplitView):
    """Swagger UI, served from drf-spectacular-sidecar's static files (no CDN)."""


auth_patterns = [
    path("token/", TokenView.as_view(), name="token"),
    path("tokens/", TokenListView.as_view(), name="tokens"),
]

v1_patterns = [
    path("auth/", include((auth_patterns, "api-auth"))),
    path("", include("chat.api.urls")),
    path("memory/", include("memory.api.urls")),
]

# Swagger UI sets a few inline styles of its own; the page shows no user data.
swagger = csp_update({"style-src": ["'unsafe-inline'"]})(
    DocsView.as_view(url_name="api-schema", title="Pegasus API")
)

urlpatterns = [
    path("v1/", include(v1_patterns)),
    path("schema/", SchemaView.as_view(), name="api-schema"),
    path("docs/", swagger, name="api-docs"),
    re_path(r"", api_not_found),
]
