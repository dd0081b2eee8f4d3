"""The 24th round of merge rules (issue 21, session 24), from blind set 26's first run
(faith, community and volunteering): clergy as roles, the ages that cannot be one person,
someone else's pastor or congregation, "not related", clergy titles and honorifics, a
lone calling said as a name, and the names the faith's festivals and charities go by. Pure
functions; the Write path runs them through ``bench_merge`` on every labelled set."""

import pytest

from memory.core.merge_people import lone_calling
from memory.core.merge_properties import someone_elses_group
from memory.core.person_names import parse_person
from memory.core.person_roles import (
    ELDER,
    MINOR,
    YOUNG,
    contradicts,
    roles_from_properties,
    roles_from_relations,
    said_unrelated,
    someone_elses_role,
)
from tests.memory.core.merge_helpers import decide, node

# --- clergy are people in the user's life, not family -------------------------------------


@pytest.mark.parametrize(
    ("label", "role"),
    [
        ("HAS_PASTOR", "pastor"),
        ("HAS_PARISH_PRIEST", "priest"),
        ("HAS_RABBI", "rabbi"),
        ("HAS_IMAM", "imam"),
        ("HAS_VICAR", "vicar"),
        ("HAS_LECTURER", "lecturer"),
        ("HAS_MECHANIC", "mechanic"),
    ],
)
def test_relation_labels_that_name_a_calling_or_a_trade_give_the_role(label, role):
    assert roles_from_relations([(label, False)]) == frozenset({role})


def test_the_users_son_is_not_the_parish_priest_of_his_first_name():
    priest = node(1, "Father Tomás Ruiz", "priest")
    assert decide("Tomás", [priest], roles=("son",)) == ("new", None, "contradiction")
    # Said with no relation, the first name still reaches the priest.
    assert decide("Tomás", [priest])[0] != "new"


def test_a_child_is_not_a_priest():
    assert contradicts(frozenset({MINOR}), frozenset({"pastor"}))


# --- ages that cannot be one person -------------------------------------------------------


@pytest.mark.parametrize(
    ("properties", "roles"),
    [
        ({"note": "hosts our Bible study; retired teacher"}, {ELDER}),
        ({"note": "runs the girls' madrasa; in her sixties"}, {ELDER}),
        ({"age": "72"}, {ELDER}),
        ({"note": "my six-year-old niece"}, {MINOR, YOUNG}),
        ({"note": "Tom, the new 17-year-old volunteer"}, {YOUNG}),
        ({"note": "a teenager from the youth club"}, {YOUNG}),
        ({"age": "45", "note": "retired early"}, set()),  # a stated age is what counts
    ],
)
def test_ages_and_life_stages_said(properties, roles):
    assert roles_from_properties(properties) == frozenset(roles)


def test_someone_under_18_is_not_someone_retired():
    assert contradicts(frozenset({YOUNG}), frozenset({ELDER}))
    assert contradicts(frozenset({ELDER, "friend"}), frozenset({YOUNG}))
    assert not contradicts(frozenset({YOUNG}), frozenset({YOUNG}))
    tom = node(1, "Tom Baker", ELDER)
    assert decide("Tom", [tom], roles=(YOUNG,)) == ("new", None, "contradiction")
    assert decide("Tom", [tom]) == ("merge", 1, "first-name")


# --- someone else's pastor, someone else's congregation ----------------------------------


@pytest.mark.parametrize(
    ("note", "role"),
    [
        ("my sister's pastor in Houston; he officiated her wedding", "pastor"),
        ("my brother-in-law's rabbi in Jerusalem", "rabbi"),
        ("my son's coach at the club", "coach"),
        ("my church's pastor", ""),  # a church is no person: the user's own pastor
        ("my sister's husband", ""),  # family: someone_elses_kin's
        ("my sister's friend from work", ""),  # a friend of hers may be the user's friend too
    ],
)
def test_someone_elses_role(note, role):
    assert someone_elses_role({"note": note}) == role


def test_the_sisters_pastor_is_not_the_users_pastor_of_the_name():
    pastor = node(1, "Pastor Emeka Obi", "pastor")
    said = {"note": "my sister's pastor in Houston; he officiated her wedding there"}
    assert decide("Pastor Emeka", [pastor], **said) == ("new", None, "none")
    assert decide("Pastor Emeka", [pastor]) == ("merge", 1, "first-name")
    # The user's own relation said too: theirs after all.
    assert decide("Pastor Emeka", [pastor], roles=("pastor",), **said)[0] == "merge"


