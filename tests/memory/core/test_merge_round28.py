"""The 28th round of merge rules (issue 21, session 26), from blind sets 32 (rural life), 33
(public life) and 34 (military and uniformed services), read after their unread runs:
ranks said as titles, kinship words and courtesies of more languages, a person said by a
trade ("the AI man"), and a place or thing of one name that is someone else's. Pure
functions; the Write path runs them through ``bench_merge`` on every labelled set."""

import pytest

from memory.core.merge_properties import someone_elses_named
from memory.core.person_names import parse_person, rank_of
from tests.memory.core.merge_helpers import decide, node


@pytest.mark.parametrize(
    ("name", "title", "words", "rank"),
    [
        ("c/sgt ainsworth", "sgt", ("ainsworth",), "colour sergeant"),
        ("colour sergeant ainsworth", "sergeant", ("ainsworth",), "colour sergeant"),
        ("lt col dana whitaker", "lt", ("dana", "whitaker"), "lieutenant colonel"),
        ("sqn ldr hart", "ldr", ("hart",), "squadron leader"),
        ("airman first class jordan lee", "airman", ("jordan", "lee"), "airman first class"),
        ("rsm hollis", "rsm", ("hollis",), "wo1"),
        ("po sarah quinn", "po", ("sarah", "quinn"), "petty officer"),
        # Two letters that are also a nickname are a rank only before a full name.
        ("di smith", "", ("di", "smith"), ""),
        # A courtesy is no rank; words that make a rank are no title alone.
        ("mr patterson", "mr", ("patterson",), ""),
        ("first class", "", ("first", "class"), ""),
    ],
)
def test_ranks_are_titles(name, title, words, rank):
    parsed = parse_person(name)
    assert (parsed.title, parsed.words) == (title, words)
    assert rank_of(name) == rank


def test_a_rank_and_a_surname_is_the_one_person_of_that_surname():
    hollis = node(1, "WO1 Dave Hollis", note="my RSM at Catterick")
    assert decide("RSM Hollis", [hollis]) == ("merge", 1, "title")
    okoro = node(1, "Capt. James Okoro")
    assert decide("Captain Okoro", [okoro])[:2] == ("merge", 1)
    nowak = node(1, "Tomasz Nowak", note="our platoon commander")
    assert decide("porucznik Nowak", [nowak]) == ("merge", 1, "title")


def test_another_rank_of_one_surname_is_a_question_unless_a_promotion_is_told():
    tate = node(1, "Sheriff Tate")
    assert decide("Deputy Tate", [tate]) == ("hold", None, "ranks-differ")
    okafor = node(1, "Staff Sergeant Okafor")
    assert decide("Sergeant Major Okafor", [okafor])[2] == "ranks-differ"
    weber = node(1, "Hauptmann Weber")
    said = {"note": "Weber, my old company commander, is now a Major"}
    assert decide("Major Weber", [weber], **said)[:2] == ("merge", 1)


def test_a_friend_is_not_spoken_of_by_a_rank():
    reyes = node(1, "Daniel Reyes", "friend", note="friend, police officer in Sacramento")
    assert decide("Officer Reyes", [reyes])[:3] == ("hold", None, "ranks-differ")
    # A relative said by a first name is not the one the user knows by a rank.
    grant = node(1, "Sgt Ashley Grant", note="my section sergeant")
    assert decide("Ash", [grant], roles={"brother_in_law"})[0] == "hold"


@pytest.mark.parametrize(
    ("said", "relation"),
    [
        ("Mam", "mother"),
        ("Mammy", "mother"),
        ("Taid", "grandfather"),
        ("Mémé", "grandmother"),
        ("Dadaji", "grandfather"),
        ("obaachan", "grandmother"),
        ("la nonna", "grandmother"),
    ],
)
def test_kinship_words_of_more_languages(said, relation):
    kin = node(1, "Rosa Bianchi", relation)
    assert decide(said, [kin]) == ("merge", 1, "kinship")


def test_pop_with_a_father_and_a_father_in_law_is_a_question():
    father = node(1, "Walter Green", "father")
    in_law = node(2, "Frank Russo", "father_in_law")
    assert decide("Pops", [father])[:2] == ("merge", 1)
    assert decide("Pops", [father, in_law])[0] == "hold"


def test_courtesies_before_a_given_name():
    aurelio = node(1, "Aurelio Benítez", role="foreman")
    assert decide("Don Aurelio", [aurelio]) == ("merge", 1, "first-name")
    ion = node(1, "Ion Popescu", "neighbour")
    assert decide("Nea Ion", [ion])[:2] == ("merge", 1)
    giorgos = node(1, "Giorgos Papadakis", "neighbour")
    assert decide("Κυρ Γιώργος", [giorgos])[:2] == ("merge", 1)
    # Don before a name that is no given name is a Don.
    assert parse_person("don smithers").title == ""


