"""The Write path's rule table (SPEC §5.4–§5.6), driven through commit_batch with hand-made
batches from tests/memory/fixtures/batches/."""

import json
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memory import embedding
from memory.models import Edge, EdgeEpisode, MemoryKey, MergeDecision, Node, NodeEpisode, Snippet
from memory.services.write import commit_batch
from tests.memory.factories import HashEncoder, make_bare_node

pytestmark = pytest.mark.django_db

BATCHES = Path(__file__).resolve().parents[1] / "fixtures" / "batches"
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def stand_in_encoder():
    with embedding.use_encoder(HashEncoder()):
        yield


def load(name: str) -> dict:
    return json.loads((BATCHES / name).read_text())


# A node row alone (no keys), created at this file's NOW.
make_node = partial(make_bare_node, at=NOW)


def make_edge(user, source, relation, target, **fields):
    fields.setdefault("last_touched_at", NOW)
    return Edge.objects.create(
        user=user, source=source, relation=relation, target=target, created_at=NOW, **fields
    )


def live(user):
    return Edge.objects.for_user(user).live()


def lines(user, queryset=None):
    rows = (queryset if queryset is not None else live(user)).select_related("source", "target")
    return sorted(f"{e.source.name} -[{e.relation}]-> {e.target.name}" for e in rows)


# --- self placeholders ------------------------------------------------------------------------


def test_placeholders_map_onto_one_self_node_named_after_the_account(alice):
    summary = commit_batch(user=alice, batch=load("placeholders.json"), now=NOW)

    selves = Node.objects.for_user(alice).filter(is_self=True)
    assert [n.name for n in selves] == ["alice"]
    assert lines(alice) == [
        "alice -[HAS_BOSS]-> Joshua",
        "alice -[LIKES]-> hiking",
        "alice -[WORKS_AT]-> Acme",
    ]
    assert not Node.objects.for_user(alice).filter(normalised_name__in=["user", "me", "i"]).exists()
    assert sorted(summary.added_nodes) == ["Acme", "Joshua", "hiking"]
    assert "self node created as 'alice'" in summary.fixes
    acme = Node.objects.for_user(alice).get(name="Acme")
    assert acme.aliases == ["Acme Corp"] and acme.properties == {"industry": "tools"}


def test_the_self_node_is_named_from_the_batch_and_renamed_once_the_user_introduces_themself(
    alice,
):
    commit_batch(user=alice, batch=load("placeholders.json"), now=NOW)
    batch = {**load("bill.json"), "self_name": "Alice Walker"}
    summary = commit_batch(user=alice, batch=batch, now=NOW)

    me = Node.objects.for_user(alice).get(is_self=True)
    assert (me.name, me.aliases) == ("Alice Walker", ["alice"])
    assert any("renamed" in fix for fix in summary.fixes)
    # Identity never changes: the same row, its edges kept.
    assert lines(alice)[0].startswith("Alice Walker -[HAS_BOSS]-> Joshua")
    # A later, different self name is only an alias.
    commit_batch(user=alice, batch={**load("bill.json"), "self_name": "Ali"}, now=NOW)
    me.refresh_from_db()
    assert (me.name, me.aliases) == ("Alice Walker", ["alice", "Ali"])
    texts = set(MemoryKey.objects.for_user(alice).filter(node=me).values_list("text", flat=True))
    assert texts == {"Alice Walker", "alice", "Ali"}


def test_a_first_batch_with_a_self_name_creates_the_self_node_with_that_name(alice):
    commit_batch(user=alice, batch={**load("bill.json"), "self_name": "Trevor"}, now=NOW)
    assert Node.objects.for_user(alice).get(is_self=True).name == "Trevor"


def test_a_batch_that_never_mentions_the_user_creates_no_self_node(alice):
    batch = {
        "format": "pegasus-batch/1",
        "entities": [
            {"ref": "a", "kind": "PERSON", "name": "Joshua"},
            {"ref": "b", "kind": "ORG", "name": "Acme"},
        ],
        "relations": [
            {
                "source": "a",
                "relation": "WORKS_AT",
                "target": "b",
                "snippet": "Joshua works at Acme",
            }
        ],
    }
    commit_batch(user=alice, batch=batch, now=NOW)
    assert not Node.objects.for_user(alice).filter(is_self=True).exists()
    assert lines(alice) == ["Joshua -[WORKS_AT]-> Acme"]


