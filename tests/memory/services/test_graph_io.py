"""Graph JSON import and export (SPEC §6.1)."""

import copy
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory.models import (
    Edge,
    EdgeEpisode,
    Episode,
    ExtractionStatus,
    MemoryKey,
    Node,
    NodeEpisode,
    Snippet,
)
from memory.services.graph_io import (
    FORMAT,
    GraphConflictError,
    GraphFormatError,
    canonical_graph,
    export_graph,
    import_graph,
)

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
RICH = Path(__file__).resolve().parent.parent / "fixtures" / "rich_graph.json"


def rich() -> dict:
    return json.loads(RICH.read_text(encoding="utf-8"))


def small() -> dict:
    """A minimal valid graph the error table mutates."""
    return {
        "format": FORMAT,
        "nodes": [
            {"id": "n1", "kind": "PERSON", "name": "Trevor", "is_self": True},
            {"id": "n2", "kind": "ORG", "name": "Acme"},
        ],
        "edges": [
            {
                "id": "x1",
                "source": "n1",
                "relation": "WORKS_AT",
                "target": "n2",
                "last_touched_at": "2026-01-01T00:00:00+00:00",
            },
        ],
        "episodes": [{"id": "e1"}],
    }


def counts(user) -> dict:
    return {
        model.__name__: model.objects.for_user(user).count()
        for model in (Node, Edge, Episode, Snippet, NodeEpisode, EdgeEpisode, MemoryKey)
    }


# --- round trip ----------------------------------------------------------------------------


def test_rich_graph_round_trips_losslessly(alice):
    import_graph(user=alice, data=rich(), now=NOW)
    exported = export_graph(user=alice)
    assert canonical_graph(exported) == canonical_graph(rich())


def test_round_trip_preserves_every_field_value_of_the_fixture(alice):
    # Independent of canonical_graph: compare item by item after mapping labels by position
    # (import keeps file order, export orders by key).
    original = rich()
    import_graph(user=alice, data=original, now=NOW)
    exported = export_graph(user=alice)
    node_map = {a["id"]: b["id"] for a, b in zip(original["nodes"], exported["nodes"], strict=True)}
    edge_map = {a["id"]: b["id"] for a, b in zip(original["edges"], exported["edges"], strict=True)}
    episode_map = {
        a["id"]: b["id"] for a, b in zip(original["episodes"], exported["episodes"], strict=True)
    }
    for a, b in zip(original["nodes"], exported["nodes"], strict=True):
        expected = {
            **a,
            "id": node_map[a["id"]],
            "episodes": [episode_map[e] for e in a["episodes"]],
        }
        assert b == expected
    for a, b in zip(original["edges"], exported["edges"], strict=True):
        expected = {
            "occurred": "",  # optional on import, always exported
            **a,
            "id": edge_map[a["id"]],
            "source": node_map[a["source"]],
            "target": node_map[a["target"]],
            "superseded_by": edge_map[a["superseded_by"]] if a["superseded_by"] else None,
            "episodes": [episode_map[e] for e in a["episodes"]],
        }
        assert b == expected
    for a, b in zip(original["episodes"], exported["episodes"], strict=True):
        assert b == {**a, "id": episode_map[a["id"]]}


def test_export_is_deterministic_and_reimports_to_the_same_graph(alice, bob):
    import_graph(user=alice, data=rich(), now=NOW)
    first = export_graph(user=alice)
    assert json.dumps(export_graph(user=alice)) == json.dumps(first)
    import_graph(user=bob, data=first, now=NOW)
    assert canonical_graph(export_graph(user=bob)) == canonical_graph(first)


def test_export_ids_are_row_keys_and_strength_is_the_stored_value(alice):
    import_graph(user=alice, data=rich(), now=NOW)
    exported = export_graph(user=alice)
    edge = Edge.objects.for_user(alice).get(relation="HAS_BOSS")
    item = next(e for e in exported["edges"] if e["relation"] == "HAS_BOSS")
    assert item["id"] == f"x{edge.pk}"
    assert item["source"] == f"n{edge.source_id}"
    # Stored S0, not the strength decayed to today.
    assert item["strength"] == 81.87307530779819
    assert {n["id"] for n in exported["nodes"]} == {
        f"n{pk}" for pk in Node.objects.for_user(alice).values_list("pk", flat=True)
    }
    assert {e["id"] for e in exported["episodes"]} == {
        f"e{pk}" for pk in Episode.objects.for_user(alice).values_list("pk", flat=True)
    }


