"""Round 17 of the naming rules (session 23): what the twentieth and twenty-first blind sets
and the leftovers of the earlier ones showed."""

from memory.core.merge_properties import occasions_differ, whose
from memory.core.person_roles import roles_from_relations
from tests.memory.core.merge_helpers import decide, node


def test_two_days_are_two_occasions_unless_the_day_was_moved():
    assert occasions_differ({"date": "2026-01-19"}, {"date": "2026-01-12"})
    assert not occasions_differ({"date": "2026-01-12"}, {"date": "2026-01-12"})
    for moved in (
        "they moved my cardiology appointment from the 3rd to the 10th",
        "the hospital cancelled it and rebooked for May",
        "rescheduled to Tuesday",
        "postponed a week",
    ):
        assert not occasions_differ(
            {"date": "2026-02-10", "note": moved}, {"date": "2026-02-03"}
        ), moved
    # A month moved within a year stays the same event; a day against a year alone is unknown.
    assert not occasions_differ({"date": "March 2024"}, {"date": "June 2024"})
    assert not occasions_differ({"date": "2024-03-02"}, {"date": "2024"})


def test_the_second_session_on_another_day_is_another_event():
    first = node(1, "Physio session", "school", kind="EVENT", date="2026-01-12")
    said = {"date": "2026-01-19", "note": "second physio session, knee felt better"}
    assert decide("physio session", [first], kind="EVENT", roles=("school",), **said) == (
        "new",
        None,
        "properties-differ",
    )
    moved = {"date": "2026-01-19", "note": "they moved my physio session to the 19th"}
    assert decide("physio session", [first], kind="EVENT", **moved)[:2] == ("merge", 1)


def test_the_users_own_condition_is_not_the_one_held_as_someone_elses():
    friends = node(1, "Lupus", kind="TOPIC", note="my friend Jess has lupus", **{"for": "Jess"})
    said = {"note": "I've just been diagnosed with lupus too"}
    assert decide("lupus", [friends], kind="TOPIC", roles=("own",), **said) == (
        "new",
        None,
        "properties-differ",
    )
    # Without the user's tie it may be the friend's, spoken of again.
    assert decide("lupus", [friends], kind="TOPIC", **said)[:2] == ("merge", 1)
    # The user's own, held with no one named or with the user named, is the user's.
    for stored in ({}, {"for": "me"}):
        mine = node(1, "Lupus", kind="TOPIC", **stored)
        assert decide("lupus", [mine], kind="TOPIC", roles=("own",))[:2] == ("merge", 1)


def test_a_condition_had_or_a_medicine_taken_is_the_users_own():
    assert roles_from_relations([("HAS_CONDITION", False)]) == {"own"}
    assert roles_from_relations([("TAKES", False)]) == {"own"}
    assert whose({}, own=True) == "self"
    assert whose({"for": "my sister"}, own=True) == "sister"
    assert whose({}) == ""


def test_a_doctor_by_title_at_another_practice_is_asked_unless_said_to_have_moved():
    gp = node(1, "Dr. Mei Ng", "doctor", role="GP", practice="Riverside Practice")
    said = {"practice": "Hillside Clinic", "note": "saw Dr. Ng at Hillside Clinic"}
    assert decide("Dr. Ng", [gp], **said)[0] == "hold"
    assert decide("Dr. Ng", [gp], practice="Riverside Practice")[:2] == ("merge", 1)
    moved = {"practice": "Reddington Hospital", "note": "Dr. Ng has moved to Reddington"}
    assert decide("Dr. Ng", [gp], **moved)[:2] == ("merge", 1)
    consultant = node(1, "Dr. Luis García", "doctor", hospital="Hospital Ángeles")
    assert decide("Dr. García", [consultant], hospital="Médica Sur")[0] == "hold"


def test_an_event_planned_now_is_not_the_one_the_graph_says_is_finished():
    refit = node(1, "Kitchen refit", kind="EVENT", year="2019", status="finished")
    said = {"note": "starting the kitchen refit at the new house in March"}
    assert decide("Kitchen refit", [refit], kind="EVENT", roles=("planned",), **said) == (
        "new",
        None,
        "properties-differ",
    )
    # Spoken of again, not planned: the one refit.
    assert decide("kitchen refit", [refit], kind="EVENT", note="so glad it's done")[:2] == (
        "merge",
        1,
    )
