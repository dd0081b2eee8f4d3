"""The 31st round of merge rules (issue 21, session 27), from blind sets 39 (family history
and genealogy) and 41 (caring for ageing parents), read after round 30 was measured on
them: the years of a life, a relative of someone named by a kinship word, a relative of an
acquaintance, father and son of one name, two US states, a country and a state, a new one
told, a kinship word said of a neighbour, two kinship titles, what two notes say a person
is to someone, whose a thing is, another occurrence of an event, a side of the family a
note's kinship word says. Pure functions; the Write path runs them through ``bench_merge``
on every labelled set."""

import pytest

from memory.core.merge_properties import (
    life_years,
    lives_apart,
    owned_by_others,
    place_noted_states,
    place_type_noted,
    thing_owner,
)
from memory.core.person_roles import relative_of_an_acquaintance, said_unrelated
from tests.memory.core.merge_helpers import decide, node


@pytest.mark.parametrize(
    ("said", "held", "apart"),
    [
        ("Anders's son, born 1875 in Wisconsin", "born 1820 in Ribe", True),
        ("his grandson, born 1910", "3x great-grandfather, died 1899 in Norfolk", True),
        ("a 1955 baptism in Armagh", "great-grandmother, died 1950 in Armagh", True),
        # Records give a birth a few years either way; no years, nothing.
        ("born about 1860 in Limerick", "born 1862", False),
        ("the one with the farm", "died 1940", False),
    ],
)
def test_the_years_of_a_life(said, held, apart):
    assert lives_apart(life_years({"note": said}), {"note": held}) is apart


def test_a_namesake_of_another_generation_is_another_person():
    grandfather = node(1, "Walter Marsh", note="3x great-grandfather, died 1899 in Norfolk")
    said = {"note": "his grandson, Linda's grandad, born 1910"}
    assert decide("Walter Marsh", [grandfather], **said)[0] == "new"
    assert decide("Walter Marsh", [grandfather], note="his will, 1890")[:2] == ("merge", 1)


def test_a_relative_of_someone_named_by_a_kinship_word_is_not_them():
    jiddo = node(1, "Mahmoud Khalil Haddad", "grandfather", note="jiddo, born in Haifa 1925")
    said = {"note": "jiddo's father, the one with the orange groves"}
    assert decide("Khalil Haddad", [jiddo], **said)[0] == "new"
    # A note of the person's own relative is about someone else.
    mum = node(1, "Linda", "mother")
    assert decide("Mum", [mum], roles=("mother",), note="Mum's sister is visiting")[:2] == (
        "merge",
        1,
    )


def test_a_relative_of_an_acquaintance_is_no_relative_of_the_users():
    assert relative_of_an_acquaintance({"note": "my neighbour's mum, turned 100"})
    assert not relative_of_an_acquaintance({"note": "my sister's son"})
    aunt = node(1, "Ivy Clarke", "aunt", note="lived in Hackney, never married")
    said = {"note": "my neighbour's mum, turned 100 last week"}
    assert decide("Ivy Clarke", [aunt], **said)[0] == "new"


def test_father_and_son_of_one_name_are_asked_about():
    father = node(1, "Michael Brennan", note="great-grandad's brother, settled in Boston")
    son = node(2, "Michael Brennan Jr.", note="his son, Boston police")
    said = {"note": "named in a 1935 Boston Globe clipping"}
    assert decide("Mike Brennan", [father, son], **said) == ("hold", None, "generations")
    assert decide("Mike Brennan", [father], **said)[:2] == ("merge", 1)


def test_places_in_two_us_states_or_a_country_and_a_state():
    assert place_noted_states("Springfield", {"note": "Illinois, where Grandpa was born"}) == {
        "illinois"
    }
    assert place_type_noted({"note": "the US state, Grandpa's army base"}) == "state"
    illinois = node(1, "Springfield", kind="PLACE", note="Illinois, where Grandpa was born")
    said = {"note": "Massachusetts, where Aunt Rose raised her kids"}
    assert decide("Springfield", [illinois], kind="PLACE", **said)[0] == "new"
    country = node(1, "Georgia", kind="PLACE", note="the country, the Tbilisi side")
    said = {"note": "the US state, Grandpa's army base at Fort Benning"}
    assert decide("Georgia", [country], kind="PLACE", **said)[0] == "new"
    assert decide("Georgia", [country], kind="PLACE", note="supra recipes")[0] == "merge"


def test_a_description_told_as_a_new_one_is_not_the_stored_one():
    priest = node(1, "Father O'Leary", "priest", note="parish priest in Ballyvourney")
    said = {"note": "the new one in Ballyvourney, answered my email"}
    assert decide("the parish priest", [priest], **said)[0] != "merge"


