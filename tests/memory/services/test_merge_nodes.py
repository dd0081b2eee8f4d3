"""Merging stored nodes and reverting merges exactly (SPEC §4 MergeDecision, §5.6)."""

import json
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest

from chat.models import Conversation
from memory import embedding
from memory.models import (
    Edge,
    EdgeEpisode,
    Episode,
    MemoryKey,
    MergeDecision,
    Node,
    NodeEpisode,
    Snippet,
    Traversal,
)
from memory.services import keys
from memory.services.graph_io import canonical_graph, export_graph
from memory.services.merge import (
    MergeError,
    confirm,
    keep_apart,
    merge_held,
    merge_nodes,
    revert_merge,
)
from memory.services.write import commit_batch
from tests.memory.factories import HashEncoder, make_bare_node

pytestmark = pytest.mark.django_db

BATCHES = Path(__file__).resolve().parents[1] / "fixtures" / "batches"
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
LATER = NOW + timedelta(days=2)


@pytest.fixture(autouse=True)
def stand_in_encoder():
    with embedding.use_encoder(HashEncoder()):
        yield


def load(name: str) -> dict:
    return json.loads((BATCHES / name).read_text())


# A node row alone (no keys), created at this file's NOW.
make_node = partial(make_bare_node, at=NOW)


def make_edge(user, source, relation, target, *, snippet=None, episode=None, **fields):
    fields.setdefault("last_touched_at", NOW)
    edge = Edge.objects.create(
        user=user, source=source, relation=relation, target=target, created_at=NOW, **fields
    )
    if snippet:
        row = Snippet.objects.create(
            user=user,
            edge=edge,
            text=snippet,
            evidence="e",
            confidence=edge.confidence,
            episode=episode,
            created_at=NOW,
        )
        edge.snippet = row
        edge.save(update_fields=["snippet"])
    if episode:
        EdgeEpisode.objects.create(user=user, edge=edge, episode=episode)
    return edge


def live_lines(user):
    rows = Edge.objects.for_user(user).live().select_related("source", "target")
    return sorted(f"{e.source.name} -[{e.relation}]-> {e.target.name}" for e in rows)


