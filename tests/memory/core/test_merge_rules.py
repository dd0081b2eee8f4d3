"""The deterministic merge rules and LLM bands (SPEC §5.6)."""

import pytest
from nicknames import NickNamer

from memory.core.merge_rules import (
    SIMILARITY_THRESHOLD,
    MergeVerdict,
    StoredNode,
    band_llm_confidence,
    decide_merge,
    is_self_placeholder,
    name_group,
    normalise_name,
    pick_llm_candidate,
)

SELF = StoredNode(1, "PERSON", "Trevor", is_self=True)
WILLIAM = StoredNode(2, "PERSON", "William")
ROBERT = StoredNode(3, "PERSON", "Robert")
SAM_PERSON = StoredNode(4, "PERSON", "Sam")
SAM_ORG = StoredNode(5, "ORG", "Sam")
JOSHUA = StoredNode(6, "PERSON", "Joshua")
ACME = StoredNode(7, "ORG", "Acme Corp")
TREV = StoredNode(8, "PERSON", "Trevor Jones", aliases=("Trev",))
JJ_1 = StoredNode(9, "PERSON", "Jamie Jones", aliases=("JJ",))
JJ_2 = StoredNode(10, "PERSON", "Jill Jackson", aliases=("jj",))
W_SMITH = StoredNode(11, "PERSON", "William Smith")
LISBOA = StoredNode(12, "PLACE", "Lisboa")
PARIS = StoredNode(13, "PLACE", "Paris")
GOOGLE_CLOUD = StoredNode(14, "ORG", "Google Cloud")


def verdict(action, target, candidates, rule, scores):
    return MergeVerdict(action, target, tuple(candidates), rule, scores)


NEW = verdict("new", None, (), "none", {})


@pytest.mark.parametrize(
    ("name", "kind", "stored", "expected"),
    [
        # Same name, different kind: never compared.
        ("Sam", "ORG", [SAM_PERSON], NEW),
        ("Sam", "PERSON", [SAM_ORG], NEW),
        ("Sam", "ORG", [SAM_PERSON, SAM_ORG], verdict("merge", 5, [5], "exact", {5: 1.0})),
        # Exact is case-, whitespace- and quote-insensitive.
        ('  "ACME   corp". ', "ORG", [ACME], verdict("merge", 7, [7], "exact", {7: 1.0})),
        # Alias of exactly one node → merge; of two → hold.
        ("trev", "PERSON", [TREV], verdict("merge", 8, [8], "alias", {8: 1.0})),
        (
            "JJ",
            "PERSON",
            [JJ_1, JJ_2],
            verdict("hold", None, [9, 10], "alias-ambiguous", {9: 1.0, 10: 1.0}),
        ),
        # Nicknames: "bill" is in William's group → merge.
        ("Bill", "PERSON", [WILLIAM, JOSHUA], verdict("merge", 2, [2], "nickname", {2: 1.0})),
        # ... but the table is many-to-many: Bill is also Robert → hold.
        (
            "Bill",
            "PERSON",
            [WILLIAM, ROBERT],
            verdict("hold", None, [2, 3], "nickname-ambiguous", {2: 1.0, 3: 1.0}),
        ),
        # Later words must match exactly.
        ("Bill Smith", "PERSON", [W_SMITH], verdict("merge", 11, [11], "nickname", {11: 1.0})),
        ("Bill Jones", "PERSON", [W_SMITH], NEW),
        # A lone first name (or a nickname of it) reaches the one full name it starts
        # (issue 21, rule "first-name"; before it, differing word counts made this new).
        ("Bill", "PERSON", [W_SMITH], verdict("merge", 11, [11], "first-name", {11: 1.0})),
        # The nickname table is only about people.
        ("Bill", "ORG", [StoredNode(20, "ORG", "William")], NEW),
        # Josh: the table lists joshua → josh, so it is a nickname merge, not "similar".
        ("Josh", "PERSON", [JOSHUA], verdict("merge", 6, [6], "nickname", {6: 1.0})),
        # Similar: 1 − 1/6 = 0.8333 > 0.80 (a typo, no name of the city)
        ("Lisbom", "PLACE", [LISBOA], verdict("hold", None, [12], "similar", {12: 1 - 1 / 6})),
        # Another name of one city (GeoNames): rule 2e
        ("Lisbon", "PLACE", [LISBOA], verdict("merge", 12, [12], "city-name", {12: 1.0})),
        # Not similar: 1 − 1/5 = 0.80 is not > 0.80, and no shared word.
        ("Parix", "PLACE", [PARIS], NEW),
        # Contained as a whole word; edit similarity 1 − 6/12 = 0.5.
        ("Google", "ORG", [GOOGLE_CLOUD], verdict("hold", None, [14], "similar", {14: 0.5})),
        # Half the words shared ({acme} of 2); edit similarity 1 − 7/12.
        ("Acme Widgets", "ORG", [ACME], verdict("hold", None, [7], "similar", {7: 1 - 7 / 12})),
        # The same legal form written out (Corp/Corporation) is the same company.
        ("Acme Corporation", "ORG", [ACME], verdict("merge", 7, [7], "legal-form", {7: 1.0})),
        # Function words do not count as shared words.
        ("The Beatles", "ORG", [StoredNode(21, "ORG", "The Smiths")], NEW),
    ],
)
def test_merge_rules_table(name, kind, stored, expected):
    assert decide_merge(name, kind, stored) == expected


