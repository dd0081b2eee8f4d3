"""The 27th round of merge rules (issue 21, session 25), from blind sets 30 (legal matters,
bereavement and estates) and 31 (cars and getting around), read after their unread runs:
an organisation said by the first words of the one stored name it is like. Pure functions;
the Write path runs them through ``bench_merge`` on every labelled set."""

import pytest

from memory.core.name_heads import first_words_of, words_within
from tests.memory.core.merge_helpers import decide, node


@pytest.mark.parametrize(
    ("short", "long", "expected"),
    [
        ("northgate", "northgate logistics", True),
        ("arnold clark", "arnold clark glasgow", True),
        ("st luke's", "st luke's hospital", False),  # a saint's name: a church, a school …
        ("the", "the secret table", False),  # no word of its own
        ("northgate logistics", "northgate", False),  # the longer name said
    ],
)
def test_first_words_of_an_organisations_name(short, long, expected):
    assert first_words_of(short, long) is expected


def test_an_organisation_said_by_its_first_words_is_the_one_stored():
    logistics = node(1, "Northgate Logistics", kind="ORG", note="my employer, warehouse shifts")
    assert decide("Northgate", [logistics], kind="ORG") == ("merge", 1, "first-words")
    branch = node(2, "Arnold Clark Glasgow", kind="ORG", note="sold me the Corsa")
    said = {"note": "Arnold Clark rang about the Corsa's service"}
    assert decide("Arnold Clark", [branch], kind="ORG", **said) == ("merge", 2, "first-words")


def test_two_stored_of_those_first_words_are_a_question():
    branches = [
        node(1, "Kwik Fit Leamington", kind="ORG"),
        node(2, "Kwik Fit Warwick", kind="ORG"),
    ]
    assert decide("Kwik Fit", branches, kind="ORG")[0] == "hold"
    # A name begun alike, spelt another way, is a second candidate too.
    alike = [node(1, "Harbor Analytics", kind="ORG"), node(2, "Harbour Data Labs", kind="ORG")]
    assert decide("Harbor", alike, kind="ORG")[0] == "hold"


def test_notes_that_share_nothing_or_a_place_name_keep_it_a_question():
    media = node(1, "Virgin Media", kind="ORG", note="broadband and TV")
    assert decide("Virgin", [media], kind="ORG", note="flying Virgin to New York")[:2] == (
        "hold",
        None,
    )
    assert decide("Virgin", [media], kind="ORG", note="the broadband is down")[0] == "merge"
    bears = node(1, "Chicago Bears", kind="ORG")
    assert decide("Chicago", [bears], kind="ORG")[0] == "hold"


def test_words_added_that_the_graph_already_holds_of_it():
    aviva = node(1, "Aviva", kind="ORG", note="home and car insurer")
    assert decide("Aviva Insurance", [aviva], kind="ORG") == ("merge", 1, "words-held")
    samaritans = node(1, "Samaritans", kind="ORG", note="Leeds branch, overnight shifts")
    assert decide("Samaritans Leeds", [samaritans], kind="ORG")[:2] == ("merge", 1)
    # Words the graph does not hold of it may name another business of the brand.
    coop = node(1, "Co-op", kind="ORG", note="Central Co-op, Lichfield store")
    assert decide("Co-op Bank", [coop], kind="ORG")[0] == "hold"


def test_a_thing_of_another_plate_or_another_city_is_another_thing():
    corsa = node(1, "Vauxhall Corsa", "owns", kind="THING", registration="LB19 KDU")
    said = {"note": "the neighbour's Corsa", "registration": "LB19 KDV"}
    assert decide("Vauxhall Corsa", [corsa], kind="THING", **said) == (
        "new",
        None,
        "properties-differ",
    )
    # The same plate written another way is the same car.
    same = {"registration": "lb19kdu"}
    assert decide("Vauxhall Corsa", [corsa], kind="THING", **same)[:2] == ("merge", 1)
    line = node(1, "U6", kind="THING", city="Berlin")
    assert decide("U6", [line], kind="THING", city="München")[0] == "new"
    assert decide("U6", [line], kind="THING", city="Berlin")[0] == "merge"


def test_the_users_thing_said_by_its_model():
    kuga = node(1, "Ford Kuga", "possession", kind="THING", note="silbern, Diesel")
    said = {"note": "der Kuga braucht neue Sommerreifen"}
    assert decide("Kuga", [kuga], kind="THING", **said) == ("merge", 1, "model")
    # Said as one of its kind, or with another relation to the user: not the user's.
    other = {"note": "my brother-in-law just bought a Kuga"}
    assert decide("Kuga", [kuga], kind="THING", **other)[0] == "new"
    bike = node(1, "VanMoof S3", "possession", kind="THING", note="e-bike")
    assert decide("S3", [bike], kind="THING", roles=("used",))[0] == "new"
    # A thing the user does not own is not found by its last word.
    seen = node(1, "Red kite", kind="THING", note="seen over the Chilterns")
    assert decide("kite", [seen], kind="THING")[0] == "new"


def test_two_of_the_users_things_of_one_model_name_are_no_merge():
    things = [
        node(1, "Suzuki Swift", "possession", kind="THING"),
        node(2, "Maruti Swift", "possession", kind="THING"),
    ]
    assert decide("Swift", things, kind="THING")[0] != "merge"


@pytest.mark.parametrize(
    ("short", "long", "expected"),
    [
        ("red cross", "british red cross", True),
        ("ferrer y soler", "ferrer & soler abogados", True),
        ("conservatoria de lisboa", "conservatoria do registo civil de lisboa", True),
        ("tu delft", "international student office, tu delft", False),  # what it belongs to
        ("st john ambulance", "st john ambulance hinckley unit", False),  # a saint's name
        ("british red cross", "red cross", False),
    ],
)
def test_words_all_within_an_organisations_name(short, long, expected):
    assert words_within(short, long) is expected


