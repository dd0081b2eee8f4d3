"""The memory API, endpoint by endpoint, for the owner (bob's view of it is in test_idor)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memory.core.decay import strength_at
from memory.models import (
    Correction,
    Edge,
    MemoryKey,
    MergeDecision,
    Node,
    Snippet,
    Traversal,
)
from memory.services.graph_io import canonical_graph, export_graph
from tests.memory.factories import T0, make_edge, make_node

pytestmark = pytest.mark.django_db

API = "/api/v1/memory"


def keys_of(user, node) -> set[str]:
    return set(MemoryKey.objects.for_user(user).filter(node=node).values_list("text", flat=True))


# --- graph ------------------------------------------------------------------------------------


def test_graph_has_every_node_and_only_live_edges_by_default(alice_api, graph):
    response = alice_api.get(f"{API}/graph/")
    assert response.status_code == 200
    body = response.json()
    assert {n["name"] for n in body["nodes"]} == {
        "Trevor",
        "Joshua",
        "Acme",
        "Jazz",
        "London",
        "Paris",
    }
    assert {e["id"] for e in body["edges"]} == {
        graph.has_boss.pk,
        graph.works_at.pk,
        graph.lives_in.pk,
    }
    me = next(n for n in body["nodes"] if n["id"] == graph.me.pk)
    assert me == {
        "id": graph.me.pk,
        "name": "Trevor",
        "kind": "PERSON",
        "aliases": [],
        "degree": 3,
        "is_self": True,
        "provisional": False,
    }
    assert next(n for n in body["nodes"] if n["name"] == "Jazz")["degree"] == 0
    edge = next(e for e in body["edges"] if e["id"] == graph.has_boss.pk)
    assert set(edge) == {
        "id",
        "source",
        "target",
        "relation",
        "strength",
        "strength_at_touch",
        "last_touched_at",
        "stability",
        "confidence",
        "dormant",
        "superseded",
        "expires_at",
    }
    assert (edge["source"], edge["target"], edge["relation"]) == (
        graph.me.pk,
        graph.boss.pk,
        "HAS_BOSS",
    )
    assert edge["dormant"] is False and edge["superseded"] is False


def test_graph_shows_dormant_and_superseded_edges_only_on_request(alice_api, graph):
    body = alice_api.get(f"{API}/graph/?include_dormant=1&include_superseded=1").json()
    flags = {e["id"]: (e["dormant"], e["superseded"]) for e in body["edges"]}
    assert flags[graph.likes.pk] == (True, False)
    assert flags[graph.lived_in.pk] == (False, True)
    only_dormant = alice_api.get(f"{API}/graph/?include_dormant=1").json()
    assert graph.lived_in.pk not in {e["id"] for e in only_dormant["edges"]}
    # Degree counts live edges whatever is shown.
    me = next(n for n in body["nodes"] if n["id"] == graph.me.pk)
    assert me["degree"] == 3


def test_graph_judges_strength_and_dormancy_at_as_of(alice_api, alice):
    a, b = make_node(alice, "Ann", "PERSON"), make_node(alice, "Gig", "EVENT")
    edge = make_edge(alice, a, "ATTENDS", b, stability="ephemeral", touched=T0)

    def edges(as_of, **extra):
        return alice_api.get(f"{API}/graph/", {"as_of": as_of.isoformat(), **extra}).json()

    assert edges(T0)["edges"][0]["strength"] == 100.0
    ten_days = T0 + timedelta(days=10)  # 100·e^(−0.2·10) ≈ 13.53: still live
    assert (
        edges(ten_days)["edges"][0]["strength"]
        == round(strength_at(100.0, "ephemeral", T0, ten_days), 2)
        == 13.53
    )
    month = T0 + timedelta(days=30)  # ≈ 0.25 < 2.0: dormant though never flagged
    assert edges(month)["edges"] == []
    shown = edges(month, include_dormant="1")["edges"]
    assert [(e["id"], e["dormant"], e["strength"]) for e in shown] == [(edge.pk, True, 0.25)]
    assert next(n for n in edges(month)["nodes"] if n["id"] == a.pk)["degree"] == 0


def test_graph_rejects_a_malformed_as_of(alice_api, graph):
    response = alice_api.get(f"{API}/graph/?as_of=yesterday")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error" and "as_of" in error["fields"]


# --- nodes ------------------------------------------------------------------------------------


def test_node_search_matches_names_and_aliases_case_insensitively(alice_api, graph):
    def names(query):
        response = alice_api.get(f"{API}/nodes/", query)
        assert response.status_code == 200
        return [n["name"] for n in response.json()["results"]]

    assert names({"search": "JOSH"}) == ["Joshua"]
    assert names({"search": "osh"}) == ["Joshua"]
    assert names({"search": "acm"}) == ["Acme"]
    assert names({"kind": "PLACE"}) == ["London", "Paris"]
    assert names({"search": "o", "kind": "PLACE"}) == ["London"]
    assert names({"search": "nobody"}) == []


def test_node_list_is_paginated_with_degrees(alice_api, graph):
    body = alice_api.get(f"{API}/nodes/?page_size=2").json()
    assert body["count"] == 6 and len(body["results"]) == 2 and body["previous"] is None
    assert body["next"].endswith("page=2&page_size=2")
    assert body["results"][0] == {
        "id": graph.acme.pk,
        "name": "Acme",
        "kind": "ORG",
        "aliases": [],
        "degree": 1,
        "is_self": False,
        "provisional": False,
    }
    last = alice_api.get(f"{API}/nodes/?page_size=2&page=3").json()
    assert [n["name"] for n in last["results"]] == ["Paris", "Trevor"]
    assert last["results"][1]["degree"] == 3


def test_node_list_rejects_an_unknown_kind_and_a_page_past_the_end(alice_api, graph):
    bad = alice_api.get(f"{API}/nodes/?kind=ALIEN")
    assert bad.status_code == 400 and "kind" in bad.json()["error"]["fields"]
    past = alice_api.get(f"{API}/nodes/?page=99")
    assert past.status_code == 404 and past.json()["error"]["code"] == "not_found"


def test_node_detail_has_episodes_every_incident_edge_and_merges(alice_api, graph):
    body = alice_api.get(f"{API}/nodes/{graph.me.pk}/").json()
    assert {
        k: body[k]
        for k in ("id", "name", "kind", "aliases", "properties", "is_self", "provisional")
    } == {
        "id": graph.me.pk,
        "name": "Trevor",
        "kind": "PERSON",
        "aliases": [],
        "properties": {},
        "is_self": True,
        "provisional": False,
    }
    assert body["confidence"] == 0.9
    assert body["episodes"] == [
        {
            "id": graph.episode.pk,
            "summary": "Talked about work",
            "started_at": "2026-01-01T12:00:00Z",
            "ended_at": "2026-01-01T12:00:00Z",
            "conversation_id": None,
        }
    ]
    edges = {e["id"]: e for e in body["edges"]}
    assert set(edges) == {
        graph.has_boss.pk,
        graph.works_at.pk,
        graph.likes.pk,
        graph.lives_in.pk,
        graph.lived_in.pk,
    }
    assert edges[graph.likes.pk]["dormant"] is True
    assert edges[graph.lived_in.pk]["superseded"] is True
    boss = edges[graph.has_boss.pk]
    assert boss["source"] == {"id": graph.me.pk, "name": "Trevor"}
    assert boss["target"] == {"id": graph.boss.pk, "name": "Joshua"}
    assert boss["snippet"] == {"text": "my boss Joshua is great", "evidence": ""}
    assert edges[graph.works_at.pk]["snippet"] is None
    assert body["merges"] == []


def test_renaming_a_node_keeps_the_old_name_as_an_alias_and_its_keys(alice_api, alice, graph):
    response = alice_api.patch(
        f"{API}/nodes/{graph.boss.pk}/", {"name": "Joshua Smith"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["name"] == "Joshua Smith"
    assert response.json()["aliases"] == ["Josh", "Joshua"]
    node = Node.objects.get(pk=graph.boss.pk)
    assert node.normalised_name == "joshua smith"
    assert keys_of(alice, node) == {"Joshua Smith", "Josh", "Joshua"}
    correction = Correction.objects.for_user(alice).get()
    assert (correction.action, correction.target_type, correction.target_id) == (
        "rename",
        "node",
        node.pk,
    )
    assert correction.before["name"] == "Joshua" and correction.after["name"] == "Joshua Smith"


def test_renaming_onto_another_nodes_name_is_refused(alice_api, alice, graph):
    make_node(alice, "Joseph", "PERSON")
    response = alice_api.patch(f"{API}/nodes/{graph.boss.pk}/", {"name": "joseph"}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error" and "merge" in error["fields"]["name"][0]
    assert Node.objects.get(pk=graph.boss.pk).name == "Joshua"


def test_aliases_and_kind_can_be_corrected(alice_api, alice, graph):
    url = f"{API}/nodes/{graph.acme.pk}/"
    body = alice_api.patch(url, {"add_alias": "Acme Corp"}, format="json").json()
    assert body["aliases"] == ["Acme Corp"]
    assert "Acme Corp" in keys_of(alice, graph.acme)
    body = alice_api.patch(
        url, {"kind": "PLACE", "remove_alias": "acme corp"}, format="json"
    ).json()
    assert body["kind"] == "PLACE" and body["aliases"] == []
    assert keys_of(alice, graph.acme) == {"Acme"}
    assert list(
        Correction.objects.for_user(alice).order_by("id").values_list("action", flat=True)
    ) == ["add_alias", "change_kind", "remove_alias"]


def test_a_patch_applies_all_or_nothing(alice_api, graph):
    response = alice_api.patch(
        f"{API}/nodes/{graph.boss.pk}/", {"name": "Joe", "remove_alias": "Nobody"}, format="json"
    )
    assert response.status_code == 400
    assert "remove_alias" in response.json()["error"]["fields"]
    node = Node.objects.get(pk=graph.boss.pk)
    assert (node.name, node.aliases) == ("Joshua", ["Josh"])


def test_the_self_node_stays_a_person_and_cannot_be_forgotten(alice_api, graph):
    kind = alice_api.patch(f"{API}/nodes/{graph.me.pk}/", {"kind": "ORG"}, format="json")
    assert kind.status_code == 400 and "kind" in kind.json()["error"]["fields"]
    gone = alice_api.delete(f"{API}/nodes/{graph.me.pk}/")
    assert gone.status_code == 400 and gone.json()["error"]["code"] == "validation_error"
    assert Node.objects.filter(pk=graph.me.pk).exists()


def test_forgetting_a_node_forgets_every_memory_touching_it(alice_api, alice, graph):
    response = alice_api.delete(f"{API}/nodes/{graph.boss.pk}/")
    assert response.status_code == 204
    assert not Node.objects.filter(pk=graph.boss.pk).exists()
    assert not Edge.objects.filter(pk=graph.has_boss.pk).exists()
    assert not Snippet.objects.for_user(alice).filter(text__contains="Joshua").exists()
    assert not MemoryKey.objects.for_user(alice).filter(relation="HAS_BOSS").exists()
    assert MemoryKey.objects.for_user(alice).filter(relation="WORKS_AT").exists()
    correction = Correction.objects.for_user(alice).get()
    # Issue 18: the record says a node was forgotten, not its name.
    assert correction.action == "forget_node" and correction.before["name"] == "[erased]"
    assert [e["relation"] for e in correction.before["edges"]] == ["HAS_BOSS"]
    assert alice_api.get(f"{API}/nodes/{graph.boss.pk}/").status_code == 404


# --- merges -----------------------------------------------------------------------------------


def test_merging_a_node_into_another_and_reverting_it(alice_api, alice, graph):
    joe = make_node(alice, "Joe", "PERSON")
    make_edge(alice, joe, "WORKS_AT", graph.acme)
    before = canonical_graph(export_graph(user=alice))
    response = alice_api.post(
        f"{API}/nodes/{joe.pk}/merge/", {"into": graph.boss.pk}, format="json"
    )
    assert response.status_code == 201
    decision = response.json()
    assert decision["status"] == "merged" and decision["rule"] == "manual"
    assert decision["kept"] == {"id": graph.boss.pk, "name": "Joshua"}
    assert decision["absorbed_name"] == "Joe"
    assert not Node.objects.filter(pk=joe.pk).exists()
    assert "Joe" in Node.objects.get(pk=graph.boss.pk).aliases
    merges = alice_api.get(f"{API}/nodes/{graph.boss.pk}/").json()["merges"]
    assert [(m["id"], m["status"], m["absorbed_name"]) for m in merges] == [
        (decision["id"], "merged", "Joe")
    ]
    assert MergeDecision.objects.get(pk=decision["id"]).decided_by_id == alice.pk

    reverted = alice_api.post(f"{API}/merges/{decision['id']}/revert/")
    assert reverted.status_code == 200
    assert reverted.json()["status"] == "reverted" and reverted.json()["id"] == decision["id"]
    assert canonical_graph(export_graph(user=alice)) == before
    again = alice_api.post(f"{API}/merges/{decision['id']}/revert/")
    assert again.status_code == 409 and again.json()["error"]["code"] == "conflict"


def test_only_nodes_of_the_same_kind_merge(alice_api, graph):
    response = alice_api.post(
        f"{API}/nodes/{graph.acme.pk}/merge/", {"into": graph.boss.pk}, format="json"
    )
    assert response.status_code == 400
    assert "same kind" in response.json()["error"]["fields"]["into"][0]
    itself = alice_api.post(
        f"{API}/nodes/{graph.acme.pk}/merge/", {"into": graph.acme.pk}, format="json"
    )
    assert itself.status_code == 400
    absorb_self = alice_api.post(
        f"{API}/nodes/{graph.me.pk}/merge/", {"into": graph.boss.pk}, format="json"
    )
    assert absorb_self.status_code == 400
    assert Node.objects.filter(pk__in=[graph.acme.pk, graph.me.pk]).count() == 2


def test_merging_into_someone_elses_node_looks_like_merging_into_nothing(alice_api, bob, graph):
    bobs = make_node(bob, "Joshua", "PERSON")
    foreign = alice_api.post(
        f"{API}/nodes/{graph.boss.pk}/merge/", {"into": bobs.pk}, format="json"
    )
    missing = alice_api.post(f"{API}/nodes/{graph.boss.pk}/merge/", {"into": 10**9}, format="json")
    assert foreign.status_code == missing.status_code == 400
    assert foreign.json() == missing.json()
    assert Node.objects.filter(pk__in=[graph.boss.pk, bobs.pk]).count() == 2


# --- edges ------------------------------------------------------------------------------------


def test_edge_list_filters_by_node_and_liveness(alice_api, bob, graph):
    def ids(query=""):
        response = alice_api.get(f"{API}/edges/{query}")
        assert response.status_code == 200
        return {e["id"] for e in response.json()["results"]}

    live = {graph.has_boss.pk, graph.works_at.pk, graph.lives_in.pk}
    assert ids() == live
    assert ids("?include_dormant=1") == live | {graph.likes.pk}
    assert ids("?include_dormant=1&include_superseded=1") == live | {
        graph.likes.pk,
        graph.lived_in.pk,
    }
    assert ids(f"?node={graph.acme.pk}") == {graph.works_at.pk}
    assert ids(f"?node={graph.london.pk}&include_superseded=1") == {graph.lived_in.pk}
    bobs = make_node(bob, "Acme", "ORG")
    foreign = alice_api.get(f"{API}/edges/?node={bobs.pk}")
    assert foreign.status_code == 404 and foreign.json()["error"]["code"] == "not_found"


def test_edges_below_strength_two_are_dormant_before_decay_flags_them(alice_api, alice):
    a, b = make_node(alice, "Ann", "PERSON"), make_node(alice, "Gig", "EVENT")
    faded = make_edge(
        alice, a, "ATTENDS", b, stability="ephemeral", touched=timezone.now() - timedelta(days=60)
    )
    assert alice_api.get(f"{API}/edges/").json()["results"] == []
    shown = alice_api.get(f"{API}/edges/?include_dormant=1").json()["results"]
    assert [(e["id"], e["dormant"]) for e in shown] == [(faded.pk, True)]


def test_edge_detail_and_forgetting_an_edge_revives_the_one_it_replaced(alice_api, alice, graph):
    body = alice_api.get(f"{API}/edges/{graph.lives_in.pk}/").json()
    assert body["relation"] == "LIVES_IN" and body["target"] == {
        "id": graph.paris.pk,
        "name": "Paris",
    }
    assert body["superseded"] is False
    assert alice_api.delete(f"{API}/edges/{graph.lives_in.pk}/").status_code == 204
    assert not Edge.objects.filter(pk=graph.lives_in.pk).exists()
    revived = alice_api.get(f"{API}/edges/{graph.lived_in.pk}/").json()
    assert revived["superseded"] is False
    correction = Correction.objects.for_user(alice).get()
    assert correction.action == "forget_edge" and correction.before["relation"] == "LIVES_IN"
    assert correction.before["target_name"] == "[erased]"  # issue 18: no names kept
    assert correction.after["repointed"] == [{"edge": graph.lived_in.pk, "superseded_by": None}]
    assert MemoryKey.objects.for_user(alice).filter(relation="LIVES_IN").exists()


# --- episodes, recall, export, import ----------------------------------------------------------


def test_episodes_are_listed_newest_first(alice_api, alice, graph):
    from tests.memory.factories import make_episode

    later = make_episode(alice, summary="Later", at=T0 + timedelta(days=1))
    body = alice_api.get(f"{API}/episodes/").json()
    assert [e["id"] for e in body["results"]] == [later.pk, graph.episode.pk]
    assert body["results"][1] == {
        "id": graph.episode.pk,
        "summary": "Talked about work",
        "started_at": "2026-01-01T12:00:00Z",
        "ended_at": "2026-01-01T12:00:00Z",
        "conversation_id": None,
        "importance": 0.5,
        "tags": [],
        "status": "done",
    }


def test_recall_returns_the_read_record_and_changes_nothing(alice_api, alice, graph):
    before = export_graph(user=alice)
    response = alice_api.post(f"{API}/recall/", {"message": "How is Joshua doing?"}, format="json")
    assert response.status_code == 200
    record = response.json()
    assert set(record) == {
        "words",
        "seeds",
        "fired",
        "memory_lines",
        "context_snippets",
        "crossed_edges",
        "text",
        "timings_ms",
    }
    assert "joshua" in record["words"]
    assert "Trevor -[HAS_BOSS]-> Joshua" in record["memory_lines"]
    assert record["seeds"][0]["name"] == "Joshua"
    assert export_graph(user=alice) == before
    assert not Traversal.objects.exists()


def test_recall_refuses_an_overlong_message(alice_api, settings, graph):
    settings.CHAT_MAX_MESSAGE_CHARS = 10
    response = alice_api.post(f"{API}/recall/", {"message": "x" * 11}, format="json")
    assert response.status_code == 400 and "message" in response.json()["error"]["fields"]


def test_export_is_the_graph_document(alice_api, alice, graph):
    response = alice_api.get(f"{API}/export/")
    assert response.status_code == 200
    assert response.json() == export_graph(user=alice)
    assert response.json()["format"] == "pegasus-graph/1"


def test_import_adds_a_document_and_round_trips(alice_api, bob_api, alice, bob, graph):
    document = alice_api.get(f"{API}/export/").json()
    response = bob_api.post(f"{API}/import/", document, format="json")
    assert response.status_code == 201
    summary = response.json()
    assert (summary["nodes"], summary["edges"], summary["episodes"], summary["snippets"]) == (
        6,
        5,
        1,
        1,
    )
    assert canonical_graph(export_graph(user=bob)) == canonical_graph(document)
    clash = bob_api.post(f"{API}/import/", document, format="json")
    assert clash.status_code == 409 and clash.json()["error"]["code"] == "conflict"


def test_import_rejects_an_invalid_document_with_the_reason(alice_api, alice):
    response = alice_api.post(
        f"{API}/import/",
        {"format": "pegasus-graph/1", "nodes": [{"id": "n1", "kind": "ALIEN", "name": "Zed"}]},
        format="json",
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error" and 'nodes[0] (id "n1")' in error["detail"]
    nul = alice_api.post(
        f"{API}/import/",
        {"format": "pegasus-graph/1", "nodes": [{"id": "n1", "kind": "PERSON", "name": "Z\x00ed"}]},
        format="json",
    )
    assert nul.status_code == 400 and "nodes[0].name" in nul.json()["error"]["detail"]
    assert not Node.objects.for_user(alice).exists()


def test_import_is_size_limited(alice_api, alice, settings):
    settings.API_IMPORT_MAX_BYTES = 1000
    document = {
        "format": "pegasus-graph/1",
        "episodes": [{"id": f"e{i}", "summary": "x" * 50} for i in range(40)],
    }
    response = alice_api.post(f"{API}/import/", document, format="json")
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"
    assert "1000 bytes" in response.json()["error"]["detail"]
    settings.API_IMPORT_MAX_BYTES = 100_000
    assert alice_api.post(f"{API}/import/", document, format="json").status_code == 201
