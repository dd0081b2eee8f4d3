"""The ninth round of merge rules through the real Write path (commit_batch): another
occasion of an event (the trip planned against the one taken, read from ATTENDED), the
grandmother the user places, the age that picks one of two children (issue 21)."""

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


def test_the_trip_planned_for_next_year_is_not_the_one_taken(alice, bob):
    commit_batch(
        user=alice,
        batch=batch(("Lisbon trip", "EVENT", {"occurred": "May 2023"}, ["ATTENDED"])),
        now=T0,
    )
    summary = commit_batch(
        user=alice,
        batch=batch(("Lisbon trip", "EVENT", {"occurred": "April next year"}, ["PLANS"])),
        now=T1,
    )

    assert merged(summary) == {} and summary.held == []
    trips = Node.objects.for_user(alice).filter(kind="EVENT").order_by("pk")
    assert [t.properties.get("occurred") for t in trips] == ["May 2023", "April next year"]
    assert summary.entities["e0"]["outcome"] == "new"
    assert not Node.objects.for_user(bob).exists()
    # The same trip said again with its month is the one taken.
    again = commit_batch(
        user=alice,
        batch=batch(("Lisbon trip", "EVENT", {"occurred": "2023"}, ["ATTENDED"])),
        now=T1,
    )
    assert again.entities["e0"]["node"] == "Lisbon trip"


def test_where_the_user_places_a_grandmother_and_the_age_said_pick_one_of_two(alice, bob):
    commit_batch(
        user=alice,
        batch=batch(
            ("Ruth Goldberg", "PERSON", {"city": "Boca Raton"}, ["HAS_GRANDMOTHER"]),
            ("Miriam Adler", "PERSON", {"city": "Toronto"}, ["HAS_GRANDMOTHER"]),
            ("Emily", "PERSON", {"age": "14"}, ["HAS_DAUGHTER"]),
            ("Emily Ward", "PERSON", {"age": "9"}, []),
        ),
        now=T0,
    )
    summary = commit_batch(
        user=alice,
        batch=batch(
            ("Bubbe", "PERSON", {"city": "Toronto"}, ["HAS_GRANDMOTHER"]),
            ("Em", "PERSON", {"age": "14"}, []),
        ),
        now=T1,
    )

    assert merged(summary) == {
        "Bubbe": ("Miriam Adler", "kinship-by-place"),
        "Em": ("Emily", "nickname-by-age"),
    }
    assert MergeDecision.objects.for_user(alice).filter(status=MergeStatus.MERGED).count() == 2
    assert not MergeDecision.objects.for_user(bob).exists()