# --- merge rules --------------------------------------------------------------------------------


def test_nickname_merges_bill_into_the_one_william_and_records_a_revertible_decision(alice):
    william = make_node(alice, "William", properties={"city": "York"}, confidence=0.6)
    summary = commit_batch(user=alice, batch=load("bill.json"), now=NOW)

    william.refresh_from_db()
    assert not Node.objects.for_user(alice).filter(name="Bill").exists()
    assert william.aliases == ["Bill"]
    assert william.properties == {"city": "York"}  # the stored value wins; no key was missing
    assert william.confidence == 0.95
    decision = MergeDecision.objects.for_user(alice).get()
    assert (decision.status, decision.rule, decision.kept) == ("merged", "nickname", william)
    assert decision.moved["aliases_added"] == ["Bill"]
    assert decision.moved["properties_added"] == []
    assert decision.moved["previous_confidence"] == 0.6
    edge = Edge.objects.for_user(alice).get(relation="HAS_FRIEND")
    assert decision.moved["edges"] == [{"edge": edge.pk, "end": "target"}]
    assert summary.merged == [
        {"name": "Bill", "into": "William", "rule": "nickname", "flagged": False}
    ]
    assert NodeEpisode.objects.for_user(alice).filter(node=william).exists()
    assert "Bill" in MemoryKey.objects.for_user(alice).filter(node=william).values_list(
        "text", flat=True
    )


def test_an_alias_already_known_is_a_trivial_match_with_no_decision(alice):
    make_node(alice, "William", aliases=["Bill"])
    summary = commit_batch(user=alice, batch=load("bill.json"), now=NOW)
    assert not MergeDecision.objects.for_user(alice).exists()
    assert summary.merged == []
    assert Node.objects.for_user(alice).get(name="William").properties == {"city": "Leeds"}


def test_two_nodes_claiming_one_alias_hold_offline_as_a_new_node_and_a_held_decision(alice):
    smith = make_node(alice, "William Smith", aliases=["Bill"])
    jones = make_node(alice, "Robert Jones", aliases=["Bill"])
    summary = commit_batch(user=alice, batch=load("bill.json"), now=NOW)

    bill = Node.objects.for_user(alice).get(name="Bill")
    decision = MergeDecision.objects.for_user(alice).get()
    assert (decision.status, decision.rule, decision.kept) == ("held", "alias-ambiguous", None)
    assert {c["id"] for c in decision.candidates} == {smith.pk, jones.pk}
    assert decision.moved == {"node": bill.pk}
    assert summary.held == [{"name": "Bill", "candidates": ["William Smith", "Robert Jones"]}]
    smith.refresh_from_db(), jones.refresh_from_db()
    assert smith.aliases == ["Bill"] and jones.aliases == ["Bill"]  # nothing merged
    assert lines(alice) == ["alice -[HAS_FRIEND]-> Bill"]


def test_sam_the_person_never_merges_with_sam_the_org(alice):
    org = make_node(alice, "Sam", kind="ORG")
    commit_batch(user=alice, batch=load("sam_person.json"), now=NOW)
    sams = Node.objects.for_user(alice).filter(normalised_name="sam").order_by("kind")
    assert [(n.kind, n.pk == org.pk) for n in sams] == [("ORG", True), ("PERSON", False)]
    assert not MergeDecision.objects.for_user(alice).exists()


def test_fuzzy_only_candidates_never_merge_offline(alice):
    stored = make_node(alice, "Katherine Johnston")
    summary = commit_batch(user=alice, batch=load("fuzzy.json"), now=NOW)
    assert Node.objects.for_user(alice).filter(name="Katherine Johnson").exists()
    decision = MergeDecision.objects.for_user(alice).get()
    assert (decision.status, decision.rule) == ("held", "similar")
    assert decision.candidates[0]["id"] == stored.pk
    assert decision.candidates[0]["score"] == pytest.approx(1 - 1 / 18, abs=1e-3)
    assert summary.held[0]["candidates"] == ["Katherine Johnston"]


