"""Round 9 of the naming rules (session 19, from the blind11 and blind12 first runs): a
sequel is not its first film, another occasion of an event, where a friend was met, a
profession's kind, and what one candidate's stated city or age picks."""

from memory.core.merge_properties import occasions_differ, roles_differ
from memory.core.person_roles import roles_from_relations
from tests.memory.core.merge_helpers import decide, node


def test_a_numbered_entry_of_a_series_is_not_the_title_before_its_colon():
    dune = [node(1, "Dune", kind="THING", type="film", year="2021")]
    for said in ("Dune: Part Two", "Dune: Part 2", "Dune: 2", "Dune: Chapter II"):
        assert decide(said, dune, kind="THING")[2] != "title-part", said
    # A subtitle that is no number still names the title (Zelda: Breath of the Wild).
    zelda = [node(1, "Zelda", kind="THING", type="game")]
    # (Said with the stored title before its colon, since round 14 it is asked: a subtitle may
    # name an expansion or an edition — test_merge_round13.)
    assert decide("Zelda: Breath of the Wild", zelda, kind="THING") == (
        "hold",
        None,
        "title-part-longer",
    )
    assert decide(
        "Breath of the Wild", [node(1, "Zelda: Breath of the Wild", kind="THING")], kind="THING"
    )[:2] == ("merge", 1)


def test_another_occasion_of_an_event_by_when_each_happened():
    assert occasions_differ({"occurred": "2025"}, {"occurred": "2019"})
    assert occasions_differ({"when": "February 2025"}, {"date": "July 2024"})
    assert not occasions_differ({"occurred": "March 2024"}, {"date": "June 2024"})
    # Ahead against behind; a year alone is behind only for what the user attended.
    assert occasions_differ({"occurred": "next May"}, {"occurred": "last summer"})
    assert occasions_differ(
        {"occurred": "April next year"}, {"occurred": "May 2023"}, attended=True
    )
    assert not occasions_differ({"occurred": "next June"}, {"occurred": "June 2027"})
    assert not occasions_differ({"occurred": "next May"}, {})
    trip = [node(1, "Lisbon trip", "school", kind="EVENT", occurred="May 2023")]
    said = {"occurred": "April next year"}
    assert decide("Lisbon trip", trip, kind="EVENT", **said) == ("new", None, "properties-differ")
    assert decide("Lisbon trip", trip, kind="EVENT") == ("merge", 1, "exact")
    race = [node(1, "Monaco Grand Prix", "school", kind="EVENT", occurred="2019")]
    assert decide("Monaco GP", race, kind="EVENT", occurred="2025")[0] == "new"
    assert decide("Monaco GP", race, kind="EVENT", occurred="2019")[0] == "merge"


def test_a_first_name_met_somewhere_else_is_a_question_not_a_merge():
    tom = [node(1, "Tom Okafor", "friend", met_at="book club")]
    assert decide("Tom", tom, roles=["friend"], met_at="five-a-side")[0] == "hold"
    assert decide("Tom", tom, roles=["friend"], met_at="the book club")[:2] == ("merge", 1)
    assert decide("Tom", tom, roles=["friend"])[:2] == ("merge", 1)


def test_the_same_name_with_full_stops_or_without_is_the_same_name():
    gp = [node(1, "Dr. Kapoor", "doctor", role="GP", city="Leicester")]
    assert decide("Dr Kapoor", gp, role="GP") == ("merge", 1, "exact")
    # ... weighed as the same name is: another role is a question, not the user's GP.
    said = {"role": "Dad's oncologist", "city": "Mumbai"}
    assert decide("Dr Kapoor", gp, **said) == ("hold", None, "exact-role-differs")


def test_two_kinds_of_one_trade_are_a_question():
    assert roles_differ({"role": "occupational therapist"}, {"role": "speech therapist for Finn"})
    assert roles_differ({"role": "maths teacher"}, {"role": "piano teacher"})
    assert not roles_differ({"role": "senior engineer"}, {"role": "software engineer"})
    assert not roles_differ({"role": "teacher"}, {"role": "maths teacher"})
    assert not roles_differ({"role": "swim teacher"}, {"role": "swim teacher at Aqua Kids"})
    jo = [node(1, "Joanne Fraser", role="speech therapist for Finn")]
    assert decide("Jo", jo, role="occupational therapist")[0] == "hold"
    assert decide("Jo", jo, role="speech therapist")[:2] == ("merge", 1)


