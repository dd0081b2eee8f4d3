"""The fifth round of naming rules (issue 21, session 15): Romance diminutive suffixes on a
whole name, a gendered title among several people of one surname, kinship words of other
languages said alone (SPEC §5.6). Pure functions."""

import pytest

from memory.core.merge_properties import properties_differ, what_it_is
from memory.core.person_names import PET_FORM, relate_first_names
from memory.core.person_roles import ADMIRED, TIE_ROLES, roles_from_relations
from tests.memory.core.merge_helpers import decide, node

# --- diminutive suffixes -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pet", "full"),
    [
        ("chispita", "chispa"),  # the final vowel gives way to -ita
        ("carlitos", "carlos"),  # -os to -itos
        ("pedrinho", "pedro"),  # Portuguese -inho
        ("rosita", "rosa"),
    ],
)
def test_a_diminutive_suffix_on_the_whole_name_is_a_pet_form(pet, full):
    assert relate_first_names(pet, full) == PET_FORM


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("anita", "ana"),  # a stem of two letters: Anita is a name of its own
        ("martina", "marta"),  # -ina is no diminutive suffix here: Martina is a given name
    ],
)
def test_a_name_that_only_looks_suffixed_is_not_a_pet_form(a, b):
    assert relate_first_names(a, b) is None


def test_a_pets_diminutive_reaches_the_pet():
    stored = [node(1, "Chispa", "pet", kind="OTHER", species="dog")]
    assert decide("Chispita", stored, kind="OTHER", roles=("pet",))[:2] == ("merge", 1)


# --- a gendered title among several of one surname -------------------------------------------


MUELLERS = [node(1, "Jana Müller", "colleague"), node(2, "Horst Müller")]


@pytest.mark.parametrize(
    ("said", "target"),
    [("Frau Müller", 1), ("Mrs. Müller", 1), ("Herr Müller", 2), ("Mr Müller", 2)],
)
def test_a_gendered_title_picks_the_one_of_that_gender(said, target):
    assert decide(said, MUELLERS) == ("merge", target, "title")


def test_a_gendered_title_that_leaves_two_is_still_asked():
    stored = [*MUELLERS, node(3, "Anke Müller")]
    assert decide("Frau Müller", stored)[0] == "hold"


def test_a_gendered_title_is_asked_when_the_lists_do_not_know_a_first_name():
    # Ji-woo may be a woman's name: the title rules nobody out.
    stored = [node(1, "Park Ji-woo", "friend"), node(2, "Park Seo-yeon", "colleague")]
    assert decide("Ms. Park", stored)[0] == "hold"


# --- kinship words of other languages --------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "role"),
    [("Maa", "mother"), ("Ammi", "mother"), ("Nonna", "grandmother"), ("Dziadek", "grandfather")],
)
def test_a_kinship_word_of_another_language_is_the_one_so_related(said, role):
    stored = [node(1, "Sunita Agarwal", role), node(2, "Pooja Agarwal", "sister")]
    assert decide(said, stored) == ("merge", 1, "kinship")


def test_a_kinship_word_that_is_also_a_given_name_stays_a_name():
    # Lola is a grandmother in Filipino and a given name: a friend Lola is not Grandma.
    stored = [node(1, "Rosa Santos", "grandmother")]
    assert decide("Lola", stored)[0] == "new"


# --- romanisations of one name, pet forms of more languages -----------------------------------


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("Muhammad Haddad", "Mohammed Haddad"),
        ("Fatma Alsayed", "Fatima Al-Sayed"),
        ("Yusuf", "Youssef Haddad"),
    ],
)
def test_two_romanisations_of_one_name_are_a_spelling(said, stored):
    assert decide(said, [node(1, stored)]) == ("merge", 1, "spelling")


def test_a_related_name_is_not_a_romanisation():
    # Mahmoud shares Mohammed's root and letters, but is another name.
    assert decide("Mahmoud Haddad", [node(1, "Mohammed Haddad")])[0] == "new"