def test_a_provisional_node_takes_the_kind_of_a_later_entity_of_the_same_name(alice):
    commit_batch(user=alice, batch=load("dirty.json"), now=NOW)
    cafe = Node.objects.for_user(alice).get(name="Zanzibar Cafe")
    assert (cafe.kind, cafe.provisional) == ("OTHER", True)
    batch = {
        "format": "pegasus-batch/1",
        "entities": [{"ref": "z", "kind": "PLACE", "name": "Zanzibar Cafe", "confidence": 0.9}],
        "relations": [
            {
                "source": "user",
                "relation": "LIKES",
                "target": "z",
                "snippet": "I like Zanzibar Cafe",
                "confidence": 0.9,
            }
        ],
    }
    commit_batch(user=alice, batch=batch, now=NOW)
    cafe.refresh_from_db()
    assert (cafe.kind, cafe.provisional, cafe.confidence) == ("PLACE", False, 0.9)
    assert Node.objects.for_user(alice).filter(normalised_name="zanzibar cafe").count() == 1


# --- edges: reinforcement, supersession, snippets -------------------------------------------------


def test_reobservation_reinforces_from_the_decayed_strength(alice):
    me = make_node(alice, "alice", is_self=True)
    joshua = make_node(alice, "Joshua")
    edge = make_edge(
        alice,
        me,
        "HAS_BOSS",
        joshua,
        stability="mutable",
        confidence=0.8,
        cardinality="one_to_one",
        last_touched_at=NOW - timedelta(days=10),
        dormant=True,
    )
    summary = commit_batch(user=alice, batch=load("reobserve_boss.json"), now=NOW)

    edge.refresh_from_db()
    # 100 · e^(−0.02·10) = 81.873 → + 15
    assert edge.strength_at_touch == pytest.approx(96.873, abs=1e-3)
    assert edge.last_touched_at == NOW and edge.dormant is False
    assert edge.confidence == 0.8  # the sighting's 0.6 does not lower it
    assert Edge.objects.for_user(alice).count() == 1
    assert summary.reinforced == ["alice -[HAS_BOSS]-> Joshua"] and summary.added_edges == []


def test_reinforcement_is_capped_at_100_and_happens_once_per_batch(alice):
    me = make_node(alice, "alice", is_self=True)
    joshua = make_node(alice, "Joshua", aliases=["Josh"])
    edge = make_edge(
        alice,
        me,
        "HAS_BOSS",
        joshua,
        stability="stable",
        strength_at_touch=95,
        last_touched_at=NOW - timedelta(days=1),
    )
    batch = {
        "format": "pegasus-batch/1",
        "entities": [{"ref": "j", "kind": "PERSON", "name": "Josh"}],
        "relations": [
            {"source": "user", "relation": "HAS_BOSS", "target": "Joshua", "snippet": "one"},
            {"source": "me", "relation": "HAS_BOSS", "target": "j", "snippet": "two"},
        ],
    }
    commit_batch(user=alice, batch=batch, now=NOW)
    edge.refresh_from_db()
    assert edge.strength_at_touch == 100.0
    assert sorted(Snippet.objects.for_user(alice).values_list("text", flat=True)) == ["one", "two"]


def test_one_to_one_supersedes_the_old_edge_which_stays_hidden(alice):
    commit_batch(user=alice, batch=load("placeholders.json"), now=NOW)
    old = Edge.objects.for_user(alice).get(relation="HAS_BOSS")
    summary = commit_batch(user=alice, batch=load("new_boss.json"), now=NOW + timedelta(days=1))

    old.refresh_from_db()
    new = Edge.objects.for_user(alice).get(relation="HAS_BOSS", superseded_by__isnull=True)
    assert new.target.name == "Mark"
    assert old.superseded_by == new
    assert "alice -[HAS_BOSS]-> Mark" in lines(alice)
    assert "alice -[HAS_BOSS]-> Joshua" not in lines(alice)
    assert summary.superseded == ["alice -[HAS_BOSS]-> Joshua (by → Mark)"]


