"""The 32nd round of merge rules (issue 21, session 28), from blind sets 40 (teachers'
working life) and 42 (office life in multinationals), read after the four new sets were
run: another name a note gives (a rename, what someone is called), an event's edition
picked by the year its note says, a role word said in another language, teachers' and
bosses' honorifics, and a person said to be "the new grad". Pure functions; the Write path
runs them through ``bench_merge`` on every labelled set."""

import pytest

from memory.core.merge_properties import named_in_note
from memory.core.person_names import parse_person
from tests.memory.core.merge_helpers import decide, node


@pytest.mark.parametrize(
    ("kind", "said", "said_note", "stored", "stored_note", "named"),
    [
        # The stored note gives the name said.
        (
            "ORG",
            "Northfield Academy",
            "results went up",
            "Northfield Comprehensive",
            "became Northfield Academy when it joined the trust in 2019",
            True,
        ),
        (
            "PLACE",
            "Mandela Building",
            "the lift is out",
            "Old Library",
            "renamed the Mandela Building in 2023, my office is there",
            True,
        ),
        (
            "PERSON",
            "Whitty",
            "his trench model",
            "Ian Whitmore",
            "history teacher, the kids call him 'Whitty'",
            True,
        ),
        (
            "PERSON",
            "Miss Jenkins",
            "Year 8 books",
            "Sarah Whitfield",
            "science, was Miss Jenkins until she married in summer 2025",
            True,
        ),
        # The note said gives the stored name.
        (
            "ORG",
            "LTIMindtree",
            "my old company, Mindtree merged into LTIMindtree",
            "Mindtree",
            "my previous employer",
            True,
        ),
        ("ORG", "Orange", "Orange, ex-France Télécom, renewed", "France Télécom", "client", True),
        (
            "PERSON",
            "Jessica Alvarez",
            "Jessica Nguyen got married, she's Jessica Alvarez now",
            "Jessica Nguyen",
            "customer success",
            True,
        ),
        # The name said is taken out of its own note: Daimler Truck is not Daimler.
        (
            "ORG",
            "Daimler Truck",
            "Daimler Truck, the spin-off, became a client",
            "Daimler",
            "the car people",
            False,
        ),
        # Owning is not renaming; a denial is not a naming.
        ("ORG", "Asda", "Asda used to be owned by Walmart", "Walmart", "my uncle's work", False),
        ("ORG", "Lumen", "Lumen is not what Brightwave became", "Brightwave", "BI vendor", False),
        # A person's note names other people with words that rename a firm.
        ("PERSON", "Tom", "Tom is coming", "Sarah Lee", "became Tom's wife in 2019", False),
        (
            "PERSON",
            "Claire",
            "Claire is coming",
            "Ann Ross",
            "her sister Claire got married",
            False,
        ),
        # A married name keeps the given name: Anna's wedding is not Tom's name.
        ("PERSON", "Tom Price", "Anna Lee got married to Tom Price", "Anna Lee", "friend", False),
    ],
)
def test_another_name_a_note_gives(kind, said, said_note, stored, stored_note, named):
    forms = [stored.lower()]
    assert named_in_note(kind, said, {"note": said_note}, forms, {"note": stored_note}) is named


def test_a_rename_merges_and_a_person_called_so_only_when_no_one_else_is():
    school = node(1, "Northfield Comprehensive", kind="ORG", note="became Northfield Academy")
    assert decide("Northfield Academy", [school], kind="ORG", note="results")[:2] == ("merge", 1)
    whitty = node(1, "Ian Whitmore", note="the kids call him 'Whitty'")
    assert decide("Whitty", [whitty], note="his trench model")[:2] == ("merge", 1)
    # Nana is a friend's given name too, and what the kids call grandma: not this rule's.
    friend = node(1, "Nana Osei", "friend", note="friend from uni")
    grandma = node(2, "Margaret Brown", "grandmother", note="dad's mother, the kids call her Nana")
    assert decide("Nana", [friend, grandma], note="sent a card")[2] != "named-in-note"
    # A kinship word is the kinship rule's, whatever a public figure's supporters say.
    cm = node(1, "J. Jayalalithaa", note="former CM, her supporters called her Amma")
    mother = node(2, "Lakshmi", "mother", note="my mother")
    assert decide("Amma", [cm, mother], roles=("mother",), note="made sambar")[:2] == ("merge", 2)


def test_an_event_said_without_its_year_takes_the_edition_of_the_year_its_note_says():
    day = node(1, "Sports Day 2025", kind="EVENT", note="rained all afternoon")
    said = {"note": "the sports day in July 2025 where it rained"}
    assert decide("sports day", [day], kind="EVENT", **said) == ("merge", 1, "edition-year")
    goa = [
        node(1, "Goa offsite 2024", kind="EVENT", year="2024"),
        node(2, "Goa offsite 2025", kind="EVENT", year="2025"),
    ]
    assert decide("Goa offsite", goa, kind="EVENT", year="2025")[:2] == ("merge", 2)
    # No year said: one stored edition is not merged, two are asked about.
    assert decide("sports day", [day], kind="EVENT", note="the sack race")[0] == "new"
    assert decide("Goa offsite", goa, kind="EVENT", note="fun")[0] == "hold"


def test_an_event_whose_note_says_another_year_is_another_edition():
    concert = node(1, "Christmas concert 2024", kind="EVENT", note="Stille Nacht")
    said = {"note": "rehearsals for this December's concert, 2025, start next week"}
    assert decide("the Christmas concert", [concert], kind="EVENT", **said)[0] == "new"
    same = {"note": "the 2024 one, with Stille Nacht"}
    assert decide("the Christmas concert", [concert], kind="EVENT", **same)[:2] == ("merge", 1)


