"""A second referent of one name through the real Write path: named with what tells it
apart, its name as said kept as an alias, and found again by it (issue 21)."""

import pytest

from memory.models import Node
from memory.services.write import commit_batch
from tests.memory.resolution_helpers import T0, T1, stand_in_encoder  # noqa: F401

pytestmark = pytest.mark.django_db


def pet(name, species, ref="e0"):
    return {
        "ref": ref,
        "kind": "OTHER",
        "name": name,
        "properties": {"species": species},
        "confidence": 0.9,
    }


def one(entity):
    return {"format": "pegasus-batch/1", "entities": [entity], "relations": []}


def test_a_namesake_of_another_species_becomes_its_own_node_and_is_found_again(alice, bob):
    commit_batch(user=alice, batch=one(pet("Luna", "cat")), now=T0)
    summary = commit_batch(user=alice, batch=one(pet("Luna", "dog")), now=T1)
    assert summary.merged == []
    nodes = {n.name: n for n in Node.objects.for_user(alice).filter(kind="OTHER")}
    assert set(nodes) == {"Luna", "Luna (dog)"}
    assert nodes["Luna (dog)"].aliases == ["Luna"]
    assert nodes["Luna (dog)"].properties == {"species": "dog"}
    assert nodes["Luna"].properties == {"species": "cat"}

    # Said again as the dog, it is the dog; as the cat, the cat; nothing new is made.
    commit_batch(user=alice, batch=one(pet("Luna", "puppy")), now=T1)
    commit_batch(user=alice, batch=one(pet("Luna", "kitten")), now=T1)
    assert Node.objects.for_user(alice).filter(kind="OTHER").count() == 2
    # A third Luna, a rabbit, takes its own label.
    commit_batch(user=alice, batch=one(pet("Luna", "rabbit")), now=T1)
    names = set(Node.objects.for_user(alice).filter(kind="OTHER").values_list("name", flat=True))
    assert names == {"Luna", "Luna (dog)", "Luna (rabbit)"}
    # bob's Luna is not told apart from alice's: it takes the plain name.
    commit_batch(user=bob, batch=one(pet("Luna", "dog")), now=T1)
    assert list(Node.objects.for_user(bob).values_list("name", flat=True)) == ["Luna"]


def test_a_namesake_with_nothing_to_tell_it_apart_is_numbered(alice):
    commit_batch(user=alice, batch=one(pet("Mochi", "rabbit")), now=T0)
    commit_batch(user=alice, batch=one(pet("Mochi (dog)", "cat")), now=T0)
    commit_batch(user=alice, batch=one(pet("Mochi", "dog")), now=T1)
    names = set(Node.objects.for_user(alice).filter(kind="OTHER").values_list("name", flat=True))
    assert names == {"Mochi", "Mochi (dog)", "Mochi (2)"}