@pytest.mark.parametrize(
    ("said", "stored"),
    [("Jirka", "Jiří Novotný"), ("Memo", "Mehmet Yılmaz"), ("Volodya", "Volodymyr Kovalenko")],
)
def test_pet_forms_of_more_languages_reach_the_full_name(said, stored):
    assert decide(said, [node(1, stored, "friend")], roles=("friend",))[:2] == ("merge", 1)


# --- what is said now differs from what is stored ---------------------------------------------


def test_a_first_name_said_with_another_relation_is_asked():
    stored = [node(1, "Baraka Otieno", "friend")]
    action, _, rule = decide("Baraka", stored, roles=("colleague",))
    assert action == "hold"
    assert rule.endswith("role-differs")
    assert decide("Baraka", stored, roles=("friend",))[:2] == ("merge", 1)


def test_a_first_name_said_in_another_city_alone_still_merges():
    # People move: another city alone is no question (a full name with another relation
    # too is, below).
    stored = [node(1, "Tomás Herrera", "friend", city="Bogotá")]
    assert decide("Tomás", stored, roles=("friend",), city="Medellín")[:2] == ("merge", 1)


def test_a_full_name_with_another_relation_role_and_city_is_a_possible_namesake():
    stored = [node(1, "Maria Santos", "friend", city="Manila", role="accountant")]
    action, _, rule = decide(
        "Maria Santos", stored, roles=("doctor",), role="cardiologist", city="Lisbon"
    )
    assert (action, rule) == ("hold", "exact-role-differs")


def test_a_full_name_with_only_its_relation_changed_is_the_same_person():
    # A colleague promoted to boss: one difference is the person described anew.
    stored = [node(1, "Oscar Lindberg", "colleague", role="engineer")]
    assert decide("Oscar Lindberg", stored, roles=("boss",), role="engineer")[:2] == (
        "merge",
        1,
    )
    assert decide("Oscar Lindberg", stored, roles=("boss",))[:2] == ("merge", 1)


def test_a_full_name_with_two_differences_is_the_same_person_described_anew():
    # A colleague promoted to team lead; a neighbour who moved and is now a friend.
    dana = [node(1, "Dana Whitfield", "colleague", role="senior analyst")]
    assert decide("Dana Whitfield", dana, roles=("boss",), role="team lead")[:2] == (
        "merge",
        1,
    )
    ellen = [node(1, "Ellen Fisher", "neighbour", city="Portland")]
    assert decide("Ellen Fisher", ellen, roles=("friend",), city="Seattle")[:2] == (
        "merge",
        1,
    )


# --- a pet form that doubles a consonant ------------------------------------------------------


def test_a_pet_form_with_a_doubled_consonant_reaches_its_stem():
    assert relate_first_names("nikki", "nikita") == PET_FORM


def test_a_pet_form_of_two_stored_names_is_asked():
    # Nikki is Nicole's (the table) and Nikita's (the doubled k): a question, not a pick.
    stored = [node(1, "Nicole Baptiste", "colleague"), node(2, "Nikita Sharma", "colleague")]
    assert decide("Nikki", stored, roles=("colleague",))[0] == "hold"


# --- a full name said by its second surname alone ----------------------------------------------


def test_a_name_said_by_its_second_surname_alone_is_asked():
    stored = [node(1, "Carmen López García", "colleague")]
    assert decide("Carmen García", stored)[0] == "hold"
    # By the first surname, as a person goes by it, it merges.
    assert decide("Carmen López", stored)[:2] == ("merge", 1)
    # A middle given name left out still merges.
    assert decide("María García", [node(1, "María José García")])[:2] == ("merge", 1)


# --- initials and a Cantonese syllable ----------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "full"),
    [
        ("JP", "Jean-Pierre Lefebvre"),  # each part of a hyphenated given name
        ("A.J.", "Alistair James Brennan"),
        ("T.J. Miller", "Thomas James Miller"),  # initials with the surname
    ],
)
def test_a_person_called_by_the_initials_of_their_given_names(said, full):
    assert decide(said, [node(1, full), node(2, "Maya Osei")])[:2] == ("merge", 1)