@pytest.fixture
def graph(alice):
    """William and Billy are one person known twice, with every kind of edge a merge must
    handle: a duplicate claim, an edge between the two, a superseded chain, traversals."""
    e1 = Episode.objects.create(
        user=alice, summary="first", created_at=NOW, started_at=NOW, ended_at=NOW
    )
    e2 = Episode.objects.create(
        user=alice, summary="second", created_at=NOW, started_at=NOW, ended_at=NOW
    )
    me = make_node(alice, "alice", is_self=True, confidence=1.0)
    william = make_node(
        alice, "William", aliases=["Will"], properties={"city": "York"}, confidence=0.6
    )
    billy = make_node(
        alice, "Billy", aliases=["B"], properties={"city": "Leeds", "job": "baker"}, confidence=0.9
    )
    acme = make_node(alice, "Acme", kind="ORG")
    joshua = make_node(alice, "Joshua")
    paris = make_node(alice, "Paris", kind="PLACE")
    london = make_node(alice, "London", kind="PLACE")
    NodeEpisode.objects.create(user=alice, node=william, episode=e1)
    NodeEpisode.objects.create(user=alice, node=billy, episode=e1)
    NodeEpisode.objects.create(user=alice, node=billy, episode=e2)

    friend_w = make_edge(
        alice,
        me,
        "HAS_FRIEND",
        william,
        confidence=0.5,
        episode=e1,
        strength_at_touch=60.0,
        last_touched_at=NOW - timedelta(days=30),
        snippet="my friend William",
    )
    friend_b = make_edge(
        alice,
        me,
        "HAS_FRIEND",
        billy,
        confidence=0.8,
        episode=e2,
        strength_at_touch=100.0,
        snippet="my friend Billy",
    )
    works = make_edge(alice, billy, "WORKS_AT", acme, snippet="Billy works at Acme", episode=e2)
    brother_j = make_edge(alice, william, "HAS_BROTHER", joshua, cardinality="one_to_one")
    brother_b = make_edge(
        alice,
        william,
        "HAS_BROTHER",
        billy,
        cardinality="one_to_one",
        snippet="William's brother is Billy",
        episode=e2,
        dormant=True,
    )
    Edge.objects.filter(pk=brother_j.pk).update(superseded_by=brother_b)
    knows = make_edge(alice, billy, "KNOWS", william, snippet="Billy knows William")
    lives_new = make_edge(alice, billy, "LIVES_IN", london)
    lives_old = make_edge(alice, billy, "LIVES_IN", paris)
    Edge.objects.filter(pk=lives_old.pk).update(superseded_by=lives_new)
    conversation = Conversation.objects.create(user=alice, started_at=NOW)
    Traversal.objects.create(
        user=alice, conversation=conversation, edge_ids=[knows.pk], crossed_at=NOW
    )
    Traversal.objects.create(
        user=alice, conversation=conversation, edge_ids=[works.pk], crossed_at=NOW, applied_at=NOW
    )
    earlier = MergeDecision.objects.create(
        user=alice,
        status="merged",
        kind="PERSON",
        rule="alias",
        proposed={"name": "B"},
        kept=billy,
        created_at=NOW,
    )
    keys.sync_node_keys(user_id=alice.pk, nodes=Node.objects.for_user(alice))
    keys.sync_relation_keys(user_id=alice.pk)
    return {
        "me": me,
        "william": william,
        "billy": billy,
        "friend_w": friend_w,
        "friend_b": friend_b,
        "works": works,
        "brother_j": brother_j,
        "brother_b": brother_b,
        "knows": knows,
        "earlier": earlier,
        "e1": e1,
        "e2": e2,
    }


def keys_of(user):
    rows = MemoryKey.objects.for_user(user).values_list("node_id", "relation", "text")
    return sorted(rows, key=lambda row: (row[0] or 0, row[1], row[2]))


def test_merge_nodes_moves_everything_onto_keep(alice, graph, mod):
    william, billy = graph["william"], graph["billy"]
    decision = merge_nodes(
        user=alice, keep=william, absorb=billy, reason="same person", by=mod, now=LATER
    )

    assert not Node.objects.filter(pk=billy.pk).exists()
    william.refresh_from_db()
    assert william.aliases == ["Will", "Billy", "B"]
    assert william.properties == {"city": "York", "job": "baker"}
    assert william.confidence == 0.9
    assert set(william.episodes.values_list("pk", flat=True)) == {graph["e1"].pk, graph["e2"].pk}
    # The edges between the two became self-relations: dropped, with what hung off them.
    assert not Edge.objects.filter(pk__in=[graph["knows"].pk, graph["brother_b"].pk]).exists()
    # The crossing stays logged by id (ids are never reused); a Write skips it while the edge
    # is gone.
    assert Traversal.objects.filter(edge_ids__contains=[graph["knows"].pk]).count() == 1
    # What brother_b superseded is live again (its successor is gone).
    graph["brother_j"].refresh_from_db()
    assert graph["brother_j"].superseded_by is None
    # The duplicate friendship collapsed onto the surviving edge, which took the stronger
    # current strength, the higher confidence and both episodes.
    friend_w, friend_b = graph["friend_w"], graph["friend_b"]
    friend_w.refresh_from_db(), friend_b.refresh_from_db()
    assert friend_b.superseded_by == friend_w and friend_b.target == william
    assert (friend_w.strength_at_touch, friend_w.last_touched_at) == (100.0, NOW)
    assert friend_w.confidence == 0.8
    assert set(friend_w.episodes.values_list("pk", flat=True)) == {graph["e1"].pk, graph["e2"].pk}
    assert live_lines(alice) == [
        "William -[HAS_BROTHER]-> Joshua",
        "William -[LIVES_IN]-> London",
        "William -[WORKS_AT]-> Acme",
        "alice -[HAS_FRIEND]-> William",
    ]
    graph["earlier"].refresh_from_db()
    assert graph["earlier"].kept is None  # its node is gone until the merge is reverted
    assert {"Billy", "B"} <= set(william.keys.values_list("text", flat=True))

    assert (decision.status, decision.rule, decision.kept) == ("merged", "manual", william)
    assert decision.decided_by == mod
    assert decision.absorbed["name"] == "Billy" and decision.absorbed["id"] == billy.pk
    assert decision.moved["aliases_added"] == ["Billy", "B"]
    assert decision.moved["properties_added"] == ["job"]
    assert {d["id"] for d in decision.moved["dropped_edges"]} == {
        graph["knows"].pk,
        graph["brother_b"].pk,
    }
    knows_row = next(d for d in decision.moved["dropped_edges"] if d["id"] == graph["knows"].pk)
    assert knows_row["snippets"][0]["text"] == "Billy knows William"
    assert "traversals" not in knows_row
    assert decision.log[0]["by"] == "mod" and decision.log[0]["why"] == "same person"


