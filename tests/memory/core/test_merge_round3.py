"""The third round of general merge rules (issue 21, third blind set) besides properties
(test_merge_properties.py): two common surnames a vowel apart are two names, pet forms of
given names outside English, a city's other names, kinship titles after a name, more
titles, umlauts typed as digraphs after a title, and a leading "the". Pure functions."""

import pytest

from memory.core.first_names import name_group
from memory.core.kinship import kin_title
from memory.core.merge_rules import CITY_NAME, Mention, StoredNode, decide_merge
from memory.core.name_spelling import spelling_keys
from memory.core.person_forms import surname_respelled
from memory.core.person_names import relate_first_names
from memory.core.person_roles import roles_from_relations
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


def test_a_surname_with_a_letter_added_at_its_end_is_no_slip():
    # Once a crash of the Write path (found by a blind case set): no letter differs inside.
    assert not surname_respelled(("mark", "abernathy"), ("mark", "abernathys"))
    assert decide("Mark Abernathys", [StoredNode(1, "PERSON", "Mark Abernathy")])[0] != "merge"


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


def test_a_stated_country_is_checked_against_the_shared_city():
    for country, action in (("Italy", "merge"), ("IT", "merge"), ("USA", "hold")):
        place = StoredNode(1, "PLACE", "Florence", properties={"country": country})
        verdict = decide_merge("Firenze", "PLACE", [ME, place], mention=Mention())
        assert verdict.action == action, country


# --- kinship titles, other titles, umlauts, "the" -------------------------------------------


def relations(*labels):
    return roles_from_relations((label, False) for label in labels)


@pytest.mark.parametrize(
    ("said", "stored", "relation"),
    [
        ("Lakshmi Aunty", "Lakshmi Narayanan", "HAS_AUNT"),  # a title after the name
        ("Subbu Mama", "Subramaniam Iyer", "HAS_UNCLE"),  # mama: a maternal uncle
        ("Abuelita Lupita", "Guadalupe Ortega", "HAS_GRANDMOTHER"),
        ("Saba Avi", "Avraham Katz", "HAS_GRANDFATHER"),
    ],
)
def test_kinship_titles_before_or_after_a_name(said, stored, relation):
    node = StoredNode(1, "PERSON", stored, roles=relations(relation))
    verdict = decide_merge(said, "PERSON", [ME, node], mention=Mention(roles=relations(relation)))
    assert (verdict.action, verdict.target, verdict.rule) == ("merge", 1, "kin-title")


def test_a_kinship_title_after_a_name_of_the_other_gender_is_no_title():
    assert kin_title("anna mama") is None
    assert kin_title("lakshmi aunty") == ("aunt", "lakshmi")


def test_a_pet_form_of_the_world_table_is_a_nickname_whatever_its_length():
    assert relate_first_names("pepe", "jose") == "nickname"
    uncle = StoredNode(1, "PERSON", "José Luis Herrera", roles=relations("HAS_UNCLE"))
    cousin = StoredNode(2, "PERSON", "Luis Herrera", roles=relations("HAS_COUSIN"))
    verdict = decide_merge(
        "Tío Pepe", "PERSON", [ME, uncle, cousin], mention=Mention(roles=relations("HAS_UNCLE"))
    )
    assert (verdict.action, verdict.target) == ("merge", 1)


def test_a_title_and_a_surname_typed_with_an_umlauts_digraph():
    assert decide("Herr Krueger", [StoredNode(1, "PERSON", "Wolfgang Krüger")])[:2] == (
        "merge",
        "Wolfgang Krüger",
    )
    assert decide("Coach Hughes", [StoredNode(1, "PERSON", "Darnell Hughes")])[:2] == (
        "merge",
        "Darnell Hughes",
    )
    assert decide("Herr Kruger", [StoredNode(1, "PERSON", "Wolfgang Kreuger")])[0] != "merge"


def test_a_leading_the_is_no_part_of_a_name():
    assert "lake district" in spelling_keys("the lake district")
    place = StoredNode(1, "PLACE", "the Lake District")
    verdict = decide_merge("Lake District", "PLACE", [ME, place], mention=Mention())
    assert (verdict.action, verdict.target) == ("merge", 1)
