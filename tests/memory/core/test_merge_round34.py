"""The 34th round of merge rules (issue 21, session 29), from blind sets 45 (neighbours,
buildings and streets) and 46 (research and academic life), read after sets 47 to 50 had
their first runs: a person said by what they are that only a note says, a note that says
the one said is another of the name, one of two people a note calls alike, a name changed
by marriage, an acronym's note that opens with its name or with another, an acronym placed
elsewhere, and new words for a mother and pet forms. Pure functions; the Write path runs
them through ``bench_merge`` on every labelled set."""

from memory.core.merge_rules import Mention, StoredNode, decide_merge
from tests.memory.core.merge_helpers import decide, node


def test_a_word_for_what_someone_is_finds_the_one_whose_note_says_it():
    doorman = node(1, "Tomasz Nowak", note="Tomasz, the concierge of our block, night shifts")
    baker = node(2, "Lucie", note="Lucie from the corner bakery")
    said = {"note": "the concierge kept my parcel again"}
    assert decide("the concierge", [doorman, baker], **said) == (
        "merge",
        1,
        "described-in-note",
    )
    # Bare, in another language, or with a German capital after a lower-case article.
    said = {"note": "hausmeister says the heating is fixed"}
    janitor = node(1, "Herr Brandt", note="Herr Brandt ist unser Hausmeister")
    assert decide("hausmeister", [janitor, baker], **said)[:2] == ("merge", 1)
    assert decide("der Hausmeister", [janitor, baker], **said)[:2] == ("merge", 1)
    # The Write capitalises a person's name; the note keeps what the user typed.
    guard = node(1, "Gul Khan", role="chowkidar", note="Gul Khan, the chowkidar of our building")
    said = {"note": "the chowkidar told me the tanker comes at night"}
    assert decide("Chowkidar", [guard, baker], **said)[:2] == ("merge", 1)
    # A word of the note that begins with the word said ("boulangerie", "boulanger").
    said = {"note": "le boulanger m'a gardé une baguette"}
    assert decide("le boulanger", [node(1, "Karim", note="Karim de la boulangerie")], **said)[
        :2
    ] == ("merge", 1)


def test_a_word_two_notes_say_is_asked_and_more_words_tell_them_apart():
    night = node(1, "Bahadur", note="our building guard, night shift")
    day = node(2, "Ramesh", note="the day guard at the gate")
    said = {"note": "the guard let the plumber in"}
    assert decide("guard", [night, day], **said)[0] == "hold"
    said = {"note": "the night guard was asleep again"}
    assert decide("night guard", [night, day], **said)[:2] == ("merge", 1)


def test_what_is_not_a_description_of_someone_known_stays_with_the_other_rules():
    nurse = node(1, "Agnes Mwangi", note="the nurse on my ward")
    # Someone new in the role is not the one known.
    assert decide("the new nurse", [nurse], note="the new nurse started today")[0] == "new"
    # A capitalised name is a name, not a description.
    assert decide("Nurse", [node(1, "Agnes Mwangi", note="a colleague")], note="x")[0] == "new"
    # A role held in turn, said of this turn.
    inspector = node(1, "Graham Pike", note="lead Ofsted inspector in 2022, grilled me")
    said = {"note": "the lead inspector this time was very calm"}
    assert decide("the lead inspector", [inspector], **said)[0] == "new"
    # An alias is what they are called: two who may be "o professor".
    coach = StoredNode(1, "PERSON", "Marcos Santos", aliases=("Professor",), properties={})
    teacher = node(2, "Paulo Henrique", note="professor de matemática do meu filho")
    said = {"note": "o professor marcou uma reunião comigo"}
    assert decide("o professor", [coach, teacher], **said)[0] == "hold"
    # A word the note does not say.
    assert decide("the porter", [nurse], note="the porter was late")[0] == "new"


def test_a_note_that_says_another_of_the_name_sets_the_namesake_apart():
    ramu = node(1, "Ramu kaka", note="Ramu kaka, the day watchman")
    said = {"note": "the new milkman is also called Ramu, no relation to our watchman"}
    assert decide("Ramu", [ramu], **said)[0] == "new"
    # In other languages, and with the first name only before the whole.
    nora = node(1, "Nora", note="Nora del 5°B, me riega las plantas")
    said = {"note": "la nueva del 7°A también se llama Nora, Nora Bianchi"}
    assert decide("Nora Bianchi", [nora], **said)[0] == "new"
    roux = node(1, "Madame Roux", note="Madame Roux au 5e, joue du piano")
    said = {"note": "ma dentiste s'appelle aussi Madame Roux, rien à voir avec la voisine"}
    assert decide("Madame Roux", [roux], **said)[0] == "new"
    # The same words in another order.
    zhang = node(1, "Wei Zhang", note="our collaborator at NUS")
    said = {"note": "a new student, also called Zhang Wei, joined today"}
    assert decide("Zhang Wei", [zhang], **said)[0] == "new"
    # Without such words, the one known.
    assert decide("Ramu", [ramu], note="Ramu was at the gate")[:2] == ("merge", 1)


