"""Fuzzing the REST API with schemathesis (issue 12), beyond tests/api/test_schema.py.

tests/api/test_schema.py runs every operation with 10 examples and the schema checks. Here
each operation gets valid *and* invalid data (schemathesis' positive and negative modes) and
stricter checks, and a stateful run follows the links schemathesis infers between operations
(create a conversation → read, rename, post a message, end it; merge a node → revert it …):

* no 5xx, and status, content type and body as the schema documents;
* every error body is exactly the project's error shape (lib/api/):
  ``{"error": {"code": str, "detail": non-empty str, "fields": {str: [str]}}}``;
* no body, success or error, carries traceback text.

Each example runs in a savepoint rolled back afterwards, with a fresh token (a fuzzed
``DELETE /auth/tokens/`` must not turn the rest of the run into 401s).

Fast variant: 3 examples per operation and 3 stateful scenarios. Long run (500 per operation,
100 scenarios of up to 10 steps; figures printed)::

    PEGASUS_RELIABILITY=full .venv/bin/python -m pytest tests/reliability/test_fuzz_api.py
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
import schemathesis
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from django.utils import timezone
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ensure_resource_availability,
    response_schema_conformance,
    status_code_conformance,
    use_after_free,
)

from accounts.tokens import create_token
from chat.models import Conversation, Message
from memory.services.merge import merge_nodes
from tests.api.conftest import Graph
from tests.memory.factories import make_node

pytestmark = pytest.mark.django_db

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
# What a debug page, a Python traceback or a database error looks like in a body.
TRACEBACK = re.compile(
    r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+|"
    r"psycopg|django\.db\.utils|IntegrityError|ProgrammingError|Exception Value:|"
    r"<title>[^<]*Error[^<]*</title>"
)

# Loaded once at collection, through the project's WSGI app (the schema view needs no
# database), as tests/api/test_schema.py does.
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
OPERATIONS = [result.ok() for result in schema.get_all_operations()]


def _label(operation) -> str:
    return f"{operation.method.upper()} {operation.path}"


@pytest.fixture
def quiet_request_signals():
    """Keep Django's per-request connection cleanup away while the WSGI app serves the
    fuzzer: it would close the connection holding the test's transaction."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def fast_hashers(settings):
    # Every sign-in attempt hashes a password, even for an unknown username; the production
    # hasher would make POST /auth/token/ cost half a second per example.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def target(fast_hashers, db, alice, bob, settings, quiet_request_signals) -> dict:
    """Real ids of alice's for every path parameter (random ids only ever meet 404s), one of
    bob's conversations (alice must get a 404 for it), offline chat, no throttling."""
    settings.ANTHROPIC_API_KEY = ""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            "user": "1000000/min",
            "anon": "1000000/min",
            "login": "1000000/min",
        },
    }
    cache.clear()
    graph = Graph(alice)
    now = timezone.now()
    conversation = Conversation.objects.create(user=alice, title="Chat", started_at=now)
    Message.objects.create(
        user=alice, conversation=conversation, role="user", text="hello", created_at=now
    )
    decision = merge_nodes(
        user=alice, keep=graph.boss, absorb=make_node(alice, "Joe"), reason="test", now=now
    )
    Conversation.objects.create(user=bob, title="Bob's", started_at=now)
    yield {
        "user": alice,
        "ids": {
            "node_id": graph.acme.pk,
            "edge_id": graph.works_at.pk,
            "merge_id": decision.pk,
            "conversation_id": conversation.pk,
        },
    }
    cache.clear()


def _headers(user) -> dict:
    return {"Authorization": f"Token {create_token(user=user, device='fuzz').token}"}


def check_body(response) -> None:
    """The checks schemathesis does not make: the exact error shape, no traceback text."""
    text = response.content.decode("utf-8", "replace") if response.content else ""
    found = TRACEBACK.search(text)
    assert found is None, f"traceback text in a {response.status_code} body: {found.group()}"
    if response.status_code < 400:
        return
    body = response.json()
    assert isinstance(body, dict) and set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"code", "detail", "fields"}, error
    assert isinstance(error["code"], str) and re.fullmatch(r"[a-z_]+", error["code"]), error
    assert isinstance(error["detail"], str) and error["detail"].strip(), error
    assert isinstance(error["fields"], dict), error
    for name, messages in error["fields"].items():
        assert isinstance(name, str) and isinstance(messages, list), error
        assert messages and all(isinstance(m, str) and m for m in messages), error


