"""A name with or without the word for its kind, and events in either word order
(``memory.core.name_heads``, issue 21 round 7)."""

import pytest

from memory.core.merge_rules import StoredNode, decide_merge
from memory.core.name_heads import in_another_order, with_kind_word


@pytest.mark.parametrize(
    ("a", "b", "kind", "same"),
    [
        ("blue door", "blue door café", "ORG", True),
        ("oakwood primary", "oakwood primary school", "ORG", True),
        ("ielts", "ielts exam", "EVENT", True),
        ("jazz", "jazz music", "TOPIC", True),
        ("st. mary's", "st. mary's hospital", "ORG", False),  # a saint's name: which of them?
        ("blue door", "blue door café", "PLACE", False),  # a café is an ORG's kind word
        ("little acorns", "little acorns nursery", "ORG", True),
        ("willow court", "willow court care home", "ORG", True),  # a kind of two words
        ("willow court", "willow court home", "ORG", False),
        ("yosemite", "yosemite national park", "PLACE", True),
        ("lofoten", "lofoten islands", "PLACE", True),
        ("mexico", "mexico city", "PLACE", False),  # a city is not its country
        ("frankfurt", "frankfurt airport", "PLACE", False),  # nor an airport its city
        ("miami", "miami beach", "PLACE", False),  # nor a beach town the city beside it
        ("google", "google cloud", "ORG", False),  # "cloud" is no kind word
        ("bowl", "painted bowl", "THING", False),  # a word before narrows, not restates
        ("school", "the school", "ORG", False),  # nothing but the kind word
        ("jazz", "jazz music festival", "TOPIC", False),  # one word only
    ],
)
def test_with_kind_word(a, b, kind, same):
    assert with_kind_word(a, b, kind) is same
    assert with_kind_word(b, a, kind) is same


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("trip to japan", "japan trip", True),
        ("interview at stripe", "stripe interview", True),
        ("japan trip", "japan trip", False),  # the same order is the exact rule's
        ("paris trip", "trip to rome", False),
        ("trip", "a trip", False),  # one word
    ],
)
def test_in_another_order(a, b, same):
    assert in_another_order(a, b) is same


def test_an_event_in_another_order_merges_only_into_one():
    one = decide_merge("Rome trip", "EVENT", [StoredNode(1, "EVENT", "trip to Rome")])
    assert (one.action, one.target, one.rule) == ("merge", 1, "word-order")
    two = decide_merge(
        "Rome trip",
        "EVENT",
        [StoredNode(1, "EVENT", "trip to Rome"), StoredNode(2, "EVENT", "trip in Rome")],
    )
    assert (two.action, two.rule) == ("hold", "word-order-ambiguous")


def test_a_cafe_without_its_kind_word_merges():
    verdict = decide_merge("Blue Door", "ORG", [StoredNode(1, "ORG", "Blue Door Café")])
    assert (verdict.action, verdict.target, verdict.rule) == ("merge", 1, "kind-word")