def test_restating_a_superseded_claim_creates_a_new_live_edge_that_supersedes_in_turn(alice):
    commit_batch(user=alice, batch=load("placeholders.json"), now=NOW)
    commit_batch(user=alice, batch=load("new_boss.json"), now=NOW)
    commit_batch(user=alice, batch=load("placeholders.json"), now=NOW)
    bosses = Edge.objects.for_user(alice).filter(relation="HAS_BOSS").order_by("id")
    assert [(e.target.name, e.superseded_by_id is None) for e in bosses] == [
        ("Joshua", False),
        ("Mark", False),
        ("Joshua", True),
    ]


def test_one_to_many_edges_accumulate(alice):
    commit_batch(user=alice, batch=load("placeholders.json"), now=NOW)
    batch = {
        "format": "pegasus-batch/1",
        "entities": [{"ref": "b", "kind": "ORG", "name": "Globex"}],
        "relations": [
            {
                "source": "user",
                "relation": "WORKS_AT",
                "target": "b",
                "snippet": "I also work at Globex",
                "cardinality": "one_to_many",
            }
        ],
    }
    commit_batch(user=alice, batch=batch, now=NOW)
    assert [line for line in lines(alice) if "WORKS_AT" in line] == [
        "alice -[WORKS_AT]-> Acme",
        "alice -[WORKS_AT]-> Globex",
    ]


def test_snippet_is_refreshed_only_by_a_higher_confidence_sighting(alice):
    commit_batch(user=alice, batch=load("placeholders.json"), now=NOW)  # HAS_BOSS at 0.8
    edge = Edge.objects.for_user(alice).get(relation="HAS_BOSS")
    first = edge.snippet

    commit_batch(user=alice, batch=load("reobserve_boss.json"), now=NOW)  # 0.6: kept
    edge.refresh_from_db()
    assert edge.snippet == first and edge.confidence == 0.8
    assert Snippet.objects.for_user(alice).filter(edge=edge).count() == 2  # sighting stored

    higher = load("reobserve_boss.json")
    higher["relations"][0].update(confidence=0.95, snippet="Joshua is definitely my boss")
    commit_batch(user=alice, batch=higher, now=NOW)
    edge.refresh_from_db()
    assert edge.snippet.text == "Joshua is definitely my boss"
    assert edge.confidence == 0.95


# --- cleaning ---------------------------------------------------------------------------------


def test_cleaning_drops_are_reported_with_reasons_and_a_provisional_node_is_made(alice):
    summary = commit_batch(user=alice, batch=load("dirty.json"), now=NOW)
    reasons = {d["reason"] for d in summary.dropped}
    assert {
        "malformed relation label",
        "both ends unknown",
        "end refers to a dropped entity",
        "missing snippet",
        "self-relation",
    } <= reasons
    assert any(
        d["item"] == "entity ref 'b'" and d["reason"] == "empty name" for d in summary.dropped
    )
    assert summary.provisional == ["Zanzibar Cafe"]
    cafe = Node.objects.for_user(alice).get(name="Zanzibar Cafe")
    assert cafe.provisional and cafe.confidence == 0.3
    friend = Edge.objects.for_user(alice).get(relation="HAS_FRIEND")
    assert friend.expires_at is None  # dropped on a stable relation
    visited = Edge.objects.for_user(alice).get(relation="VISITED")
    assert visited.stability == "stable"
    assert any("expires_at dropped" in fix for fix in summary.fixes)
    assert lines(alice) == ["alice -[HAS_FRIEND]-> Joshua", "alice -[VISITED]-> Zanzibar Cafe"]


