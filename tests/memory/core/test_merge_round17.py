"""Round 17 of the naming rules (session 23): what the twentieth and twenty-first blind sets
and the leftovers of the earlier ones showed."""

from memory.core.descriptions import description_words
from memory.core.merge_properties import (
    met_elsewhere,
    noted_species,
    occasions_differ,
    whose,
    with_noted_species,
)
from memory.core.merge_types import StoredNode
from memory.core.person_names import parse_person
from memory.core.person_roles import (
    newly_met,
    roles_from_properties,
    roles_from_relations,
    someone_elses_kin,
)
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


# Round 19, from blind21's first run (animals, children and learning).


def test_an_animal_a_note_calls_another_species_or_another_of_the_name():
    goat = node(1, "Bessie", "possession", kind="OTHER", species="goat")
    cow = {"note": "my gran had a cow called Bessie on her farm in the seventies"}
    assert decide("Bessie", [goat], kind="OTHER", **cow) == ("new", None, "properties-differ")
    beagle = node(1, "Biscuit", "possession", kind="OTHER", species="dog")
    also = {"note": "Noah's family's cat is also called Biscuit, the kids think that's funny"}
    assert decide("Biscuit", [beagle], kind="OTHER", **also)[0] == "new"
    barsik = node(1, "Барсик", "possession", kind="OTHER", species="cat")
    neighbours = {"note": "у соседей тоже кот Барсик, только рыжий"}
    assert decide("Барсик", [barsik], kind="OTHER", **neighbours)[0] == "new"
    # The user's own, spoken of: the one animal.
    walk = {"note": "took Biscuit for a long walk"}
    assert decide("Biscuit", [beagle], kind="OTHER", **walk)[:2] == ("merge", 1)
    assert with_noted_species("storm", {"note": "named her new hamster Storm too"}) == {
        "note": "named her new hamster Storm too",
        "species": "rodent",
    }


def test_an_animal_that_died_is_not_the_one_described_now():
    pumpkin = node(1, "Pumpkin", kind="OTHER", species="hamster", note="died September 2025")
    said = {"note": "the hamster keeps us up all night on his wheel"}
    assert decide("the hamster", [pumpkin], kind="OTHER", **said)[0] == "new"
    remembered = {"note": "still miss the hamster, he died last year"}
    assert decide("the hamster", [pumpkin], kind="OTHER", **remembered)[:2] == ("merge", 1)
    milo = node(1, "Milo", kind="OTHER", species="cat", note="our cat, died 2024")
    settling = {"note": "Milo's settling in really well, he already owns the sofa"}
    assert decide("Milo", [milo], kind="OTHER", **settling)[0] == "new"


def test_a_first_name_from_a_group_nothing_held_of_the_person_mentions_is_asked():
    teacher = node(1, "Yuki", role="Hana's violin teacher")
    said = {"note": "Yuki from Hana's class is coming over to play after school"}
    assert decide("Yuki", [teacher], **said)[0] == "hold"
    assert met_elsewhere("Kenji", {"note": "my colleague Kenji from accounts"}, {"role": "tandem"})
    # Something held of them names the group: the one person.
    steam = node(1, "Vlad", "friend", note="Steam friend from Romania, we play CS2")
    assert decide("Vlad", [steam], note="Vlad from CS2 gifted me a knife skin")[:2] == ("merge", 1)
    # Work is where a colleague is from.
    assert not met_elsewhere("Tom", {"note": "Tom from work"}, {"role": "colleague"})
    # A first name respelled is weighed as the name itself.
    partner = node(1, "María", role="intercambio partner from Madrid")
    pilates = {"note": "Maria from my Pilates class wants to start a book club"}
    assert decide("Maria", [partner], **pilates)[0] == "hold"


