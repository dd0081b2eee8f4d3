"""The 33rd round of merge rules (issue 21, session 28), from blind sets 43 (pregnancy,
babies and early parenthood) and 44 (working in healthcare), read after round 32 was
measured on them: a person another note says is called by the name, a lower-case word that
is nobody's nickname, "no relation to", a new one after one who retired, what a note says a
person of a stated role is, and a place a stored organisation's name adds. Pure functions;
the Write path runs them through ``bench_merge`` on every labelled set."""

from tests.memory.core.merge_helpers import decide, node


def test_a_name_another_note_says_someone_else_is_called_is_asked_about():
    mother = node(1, "Folake Adeyemi", "mother", note="my mother, I call her Mummy")
    in_law = node(
        2, "Grace Eze", "mother_in_law", note="my husband's mother, I also call her Mummy"
    )
    said = {"note": "Mummy is coming to Lagos to see the baby"}
    assert decide("Mummy", [mother, in_law], **said)[0] == "hold"
    # Without the second note, the mother.
    plain = node(2, "Grace Eze", "mother_in_law", note="my husband's mother, in Enugu")
    assert decide("Mummy", [mother, plain], **said)[:2] == ("merge", 1)


def test_a_common_word_said_in_lower_case_is_nobodys_nickname():
    aunt = node(1, "Tita Baby", "aunt", note="my mom's sister, everyone calls her Baby")
    son = node(2, "Gabriel", "son", note="our son Gabriel, 6 months")
    said = {"note": "baby had his first solids today"}
    assert decide("baby", [aunt, son], **said)[2] != "named-in-note"


def test_no_relation_to_the_stored_person_is_someone_else():
    marsh = node(1, "Helen Marsh", role="consultant", note="our old consultant")
    said = {"note": "the new F1 is called Dr Marsh too, no relation to Helen"}
    assert decide("Dr Marsh", [marsh], **said)[0] == "new"


def test_the_new_one_is_not_the_one_who_retired():
    santos = node(1, "Dr. Ramon Santos", role="consultant", note="retired last year")
    said = {"note": "the new Dr. Santos is a first-year resident"}
    assert decide("Dr. Santos", [santos], **said)[0] == "new"
    # Someone who retired is still the one said of without "new".
    said = {"note": "Dr. Santos came to the leaving do"}
    assert decide("Dr. Santos", [santos], **said)[:2] == ("merge", 1)
    # Family is not succeeded: "Gran died in 2019", and the new baby looks like Gran.
    gran = node(1, "Gran", "grandmother", note="died in 2019")
    said = {"note": "the new baby has her nose, Gran would have loved her"}
    assert decide("Gran", [gran], roles=("grandmother",), **said)[:2] == ("merge", 1)


def test_a_person_of_a_stated_role_is_not_someone_said_to_be_another():
    jo = node(1, "Jo Fielding", role="midwife", note="the NHS midwife at my booking")
    said = {"note": "Jo, the doula we've hired privately, comes on Friday"}
    assert decide("Jo", [jo], **said)[0] == "new"
    ortega = node(1, "Dr. Javier Ortega", role="pediatra", note="el pediatra de Hugo")
    said = {"note": "el Dr. Ortega, el ginecólogo de mi hermana, le ha dicho que es niña"}
    assert decide("Dr. Ortega", [ortega], **said)[0] == "new"
    said = {"note": "el Dr. Ortega, el pediatra, vio a Hugo hoy"}
    assert decide("Dr. Ortega", [ortega], **said)[:2] == ("merge", 1)


def test_an_organisation_said_in_another_place_than_its_stored_name_adds_is_asked():
    school = node(1, "Goethe-Gymnasium Kassel", "workplace", kind="ORG", note="my school")
    said = {"note": "the Goethe-Gymnasium in Frankfurt where my Referendar did his Praktikum"}
    assert decide("Goethe-Gymnasium", [school], kind="ORG", **said)[0] != "merge"
    said = {"note": "Goethe-Gymnasium staff meeting ran late"}
    assert decide("Goethe-Gymnasium", [school], kind="ORG", **said)[:2] == ("merge", 1)
