"""Fuzzing the graph and batch inputs (issue 12): ``import_graph`` and ``write_batch`` from a
file, and the API's graph import, fed hypothesis-made documents — wrong types, missing and
unknown fields, huge strings, deep JSON, NUL characters, unpaired surrogates, invalid UTF-8,
numbers JSON cannot hold.

Every document is either accepted or rejected with one clear line (a ``CommandError`` naming
the file and the problem, or a 4xx in the API's error shape); a rejected document changes
nothing in the database. There is no batch endpoint in the API: batches only come in through
``write_batch`` and the extractor, and both go through ``commit_batch``.

Long run (500 documents per target, figures printed)::

    PEGASUS_RELIABILITY=full .venv/bin/python -m pytest tests/reliability/test_fuzz_inputs.py
"""

from __future__ import annotations

import copy
import functools
import json
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from io import StringIO

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from memory import embedding
from memory.core.cleaning import BatchError
from memory.models import (
    Edge,
    EdgeEpisode,
    Episode,
    MemoryKey,
    MergeDecision,
    Node,
    NodeEpisode,
    Snippet,
)
from memory.services.graph_io import GraphFormatError, export_graph, import_graph
from memory.services.write import commit_batch
from tests.memory.factories import HashEncoder

pytestmark = pytest.mark.django_db

NOW = "2026-03-01T12:00:00+00:00"
IMPORT_URL = "/api/v1/memory/import/"

GRAPH = {
    "format": "pegasus-graph/1",
    "nodes": [
        {
            "id": "n1",
            "kind": "PERSON",
            "name": "Trevor",
            "aliases": ["Trev"],
            "properties": {"age": 41, "likes": ["jazz", {"since": 2001}]},
            "confidence": 0.9,
            "provisional": False,
            "is_self": True,
            "episodes": ["e1"],
        },
        {"id": "n2", "kind": "ORG", "name": "Acme", "episodes": ["e1", "e2"]},
        {"id": "n3", "kind": "PLACE", "name": "Leeds"},
    ],
    "edges": [
        {
            "id": "x1",
            "source": "n1",
            "relation": "WORKS_AT",
            "target": "n2",
            "strength": 80.0,
            "last_touched_at": "2026-01-01T00:00:00+00:00",
            "confidence": 0.9,
            "stability": "mutable",
            "cardinality": "one_to_one",
            "expires_at": None,
            "dormant": False,
            "superseded_by": None,
            "episodes": ["e1"],
            "snippet": {"text": "I work at Acme", "evidence": "work"},
        },
        {
            "id": "x2",
            "source": "n1",
            "relation": "LIVES_IN",
            "target": "n3",
            "stability": "time_bound",
            "expires_at": "2027-01-01T00:00:00Z",
        },
    ],
    "episodes": [
        {
            "id": "e1",
            "started_at": "2026-01-01T00:00:00+00:00",
            "ended_at": "2026-01-01T01:00:00+00:00",
            "summary": "Work talk",
            "importance": 0.5,
            "tags": ["work"],
        },
        {"id": "e2", "summary": "Later"},
    ],
}

BATCH = {
    "format": "pegasus-batch/1",
    "self_name": "Trevor",
    "episode": {
        "started_at": "2026-02-01T10:00:00+00:00",
        "summary": "Drinks with Bill.",
        "importance": 0.4,
        "tags": ["friends"],
    },
    "entities": [
        {
            "ref": "a",
            "kind": "PERSON",
            "name": "Bill",
            "aliases": ["Billy"],
            "properties": {"city": "Leeds", "pets": [{"name": "Rex"}]},
            "confidence": 0.95,
            "hint": None,
        },
        {"ref": "b", "kind": "ORG", "name": "Acme", "confidence": 0.8},
    ],
    "relations": [
        {
            "source": "user",
            "relation": "HAS_FRIEND",
            "target": "a",
            "confidence": 0.8,
            "stability": "stable",
            "cardinality": "one_to_many",
            "expires_at": None,
            "snippet": "my friend Bill from Leeds",
            "evidence": "friend",
            "message": None,
        },
        {
            "source": "a",
            "relation": "WORKS_AT",
            "target": "b",
            "confidence": 0.7,
            "snippet": "Bill works at Acme",
            "evidence": "works",
        },
    ],
}


