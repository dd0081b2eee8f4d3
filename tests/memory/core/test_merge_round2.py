"""The second round of general merge rules (issue 21, second blind set): names of one origin
that are two given names, given names one letter apart, kinship words and titles, acronyms,
the user's own employer or home, one place name in two regions, surname slips, two surnames,
professional titles, double-barrelled surnames and abbreviations. Pure functions."""

import pytest

from memory.core.kinship import kin_title, kinship_meanings
from memory.core.merge_places import is_acronym_of, other_region
from memory.core.merge_rules import Mention, StoredNode, decide_merge
from memory.core.name_spelling import spelling_keys, transliteration_key
from memory.core.person_forms import surname_respelled
from memory.core.person_names import VARIANT, one_letter_apart, relate_first_names
from memory.core.person_roles import roles_from_relations

ME = StoredNode(99, "PERSON", "Trevor", is_self=True)


def node(node_id, name, *relations, kind="PERSON"):
    roles = roles_from_relations((label, False) for label in relations)
    return StoredNode(node_id, kind, name, roles=roles)


def decide(name, stored, *relations, kind="PERSON"):
    roles = roles_from_relations((label, False) for label in relations)
    verdict = decide_merge(name, kind, [ME, *stored], mention=Mention(roles=roles))
    names = {n.id: n.name for n in stored}
    return verdict.action, names.get(verdict.target), verdict.rule


# --- two given names of one origin ---------------------------------------------------------


def test_names_linked_by_the_table_that_begin_otherwise_and_are_as_long_are_two_names():
    assert relate_first_names("hannah", "anna") is None
    assert relate_first_names("susan", "hannah") is None
    assert decide("Hannah", [node(1, "Anna Kowalski", "HAS_SISTER")]) == ("new", None, "none")


@pytest.mark.parametrize(
    ("short", "full"),
    [("bill", "william"), ("becky", "rebecca"), ("bobby", "robert"), ("teddy", "edward")],
)
def test_nicknames_that_begin_otherwise_still_count(short, full):
    assert relate_first_names(short, full) == "nickname"


# --- given names one letter apart -------------------------------------------------------------


def test_two_given_names_one_letter_apart_are_asked_about():
    assert relate_first_names("noah", "noa") == VARIANT
    assert one_letter_apart("jonah", "jonas")
    stored = [node(1, "Noa", "HAS_CHILD"), node(2, "Eitan", "HAS_CHILD")]
    assert decide("Noah", stored) == ("hold", None, "variant")
    assert decide("Jonah Berg", [node(1, "Jonas Berg")]) == ("hold", None, "similar")


def test_one_letter_apart_of_another_gender_or_first_sound_is_another_name():
    assert relate_first_names("eva", "evan") is None
    assert not one_letter_apart("anna", "hanna")
    assert decide("Eva", [node(1, "Evan Smith")]) == ("new", None, "none")
    assert decide("Anna Berg", [node(1, "Hanna Berg")]) == ("new", None, "none")


# --- kinship words ---------------------------------------------------------------------------


def test_the_kinship_table_says_what_a_word_means():
    assert kinship_meanings("mama") == {"mother"}
    assert kinship_meanings("appa") == {"father"}
    assert kinship_meanings("baba") == {"father", "grandmother"}
    assert kinship_meanings("grandma ruth") == frozenset()


def test_a_kinship_word_merges_into_the_one_person_of_that_relation():
    stored = [node(1, "Elena Petrova", "HAS_MOTHER"), node(2, "Igor Petrov", "HAS_FATHER")]
    assert decide("Mama", stored, "HAS_MOTHER") == ("merge", "Elena Petrova", "kinship")
    assert decide("Appa", stored) == ("merge", "Igor Petrov", "kinship")
    assert decide("Mom", [node(1, "Linda", "HAS_SISTER")]) == ("new", None, "none")


def test_several_or_a_name_holding_the_word_are_asked_about():
    two = [node(1, "Linda Park", "HAS_MOTHER"), node(2, "Jane Park", "HAS_MOTHER")]
    assert decide("Mom", two)[0] == "hold"
    assert decide("Grandma", [node(1, "Grandma Ruth")]) == ("hold", None, "kinship-ambiguous")
    both = [node(1, "Igor", "HAS_FATHER"), node(2, "Olga", "HAS_GRANDMOTHER")]
    assert decide("Baba", both)[0] == "hold"
    assert decide("Baba", both, "HAS_GRANDMOTHER") == ("merge", "Olga", "kinship")