def test_canonical_graph_ignores_labels_order_and_datetime_spelling():
    graph = rich()
    relabelled = copy.deepcopy(graph)
    rename = {
        item["id"]: f"other-{item['id']}"
        for section in ("nodes", "edges", "episodes")
        for item in relabelled[section]
    }
    for section in ("nodes", "edges", "episodes"):
        for item in relabelled[section]:
            item["id"] = rename[item["id"]]
            if "episodes" in item:
                item["episodes"] = [rename[e] for e in reversed(item["episodes"])]
        relabelled[section].reverse()
    for edge in relabelled["edges"]:
        edge["source"], edge["target"] = rename[edge["source"]], rename[edge["target"]]
        if edge["superseded_by"]:
            edge["superseded_by"] = rename[edge["superseded_by"]]
    relabelled["edges"][0]["last_touched_at"] = "2026-03-01T10:30:00+02:00"  # = 08:30 UTC
    assert relabelled["edges"][0]["relation"] == "IS_NICKNAME_OF"
    assert canonical_graph(relabelled) == canonical_graph(graph)
    relabelled["edges"][0]["strength"] = 12.5
    assert canonical_graph(relabelled) != canonical_graph(graph)


# --- what import writes ---------------------------------------------------------------------


def test_import_writes_supersession_snippets_expiry_and_episode_links(alice):
    summary = import_graph(user=alice, data=rich(), now=NOW)
    assert (summary.nodes, summary.edges, summary.episodes, summary.snippets) == (12, 13, 3, 10)
    lives = list(Edge.objects.for_user(alice).filter(relation="LIVES_IN").order_by("id"))
    assert [e.target.name for e in lives] == ["Paris", "Berlin", "Paris"]
    assert lives[0].superseded_by_id == lives[1].pk
    assert lives[1].superseded_by_id == lives[2].pk
    assert lives[2].superseded_by_id is None
    assert list(Edge.objects.for_user(alice).live().filter(relation="LIVES_IN")) == [lives[2]]
    # Each snippet belongs to its edge and is the edge's current one.
    for edge in Edge.objects.for_user(alice).exclude(snippet=None).select_related("snippet"):
        assert edge.snippet.edge_id == edge.pk
        assert edge.snippet.user_id == alice.pk
        assert edge.snippet.confidence == edge.confidence
    marathon = Edge.objects.for_user(alice).get(relation="TRAINS_FOR")
    assert marathon.expires_at == datetime(2026, 9, 28, tzinfo=UTC)
    assert marathon.created_at == NOW
    touched = Edge.objects.for_user(alice).get(relation="WORKS_AT", source__is_self=True)
    assert touched.last_touched_at == datetime(2026, 1, 5, 9, 30, 15, 123456, tzinfo=UTC)
    assert set(Episode.objects.for_user(alice).values_list("status", flat=True)) == {
        ExtractionStatus.SKIPPED
    }
    trevor = Node.objects.for_user(alice).get(is_self=True)
    assert trevor.normalised_name == "trevor"
    assert trevor.episodes.count() == 3
    assert EdgeEpisode.objects.for_user(alice).count() == 10


def test_import_creates_a_key_for_every_name_alias_and_relation_label(alice):
    summary = import_graph(user=alice, data=rich(), now=NOW)
    graph = rich()
    forms = sum(1 + len(n["aliases"]) for n in graph["nodes"])
    labels = {e["relation"] for e in graph["edges"]}
    assert summary.node_keys == forms
    assert summary.relation_keys == len(labels)
    assert set(
        MemoryKey.objects.for_user(alice).filter(node=None).values_list("text", flat=True)
    ) == {label.replace("_", " ").lower() for label in labels}
    trev = MemoryKey.objects.for_user(alice).get(text="Trev")
    assert trev.node.name == "Trevor"
    assert len(trev.embedding) == 384