def test_nickname_table_facts_the_rules_rely_on():
    # If the package's table changes, these explain the verdicts above.
    namer = NickNamer()
    assert "josh" in namer.nicknames_of("joshua")
    assert {"william", "robert"} <= namer.canonicals_of("bill")
    assert {"bill", "william", "robert"} <= name_group("bill")


def test_a_hint_only_sends_to_review():
    # "the boss" resembles no stored name, but the extractor thinks it is Joshua.
    assert decide_merge("The Boss", "PERSON", [JOSHUA], hint=" joshua ") == verdict(
        "hold",
        None,
        [6],
        "hint",
        {6: 0.0},  # "the boss" vs "joshua": nothing in common
    )
    # A hint naming nothing of the same kind changes nothing.
    assert decide_merge("The Boss", "PERSON", [JOSHUA, SAM_ORG], hint="Sam") == NEW


def test_earlier_rules_win_over_later_ones():
    # "Trev" is an alias of node 8 and also close to "Trevor" (node 1): alias wins.
    assert decide_merge("Trev", "PERSON", [SELF, TREV]).rule == "alias"


def test_similarity_threshold_is_a_parameter():
    assert decide_merge("Parix", "PLACE", [PARIS], similarity_threshold=0.79).rule == "similar"
    assert SIMILARITY_THRESHOLD == 0.80


@pytest.mark.parametrize(
    ("name", "stored", "rule"),
    [
        # A word added to a concept names a narrower thing: no question, a new node.
        ("painted bowl", "bowl", "none"),
        ("bowl", "painted bowl", "none"),
        ("unconditional love", "love", "none"),
        ("support network", "support group", "none"),
        # Two different common words a letter apart are two words.
        ("making", "taking", "none"),
        ("pottery class", "poetry class", "none"),
        # A misspelling of the same words is still asked about.
        ("potery", "pottery", "similar"),
        # Another number of the same words is the same concept.
        ("challenges", "challenge", "number"),
        ("art classes", "art class", "number"),
        ("friend", "friends", "number"),
    ],
)
@pytest.mark.parametrize("kind", ["THING", "TOPIC", "EVENT", "PREFERENCE"])
def test_concepts_are_candidates_only_by_spelling(name, stored, rule, kind):
    assert decide_merge(name, kind, [StoredNode(30, kind, stored)]).rule == rule