def _in_savepoint(func):
    with transaction.atomic():
        try:
            return func()
        finally:
            transaction.set_rollback(True)


def report(capsys, full: bool, line: str) -> None:
    if full:  # the long run shows its figures without -s
        with capsys.disabled():
            print(f"\n{line}")
    else:
        print(line)


# --- every operation, valid and invalid data -----------------------------------------------


def fuzz_operation(operation, target, *, examples: int, full: bool) -> tuple[Counter, Counter]:
    """``examples`` positive and negative cases of ``operation``; the statuses and the
    generation modes seen."""
    statuses: Counter[int] = Counter()
    modes: Counter[str] = Counter()
    strategy = st.one_of(
        operation.as_strategy(generation_mode=GenerationMode.POSITIVE),
        operation.as_strategy(generation_mode=GenerationMode.NEGATIVE),
    )

    @given(case=strategy)
    @hypothesis_settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=not full,
        suppress_health_check=list(HealthCheck),
    )
    def check(case) -> None:
        # A well-formed id becomes a real one of alice's; a malformed one is kept (404).
        for name, value in (case.path_parameters or {}).items():
            if isinstance(value, int) and not isinstance(value, bool):
                case.path_parameters[name] = target["ids"][name]

        def call():
            response = case.call(headers=_headers(target["user"]))
            statuses[response.status_code] += 1
            modes[case.meta.generation.mode.value if case.meta else "?"] += 1
            case.validate_response(response, checks=CHECKS)
            check_body(response)

        _in_savepoint(call)

    try:
        check()
    except BaseException as exc:
        exc.add_note(f"while fuzzing {_label(operation)}")
        raise
    return statuses, modes


# Served through WSGI here, Django drains the streamed turn's async iterator and says so.
@pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume asynchronous")
def test_every_operation_survives_valid_and_invalid_data(target, scaled, reliability_full, capsys):
    """All operations in one test, so the fixture's graph is built once; every example runs
    in its own savepoint."""
    figures = []
    for operation in OPERATIONS:
        statuses, modes = fuzz_operation(
            operation, target, examples=scaled(3, 500), full=reliability_full
        )
        errors = sum(n for status, n in statuses.items() if status >= 500)
        figures.append(
            f"  {_label(operation)}: {sum(statuses.values())} requests "
            f"({', '.join(f'{n} {mode}' for mode, n in sorted(modes.items()))}), "
            f"statuses {dict(sorted(statuses.items()))}, server errors {errors}"
        )
        assert statuses and not errors
    report(capsys, reliability_full, "fuzz per operation:\n" + "\n".join(figures))


# --- stateful: the links between operations ------------------------------------------------


@pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume asynchronous")
def test_linked_operations_keep_their_promises(target, scaled, reliability_full, capsys):
    """Sequences along the inferred links: besides the checks above, a resource just created
    is available to the operations linked to it, and a deleted one is gone (404)."""
    calls: Counter[str] = Counter()
    statuses: Counter[int] = Counter()
    user = target["user"]

    class Workflow(schema.as_state_machine()):
        def setup(self):
            self._savepoint = transaction.atomic()
            self._savepoint.__enter__()

        def teardown(self):
            transaction.set_rollback(True)
            self._savepoint.__exit__(None, None, None)

        def get_call_kwargs(self, case):
            return {"headers": _headers(user)}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            calls[_label(case.operation)] += 1
            statuses[response.status_code] += 1
            case.validate_response(
                response,
                checks=[*CHECKS, use_after_free, ensure_resource_availability],
                transport_kwargs=kwargs,
            )
            check_body(response)

    Workflow.run(
        settings=hypothesis_settings(
            max_examples=scaled(3, 100),
            stateful_step_count=scaled(4, 10),
            deadline=None,
            database=None,
            derandomize=not reliability_full,
            suppress_health_check=list(HealthCheck),
        )
    )
    report(
        capsys,
        reliability_full,
        f"fuzz stateful: {sum(calls.values())} calls over "
        f"{len(calls)} operations, statuses {dict(sorted(statuses.items()))}, "
        f"server errors {sum(n for s, n in statuses.items() if s >= 500)}",
    )
    assert sum(calls.values()) > 3