def test_a_role_word_of_another_language_is_a_description_when_someone_holds_the_role():
    head = node(1, "Laurent Girard", "boss", role="proviseur", note="always in meetings")
    other = node(2, "Claire Dubois", "colleague", note="maths")
    said = {"note": "le proviseur a validé la sortie"}
    assert decide("le proviseur", [head, other], **said)[:2] == ("merge", 1)
    # "le Roy" is a name, nobody's role.
    assert decide("le Roy", [head, other], note="a parent")[0] != "merge"


@pytest.mark.parametrize(
    ("said", "title", "words"),
    [
        ("kru somchai", "kru", ("somchai",)),
        ("mwalimu otieno", "mwalimu", ("otieno",)),
        ("ayse hoca", "hoca", ("ayse",)),
        ("wang laoshi", "laoshi", ("wang",)),
        ("lee sajang-nim", "sajangnim", ("lee",)),
        ("meera ma'am", "maam", ("meera",)),
        ("la profe gomez", "profe", ("gomez",)),
    ],
)
def test_teachers_and_bosses_honorifics_are_titles(said, title, words):
    parsed = parse_person(said)
    assert (parsed.title, parsed.words) == (title, words)


def test_honorifics_reach_the_one_person_of_the_name():
    ayse = node(1, "Ayşe Yılmaz", "colleague", note="matematik")
    assert decide("Ayse Hoca", [ayse], note="gave me her LGS sheets")[:2] == ("merge", 1)
    chen = node(1, "Chen Mei-ling", "colleague", note="English teacher")
    assert decide("Teacher Chen", [chen], note="the speech contest")[:2] == ("merge", 1)


def test_someone_said_to_be_the_new_grad_is_not_the_teammate_of_years():
    tom = node(1, "Tom Fletcher", "colleague", note="been on my team since 2019")
    said = {"note": "Tom is the new grad starting Monday on my team"}
    assert decide("Tom", [tom], **said)[0] == "new"
    # Said new in a role the stored note gives, it is the same one.
    grad = node(1, "Tom Fletcher", "colleague", note="the new grad on my team")
    assert decide("Tom", [grad], **said)[:2] == ("merge", 1)


def test_a_kinship_word_a_note_gives_reaches_the_one_relative_of_that_word():
    son = node(1, "Emil", "son", note="our son, 4")
    helga = node(2, "Helga", "mother", note="my mum; the kids call her Oma")
    assert decide("Oma", [son, helga], note="collecting Emil on Friday")[:2] == ("merge", 2)
    # Two grandmothers: the one a note calls Lola is not the only Lola.
    cora = node(1, "Corazon Santos", "grandmother", note="everyone calls her Lola Cora")
    tere = node(2, "Teresita Reyes", "grandmother", note="dad's mother")
    assert decide("Lola", [cora, tere], roles=("grandmother",), note="flying in")[0] != "merge"


def test_someone_said_to_replace_a_stored_person_who_left_is_not_them():
    lee = node(1, "Lee seonsaengnim", role="care worker", note="Halmeoni's care worker")
    said = {
        "role": "care worker",
        "note": "the new care worker the centre sent, Lee seonsaengnim quit",
    }
    assert decide("Lee Mi-kyung", [lee], **said)[0] == "new"
    # Said of the one who quit, it is them.
    sarah = node(1, "Sarah Lee", "colleague", note="design lead")
    assert decide("Sarah Lee", [sarah], note="Sarah Lee quit on Friday")[:2] == ("merge", 1)


def test_a_name_said_with_where_the_person_is_from_is_the_name():
    kavitha = node(1, "Kavitha Reddy", note="HR business partner, Hyderabad")
    said = {"note": "Kavitha from HR scheduled my exit interview"}
    assert decide("Kavitha from HR", [kavitha], **said)[:2] == ("merge", 1)
    # "de" before a capitalised word is part of a full name: Maria de Souza is not Maria Lopes.
    maria = node(1, "Maria Lopes", note="my neighbour")
    assert decide("Maria de Souza", [maria], note="the new dentist")[0] != "merge"


def test_a_colleague_is_not_someone_a_note_says_is_something_else():
    suresh = node(1, "Suresh Iyer", "colleague", note="finance controller, Chennai")
    said = {"note": "Suresh the cab driver who does my office pickup was late again"}
    assert decide("Suresh", [suresh], **said)[0] == "new"
    marek = node(1, "Marek Nowak", "boss", note="my manager in the Warsaw delivery centre")
    said = {"note": "Marek, the IT director at the client, rejected the estimate"}
    assert decide("Marek", [marek], **said)[0] == "new"
    # What the note says is what the colleague is known as: the same one.
    priya = node(1, "Priya Shah", "colleague", note="designer, joined from Google")
    said = {"note": "Priya, the designer on my team, sent the mocks"}
    assert decide("Priya", [priya], **said)[:2] == ("merge", 1)


def test_a_name_a_stored_note_quotes_is_what_the_person_is_called():
    big = node(1, "Tom Hargreaves", note="'Big Tom', tallest in 7K")
    little = node(2, "Tom Li", note="'Little Tom', 7K, loves Lego")
    assert decide("Big Tom", [big, little], note="scored the winner")[:2] == ("merge", 1)
    assert decide("Little Tom", [big, little], note="a Lego Globe")[:2] == ("merge", 2)
    # Unquoted, "Tom" is either.
    assert decide("Tom", [big, little], note="forgot his PE kit")[0] == "hold"
