"""The seventh round of merge rules through the real Write path (commit_batch): roles and a
child's age said in properties, one concept in two numbers or two kinds (issue 21)."""

import pytest

from memory.models import MergeDecision, Node
from memory.services.write import commit_batch
from tests.memory.resolution_helpers import (  # noqa: F401 (the autouse fixture)
    T0,
    T1,
    merged,
    stand_in_encoder,
)

pytestmark = pytest.mark.django_db


def batch(*entities):
    """entities: (name, kind, properties, [self relation labels]) → a pegasus-batch/1."""
    out, relations = [], []
    for i, (name, kind, properties, labels) in enumerate(entities):
        out.append(
            {
                "ref": f"e{i}",
                "kind": kind,
                "name": name,
                "properties": properties,
                "confidence": 0.9,
            }
        )
        relations += [
            {"source": "user", "relation": label, "target": f"e{i}", "snippet": f"my {name}"}
            for label in labels
        ]
    return {"format": "pegasus-batch/1", "entities": out, "relations": relations}


def test_a_role_said_in_properties_tells_two_people_of_one_name_apart(alice):
    commit_batch(
        user=alice,
        batch=batch(
            ("Mary Kelly", "PERSON", {"city": "Sligo"}, ["HAS_MOTHER"]),
            ("Josh Bennett", "PERSON", {"role": "stepbrother"}, []),
            ("Ethan Clarke", "PERSON", {}, ["HAS_COLLEAGUE"]),
        ),
        now=T0,
    )
    summary = commit_batch(
        user=alice,
        batch=batch(
            ("Mary", "PERSON", {"role": "mother-in-law"}, []),
            ("Josh", "PERSON", {}, ["HAS_BROTHER"]),
            ("Ethan", "PERSON", {"age": 6}, []),
        ),
        now=T1,
    )
    assert merged(summary) == {"Josh": ("Josh Bennett", "first-name")}
    assert sorted(summary.added_nodes) == ["Ethan", "Mary"]
    assert summary.held == []


def test_one_concept_in_two_numbers_and_two_kinds_is_one_node(alice):
    commit_batch(
        user=alice,
        batch=batch(("challenge", "THING", {}, []), ("camping trip", "EVENT", {}, [])),
        now=T0,
    )
    summary = commit_batch(
        user=alice,
        batch=batch(("challenges", "THING", {}, []), ("camping trip", "THING", {}, [])),
        now=T1,
    )
    assert merged(summary) == {
        "challenges": ("challenge", "number"),
        "camping trip": ("camping trip", "concept-kind"),
    }
    assert Node.objects.for_user(alice).filter(is_self=False).count() == 2
    # Recorded like every rule merge, so a person can revert it.
    assert set(MergeDecision.objects.for_user(alice).values_list("rule", flat=True)) == {
        "number",
        "concept-kind",
    }