@pytest.fixture(autouse=True)
def fast_hashers(settings):
    # Autouse fixtures come first, so alice is created with it: the production hasher costs
    # a second per test under load, and nothing here is about passwords.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def stand_in_encoder():
    # The inputs are under test, not the embeddings, and the real model would make every
    # accepted document slow.
    with embedding.use_encoder(HashEncoder()):
        yield


# --- documents ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Raw:
    """JSON text spliced into a document verbatim: what ``json.dumps`` cannot write (nesting
    deeper than its recursion limit, an integer of 5 000 digits, 1e400, NaN)."""

    text: str


def _deep(depth: int, opener: str) -> Raw:
    closer = {"[": "]", '{"a":': "}"}[opener]
    return Raw(opener * depth + "0" + closer * depth)


def nasty_strings() -> st.SearchStrategy[str]:
    lone_surrogate = st.integers(0xD800, 0xDFFF).map(chr)
    return st.one_of(
        st.text(max_size=30),
        st.text(max_size=10).map(lambda t: f"{t}\x00{t}"),
        st.tuples(st.text(max_size=10), lone_surrogate).map("".join),
        st.sampled_from([64, 65, 200, 201, 501, 5000, 300_000]).map(lambda n: "Ab " * (n // 3)),
        st.sampled_from(
            [
                "",
                " ",
                "\n",
                "WORKS_AT",
                "n1",
                "e1",
                "x1",
                "user",
                "PERSON",
                "2026-01-01T00:00:00",
                "2026-13-45T99:00:00Z",
                "pegasus-graph/1",
                "pegasus-batch/1",
                "\u202eevil",
                "a\nb\r\nc",
                "\ufeff",
            ]
        ),
    )


def scalars() -> st.SearchStrategy:
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**20), 10**20),
        st.floats(allow_nan=False, allow_infinity=False),
        nasty_strings(),
        st.sampled_from(
            [
                Raw("1e400"),
                Raw("-1e400"),
                Raw("NaN"),
                Raw("Infinity"),
                Raw("9" * 5000),
                Raw("-0"),
                Raw("1E-400"),
            ]
        ),
        st.integers(65, 3000).map(lambda n: _deep(n, "[")),
        st.integers(65, 3000).map(lambda n: _deep(n, '{"a":')),
    )


def junk() -> st.SearchStrategy:
    return st.recursive(
        scalars(),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(nasty_strings(), inner, max_size=4)
        ),
        max_leaves=8,
    )


