"""What is said of a thing, for and against a merge (issue 21, third blind set): two
referents of one name told apart by their properties, and people matched on part of a name
whose roles share nothing. Pure functions."""

import pytest

from memory.core.merge_properties import (
    PROPERTIES_DIFFER,
    distinguishing_label,
    properties_differ,
    roles_differ,
)
from memory.core.merge_rules import Mention, StoredNode, decide_merge

ME = StoredNode(99, "PERSON", "Trevor", is_self=True)


def decide(name, kind, stored, **said):
    verdict = decide_merge(name, kind, [ME, *stored], mention=Mention(properties=said))
    names = {n.id: n.name for n in stored}
    return verdict.action, names.get(verdict.target), verdict.rule


@pytest.mark.parametrize(
    ("kind", "said", "stored"),
    [
        ("OTHER", {"species": "dog"}, {"species": "cat"}),
        ("OTHER", {"species": "puppy"}, {"species": "rabbit"}),
        ("PLACE", {"city": "Chicago"}, {"city": "London"}),
        ("PLACE", {"country": "USA"}, {"country": "UK"}),
        ("PLACE", {"type": "country", "capital": "Tbilisi"}, {"type": "US state"}),
        ("ORG", {"country": "Ghana"}, {"country": "New Zealand"}),
        ("EVENT", {"year": 2024}, {"year": "2019"}),
    ],
)
def test_identifying_properties_that_cannot_be_one_thing_differ(kind, said, stored):
    assert properties_differ(kind, said, stored)
    assert properties_differ(kind, stored, said)


@pytest.mark.parametrize(
    ("kind", "said", "stored"),
    [
        ("OTHER", {"species": "dog"}, {"species": "puppy"}),  # one class of animal
        ("OTHER", {"species": "golden retriever"}, {"species": "dog"}),  # unknown word
        ("OTHER", {"species": "dog"}, {}),  # said on one side only
        ("PLACE", {"country": "USA"}, {"country": "United States of America"}),  # acronym
        ("PLACE", {"country": "US"}, {"country": "America"}),  # names of one country
        ("PLACE", {"country": "England"}, {"country": "UK"}),
        ("PLACE", {"country": "the Netherlands"}, {"country": "Holland"}),
        ("PLACE", {"state": "CA"}, {"state": "California"}),  # abbreviation: unknown
        ("PLACE", {"city": "New York"}, {"city": "New York City"}),  # one inside the other
        ("PLACE", {"type": "town"}, {"type": "city"}),  # one class of place
        ("PLACE", {"type": "park"}, {"type": "city"}),  # unknown class
        ("PERSON", {"city": "Denver"}, {"city": "Boston"}),  # people move
        ("OTHER", {"species": ["dog"]}, {"species": "cat"}),  # not a plain value
    ],
)
def test_values_that_may_be_one_thing_do_not_differ(kind, said, stored):
    assert not properties_differ(kind, said, stored)


def test_a_namesake_told_apart_by_its_properties_is_a_new_referent():
    cat = StoredNode(1, "OTHER", "Luna", properties={"species": "cat"})
    assert decide("Luna", "OTHER", [cat], species="dog") == ("new", None, PROPERTIES_DIFFER)
    assert decide("Luna", "OTHER", [cat], species="kitten") == ("merge", "Luna", "exact")
    assert decide("Luna", "OTHER", [cat]) == ("merge", "Luna", "exact")


def test_the_other_namesake_is_still_found_by_the_rules():
    london = StoredNode(1, "PLACE", "Hyde Park", properties={"city": "London"})
    chicago = StoredNode(
        2, "PLACE", "Hyde Park (Chicago)", aliases=("Hyde Park",), properties={"city": "Chicago"}
    )
    assert decide("Hyde Park", "PLACE", [london, chicago], city="Chicago") == (
        "merge",
        "Hyde Park (Chicago)",
        "alias",
    )
    assert decide("Hyde Park", "PLACE", [london, chicago], city="London")[:2] == (
        "merge",
        "Hyde Park",
    )


def test_roles_sharing_no_word_differ():
    assert roles_differ({"role": "plumber who fixed the boiler"}, {"role": "software engineer"})
    assert roles_differ({"role": "Biscuit's vet"}, {"role": "GP"})
    assert not roles_differ({"role": "my daughter's teacher"}, {"role": "teacher"})
    assert not roles_differ({"role": "engineer at Google"}, {"role": "software engineer"})
    assert not roles_differ({"role": "plumber"}, {})


def test_a_person_matched_on_part_of_a_name_whose_role_differs_is_asked_about():
    tariq = StoredNode(1, "PERSON", "Tariq Hussain", properties={"role": "software engineer"})
    action, target, rule = decide("Tariq", "PERSON", [tariq], role="plumber")
    assert (action, target) == ("hold", None)
    assert rule.endswith("role-differs")
    assert decide("Tariq", "PERSON", [tariq], role="senior engineer")[:2] == (
        "merge",
        "Tariq Hussain",
    )
    # A full name said again is the same person, whatever role is said with it.
    assert decide("Tariq Hussain", "PERSON", [tariq], role="plumber")[:2] == (
        "merge",
        "Tariq Hussain",
    )


def test_the_label_is_the_most_specific_identifying_property():
    assert distinguishing_label("OTHER", {"species": "dog", "owner": "neighbour"}) == "dog"
    assert (
        distinguishing_label("PLACE", {"country": "USA", "state": "Massachusetts"})
        == "Massachusetts"
    )
    assert distinguishing_label("PERSON", {"city": "Denver"}) == ""
    assert distinguishing_label("PLACE", {"note": "big"}) == ""