def test_merge_then_revert_leaves_the_exported_graph_identical(alice, graph, mod):
    before = export_graph(user=alice)
    keys_before = keys_of(alice)
    decision = merge_nodes(
        user=alice,
        keep=graph["william"],
        absorb=graph["billy"],
        reason="same person",
        by=mod,
        now=LATER,
    )
    assert export_graph(user=alice) != before

    reverted = revert_merge(user=alice, decision=decision, by=mod, now=LATER)

    after = export_graph(user=alice)
    assert canonical_graph(after) == canonical_graph(before)
    assert after == before  # the absorbed node and dropped edges come back with their ids
    assert keys_of(alice) == keys_before
    assert reverted.status == "reverted"
    assert [entry["action"] for entry in reverted.log] == ["merged", "reverted"]
    assert Traversal.objects.filter(edge_ids__contains=[graph["knows"].pk]).count() == 1
    graph["earlier"].refresh_from_db()
    assert graph["earlier"].kept_id == graph["billy"].pk
    assert Snippet.objects.for_user(alice).filter(edge_id=graph["knows"].pk).count() == 1


def test_revert_of_a_decision_recorded_with_per_edge_traversals_logs_them_again(alice, graph):
    # Decisions recorded when a traversal was one row per edge carry those rows (they were
    # deleted with the edge); a revert logs each again, in today's shape.
    Traversal.objects.for_user(alice).delete()
    decision = merge_nodes(
        user=alice, keep=graph["william"], absorb=graph["billy"], reason="same person", now=LATER
    )
    conversation = Conversation.objects.for_user(alice).get()
    for row in decision.moved["dropped_edges"]:
        if row["id"] == graph["knows"].pk:
            row["traversals"] = [
                {
                    "id": 999,
                    "conversation": conversation.pk,
                    "crossed_at": NOW.isoformat(),
                    "applied_at": None,
                }
            ]
    decision.save(update_fields=["moved"])

    revert_merge(user=alice, decision=decision, now=LATER)

    restored = Traversal.objects.for_user(alice).get()
    assert (restored.edge_ids, restored.conversation, restored.crossed_at, restored.applied_at) == (
        [graph["knows"].pk],
        conversation,
        NOW,
        None,
    )


def test_revert_restores_a_survivor_that_was_the_weaker_edge(alice, graph, mod):
    # Here the kept side's edge is stronger: the survivor keeps its own strength, and revert
    # still gives back exactly what was there.
    Edge.objects.filter(pk=graph["friend_w"].pk).update(
        strength_at_touch=100.0, last_touched_at=LATER
    )
    before = export_graph(user=alice)
    decision = merge_nodes(
        user=alice, keep=graph["william"], absorb=graph["billy"], reason="x", now=LATER
    )
    graph["friend_w"].refresh_from_db()
    assert graph["friend_w"].last_touched_at == LATER
    revert_merge(user=alice, decision=decision, now=LATER)
    assert export_graph(user=alice) == before


