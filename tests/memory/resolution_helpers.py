"""Shared by the Write-path tests of the naming rules (tests/memory/test_resolution_*.py): a
stand-in encoder, pegasus-batch/1 builders, and writing a graph then a later batch."""

from datetime import UTC, datetime

import pytest

from memory import embedding
from memory.services.write import commit_batch
from tests.memory.factories import HashEncoder

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
T1 = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def stand_in_encoder():
    with embedding.use_encoder(HashEncoder()):
        yield


def batch(*entities):
    """entities: (name, kind, [self relation labels]) → a pegasus-batch/1."""
    out, relations = [], []
    for i, (name, kind, labels) in enumerate(entities):
        out.append({"ref": f"e{i}", "kind": kind, "name": name, "confidence": 0.9})
        relations += [
            {
                "source": "user",
                "relation": label,
                "target": f"e{i}",
                "snippet": f"my {label} {name}",
                "confidence": 0.9,
            }
            for label in labels
        ]
    return {"format": "pegasus-batch/1", "entities": out, "relations": relations}


def person(name, *labels):
    return (name, "PERSON", list(labels))


def seed(user, *entities):
    """The existing graph, written at T0."""
    commit_batch(user=user, batch=batch(*entities), now=T0)


def write(user, *entities):
    """The later batch, written at T1; its summary."""
    return commit_batch(user=user, batch=batch(*entities), now=T1)


def merged(summary):
    return {m["name"]: (m["into"], m["rule"]) for m in summary.merged}