def test_someone_new_in_a_role_the_stored_role_does_not_name():
    coach = node(1, "Coach Lee", role="Ruby's swimming coach")
    said = {"note": "Mr Lee, Ruby's new maths teacher, is really strict"}
    assert decide("Mr Lee", [coach], **said)[0] == "new"
    teacher = node(1, "Rachel Moore", role="Year 1 class teacher")
    ta = {"note": "Miss Rachel is the new teaching assistant in Year 1"}
    assert decide("Miss Rachel", [teacher], **ta)[0] == "new"


def test_someone_spoken_of_as_unknown_is_asked():
    ali = node(1, "Mr Ali", role="Mia's Year 5 teacher at Oakwood")
    said = {"note": "Mia's new school has a Mr Ali teaching Year 6, small world"}
    assert decide("Mr Ali", [ali], **said) == ("hold", None, "indefinite")
    # Another language's article is not "a": "a Dra. Souza" is the Dra. Souza.
    souza = node(1, "Dra. Fernanda Souza", "doctor")
    pt = {"note": "a Dra. Souza pediu novos exames de tireoide"}
    assert decide("Dra. Souza", [souza], **pt)[:2] == ("merge", 1)


def test_a_short_name_the_world_gives_another_entity_is_asked():
    uclan = node(1, "University of Central Lancashire", "school", kind="ORG", city="Preston")
    said = {"note": "my friend just got into UCL in London"}
    assert decide("UCL", [uclan], kind="ORG", **said) == ("hold", None, "known-elsewhere")
    tcd = node(1, "Trinity College Dublin", "school", kind="ORG")
    cambridge = {"note": "my son got an offer from Trinity, Cambridge!!"}
    assert decide("Trinity", [tcd], kind="ORG", **cambridge)[0] == "hold"
    # Said of the user's own, with nothing naming the other: the user's own.
    assert decide("Trinity", [tcd], kind="ORG", note="graduation photos")[:2] == ("merge", 1)
    ou = node(1, "The Open University", "school", kind="ORG")
    assert decide("OU", [ou], kind="ORG", note="my cousin plays for OU in Norman, Oklahoma")[0] == (
        "hold"
    )
    assert decide("OU", [ou], kind="ORG", note="my OU essay is due")[:2] == ("merge", 1)
    # A short name the stored one says in so many words is its own (California DMV).
    dmv = node(1, "California DMV", kind="ORG")
    assert decide("the DMV", [dmv], kind="ORG")[:2] == ("merge", 1)


def test_an_event_booked_again_after_one_that_happened_is_another():
    failed = node(1, "driving test", kind="EVENT", date="2025-10-14", note="failed on a roundabout")
    said = {"note": "rebooked my driving test for 3 March, fingers crossed"}
    assert decide("driving test", [failed], kind="EVENT", **said)[0] == "new"
    ahead = node(1, "Hip operation", kind="EVENT", date="2026-03-02")
    rebooked = {"note": "the hospital cancelled it and rebooked for May"}
    assert decide("hip operation", [ahead], kind="EVENT", **rebooked)[:2] == ("merge", 1)


def test_an_organisation_said_without_its_kind_and_the_words_that_qualify_it():
    for said, stored in (
        ("Little Acorns", "Little Acorns Day Nursery"),
        ("Hills Road", "Hills Road Sixth Form College"),
        ("Oakfield", "Oakfield Livery Yard"),
        ("Dolphins", "Dolphins Swim Club"),
        ("Pawfect", "Pawfect Grooming"),
    ):
        assert decide(said, [node(1, stored, kind="ORG")], kind="ORG") == (
            "merge",
            1,
            "kind-word",
        ), said
    # Not a word that names something else of it ("Chicago Bears").
    assert decide("Chicago", [node(1, "Chicago Bears", kind="ORG")], kind="ORG")[0] != "merge"


