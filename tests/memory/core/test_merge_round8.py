"""Round 8 of the naming rules (session 18, from the blind9 and blind10 first runs): a first
name said exactly is still part of a name, a client is not a colleague, where someone works,
a thing's type, the user's own thing against someone else's, and a puppy is a dog."""

from memory.core.descriptions import fits_description, fits_person, someone_elses
from memory.core.merge_properties import (
    affiliation_differs,
    identified_by,
    properties_differ,
    same_letters,
    types_differ,
)
from memory.core.name_heads import one_occasion
from memory.core.person_names import relate_first_names
from memory.core.person_roles import capacities_differ, roles_from_relations
from tests.memory.core.merge_helpers import decide, node


def test_a_first_name_said_exactly_that_reaches_two_people_is_a_question():
    stored = [node(1, "Dave", "neighbour"), node(2, "Dave Miller", "boss")]
    assert decide("Dave", stored) == ("hold", None, "exact-ambiguous")
    # The user's relation picks one of them, the exact namesake or the full name.
    assert decide("Dave", stored, roles=["neighbour"]) == ("merge", 1, "exact-by-role")
    assert decide("Dave", stored, roles=["boss"])[:2] == ("merge", 2)
    # A nickname reaches the other: Jess the friend from uni is Jessica Wong.
    jesses = [node(1, "Jess", "colleague"), node(2, "Jessica Wong", "friend")]
    assert decide("Jess", jesses, roles=["friend"]) == ("merge", 2, "exact-by-role")
    # Alone of its first name, it merges as before.
    assert decide("Dave", [node(1, "Dave", "neighbour")]) == ("merge", 1, "exact")


def test_a_first_name_or_title_said_exactly_with_another_relation_is_a_question():
    # Dr. Patel the GP, and a Dr. Patel who supervises the thesis.
    gp = [node(1, "Dr. Patel", "doctor", role="GP")]
    assert decide("Dr. Patel", gp, roles=["teacher"]) == ("hold", None, "exact-role-differs")
    assert decide("Dr. Patel", gp, roles=["doctor"]) == ("merge", 1, "exact")
    # A full name is more than part of a name: said with another relation, it is the same
    # person described anew (a colleague who became a friend).
    full = [node(1, "Jess Harper", "colleague")]
    assert decide("Jess Harper", full, roles=["friend"]) == ("merge", 1, "exact")


def test_a_client_is_not_the_boss_or_classmate_of_the_same_full_name():
    assert capacities_differ(frozenset({"client"}), frozenset({"boss"}))
    assert capacities_differ(frozenset({"classmate"}), frozenset({"client"}))
    assert not capacities_differ(frozenset({"client"}), frozenset({"client", "friend"}))
    assert not capacities_differ(frozenset({"client"}), frozenset())
    assert not capacities_differ(frozenset({"colleague"}), frozenset({"boss"}))
    boss = [node(1, "Nikhil Sharma", "boss", role="delivery manager")]
    # (The Write reads the role "client" from the properties: ``roles_from_properties``.)
    said = {"roles": ["client"], "role": "client"}
    assert decide("Nikhil Sharma", boss, **said) == ("hold", None, "exact-role-differs")
    assert decide("Nikhil Sharma", boss, role="team lead") == ("merge", 1, "exact")
    client = [node(1, "Amit Patel", "client")]
    assert decide("Amit Patel", client, **said) == ("merge", 1, "exact")


def test_another_company_or_course_asks_about_part_of_a_name_not_a_full_name():
    assert affiliation_differs({"company": "Getir"}, {"company": "Trendyol"})
    assert not affiliation_differs({"company": "Getir Ltd"}, {"company": "Getir"})
    assert not affiliation_differs({"company": "Getir"}, {"city": "Istanbul"})
    ayse = [node(1, "Ayşe Demir", company="Trendyol", role="interviewer")]
    verdict = decide("Ayşe", ayse, company="Getir", role="interviewer")
    assert verdict[:2] == ("hold", None) and verdict[2].endswith("-role-differs")
    assert decide("Ayşe", ayse, company="Trendyol", role="interviewer")[:2] == ("merge", 1)
    smith = [node(1, "Prof. John Smith", "teacher", course="Econ 101")]
    assert decide("Prof. Smith", smith, course="Statistics")[:2] == ("hold", None)
    # The supervisor who moved university, said by her full name: the same person.
    girard = [node(1, "Prof. Hélène Girard", "teacher", university="Sorbonne Université")]
    assert decide("Hélène Girard", girard, university="EPFL")[:2] == ("merge", 1)