def _paths(value, prefix=()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for key, inner in value.items():
            out += _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            out += _paths(inner, (*prefix, index))
    return out


def _at(doc, path):
    for step in path:
        doc = doc[step]
    return doc


@st.composite
def documents(draw, base: dict):
    """``base`` as is, or with one field replaced, removed or added, or the whole document
    replaced; then encoded as bytes (sometimes not valid UTF-8)."""
    doc = copy.deepcopy(base)
    mutation = draw(
        st.sampled_from(["none", "replace", "replace", "replace", "remove", "add", "whole"])
    )
    if mutation == "whole":
        doc = draw(junk())
    elif mutation != "none":
        paths = _paths(base)[1:]
        if mutation == "add":
            path = draw(
                st.sampled_from([p for p in [(), *paths] if isinstance(_at(base, p), dict)])
            )
            _at(doc, path)[draw(nasty_strings())] = draw(junk())
        else:
            path = draw(st.sampled_from(paths))
            parent = _at(doc, path[:-1])
            if mutation == "remove":
                del parent[path[-1]]
            else:
                parent[path[-1]] = draw(junk())
    return encode(doc, ascii_only=draw(st.booleans()), corrupt=draw(st.integers(0, 9)) == 0)


def encode(doc, *, ascii_only: bool = True, corrupt: bool = False) -> bytes:
    raws: list[Raw] = []

    def placeholder(value):
        if isinstance(value, Raw):
            raws.append(value)
            return f"\x01raw{len(raws) - 1}\x01"
        raise TypeError(type(value).__name__)

    text = json.dumps(doc, default=placeholder, ensure_ascii=ascii_only)
    for i, raw in enumerate(raws):
        text = text.replace(f'"\\u0001raw{i}\\u0001"', raw.text, 1)
    # A lone surrogate written as UTF-8 is invalid UTF-8 (what a broken encoder produces).
    data = text.encode("utf-8", "surrogatepass")
    if corrupt:
        middle = len(data) // 2
        data = data[:middle] + b"\xff\xc3(" + data[middle:]
    return data


# --- the database's state -----------------------------------------------------------------------

TABLES = (Node, Edge, Episode, Snippet, MemoryKey, NodeEpisode, EdgeEpisode, MergeDecision)


def state(user) -> tuple:
    """Every memory table's row count (all users) and ``user``'s whole graph."""
    return (tuple(model.objects.count() for model in TABLES), export_graph(user=user))


def one_example(test):
    """Each example in a savepoint rolled back afterwards: every document meets the same
    database (an accepted graph would otherwise make the next identical one a conflict)."""

    @functools.wraps(test)
    def wrapped(*args, **kwargs):
        with transaction.atomic():
            try:
                return test(*args, **kwargs)
            finally:
                transaction.set_rollback(True)

    return wrapped


def run_examples(test, strategy, *, examples: int, full: bool) -> None:
    given(strategy)(
        hypothesis_settings(
            max_examples=examples,
            deadline=None,
            database=None,
            derandomize=not full,
            suppress_health_check=[
                HealthCheck.too_slow,
                HealthCheck.data_too_large,
                HealthCheck.large_base_example,
            ],
        )(test)
    )()


def report(capsys, full: bool, line: str) -> None:
    if full:  # the long run shows its figures without -s
        with capsys.disabled():
            print(f"\n{line}")
    else:
        print(line)


def assert_clear_line(message: str, *, starts: str) -> None:
    assert message.startswith(starts) and len(message) > len(starts) + 10, message
    assert "\n" not in message and "Traceback" not in message, message
    message.encode("utf-8")  # printable: no unpaired surrogate copied from the input


# --- the commands -------------------------------------------------------------------------------


@pytest.mark.parametrize(("command", "base"), [("import_graph", GRAPH), ("write_batch", BATCH)])
def test_commands_accept_or_reject_any_document_cleanly(
    command, base, alice, tmp_path, scaled, reliability_full, capsys
):
    """Random documents through ``call_command``: success, or a one-line ``CommandError``
    naming the file and the problem with the database exactly as before."""
    outcomes: Counter[str] = Counter()
    path = tmp_path / "input.json"

    @one_example
    def check(data: bytes) -> None:
        path.write_bytes(data)
        before = state(alice)
        try:
            call_command(command, str(path), "--user", "alice", "--now", NOW, stdout=StringIO())
        except CommandError as exc:
            assert_clear_line(str(exc), starts=str(path))
            assert state(alice) == before, "a rejected document changed the database"
            outcomes["rejected"] += 1
        else:
            outcomes["accepted"] += 1

    run_examples(check, documents(base), examples=scaled(25, 500), full=reliability_full)
    report(
        capsys,
        reliability_full,
        f"fuzz {command}: {sum(outcomes.values())} documents, "
        f"{outcomes['accepted']} accepted, {outcomes['rejected']} rejected with a clear "
        "message, 0 crashes",
    )
    assert outcomes["accepted"] and outcomes["rejected"]


def test_the_api_import_accepts_or_rejects_any_document_cleanly(
    alice, settings, scaled, reliability_full, capsys
):
    """The same documents as request bodies of ``POST /api/v1/memory/import/``: 201, or a 4xx
    in the error shape with nothing stored; never a 5xx."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            "user": "100000/min",
            "anon": "100000/min",
            "login": "100000/min",
        },
    }
    cache.clear()
    client = APIClient()
    client.force_authenticate(alice)
    statuses: Counter[int] = Counter()

    @one_example
    def check(data: bytes) -> None:
        before = state(alice)
        response = client.generic("POST", IMPORT_URL, data, content_type="application/json")
        statuses[response.status_code] += 1
        if response.status_code == 201:
            return
        assert response.status_code in (400, 409, 413), response.content[:500]
        body = response.json()
        assert set(body) == {"error"} and set(body["error"]) == {"code", "detail", "fields"}
        assert_clear_line(body["error"]["detail"], starts="")
        assert state(alice) == before, "a rejected import changed the database"

    run_examples(check, documents(GRAPH), examples=scaled(25, 500), full=reliability_full)
    report(
        capsys,
        reliability_full,
        f"fuzz POST {IMPORT_URL}: {sum(statuses.values())} "
        f"documents, statuses {dict(sorted(statuses.items()))}, 0 server errors",
    )
    assert statuses[201] and statuses[400]


# --- the defects the fuzzing found (each test fails without its fix) --------------------------


def graph_with(**node_fields) -> dict:
    doc = copy.deepcopy(GRAPH)
    doc["nodes"][1].update(node_fields)
    return doc


def batch_with(**entity_fields) -> dict:
    doc = copy.deepcopy(BATCH)
    doc["entities"][0].update(entity_fields)
    return doc


UNSTORABLE = [
    pytest.param({"name": "Ac\x00me"}, "nodes[1].name contains a NUL character", id="nul"),
    pytest.param(
        {"name": "Ac\ud800me"}, "nodes[1].name contains an unpaired surrogate", id="surrogate"
    ),
    pytest.param(
        {"properties": {"k": ["x\x00"]}},
        "nodes[1].properties.k[0] contains a NUL",
        id="nul-in-properties",
    ),
    pytest.param(
        {"properties": {"k\x00": 1}}, 'has a key "k\\u0000" that contains a NUL', id="nul-in-a-key"
    ),
    pytest.param(
        {"properties": {"k": _deep(200, "[")}}, "is nested more than 64 levels deep", id="deep"
    ),
]


@pytest.mark.parametrize(("fields", "message"), UNSTORABLE)
def test_import_graph_names_what_postgresql_could_not_store(alice, tmp_path, fields, message):
    path = tmp_path / "graph.json"
    path.write_bytes(encode(graph_with(**fields)))
    with pytest.raises(CommandError) as caught:
        call_command("import_graph", str(path), "--user", "alice", stdout=StringIO())
    assert message in str(caught.value)
    assert_clear_line(str(caught.value), starts=str(path))
    assert Node.objects.count() == 0


@pytest.mark.parametrize(("fields", "message"), UNSTORABLE)
def test_write_batch_names_what_postgresql_could_not_store(alice, tmp_path, fields, message):
    path = tmp_path / "batch.json"
    path.write_bytes(encode(batch_with(**fields)))
    with pytest.raises(CommandError) as caught:
        call_command("write_batch", str(path), "--user", "alice", stdout=StringIO())
    assert message.replace("nodes[1]", "entities[0]") in str(caught.value)
    assert str(caught.value).endswith("; nothing was written")
    assert (Node.objects.count(), Episode.objects.count()) == (0, 0)


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        pytest.param(
            batch_with(name="B" * 201), "has a name longer than 200 characters", id="entity-name"
        ),
        pytest.param(
            {**BATCH, "relations": [{**BATCH["relations"][0], "relation": "HAS_" + "F" * 61}]},
            "has a label longer than 64 characters",
            id="relation-label",
        ),
        pytest.param(
            {**BATCH, "relations": [{**BATCH["relations"][0], "target": "Z" * 201}]},
            "has a name longer than 200 characters",
            id="provisional-end",
        ),
        pytest.param(
            {**BATCH, "self_name": "T" * 201},
            "self_name is longer than 200 characters",
            id="self-name",
        ),
    ],
)
def test_write_batch_refuses_names_longer_than_their_columns(alice, tmp_path, doc, message):
    path = tmp_path / "batch.json"
    path.write_bytes(encode(doc))
    with pytest.raises(CommandError) as caught:
        call_command("write_batch", str(path), "--user", "alice", stdout=StringIO())
    assert message in str(caught.value)
    assert (Node.objects.count(), Episode.objects.count()) == (0, 0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("[" * 100_000 + "]" * 100_000, "it is nested too deeply", id="deep"),
        pytest.param(
            '{"n": ' + "9" * 5000 + "}", "Exceeds the limit (4300 digits)", id="long-integer"
        ),
        pytest.param('{"n": NaN}', "NaN is not a JSON value", id="nan"),
        pytest.param('{"n": 1e400}', "the number 1e400 is too large", id="overflow"),
    ],
)
@pytest.mark.parametrize("command", ["import_graph", "write_batch"])
def test_the_commands_refuse_json_python_would_choke_on(alice, tmp_path, command, text, message):
    path = tmp_path / "input.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        call_command(command, str(path), "--user", "alice", stdout=StringIO())
    assert str(caught.value).startswith(f"{path} is not valid JSON: {message}")
    assert_clear_line(str(caught.value), starts=str(path))


def test_services_refuse_numbers_jsonb_cannot_hold(alice):
    """A caller's dict (the extractor's parsed tool input, say) can hold Infinity or NaN,
    which no file or request body gets past the parser with."""
    with pytest.raises(GraphFormatError, match=r'\(id "n2"\): properties\.k is not a finite'):
        import_graph(
            user=alice,
            data=graph_with(properties={"k": float("inf")}),
            now=datetime.fromisoformat(NOW),
        )
    with pytest.raises(BatchError, match=r"entities\[0\]\.confidence is not a finite"):
        commit_batch(
            user=alice, batch=batch_with(confidence=float("nan")), now=datetime.fromisoformat(NOW)
        )
    assert (Node.objects.count(), Episode.objects.count()) == (0, 0)


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        pytest.param(b"[" * 100_000 + b"]" * 100_000, "nested too deeply", id="deep"),
        pytest.param(
            b'{"format": "pegasus-graph/1", "nodes": [{"id": "n1", "kind": "ORG", '
            b'"name": "Acme", "properties": {"k": 1e400}}]}',
            "the number 1e400 is too large",
            id="overflow",
        ),
        pytest.param(
            b'{"format": "pegasus-graph/1", "nodes": [{"id": "n1", "kind": "ORG", '
            b'"name": "Acme", "properties": {"a\\nb": "\\u0000"}}]}',
            "nodes[0].properties.a\\nb contains a NUL character",
            id="nul-under-a-newline-key",
        ),
    ],
)
def test_the_api_import_answers_400_for_what_json_or_postgresql_would_choke_on(alice, body, detail):
    client = APIClient()
    client.force_authenticate(alice)
    response = client.generic("POST", IMPORT_URL, body, content_type="application/json")
    assert response.status_code == 400, response.content[:300]
    assert detail in response.json()["error"]["detail"]
    assert_clear_line(response.json()["error"]["detail"], starts="")
    assert Node.objects.count() == 0


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        pytest.param(
            lambda g: g.update({"no\nway": 1}),
            "unknown top-level field(s): no\\nway",
            id="top-level",
        ),
        pytest.param(
            lambda g: g["nodes"][1].update({"x\ny": 1}), 'unknown field "x\\ny"', id="node-field"
        ),
        pytest.param(
            lambda g: g["nodes"][1].update(id="n\n2", kind="ANIMAL"),
            'nodes[1] (id "n\\n2"): "kind" must be one of',
            id="id",
        ),
        pytest.param(
            lambda g: g["edges"][0].update(target="n\n9"),
            '"target" names "n\\n9", which is not a node',
            id="reference",
        ),
    ],
)
def test_import_graph_messages_quoting_the_input_stay_one_line(alice, tmp_path, mutate, message):
    doc = copy.deepcopy(GRAPH)
    mutate(doc)
    path = tmp_path / "graph.json"
    path.write_bytes(encode(doc))
    with pytest.raises(CommandError) as caught:
        call_command("import_graph", str(path), "--user", "alice", stdout=StringIO())
    assert message in str(caught.value)
    assert_clear_line(str(caught.value), starts=str(path))


def test_a_message_quoting_an_unpaired_surrogate_stays_printable(alice, tmp_path):
    """The document is refused before its strings are checked (it is not an object), and
    the refusal quotes it: escaped, or printing the message would fail in turn."""
    path = tmp_path / "graph.json"
    path.write_bytes(encode([{"\ud800": None}]))
    with pytest.raises(CommandError) as caught:
        call_command("import_graph", str(path), "--user", "alice", stdout=StringIO())
    assert 'a graph must be a JSON object, got [{"\\ud800": null}]' in str(caught.value)
    assert_clear_line(str(caught.value), starts=str(path))
    client = APIClient()
    client.force_authenticate(alice)
    response = client.generic(
        "POST", IMPORT_URL, encode([{"\ud800": None}]), content_type="application/json"
    )
    assert response.status_code == 400
    assert "a graph must be a JSON object" in response.json()["error"]["detail"]