def test_what_people_call_the_animals_they_own():
    momo = node(1, "Momo", "possession", kind="OTHER", species="cat")
    mimi = node(2, "Mimi", "possession", kind="OTHER", species="cat")
    assert decide("Mo", [momo, mimi], kind="OTHER") == ("merge", 1, "pet-name")
    whiskers = node(1, "Mr Whiskers", "possession", kind="OTHER", species="cat")
    assert decide("Whisky", [whiskers], kind="OTHER")[:2] == ("merge", 1)
    storm = node(1, "Storm", "possession", kind="OTHER", species="horse")
    assert decide("Stormy", [storm], kind="OTHER")[:2] == ("merge", 1)
    reggie = node(1, "Sir Reginald Fluffington", "possession", kind="OTHER", species="cat")
    assert decide("Reg", [reggie], kind="OTHER")[:2] == ("merge", 1)
    # Two animals it fits: asked or left; a thing of the name is no animal.
    mochi = node(2, "Mochi", "possession", kind="OTHER", species="cat")
    assert decide("Mo", [momo, mochi], kind="OTHER")[0] != "merge"
    assert decide("Mo", [node(1, "Momo", kind="OTHER")], kind="OTHER")[0] != "merge"


def test_a_title_and_a_surnames_initial():
    kowalski = node(1, "Mr Kowalski", role="Jake's piano teacher")
    assert decide("Mr K", [kowalski]) == ("merge", 1, "title-initial")
    thompson = node(1, "Sarah Thompson", role="Josh's Year 4 teacher", gender="f")
    assert decide("Miss T", [thompson])[:2] == ("merge", 1)
    # Two it fits are asked about; a title of the other gender does not fit.
    kelly = node(2, "Mr Kelly")
    assert decide("Mr K", [kowalski, kelly])[0] == "hold"
    assert decide("Mrs K", [kowalski])[0] != "merge"


# Round 20, from blind23's first run (love, friendship and life's milestones).


def test_someone_else_of_the_same_name_by_what_the_note_says():
    friend = node(1, "Zhang Wei", "friend", city="Shenzhen")
    cousin = {"note": "my wife's cousin, also called Zhang Wei, lives in Harbin"}
    assert decide("Zhang Wei", [friend], **cousin) == ("new", None, "properties-differ")
    daughter = node(1, "Amara", "daughter", note="born 2023")
    newborn = {"note": "my friend Tolu named her newborn Amara after my daughter"}
    assert decide("Amara", [daughter], **newborn)[0] == "new"
    partner = node(1, "Priya Raman", "partner_f", city="Bengaluru")
    wife = {"note": "my friend Ankit's wife Priya is pregnant with twins"}
    assert decide("Priya", [partner], **wife)[0] == "new"
    assert someone_elses_kin("Priya", wife) == "partner_f"
    # The user's own, spoken of: the one person.
    assert decide("Priya", [partner], note="Priya is pregnant with twins")[:2] == ("merge", 1)


def test_a_childs_age_in_a_note_makes_a_minor():
    assert "minor" in roles_from_properties({"note": "daughter of my friend Ben, 4 years old"})
    assert "minor" not in roles_from_properties({"note": "turned 40 years old in May"})
    lily = StoredNode(
        1, "PERSON", "Lily", roles=roles_from_properties({"note": "Ben's daughter, 4 years old"})
    )
    said = {"note": "Lily, my new colleague, invited me to her housewarming"}
    assert decide("Lily", [lily], **said)[0] == "new"


def test_his_sister_is_not_the_users_sister():
    camille = node(1, "Camille Moreau", note="Lucas's sister")
    ines = node(2, "Inès", "sister")
    assert decide("his sister", [camille, ines]) == ("merge", 1, "description")
    assert decide("his sister", [ines]) == ("new", None, "someone-elses")