def test_omitted_fields_take_the_defaults_of_a_new_row(alice):
    graph = small()
    del graph["edges"][0]["last_touched_at"]
    import_graph(user=alice, data=graph, now=NOW)
    edge = Edge.objects.for_user(alice).get()
    assert (
        edge.strength_at_touch,
        edge.last_touched_at,
        edge.stability,
        edge.cardinality,
        edge.dormant,
        edge.expires_at,
        edge.snippet_id,
    ) == (100.0, NOW, "stable", "one_to_many", False, None, None)
    acme = Node.objects.for_user(alice).get(name="Acme")
    assert (acme.aliases, acme.properties, acme.confidence, acme.provisional, acme.is_self) == (
        [],
        {},
        0.5,
        False,
        False,
    )


def test_a_document_with_only_the_format_is_an_empty_graph(alice):
    summary = import_graph(user=alice, data={"format": FORMAT}, now=NOW)
    assert (summary.nodes, summary.edges, summary.episodes, summary.node_keys) == (0, 0, 0, 0)
    assert export_graph(user=alice) == {"format": FORMAT, "nodes": [], "edges": [], "episodes": []}


def test_canonical_form_fills_an_omitted_touch_with_the_import_time(alice):
    graph = small()
    del graph["edges"][0]["last_touched_at"]
    import_graph(user=alice, data=graph, now=NOW)
    assert canonical_graph(export_graph(user=alice)) == canonical_graph(graph, now=NOW)
    assert canonical_graph(export_graph(user=alice)) != canonical_graph(graph)


def test_import_into_an_account_with_a_graph_adds_to_it(alice):
    import_graph(user=alice, data=rich(), now=NOW)
    before = counts(alice)
    extra = {
        "format": FORMAT,
        "nodes": [
            {"id": "a", "kind": "PERSON", "name": "Maria"},
            {"id": "b", "kind": "ORG", "name": "Globex"},
        ],
        "edges": [
            {
                "id": "r",
                "source": "a",
                "relation": "WORKS_AT",
                "target": "b",
                "last_touched_at": "2026-03-01T00:00:00Z",
            }
        ],
    }
    import_graph(user=alice, data=extra, now=NOW)
    after = counts(alice)
    assert after["Node"] == before["Node"] + 2
    assert after["Edge"] == before["Edge"] + 1
    # WORKS_AT already had a relation key: only the two names are new keys.
    assert after["MemoryKey"] == before["MemoryKey"] + 2


def test_import_rejects_nodes_that_exist_and_lists_them_and_writes_nothing(alice):
    import_graph(user=alice, data=small(), now=NOW)
    before = counts(alice)
    clash = {
        "format": FORMAT,
        "nodes": [
            {"id": "a", "kind": "ORG", "name": "  ACME "},
            {"id": "b", "kind": "PERSON", "name": "Acme"},  # other kind: no clash
            {"id": "c", "kind": "PERSON", "name": "trevor"},
        ],
    }
    with pytest.raises(GraphConflictError) as caught:
        import_graph(user=alice, data=clash, now=NOW)
    message = str(caught.value)
    assert message.startswith("2 nodes of this graph already exist in the account:")
    assert 'ORG "Acme"' in message and 'PERSON "Trevor"' in message
    assert "\n" not in message
    assert counts(alice) == before


def test_import_rejects_a_second_self_node_for_the_account(alice):
    import_graph(user=alice, data=small(), now=NOW)
    other = {
        "format": FORMAT,
        "nodes": [{"id": "me", "kind": "PERSON", "name": "Alice", "is_self": True}],
    }
    with pytest.raises(GraphConflictError, match='already has its self node "Trevor"'):
        import_graph(user=alice, data=other, now=NOW)
    assert Node.objects.for_user(alice).count() == 2


def test_import_needs_an_aware_now(alice):
    with pytest.raises(ValueError, match="timezone-aware"):
        import_graph(user=alice, data=small(), now=datetime(2026, 1, 1))


# --- format errors --------------------------------------------------------------------------


def _set(path, value):
    def mutate(graph):
        *keys, last = path
        target = graph
        for key in keys:
            target = target[key]
        target[last] = value

    return mutate


