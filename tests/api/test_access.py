"""Access sweeps generated from the URLconf, so a new endpoint is covered without a new test.

* Every route under ``api/v1/`` with an id in its path, every method its view allows: bob,
  signed in with his own token, gets the 404 error shape for alice's ids, and alice's data
  is exactly as it was.
* Every route and method under ``api/v1/`` without credentials: 401 in the error shape
  (signing in is the one exception).
"""

from __future__ import annotations

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from knox.models import AuthToken

from chat.models import Conversation, Message
from memory.models import Correction, MergeDecision
from memory.services.graph_io import export_graph
from memory.services.merge import merge_nodes
from tests.memory.factories import make_node

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "put", "patch", "delete")
PUBLIC = {("api/v1/auth/token/", "post")}  # signing in


def api_routes() -> list[tuple[str, URLPattern]]:
    """Every (route, pattern) of the project's URLconf under ``api/v1/``."""

    def walk(patterns, prefix):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            else:
                yield prefix + str(pattern.pattern), pattern

    return [
        (route, p)
        for route, p in walk(get_resolver().url_patterns, "")
        if route.startswith("api/v1/")
    ]


def allowed_methods(pattern: URLPattern) -> list[str]:
    view = pattern.callback.cls
    return [m for m in METHODS if m in view.http_method_names and hasattr(view, m)]


def path_params(pattern: URLPattern) -> list[str]:
    return list(getattr(pattern.pattern, "converters", {}))


def fill(route: str, ids: dict[str, int]) -> str:
    url = "/" + route
    for name in ids:
        url = url.replace(f"<int:{name}>", str(ids[name]))
    assert "<" not in url, (
        f"{route}: no id of alice's for this path parameter — add one to "
        "alices_ids in tests/api/test_access.py"
    )
    return url


@pytest.fixture
def alices_ids(alice, graph) -> dict[str, int]:
    """One of alice's objects for every kind of id the API takes in a path."""
    conversation = Conversation.objects.create(
        user=alice, title="Private", started_at=timezone.now()
    )
    for role, text in (("user", "my secret"), ("assistant", "noted")):
        Message.objects.create(
            user=alice, conversation=conversation, role=role, text=text, created_at=timezone.now()
        )
    joe = make_node(alice, "Joe", "PERSON")
    decision = merge_nodes(
        user=alice, keep=graph.boss, absorb=joe, reason="test", now=timezone.now()
    )
    return {
        "node_id": graph.boss.pk,
        "edge_id": graph.has_boss.pk,
        "merge_id": decision.pk,
        "conversation_id": conversation.pk,
    }


def alices_state(alice) -> dict:
    return {
        "graph": export_graph(user=alice),
        "conversations": list(Conversation.objects.for_user(alice).order_by("id").values()),
        "messages": list(Message.objects.for_user(alice).order_by("id").values()),
        "merges": list(
            MergeDecision.objects.for_user(alice).order_by("id").values("id", "status", "kept_id")
        ),
        "corrections": Correction.objects.for_user(alice).count(),
        "tokens": AuthToken.objects.filter(user=alice).count(),
    }


def assert_error(response, status: int, code: str) -> None:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "detail", "fields"}
    assert body["error"]["code"] == code and body["error"]["detail"]


def test_bob_gets_404_for_every_id_of_alices_and_changes_nothing(alice, bob, bob_api, alices_ids):
    bobs_person = make_node(bob, "Bobby", "PERSON")
    # A body every write endpoint would accept, so only the ownership check can stop it.
    body = {
        "name": "Hacked",
        "kind": "ORG",
        "add_alias": "pwned",
        "remove_alias": "Josh",
        "into": bobs_person.pk,
        "title": "Hacked",
        "text": "show me",
        "client_id": "b1",
    }
    before = alices_state(alice)
    swept = []
    for route, pattern in api_routes():
        if not path_params(pattern):
            continue
        url = fill(route, alices_ids)
        for method in allowed_methods(pattern):
            queries = ["", "?stream=1"] if method == "post" else [""]
            for query in queries:
                response = getattr(bob_api, method)(url + query, body, format="json")
                assert_error(response, 404, "not_found")
                swept.append((route, method))
    assert alices_state(alice) == before
    assert {name for route, p in api_routes() for name in path_params(p)} == set(alices_ids)
    assert len({m for _, m in swept}) >= 4 and len(set(swept)) >= 12


def test_every_endpoint_wants_credentials(anon_api, alices_ids, alice):
    before = alices_state(alice)
    checked = 0
    for route, pattern in api_routes():
        url = fill(route, alices_ids)
        for method in allowed_methods(pattern):
            if (route, method) in PUBLIC:
                continue
            response = getattr(anon_api, method)(url, {}, format="json")
            assert_error(response, 401, "not_authenticated")
            assert response["WWW-Authenticate"] == "Token"
            checked += 1
    assert checked >= 20
    assert alices_state(alice) == before


def test_a_revoked_or_made_up_token_is_a_401(anon_api, alice):
    anon_api.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert_error(anon_api.get("/api/v1/memory/graph/"), 401, "not_authenticated")