def test_someone_elses_congregation_is_not_the_users_synagogue():
    assert someone_elses_group({"note": "my cousin's congregation in Buenos Aires"}) == "cousin"
    assert someone_elses_group({"note": "my cousin's flat"}) == ""
    shul = node(1, "Beth Shalom Synagogue", "membership", kind="ORG")
    said = {"note": "my cousin's congregation in Buenos Aires had a fundraiser"}
    assert decide("Beth Shalom", [shul], kind="ORG", **said) == ("new", None, "none")
    assert decide("Beth Shalom", [shul], kind="ORG") == ("merge", 1, "kind-word")


def test_a_woman_everyone_calls_aunty_is_not_the_users_aunt():
    assert said_unrelated({"note": "not related, everyone calls her Aunty"})
    assert not said_unrelated({"note": "my favourite aunt"})
    ngozi = node(
        1, "Aunty Ngozi", note="runs the women's guild; not related, everyone calls her Aunty"
    )
    assert decide("Aunty Ngozi", [ngozi], roles=("aunt",)) == ("new", None, "properties-differ")
    assert decide("Aunty Ngozi", [ngozi]) == ("merge", 1, "exact")


# --- clergy titles, honorifics and the names they stand before ---------------------------


@pytest.mark.parametrize(
    ("name", "title", "words"),
    [
        ("bibi harjit kaur", "bibi", ("harjit", "kaur")),
        ("bhai gurpreet singh", "bhai", ("gurpreet", "singh")),
        ("bhante sumedha", "bhante", ("sumedha",)),
        ("le pere antoine", "pere", ("antoine",)),
        ("el padre miguel", "padre", ("miguel",)),
        ("the reverend smith", "reverend", ("smith",)),
        ("la profe", "", ("la", "profe")),  # no title after the article: left as said
    ],
)
def test_titles_and_an_article_before_one(name, title, words):
    parsed = parse_person(name)
    assert (parsed.title, parsed.words) == (title, words)


def test_names_said_with_the_honorifics_of_a_congregation():
    assert decide("Harjit", [node(1, "Bibi Harjit Kaur")]) == ("merge", 1, "first-name")
    assert decide("Père Antoine Dubois", [node(1, "le père Antoine")]) == (
        "merge",
        1,
        "first-name",
    )


def test_a_lone_calling_is_a_description_of_the_one_who_has_it():
    assert lone_calling("bhante") and lone_calling("pastor") and lone_calling("rabbi")
    assert not lone_calling("father") and not lone_calling("sister")  # kinship words too
    monk = node(1, "Bhante Sumedha")
    assert decide("Bhante", [monk]) == ("merge", 1, "description")
    assert decide("Bhante", [monk, node(2, "Bhante Dhammika")]) == (
        "hold",
        None,
        "description-ambiguous",
    )


def test_the_imam_is_asked_when_two_are_imams_by_relation_or_by_title():
    yours = node(1, "Imam Abdullah Hassan", "imam")
    titled = node(2, "Imam Yusuf Ali")
    assert decide("the imam", [yours, titled]) == ("hold", None, "description-ambiguous")
    assert decide("the imam", [yours, node(2, "Yusuf Ali")]) == ("merge", 1, "description")


# --- the names people and festivals go by --------------------------------------------------


@pytest.mark.parametrize(
    ("said", "stored", "rule"),
    [
        ("Rev. Olly Whitfield", "Reverend Oliver Whitfield", "nickname"),
        ("Moishe Klein", "Moshe Klein", "spelling"),
        ("Hannah Rosen", "Chana Rosen", "spelling"),
    ],
)
def test_given_names_of_one_person(said, stored, rule):
    assert decide(said, [node(1, stored)]) == ("merge", 1, rule)


@pytest.mark.parametrize(
    ("said", "stored", "kind"),
    [
        ("Baisakhi 2025", "Vaisakhi 2025", "EVENT"),
        ("Wesak 2024", "Vesak 2024", "EVENT"),
        ("Holy Week 2024", "Semana Santa 2024", "EVENT"),
        ("Sally Army", "The Salvation Army", "ORG"),
        ("SVP", "Society of St Vincent de Paul", "ORG"),
    ],
)
def test_known_names_of_festivals_and_charities(said, stored, kind):
    assert decide(said, [node(1, stored, kind=kind)], kind=kind) == ("merge", 1, "known-name")