def test_kinship_words_in_two_parts_and_in_other_languages():
    assert decide("my mother-in-law", [node(1, "Carmen Ruiz", "mother_in_law")])[:2] == (
        "merge",
        1,
    )
    assert decide("my half-sister", [node(1, "Maya", "half_sister")])[:2] == ("merge", 1)
    assert decide("mein Mann", [node(1, "Jens Müller", "partner_m")])[:2] == ("merge", 1)
    assert decide("suegra", [node(1, "Consuelo Ortega", "mother_in_law")])[:2] == ("merge", 1)
    assert decide("mi madrina", [node(1, "Tía Marisol", "godmother")])[:2] == ("merge", 1)
    assert decide("my sponsor", [node(1, "Frank", "sponsor")])[:2] == ("merge", 1)
    # Words that only look like it stay apart ("the grand canyon", "my great idea").
    assert description_words("the grand canyon") == ("grand", "canyon")
    # A godmother called "Auntie" is called so as family is.
    fiona = node(1, "Fiona McLeod", "godmother")
    assert decide("Auntie Fi", [fiona], kind="PERSON")[:2] == ("merge", 1)


def test_a_person_noted_by_a_role_a_description_may_find():
    individual = node(1, "Dr. Helen Park", "therapist", note="my individual therapist")
    couples = node(2, "Marta Silva", note="our couples therapist")
    assert decide("the therapist", [individual, couples])[0] == "hold"


def test_an_event_planned_after_one_with_a_day_is_another():
    tenth = node(1, "10th wedding anniversary", kind="EVENT", date="2024-08-02")
    said = {"note": "for our anniversary this August we're thinking Lisbon"}
    assert decide("our anniversary", [tenth], kind="EVENT", roles=("planned",), **said)[0] == "new"
    evening = node(1, "Parents' evening", kind="EVENT", date="2025-11-12")
    spring = {"note": "the spring parents' evening is booked for 18 March"}
    assert decide("parents' evening", [evening], kind="EVENT", **spring)[0] == "new"


def test_fellowships_of_one_pattern_are_not_one_another():
    aa = node(1, "Alcoholics Anonymous", "membership", kind="ORG")
    assert decide("Al-Anon", [aa], kind="ORG", note="my wife started going to Al-Anon")[0] == (
        "hold"
    )


# Round 21, from blind22 (digital life, another writer) after it had been measured untuned
# after rounds 18, 19 and 20.


def test_a_lone_given_name_with_nothing_shared_is_asked():
    driver = node(1, "Ahmed", note="the Uber driver who brought back the phone I left")
    said = {"note": "Ahmed fixed my laptop for 20 euros"}
    assert decide("Ahmed", [driver], **said) == ("hold", None, "exact-unconnected")
    # A telling word shared, a relation said, or nothing noted on either side: the one.
    assert decide("Ahmed", [driver], note="Ahmed the Uber driver waved at me")[:2] == (
        "merge",
        1,
    )
    assert decide("Ahmed", [node(1, "Ahmed")], **said)[:2] == ("merge", 1)
    # A title and a surname is more than a given name.
    secretary = node(1, "Mr. Okafor", role="allotment secretary", note="runs the committee")
    troughs = {"note": "Mr Okafor says the water troughs are being switched off"}
    assert decide("Mr Okafor", [secretary], **troughs)[:2] == ("merge", 1)


def test_a_species_said_as_a_name_is_an_animal_not_a_subject():
    language = node(1, "Python", kind="TOPIC")
    said = {"note": "held a real python at the reptile zoo, it was heavy"}
    assert decide("python", [language], kind="OTHER", **said)[0] != "merge"
    # A common noun of the catch-all kind is still a concept ("therapy").
    assert decide("therapy", [node(1, "Therapy", kind="TOPIC")], kind="OTHER")[:2] == (
        "merge",
        1,
    )


# Round 22, from blind24's first run (student and young-adult life).


def test_stacked_titles_are_one_title():
    assert parse_person("prof. dr. klaus weber") == parse_person("prof. klaus weber")
    weber = node(1, "Prof. Dr. Klaus Weber", "supervisor")
    assert decide("Herr Weber", [weber])[:2] == ("merge", 1)
    # Frau is a woman's title, Klaus a man's name.
    assert decide("Frau Weber", [weber])[0] == "new"
    assert decide("mein Betreuer", [weber], roles=("supervisor",))[:2] == ("merge", 1)


