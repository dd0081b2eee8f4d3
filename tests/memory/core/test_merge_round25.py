"""The 25th round of merge rules (issue 21, session 24), from blind set 27's first run
(moving between countries and travelling): people whose notes place them in two countries,
"my other cousin", a place written with another region, someone else's document by a given
name, "another box", the names a person goes by, "Melbourne Uni", acronyms with an acronym
inside, and the names of documents, offices and airports. Pure functions; the Write path
runs them through ``bench_merge`` on every labelled set."""

import pytest

from memory.core.clipped_names import clipped
from memory.core.merge_places import is_acronym_of
from memory.core.merge_properties import noted_names, noted_qualifier, whose
from memory.core.place_names import countries_placed
from tests.memory.core.merge_helpers import decide, node

# --- people placed in two countries ---------------------------------------------------------


@pytest.mark.parametrize(
    ("note", "countries"),
    [
        ("colleague at Rakuten in Tokyo", {"JP"}),
        ("the sushi chef at our local place in Vancouver", {"CA", "US"}),
        ("friend from Buenos Aires", {"AR"}),
        ("the kebab shop downstairs in Kreuzberg", {"DE"}),
        ("parish priest at St Anne's", set()),  # "at" places no one; "St" is no country
        ("lives in the UK", set()),  # a code of two letters
    ],
)
def test_countries_a_note_places_someone_in(note, countries):
    assert countries_placed(note) == frozenset(countries)


def test_a_first_name_in_another_country_is_asked():
    hiroshi = node(1, "Hiroshi Yamamoto", "colleague", note="colleague at Rakuten in Tokyo")
    chef = {"note": "Hiroshi makes the sushi at our local place in Vancouver"}
    assert decide("Hiroshi", [hiroshi], **chef) == ("hold", None, "placed-apart")
    # Said to be something else right after the name, he is not the colleague (round 32).
    chef = {"note": "Hiroshi, the sushi chef at our local place in Vancouver"}
    assert decide("Hiroshi", [hiroshi], **chef)[0] == "new"
    assert decide("Hiroshi", [hiroshi]) == ("merge", 1, "first-name")
    moved = {"note": "Hiroshi moved to Vancouver for a new job"}
    assert decide("Hiroshi", [hiroshi], **moved) == ("merge", 1, "first-name")


def test_the_users_relative_is_the_same_wherever_the_notes_put_them():
    bogdan = node(1, "Bogdan", "partner_m", note="husband, from Chisinau")
    said = {"note": "Bogdan started his new job in Bucharest"}
    assert decide("Bogdan", [bogdan], roles=("partner_m",), **said) == ("merge", 1, "exact")


# --- another of the name, said outright ------------------------------------------------------


@pytest.mark.parametrize(
    "note",
    [
        "my other cousin Li Na, dad's side, lives in Vancouver",
        "same name as the Beijing one",
        "not the Beijing one",
    ],
)
def test_a_note_that_says_another_of_the_name(note):
    li_na = node(1, "Li Na", "cousin", note="cousin in Beijing")
    assert decide("Li Na", [li_na], roles=("cousin",), note=note) == (
        "new",
        None,
        "properties-differ",
    )
    assert decide("Li Na", [li_na], roles=("cousin",)) == ("merge", 1, "exact")


# --- a place written with its region ---------------------------------------------------------


def test_a_place_a_note_writes_with_another_region_is_another_place():
    said = {"note": "Springfield, Massachusetts, where my brother moved for work"}
    assert noted_qualifier("Springfield", said) == "massachusetts"
    assert noted_qualifier("Springfield", {"note": "Springfield, IL again"}) == ""
    illinois = node(1, "Springfield, Illinois", "home", kind="PLACE")
    assert decide("Springfield", [illinois], kind="PLACE", **said) == ("new", None, "none")
    again = {"note": "back in Springfield, Illinois for the holidays"}
    assert decide("Springfield", [illinois], kind="PLACE", **again) == ("merge", 1, "own-place")


# --- someone else's document, another box ----------------------------------------------------