def test_an_organisation_said_by_words_within_its_name():
    registry = node(1, "HM Passport Office", kind="ORG")
    assert decide("Passport Office", [registry], kind="ORG") == ("merge", 1, "words-within")


def test_a_club_of_another_sport_is_another_club():
    giants = node(1, "New York Giants", kind="ORG", sport="football")
    said = {"sport": "baseball", "city": "San Francisco"}
    assert decide("Giants", [giants], kind="ORG", **said) == ("new", None, "none")
    assert decide("Giants", [giants], kind="ORG", sport="American football")[0] == "merge"
    assert decide("Giants", [giants], kind="ORG", sport="soccer")[0] == "merge"


def test_the_one_person_of_a_relation_the_user_has_one_at_a_time():
    husband = node(1, "Diego Herrera", "partner_m", note="my husband")
    said = {"note": "mi amor me sorprendió con mariachis"}
    assert decide("mi amor", [husband], roles=("partner_m",), **said) == (
        "merge",
        1,
        "one-relation",
    )
    ex = node(1, "Olga Petrova", "ex")
    assert decide("Olga Sidorova", [ex], roles=("ex",))[:2] == ("merge", 1)


def test_two_first_names_or_two_holders_are_no_one_relation_merge():
    alex = node(1, "Alex", "partner", note="broke up in January")
    assert decide("Jordan", [alex], roles=("partner",), note="started dating in April")[0] == "new"
    mothers = [node(1, "Maria Santos", "mother"), node(2, "Rosa Cruz", "mother")]
    assert decide("Nanay", mothers, roles=("mother",))[0] != "merge"
    # Said in no such relation, the name alone still decides.
    assert decide("mi amor", [node(1, "Diego Herrera", "partner_m")])[0] == "new"


def test_a_person_said_only_by_the_relation_is_its_one_holder():
    landlady = node(1, "Gurpreet Kaur", "landlord", note="rents us the Harehills flat")
    said = {"note": "my landlady finally replied about the deposit"}
    assert decide("My landlady", [landlady], roles=("landlord",), **said) == (
        "merge",
        1,
        "one-relation",
    )
    # Said to be a new one, or with two people in the relation: not merged.
    new = {"note": "my new landlady wants the rent on the 1st"}
    assert decide("my landlady", [landlady], roles=("landlord",), **new)[0] == "new"
    two = [landlady, node(2, "Mr Oduya", "landlord")]
    assert decide("my landlady", two, roles=("landlord",), **said)[0] != "merge"


def test_a_full_name_that_ties_nothing_to_a_given_name_alone_is_asked():
    lukas = node(1, "Lukas", "pen_pal", note="German pen pal from 2005, lost touch")
    said = {"note": "a guy added me on Facebook, could be my old friend from school"}
    assert decide("Lukas Becker", [lukas], **said) == ("hold", None, "surname-unconnected")
    # What is said now shares a telling word with what is held: the same Lukas.
    again = {"note": "my German pen pal wrote again after all these years"}
    assert decide("Lukas Becker", [lukas], **again)[0] == "merge"
    # A word of address after the name is no surname.
    rohan = node(1, "Rohan", note="cousin's friend, plays cricket")
    assert decide("Rohan bhaiya", [rohan], note="came over for Diwali")[0] == "merge"


def test_an_event_said_without_its_year_with_two_years_stored_is_asked():
    years = [
        node(1, "Diwali 2023", kind="EVENT", note="at the mandir"),
        node(2, "Diwali 2024", kind="EVENT", note="lit diyas"),
    ]
    said = {"note": "that Diwali when the power went out"}
    assert decide("Diwali", years, kind="EVENT", **said) == ("hold", None, "editions")
    # The year said picks one; one year stored is left to the other rules.
    assert decide("Diwali", years, kind="EVENT", year="2024")[2] != "editions"
    assert decide("Diwali", years[:1], kind="EVENT")[2] != "editions"
    walks = [
        node(1, "2024 sponsored walk", kind="EVENT"),
        node(2, "2025 sponsored walk", kind="EVENT"),
    ]
    assert decide("the sponsored walk", walks, kind="EVENT")[0] == "hold"


def test_a_name_said_without_its_generation_with_father_and_son_stored_is_asked():
    both = [node(1, "Frank Miller Sr."), node(2, "Frank Miller Jr.")]
    assert decide("Frank Miller", both) == ("hold", None, "generations")
    smiths = [node(1, "John Smith"), node(2, "Jane Smith")]
    assert decide("J. Smith", smiths) == ("hold", None, "generations")
    # One fitting is left to the other rules.
    assert decide("R. Karthik", [node(1, "Karthik Ramasamy")])[:2] == ("merge", 1)
    assert decide("Frank Miller Jr.", both)[:2] == ("merge", 2)


def test_a_thing_said_by_the_name_two_stored_ones_share_is_asked():
    films = [node(1, "Mulan (1998)", kind="THING"), node(2, "Mulan (2020)", kind="THING")]
    assert decide("Mulan", films, kind="THING", note="watched it on Sunday") == (
        "hold",
        None,
        "editions",
    )
    games = [node(1, "Final Fantasy VII", kind="THING"), node(2, "Final Fantasy XIV", kind="THING")]
    assert decide("Final Fantasy", games, kind="THING")[0] == "hold"
    assert decide("Mulan", films[:1], kind="THING")[2] != "editions"


def test_a_common_word_is_no_title_two_things_share():
    groups = [node(1, "support group", kind="THING"), node(2, "focus group", kind="THING")]
    assert decide("group", groups, kind="THING")[2] != "editions"