def test_merging_nodes_of_different_kinds_is_refused(alice, graph):
    acme = Node.objects.for_user(alice).get(name="Acme")
    before = export_graph(user=alice)
    with pytest.raises(ValueError, match="different kinds"):
        merge_nodes(user=alice, keep=graph["william"], absorb=acme, reason="x", now=LATER)
    assert export_graph(user=alice) == before


def test_the_self_node_can_be_kept_but_never_absorbed(alice, graph):
    with pytest.raises(ValueError, match="self node"):
        merge_nodes(user=alice, keep=graph["william"], absorb=graph["me"], reason="x", now=LATER)
    decision = merge_nodes(
        user=alice, keep=graph["me"], absorb=graph["billy"], reason="x", now=LATER
    )
    assert decision.kept == graph["me"]
    assert Node.objects.for_user(alice).get(is_self=True).pk == graph["me"].pk


def test_a_node_cannot_be_merged_into_itself(alice, graph):
    with pytest.raises(ValueError, match="itself"):
        merge_nodes(
            user=alice, keep=graph["william"], absorb=graph["william"], reason="x", now=LATER
        )


def test_revert_twice_or_after_a_later_merge_of_the_kept_node_is_refused(alice, graph):
    decision = merge_nodes(
        user=alice, keep=graph["william"], absorb=graph["billy"], reason="x", now=LATER
    )
    revert_merge(user=alice, decision=decision, now=LATER)
    with pytest.raises(ValueError, match="only merged decisions"):
        revert_merge(user=alice, decision=decision, now=LATER)

    first = merge_nodes(
        user=alice, keep=graph["william"], absorb=graph["billy"], reason="x", now=LATER
    )
    merge_nodes(user=alice, keep=graph["me"], absorb=graph["william"], reason="y", now=LATER)
    with pytest.raises(ValueError, match="revert the later merge first"):
        revert_merge(user=alice, decision=first, now=LATER)


def test_revert_of_a_batch_merge_splits_the_entity_back_out(alice):
    william = make_node(alice, "William", confidence=0.6)
    commit_batch(user=alice, batch=load("bill.json"), now=NOW)
    decision = MergeDecision.objects.for_user(alice).get(rule="nickname")

    revert_merge(user=alice, decision=decision, now=LATER)

    william.refresh_from_db()
    assert (william.aliases, william.properties, william.confidence) == ([], {}, 0.6)
    bill = Node.objects.for_user(alice).get(name="Bill")
    assert bill.properties == {"city": "Leeds"} and bill.confidence == 0.95
    assert live_lines(alice) == ["alice -[HAS_FRIEND]-> Bill"]
    assert list(bill.episodes.all()) == [decision.episode]
    assert not william.episodes.exists()
    decision.refresh_from_db()
    assert decision.status == "reverted" and decision.moved["split_node"] == bill.pk
    assert "Bill" in bill.keys.values_list("text", flat=True)
    assert "Bill" not in william.keys.values_list("text", flat=True)


def test_a_moderator_merges_a_held_entity_and_can_revert_it(alice, mod):
    smith = make_node(alice, "William Smith", aliases=["Bill"])
    make_node(alice, "Robert Jones", aliases=["Bill"])
    commit_batch(user=alice, batch=load("bill.json"), now=NOW)
    held = MergeDecision.objects.for_user(alice).get(status="held")
    before = export_graph(user=alice)

    merged = merge_held(user=alice, decision=held, into_node_id=smith.pk, by=mod, now=LATER)

    assert merged.status == "merged" and merged.kept == smith
    assert live_lines(alice) == ["alice -[HAS_FRIEND]-> William Smith"]
    smith.refresh_from_db()
    assert smith.properties == {"city": "Leeds"}
    inner = MergeDecision.objects.for_user(alice).get(pk=merged.moved["merge_decision"])
    assert (inner.rule, inner.status, inner.decided_by) == ("moderator", "merged", mod)

    revert_merge(user=alice, decision=merged, by=mod, now=LATER)
    assert export_graph(user=alice) == before
    inner.refresh_from_db(), merged.refresh_from_db()
    assert inner.status == merged.status == "reverted"