def test_a_kinship_word_the_user_says_is_a_friends_name_is_a_name():
    stored = [node(1, "Nana Mensah", "HAS_FRIEND")]
    assert decide("Nana", stored, "HAS_FRIEND") == ("merge", "Nana Mensah", "first-name")
    assert decide("Mama", [node(1, "Mamadou Diallo")]) == ("new", None, "none")


def test_a_full_name_said_as_the_father_goes_to_the_node_named_dad():
    dad = [node(1, "Dad", "HAS_FATHER")]
    assert decide("Graham Whitfield", dad, "HAS_FATHER") == ("merge", "Dad", "kinship")
    assert decide("Graham Whitfield", dad, "HAS_FRIEND")[0] == "new"
    grandpa = [node(1, "Grandpa", "HAS_GRANDFATHER")]
    assert decide("Graham Whitfield", grandpa, "HAS_GRANDFATHER")[0] == "new"


def test_a_kinship_title_with_a_first_name_is_a_title():
    assert kin_title("tia rosa") == ("aunt", "rosa")
    assert kin_title("zia ahmed") is None  # a man's name: not an aunt
    assert kin_title("nana mensah") is None  # Nana before a surname: a full name
    assert decide("Tía Rosa", [node(1, "Rosa Delgado")]) == ("merge", "Rosa Delgado", "kin-title")
    assert decide("Uncle Bob", [node(1, "Robert Smith")])[1] == "Robert Smith"
    assert decide("Aunt Rosa", [node(1, "Rosa Delgado", "HAS_SISTER")])[0] == "new"
    assert decide("Grandma Ruth", [node(1, "Grandma", "HAS_GRANDMOTHER")])[0] == "hold"


# --- acronyms --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("short", "long", "kind"),
    [
        ("UCLA", "University of California, Los Angeles", "ORG"),
        ("LSE", "London School of Economics", "ORG"),
        ("U.C.L.A.", "University of California, Los Angeles", "ORG"),
        ("UC Berkeley", "University of California, Berkeley", "ORG"),
        ("TD Bank", "Toronto-Dominion Bank", "ORG"),
        ("EY", "Ernst & Young", "ORG"),
        ("NYC", "New York City", "PLACE"),
    ],
)
def test_an_acronym_reads_as_the_initials_of_the_name(short, long, kind):
    assert is_acronym_of(short, long, kind)


@pytest.mark.parametrize(
    ("short", "long"),
    [("nyc", "New York City"), ("NY", "New York City"), ("NYC", "New Jersey City Hall")],
)
def test_other_words_are_no_acronym(short, long):
    assert not is_acronym_of(short, long, "PLACE")


def test_an_acronym_merges_either_way_and_two_letters_need_a_tie():
    ucla = [node(1, "University of California, Los Angeles", kind="ORG")]
    assert decide("UCLA", ucla, kind="ORG") == ("merge", ucla[0].name, "acronym")
    nhs = [node(1, "NHS", "WORKS_AT", kind="ORG")]
    assert decide("National Health Service", nhs, kind="ORG") == ("merge", "NHS", "acronym")
    assert decide("PA", [node(1, "Palo Alto", kind="PLACE")], kind="PLACE")[0] == "hold"
    home = [node(1, "San Francisco", "LIVES_IN", kind="PLACE"), node(2, "Oakland", kind="PLACE")]
    assert decide("SF", home, kind="PLACE") == ("merge", "San Francisco", "acronym")
    rbc = node(1, "Royal Bank of Canada", kind="ORG")
    two = [rbc, node(2, "Regional Business Council", kind="ORG")]
    assert decide("RBC", two, kind="ORG") == ("hold", None, "acronym-ambiguous")


# --- the user's own employer or home; places in two regions --------------------------------


