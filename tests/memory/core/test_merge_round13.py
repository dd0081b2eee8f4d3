"""Round 13 of the naming rules (session 22): a new animal given the name of one that died,
seen on six of the blind sets (a puppy named after the old dog is two animals, one name)."""

from memory.core.merge_properties import newcomer_after_death
from tests.memory.core.merge_helpers import decide, node


def test_a_puppy_named_after_the_dog_that_died_is_another_animal():
    old = node(1, "Max", "former_pet", kind="OTHER", species="dog", note="died last spring")
    said = {"species": "dog", "age": "10 weeks", "note": "new puppy, named after our old dog"}
    assert decide("Max", [old], kind="OTHER", roles=("pet",), **said) == (
        "new",
        None,
        "properties-differ",
    )
    # The old dog remembered is the old dog.
    assert decide("Max", [old], kind="OTHER", note="would have been 15 today, miss him")[:2] == (
        "merge",
        1,
    )


def test_the_stored_animals_death_may_be_in_its_notes_or_a_key():
    for stored in ({"note": "passed away in 2021"}, {"died": "2015"}, {"note": "put to sleep"}):
        assert newcomer_after_death({"age": "8 weeks", "note": "just adopted"}, stored)
    # A kitten said of a cat the user still has is that cat.
    assert not newcomer_after_death({"age": "kitten"}, {"note": "sleeps on the radiator"})
    # A pet the user had is gone, whatever its notes say.
    assert newcomer_after_death({"note": "our new kitten"}, {}, stored_former=True)


def test_a_new_animal_must_be_said_to_be_young_or_new():
    gone = {"note": "died in 2023"}
    assert newcomer_after_death({"age": "kitten"}, gone)
    assert newcomer_after_death({"note": "puppy adopted 2024"}, gone)
    assert newcomer_after_death({"note": "4 months old"}, gone)
    assert not newcomer_after_death({"note": "her ashes are on the shelf"}, gone)
    assert not newcomer_after_death({}, gone)
    # Said of the old one's puppyhood, with its death: the old one.
    assert not newcomer_after_death({"note": "a puppy when we got him, died at 14"}, gone)


def test_only_animals_are_told_apart_by_a_death():
    grandma = node(1, "Rose", "grandmother", note="passed away in 2019")
    assert decide("Rose", [grandma], roles=("grandmother",), note="named after her")[:2] == (
        "merge",
        1,
    )