def test_a_kinship_word_said_of_a_neighbour():
    assert said_unrelated({"note": "the old lady next door that Eomma brings food to"})
    assert not said_unrelated({"note": "Gran, who lives next door to us"})
    grandmother = node(1, "Halmeoni", "grandmother", note="Eomma's mother, in Suwon")
    said = {"note": "the old lady next door that Eomma brings food to"}
    assert decide("Halmeoni", [grandmother], **said)[0] == "new"


def test_two_kinship_titles_are_two_relations():
    uncle = node(1, "Zio Franco", note="Papà's brother in Torino")
    assert decide("Nonno Franco", [uncle], note="Nonna's late husband")[0] == "new"
    assert decide("Uncle Franco", [uncle], note="came for lunch")[:2] == ("merge", 1)


@pytest.mark.parametrize(
    ("said", "held", "apart"),
    [
        ("Papa's cousin from Cebu", "Mama's sister in Quezon City", True),
        ("Mom's friend from square dancing", "Nainai's live-in carer", True),
        ("Sophie's new boyfriend, came to lunch", "my grandson, Sophie's boy, 6", True),
        # One person may be Mum's GP and Dad's; Mum's friend and her neighbour.
        ("Dad's GP, at the Grove", "Mum's GP at the Grove surgery", False),
        ("Mum's friend from church", "Mum's neighbour", False),
    ],
)
def test_what_two_notes_say_a_person_is_to_someone(said, held, apart):
    stored = node(1, "Tita Baby", note=held)
    assert (decide("Tita Baby", [stored], note=said)[0] == "new") is apart


@pytest.mark.parametrize(
    ("note", "owner"),
    [
        ("Mum's stairlift at her house", {"mother"}),
        ("applied for a blue badge for Dad now too", {"father"}),
        ("bought Lily a scooter for her birthday", {"lily"}),
        ("for the stairs", set()),
    ],
)
def test_whose_a_thing_is(note, owner):
    assert thing_owner({"note": note}) == owner


def test_two_peoples_things_of_one_name_are_two_things():
    said = thing_owner({"note": "a blue badge for Dad"})
    assert owned_by_others(said, {"note": "Mum's parking badge"})
    badge = node(1, "Blue Badge", kind="THING", note="Mum's disabled parking badge")
    said = {"note": "applied for a blue badge for Dad now too"}
    assert decide("blue badge", [badge], kind="THING", **said)[0] == "new"
    renewed = {"note": "renewed Mum's blue badge"}
    assert decide("blue badge", [badge], kind="THING", **renewed)[:2] == ("merge", 1)


def test_another_occurrence_of_an_event():
    fall = node(1, "Mum's fall", kind="EVENT", note="broke her hip, January 2025")
    said = {"note": "another fall last night, no bones broken this time"}
    assert decide("Mum's fall", [fall], kind="EVENT", **said)[0] == "new"
    assert decide("Mum's fall", [fall], kind="EVENT", note="the hip is healing")[0] == "merge"


def test_the_side_of_the_family_a_notes_kinship_word_says():
    dadi = node(1, "Kamala Devi Sharma", "grandmother", note="my dadi, Jaipur")
    said = {"note": "my nani in Lucknow"}
    assert decide("Nani", [dadi], roles=("grandmother",), **said)[0] != "merge"
    assert decide("Dadi", [dadi], roles=("grandmother",), note="her stories")[:2] == (
        "merge",
        1,
    )


@pytest.mark.parametrize(
    ("said", "stored", "kind"),
    [
        ("Oakfield", "Oakfield Day Centre", "ORG"),
        ("Sonnenschein", "Pflegedienst Sonnenschein", "ORG"),
        ("São Vicente", "Lar dos Idosos São Vicente", "ORG"),
        ("Hartfield", "Hartfield Retirement Village", "PLACE"),
    ],
)
def test_a_care_service_or_home_with_the_word_for_its_kind(said, stored, kind):
    assert decide(said, [node(1, stored, kind=kind)], kind=kind) == ("merge", 1, "kind-word")


def test_a_place_each_note_places_otherwise_is_asked_about():
    wales = node(1, "Newport", kind="PLACE", note="Monmouthshire, Dad's family were dockers there")
    said = {"note": "Rhode Island, where the Portuguese cousins settled"}
    assert decide("Newport", [wales], kind="PLACE", **said) == ("hold", None, "placed-otherwise")
    # One place named within the other's, a month, or nothing said: the name decides.
    assert decide("Newport", [wales], kind="PLACE", note="the docks in Monmouthshire")[0] == (
        "merge"
    )
    assert decide("Newport", [wales], kind="PLACE", note="back there in May")[0] == "merge"
    cathedral = node(1, "St Patrick's Cathedral", kind="ORG", note="Dublin, the choir")
    said = {"note": "New York, where Aunt Nora married in 1951"}
    assert decide("St Patrick's Cathedral", [cathedral], kind="ORG", **said)[0] == "hold"
