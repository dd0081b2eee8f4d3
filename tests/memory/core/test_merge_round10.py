"""Round 10 of the naming rules (session 20): the user's own things by what they are — "my
car" for the Toyota Corolla, "dishwasher" for the Bosch dishwasher, "Sony headphones" for
the WH-1000XM4 — and never one of two, nor a thing that is only about it."""

from memory.core.descriptions import headed_by
from memory.core.merge_properties import make_class
from memory.core.person_roles import roles_from_relations
from tests.memory.core.merge_helpers import decide, node

OWNS = "possession"


def thing(node_id, name, *roles, **properties):
    return node(node_id, name, *roles, kind="THING", **properties)


def test_a_make_says_what_a_thing_is():
    assert make_class("Toyota") == "car"
    assert make_class("pickup") == "truck"
    assert make_class("MacBook") == "laptop"
    # Makes that are common words or animals name nothing: golf clubs are no car.
    assert make_class("Jaguar") is None
    assert make_class("golf") is None


def test_my_car_is_the_one_car_the_user_owns():
    corolla = [thing(1, "Toyota Corolla", OWNS), thing(2, "Trek Marlin", OWNS, type="bike")]
    assert decide("my car", corolla, kind="THING", roles=[OWNS]) == ("merge", 1, "description")
    # The car sold is not the car: the one owned now is (present "OWNS" on both sides).
    sold = [thing(1, "Honda Civic", status="sold in 2020"), thing(2, "Tesla Model 3", OWNS)]
    assert decide("my car", sold, kind="THING", roles=[OWNS])[:2] == ("merge", 2)
    # Two cars owned: asked, never guessed.
    two = [thing(1, "Toyota Corolla", OWNS), thing(2, "Kia Niro", OWNS)]
    assert decide("my car", two, kind="THING", roles=[OWNS])[0] == "hold"


def test_a_stated_type_says_what_a_thing_is_before_its_make():
    trucks = [
        thing(1, "Old Blue", OWNS, type="1994 Ford pickup"),
        thing(2, "the Corolla", OWNS, type="Toyota Corolla"),
    ]
    assert decide("the truck", trucks, kind="THING", roles=[OWNS])[:2] == ("merge", 1)
    # "my Toyota" is the Corolla, not the Ford that is a car too.
    assert decide("my Toyota", trucks, kind="THING", roles=[OWNS])[:2] == ("merge", 2)
    # A Honda motorbike is no car.
    bike = [thing(1, "Honda CBR", OWNS, type="motorcycle")]
    assert decide("my car", bike, kind="THING", roles=[OWNS])[0] == "new"


def test_an_owned_thing_said_without_my_by_what_it_is():
    kitchen = [thing(1, "Bosch dishwasher", OWNS, note="leaking"), thing(2, "fridge freezer", OWNS)]
    assert decide("dishwasher", kitchen, kind="THING", roles=[OWNS])[:2] == ("merge", 1)
    boiler = [thing(1, "boiler", OWNS, brand="Worcester Bosch")]
    assert decide("Worcester boiler", boiler, kind="THING", roles=[OWNS])[:2] == ("merge", 1)
    audio = [
        thing(1, "Sony WH-1000XM4", OWNS, type="headphones"),
        thing(2, "AirPods", OWNS, type="earbuds"),
    ]
    assert decide("Sony headphones", audio, kind="THING", roles=[OWNS])[:2] == ("merge", 1)
    # The game played on the Switch is not the Switch the user owns.
    games = [
        thing(1, "The Legend of Zelda: Tears of the Kingdom", platform="Switch"),
        thing(2, "Nintendo Switch", OWNS),
    ]
    assert decide("Switch", games, kind="THING", roles=[OWNS])[:2] == ("merge", 2)


def test_without_my_a_thing_is_one_by_its_head_not_a_thing_about_it():
    cover = [thing(1, "Worcester boiler cover", OWNS)]
    assert decide("boiler", cover, kind="THING", roles=[OWNS])[0] == "new"
    assert headed_by(("boiler",), ["Worcester Bosch boiler"], {})
    assert not headed_by(("boiler",), ["boiler service"], {})
    # Not owned, or not said as the user's: no description at all.
    assert decide("dishwasher", [thing(1, "Bosch dishwasher")], kind="THING")[0] == "new"


def org(node_id, name, *roles, **properties):
    return node(node_id, name, *roles, kind="ORG", **properties)


def test_another_name_the_world_knows_an_organisation_by():
    assert decide("Meta", [org(1, "Facebook", "workplace")], kind="ORG") == (
        "merge",
        1,
        "known-name",
    )
    assert decide("Maccas", [org(1, "McDonald's"), org(2, "KFC")], kind="ORG")[:2] == ("merge", 1)
    assert decide("the Y", [org(1, "YMCA")], kind="ORG")[:2] == ("merge", 1)
    assert decide("TJ's", [org(1, "Trader Joe's")], kind="ORG")[:2] == ("merge", 1)
    # A name the world gives two clubs is asked about when the graph holds both.
    spurs = [org(1, "Tottenham Hotspur"), org(2, "San Antonio Spurs")]
    assert decide("Spurs", spurs, kind="ORG") == ("hold", None, "known-name-ambiguous")