def test_initials_that_fit_two_people_are_asked_and_a_vowel_makes_a_name():
    # Initials are also the first letters of a whole name (AJ for Anna Jones).
    stored = [node(1, "Anna Jones"), node(2, "Andrew James Brennan")]
    assert decide("A.J.", stored)[0] == "hold"
    assert decide("JP", [node(1, "Jean-Pierre Lefebvre"), node(2, "Jordan Price")])[0] == "hold"
    # "Al" has a vowel: a given name, not initials — Alan by the nickname table, not A. L.
    assert decide("Al", [node(1, "Andrew Lee")])[0] == "new"


def test_ah_and_a_syllable_of_the_given_name_is_the_person():
    stored = [node(1, "Leung Ka-ming"), node(2, "Chan Wing-keung")]
    assert decide("Ah Ming", stored)[:2] == ("merge", 1)
    assert decide("Ah Keung", stored)[:2] == ("merge", 2)
    assert decide("Ah Ming", [node(1, "Ming Li")])[0] == "new"


# --- after the fifth and sixth blind sets -------------------------------------------------------


def test_a_lone_word_that_is_one_persons_first_name_and_anothers_surname_is_asked():
    stored = [node(1, "Kim Nguyen", "friend"), node(2, "Daniel Kim", "colleague")]
    assert decide("Kim", stored)[0] == "hold"
    assert decide("Kim", [node(1, "Kim Nguyen", "friend")])[:2] == ("merge", 1)


def test_two_patronymics_are_two_people():
    stored = [node(1, "Anna Petrovna Smirnova", "neighbour")]
    assert decide("Anna Ivanovna", stored, roles=("neighbour",))[0] == "new"
    assert decide("Anna Petrovna", stored, roles=("neighbour",))[:2] == ("merge", 1)


def test_a_relation_does_not_pick_a_person_the_city_places_elsewhere():
    stored = [
        node(1, "Lars Eriksson", "colleague", city="Gothenburg"),
        node(2, "Lars Nilsson", "friend", city="Oslo"),
    ]
    assert decide("Lars", stored, roles=("colleague",), city="Oslo")[0] == "hold"
    assert decide("Lars", stored, roles=("colleague",))[:2] == ("merge", 1)


def test_a_public_figure_the_user_likes_is_not_a_person_they_know():
    swift = [node(1, "Taylor Swift", "admired", role="singer")]
    assert decide("Taylor", swift, roles=("colleague",))[0] == "new"
    assert decide("Taylor", swift)[:2] == ("merge", 1)
    jordan = [node(1, "Michael Jordan", "friend", role="college roommate")]
    verdict = decide("Michael Jordan", jordan, roles=("admired",), role="basketball player")
    assert verdict[0::2] == ("new", "public-differs")
    assert decide("Michael Jordan", jordan)[:2] == ("merge", 1)


def test_likes_is_read_as_admiring_and_no_tie():
    assert roles_from_relations([("LIKES", False)]) == frozenset({ADMIRED})
    assert ADMIRED not in TIE_ROLES
    assert roles_from_relations([("LOVES", False)]) == frozenset()


def test_dada_is_asked_between_a_brother_and_a_grandfather():
    stored = [node(1, "Sourav Banerjee", "brother"), node(2, "Nirmal Banerjee", "grandfather")]
    assert decide("Dada", stored)[0] == "hold"
    assert decide("Dada", stored[:1])[:2] == ("merge", 1)


def test_two_kinds_of_organisation_are_two_referents():
    assert properties_differ("ORG", {"type": "school"}, {"type": "hospital"})
    assert not properties_differ("ORG", {"type": "college"}, {"type": "university"})
    assert not properties_differ("ORG", {"type": "school"}, {"type": "employer"})  # unknown


