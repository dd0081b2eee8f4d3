"""The general naming rules added after the blind merge set (issue 21), through the real
Write path (commit_batch): the user's relations as evidence, spelling and scripts, word
order, surnames, legal forms, other languages' titles and pets."""

import pytest

from memory.models import MergeDecision, Node
from tests.memory.resolution_helpers import (  # noqa: F401 (the autouse fixture)
    T0,
    T1,
    batch,
    merged,
    person,
    seed,
    stand_in_encoder,
    write,
)

pytestmark = pytest.mark.django_db


def test_the_users_relation_picks_the_colleague_among_two_hannahs(alice):
    seed(alice, person("Hannah Kessler", "HAS_FRIEND"), person("Hannah Brandt", "HAS_COLLEAGUE"))
    summary = write(alice, person("Hannah", "HAS_COLLEAGUE"))
    assert merged(summary) == {"Hannah": ("Hannah Brandt", "first-name-by-role")}
    assert summary.held == [] and summary.added_nodes == []
    decision = MergeDecision.objects.for_user(alice).get(status="merged")
    assert decision.kept.name == "Hannah Brandt"


def test_a_friend_among_two_hannahs_is_still_asked_about(alice):
    seed(alice, person("Hannah Kessler", "HAS_FRIEND"), person("Hannah Brandt", "HAS_COLLEAGUE"))
    summary = write(alice, person("Hannah", "HAS_FRIEND"))
    assert summary.merged == [] and [h["name"] for h in summary.held] == ["Hannah"]


def test_theo_the_boss_is_not_merged_into_theo_the_brother(alice):
    seed(alice, person("Theo", "HAS_BROTHER"), person("Theo Grant", "HAS_BOSS"))
    summary = write(alice, person("Theo", "HAS_BOSS"))
    assert merged(summary) == {"Theo": ("Theo Grant", "first-name-by-role")}
    grant = Node.objects.for_user(alice).get(name="Theo Grant")
    assert "Theo" in grant.aliases
    brother = Node.objects.for_user(alice).get(name="Theo")
    assert brother.aliases == []


def test_names_written_another_way_merge(alice):
    seed(
        alice,
        person("Jürgen Müller"),
        person("Siobhán O'Sullivan"),
        person("Дмитрий Соколов"),
        person("Zhang Wei"),
        person("María José García López"),
        person("Hiroshi Nakamura"),
        person("Margarethe Vogel"),
        ("Google LLC", "ORG", []),
    )
    summary = write(
        alice,
        person("Juergen Mueller"),
        person("Siobhan OSullivan"),
        person("Dmitri Sokolov"),
        person("Wei Zhang"),
        person("María García"),
        person("Nakamura"),
        person("Frau Vogel"),
        ("Google", "ORG", []),
    )
    assert merged(summary) == {
        "Juergen Mueller": ("Jürgen Müller", "spelling"),
        "Siobhan OSullivan": ("Siobhán O'Sullivan", "spelling"),
        "Dmitri Sokolov": ("Дмитрий Соколов", "transliteration"),
        "Wei Zhang": ("Zhang Wei", "swapped"),
        "María García": ("María José García López", "middle-name"),
        "Nakamura": ("Hiroshi Nakamura", "surname"),
        "Frau Vogel": ("Margarethe Vogel", "title"),
        "Google": ("Google LLC", "legal-form"),
    }
    assert summary.held == [] and summary.added_nodes == []


def test_the_guards_keep_different_people_and_things_apart(alice):
    seed(
        alice,
        person("Мария"),
        person("Margarethe Vogel"),
        person("Laura Kim", "HAS_COUSIN"),
        ("Luna", "OTHER", ["HAS_PET"]),
        ("Acme Robotics", "ORG", []),
    )
    summary = write(
        alice,
        person("Maria"),
        person("Herr Vogel"),
        person("Laura Becker", "HAS_COUSIN"),
        person("Luna", "HAS_FRIEND"),
        ("Acme Logistics", "ORG", []),
    )
    assert summary.merged == [] and summary.held == []
    assert sorted(summary.added_nodes) == sorted(
        ["Maria", "Herr Vogel", "Laura Becker", "Luna", "Acme Logistics"]
    )


def test_the_users_sister_of_one_first_name_is_one_person(alice):
    seed(alice, person("Laura Kim", "HAS_SISTER"), person("Sung-ho Kim", "HAS_FATHER"))
    summary = write(alice, person("Laura Becker", "HAS_SISTER"))
    assert merged(summary) == {"Laura Becker": ("Laura Kim", "family-role")}


def test_a_pet_is_reached_by_its_nickname(alice):
    seed(alice, ("Sir Reginald Fluffington", "OTHER", ["HAS_PET"]))
    summary = write(alice, ("Reggie", "OTHER", []))
    assert merged(summary) == {"Reggie": ("Sir Reginald Fluffington", "first-name")}
