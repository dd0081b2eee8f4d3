"""The third round of general merge rules (issue 21, third blind set) besides properties
(test_merge_properties.py): two common surnames a vowel apart are two names, pet forms of
given names outside English, and a city's other names. Pure functions."""

import pytest

from memory.core.first_names import name_group
from memory.core.merge_rules import CITY_NAME, Mention, StoredNode, decide_merge
from memory.core.person_forms import surname_respelled
from memory.core.person_names import relate_first_names
from memory.core.place_names import same_city

ME = StoredNode(99, "PERSON", "Trevor", is_self=True)


def decide(name, stored):
    verdict = decide_merge(name, "PERSON", [ME, *stored], mention=Mention())
    names = {n.id: n.name for n in stored}
    return verdict.action, names.get(verdict.target), verdict.rule


def test_two_common_surnames_a_vowel_apart_are_two_names():
    assert not surname_respelled(("chloe", "barton"), ("chloe", "burton"))
    assert decide("Chloe Barton", [StoredNode(1, "PERSON", "Chloe Burton")])[0] != "merge"
    # A rarer surname may still be a slip.
    assert surname_respelled(("catherine", "abernethy"), ("catherine", "abernathy"))
    assert decide("Catherine Abernethy", [StoredNode(1, "PERSON", "Catherine Abernathy")])[:2] == (
        "merge",
        "Catherine Abernathy",
    )


@pytest.mark.parametrize(
    ("pet", "full"),
    [
        ("paco", "francisco"),
        ("gosia", "malgorzata"),
        ("gianni", "giovanni"),
        ("kostas", "konstantinos"),
        ("emeka", "chukwuemeka"),
    ],
)
def test_pet_forms_outside_english_relate_both_ways(pet, full):
    assert full in name_group(pet) and pet in name_group(full)
    assert relate_first_names(pet, full) is not None


def test_a_pet_form_of_two_stored_names_is_asked_about():
    stored = [
        StoredNode(1, "PERSON", "Alexandra Popescu"),
        StoredNode(2, "PERSON", "Alejandro Vidal"),
    ]
    action, target, _ = decide("Alex", stored)
    assert (action, target) == ("hold", None)
    assert decide("Paco", [StoredNode(1, "PERSON", "Francisco Ruiz")])[:2] == (
        "merge",
        "Francisco Ruiz",
    )


# --- a city's other names (GeoNames) --------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("Bombay", "Mumbai"),
        ("Köln", "Cologne"),
        ("Den Haag", "The Hague"),
        ("Москва", "Moscow"),
        ("京都", "Kyoto"),
        ("Kiev", "Kyiv"),
    ],
)
def test_another_name_of_one_city_merges(said, stored):
    assert same_city(said, stored) and same_city(stored, said)
    place = StoredNode(1, "PLACE", stored)
    verdict = decide_merge(said, "PLACE", [ME, place], mention=Mention())
    assert (verdict.action, verdict.target, verdict.rule) == ("merge", 1, CITY_NAME)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Manchester", "Richmond"),  # GeoNames lists it for Richmond, Virginia: another city's name
        ("Grenada", "Granada"),  # a country's name
        ("New York", "New York City"),  # one inside the other: perhaps the state
        ("London", "Paris"),
        ("Mumbai", "Mumbai"),  # the same name: the exact rule's
    ],
)
def test_names_that_are_not_another_name_of_one_city(a, b):
    assert not same_city(a, b)


def test_a_city_name_with_a_location_said_is_asked_about():
    place = StoredNode(1, "PLACE", "Florence", properties={"state": "Alabama"})
    verdict = decide_merge("Firenze", "PLACE", [ME, place], mention=Mention())
    assert (verdict.action, verdict.rule) == ("hold", CITY_NAME)
    # A person is no city.
    person = StoredNode(2, "PERSON", "Florence")
    assert decide_merge("Firenze", "PERSON", [ME, person], mention=Mention()).action == "new"