def test_a_department_or_an_event_of_another_company_is_another_one():
    assert properties_differ("ORG", {"company": "L'Oréal"}, {"company": "Spotify"})
    assert properties_differ("EVENT", {"company": "KPMG"}, {"company": "Deloitte"})
    assert not properties_differ("PERSON", {"company": "KPMG"}, {"company": "Deloitte"})
    marketing = [node(1, "Marketing department", "member", kind="ORG", company="Spotify")]
    assert decide("marketing department", marketing, kind="ORG", company="L'Oréal")[0] == "new"
    assert decide("marketing department", marketing, kind="ORG", company="Spotify")[:2] == (
        "merge",
        1,
    )
    interview = [node(1, "job interview", kind="EVENT", company="Deloitte")]
    assert decide("job interview", interview, kind="EVENT", company="KPMG")[0] == "new"


def test_a_thing_of_another_stated_type_is_a_question():
    assert types_differ({"type": "web framework"}, {"type": "internal project"})
    assert not types_differ({"type": "novel"}, {"type": "book"})  # one class
    assert not types_differ({"type": "web framework"}, {"type": "framework"})
    assert not types_differ({"type": "web framework"}, {})
    phoenix = [node(1, "Phoenix", kind="THING", type="internal project")]
    assert decide("Phoenix", phoenix, kind="THING", type="web framework") == (
        "hold",
        None,
        "exact-type-differs",
    )
    assert decide("Phoenix", phoenix, kind="THING") == ("merge", 1, "exact")
    # Two known classes are two things, as before: Dune the novel, Dune the film.
    dune = [node(1, "Dune", kind="THING", type="novel")]
    assert decide("Dune", dune, kind="THING", type="film")[0] == "new"


def test_a_name_with_its_kind_word_and_a_namesake_of_another_kind_is_a_question():
    stored = [
        node(1, "Corporate Finance", kind="THING", type="course"),
        node(2, "Corporate Finance exam", kind="EVENT", type="exam"),
    ]
    assert decide("Corporate Finance", stored, kind="EVENT") == (
        "hold",
        None,
        "kind-word-ambiguous",
    )
    assert decide("Corporate Finance", stored[1:], kind="EVENT") == ("merge", 2, "kind-word")


def test_the_users_own_thing_is_not_someone_elses_of_that_description():
    assert someone_elses("my birthday party", "Mia's birthday party")
    assert someone_elses("our car", "Dad’s car")
    assert not someone_elses("the birthday party", "Mia's birthday party")
    assert not someone_elses("my birthday party", "birthday party")
    party = [node(1, "Mia's birthday party", "plans", kind="EVENT")]
    assert decide("my birthday party", party, kind="EVENT")[0] == "new"
    assert decide("the birthday party", party, kind="EVENT") == ("merge", 1, "description")


def test_a_puppy_is_a_dog_and_the_users_pet_is_the_one_meant():
    assert fits_description(("puppy",), ["Biscuit"], {"species": "dog"})
    assert fits_description(("kitten",), ["Miso"], {"species": "cat"})
    assert not fits_description(("puppy",), ["Miso"], {"species": "cat"})
    stored = [
        node(1, "Biscuit", "pet", kind="OTHER", species="dog", age="4 months"),
        node(2, "puppy training class", "school", kind="OTHER"),
    ]
    assert decide("the puppy", stored, kind="OTHER", roles=["pet"], species="dog") == (
        "merge",
        1,
        "description",
    )
    # Nothing said of it: both fit, a question.
    assert decide("the puppy", stored, kind="OTHER")[:2] == ("hold", None)


def test_a_common_noun_of_the_catch_all_kind_is_a_concept():
    # "paintings" (OTHER) is the painting hobby, as for the concept kinds.
    painting = [node(1, "painting", kind="OTHER")]
    assert decide("paintings", painting, kind="OTHER") == ("merge", 1, "number")
    # Not a pet: pets have names, and an animal is no concept (the pet rules judge it).
    pups = [node(1, "puppy", "pet", kind="OTHER", species="dog")]
    assert decide("puppies", pups, kind="OTHER")[2] != "number"
    # Therapy as an OTHER and as a TOPIC; pottery as a TOPIC and as a PREFERENCE.
    therapy = [node(1, "therapy", kind="TOPIC")]
    assert decide("therapy", therapy, kind="OTHER") == ("merge", 1, "concept-kind")
    pottery = [node(1, "pottery", kind="TOPIC")]
    assert decide("pottery", pottery, kind="PREFERENCE") == ("merge", 1, "concept-kind")
    # A proper name typed as two concept kinds stays apart unless a kind is the catch-all.
    pride = [node(1, "Pride", kind="EVENT")]
    assert decide("Pride", pride, kind="TOPIC")[0] == "new"
    # A pet named like a concept is still asked about.
    biscuit = [node(1, "biscuit", "pet", kind="OTHER", species="dog")]
    assert decide("biscuit", biscuit, kind="THING")[:2] == ("hold", None)


