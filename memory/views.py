"""The memory explorer page (issue 7).

The page is a shell: it carries the API endpoints, the user's node kinds and the decay
constants (``memory.core.decay.client_constants``) in data attributes, and
``static/js/explorer.js`` fetches everything else from the REST API (``/api/v1/memory/…``).
No node name, alias or snippet is rendered on the server, so a name like
``<img src=x onerror=…>`` only ever reaches the page as JSON and is shown with
``textContent`` or drawn as canvas text.
"""

import json

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from memory.core.decay import client_constants
from memory.models import Node, NodeKind

# The REST API's memory endpoints the page calls (``memory/api/urls.py``); ``{id}`` is
# filled in by the script.
_API_ROUTES = {
    "graph": ("api-memory:graph", None),
    "nodes": ("api-memory:nodes", None),
    "node": ("api-memory:node", "node_id"),
    "edge": ("api-memory:edge", "edge_id"),
    "merge": ("api-memory:node-merge", "node_id"),
    "revert": ("api-memory:merge-revert", "merge_id"),
    "recall": ("api-memory:recall", None),
}


def _url_template(name: str, kwarg: str | None) -> str:
    if kwarg is None:
        return reverse(name)
    return reverse(name, kwargs={kwarg: 0}).replace("/0/", "/{id}/")


@login_required
@require_GET
def explorer(request):
    """The explorer shell for the signed-in user."""
    user_kinds = list(
        Node.objects.for_user(request.user)
        .order_by("kind")
        .values_list("kind", flat=True)
        .distinct()
    )
    return render(
        request,
        "memory/explorer.html",
        {
            "api": {key: _url_template(*route) for key, route in _API_ROUTES.items()},
            "kinds": NodeKind.values,
            "user_kinds": user_kinds,
            "conversation_url": _url_template("chat:conversation", "conversation_id"),
            # λ per stability and the dormancy threshold, from the one Python definition.
            "decay": json.dumps(client_constants()),
        },
    )
