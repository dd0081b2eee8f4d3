"""The second round of general merge rules through the real Write path (commit_batch):
kinship words, given names of one origin or one letter apart, acronyms and the user's own
employer or home (issue 21, second blind set)."""

import pytest

from memory.models import MergeDecision, Node
from tests.memory.resolution_helpers import (  # noqa: F401 (the autouse fixture)
    T0,
    T1,
    batch,
    merged,
    person,
    seed,
    stand_in_encoder,
    write,
)

pytestmark = pytest.mark.django_db


def test_kinship_words_merge_into_the_parent_and_learn_the_word(alice):
    seed(alice, person("Elena Petrova", "HAS_MOTHER"), person("Dad", "HAS_FATHER"))
    summary = write(alice, person("Mama", "HAS_MOTHER"), person("Graham Whitfield", "HAS_FATHER"))
    assert merged(summary) == {
        "Mama": ("Elena Petrova", "kinship"),
        "Graham Whitfield": ("Dad", "kinship"),
    }
    assert summary.held == [] and summary.added_nodes == []
    assert "Mama" in Node.objects.for_user(alice).get(name="Elena Petrova").aliases
    decision = MergeDecision.objects.for_user(alice).get(rule="kinship", kept__name="Dad")
    assert decision.status == "merged"


def test_grandma_against_grandma_ruth_is_asked_and_hannah_is_not_anna(alice):
    seed(
        alice,
        person("Grandma Ruth"),
        person("Anna Kowalski", "HAS_SISTER"),
        person("Noa", "HAS_CHILD"),
        person("Eitan", "HAS_CHILD"),
    )
    summary = write(alice, person("Grandma"), person("Hannah"), person("Noah"))
    assert summary.merged == []
    assert sorted(h["name"] for h in summary.held) == ["Grandma", "Noah"]
    assert "Hannah" in summary.added_nodes


def test_an_acronym_and_the_users_own_city_merge(alice):
    seed(
        alice,
        ("University of California, Los Angeles", "ORG", []),
        ("Portland, Oregon", "PLACE", ["LIVES_IN"]),
        ("Quillfeather Analytics", "ORG", ["WORKS_AT"]),
    )
    summary = write(
        alice, ("UCLA", "ORG", []), ("Portland", "PLACE", []), ("Quillfeather", "ORG", [])
    )
    assert merged(summary) == {
        "UCLA": ("University of California, Los Angeles", "acronym"),
        "Portland": ("Portland, Oregon", "own-place"),
        "Quillfeather": ("Quillfeather Analytics", "own-place"),
    }


def test_portland_maine_is_another_place_not_a_question(alice):
    seed(alice, ("Portland, Oregon", "PLACE", ["LIVES_IN"]))
    summary = write(alice, ("Portland, Maine", "PLACE", []))
    assert summary.merged == [] and summary.held == []
    assert summary.added_nodes == ["Portland, Maine"]