def test_a_document_a_note_gives_to_someone_by_name():
    said = {"note": "Arjun's H-1B, through his employer in Seattle"}
    assert whose(said, name="H-1B visa") == "arjun"
    assert whose({"note": "Tesco's own brand"}, name="Tesco own brand") == ""  # no given name
    mine = node(1, "H-1B visa", "possession", kind="THING")
    assert decide("H-1B visa", [mine], kind="THING", **said) == ("new", None, "properties-differ")
    assert decide("H-1B visa", [mine], kind="THING") == ("merge", 1, "exact")


def test_another_of_a_thing_by_its_head_word():
    box = node(1, "balikbayan box", kind="THING", note="sent to Cebu in March")
    said = {"note": "another box for Christmas, packing it now"}
    assert decide("balikbayan box", [box], kind="THING", **said) == (
        "new",
        None,
        "properties-differ",
    )
    assert decide("balikbayan box", [box], kind="THING", note="the box arrived") == (
        "merge",
        1,
        "exact",
    )


# --- the names a person goes by --------------------------------------------------------------


@pytest.mark.parametrize(
    ("note", "names"),
    [
        ("friend from Seoul; in Toronto he goes by Daniel", ("Daniel",)),
        ("uses the English name William at work", ("William",)),
        ("in Boston everyone called him Joe", ("Joe",)),
        ("boyfriend from Chiang Mai; everyone calls him Bank", ("Bank",)),
        ("she goes by her middle name", ()),
    ],
)
def test_names_a_note_says_someone_goes_by(note, names):
    assert noted_names({"note": note}) == names


def test_a_name_someone_goes_by_is_weighed_as_a_first_name():
    minjun = node(1, "Kim Min-jun", "friend", note="exchange friend; goes by Daniel in Toronto")
    assert decide("Daniel Kim", [minjun], roles=("friend",)) == ("merge", 1, "alias")
    # The user's dentist Daniel Kim is not the friend who goes by Daniel.
    assert decide("Daniel Kim", [minjun], roles=("dentist",)) == ("new", None, "none")
    wei = node(1, "Wei Chen", "colleague", note="colleague in Singapore; English name William")
    william = node(2, "William Tan", "friend", note="friend in Singapore")
    assert decide("William", [wei, william]) == ("hold", None, "first-name-ambiguous")


# --- short names of universities and organisations ------------------------------------------


def test_a_university_as_students_say_it():
    assert clipped("melbourne uni", "university of melbourne")
    assert clipped("uni of leeds", "university of leeds")
    assert not clipped("melbourne university", "university of melbourne")
    uni = node(1, "University of Melbourne", kind="ORG")
    assert decide("Melbourne Uni", [uni], kind="ORG") == ("merge", 1, "clipped")


@pytest.mark.parametrize(
    ("short", "long"),
    [
        ("UKVI", "UK Visas and Immigration"),
        ("NHSBT", "NHS Blood and Transplant"),
        ("IITB", "IIT Bombay"),
        ("ENBD", "Emirates NBD"),
    ],
)
def test_an_acronym_with_an_acronym_inside(short, long):
    assert is_acronym_of(short, long, "ORG")
    assert decide(short, [node(1, long, kind="ORG")], kind="ORG") == ("merge", 1, "acronym")


def test_a_stored_acronym_is_not_spelt_by_one_said_inside_a_name():
    assert not is_acronym_of("UCD", "UC Davis", "ORG", whole_words=False)
    ucd = node(1, "UCD", kind="ORG")
    assert decide("UC Davis", [ucd], kind="ORG")[0] != "merge"


@pytest.mark.parametrize(
    ("said", "stored", "kind"),
    [
        ("Blaue Karte", "EU Blue Card", "THING"),
        ("I-551", "green card", "THING"),
        ("Italian tax code", "codice fiscale", "THING"),
        ("Manila airport", "NAIA", "PLACE"),
        ("Jogja", "Yogyakarta", "PLACE"),
        ("Etihad", "Etihad Airways", "ORG"),
    ],
)
def test_known_names_of_documents_offices_and_airports(said, stored, kind):
    assert decide(said, [node(1, stored, kind=kind)], kind=kind) == ("merge", 1, "known-name")


def test_canton_is_left_out_of_the_table():
    # Canton is Guangzhou, a town in Ohio and a Swiss state: the table does not say which.
    assert decide("Canton", [node(1, "Guangzhou", kind="PLACE")], kind="PLACE")[0] != "merge"