@pytest.mark.parametrize("kind", ["THING", "EVENT"])
def test_a_concept_in_two_numbers_merges_only_into_one(kind):
    one = decide_merge("dreams", kind, [StoredNode(30, kind, "dream")])
    assert (one.action, one.target) == ("merge", 30)
    both = decide_merge(
        "dream", kind, [StoredNode(30, kind, "dreams"), StoredNode(31, kind, "wish", ("dreams",))]
    )
    assert (both.action, both.rule, set(both.candidates)) == ("hold", "number-ambiguous", {30, 31})


@pytest.mark.parametrize(("kind", "stored_kind"), [("THING", "EVENT"), ("PREFERENCE", "THING")])
def test_one_concept_typed_two_ways_merges(kind, stored_kind):
    verdict = decide_merge("camping trip", kind, [StoredNode(30, stored_kind, "camping trip")])
    assert (verdict.action, verdict.rule, verdict.target) == ("merge", "concept-kind", 30)


@pytest.mark.parametrize(
    ("kind", "stored"),
    [
        ("PERSON", StoredNode(30, "THING", "art")),  # Art the person, art the subject
        ("THING", StoredNode(30, "ORG", "Pride")),  # an organisation is a named thing
        ("EVENT", StoredNode(30, "THING", "Luna", roles=frozenset({"pet"}))),
    ],
)
def test_named_things_of_another_kind_stay_a_question(kind, stored):
    name = stored.name.lower() if kind != "PERSON" else "Art"
    verdict = decide_merge(name, kind, [stored])
    assert (verdict.action, verdict.rule) == ("hold", "other-kind")


@pytest.mark.parametrize("kind", ["PERSON", "ORG", "PLACE", "OTHER"])
def test_names_keep_the_word_rules(kind):
    # For a referent with a name, shared words stay a reason to ask ("Google" in "Google
    # Cloud", above); only concepts lost them.
    assert decide_merge("painted bowl", kind, [StoredNode(30, kind, "bowl")]).rule == "similar"
    assert decide_merge("making", kind, [StoredNode(30, kind, "taking")]).rule == "similar"


@pytest.mark.parametrize("name", ["me", "Me", "I", " the user ", "USER", "myself", "my", "mine"])
def test_self_placeholders_are_detected(name):
    assert is_self_placeholder(name)


@pytest.mark.parametrize("name", ["you", "Bill", "users", "Mine Street", ""])
def test_other_names_are_not_self_placeholders(name):
    assert not is_self_placeholder(name)


def test_placeholders_map_onto_the_self_node():
    assert decide_merge("me", "PERSON", [JOSHUA, SELF]) == verdict(
        "merge", 1, [1], "self", {1: 1.0}
    )
    # No self node yet: a new node (the service marks it as the self node).
    assert decide_merge("I", "PERSON", [JOSHUA]) == verdict("new", None, [], "self", {})


def test_normalise_name_is_shared_with_cleaning():
    assert normalise_name("  «Jamie   JONES» ") == "jamie jones"


@pytest.mark.parametrize(
    ("confidence", "band"),
    [
        (0.95, "merge"),
        (0.9000001, "merge"),
        (0.90, "merge-flagged"),
        (0.80, "merge-flagged"),
        (0.70, "merge-flagged"),
        (0.6999, "keep-apart"),
        (0.0, "keep-apart"),
        (float("nan"), "keep-apart"),
    ],
)
def test_llm_confidence_bands(confidence, band):
    assert band_llm_confidence(confidence) == band


@pytest.mark.parametrize(
    ("confidences", "expected"),
    [
        ({3: 0.8, 5: 0.95, 2: 0.95}, (2, "merge")),  # highest, tie → lower id
        ({4: 0.75, 9: 0.2}, (4, "merge-flagged")),
        ({1: 0.5, 2: 0.69}, (None, "keep-apart")),
        ({}, (None, "keep-apart")),
    ],
)
def test_pick_llm_candidate(confidences, expected):
    assert pick_llm_candidate(confidences) == expected