def test_snippets_must_occur_in_the_cited_message_of_the_user(alice, bob):
    from chat.models import Conversation, Message

    conversation = Conversation.objects.create(user=alice, started_at=NOW)
    message = Message.objects.create(
        user=alice,
        conversation=conversation,
        role="user",
        text="Honestly, my boss Joshua is great.",
        created_at=NOW,
    )
    batch = {
        "format": "pegasus-batch/1",
        "entities": [{"ref": "a", "kind": "PERSON", "name": "Joshua"}],
        "relations": [
            {
                "source": "user",
                "relation": "HAS_BOSS",
                "target": "a",
                "snippet": "my boss Joshua is great",
                "message": str(message.pk),
            },
            {
                "source": "user",
                "relation": "KNOWS",
                "target": "a",
                "snippet": "we met at school",
                "message": str(message.pk),
            },
        ],
    }
    summary = commit_batch(user=alice, batch=batch, now=NOW)
    assert {
        "item": "relation user -[KNOWS]-> a",
        "reason": "snippet not found in message",
    } in summary.dropped
    snippet = Edge.objects.for_user(alice).get(relation="HAS_BOSS").snippet
    assert snippet.message == message

    # Bob citing Alice's message: unknown to him, so the relation is dropped.
    bob_summary = commit_batch(user=bob, batch=batch, now=NOW)
    assert {d["reason"] for d in bob_summary.dropped} == {"unknown message"}
    assert not Edge.objects.for_user(bob).exists()


# --- episodes, idempotency, atomicity ------------------------------------------------------------


def test_the_episode_takes_the_batch_summary_and_every_row_cites_it(alice):
    summary = commit_batch(user=alice, batch=load("placeholders.json"), now=NOW)
    episode = alice.memory_episodes.get(pk=summary.episode)
    assert (episode.summary, episode.importance, episode.tags) == (
        "Work and hobbies.",
        0.6,
        ["career", "hobbies"],
    )
    assert episode.started_at == datetime(2026, 1, 10, 9, tzinfo=UTC)
    assert NodeEpisode.objects.for_user(alice).filter(episode=episode).count() == 4
    assert EdgeEpisode.objects.for_user(alice).filter(episode=episode).count() == 3


def test_committing_the_same_batch_for_the_same_episode_twice_duplicates_nothing(alice):
    first = commit_batch(user=alice, batch=load("placeholders.json"), now=NOW)
    counts = (
        Node.objects.count(),
        Edge.objects.count(),
        Snippet.objects.count(),
        NodeEpisode.objects.count(),
        EdgeEpisode.objects.count(),
    )
    second = commit_batch(
        user=alice, batch=load("placeholders.json"), now=NOW, episode=first.episode
    )
    assert (
        Node.objects.count(),
        Edge.objects.count(),
        Snippet.objects.count(),
        NodeEpisode.objects.count(),
        EdgeEpisode.objects.count(),
    ) == counts
    assert second.added_nodes == [] and second.added_edges == []
    assert len(second.reinforced) == 3


def test_a_crash_late_in_the_commit_writes_nothing_and_a_retry_succeeds(alice, monkeypatch):
    from memory.services import keys

    make_node(alice, "William")

    def boom(**kwargs):
        raise RuntimeError("injected crash")

    # Crash injection only: the relation keys are the very last write of a commit, so failing
    # there proves every earlier write (nodes, edges, snippets, decisions, episode) rolls back.
    monkeypatch.setattr(keys, "sync_relation_keys", boom)
    before = (
        Node.objects.count(),
        Edge.objects.count(),
        MergeDecision.objects.count(),
        alice.memory_episodes.count(),
        MemoryKey.objects.count(),
    )
    with pytest.raises(RuntimeError, match="injected crash"):
        commit_batch(user=alice, batch=load("bill.json"), now=NOW)
    assert (
        Node.objects.count(),
        Edge.objects.count(),
        MergeDecision.objects.count(),
        alice.memory_episodes.count(),
        MemoryKey.objects.count(),
    ) == before

    monkeypatch.undo()
    commit_batch(user=alice, batch=load("bill.json"), now=NOW)
    assert lines(alice) == ["alice -[HAS_FRIEND]-> William"]
    assert MergeDecision.objects.for_user(alice).count() == 1


def people_batch(n: int) -> dict:
    entities = [{"ref": f"p{i}", "kind": "PERSON", "name": f"Person{i} Doe"} for i in range(n)]
    relations = [
        {"source": "user", "relation": "KNOWS", "target": f"p{i}", "snippet": f"I know Person{i}"}
        for i in range(n)
    ]
    return {"format": "pegasus-batch/1", "entities": entities, "relations": relations}