def test_the_users_own_employer_or_home_is_named_by_its_first_words():
    work = [node(1, "Quillfeather Analytics", "WORKS_AT", kind="ORG")]
    assert decide("Quillfeather", work, kind="ORG") == ("merge", work[0].name, "own-place")
    home = [node(1, "Portland, Oregon", "LIVES_IN", kind="PLACE")]
    assert decide("Portland", home, kind="PLACE") == ("merge", "Portland, Oregon", "own-place")
    two = [
        node(1, "Vantage Health", "WORKS_AT", kind="ORG"),
        node(2, "Vantage Capital", kind="ORG"),
    ]
    assert decide("Vantage", two, "WORKS_AT", kind="ORG")[1] == "Vantage Health"
    assert decide("Vantage", two, kind="ORG")[0] == "hold"


def test_without_a_tie_or_by_a_places_first_words_it_is_still_a_question():
    cloud = [node(1, "Google Cloud", kind="ORG")]
    assert decide("Google", cloud, kind="ORG") == ("hold", None, "similar")
    city = [node(1, "Mexico City", "LIVES_IN", kind="PLACE")]
    assert decide("Mexico", city, kind="PLACE") == ("hold", None, "similar")
    paris = [node(1, "Paris", "LIVES_IN", kind="PLACE")]
    assert decide("Paris, Texas", paris, "LIVES_IN", kind="PLACE")[0] == "hold"


def test_one_place_name_in_two_regions_is_two_places():
    assert other_region("portland, maine", "portland, oregon")
    assert not other_region("portland, or", "portland, oregon")
    assert not other_region("cambridge, uk", "cambridge, england")
    oregon = [node(1, "Portland, Oregon", "LIVES_IN", kind="PLACE")]
    assert decide("Portland, Maine", oregon, kind="PLACE") == ("new", None, "none")


# --- people: surname slips, two surnames, professions, double-barrelled names ------------------


def test_a_vowel_slip_inside_a_long_surname_is_a_respelling():
    assert surname_respelled(("catherine", "abernethy"), ("catherine", "abernathy"))
    assert not surname_respelled(("erik", "hansen"), ("erik", "hanson"))  # the ending
    assert not surname_respelled(("kate", "johnson"), ("kate", "johnston"))  # a consonant
    stored = [node(1, "Catherine Abernathy")]
    assert decide("Catherine Abernethy", stored) == ("merge", stored[0].name, "spelling")
    assert decide("Erik Hansen", [node(1, "Erik Hanson")])[0] == "hold"


def test_a_title_reaches_the_first_of_two_surnames():
    stored = [node(1, "José Luis Hernández García")]
    assert decide("Señor Hernández", stored) == ("merge", stored[0].name, "title")
    assert decide("Mr. Lee", [node(1, "Robert Lee Smith")])[0] == "new"  # a middle name


def test_a_professional_title_picks_the_one_already_called_by_it():
    stored = [node(1, "Dr. Sunita Rao"), node(2, "Vikram Rao", "HAS_FRIEND")]
    assert decide("Dr. Rao", stored) == ("merge", "Dr. Sunita Rao", "title")
    gendered = [node(1, "Mrs. Jisoo Kim"), node(2, "Minho Kim")]
    assert decide("Mrs. Kim", gendered) == ("hold", None, "title-ambiguous")


def test_one_part_of_a_double_barrelled_surname_is_the_same_person():
    stored = [node(1, "Ngozi Eze")]
    assert decide("Ngozi Eze-Williams", stored) == ("merge", "Ngozi Eze", "middle-name")
    assert decide("Anne Leclerc", [node(1, "Anne-Marie Leclerc")])[0] == "hold"


# --- abbreviations and Greek ------------------------------------------------------------------


def test_saint_mount_and_street_written_short_are_one_spelling():
    assert spelling_keys("st. mary's hospital") & spelling_keys("saint mary's hospital")
    assert spelling_keys("mt hood") & spelling_keys("mount hood")
    assert spelling_keys("main st") & spelling_keys("main street")
    assert not spelling_keys("st. mary's hospital") & spelling_keys("street mary's hospital")


def test_greek_gamma_iota_reads_as_y():
    assert transliteration_key("Γιάννης") == transliteration_key("Yiannis")
    assert transliteration_key("Γιάννης") == transliteration_key("Giannis")
    stored = [node(1, "Yiannis Papadakis")]
    assert decide("Γιάννης Παπαδάκης", stored) == ("merge", stored[0].name, "transliteration")
