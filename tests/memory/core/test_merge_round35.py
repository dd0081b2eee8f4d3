"""The 35th round of merge rules (issue 21, session 29), from blind sets 47 (freelance and
gig work) and 48 (building trades and renovation), read after round 34 was measured on them:
a trade said beside a first name that a relative or a neighbour of the name does not have,
a description the note gives as someone else's, the second time of an event, and more pet
forms. Pure functions; the Write path runs them through ``bench_merge`` on every labelled
set."""

from tests.memory.core.merge_helpers import decide, node


def test_a_trade_beside_a_first_name_is_not_the_relative_of_the_name():
    cousin = node(1, "Mihai", "cousin", note="vărul Mihai, works in Italy")
    said = {"note": "Mihai instalatorul comes Thursday to fit the boiler"}
    assert decide("Mihai instalatorul", [cousin], **said) == ("new", None, "trade-beside-name")
    brother = node(1, "Marco", "brother", note="mio fratello Marco, lives in Turin")
    said = {"note": "Marco l'idraulico is coming Monday"}
    assert decide("Marco l'idraulico", [brother], **said)[0] == "new"
    # The relative whose note says the trade is the one.
    plumber = node(1, "Marco", "brother", note="mio fratello Marco, idraulico a Torino")
    assert decide("Marco l'idraulico", [plumber], **said)[:2] == ("merge", 1)
    # Someone of the name the user has no tie of family or home to is left to the other
    # rules ("Marco", a contact with no note: the plumber, perhaps).
    contact = node(1, "Marco")
    assert decide("Marco l'idraulico", [contact], **said)[2] != "trade-beside-name"
    # A form of address after the name is no trade.
    brother = node(1, "Rakesh", "brother", note="my elder brother in Pune")
    said = {"note": "Rakesh bhaiya is visiting for Diwali"}
    assert decide("Rakesh bhaiya", [brother], **said)[:2] == ("merge", 1)
    # A kinship word is not a first name.
    sister = node(1, "Maya", "half_sister")
    assert decide("my half-sister", [sister])[:2] == ("merge", 1)


def test_a_description_the_note_gives_as_someone_elses_is_not_the_users_own():
    builder = node(1, "Mark Pearson", "builder", role="builder", note="our builder, the extension")
    said = {"note": "Mum's builder down in Exeter has vanished with her deposit"}
    assert decide("the builder", [builder], roles=(), **said) == ("new", None, "someone-elses")
    said = {"note": "the builder poured the footings today"}
    assert decide("the builder", [builder], **said)[:2] == ("merge", 1)


def test_the_second_time_of_an_event_is_another_occurrence():
    first = node(1, "van break-in", kind="EVENT", year="2023", note="lost all my gear")
    said = {"note": "van got broken into again last night, second time"}
    assert decide("van break-in", [first], kind="EVENT", **said)[0] == "new"
    said = {"note": "the insurer finally paid for the van break-in"}
    assert decide("van break-in", [first], kind="EVENT", **said)[:2] == ("merge", 1)


def test_more_pet_forms():
    for short, full in (
        ("Deccie", "Declan"),
        ("Mossy", "Maurice"),
        ("Shano", "Shane"),
        ("Jonno", "Jonathan"),
        ("Pepa", "Josefa"),
    ):
        stored = node(1, f"{full} Walsh", note="on the site crew")
        assert decide(short, [stored], note=f"{short} was on site early")[:2] == ("merge", 1)
