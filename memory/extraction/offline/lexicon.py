"""Words the offline extractor reads by: possessive roles, kinds of nouns, verbs of
preference, travel and plans, and what makes a plausible person name."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from memory.core.words import word_zipf


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


# --- plausible person names -------------------------------------------------------------------

COMMON_WORD_ZIPF = 4.0
"""A word at or above this Zipf frequency (wordfreq: log10 of uses per billion words, plus 9;
4.0 ≈ the 10 000 most used English words) is a common English word, unless it is a given
name of the ``nicknames`` table."""
_KNOWN_NAME_ZIPF = 5.5  # a known given name more common than this is mostly a word ("Will")
_NOUN_SUFFIXES = (
    "ing",
    "ance",
    "ence",
    "ness",
    "ment",
    "tion",
    "sion",
    "ity",
    "ship",
    "ism",
    "hood",
    "ful",
    "ous",
    "ive",
    "ology",
)


@functools.cache
def given_names() -> frozenset[str]:
    """Lower-case given names and their nicknames, from the ``nicknames`` package's table."""
    from nicknames import NickNamer

    namer = NickNamer()
    return frozenset(namer.nickname_lookup) | frozenset(namer.canonical_lookup)


def common_word(name: str) -> bool:
    """``name`` is one common English word that is not a given name ("Nature", "Super",
    "Laughter"): the measure ``bench_locomo`` reports as ``suspect_person_nodes``."""
    words = name.split()
    return (
        len(words) == 1
        and word_zipf(words[0]) >= COMMON_WORD_ZIPF
        and words[0].lower() not in given_names()
    )


@functools.cache
def dictionary_words() -> frozenset[str]:
    """Every noun, verb, adjective and adverb the spaCy model's lemmatizer knows (its
    WordNet-derived ``lemma_index`` table)."""
    from memory.extraction.offline.model import load_model

    lemmatizer = load_model().get_pipe("lemmatizer")
    index = lemmatizer.lookups.get_table("lemma_index")
    return frozenset(word for words in index.values() for word in words)


def _name_word(word: str) -> bool:
    low = word.lower()
    if low in given_names():
        return word_zipf(word) < _KNOWN_NAME_ZIPF
    return (
        word_zipf(word) < COMMON_WORD_ZIPF
        and not low.endswith(_NOUN_SUFFIXES)
        and low not in dictionary_words()
        and low.removesuffix("s") not in dictionary_words()
    )


def plausible_person_name(name: str) -> bool:
    """Could ``name`` (as written) be a person's name? Every word starts with a capital
    letter and is alphabetic (an apostrophe, hyphen or final dot allowed: "O'Neil", "Mr.");
    at most four words; the first word (after a title) is a given name that is not mostly a
    common word ("Will"), or a word that is not a common English word (``COMMON_WORD_ZIPF``),
    not in the spaCy model's dictionary ("Cucumber", "Docker") and without a common-noun
    ending ("Kickboxing"); no later word is a common English word
    other than a given name ("Summer Sounds")."""
    words = name.replace("’", "'").split()
    if not 1 <= len(words) <= 4:
        return False
    for word in words:
        core = word.replace("'", "").replace("-", "").rstrip(".")
        if not core.isalpha() or not word[:1].isupper() or word.lower() in _NOT_NAMES:
            return False
    while len(words) > 1 and words[0].rstrip(".").lower() in _TITLES:
        words = words[1:]
    if not _name_word(words[0]):
        return False
    return not any(
        word_zipf(w) >= COMMON_WORD_ZIPF + 0.5 and w.lower() not in given_names() for w in words[1:]
    )


_TITLES = {"mr", "mrs", "ms", "miss", "dr", "prof", "sir", "dame", "aunt", "uncle"}
_NOT_NAMES = {"i", "i'm", "i'll", "i've", "i'd", "mom", "dad", "mum", "god", "lol", "omg"}