def test_a_us_state_is_compared_with_a_stated_country():
    assert properties_differ("PLACE", {"state": "Florida"}, {"country": "Russia"})
    assert properties_differ("PLACE", {"state": "Georgia"}, {"country": "Georgia"})
    assert not properties_differ("PLACE", {"state": "FL"}, {"country": "USA"})
    assert not properties_differ("PLACE", {"state": "Bavaria"}, {"country": "Germany"})
    assert not properties_differ("PERSON", {"state": "Florida"}, {"country": "Russia"})


@pytest.mark.parametrize(
    ("said", "stored", "roles"),
    [
        ("Sis", node(1, "Chloe Bennett", "sister"), ()),
        ("Bro", node(1, "Ryan Bennett", "brother"), ()),
        ("my husband", node(1, "David Liu", "partner_m"), ("partner_m",)),
    ],
)
def test_sibling_and_partner_words_reach_the_one_so_related(said, stored, roles):
    others = [node(2, "Mei Liu", "daughter")]
    assert decide(said, [stored, *others], roles=roles)[:2] == ("merge", 1)


def test_a_role_said_of_a_person_fits_a_description():
    stored = [
        node(1, "Amanda Rhodes", "doctor", role="therapist"),
        node(2, "Susan Kim", "doctor", role="family physician"),
    ]
    assert decide("my therapist", stored, role="therapist")[:2] == ("merge", 1)
    assert decide("my doctor", stored)[0] == "hold"


def test_a_diminutive_the_table_lists_is_not_vetoed_by_the_gender_lists():
    assert relate_first_names("vinnie", "vincent") == "nickname"
    assert relate_first_names("louise", "louis") is None  # a full form of the other gender


@pytest.mark.parametrize(
    ("a", "b"), [("caitlin", "katelyn"), ("geoff", "jeff"), ("shawn", "sean"), ("karl", "carl")]
)
def test_english_spellings_of_one_sound_are_a_spelling(a, b):
    assert relate_first_names(a, b) == "spelling"


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("Mehmet Bey", node(1, "Mehmet Yılmaz")),  # Turkish honorifics after the name
        ("Ayşe Abla", node(1, "Ayşe Demir")),
        ("Sharma-ji", node(1, "Rajesh Sharma")),  # joined by a hyphen
        ("Doctora Ramírez", node(1, "Patricia Ramírez")),
        ("Mzee Juma", node(1, "Juma Mwangi")),
        ("Khaleh Maryam", node(1, "Maryam Karimi", "aunt")),  # Persian kinship title
        ("Mamie", node(1, "Odette Girard", "grandmother")),  # French, said alone
    ],
)
def test_forms_of_address_of_more_languages(said, stored):
    assert decide(said, [stored, node(2, "Chloe Martin")])[:2] == ("merge", 1)


def test_a_persian_aunt_title_is_no_sister():
    assert decide("Khaleh Maryam", [node(1, "Maryam Karimi", "sister")])[0] == "new"


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("Jana Novak", "Jana Nováková"),  # Czech -ová
        ("Olga Smirnov", "Olga Smirnova"),
        ("Anna Kowalski", "Anna Kowalska"),
        ("Jana Novotny", "Jana Novotná"),
    ],
)
def test_a_slavic_surname_in_its_other_gender_is_a_spelling(said, stored):
    assert decide(said, [node(1, stored)])[:2] == ("merge", 1)


def test_a_surname_with_a_letter_added_is_no_gendered_form():
    assert decide("Anna Berga", [node(1, "Anna Berg")])[0] != "merge"


def test_a_junior_is_called_jun():
    stored = [node(1, "Ramon Dela Cruz Jr."), node(2, "Ramon Dela Cruz")]
    assert decide("Jun-Jun", stored)[:2] == ("merge", 1)
    assert decide("Junior", stored)[:2] == ("merge", 1)
    assert decide("Jun", [node(2, "Ramon Dela Cruz")])[0] == "new"


def test_a_patronymic_left_out_is_a_middle_name_not_a_second_surname():
    assert decide("Aigerim Bekova", [node(1, "Aigerim Nurlanovna Bekova")])[:2] == ("merge", 1)