def test_a_commit_takes_the_same_number_of_queries_for_3_or_12_entities(alice, bob):
    # Bulk ORM: nothing in the commit runs a query per entity or per relation. ("PersonN Doe"
    # share a word with "Person0 Doe", so every new one is also held: holds are bulk too.)
    counts = []
    for user, n in ((alice, 3), (bob, 12)):
        commit_batch(user=user, batch=people_batch(1), now=NOW)  # self node exists already
        with CaptureQueriesContext(connection) as queries:
            commit_batch(user=user, batch=people_batch(n), now=NOW)
        counts.append(len(queries))
    assert counts[0] == counts[1]
    assert len(live(bob)) == 12
    assert MergeDecision.objects.for_user(bob).filter(status="held").count() == 11


def test_an_empty_batch_is_valid(alice):
    summary = commit_batch(user=alice, batch={"format": "pegasus-batch/1"}, now=NOW)
    assert summary.to_dict()["added"] == {"nodes": [], "edges": []}
    assert not Node.objects.for_user(alice).exists()


def test_a_malformed_batch_is_rejected_whole(alice):
    from memory.core.cleaning import BatchError

    with pytest.raises(BatchError):
        commit_batch(user=alice, batch={"format": "something/else"}, now=NOW)
    assert not alice.memory_episodes.exists()


def test_summary_to_dict_has_the_documented_shape(alice):
    summary = commit_batch(user=alice, batch=load("placeholders.json"), now=NOW)
    data = summary.to_dict()
    assert set(data) >= {
        "added",
        "reinforced",
        "merged",
        "held",
        "superseded",
        "provisional",
        "dropped",
        "fixes",
        "episode",
    }
    assert data["added"]["edges"] == [
        "alice -[HAS_BOSS]-> Joshua",
        "alice -[WORKS_AT]-> Acme",
        "alice -[LIKES]-> hiking",
    ]
    json.dumps(data)


def test_summary_counts_what_became_of_each_entity(alice):
    first = commit_batch(user=alice, batch=load("placeholders.json"), now=NOW)
    again = commit_batch(user=alice, batch=load("placeholders.json"), now=NOW)

    # Joshua, Acme and hiking are new the first time and found stored the second.
    assert first.outcomes.get("new") == 3 and "matched" not in first.outcomes
    assert again.outcomes.get("matched") == 3 and "new" not in again.outcomes
    assert again.to_dict()["outcomes"] == again.outcomes
    # Per ref of the batch: which node each entity became or was found in, and by what rule.
    assert {ref: e["outcome"] for ref, e in first.entities.items()} == dict.fromkeys("abc", "new")
    assert again.entities["a"] == {"outcome": "matched", "node": "Joshua", "rule": "exact"}
    assert again.to_dict()["entities"] == again.entities


# --- ownership -----------------------------------------------------------------------------------


def test_bob_cannot_reach_alices_graph_through_commit_batch(alice, bob):
    commit_batch(user=alice, batch=load("placeholders.json"), now=NOW)
    alice_before = lines(alice)
    alice_episode = alice.memory_episodes.get()

    # Bob's batch names Alice's nodes: to him they are unknown ends (provisional), never hers.
    batch = load("reobserve_boss.json")
    summary = commit_batch(user=bob, batch=batch, now=NOW + timedelta(days=3))
    assert lines(alice) == alice_before
    assert Edge.objects.for_user(alice).get(relation="HAS_BOSS").last_touched_at == NOW
    assert summary.provisional == ["Joshua"]
    assert lines(bob) == ["bob -[HAS_BOSS]-> Joshua"]
    assert Node.objects.for_user(bob).get(name="Joshua").pk not in set(
        Node.objects.for_user(alice).values_list("pk", flat=True)
    )

    with pytest.raises(ValueError, match="episode not found"):
        commit_batch(user=bob, batch=batch, now=NOW, episode=alice_episode)
    from chat.models import Conversation

    conversation = Conversation.objects.create(user=alice, started_at=NOW)
    with pytest.raises(ValueError, match="conversation not found"):
        commit_batch(user=bob, batch=batch, now=NOW, conversation=conversation)
    assert lines(alice) == alice_before
