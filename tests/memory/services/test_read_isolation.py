"""A Read only ever reaches its own user's graph (SPEC §4, STYLE: an outsider in every test)."""

import pytest

from chat.models import Conversation
from memory.models import Edge, Node, Traversal
from memory.services.read import keys as read_keys
from memory.services.read import recall
from tests.memory.factories import T0, make_edge, make_episode, make_node

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def spec_read(settings):
    """These tests hold the Read to SPEC §5.1–§5.3 exactly: the "spec" strategy, whatever
    MEMORY_READ_STRATEGY defaults to (other strategies add to it and have their own tests)."""
    settings.MEMORY_READ_STRATEGY = "spec"


NOW = T0


@pytest.fixture
def two_joshuas(alice, bob):
    """Alice and Bob both know a Joshua, with different neighbourhoods and shared episodes."""
    a_chat, b_chat = make_episode(alice), make_episode(bob)
    a_josh = make_node(alice, "Joshua", episodes=[a_chat])
    make_edge(
        alice,
        a_josh,
        "WORKS_AT",
        make_node(alice, "Deloitte", "ORG", episodes=[a_chat]),
        snippet="Joshua is a partner at Deloitte",
    )
    make_edge(
        alice, make_node(alice, "Alice", is_self=True), "HAS_BOSS", a_josh, snippet="my boss Joshua"
    )
    b_josh = make_node(bob, "Joshua", episodes=[b_chat])
    make_edge(
        bob,
        b_josh,
        "PLAYS",
        make_node(bob, "cello", "THING", episodes=[b_chat]),
        snippet="Joshua plays the cello",
    )
    return a_josh, b_josh


def test_bob_recalls_his_joshua_and_nothing_of_alices(alice, bob, two_joshuas):
    a_josh, b_josh = two_joshuas
    recall(user=alice, message="joshua", now=NOW)  # alice's keys are cached first

    record = recall(user=bob, message="Is Joshua at Deloitte with his boss?", now=NOW)

    bobs_nodes = set(Node.objects.for_user(bob).values_list("id", flat=True))
    bobs_edges = set(Edge.objects.for_user(bob).values_list("id", flat=True))
    assert "Joshua" in {s["name"] for s in record.seeds}
    assert {s["name"] for s in record.seeds} <= {"Joshua", "cello"}
    assert {f["id"] for f in record.fired} <= bobs_nodes
    assert b_josh.pk in {f["id"] for f in record.fired}
    assert a_josh.pk not in {f["id"] for f in record.fired}
    assert set(record.crossed_edges) <= bobs_edges and record.crossed_edges
    assert "Deloitte" not in record.text and "boss" not in record.text
    assert "cello" in record.text


def test_a_user_without_a_graph_reaches_nothing_of_another_users(bob, two_joshuas):
    Node.objects.for_user(bob).delete()

    record = recall(user=bob, message="joshua deloitte boss partner", now=NOW)

    assert (record.seeds, record.fired, record.crossed_edges, record.text) == ([], [], [], "")


def test_alice_is_not_served_bobs_cached_keys(alice, bob, two_joshuas):
    recall(user=bob, message="cello", now=NOW)
    assert read_keys._cache_key(bob.pk) != read_keys._cache_key(alice.pk)

    record = recall(user=alice, message="cello", now=NOW)

    assert "cello" not in {s["name"] for s in record.seeds}
    assert set(f["id"] for f in record.fired) <= set(
        Node.objects.for_user(alice).values_list("id", flat=True)
    )


def test_a_read_refuses_to_log_into_another_users_conversation(alice, bob, two_joshuas):
    alices = Conversation.objects.create(user=alice, started_at=NOW)

    with pytest.raises(ValueError, match="another user"):
        recall(user=bob, message="joshua", now=NOW, conversation=alices)

    assert not Traversal.objects.exists()