def test_a_different_building_of_the_name_is_another_place():
    home = node(1, "The Marlowe", kind="PLACE", note="my building on 12th Street")
    said = {"note": "my cousin moved into a different Marlowe, the one in Queens"}
    assert decide("The Marlowe", [home], kind="PLACE", **said)[0] == "new"
    said = {"note": "the lift at the Marlowe is broken again"}
    assert decide("The Marlowe", [home], kind="PLACE", **said)[:2] == ("merge", 1)
    bakery = node(1, "Padaria Estrela", kind="ORG", note="a padaria da esquina")
    said = {"note": "fui numa outra, não tem nada a ver com a daqui"}
    assert decide("Padaria Estrela da Mooca", [bakery], kind="ORG", **said)[0] == "new"


def test_a_name_two_notes_call_someone_is_not_given_to_one_of_them():
    olumide = node(1, "Olumide Adeyemi", "colleague", note="lab mate at UI")
    oluwaseun = node(2, "Oluwaseun Bakare", "cousin", note="my cousin, we call him Olu too")
    said = {"note": "Olu called while I was in the seminar"}
    assert decide("Olu", [olumide, oluwaseun], **said)[0] == "hold"
    # With nobody else it may be, the note's.
    other = node(1, "Kunle Adeyemi", "colleague", note="lab mate at UI")
    assert decide("Olu", [other, oluwaseun], **said)[:2] == ("merge", 2)


def test_a_name_changed_by_marriage_is_the_same_person():
    emma = node(1, "Emma Clarke", "supervisor", note="my second supervisor")
    said = {"note": "Emma Hughes (was Clarke, changed her name after the wedding) signed it"}
    assert decide("Emma Hughes", [emma], **said) == ("merge", 1, "married-name")
    zeynep = node(1, "Zeynep Arslan", "colleague", note="postdoc, married in the summer")
    said = {"note": "she publishes as Zeynep Kaya now, after her wedding"}
    assert decide("Zeynep Kaya", [zeynep], **said)[:2] == ("merge", 1)
    # No word of a marriage: another Zeynep.
    said = {"note": "Zeynep Kaya from the other lab asked for the protocol"}
    assert decide("Zeynep Kaya", [zeynep], **said)[0] != "merge"
    # A marriage said, but neither the stored surname nor a marriage in the stored note.
    plain = node(1, "Zeynep Arslan", "colleague", note="postdoc in our group")
    said = {"note": "Zeynep Kaya's wedding is in May"}
    assert decide("Zeynep Kaya", [plain], **said)[0] != "merge"


def test_an_acronyms_note_that_opens_with_its_name_names_it():
    board = node(1, "LWSB", kind="ORG", note="Lagos Water Supply Board, cuts us off weekly")
    said = {"note": "complained to the Lagos Water Supply Board again"}
    assert decide("Lagos Water Supply Board", [board], kind="ORG", **said)[:2] == ("merge", 1)
    # Opening with another name of the acronym's letters: another organisation.
    kit = node(1, "KIT", "attends", kind="ORG", note="Karlsruhe Institute of Technology, my PhD")
    said = {"note": "a group at the Kyoto Institute of Technology wants to collaborate"}
    assert decide("Kyoto Institute of Technology", [kit], kind="ORG", **said)[0] == "new"


def test_an_acronym_said_with_a_place_nothing_stored_names_is_asked():
    usp = node(1, "Universidade de São Paulo", "attends", kind="ORG", note="campus Butantã")
    said = {"note": "my cousin studies marine biology at USP in Suva, Fiji"}
    assert decide("USP", [usp], kind="ORG", **said)[0] == "hold"
    said = {"note": "USP in São Paulo raised the fees"}
    assert decide("USP", [usp], kind="ORG", **said)[:2] == ("merge", 1)


def test_new_words_for_a_mother_and_pet_forms():
    mother = StoredNode(1, "PERSON", "Sylvie Lefort", roles=frozenset({"mother"}))
    verdict = decide_merge(
        "Maman", "PERSON", [mother], mention=Mention(properties={"note": "Maman a appelé"})
    )
    assert (verdict.action, verdict.target) == ("merge", 1)
    for short, full in (("Lasse", "Lars"), ("Uschi", "Ursula"), ("Sepp", "Josef")):
        stored = node(1, f"{full} Becker", note="lab engineer")
        assert decide(short, [stored], note=f"{short} fixed the rig")[:2] == ("merge", 1)
