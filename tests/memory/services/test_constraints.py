"""The database refuses rows that break the graph's invariants (SPEC §4), whatever code path
writes them: each constraint is exercised with a bad row next to an accepted good one."""

from datetime import UTC, datetime

import numpy as np
import pytest
from django.db import IntegrityError, transaction

from memory.models import Edge, Episode, MemoryKey, Node

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def node(user, name, kind="PERSON", **fields):
    return Node.objects.create(
        user=user,
        kind=kind,
        name=name,
        normalised_name=name.lower(),
        created_at=NOW,
        updated_at=NOW,
        **fields,
    )


@pytest.fixture
def ends(alice):
    return node(alice, "Trevor"), node(alice, "Acme", kind="ORG")


def edge(user, source, target, **fields):
    values = {"relation": "WORKS_AT", "last_touched_at": NOW, "created_at": NOW, **fields}
    return Edge.objects.create(user=user, source=source, target=target, **values)


def rejected(make) -> bool:
    """Whether creating the row raises IntegrityError (inside a savepoint, so the test's
    transaction stays usable)."""
    try:
        with transaction.atomic():
            make()
    except IntegrityError:
        return True
    return False


def test_an_edge_cannot_relate_a_node_to_itself(alice, ends):
    trevor, acme = ends
    assert not rejected(lambda: edge(alice, trevor, acme))
    assert rejected(lambda: edge(alice, trevor, trevor, relation="KNOWS"))


def test_only_one_live_edge_per_claim(alice, ends):
    trevor, acme = ends
    first = edge(alice, trevor, acme)
    assert rejected(lambda: edge(alice, trevor, acme))
    # A superseded copy of the same claim is history and may coexist.
    newer = edge(alice, acme, trevor, relation="EMPLOYS")
    Edge.objects.filter(pk=first.pk).update(superseded_by=newer)
    assert not rejected(lambda: edge(alice, trevor, acme))


@pytest.mark.parametrize(
    "label", ["works_at", "WORKS AT", "_WORKS", "WORKS__AT", "A_B_C_D_E", "1WORKS", ""]
)
def test_relation_labels_must_be_uppercase_and_one_to_four_words(alice, ends, label):
    trevor, acme = ends
    assert rejected(lambda: edge(alice, trevor, acme, relation=label))


@pytest.mark.parametrize("label", ["KNOWS", "WORKS_AT", "IS_BROTHER_OF", "A_B_C_D", "HAS_2"])
def test_well_formed_relation_labels_are_accepted(alice, ends, label):
    trevor, acme = ends
    assert not rejected(lambda: edge(alice, trevor, acme, relation=label))


@pytest.mark.parametrize(
    ("strength", "bad"), [(101, True), (-1, True), (100, False), (0, False), (100.0001, True)]
)
def test_strength_stays_within_0_and_100(alice, ends, strength, bad):
    trevor, acme = ends
    assert rejected(lambda: edge(alice, trevor, acme, strength_at_touch=strength)) is bad


@pytest.mark.parametrize(("confidence", "bad"), [(1.5, True), (-0.1, True), (1.0, False)])
def test_edge_confidence_stays_within_0_and_1(alice, ends, confidence, bad):
    trevor, acme = ends
    assert rejected(lambda: edge(alice, trevor, acme, confidence=confidence)) is bad


def test_node_confidence_stays_within_0_and_1(alice):
    assert rejected(lambda: node(alice, "Dana", confidence=1.5))
    assert not rejected(lambda: node(alice, "Dana", confidence=1.0))


@pytest.mark.parametrize(
    ("stability", "bad"),
    [
        ("stable", True),
        ("immutable", True),
        ("mutable", True),
        ("time_bound", False),
        ("ephemeral", False),
    ],
)
def test_only_temporary_edges_may_expire(alice, ends, stability, bad):
    trevor, acme = ends
    assert rejected(lambda: edge(alice, trevor, acme, stability=stability, expires_at=NOW)) is bad


def test_unknown_stability_and_cardinality_are_rejected(alice, ends):
    trevor, acme = ends
    assert rejected(lambda: edge(alice, trevor, acme, stability="forever"))
    assert rejected(lambda: edge(alice, trevor, acme, cardinality="many"))


def test_a_user_has_at_most_one_self_node(alice, bob):
    node(alice, "Alice", is_self=True)
    assert rejected(lambda: node(alice, "Alice Liddell", is_self=True))
    assert not rejected(lambda: node(alice, "Someone", is_self=False))
    # Bob's self node is his own business.
    assert not rejected(lambda: node(bob, "Bob", is_self=True))


def test_names_are_unique_per_user_and_kind(alice, bob):
    node(alice, "Paris", kind="PLACE")
    assert rejected(lambda: node(alice, "PARIS", kind="PLACE"))  # same normalised name
    assert not rejected(lambda: node(alice, "Paris", kind="PERSON"))
    assert not rejected(lambda: node(bob, "Paris", kind="PLACE"))


def test_nodes_need_a_known_kind_and_a_name(alice):
    assert rejected(lambda: node(alice, "Rex", kind="ANIMAL"))
    assert rejected(lambda: node(alice, ""))


def test_episode_importance_stays_within_0_and_1(alice):
    assert rejected(lambda: Episode.objects.create(user=alice, importance=1.5, created_at=NOW))
    assert not rejected(lambda: Episode.objects.create(user=alice, importance=1, created_at=NOW))


def test_a_key_belongs_to_a_node_or_a_relation_never_both_or_neither(alice):
    trevor = node(alice, "Trevor")
    vector = np.ones(384, dtype=np.float32) / np.sqrt(384)

    def key(**fields):
        return MemoryKey.objects.create(user=alice, text="x", embedding=vector, **fields)

    assert rejected(lambda: key(node=trevor, relation="WORKS_AT"))
    assert rejected(lambda: key())
    assert not rejected(lambda: key(node=trevor))
    assert not rejected(lambda: key(relation="WORKS_AT"))
    assert rejected(lambda: key(relation="WORKS_AT"))  # one key per relation label