def _drop(path):
    def mutate(graph):
        *keys, last = path
        target = graph
        for key in keys:
            target = target[key]
        del target[last]

    return mutate


def _add_node(node):
    return lambda graph: graph["nodes"].append(node)


def _add_edge(edge):
    return lambda graph: graph["edges"].append(edge)


BAD = [
    ("format", _set(["format"], "pegasus-graph/2"), '"format" must be "pegasus-graph/1"'),
    ("nodes not a list", _set(["nodes"], {"n1": {}}), '"nodes" must be a list'),
    ("top-level typo", _set(["edgse"], []), "unknown top-level field(s): edgse"),
    ("node not an object", _set(["nodes", 1], "Acme"), "nodes[1]: must be an object"),
    ("missing kind", _drop(["nodes", 0, "kind"]), 'nodes[0] (id "n1"): "kind" is required'),
    (
        "bad kind",
        _set(["nodes", 1, "kind"], "COMPANY"),
        'nodes[1] (id "n2"): "kind" must be one of EVENT, ORG',
    ),
    ("empty name", _set(["nodes", 1, "name"], "  "), 'nodes[1] (id "n2"): "name" must not be'),
    ("punctuation name", _set(["nodes", 1, "name"], "..."), "has no usable characters"),
    (
        "confidence 1.5",
        _set(["nodes", 1, "confidence"], 1.5),
        '"confidence" must be a number from 0 to 1, got 1.5',
    ),
    ("confidence nan", _set(["nodes", 1, "confidence"], float("nan")), '"confidence" must be'),
    ("confidence bool", _set(["nodes", 1, "confidence"], True), "got true"),
    (
        "aliases not strings",
        _set(["nodes", 1, "aliases"], ["Acme Inc", 3]),
        '"aliases" must be a list of strings',
    ),
    ("properties not object", _set(["nodes", 1, "properties"], []), '"properties" must be an'),
    (
        "duplicate node id",
        _set(["nodes", 1, "id"], "n1"),
        'nodes[1] (id "n1"): repeats the id of nodes[0] (id "n1")',
    ),
    (
        "duplicate kind+name",
        _add_node({"id": "n3", "kind": "ORG", "name": " acme. "}),
        'nodes[2] (id "n3"): ORG " acme. " repeats nodes[1] (id "n2")',
    ),
    (
        "two self nodes",
        _add_node({"id": "n3", "kind": "PERSON", "name": "Me Too", "is_self": True}),
        'nodes[2] (id "n3"): is a second self node (nodes[0] (id "n1") is already',
    ),
    (
        "unknown episode",
        _set(["nodes", 0, "episodes"], ["e9"]),
        '"episodes" names "e9", which is not an episode in this graph',
    ),
    (
        "unknown field",
        _set(["edges", 0, "strenght"], 50),
        'edges[0] (id "x1"): unknown field "strenght"',
    ),
    (
        "unknown source",
        _set(["edges", 0, "source"], "n9"),
        'edges[0] (id "x1"): "source" names "n9", which is not a node in this graph',
    ),
    ("self relation", _set(["edges", 0, "target"], "n1"), "no self-relations"),
    (
        "lowercase relation",
        _set(["edges", 0, "relation"], "works at"),
        '"relation" "works at" is not an uppercase, verb-first label',
    ),
    ("five-word relation", _set(["edges", 0, "relation"], "A_B_C_D_E"), "is not an uppercase"),
    (
        "strength 101",
        _set(["edges", 0, "strength"], 101),
        '"strength" must be a number from 0 to 100, got 101',
    ),
    ("strength -1", _set(["edges", 0, "strength"], -1), "got -1"),
    ("strength string", _set(["edges", 0, "strength"], "100"), 'got "100"'),
    ("bad stability", _set(["edges", 0, "stability"], "forever"), '"stability" must be one of'),
    ("bad cardinality", _set(["edges", 0, "cardinality"], "many"), '"cardinality" must be'),
    (
        "expiry on stable",
        _set(["edges", 0, "expires_at"], "2026-05-01T00:00:00+00:00"),
        '"expires_at" is only allowed on time_bound or ephemeral edges, not stable',
    ),
    (
        "naive time",
        _set(["edges", 0, "last_touched_at"], "2026-01-01T00:00:00"),
        '"last_touched_at" must include a UTC offset',
    ),
    (
        "garbled time",
        _set(["edges", 0, "last_touched_at"], "yesterday"),
        '"last_touched_at" is not an ISO 8601 date-time: "yesterday"',
    ),
    ("missing relation", _drop(["edges", 0, "relation"]), '"relation" is required'),
    (
        "unknown successor",
        _set(["edges", 0, "superseded_by"], "x9"),
        '"superseded_by" names "x9", which is not an edge',
    ),
    (
        "supersedes itself",
        _set(["edges", 0, "superseded_by"], "x1"),
        "an edge cannot supersede itself",
    ),
    (
        "supersession cycle",
        lambda g: (
            g["edges"][0].update(superseded_by="x2"),
            g["edges"].append(
                {
                    "id": "x2",
                    "source": "n2",
                    "relation": "EMPLOYS",
                    "target": "n1",
                    "last_touched_at": "2026-01-01T00:00:00Z",
                    "superseded_by": "x1",
                }
            ),
        ),
        "supersession cycle x1 → x2 → x1",
    ),
    (
        "two live copies",
        _add_edge(
            {
                "id": "x2",
                "source": "n1",
                "relation": "WORKS_AT",
                "target": "n2",
                "last_touched_at": "2026-01-01T00:00:00Z",
            }
        ),
        'edges[1] (id "x2"): a second live edge n1 -[WORKS_AT]-> n2 (also edges[0] (id "x1"))',
    ),
    (
        "snippet without text",
        _set(["edges", 0, "snippet"], {"evidence": "x"}),
        'edges[0] (id "x1"): snippet: "text" is required',
    ),
    (
        "snippet not object",
        _set(["edges", 0, "snippet"], "I work at Acme"),
        'edges[0] (id "x1"): snippet: must be an object',
    ),
    (
        "episode ends first",
        lambda g: g["episodes"][0].update(
            started_at="2026-01-02T00:00:00Z", ended_at="2026-01-01T00:00:00Z"
        ),
        'episodes[0] (id "e1"): "ended_at" is before "started_at"',
    ),
    ("importance 2", _set(["episodes", 0, "importance"], 2), '"importance" must be a number'),
    ("tags not list", _set(["episodes", 0, "tags"], "work"), '"tags" must be a list'),
]