def test_a_title_of_courtesy_against_one_of_a_profession_is_asked():
    landlord = node(1, "Mr Okonkwo", "landlord", note="landlord of our student house")
    said = {"note": "Dr Okonkwo's seminar on West African history was great"}
    assert decide("Dr Okonkwo", [landlord], **said) == ("hold", None, "titles-differ")
    assert decide("Mr Okonkwo", [landlord])[:2] == ("merge", 1)


def test_a_department_of_another_university_is_another():
    heidelberg = node(
        1, "Department of Physics", "school", kind="ORG", university="Heidelberg University"
    )
    oxford = {"university": "University of Oxford"}
    assert decide("Department of Physics", [heidelberg], kind="ORG", **oxford)[0] == "new"


def test_someone_elses_occasion_by_the_note():
    mine = node(1, "graduation", "went", kind="EVENT", note="my BA graduation in Leeds")
    said = {"note": "my sister's graduation in Glasgow is next month"}
    assert decide("graduation", [mine], kind="EVENT", **said)[0] == "new"
    assert whose(said, name="graduation") == "sister"


def test_an_animal_a_note_gives_another_species_than_the_stored_note():
    cat = node(1, "Biscuit", kind="OTHER", note="the college cat at St Hugh's")
    said = {"note": "my parents got a new puppy called Biscuit"}
    assert decide("Biscuit", [cat], kind="OTHER", **said)[0] == "new"
    assert noted_species({"note": "the college cat at St Hugh's"}) == "cat"
    assert noted_species({"note": "chases the cat, barks at the dog"}) is None


def test_a_short_name_the_stored_one_carries_is_asked_when_the_note_names_another():
    manipal = StoredNode(
        1, "ORG", "Manipal Institute of Technology", aliases=("MIT Manipal",), roles=frozenset()
    )
    boston = {"note": "applying to MIT in Cambridge, Massachusetts for my PhD"}
    assert decide("MIT", [manipal], kind="ORG", **boston)[0] == "hold"
    assert decide("MIT", [manipal], kind="ORG", note="back to MIT for the reunion")[:2] == (
        "merge",
        1,
    )


# Round 23, from blind25's first run (working life outside offices).


def test_an_animal_called_the_name_too_is_another_whoever_owns_the_stored_one():
    client_dog = node(1, "Biscuit", kind="OTHER", note="Mrs Lowry's cockapoo, groom every 6 weeks")
    ours = {"note": "our new puppy, we've called him Biscuit too!"}
    assert decide("Biscuit", [client_dog], kind="OTHER", roles=("possession",), **ours)[0] == (
        "new"
    )
    collie = node(1, "Bess", "possession", kind="OTHER", species="border collie", note="my dog")
    cow = {"note": "cow 214, we call her Bess, calved twins overnight"}
    assert decide("Bess", [collie], kind="OTHER", **cow)[0] == "new"
    assert noted_species({"species": "border collie", "note": "my working dog"}) == "dog"


def test_a_relation_said_picks_against_a_stated_role_of_another_relation():
    pub = node(1, "Terry", "boss", role="landlord of the Red Lion")
    said = {"note": "my landlord's putting the rent on my flat up £75"}
    assert decide("my landlord", [pub], roles=("landlord",), **said)[0] == "new"
    assert decide("the landlord", [pub])[:2] == ("merge", 1)


def test_the_year_an_events_name_ends_in_is_its_time():
    harvest = node(1, "vendanges 2024", "went", kind="EVENT", place="Champagne")
    said = {"note": "je repars pour les vendanges en septembre", "date": "2025-09"}
    assert decide("les vendanges", [harvest], kind="EVENT", **said)[0] == "new"
