"""Round 12 of the naming rules (session 21), from the fifteenth blind set (paperwork,
civic life and pets): a pet's name said as a person's, the professionals people say "my …"
of, and a word of an organisation's name that only modifies what it is."""

from memory.core.descriptions import org_headed
from memory.core.person_roles import roles_from_relations
from tests.memory.core.merge_helpers import decide, node


def test_a_first_name_that_is_exactly_a_pets_name_is_asked():
    cat = node(1, "Oscar", "pet", kind="OTHER", species="cat")
    friend = node(2, "Oscar Lindqvist", "friend")
    assert decide("Oscar", [cat, friend], note="hasn't been eating much") == (
        "hold",
        None,
        "other-kind",
    )
    # Without the pet, the one Oscar is the friend.
    assert decide("Oscar", [friend])[:2] == ("merge", 2)
    # Said exactly as the person is stored, it is the person (a node of another kind is no
    # rival for an exact name).
    exact = node(2, "Oscar", "friend")
    assert decide("Oscar", [exact, node(3, "Oscar", "pet", kind="OTHER")])[:2] == ("merge", 2)


def test_the_professionals_people_say_my_of_are_roles():
    assert roles_from_relations([("HAS_VET", False)]) == {"vet"}
    assert roles_from_relations([("HAS_DENTIST", False)]) == {"dentist"}
    assert roles_from_relations([("HAS_SOLICITOR", False)]) == {"lawyer"}
    assert roles_from_relations([("HAS_ACCOUNTANT", False)]) == {"accountant"}
    vet = node(1, "Dr. Hannah Lee", "vet")
    assert decide("the vet", [vet, node(2, "Dr. Sam Cho", "doctor")]) == (
        "merge",
        1,
        "description",
    )
    lawyers = [node(1, "Sarah Klein", "lawyer"), node(2, "James Ortiz", "lawyer")]
    assert decide("my lawyer", lawyers)[0] == "hold"


def test_two_vet_practices_the_user_has_are_asked_about():
    parkside = node(1, "Parkside Vets", "vet", kind="ORG", note="for the dogs")
    feline = node(2, "Feline Friends Clinic", "vet", kind="ORG", note="cat-only clinic")
    assert decide("the vet", [parkside, feline], kind="ORG")[0] == "hold"
    assert decide("the vet", [parkside], kind="ORG")[:2] == ("merge", 1)


def test_a_word_that_only_modifies_an_organisations_name_does_not_describe_it():
    kennel_club = node(1, "The Kennel Club", kind="ORG", note="registered the pedigree")
    assert decide("the kennels", [kennel_club], kind="ORG")[0] == "new"
    assert not org_headed(("met",), ["Met Office"], {})
    # What it is: its last word, a compound's last part, the word before "of".
    assert org_headed(("gym",), ["PureGym Canary Wharf"], {})
    assert org_headed(("embassy",), ["Embassy of Japan in London"], {})
    assert org_headed(("questura",), ["Questura di Bologna"], {})
    # A stated type that says it overrides the name's order.
    assert org_headed(("kennel",), ["Kennel Club Lodge"], {"type": "boarding kennel"})


def test_the_pet_the_user_has_now_is_not_the_one_that_died():
    assert roles_from_relations([("HAD_PET", False)]) == {"former_pet"}
    whiskers = node(1, "Whiskers", "former_pet", kind="OTHER", species="cat", note="died 2022")
    kitten = {"species": "cat", "note": "new kitten from the shelter"}
    assert decide("the cat", [whiskers], kind="OTHER", roles=["pet"], **kitten)[0] == "new"
    # Of a living cat and one that died, "our cat" is the living one ...
    nori = node(2, "Nori", "pet", kind="OTHER", species="cat")
    assert decide("our cat", [whiskers, nori], kind="OTHER")[:2] == ("merge", 2)
    # ... unless the user says it is the one they had.
    assert decide("our cat", [whiskers, nori], kind="OTHER", roles=["former_pet"])[:2] == (
        "merge",
        1,
    )


def test_a_pets_name_in_the_script_the_user_writes_in():
    for said, stored in [("ハナ", "Hana"), ("馒头", "Mantou"), ("سمسم", "Simsim"), ("शेरू", "Sheru")]:
        pet = node(1, stored, "pet", kind="OTHER", species="dog")
        assert decide(said, [pet], kind="OTHER") == ("merge", 1, "transliteration"), said
    # Another name read otherwise stays apart.
    assert decide("ハナ", [node(1, "Hina", "pet", kind="OTHER")], kind="OTHER")[0] == "new"
    # Organisations, dishes and things are read too since round 13 (test_merge_round13).


def test_an_abbreviation_with_full_stops_stands_for_its_letters():
    uscis = node(1, "USCIS", kind="ORG")
    said = "U.S. Citizenship and Immigration Services"
    assert decide(said, [uscis], kind="ORG") == ("merge", 1, "acronym")
    # "us" written without stops is the pronoun: left out as before.
    assert decide("Citizenship and Immigration Services", [uscis], kind="ORG")[0] != "merge"
