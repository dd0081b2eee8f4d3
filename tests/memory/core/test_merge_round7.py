"""The seventh round of merge rules (issue 21, session 17): one concept in two grammatical
numbers or typed as two kinds (from the questions the rules asked on real conversations),
family roles and a child's age stated in properties, courtesy titles (Aunty, Uncle). Pure
functions; the Write path's use of them is in tests/memory/test_resolution_round7.py."""

import pytest

from memory.core.merge_properties import properties_differ
from memory.core.merge_rules import StoredNode, decide_merge
from memory.core.person_roles import MINOR, YOUNG, contradicts, roles_from_properties
from tests.memory.core.merge_helpers import decide, node

# --- roles stated in properties ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("properties", "roles"),
    [
        ({"role": "mother-in-law"}, {"mother_in_law"}),
        ({"role": "my stepdad"}, {"stepfather"}),
        ({"relation": "Step-Brother"}, {"stepbrother"}),
        ({"role": "former colleague"}, {"colleague"}),
        ({"role": "ex-husband"}, {"ex"}),  # no longer the partner: an ex
        ({"role": "sales rep"}, set()),  # an occupation is no role for the user
        ({"age": 6}, {MINOR, YOUNG}),
        ({"age": "9", "role": "neighbour"}, {MINOR, YOUNG, "neighbour"}),
        ({"age": 16}, {YOUNG}),  # under 18 (round 24), no longer a child
        ({"age": True}, set()),
    ],
)
def test_roles_from_properties(properties, roles):
    assert roles_from_properties(properties) == frozenset(roles)


@pytest.mark.parametrize(
    ("a", "b", "differ"),
    [
        ({"mother_in_law"}, {"mother"}, True),  # an in-law is never "my mother"
        ({"brother_in_law"}, {"brother"}, True),
        ({"stepbrother"}, {"brother"}, False),  # a stepbrother is "my brother" as often
        ({"stepfather"}, {"father"}, False),
        ({MINOR}, {"colleague"}, True),  # a child is nobody's colleague
        ({MINOR}, {"partner_f"}, True),
        ({MINOR}, {"niece"}, False),
        ({MINOR}, {"friend"}, False),
    ],
)
def test_what_contradicts(a, b, differ):
    assert contradicts(frozenset(a), frozenset(b)) is differ
    assert contradicts(frozenset(b), frozenset(a)) is differ


def test_a_mother_in_law_of_the_mothers_name_is_another_woman():
    stored = [node(1, "Mary Kelly", "mother")]
    assert decide("Mary", stored, roles=("mother_in_law",)) == ("new", None, "contradiction")


def test_a_stepbrother_called_brother_is_the_stepbrother():
    stored = [node(1, "Josh Bennett", "stepbrother"), node(2, "Ryan Cooper", "brother")]
    assert decide("Josh", stored, roles=("brother",))[:2] == ("merge", 1)


def test_a_child_is_not_the_colleague_of_the_same_name():
    stored = [node(1, "Ethan Clarke", "colleague"), node(2, "Lily", "daughter", MINOR)]
    assert decide("Ethan", stored, roles=(MINOR,))[0] == "new"
    # Said as a colleague, he still is the colleague.
    assert decide("Ethan", stored, roles=("colleague",))[:2] == ("merge", 1)


# --- courtesy titles ---------------------------------------------------------------------------


def test_a_courtesy_title_with_the_relation_said_is_the_neighbour():
    stored = [node(1, "Mae Robinson", "neighbour"), node(2, "Rosa Diaz", "sister")]
    assert decide("Auntie Mae", stored, roles=("neighbour",))[:2] == ("merge", 1)


def test_a_courtesy_title_alone_against_a_neighbour_is_asked():
    # The courtesy for the neighbour, or an aunt Mae not known yet.
    stored = [node(1, "Mae Robinson", "neighbour")]
    verdict = decide_merge("Auntie Mae", "PERSON", stored)
    assert (verdict.action, verdict.candidates, verdict.rule) == (
        "hold",
        (1,),
        "kin-title-courtesy",
    )


def test_a_courtesy_title_after_the_name_reaches_the_landlord():
    stored = [node(1, "Mr. Fernandes", "landlord")]
    assert decide("Fernandes uncle", stored, roles=("landlord",))[:2] == ("merge", 1)


