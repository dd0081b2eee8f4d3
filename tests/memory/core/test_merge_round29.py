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
    said = {"note": "Kyria Eleni brought koulourakia round"}
    assert decide("Kyria Eleni", [yiayia], **said) == ("hold", None, "courtesy-for-family")
    # Said as the grandmother's neighbour, she is someone else (round 31).
    neighbour = {"note": "Yiayia's neighbour Kyria Eleni"}
    assert decide("Kyria Eleni", [yiayia], **neighbour)[0] == "new"
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


def test_a_person_described_as_their_note_opens():
    nurse = node(1, "Nurse Lorraine", note="the school nurse at Oakfield, did the hearing tests")
    assert decide("the school nurse", [nurse]) == ("merge", 1, "description")
    violin = node(2, "Mrs Ellis", note="Maya's peripatetic violin teacher, comes on Wednesdays")
    assert decide("the violin teacher", [nurse, violin])[:2] == ("merge", 2)
    mum = node(3, "Claire Pemberton", note="Ollie's mum; we share the school run")
    assert decide("Ollie's mum", [nurse, mum])[:2] == ("merge", 3)
    # Two notes of the description are a question; a new one is someone else.
    swim = [
        node(1, "Kate", note="the swimming teacher at the leisure centre"),
        node(2, "Gary", note="Leo's swimming teacher at school"),
    ]
    assert decide("the swimming teacher", swim)[0] == "hold"
    co = node(1, "Lt Col Fiona McLeod", note="CO of 3 SCOTS when I joined")
    assert decide("the CO", [co], note="the new CO took over this week")[0] == "new"


def test_kinship_words_of_more_languages_and_their_side_of_the_family():
    maternal = node(1, "Li Guilan", "grandmother", note="mum's mother, Harbin")
    paternal = node(2, "Wang Xiuying", "grandmother", note="dad's mother, Chengdu")
    assert decide("Waipo", [maternal, paternal])[:2] == ("merge", 1)
    assert decide("奶奶", [maternal, paternal])[:2] == ("merge", 2)
    assert decide("Farmor", [maternal, paternal])[:2] == ("merge", 2)
    assert decide("Bà Ngoại", [maternal, paternal])[:2] == ("merge", 1)
    # A word of no side, with two grandmothers, is a question.
    assert decide("Halmeoni", [maternal, paternal])[0] == "hold"
    # The mother's mother is not the one known by the father's side's word.
    nainai = node(1, "奶奶", "grandmother")
    assert decide("外婆", [nainai])[0] != "merge"


def test_kinship_titles_of_more_languages():
    misha = node(1, "Mikhail Orlov", "uncle", note="Dad's brother, drives a taxi")
    assert decide("Dyadya Misha", [misha]) == ("merge", 1, "kin-title")
    maria = node(1, "Maria Papadopoulou", "aunt")
    assert decide("Theia Maria", [maria])[:2] == ("merge", 1)


def test_a_parent_named_by_their_child():
    khalid = node(1, "Khalid Haddad", "neighbour", note="next door; his eldest son is Omar")
    omar = node(2, "Omar Haddad", note="Khalid's eldest son, studying engineering")
    assert decide("Abu Omar", [khalid, omar]) == ("merge", 1, "teknonym")
    folake = node(3, "Folake Adebayo", "neighbour", note="neighbour in Peckham; her son is Tunde")
    assert decide("Mama Tunde", [folake])[:2] == ("merge", 3)
    tanaka = node(4, "Tanaka-san", note="Kenta's mum from hoshuko, we carpool")
    assert decide("Kenta-kun no mama", [tanaka])[:2] == ("merge", 4)
    soojin = node(5, "Kim Soo-jin", note="Min-jun's mum; Min-jun is in Jiwoo's class")
    assert decide("민준 엄마", [soojin])[:2] == ("merge", 5)
    # The mother is not the father the note names; two fathers of an Ali are a question.
    father = node(6, "Khalid", note="Ahmed's father, drives the boys to football")
    assert decide("Umm Ahmed", [father])[0] != "merge"
    alis = [
        node(7, "Hussein Jaber", note="across the street, son Ali"),
        node(8, "Kareem Saleh", note="my husband's uncle; his eldest son is Ali"),
    ]
    assert decide("Abu Ali", alis) == ("hold", None, "teknonym-ambiguous")
    # Placed in another country, another parent of a Tunde.
    lagos = {"note": "Mama Tunde who sells akara near my parents' house in Lagos"}
    folake = node(3, "Folake Adebayo", "neighbour", note="neighbour in Peckham, London")
    assert (
        decide(
            "Mama Tunde",
            [
                replace(
                    folake, properties={"note": "neighbour in Peckham, London; her son is Tunde"}
                )
            ],
            **lagos,
        )[0]
        != "merge"
    )
