"""The 30th round of merge rules through the real Write path (commit_batch): the rules that
read nodes of another kind the user is tied to — the sister whose wedding "my sister's
wedding" is, and a firm holding the role a person is described by (issue 21)."""

import pytest

from memory.models import MergeDecision, MergeStatus
from memory.services.write import commit_batch
from tests.memory.resolution_helpers import (  # noqa: F401 (the autouse fixture)
    T0,
    T1,
    merged,
    stand_in_encoder,
)
from tests.memory.test_resolution_round7 import batch

pytestmark = pytest.mark.django_db


def test_an_occasion_said_as_a_relatives_reaches_the_relative_in_the_graph(alice, bob):
    commit_batch(
        user=alice,
        batch=batch(
            ("Sofia", "PERSON", {"note": "my older sister"}, ["HAS_SISTER"]),
            ("Sofia and Marco's wedding", "EVENT", {"note": "Lisbon, 2022"}, []),
            ("Tomás and Inês's wedding", "EVENT", {"note": "planned for Porto"}, []),
        ),
        now=T0,
    )
    said = batch(("my sister's wedding", "EVENT", {"note": "the video from it"}, []))
    summary = commit_batch(user=alice, batch=said, now=T1)

    assert merged(summary) == {"my sister's wedding": ("Sofia and Marco's wedding", "possessor")}
    # Another user's graph holds no sister: the same words are a new event there.
    summary = commit_batch(user=bob, batch=said, now=T1)
    assert merged(summary) == {}


def test_a_role_held_by_a_person_and_a_firm_is_asked_about(alice):
    commit_batch(
        user=alice,
        batch=batch(
            ("Mr Okafor", "PERSON", {"note": "landlord of my flat"}, ["HAS_LANDLORD"]),
            ("Greystone Estates", "ORG", {"note": "landlord of the shop"}, ["HAS_LANDLORD"]),
        ),
        now=T0,
    )
    summary = commit_batch(
        user=alice,
        batch=batch(("the landlord", "PERSON", {"note": "hasn't answered my email"}, [])),
        now=T1,
    )

    assert merged(summary) == {}
    assert summary.held == [
        {"name": "The Landlord", "candidates": ["Mr Okafor", "Greystone Estates"]}
    ]
    held = MergeDecision.objects.for_user(alice).get(status=MergeStatus.HELD)
    assert held.rule == "description-across-kinds"
