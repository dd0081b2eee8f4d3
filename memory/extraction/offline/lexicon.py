"""Words the offline extractor reads by: possessive roles, kinds of nouns, verbs of
preference, travel and plans, and what makes a plausible person name."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class _Role:
    label: str  # relation label
    kind: str = "PERSON"
    stability: str = "stable"
    cardinality: str = "one_to_many"
    species: str | None = None  # for pets


def _roles() -> dict[str, _Role]:
    roles: dict[str, _Role] = {}
    work_one = ("boss", "manager", "supervisor")
    work_many = (
        "colleague",
        "mentor",
        "teammate",
        "cofounder",
        "co-founder",
        "client",
        "assistant",
        "intern",
        "mentee",
        "report",
    )
    partners = (
        "wife",
        "husband",
        "spouse",
        "partner",
        "girlfriend",
        "boyfriend",
        "fiance",
        "fiancee",
        "fiancé",
        "fiancée",
    )
    parents = {
        "mother": "MOTHER",
        "mom": "MOTHER",
        "mum": "MOTHER",
        "mommy": "MOTHER",
        "father": "FATHER",
        "dad": "FATHER",
        "daddy": "FATHER",
    }
    family = (
        "sister",
        "brother",
        "son",
        "daughter",
        "child",
        "kid",
        "cousin",
        "aunt",
        "uncle",
        "niece",
        "nephew",
        "grandmother",
        "grandfather",
        "grandson",
        "granddaughter",
        "stepmother",
        "stepfather",
        "stepson",
        "stepdaughter",
        "sibling",
        "twin",
    )
    social = (
        "friend",
        "roommate",
        "neighbour",
        "neighbor",
        "flatmate",
        "therapist",
        "doctor",
        "coach",
        "trainer",
        "landlord",
        "teacher",
        "professor",
        "advisor",
        "tutor",
    )
    canonical = {
        "co-founder": "COFOUNDER",
        "fiancé": "FIANCE",
        "fiancée": "FIANCE",
        "fiancee": "FIANCE",
        "neighbor": "NEIGHBOUR",
        "flatmate": "ROOMMATE",
        "kid": "CHILD",
        "grandma": "GRANDMOTHER",
        "grandpa": "GRANDFATHER",
    }

    def label(noun: str) -> str:
        return "HAS_" + canonical.get(noun, noun.upper())

    for noun in work_one:
        roles[noun] = _Role(label(noun), stability="mutable", cardinality="one_to_one")
    for noun in work_many:
        roles[noun] = _Role(label(noun), stability="mutable")
    for noun in ("coworker", "co-worker"):
        roles[noun] = _Role("HAS_COLLEAGUE", stability="mutable")
    for noun in partners:
        roles[noun] = _Role(label(noun), cardinality="one_to_one")
    for noun, canon in parents.items():
        roles[noun] = _Role("HAS_" + canon, cardinality="one_to_one")
    for noun in (*family, "grandma", "grandpa"):
        roles[noun] = _Role(label(noun))
    for noun in social:
        mutable = noun not in {"friend"}
        roles[noun] = _Role(label(noun), stability="mutable" if mutable else "stable")
    for pet, species in (
        ("dog", "dog"),
        ("puppy", "dog"),
        ("cat", "cat"),
        ("kitten", "cat"),
        ("horse", "horse"),
        ("rabbit", "rabbit"),
        ("parrot", "parrot"),
        ("hamster", "hamster"),
    ):
        roles[pet] = _Role("HAS_" + species.upper(), kind="OTHER", species=species)
    for org in ("employer", "company", "firm"):
        roles[org] = _Role("WORKS_AT", kind="ORG", stability="mutable")
    for school in ("school", "university", "college"):
        roles[school] = _Role("STUDIES_AT", kind="ORG", stability="mutable")
    roles["hometown"] = _Role("HAS_HOMETOWN", kind="PLACE")
    return roles


_ROLES = _roles()
_FORMER = {"former", "ex", "previous", "old"}
_ROLE_MODIFIERS = _FORMER | {
    "-",
    "current",
    "new",
    "best",
    "older",
    "younger",
    "little",
    "big",
    "late",
    "dear",
    "step",
    "twin",
    "closest",
    "oldest",
}
_NAME_LABELS = {"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT", "EVENT", "WORK_OF_ART"}
_NER_KIND = {
    "PERSON": "PERSON",
    "ORG": "ORG",
    "GPE": "PLACE",
    "LOC": "PLACE",
    "FAC": "PLACE",
    "EVENT": "EVENT",
    "PRODUCT": "THING",
    "WORK_OF_ART": "THING",
    "NORP": "TOPIC",
    "LANGUAGE": "TOPIC",
}
_ORG_NOUNS = {
    "startup",
    "company",
    "firm",
    "business",
    "agency",
    "bank",
    "school",
    "university",
    "college",
    "lab",
    "studio",
    "shop",
    "restaurant",
    "team",
    "club",
    "charity",
    "nonprofit",
    "fund",
    "employer",
}
_PLACE_NOUNS = {"city", "town", "village", "country", "neighbourhood", "neighborhood", "island"}
_STUDENT_NOUNS = {"student", "undergrad", "undergraduate", "postgrad", "phd", "researcher"}
_LIKE = {"like", "love", "enjoy", "adore", "prefer", "dig"}
_DISLIKE = {"hate", "dislike", "detest", "loathe", "despise"}
_TRAVEL = {"go", "travel", "fly", "head", "drive", "visit", "return"}
_ABSTRACT = {"idea", "thought", "prospect", "feeling", "fact", "notion", "concept", "way"}
_PLAN_HEADS = {"plan", "intend", "schedule", "go"}
_NO_PLAN_VERBS = {
    "be",
    "have",
    "do",
    "go",
    "need",
    "want",
    "think",
    "know",
    "decide",
    "try",
    "see",
    "get",
    "make",
    "say",
    "tell",
    "let",
}
_PHRASE_STOP_DEPS = {"cc", "conj", "punct", "relcl", "advcl", "mark", "appos", "acl"}
_GENERIC_NOUNS = {
    "thing",
    "things",
    "time",
    "way",
    "idea",
    "year",
    "years",
    "week",
    "day",
    "days",
    "lot",
    "bit",
    "kind",
    "sort",
    "part",
    "today",
    "yesterday",
    "name",
    "head",
    "mind",
    "stuff",
}
_FIRST_PERSON = {"i", "me", "myself"}