def test_a_courtesy_uncle_in_turkish_or_afrikaans_is_asked_about_a_neighbour():
    mehmet = node(1, "Mehmet Yılmaz", "neighbour", note="hazelnut orchard near Ordu")
    # Amca was a contradiction (an uncle is no neighbour): now a question.
    assert decide("Mehmet Amca", [mehmet])[0] == "hold"
    koos = node(1, "Koos van der Merwe", "neighbour")
    assert decide("Oom Koos", [koos])[0] == "hold"


def test_a_person_said_by_a_trade_or_an_employer():
    scanner = node(1, "Ian Robson", role="sheep scanner", note="scans our ewes every January")
    assert decide("the scanning man", [scanner]) == ("merge", 1, "description")
    adviser = node(1, "Declan Fitzgerald", role="adviser", note="our Teagasc adviser")
    assert decide("the Teagasc man", [adviser]) == ("merge", 1, "description")
    vet = node(1, "Dr Claire Besson", "vet", role="vet")
    assert decide("la véto", [vet]) == ("merge", 1, "description")
    mayor = node(1, "Bernard Chauvin", role="mayor")
    assert decide("le maire", [mayor]) == ("merge", 1, "description")
    # A trade no one is known by is nobody stored.
    assert decide("the gas man", [scanner, adviser])[0] == "new"


def test_someone_elses_place_or_thing_of_the_users_name():
    note = "the Hendersons have put their Top Field into winter wheat"
    assert someone_elses_named("Top Field", {"note": note}, kin=False)
    # A relative's is the family's.
    assert not someone_elses_named("Land Rover", {"note": "Dad's Land Rover"}, kin=False)
    assert someone_elses_named("Land Rover", {"note": "Dad's Land Rover"}, kin=True)
    field = node(1, "Top Field", "possession", kind="PLACE", note="our field above the yard")
    assert decide("Top Field", [field], kind="PLACE", note=note)[0] == "new"
    assert decide("Top Field", [field], kind="PLACE", note="ploughed Top Field")[0] == "merge"
    medal = node(1, "Purple Heart", kind="THING", note="Dad's Purple Heart from Khe Sanh")
    mine = {"note": "got my own Purple Heart today"}
    assert decide("Purple Heart", [medal], kind="THING", roles={"possession"}, **mine)[0] == "new"


def test_someone_elses_animal_said_with_words_between():
    nell = node(1, "Nell", "pet", kind="OTHER", species="dog", note="our old collie bitch")
    said = {"species": "dog", "note": "Dai's young bitch Nell chased my ewes"}
    assert decide("Nell", [nell], kind="OTHER", **said)[0] == "new"
    assert decide("Nell", [nell], kind="OTHER", species="dog", note="Nell slept all day")[0] == (
        "merge"
    )


def test_a_place_in_another_department_is_another_place():
    granges = node(1, "Les Granges", kind="PLACE", department="Corrèze")
    assert decide("Les Granges", [granges], kind="PLACE", department="Jura")[0] == "new"
    assert decide("Les Granges", [granges], kind="PLACE", department="Corrèze")[0] == "merge"


def test_a_clubs_acronym_of_its_name_but_the_place_is_the_one_the_user_belongs_to():
    yfc = node(1, "Kington Young Farmers Club", "membership", kind="ORG")
    assert decide("YFC", [yfc], kind="ORG") == ("merge", 1, "acronym")
    wi = node(1, "Llanfair Women's Institute", "membership", kind="ORG")
    assert decide("the WI", [wi], kind="ORG")[:2] == ("merge", 1)
    lto = node(1, "Land- en Tuinbouw Organisatie Nederland", "membership", kind="ORG")
    assert decide("LTO", [lto], kind="ORG")[:2] == ("merge", 1)
    # Of one the user has no tie to, the letters may be another's; two letters without
    # "the" are too few.
    untied = node(1, "Kington Young Farmers Club", kind="ORG")
    assert decide("YFC", [untied], kind="ORG")[0] == "new"
    assert decide("WI", [wi], kind="ORG")[0] == "new"


def test_a_camp_estate_or_farm_said_without_its_word():
    bastion = node(1, "Camp Bastion", kind="PLACE", note="Helmand, 2010")
    assert decide("Bastion", [bastion], kind="PLACE") == ("merge", 1, "kind-word")
    farm = node(1, "Balnacraig", kind="PLACE", note="Hamish's farm next door")
    assert decide("Balnacraig Farm", [farm], kind="PLACE") == ("merge", 1, "kind-word")
    # Fort is part of a place's name, not a word for its kind.
    fort = node(1, "Fort William", kind="PLACE")
    assert decide("William", [fort], kind="PLACE")[0] != "merge"