def test_the_age_said_picks_one_of_two_of_a_name():
    emilys = [node(1, "Emily", "daughter", age="14"), node(2, "Emily Ward", age="9")]
    assert decide("Em", emilys, age="14") == ("merge", 1, "nickname-by-age")
    assert decide("Em", emilys, age="10")[:2] == ("merge", 2)  # a birthday since
    assert decide("Em", emilys)[0] == "hold"
    # Not when another one's age is unknown: she may be 14 too.
    unknown = [node(1, "Emily", "daughter", age="14"), node(2, "Emily Ward")]
    assert decide("Em", unknown, age="14")[0] == "hold"


def test_where_the_user_places_one_of_two_grandmothers_picks_her():
    grans = [
        node(1, "Ruth Goldberg", "grandmother", city="Boca Raton"),
        node(2, "Miriam Adler", "grandmother", city="Toronto"),
    ]
    assert decide("Bubbe", grans, roles=["grandmother"], city="Toronto") == (
        "merge",
        2,
        "kinship-by-place",
    )
    assert decide("Bubbe", grans, roles=["grandmother"])[0] == "hold"


def test_a_grandparents_title_may_be_the_childrens_name_for_the_users_parent():
    mother = [node(1, "Rosa Hernández", "mother"), node(2, "Sofía", "daughter")]
    assert decide("Abuela Rosa", mother) == ("merge", 1, "kin-title")
    in_law = [node(1, "Brigitte Laurent"), node(2, "Philippe Laurent", "partner_m")]
    assert decide("Mamie Brigitte", in_law) == ("merge", 1, "kin-title")
    # Not another relation of the family, nor someone known only outside it.
    assert decide("Abuela Rosa", [node(1, "Rosa Hernández", "sister")])[0] == "new"
    neighbour = [node(1, "Brigitte Laurent", "neighbour")]
    assert decide("Mamie Brigitte", neighbour) == ("hold", None, "kin-title-courtesy")
    # Said as the user's own grandmother, the title is that relation.
    assert decide("Abuela Rosa", mother, roles=["grandmother"])[0] == "new"


def test_pet_forms_of_more_names():
    father_and_son = [node(1, "Gabriel Moreau", "partner_m", age="45"), node(2, "Gabi", "son")]
    assert decide("Gabriel", father_and_son) == ("hold", None, "nickname-ambiguous")
    assert decide("Auntie Fi", [node(1, "Fiona McLeod"), node(2, "Moira Grant", "aunt")]) == (
        "merge",
        1,
        "kin-title",
    )


def test_someone_said_only_by_a_trade_is_not_the_friend_of_that_first_name():
    friend = [node(1, "Kofi Mensah", "friend", met_at="university")]
    assert decide("Kofi", friend, role="tour guide at Cape Coast Castle") == (
        "hold",
        None,
        "first-name-role-differs",
    )
    # The friend's own trade, a work tie, or the friend said as one: the same person.
    guide = [node(1, "Kofi Mensah", "friend", role="tour guide")]
    assert decide("Kofi", guide, role="tour guide at Cape Coast Castle")[:2] == ("merge", 1)
    assert decide("Kofi", [node(1, "Kofi Mensah", "colleague")], role="analyst")[0] == "merge"
    assert decide("Kofi", friend, roles=["friend"], role="tour guide")[0] == "merge"


def test_a_relation_the_user_had_is_that_relation():
    assert roles_from_relations([("HAD_BOSS", False)]) == {"boss"}
    # Since session 21 a pet the user had is a former pet, not the one they have now.
    assert roles_from_relations([("HAD_PET", False)]) == {"former_pet"}


def test_a_care_home_a_nursery_and_a_national_park_said_without_their_kind_words():
    home = [node(1, "Willow Court Care Home", kind="ORG"), node(2, "Willow Dental", kind="ORG")]
    assert decide("Willow Court", home, kind="ORG") == ("merge", 1, "kind-word")
    park = [node(1, "Yosemite National Park", kind="PLACE"), node(2, "San Francisco", kind="PLACE")]
    assert decide("Yosemite", park, kind="PLACE") == ("merge", 1, "kind-word")
    # A city is not its country, nor its airport: still asked, never merged.
    assert decide("Frankfurt", [node(1, "Frankfurt Airport", kind="PLACE")], kind="PLACE")[0] != (
        "merge"
    )
