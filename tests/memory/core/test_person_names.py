"""How first names relate (memory.core.person_names) and what the bundled lists say
(memory.core.first_names): the facts the person merge rules stand on (SPEC §5.6)."""

import pytest

from memory.core.first_names import is_given_name, name_gender
from memory.core.person_names import relate_first_names


@pytest.mark.parametrize(
    ("said", "stored", "why"),
    [
        ("liz", "elizabeth", "nickname"),
        ("jon", "jonathan", "nickname"),
        ("mel", "melanie", "short-form"),
        ("katie", "kate", "pet-form"),  # a diminutive on the whole name
        ("gabi", "gabriela", "pet-form"),  # on a clipped stem
        ("kirsty", "kirsten", "pet-form"),  # a short rest, both names women's in the lists
        ("hollie", "holly", "pet-form"),
        ("mags", "margaret", "pet-form"),  # a pet form of Maggie, which the table lists
        ("mags", "magdalena", "pet-form"),
        ("steven", "stephen", "spelling"),  # one sound: v and ph read as f
        ("isabel", "isabelle", "spelling"),  # one edit once the final e is dropped
        ("micheal", "michael", "spelling"),
        ("sophia", "sophie", "variant"),  # two full forms that begin alike: asked
        ("cathy", "kathy", "variant"),  # k and c begin the same sound
    ],
)
def test_names_one_person_is_called_by_are_related(said, stored, why):
    assert relate_first_names(said, stored) == why
    assert relate_first_names(stored, said) == why


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("toni", "tonya"),  # a given name on the same stem, genders not the same in the lists
        ("brandy", "brandon"),
        ("carlos", "charles"),  # one skeleton, but two sounds apart: another language's name
        ("gareth", "garrett"),
        ("helen", "elena"),  # table-linked full forms that begin otherwise
        ("ellen", "helen"),
        ("christie", "christopher"),  # a given name of its own, none of his nicknames
        ("eric", "frederick"),
        ("ross", "rosa"),  # the lists give them to different genders
    ],
)
def test_different_names_are_not_related(said, stored):
    assert relate_first_names(said, stored) is None
    assert relate_first_names(stored, said) is None


def test_the_lists_know_given_names_of_both_genders_without_a_gender():
    assert is_given_name("toni") and name_gender("toni") == ""
    assert is_given_name("brandy") and name_gender("brandy") == ""
    assert name_gender("tonya") == "f" and name_gender("brandon") == "m"


def test_a_pet_form_is_no_given_name():
    assert not is_given_name("mags")
    assert name_gender("mags") == ""
