"""Round 17 of the naming rules (session 23): what the twentieth and twenty-first blind sets
and the leftovers of the earlier ones showed."""

from memory.core.merge_properties import occasions_differ, whose
from memory.core.merge_types import StoredNode
from memory.core.person_roles import newly_met, roles_from_properties, roles_from_relations
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


# Round 18, from blind20's first run (digital life and technology).


def test_a_mutual_tie_said_from_the_user_gives_the_role():
    assert roles_from_relations([("FRIEND_OF", False)]) == {"friend"}
    assert roles_from_relations([("COLLEAGUE_OF", False)]) == {"colleague"}
    # Not a tie both ends have: the user who is X's sister does not make X a sister.
    assert roles_from_relations([("SISTER_OF", False)]) == frozenset()


def test_someone_newly_met_in_a_role_is_not_the_one_known_otherwise():
    friend = node(1, "Kenji", "friend", note="online friend from the Splatoon server, Osaka")
    said = {"note": "my new coworker Kenji sits next to me in Toronto"}
    assert decide("Kenji", [friend], roles=("colleague",), **said)[0] == "new"
    intern = {"note": "Kaito Yamamoto, the new intern at my lab in Kyoto"}
    assert decide("Kaito Yamamoto", [node(1, "Kaito", "friend")], **intern)[0] == "new"
    # The new coworker the graph already knows as a colleague is that colleague.
    colleague = node(1, "Kenji", "colleague")
    assert decide("Kenji", [colleague], roles=("colleague",), **said)[:2] == ("merge", 1)
    # A new dad is one who just became a father, not someone newly met.
    son = node(1, "Ben Carter", "son", age="28")
    assert decide("Ben", [son], roles=("son",), note="new dad")[:2] == ("merge", 1)
    assert newly_met({"note": "Kenji got a new job"}) == ""


def test_a_youtuber_said_by_name_is_not_the_friend_of_that_name():
    assert "admired" in roles_from_properties({"note": "that YouTuber Jack who reviews keyboards"})
    # A friend who streams is a friend.
    assert "admired" not in roles_from_properties({"note": "my friend Jack is a streamer"})
    friend = node(1, "Jack", "friend", note="climbing friend")
    said = {"note": "that YouTuber Jack who reviews mechanical keyboards"}
    assert decide("Jack", [friend], roles=tuple(roles_from_properties(said)), **said)[0] == "new"


def test_a_handle_reaching_a_person_by_part_of_it_is_asked_unless_the_person_is_named():
    sister = node(1, "Chloé", "sister", note="14, lives in Brussels, obsessed with Roblox")
    said = {"note": "chloé_bxl sent me a friend request on Roblox"}
    assert decide("chloé_bxl", [sister], **said) == ("hold", None, "handle-part")
    kaito = node(1, "Kaito", "friend", note="Discord friend from the Genshin server")
    named = {"note": "Kaito changed his Discord name to kaito_genshin"}
    assert decide("kaito_genshin", [kaito], **named)[:2] == ("merge", 1)
    # A handle against a stored handle is a spelling.
    quokka = node(1, "@quantum_quokka", "friend")
    assert decide("@quantumquokka", [quokka])[:2] == ("merge", 1)


def test_a_name_written_as_one_is_no_description():
    den = node(1, "The Goblin Den", "membership", kind="ORG", note="Discord server")
    clan = {"note": "our Clash of Clans clan 'Goblins' lost the war by one star"}
    assert decide("Goblins", [den], kind="ORG", roles=("membership",), **clan)[0] == "new"
    church = node(1, "St Mary's Church", "membership", kind="ORG")
    said = {"note": "went to church on Sunday"}
    assert decide("church", [church], kind="ORG", roles=("membership",), **said)[:2] == (
        "merge",
        1,
    )