def test_known_names_hold_only_for_the_kinds_listed_and_the_same_year():
    brum = [node(1, "Birmingham", kind="PLACE")]
    assert decide("Brum", brum, kind="PLACE")[:2] == ("merge", 1)
    # Not a person, nor another kind: "Brum" the band is no city.
    assert decide("Brum", [node(1, "Birmingham", kind="ORG")], kind="ORG")[0] == "new"
    fest = [node(1, "Oktoberfest 2023", kind="EVENT")]
    assert decide("Wiesn 2023", fest, kind="EVENT") == ("merge", 1, "known-name")
    assert decide("Wiesn 2024", fest, kind="EVENT")[0] != "merge"
    food = [node(1, "aubergine", kind="PREFERENCE")]
    assert decide("eggplant", food, kind="PREFERENCE")[:2] == ("merge", 1)


def test_the_known_names_table_is_well_formed():
    from memory.core.known_names import _FILE

    kinds = {"ORG", "PLACE", "EVENT", "THING", "TOPIC", "PREFERENCE", "OTHER"}
    for line in _FILE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        said, _, names = line.partition(":")
        assert set(said.split()) <= kinds, line
        assert len([n for n in names.split("|") if n.strip()]) >= 2, line


def test_a_known_name_that_is_also_part_of_another_name_is_a_question():
    banks = [org(1, "Lloyds Bank"), org(2, "Lloyd's of London")]
    assert decide("Lloyds", banks, kind="ORG") == ("hold", None, "known-name-ambiguous")
    assert decide("Lloyds", banks[:1], kind="ORG")[:2] == ("merge", 1)


def test_a_thing_named_as_someone_elses_is_the_users_when_they_own_it():
    watches = [
        thing(1, "Apple Watch SE", OWNS, type="smartwatch"),
        thing(2, "Grandad's Omega", OWNS, type="watch", note="inherited"),
    ]
    assert decide("my watch", watches, kind="THING", roles=[OWNS])[0] == "hold"
    # Grandad's watch he still wears is his, not the user's: the smartwatch is meant.
    his = [watches[0], thing(2, "Grandad's Omega", type="watch")]
    assert decide("my watch", his, kind="THING", roles=[OWNS])[:2] == ("merge", 1)


def test_the_trade_said_picks_the_one_stored_with_it_over_a_friend_of_no_trade():
    daves = [
        node(1, "Dave Hughes", "friend", note="university friend"),
        node(2, "Dave Price", role="plumber"),
    ]
    assert decide("Dave", daves, role="plumber") == ("merge", 2, "first-name-by-role")
    # A friend whose trade is the one said is still a question.
    plumbers = [node(1, "Dave Hughes", "friend", role="plumber"), daves[1]]
    assert decide("Dave", plumbers, role="plumber")[0] == "hold"
    # Someone known by nothing at all may be the plumber too.
    strangers = [node(1, "Dave Hughes"), daves[1]]
    assert decide("Dave", strangers, role="plumber")[0] == "hold"


def test_another_languages_article_before_a_name_is_said_as_the_is():
    assert decide("der ADAC", [org(1, "ADAC")], kind="ORG") == ("merge", 1, "spelling")
    assert decide("el Oxxo", [org(1, "Oxxo")], kind="ORG")[:2] == ("merge", 1)
    # A capital article is part of the name: El Salvador is not Salvador (Bahia).
    salvador = [node(1, "Salvador", kind="PLACE")]
    assert decide("El Salvador", salvador, kind="PLACE")[0] != "merge"
    # Not for people: "Le Roy" is a surname, not "Roy".
    assert decide("le Roy", [node(1, "Roy")])[2] != "spelling"


def test_a_brand_typed_one_letter_wrong_is_the_brand():
    passat = [thing(1, "Volkswagen Passat", OWNS)]
    assert decide("Volkswagon Passat", passat, kind="THING") == ("merge", 1, "misspelt")
    assert decide("Santandar", [org(1, "Santander")], kind="ORG")[:2] == ("merge", 1)
    assert decide("Macbok Pro", [thing(1, "MacBook Pro")], kind="THING")[:2] == ("merge", 1)
    # A word of its own one letter from another is another subject, still asked about.
    macro = [thing(1, "Macroeconomics")]
    assert decide("Microeconomics", macro, kind="THING") == ("hold", None, "similar")
    # A concept misspelt, a place, or one of two candidates: asked, never corrected.
    assert decide("potery", [thing(1, "pottery")], kind="THING")[0] == "hold"
    gardens = [node(1, "Kensington Gardens", kind="PLACE")]
    assert decide("Kensingtin Gardens", gardens, kind="PLACE")[0] == "hold"
    two = [*passat, thing(2, "Volkswagen Passant")]
    assert decide("Volkswagon Passat", two, kind="THING")[0] == "hold"