def test_a_courtesy_title_still_rules_out_a_sibling():
    stored = [node(1, "Rosa Diaz", "sister")]
    assert decide("Aunty Rosa", stored)[0] == "new"


def test_aunt_is_a_relation_not_a_courtesy():
    # "Aunt" (not Aunty) keeps its relation: the neighbour is not an aunt.
    stored = [node(1, "Mae Robinson", "neighbour")]
    assert decide("Aunt Mae", stored)[0] == "new"


def test_a_proper_name_is_not_the_plural_of_a_common_noun():
    stored = [StoredNode(30, "TOPIC", "Python")]
    assert decide_merge("pythons", "TOPIC", stored).action != "merge"
    assert decide_merge("Pythons", "TOPIC", stored).rule == "number"


# --- kinship words that are also names, and more of the world's -------------------------------


@pytest.mark.parametrize(
    ("word", "stored"),
    [
        ("Gogo", node(1, "Nomsa Dlamini", "grandmother")),  # Zulu; also a given name
        ("Koro", node(1, "Hemi Walker", "grandfather")),  # Māori
        ("Ah Ma", node(1, "Lim Swee Hoon", "grandmother")),  # Hokkien, said in two words
        ("hubby", node(1, "Marcus Reid", "partner_m")),
        ("Bhabhi", node(1, "Neha Verma", "sister_in_law")),
    ],
)
def test_kinship_words_of_more_languages(word, stored):
    others = [stored, node(2, "Sipho Dlamini", "father")]
    roles = tuple(stored.roles)
    assert decide(word, others, roles=roles)[:2] == ("merge", 1)


def test_a_kinship_word_that_is_a_given_name_needs_the_relation_said():
    stored = [node(1, "Nomsa Dlamini", "grandmother")]
    assert decide("Gogo", stored)[0] == "new"  # Gogo may be anyone's name
    assert decide("Gogo", stored, roles=("friend",))[0] == "new"


# --- a year on a thing, a date on an event -----------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "said", "stored", "differ"),
    [
        ("THING", {"type": "film", "year": "2019"}, {"type": "film", "year": "1994"}, True),
        ("THING", {"type": "film", "year": "1994"}, {"year": 1994}, False),
        ("EVENT", {"date": "February 2025"}, {"date": "July 2024"}, True),
        ("EVENT", {"date": "March 2024"}, {"date": "June 2024"}, False),  # moved, same year
        ("EVENT", {"date": "next spring"}, {"date": "July 2024"}, False),
    ],
)
def test_a_year_tells_two_things_or_two_events_apart(kind, said, stored, differ):
    assert properties_differ(kind, said, stored) is differ


# --- epithets, a stored form of address, the rest of a name after its first word ---------------


def test_big_mike_is_mike_and_asked_between_two():
    assert decide("Big Mike", [node(1, "Mike Dunn", "friend")])[:2] == ("merge", 1)
    two = [node(1, "Mike Dunn", "friend"), node(2, "Mike Okafor", "friend")]
    assert decide("Big Mike", two)[0] == "hold"


@pytest.mark.parametrize(
    ("stored", "said"), [("Miss Hyacinth", "Hyacinth Brown"), ("Coach Dave", "Dave Sullivan")]
)
def test_a_full_name_reaches_a_stored_form_of_address(stored, said):
    assert decide(said, [node(1, stored)]) == ("merge", 1, "first-name")


@pytest.mark.parametrize(
    ("stored", "said"), [("William Henry Peters", "Henry Peters"), ("Tan Wei Ming", "Wei Ming")]
)
def test_the_name_after_its_first_word_is_the_person(stored, said):
    assert decide(said, [node(1, stored)]) == ("merge", 1, "middle-name")


def test_not_across_genders_of_a_compound_given_name():
    # María José is her given name: José Fernández is someone else.
    assert decide("José Fernández", [node(1, "María José Fernández")])[0] == "new"


def test_the_role_said_picks_among_several():
    stored = [
        node(1, "Chloe Martin", role="babysitter"),
        node(2, "Chloe Nguyen", "niece"),
    ]
    assert decide("Chloe", stored, role="babysitter") == ("merge", 1, "first-name-by-role")
    # One of unknown occupation may be the babysitter too: asked.
    assert decide("Chloe", [stored[0], node(3, "Chloe Park")], role="babysitter")[0] == "hold"
