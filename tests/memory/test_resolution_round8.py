"""The eighth round of merge rules through the real Write path (commit_batch): a first name
said exactly that reaches two people, a client of the same full name as the boss (the role
read from the properties), a department of another company, the user's own party, the puppy
(issue 21)."""

import pytest

from memory.models import MergeDecision, MergeStatus, Node
from memory.services.write import commit_batch
from tests.memory.resolution_helpers import (  # noqa: F401 (the autouse fixture)
    T0,
    T1,
    merged,
    stand_in_encoder,
)
from tests.memory.test_resolution_round7 import batch

pytestmark = pytest.mark.django_db


def test_a_first_name_said_exactly_that_reaches_two_people_waits_for_its_owner(alice, bob):
    commit_batch(
        user=alice,
        batch=batch(
            ("Dave", "PERSON", {}, ["HAS_NEIGHBOUR"]),
            ("Dave Miller", "PERSON", {}, ["HAS_BOSS"]),
        ),
        now=T0,
    )
    summary = commit_batch(user=alice, batch=batch(("Dave", "PERSON", {}, [])), now=T1)

    assert merged(summary) == {}
    assert summary.held == [{"name": "Dave", "candidates": ["Dave", "Dave Miller"]}]
    held = MergeDecision.objects.for_user(alice).get(status=MergeStatus.HELD)
    assert held.rule == "exact-ambiguous"
    assert not MergeDecision.objects.for_user(bob).exists()
    # Said as the neighbour, it is the neighbour.
    summary = commit_batch(
        user=alice, batch=batch(("Dave", "PERSON", {}, ["HAS_NEIGHBOUR"])), now=T1
    )
    assert merged(summary) == {"Dave": ("Dave", "exact-by-role")}


def test_a_client_of_the_bosss_full_name_is_asked_about(alice):
    commit_batch(
        user=alice,
        batch=batch(("Nikhil Sharma", "PERSON", {"role": "delivery manager"}, ["HAS_BOSS"])),
        now=T0,
    )
    summary = commit_batch(
        user=alice,
        batch=batch(("Nikhil Sharma", "PERSON", {"role": "client", "company": "Tata Steel"}, [])),
        now=T1,
    )

    assert summary.held == [{"name": "Nikhil Sharma", "candidates": ["Nikhil Sharma"]}]
    assert MergeDecision.objects.for_user(alice).get().rule == "exact-role-differs"


def test_another_companys_department_and_someone_elses_party_are_new_nodes(alice):
    commit_batch(
        user=alice,
        batch=batch(
            ("Marketing department", "ORG", {"company": "Spotify"}, ["MEMBER_OF"]),
            ("Mia's birthday party", "EVENT", {}, ["PLANS"]),
        ),
        now=T0,
    )
    summary = commit_batch(
        user=alice,
        batch=batch(
            ("marketing department", "ORG", {"company": "L'Oréal"}, []),
            ("my birthday party", "EVENT", {"note": "turning 40"}, ["PLANS"]),
        ),
        now=T1,
    )

    assert merged(summary) == {}
    assert summary.held == []
    assert Node.objects.for_user(alice).filter(kind="EVENT").count() == 2
    assert Node.objects.for_user(alice).filter(kind="ORG").count() == 2


def test_the_puppy_is_the_users_dog_not_the_puppy_class(alice):
    commit_batch(
        user=alice,
        batch=batch(
            ("Biscuit", "OTHER", {"species": "dog", "age": "4 months"}, ["HAS_PET"]),
            ("puppy training class", "OTHER", {}, ["ATTENDED"]),
        ),
        now=T0,
    )
    summary = commit_batch(
        user=alice, batch=batch(("the puppy", "OTHER", {"species": "dog"}, ["HAS_PET"])), now=T1
    )

    assert merged(summary) == {"the puppy": ("Biscuit", "description")}


def test_a_course_by_its_code_and_a_teacher_by_what_she_teaches(alice):
    commit_batch(
        user=alice,
        batch=batch(
            ("Linear Algebra", "THING", {"type": "course", "code": "MATH 221"}, []),
            ("Real Analysis", "THING", {"type": "course", "code": "MATH 320"}, []),
            ("Priya", "PERSON", {"role": "yoga teacher"}, ["HAS_TEACHER"]),
            ("Sam", "PERSON", {"role": "guitar teacher"}, ["HAS_TEACHER"]),
        ),
        now=T0,
    )
    summary = commit_batch(
        user=alice,
        batch=batch(
            ("MATH 221", "THING", {"type": "course"}, []),
            ("my yoga teacher", "PERSON", {}, ["HAS_TEACHER"]),
        ),
        now=T1,
    )

    assert merged(summary) == {
        "MATH 221": ("Linear Algebra", "identifier"),
        "My Yoga Teacher": ("Priya", "description"),  # a person's name is capitalised
    }
    # The code said is remembered as a name of the course.
    assert "MATH 221" in Node.objects.for_user(alice).get(name="Linear Algebra").aliases


def test_the_church_and_the_gym_the_user_belongs_to(alice):
    commit_batch(
        user=alice,
        batch=batch(
            ("Grace Community Church", "ORG", {}, ["MEMBER_OF"]),
            ("PureGym Leeds City Centre", "ORG", {"type": "gym"}, ["MEMBER_OF"]),
            ("Springfield Public Library", "ORG", {}, []),
        ),
        now=T0,
    )
    summary = commit_batch(
        user=alice,
        batch=batch(
            ("church", "ORG", {}, ["MEMBER_OF"]),
            ("PureGym", "ORG", {"type": "gym"}, ["MEMBER_OF"]),
        ),
        now=T1,
    )

    assert merged(summary) == {
        "Church": ("Grace Community Church", "description"),
        "PureGym": ("PureGym Leeds City Centre", "own-place"),
    }
