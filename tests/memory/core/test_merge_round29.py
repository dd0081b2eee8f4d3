"""The 29th round of merge rules (issue 21, session 26), from blind sets 37 (parenting
school-age children) and 38 (a multilingual, multinational family), read after their unread
runs: a kinship word said as someone else's, courtesies not said to one's own family, one
titled name in two scripts, a place put in two countries, an alias another person's first
name shares, Miss and Mrs, a teacher's title and a courtesy. Pure functions; the Write path
runs them through ``bench_merge`` on every labelled set."""

from dataclasses import replace

import pytest

from memory.core.merge_properties import place_noted_in
from tests.memory.core.merge_helpers import decide, node


def test_a_kinship_word_said_as_someone_elses_is_another_person():
    grandmother = node(1, "Yamamoto Haru", "grandmother", note="mum's mother, Osaka")
    said = {"note": "my husband's obaachan in Sendai is turning 100"}
    assert decide("Obaachan", [grandmother], **said) == ("new", None, "someone-elses")
    assert decide("Obaachan", [grandmother], note="obaachan called")[:2] == ("merge", 1)


def test_no_one_calls_their_own_family_mrs_or_don():
    yiayia = node(1, "Eleni Georgiou", "grandmother", note="Yiayia, Thessaloniki")
    said = {"note": "Yiayia's neighbour Kyria Eleni"}
    assert decide("Kyria Eleni", [yiayia], **said) == ("hold", None, "courtesy-for-family")
    # An in-law may be.
    in_law = node(1, "Francisco Morales", "father_in_law", note="makes paella every Sunday")
    assert decide("Don Paco", [in_law], note="Don Paco's Sunday paella")[:2] == ("merge", 1)


def test_one_titled_name_in_two_scripts():
    teacher = node(1, "Kyria Eleni", note="Nikos's teacher at the Greek school")
    assert decide("κυρία Ελένη", [teacher]) == ("merge", 1, "transliteration")


@pytest.mark.parametrize(
    ("name", "note", "countries"),
    [
        ("Georgia", "drove to Atlanta, Georgia for a conference", {"US"}),
        ("Georgia", "husband's family is from Tbilisi, Georgia", {"GE"}),
        ("Alexandria", "my sister moved to Alexandria, Virginia", {"US"}),
        ("Punjab", "Dadaji's village near Lahore, Pakistan", {"PK"}),
        # A city after "in" may be a district of another city; the place's own name
        # counts for nothing.
        ("Lisboa", "pastéis de nata in Belém", set()),
        ("Georgia", "thinking of moving to Georgia", set()),
    ],
)
def test_the_countries_a_note_puts_a_place_in(name, note, countries):
    assert place_noted_in(name, {"note": note}) == countries


def test_a_place_put_in_two_countries_is_two_places():
    georgia = node(1, "Georgia", kind="PLACE", country="Georgia", note="supra every summer")
    said = {"note": "drove to Atlanta, Georgia for a conference"}
    assert decide("Georgia", [georgia], kind="PLACE", **said)[0] == "new"
    assert decide("Georgia", [georgia], kind="PLACE", note="back to Tbilisi")[0] == "merge"


def test_an_alias_another_persons_first_name_shares_is_a_question():
    brother = replace(node(1, "Theodoros Vlachos", "brother"), aliases=("theo",))
    boss = node(2, "Theo Martin", "boss")
    assert decide("Theo", [brother])[:2] == ("merge", 1)
    assert decide("Theo", [brother, boss]) == ("hold", None, "alias-ambiguous")
    # Said with the relation, it is the one who has it.
    assert decide("Theo", [brother, boss], roles={"brother"})[:2] == ("merge", 1)
    # A relation the alias's holder cannot have is someone else's name.
    assert decide("Theo", [brother, boss], roles={"nephew"})[0] != "merge"


def test_miss_and_mrs_of_one_surname_are_a_question():
    teacher = node(1, "Miss Carter", note="Maya's Year 3 teacher, just qualified")
    assert decide("Mrs Carter", [teacher]) == ("hold", None, "titles-differ")
    assert decide("Miss Carter", [teacher])[:2] == ("merge", 1)


def test_a_teachers_title_and_a_courtesy_are_a_question():
    sensei = node(1, "Tanaka-sensei", note="Yui's homeroom teacher")
    assert decide("Tanaka-san", [sensei]) == ("hold", None, "titles-differ")