def test_a_remake_of_the_same_name_is_another_thing_a_repair_is_not():
    first = node(1, "Nokia 3310", kind="THING", note="my first phone, 2002")
    remake = {"note": "bought the 2017 remake of the Nokia 3310 as a detox phone"}
    assert decide("Nokia 3310", [first], kind="THING", roles=("possession",), **remake)[0] == (
        "new"
    )
    pixel = node(1, "Pixel 8", "possession", kind="THING")
    repair = {"note": "replaced the battery in my Pixel 8"}
    assert decide("Pixel 8", [pixel], kind="THING", **repair)[:2] == ("merge", 1)


def test_a_lone_name_in_two_scripts_merges_only_with_something_shared():
    ahmed = node(1, "أحمد", "friend", note="friend from Cairo, we game on PC")
    said = {"note": "Ahmed from Cairo sent me a Steam gift card"}
    assert decide("Ahmed", [ahmed], **said) == ("merge", 1, "transliteration-by-context")
    giorgos = node(1, "Γιώργος", "colleague", note="frontend dev in Athens")
    assert decide("Giorgos", [giorgos], roles=("colleague",))[:2] == ("merge", 1)
    # Nothing shared: as likely two people as one.
    assert decide("Maria", [node(1, "Мария")])[0] == "new"
    assert decide("Giorgos", [node(1, "Γιώργος", "colleague")], roles=("cousin",))[0] != "merge"


def test_apps_and_services_by_their_other_names():
    for said, stored in (
        ("the gram", "Instagram"),
        ("Gemini", "Bard"),
        ("Google Workspace", "G Suite"),
        ("k8s", "Kubernetes"),
        ("ドコモ", "docomo"),
        ("Xfinity", "Comcast"),
    ):
        kind = "ORG" if stored in ("docomo", "Comcast") else "THING"
        assert decide(said, [node(1, stored, kind=kind)], kind=kind) == (
            "merge",
            1,
            "known-name",
        ), said


def test_of_two_things_a_description_fits_the_note_may_pick_one():
    series = node(1, "Xbox Series X", "possession", kind="THING", note="under the TV")
    old = node(2, "Xbox 360", "possession", kind="THING", note="boxed up in the attic")
    said = {"note": "plugged the Xbox back in after years in the attic, it still boots"}
    assert decide("the Xbox", [series, old], kind="THING", **said) == (
        "merge",
        2,
        "description-by-context",
    )
    assert decide("the Xbox", [series, old], kind="THING", note="it still boots")[0] == "hold"
    # Not an organisation: a menu or a club run is what any of its kind has.
    secret = node(1, "The Secret Table", kind="ORG", note="supper club run by Hannah")
    ember = node(2, "Ember Supper Club", kind="ORG", note="went twice, fire-cooking menu")
    menu = {"note": "the supper club is doing a Korean menu next month"}
    assert decide("the supper club", [secret, ember], kind="ORG", **menu)[0] == "hold"


def test_a_companys_support_agent_is_not_someone_of_the_users_life():
    brother = node(1, "Raj", "brother", note="younger brother, studies in Pune")
    said = {"note": "the support guy, Raj, said my warranty is void because of a sticker"}
    assert decide("Raj", [brother], roles=tuple(roles_from_properties(said)), **said) == (
        "new",
        None,
        "public-differs",
    )
    agent = {"note": "Vodafone support agent who fixed my SIM"}
    maria = StoredNode(1, "PERSON", "Maria", roles=roles_from_properties(agent), properties=agent)
    assert decide("Maria", [maria], roles=("colleague",), note="Maria from IT at work")[0] == "new"
    # The IT guy at work is a colleague, not a company's support.
    assert "service_agent" not in roles_from_properties({"note": "our IT guy, fixes printers"})


def test_a_cousin_by_a_romance_kin_title():
    cousin = node(1, "primo Andrés", "cousin", note="vive en Medellín")
    assert decide("Andrés", [cousin], roles=("cousin",))[:2] == ("merge", 1)