def test_keep_apart_closes_a_held_decision_and_leaves_the_node(alice, mod):
    make_node(alice, "William Smith", aliases=["Bill"])
    make_node(alice, "Robert Jones", aliases=["Bill"])
    commit_batch(user=alice, batch=load("bill.json"), now=NOW)
    held = MergeDecision.objects.for_user(alice).get(status="held")
    before = export_graph(user=alice)
    with pytest.raises(ValueError, match="flagged"):
        confirm(user=alice, decision=held, by=mod, now=LATER)
    decided = keep_apart(user=alice, decision=held, by=mod, why="different people", now=LATER)
    assert decided.status == "kept-apart" and decided.log[-1]["why"] == "different people"
    assert export_graph(user=alice) == before
    with pytest.raises(ValueError):
        merge_held(
            user=alice, decision=held, into_node_id=held.candidates[0]["id"], by=mod, now=LATER
        )


# --- ownership ----------------------------------------------------------------------------------


def test_bob_cannot_merge_or_revert_alices_nodes(alice, bob, graph):
    before = export_graph(user=alice)
    with pytest.raises(ValueError, match="node not found"):
        merge_nodes(user=bob, keep=graph["william"], absorb=graph["billy"], reason="x", now=LATER)
    bobs = make_node(bob, "Bobby")
    with pytest.raises(ValueError, match="node not found"):
        merge_nodes(user=bob, keep=bobs, absorb=graph["billy"].pk, reason="x", now=LATER)
    with pytest.raises(ValueError, match="node not found"):
        merge_nodes(user=alice, keep=graph["william"], absorb=bobs, reason="x", now=LATER)
    assert export_graph(user=alice) == before

    decision = merge_nodes(
        user=alice, keep=graph["william"], absorb=graph["billy"], reason="x", now=LATER
    )
    merged = export_graph(user=alice)
    for action in (
        lambda: revert_merge(user=bob, decision=decision, now=LATER),
        lambda: keep_apart(user=bob, decision=decision, by=bob, why="x", now=LATER),
        lambda: confirm(user=bob, decision=decision, by=bob, now=LATER),
        lambda: merge_held(user=bob, decision=decision, into_node_id=bobs.pk, by=bob, now=LATER),
    ):
        with pytest.raises(ValueError, match="merge decision not found"):
            action()
    assert export_graph(user=alice) == merged
    assert export_graph(user=bob)["nodes"] == [
        {
            "id": f"n{bobs.pk}",
            "kind": "PERSON",
            "name": "Bobby",
            "aliases": [],
            "properties": {},
            "confidence": 0.5,
            "provisional": False,
            "is_self": False,
            "episodes": [],
        }
    ]


def test_a_refused_merge_is_a_merge_error_on_the_node_to_keep(alice, bob, graph):
    """The API maps these as they are (field and message): it repeats none of the checks."""
    bobs = make_node(bob, "Bobby")
    acme = Node.objects.for_user(alice).get(name="Acme")
    refused = [
        dict(keep=graph["william"], absorb=graph["william"]),
        dict(keep=graph["william"], absorb=acme),
        dict(keep=graph["william"], absorb=graph["me"]),
        dict(keep=bobs.pk, absorb=graph["billy"]),
        dict(keep=10**9, absorb=graph["billy"]),
    ]
    messages = []
    for nodes in refused:
        with pytest.raises(MergeError) as error:
            merge_nodes(user=alice, reason="x", now=LATER, **nodes)
        assert error.value.field == "into"
        messages.append(str(error.value))
    assert messages[3] == messages[4]  # another user's node reads as a missing one
    assert "same kind" in messages[1]