def test_a_first_name_said_exactly_goes_to_the_one_of_the_trade_said():
    carlos = [node(1, "Carlos", role="handyman"), node(2, "Carlos Mendez", "brother_in_law")]
    assert decide("Carlos", carlos, role="handyman") == ("merge", 1, "exact-by-role")
    # With no trade said, the brother-in-law may be meant: asked.
    assert decide("Carlos", carlos)[0] == "hold"


def test_the_kind_an_organisations_name_ends_in_is_its_type():
    shop = [org(1, "Sainsbury's", type="supermarket")]
    assert decide("Sainsbury's Bank", shop, kind="ORG") == ("new", None, "none")
    hospital = [org(1, "St Mary's", type="hospital")]
    assert decide("St Mary's School", hospital, kind="ORG")[0] == "new"
    # The same class, or a type said outright, leaves it to the other rules.
    assert decide("Barclays Bank", [org(1, "Barclays", type="bank")], kind="ORG")[0] != "new"
    said = decide("Sainsbury's Bank", shop, kind="ORG", type="supermarket")
    assert said[0] != "new"


def test_an_organisation_described_by_what_it_is_to_the_user():
    assert roles_from_relations([("BANKS_WITH", False), ("INSURED_WITH", False)]) == {
        "bank",
        "insurer",
    }
    work = [org(1, "Baker & Lowe LLP", "workplace"), org(2, "Harlow Dental")]
    assert decide("the firm", work, kind="ORG", roles=["workplace"]) == (
        "merge",
        1,
        "description",
    )
    money = [org(1, "BBVA", "bank"), org(2, "Mapfre", "insurer")]
    assert decide("my bank", money, kind="ORG")[:2] == ("merge", 1)
    assert decide("my insurer", money, kind="ORG")[:2] == ("merge", 2)
    # Two insurers: "the insurance company" is asked about.
    two = [org(1, "Aviva", "insurer"), org(2, "Admiral", "insurer")]
    assert decide("the insurance company", two, kind="ORG")[0] == "hold"


def test_a_bike_is_a_bicycle_or_a_motorbike():
    bikes = [
        thing(1, "Trek Marlin 7", OWNS, type="bicycle"),
        thing(2, "Honda CB500F", OWNS, type="motorbike"),
    ]
    assert decide("the bike", bikes, kind="THING")[0] == "hold"
    assert decide("my bike", bikes[:1], kind="THING", roles=[OWNS])[:2] == ("merge", 1)
    pixel = [thing(1, "Pixel 8", OWNS, type="smartphone")]
    assert decide("my phone", pixel, kind="THING", roles=[OWNS])[:2] == ("merge", 1)


def test_descriptions_said_in_other_languages():
    seat = [thing(1, "SEAT Ibiza", OWNS, type="car")]
    assert decide("mi coche", seat, kind="THING", roles=[OWNS]) == ("merge", 1, "description")
    phones = [thing(1, "Samsung Galaxy S22", OWNS, type="phone"), thing(2, "iPhone SE", OWNS)]
    assert decide("mein Handy", phones, kind="THING", roles=[OWNS])[0] == "hold"
    # People by their trade or their tie, as the Write cases a person's lower-case name.
    landlord = [node(1, "Don Manuel", "landlord"), node(2, "Jonas Schmidt", "colleague")]
    assert decide("El Casero", landlord)[:2] == ("merge", 1)
    assert decide("O Eletricista", [node(1, "Zé", role="eletricista")])[:2] == ("merge", 1)
    banks = [org(1, "Santander", "bank"), org(2, "ING", "bank")]
    assert decide("Mi Banco", banks[:1], kind="ORG")[:2] == ("merge", 1)
    assert decide("El Banco", banks, kind="ORG")[0] == "hold"
    # A compound's head in another language: a Ferienwohnung is a Wohnung too.
    flats = [
        node(1, "Wohnung in Köln", "home", kind="PLACE"),
        node(2, "Ferienwohnung an der Ostsee", OWNS, kind="PLACE"),
    ]
    assert decide("die Wohnung", flats, kind="PLACE")[0] == "hold"
    # A capital article before words the table does not know is part of a name.
    assert decide("El Salvador", [node(1, "Salvador", kind="PLACE")], kind="PLACE")[0] != "merge"
    assert decide("le Roy", [node(1, "Roy")])[2] != "description"


def test_a_stored_other_in_lower_case_is_a_concept_whatever_case_it_is_said_in():
    yoga = [node(1, "yoga", "practises", kind="OTHER")]
    assert decide("Yoga", yoga, kind="TOPIC") == ("merge", 1, "concept-kind")
    # A stored OTHER with a capital is a name (a pet's): still asked.
    assert decide("biscuit", [node(1, "Biscuit", kind="OTHER")], kind="TOPIC")[0] == "hold"
