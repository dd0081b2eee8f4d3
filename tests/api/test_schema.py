"""The OpenAPI schema: valid without a single warning, every error documented with the error
shape, and the running API conforming to it (schemathesis)."""

from __future__ import annotations

import json

import pytest
import schemathesis
from django.core.management import call_command
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.utils import timezone
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.tokens import create_token
from chat.models import Conversation, Message
from memory.services.merge import merge_nodes
from tests.api.conftest import Graph
from tests.memory.factories import make_node


def test_the_schema_validates_without_warnings(tmp_path):
    target = tmp_path / "schema.json"
    # --fail-on-warn turns any generator warning (an undocumented view, a type it had to
    # guess, an enum name clash) into a CommandError, which fails this test.
    call_command(
        "spectacular",
        "--validate",
        "--fail-on-warn",
        "--format",
        "openapi-json",
        "--file",
        str(target),
    )
    schema = json.loads(target.read_text())
    assert schema["openapi"].startswith("3.")
    assert "/api/v1/memory/graph/" in schema["paths"]


@pytest.mark.django_db
def test_every_error_response_is_documented_with_the_error_shape(anon_api):
    schema = anon_api.get("/api/schema/?format=json").json()
    components = schema["components"]["schemas"]
    assert components["Error"]["properties"]["error"]["$ref"] == "#/components/schemas/ErrorBody"
    assert set(components["ErrorBody"]["required"]) == {"code", "detail", "fields"}
    errors = 0
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            codes = set(operation["responses"])
            assert {"429", "500"} <= codes, (method, path)
            if operation.get("security"):
                assert {"401", "403"} <= codes, (method, path)
            if "{" in path:
                assert "404" in codes, (method, path)
            for code, response in operation["responses"].items():
                if int(code) >= 400:
                    errors += 1
                    assert response["description"], (method, path, code)
                    assert response["content"] == {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                    }, (method, path, code)
    assert errors > 100


# --- schemathesis -----------------------------------------------------------------------------


@pytest.fixture
def quiet_request_signals():
    """Like Django's test client, keep the per-request connection cleanup away while the
    WSGI app serves schemathesis: it would close the connection holding the test's
    transaction."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def fuzz_target(db, alice, settings, quiet_request_signals) -> dict:
    """alice's token and real ids for every path parameter (random ids would only ever meet
    404s), with throttling out of the way."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            "user": "100000/min",
            "anon": "100000/min",
            "login": "100000/min",
        },
    }
    graph = Graph(alice)
    conversation = Conversation.objects.create(user=alice, title="Chat", started_at=timezone.now())
    Message.objects.create(
        user=alice, conversation=conversation, role="user", text="hello", created_at=timezone.now()
    )
    decision = merge_nodes(
        user=alice,
        keep=graph.boss,
        absorb=make_node(alice, "Joe"),
        reason="test",
        now=timezone.now(),
    )
    return {
        "headers": {"Authorization": f"Token {create_token(user=alice, device='fuzz').token}"},
        "ids": {
            "node_id": graph.acme.pk,
            "edge_id": graph.works_at.pk,
            "merge_id": decision.pk,
            "conversation_id": conversation.pk,
        },
    }


# Loaded once at collection, through the project's WSGI app (the schema view needs no
# database). pytest-django has configured Django by then.
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
schema.config.generation.update(max_examples=10, deterministic=True)


@schema.parametrize()
# Served through WSGI here, Django drains the streamed turn's async iterator and says so.
@pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume asynchronous")
# One fresh graph per operation on purpose; the examples of an operation share it.
@hypothesis_settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_api_conforms_to_its_schema(case, fuzz_target):
    """No 5xx, and every status, content type and JSON body as documented — for every
    operation, the streamed turn (``?stream=1``, a text/event-stream string) included."""
    for name in case.path_parameters or {}:
        case.path_parameters[name] = fuzz_target["ids"][name]
    case.call_and_validate(
        headers=fuzz_target["headers"],
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
        ],
    )