def test_a_name_a_property_states_is_the_nodes_other_name():
    assert identified_by("MATH 221", {}, ["linear algebra"], {"code": "MATH 221"})
    assert identified_by("@kdesai99", {}, ["kiran desai"], {"discord": "kdesai99"})
    assert identified_by("linear algebra", {"code": "MATH221"}, ["math 221"], {})
    assert not identified_by("MATH 320", {}, ["linear algebra"], {"code": "MATH 221"})
    assert not identified_by("Linear Algebra", {}, ["real analysis"], {"note": "Linear Algebra"})
    courses = [
        node(1, "Linear Algebra", kind="THING", type="course", code="MATH 221"),
        node(2, "Real Analysis", kind="THING", type="course", code="MATH 320"),
    ]
    assert decide("MATH 221", courses, kind="THING") == ("merge", 1, "identifier")
    desais = [node(1, "Kiran Desai", discord="kdesai99"), node(2, "Kavya Desai")]
    assert decide("kdesai99", desais) == ("merge", 1, "identifier")


def test_the_same_letters_without_spaces_is_one_name_of_a_thing_not_of_a_person():
    assert same_letters("websummit", "web summit") and same_letters("h1b", "h-1b")
    assert not same_letters("ab", "a b")  # too short to tell
    summit = [node(1, "Web Summit", kind="EVENT", city="Lisbon")]
    assert decide("websummit", summit, kind="EVENT") == ("merge", 1, "spelling")
    # People's names are left to the person rules (Mary Ann and Maryann may be two people).
    assert decide("Maryann", [node(1, "Mary Ann")])[2] != "spelling"


def test_conferences_tools_and_subjects_are_said_by_their_initials():
    stored = [
        node(1, "International Conference on Machine Learning", "school", kind="EVENT"),
        node(2, "ICLR", kind="EVENT"),
    ]
    assert decide("ICML", stored, kind="EVENT") == ("merge", 1, "acronym")
    topics = [node(1, "machine learning", kind="TOPIC")]
    # Two letters alone, of nothing the user has a tie to: asked.
    assert decide("ML", topics, kind="TOPIC") == ("hold", None, "acronym")


def test_a_hackathon_said_with_its_kind_word():
    stored = [
        node(1, "ETHGlobal Bangkok", kind="EVENT"),
        node(2, "ETHGlobal Brussels", kind="EVENT"),
    ]
    assert decide("ETHGlobal Bangkok hackathon", stored, kind="EVENT") == ("merge", 1, "kind-word")


def test_the_company_said_picks_among_people_of_one_first_name():
    linas = [
        node(1, "Lina Haddad", "colleague", role="UX researcher"),
        node(2, "Lina Petrenko", role="client contact", company="Monobank"),
    ]
    assert decide("Lina", linas, company="Monobank") == ("merge", 2, "first-name-by-affiliation")
    # Another company, or none said: still a question.
    assert decide("Lina", linas, company="Kyivstar")[:2] == ("hold", None)
    assert decide("Lina", linas)[:2] == ("hold", None)


def test_the_relation_settles_a_near_tie_when_the_other_is_known_as_something_else():
    # Rob the friend: Robert the friend, not Bob the neighbour.
    stored = [node(1, "Robert", "friend"), node(2, "Bob", "neighbour")]
    assert decide("Rob", stored, roles=["friend"]) == ("merge", 1, "nickname-by-role")
    # Bob known as nothing: he may be the friend too.
    assert decide("Rob", [node(1, "Robert", "friend"), node(2, "Bob")], roles=["friend"])[:2] == (
        "hold",
        None,
    )


def test_a_name_said_without_the_kinship_title_it_is_stored_with():
    stored = [node(1, "Uncle Pete", "uncle", city="Derby"), node(2, "Hannah", "cousin")]
    assert decide("Pete", stored, roles=["uncle"])[:2] == ("merge", 1)