def test_portuguese_vo_is_a_grandparent_title():
    assert decide("Vô Tião", [node(1, "Sebastião Rocha", "grandfather")])[:2] == ("merge", 1)
    assert decide("Vô Tião", [node(1, "Sebastião Rocha", "brother")])[0] == "new"


def test_ages_far_apart_are_two_people_and_near_ones_one():
    assert properties_differ("PERSON", {"age": "11"}, {"age": "45"})
    assert not properties_differ("PERSON", {"age": "46"}, {"age": "45"})
    assert not properties_differ("PERSON", {"age": "about 40"}, {"age": "11"})  # not a number
    kevin = [node(1, "Kevin O'Brien", "colleague", age="45")]
    assert decide("Kevin O'Brien", kevin, age="11")[0] == "new"


def test_an_event_somewhere_else_is_another_event():
    assert properties_differ("EVENT", {"city": "Lisbon"}, {"city": "Porto"})
    assert not properties_differ("EVENT", {"city": "Porto"}, {"city": "Porto"})


def test_a_pet_form_of_two_stored_names_of_both_genders_is_asked():
    stored = [node(1, "Francesca Romano", "colleague"), node(2, "Francesco Greco", "friend")]
    assert decide("Franci", stored)[0] == "hold"


def test_a_stated_role_with_the_relation_picks_between_two_names():
    stored = [
        node(1, "Christine Bell", "colleague", role="nurse"),
        node(2, "Christopher Hall", "friend", role="plumber"),
    ]
    assert decide("Chris", stored, roles=("colleague",), role="nurse")[:2] == ("merge", 1)
    assert decide("Chris", stored, roles=("colleague",))[0] == "hold"


def test_where_the_user_places_a_person_picks_between_two_of_one_name():
    stored = [
        node(1, "Sarah Cohen", "friend", city="Boston"),
        node(2, "Sarah Mitchell", "colleague", city="Austin"),
    ]
    verdict = decide("Sarah", stored, roles=("friend",), city="Boston")
    assert verdict == ("merge", 1, "first-name-by-place")
    assert decide("Sarah", stored, city="Denver")[0] == "hold"
    assert decide("Sarah", stored)[0] == "hold"


def test_a_kinship_title_that_is_a_name_counts_before_a_pet_form_of_the_world_table():
    oma = [node(1, "Wilhelmina de Graaf", "grandmother")]
    assert decide("Oma Mien", oma, roles=("grandmother",))[:2] == ("merge", 1)
    assert decide("Nana Mensah", [node(1, "Mensah Owusu", "grandmother")])[0] == "new"


def test_a_thing_named_in_cyrillic_and_in_latin_letters_is_one():
    assert decide("самовар", [node(1, "samovar", kind="THING")], kind="THING")[0::2] == (
        "merge",
        "transliteration",
    )
    assert decide("Gazprom", [node(1, "Газпром", kind="ORG")], kind="ORG")[:2] == ("merge", 1)
    assert decide("Мир", [node(1, "peace", kind="THING")], kind="THING")[0] == "new"


def test_the_users_own_thing_is_named_by_its_first_words():
    kindle = [node(1, "Kindle Paperwhite", "possession", kind="THING")]
    verdict = decide("Kindle", kindle, kind="THING", roles=("possession",))
    assert verdict == ("merge", 1, "own-place")
    # Not owned (a concept's narrower name), or owned twice over: not merged.
    assert decide("Kindle", [node(1, "Kindle Paperwhite", kind="THING")], kind="THING")[0] == "new"
    phones = [
        node(1, "iPhone 12", "possession", kind="THING"),
        node(2, "iPhone 15", "possession", kind="THING"),
    ]
    assert decide("iPhone", phones, kind="THING", roles=("possession",))[0] != "merge"


def test_owning_is_a_tie_and_makes_nothing_a_person():
    assert roles_from_relations([("OWNS", False)]) == frozenset({"possession"})
    assert "possession" in TIE_ROLES
    assert what_it_is("THING", {"type": "road bike"}, frozenset({"possession"})) == "object"
