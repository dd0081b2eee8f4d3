"""The 26th round of merge rules (issue 21, session 24), from blind sets 28 (community life
and faith, a second writer) and 29 (amateur sport), read after three unread runs each:
a clergy or teacher's title as the person's calling, a priest "from my mum's parish", a
child against someone only an adult is called, "she's 8", an article before a word of
address, and a few known names. Pure functions; the Write path runs them through
``bench_merge`` on every labelled set."""

import pytest

from memory.core.merge_people import calling_of
from memory.core.merge_rules import StoredNode
from memory.core.person_roles import MINOR, YOUNG, roles_from_properties
from tests.memory.core.merge_helpers import decide, node


def test_a_title_of_a_calling_says_the_role():
    assert calling_of("ustadh") == frozenset({"ustadh", "teacher"})
    assert calling_of("father") == frozenset({"priest"})
    assert calling_of("mr") == frozenset()


def test_the_users_son_is_not_the_teacher_known_only_by_his_title():
    ustadh = node(1, "Ustadh Bilal Hussain", note="Arabic teacher at the madrasa")
    assert decide("Bilal", [ustadh], roles=("son",)) == ("new", None, "contradiction")
    # Known by a plain name as well, he may be anyone: no calling is added.
    plain = StoredNode(1, "PERSON", "Ustadh Bilal Hussain", aliases=("Bilal Hussain",))
    assert decide("Bilal", [plain], roles=("son",))[2] != "contradiction"


@pytest.mark.parametrize(
    ("name", "stored", "role", "note"),
    [
        ("Father Tom", "Father Tom Kelly", "priest", "Father Tom from my mum's parish in Galway"),
        ("Pastor Joel", "Pastor Joel Adeyemi", "pastor", "Pastor Joel from my friend's church"),
    ],
)
def test_clergy_from_someone_elses_congregation(name, stored, role, note):
    ours = node(1, stored, role)
    assert decide(name, [ours], note=note) == ("new", None, "none")
    assert decide(name, [ours], note="came round for tea")[0] == "merge"


@pytest.mark.parametrize(
    ("note", "age_roles"),
    [
        ("my niece Shirin, she's 8", {MINOR, YOUNG}),
        ("he's 17 and doing his Duke of Edinburgh", {YOUNG}),
        ("she's 5 foot nothing and fierce", set()),
        ("he's 10 minutes away", set()),
    ],
)
def test_an_age_said_as_shes_8(note, age_roles):
    assert roles_from_properties({"note": note}) == frozenset(age_roles)


def test_a_child_is_not_the_aunty_of_the_tea_rota():
    aunty = node(1, "Aunty Shirin", note="runs the tea rota at the mosque")
    said = {"note": "my niece Shirin, she's 8"}
    assert decide("Shirin", [aunty], roles=("niece", MINOR, YOUNG), **said) == (
        "new",
        None,
        "contradiction",
    )
    # Said with no age, the niece is a question of the courtesy title, as before.
    assert decide("Shirin", [aunty], roles=("niece",))[2] != "contradiction"


def test_an_article_before_a_word_of_address_tells_no_two_apart():
    javier = StoredNode(1, "PERSON", "Javier Ortega", aliases=("el míster",))
    andres = StoredNode(2, "PERSON", "Andrés Gil", aliases=("míster",))
    assert decide("el míster", [javier, andres]) == ("hold", None, "alias-ambiguous")
    assert decide("el míster", [javier]) == ("merge", 1, "alias")


@pytest.mark.parametrize(
    ("said", "stored", "kind"),
    [
        ("Kızılay", "Turkish Red Crescent", "ORG"),
        ("U3A", "University of the Third Age", "ORG"),
        ("Caritas France", "Secours Catholique", "ORG"),
        ("FR255", "Garmin Forerunner 255", "THING"),
    ],
)
def test_known_names_of_community_groups_and_kit(said, stored, kind):
    assert decide(said, [node(1, stored, kind=kind)], kind=kind) == ("merge", 1, "known-name")


def test_a_lone_uncle_is_the_one_the_user_calls_so_never_a_first_name():
    tunde, femi = node(1, "Uncle Tunde"), node(2, "Uncle Femi")
    assert decide("Uncle", [tunde, femi]) == ("hold", None, "courtesy-ambiguous")
    assert decide("Uncle", [femi]) == ("merge", 2, "courtesy")
    assert decide("Aunty", [node(1, "Auntie Shirin")]) == ("merge", 1, "courtesy")
    # The user's own uncle (HAS_UNCLE) is the kinship rule's, not a courtesy title's.
    assert decide("Uncle", [node(1, "Tunde Bakare", "uncle"), femi])[2] != "courtesy-ambiguous"