def test_a_colleague_promoted_to_boss_is_the_same_person():
    marta = [node(1, "Marta Nowak", "colleague", role="QA analyst", city="Wrocław")]
    assert decide("Marta", marta, roles=["boss"], role="QA lead") == ("merge", 1, "first-name")
    # The boss said now as a colleague is more likely a new colleague: asked.
    matt = [node(1, "Matt Patterson", "boss")]
    assert decide("Matt", matt, roles=["colleague"]) == ("hold", None, "first-name-role-differs")
    # A colleague said now as a friend is still asked about (round 8: Jess the colleague).
    jess = [node(1, "Jess", "colleague")]
    assert decide("Jess", jess, roles=["friend"]) == ("hold", None, "exact-role-differs")


def test_a_person_described_by_a_role_and_what_tells_them_apart():
    teacher = [node(1, "Priya", "teacher", role="yoga teacher"), node(2, "Sam", "teacher")]
    said = {"roles": ["teacher"], "role": "yoga teacher"}
    assert decide("my yoga teacher", teacher, **said) == ("merge", 1, "description")
    sisters = [node(1, "Emma", "sister", city="Glasgow"), node(2, "Chloe", "sister", city="Bath")]
    assert decide("my sister in Glasgow", sisters, roles=["sister"])[:2] == ("merge", 1)
    assert decide("my sister in Leeds", sisters, roles=["sister"])[0] != "merge"
    # A role no relation names: the one person whose stated role it is.
    doctors = [node(1, "Dr Okafor", "doctor", role="GP"), node(2, "Rachel", role="counsellor")]
    assert decide("my GP", doctors, roles=["doctor"]) == ("merge", 1, "description")
    # Free-text notes are not read: "my friend from yoga" is not the friend met at yoga.
    friends = [node(1, "Luna", "friend", note="met at yoga"), node(2, "Jake", "friend")]
    assert decide("my friend from yoga", friends, roles=["friend"])[0] != "merge"
    assert fits_person(("yoga", "teacher"), {"teacher"}, {"role": "yoga teacher"})
    assert not fits_person(("yoga", "teacher"), {"teacher"}, {"note": "yoga teacher"})


def test_a_place_or_thing_described_by_the_users_tie_to_it():
    places = [
        node(1, "Hebden Bridge", "hometown", kind="PLACE"),
        node(2, "Leeds", "home", kind="PLACE"),
    ]
    assert decide("my hometown", places, kind="PLACE", roles=["hometown"]) == (
        "merge",
        1,
        "description",
    )
    things = [
        node(1, "iPhone 13 Pro", "possession", kind="THING", type="phone"),
        node(2, "iPad Air", "possession", kind="THING", type="tablet"),
    ]
    assert decide("my iPhone", things, kind="THING", roles=["possession"]) == (
        "merge",
        1,
        "description",
    )


def test_a_title_said_by_the_part_before_or_after_its_colon():
    games = [
        node(1, "Zelda: Breath of the Wild", kind="THING", type="game"),
        node(2, "Mario Kart 8", kind="THING", type="game"),
    ]
    assert decide("Breath of the Wild", games, kind="THING") == ("merge", 1, "title-part")
    assert decide("Tears of the Kingdom", games, kind="THING")[0] == "new"
    two = [*games, node(3, "Zelda: Tears of the Kingdom", kind="THING", type="game")]
    assert decide("Zelda", two, kind="THING") == ("hold", None, "title-part-ambiguous")
    course = [node(1, "CS50: Introduction to Computer Science", kind="THING", type="course")]
    assert decide("CS50", course, kind="THING") == ("merge", 1, "title-part")
    # Not for people.
    assert decide("Ana", [node(1, "Ana: the baker")])[2] != "title-part"


def test_the_british_z_pet_form():
    assert relate_first_names("gaz", "gareth") == "pet-form"
    assert relate_first_names("shaz", "sharon") == "pet-form"
    assert relate_first_names("oz", "oscar") is None  # two letters: too short to tell
    assert relate_first_names("liz", "lizzie") != "pet-form"  # a z of its own
    assert relate_first_names("gaz", "garry") == "pet-form"
    assert relate_first_names("gaz", "gabriel") is None  # not cut after a vowel
    assert decide("Gaz", [node(1, "Gareth Jones", "friend")]) == ("merge", 1, "pet-form")


