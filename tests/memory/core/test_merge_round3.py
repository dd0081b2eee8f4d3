"""The third round of general merge rules (issue 21, third blind set) besides properties
(test_merge_properties.py): two common surnames a vowel apart are two names, and pet forms
of given names outside English. Pure functions."""

import pytest

from memory.core.first_names import name_group
from memory.core.merge_rules import Mention, StoredNode, decide_merge
from memory.core.person_forms import surname_respelled
from memory.core.person_names import relate_first_names

ME = StoredNode(99, "PERSON", "Trevor", is_self=True)


def decide(name, stored):
    verdict = decide_merge(name, "PERSON", [ME, *stored], mention=Mention())
    names = {n.id: n.name for n in stored}
    return verdict.action, names.get(verdict.target), verdict.rule


def test_two_common_surnames_a_vowel_apart_are_two_names():
    assert not surname_respelled(("chloe", "barton"), ("chloe", "burton"))
    assert decide("Chloe Barton", [StoredNode(1, "PERSON", "Chloe Burton")])[0] != "merge"
    # A rarer surname may still be a slip.
    assert surname_respelled(("catherine", "abernethy"), ("catherine", "abernathy"))
    assert decide("Catherine Abernethy", [StoredNode(1, "PERSON", "Catherine Abernathy")])[:2] == (
        "merge",
        "Catherine Abernathy",
    )


@pytest.mark.parametrize(
    ("pet", "full"),
    [
        ("paco", "francisco"),
        ("gosia", "malgorzata"),
        ("gianni", "giovanni"),
        ("kostas", "konstantinos"),
        ("emeka", "chukwuemeka"),
    ],
)
def test_pet_forms_outside_english_relate_both_ways(pet, full):
    assert full in name_group(pet) and pet in name_group(full)
    assert relate_first_names(pet, full) is not None


def test_a_pet_form_of_two_stored_names_is_asked_about():
    stored = [
        StoredNode(1, "PERSON", "Alexandra Popescu"),
        StoredNode(2, "PERSON", "Alejandro Vidal"),
    ]
    action, target, _ = decide("Alex", stored)
    assert (action, target) == ("hold", None)
    assert decide("Paco", [StoredNode(1, "PERSON", "Francisco Ruiz")])[:2] == (
        "merge",
        "Francisco Ruiz",
    )