@pytest.mark.parametrize(
    ("mutate", "message"), [case[1:] for case in BAD], ids=[case[0] for case in BAD]
)
def test_invalid_graph_is_rejected_with_a_one_line_message_and_nothing_written(
    alice, mutate, message
):
    graph = small()
    mutate(graph)
    with pytest.raises(GraphFormatError) as caught:
        import_graph(user=alice, data=graph, now=NOW)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)
    assert not any(counts(alice).values())


def test_a_graph_must_be_an_object(alice):
    with pytest.raises(GraphFormatError, match="a graph must be a JSON object, got \\[\\]"):
        import_graph(user=alice, data=[], now=NOW)


def test_the_same_claim_may_recur_when_all_but_one_copy_is_superseded(alice):
    graph = small()
    graph["nodes"].append({"id": "n3", "kind": "ORG", "name": "Globex"})
    graph["edges"][0].update(superseded_by="x2", cardinality="one_to_one")
    graph["edges"] += [
        {
            "id": "x2",
            "source": "n1",
            "relation": "WORKS_AT",
            "target": "n3",
            "cardinality": "one_to_one",
            "superseded_by": "x3",
            "last_touched_at": "2026-02-01T00:00:00Z",
        },
        {
            "id": "x3",
            "source": "n1",
            "relation": "WORKS_AT",
            "target": "n2",
            "cardinality": "one_to_one",
            "last_touched_at": "2026-03-01T00:00:00Z",
        },
    ]
    import_graph(user=alice, data=graph, now=NOW)
    assert canonical_graph(export_graph(user=alice)) == canonical_graph(graph)


def test_export_takes_a_fixed_number_of_queries(alice, django_assert_num_queries):
    import_graph(user=alice, data=rich(), now=NOW)
    with django_assert_num_queries(5):
        export_graph(user=alice)