def test_one_occasion_of_people_named_more_or_less_fully():
    assert one_occasion("sarah's wedding", "sarah and ben's wedding")
    assert one_occasion("grandpa's funeral", "grandpa joe's funeral")
    assert one_occasion("tunde & bisi's wedding", "tunde's wedding")
    assert not one_occasion("sarah's wedding", "sarah and ben's engagement party")
    assert not one_occasion("sarah's wedding", "ben's wedding")
    assert not one_occasion("sarah's wedding", "sarah's wedding")  # the exact rule's
    weddings = [
        node(1, "Sarah and Ben's wedding", kind="EVENT"),
        node(2, "Tom's wedding", kind="EVENT"),
    ]
    assert decide("Sarah's wedding", weddings, kind="EVENT") == ("merge", 1, "possessor")


def test_abbreviations_with_an_ampersand_and_titles_without_their_the():
    # Two letters alone stay a question, unless the user has a tie to it.
    pg = [node(1, "Procter & Gamble", kind="ORG")]
    assert decide("P&G", pg, kind="ORG") == ("hold", None, "acronym")
    employer = [node(1, "Marks & Spencer", "workplace", kind="ORG")]
    assert decide("M&S", employer, kind="ORG") == ("merge", 1, "acronym")
    books = [node(1, "The Lord of the Rings", kind="THING", type="book")]
    assert decide("LOTR", books, kind="THING") == ("merge", 1, "acronym")


def test_a_profession_title_picks_the_one_whose_stated_role_it_is():
    lis = [
        node(1, "Li Wei", "teacher", role="professor", university="Fudan University"),
        node(2, "Li Na", role="classmate"),
    ]
    assert decide("Professor Li", lis) == ("merge", 1, "title")
    # Nobody's role says it: a question, as before.
    unknown = [node(1, "Li Wei", role="engineer"), node(2, "Li Na", role="classmate")]
    assert decide("Professor Li", unknown)[:2] == ("hold", None)


def test_a_new_role_at_the_same_place_is_a_career_not_another_person():
    ta = [node(1, "Bilal Qureshi", role="TA", university="LUMS")]
    assert decide("Dr. Bilal Qureshi", ta, role="lecturer", university="LUMS") == (
        "merge",
        1,
        "title",
    )
    # Without the place said on both sides, a role sharing no word is still asked about.
    tariq = [node(1, "Tariq Hussain", role="software engineer")]
    assert decide("Tariq", tariq, role="plumber") == ("hold", None, "first-name-role-differs")


def test_middle_names_left_out_of_a_name_spelt_otherwise():
    assert decide("Muhammad Khan", [node(1, "Mohammed Ali Khan")]) == ("merge", 1, "middle-name")
    assert decide("Liz Taylor", [node(1, "Elizabeth Rose Taylor")]) == ("merge", 1, "middle-name")
    # Another surname is another person, whatever the first names.
    assert decide("Muhammad Khan", [node(1, "Mohammed Ali Shah")])[0] == "new"


def test_what_the_user_belongs_to_said_by_its_brand_or_a_common_noun():
    assert roles_from_relations([("MEMBER_OF", False)]) == frozenset({"membership"})
    gym = [node(1, "PureGym Leeds City Centre", "membership", kind="ORG", type="gym")]
    assert decide("PureGym", gym, kind="ORG", roles=["membership"]) == ("merge", 1, "own-place")
    orgs = [
        node(1, "Grace Community Church", "membership", kind="ORG"),
        node(2, "Springfield Public Library", kind="ORG"),
    ]
    # (The Write capitalises an organisation's lower-case name: "church" arrives as "Church".)
    assert decide("Church", orgs, kind="ORG", roles=["membership"]) == ("merge", 1, "description")
    # Without the tie said, a common noun is no description: a question at most.
    assert decide("Church", orgs, kind="ORG")[0] != "merge"
    # Moving to Dublin is not the Dublin office, to which the user has no tie.
    office = [node(1, "Dublin office", kind="PLACE", type="office")]
    assert decide("Dublin", office, kind="PLACE", roles=["home"])[0] != "merge"


def test_a_person_described_as_someone_elses():
    stored = [node(1, "Leo", "son", age=7), node(2, "Miss Clarke", role="Leo's teacher")]
    # (The Write capitalises a person's lower-case name.)
    assert decide("Leo's Teacher", stored) == ("merge", 2, "description")
    assert decide("Mia's Teacher", stored)[0] == "new"
