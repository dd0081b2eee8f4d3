"""The deterministic merge rules (SPEC §5.6); the merge service commits the verdicts.

Asymmetry drives every choice here: a wrong merge destroys two identities, a
missed merge is a fixable duplicate. So a rule merges only when exactly one
stored node qualifies; anything ambiguous or merely similar is held for review
(the LLM or a moderator), and an extractor's hint can send to review, never merge.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

from anyascii import anyascii
from rapidfuzz.distance import OSA, Levenshtein

from memory.core.cleaning import SELF_PLACEHOLDERS, normalise_name
from memory.core.clipped_names import CLIPPED, clipped
from memory.core.descriptions import (
    DETERMINERS,
    description_words,
    english_word,
    fits_description,
    fits_person,
    foreign_description,
    headed_by,
    org_description,
    org_headed,
    said_without_determiner,
    someone_elses,
)
from memory.core.first_names import is_given_name, name_gender, name_group
from memory.core.kinship import KIN_TITLES, KINSHIP_WORDS, kinship_meanings, people_verdict
from memory.core.known_names import known_alike, known_elsewhere, name_key
from memory.core.merge_orgs import LEGAL_FORM, org_core_words, same_company
from memory.core.merge_people import (
    called_by,
    calling_of,
    different_people,
    exact_moved_by_role,
    gender_of_titles,
    lone_calling,
    node_gender,
    person_verdict,
    picked_by_stated_role,
)
from memory.core.merge_places import (
    ACRONYM,
    OWN_PLACE,
    acronym_matches,
    is_acronym_of,
    other_region,
    own_place,
)
from memory.core.merge_properties import (
    PROPERTIES_DIFFER,
    ROLE_DIFFERS,
    ROLE_KEYS,
    affiliation_differs,
    another_of_the_name,
    booked,
    context_of,
    context_shared,
    dated,
    day_moved,
    died,
    finished,
    folded_said,
    for_someone_else,
    handle_stem,
    identified_by,
    introduced_as_stranger,
    life_years,
    lives_apart,
    met_elsewhere,
    named_in_note,
    newcomer_after_death,
    noted_countries,
    noted_names,
    noted_qualifier,
    noted_species,
    occasions_differ,
    owned_by_others,
    place_noted_in,
    place_noted_states,
    place_type_noted,
    placed_apart,
    properties_differ,
    replaces_another,
    role_said,
    roles_differ,
    said_elsewhere,
    said_same_affiliation,
    said_text,
    same_letters,
    someone_elses_animal,
    someone_elses_group,
    someone_elses_named,
    species_class,
    states_region,
    thing_owner,
    type_class,
    types_differ,
    what_it_is,
    whose,
    with_name_year,
    with_named_type,
    with_noted_species,
    work_type,
)
from memory.core.merge_types import (
    HOLD,
    MERGE,
    NEW,
    Mention,
    MergeVerdict,
    StoredNode,
    best_similarity,
    make_verdict,
    node_forms,
)
from memory.core.name_heads import (
    EVENT_HEAD,
    KIND_WORD,
    KIND_WORDS,
    POSSESSOR,
    WEEKDAY,
    WORD_ORDER,
    edition_words,
    event_head,
    extends,
    first_words_of,
    headed_as,
    in_another_order,
    one_festival,
    one_occasion,
    one_occasion_said_otherwise,
    qualified,
    shares_the_name,
    with_day,
    with_kind_word,
    with_stated_type,
    words_added_echoed,
    words_within,
)
from memory.core.name_scripts import same_reading
from memory.core.name_spelling import (
    FOREIGN_ARTICLES,
    fold_accents,
    has_transliterable_letters,
    romanised_alike,
    romanised_name,
    spelling_keys,
    transliteration_key,
    unarticled_keys,
    without_article,
)
from memory.core.person_forms import TRANSLITERATION, is_latin_word
from memory.core.person_names import (
    ARTICLES,
    SHORT_FORM,
    SPELLING,
    contradicts,
    parse_person,
    rank_of,
    relate_first_names,
)
from memory.core.person_roles import (
    ADULT,
    FORMER_PET,
    GIVEN_NAME_COURTESIES,
    MINOR,
    NEWLY_MET_ROLES,
    OWN,
    PEOPLE_ROLES,
    PET,
    PET_ROLES,
    PLANNED,
    POSSESSION,
    POST_TITLES,
    TIE_ROLES,
    TITLES,
    WENT,
    capacities_differ,
    colleagues_both,
    family_roles,
    gender_of,
    kin_of_named,
    kin_words_of,
    newly_met,
    public_and_personal,
    relative_of_an_acquaintance,
    role_word,
    said_unrelated,
    shares_role,
    someone_elses_kin,
    someone_elses_role,
)
from memory.core.place_names import (
    countries_placed,
    country_iso,
    country_key,
    place_countries,
    same_city,
    shared_city_countries,
)
from memory.core.words import COMMON_WORD_ZIPF, STOP_WORDS, word_zipf

__all__ = [
    "CATCH_ALL_KINDS",
    "CONCEPT_KINDS",
    "HOLD",
    "LLM_FLAG_ABOVE",
    "LLM_MERGE_ABOVE",
    "MERGE",
    "NEW",
    "SIMILARITY_THRESHOLD",
    "Mention",
    "MergeVerdict",
    "StoredNode",
    "band_llm_confidence",
    "decide_merge",
    "gender_of_titles",
    "is_self_placeholder",
    "name_group",
    "normalise_name",
    "pick_llm_candidate",
]

SIMILARITY_THRESHOLD = 0.80
# Kinds an extractor uses for what it could not type: a same-named entity of another kind
# may be the same referent (Biscuit the dog stored as OTHER, later said as a PERSON).
CATCH_ALL_KINDS = frozenset({"OTHER", "THING"})
# Kinds that name a concept, not a referent with a name of its own: a word added to one
# ("painted bowl", "unconditional love") names a narrower thing, not the same one.
CONCEPT_KINDS = frozenset({"THING", "TOPIC", "EVENT", "PREFERENCE"})
# Kinds whose names are compared word by word as sets (``_similar_named_thing``).
NAMED_THING_KINDS = frozenset({"ORG", "OTHER"})
# Kinds the user has ties to (works at, studies at, lives in): ``merge_places.own_place``.
NAMED_PLACE_KINDS = frozenset({"ORG", "PLACE"})
# One concept in the singular and the plural ("challenge" / "challenges"): ``_another_number``.
NUMBER = "number"
# A name a property of the other states it is known by (a course's code, a handle).
IDENTIFIER = "identifier"
# A title said by the part before or after its colon.
TITLE_PART = "title-part"
KNOWN_NAME = "known-name"
MISSPELT = "misspelt"
QUALIFIED = "qualified"
# One name for two sorts of thing by what was said of each (a project and a framework).
EXACT_TYPE_DIFFERS = "exact-type-differs"
# One concept the extractor typed two ways (a camping trip as an EVENT and as a THING).
CONCEPT_KIND = "concept-kind"
# One name, two people the user's family relations tell apart (a father and his son).
FAMILY_DIFFERS = "family-differs"
PUBLIC_DIFFERS = "public-differs"
# A known referent named by a description ("my sister", "the church"): ``descriptions``.
DESCRIPTION = "description"
# Kinds a description reaches besides people: concepts and preferences have no referent
# of their own to describe ("the food" is no known thing).
DESCRIBED_KINDS = frozenset({"ORG", "PLACE", "EVENT", "THING", "OTHER"})
# A country's other name (Holland / the Netherlands, Türkiye / Turkey, UK / United Kingdom):
# ``place_names.country_iso``.
COUNTRY_NAME = "country-name"
# Kinds whose names are cut short as people say them ("Mass General"): ``clipped_names``.
CLIPPED_KINDS = frozenset({"ORG", "PLACE", "EVENT"})
# A city's other name (Bombay/Mumbai): ``place_names.same_city``.
CITY_NAME = "city-name"
LLM_MERGE_ABOVE = 0.90
LLM_FLAG_ABOVE = 0.70

_WORD = re.compile(r"[^\W_]+")
# What numbers an entry of a series after a title's colon ("Part Two", "Vol. 2", "Season 3").
_SEQUEL = re.compile(
    r"(?:(?:part|chapter|volume|vol\.?|book|season|series|episode|act)\s+)?"
    r"(?:\d+|[ivx]+|one|two|three|four|five|six|seven|eight|nine|ten)"
)


def is_self_placeholder(name: str) -> bool:
    """Whether ``name`` stands for the user ("me", "I", "The User", …; §5.6)."""
    return normalise_name(name) in SELF_PLACEHOLDERS


def _words(norm: str) -> list[str]:
    return _content(_WORD.findall(norm))


def _content(tokens: list[str]) -> list[str]:
    # Function words ("the", "of") would make "The Smiths" a candidate for
    # "The Beatles"; names made only of them keep all their words.
    content = [t for t in tokens if t not in STOP_WORDS]
    return content or tokens


def _contains_words(longer: list[str], shorter: list[str]) -> bool:
    n = len(shorter)
    return any(longer[i : i + n] == shorter for i in range(len(longer) - n + 1))


def _similar(new: str, form: str, threshold: float, *, kind: str = "") -> bool:
    if kind in CONCEPT_KINDS:
        return _similar_concept(new, form, threshold)
    if kind == "PLACE" and (other_region(new, form) or _another_place(new, form)):
        return False  # Portland, Maine and Portland, Oregon; York and New York: two places
    if Levenshtein.normalized_similarity(new, form) > threshold:
        return True
    if kind in NAMED_THING_KINDS:
        return _similar_named_thing(new, form, org=kind == "ORG")
    a, b = _words(new), _words(form)
    if not a or not b:
        return False
    shorter, longer = (a, b) if len(a) <= len(b) else (b, a)
    if _contains_words(longer, shorter):
        return True
    return len(set(a) & set(b)) * 2 >= max(len(a), len(b))


# Words that make a place's name another place's: a direction or "new" before it (South
# Kensington, New York), a kind of road after it (Richmond Road). "Lake" and "Mount" are
# left out (Tahoe is Lake Tahoe), and so are "City" and "State": New York City is often
# just New York, while Mexico City is not Mexico — a question.
_PLACE_BEFORE = frozenset({"new", "north", "south", "east", "west", "upper", "lower"})
_PLACE_AFTER = frozenset({"road", "street", "avenue", "lane", "drive", "way"})


def _another_place(a: str, b: str) -> bool:
    """Whether one place name is the other with a word that names another place (above)."""
    x, y = sorted((_words(a), _words(b)), key=len)
    if len(y) != len(x) + 1 or not x:
        return False
    return (y[1:] == x and y[0] in _PLACE_BEFORE) or (y[:-1] == x and y[-1] in _PLACE_AFTER)


def _similar_named_thing(new: str, form: str, *, org: bool) -> bool:
    """Rule 5 for an organisation or a catch-all thing (``NAMED_THING_KINDS``): a candidate
    when one name's words are all among the other's ("Google" in "Google Cloud", "Oxford
    University" and "University of Oxford"), an organisation's legal form left out
    ("Acme Widgets" and "Acme Corp"). Two names that each have a word the other lacks name
    two things: "Acme Robotics" and "Acme Logistics", "Mayo Clinic" and "Cleveland Clinic",
    "Spanish class" and "pottery class"."""
    if org:
        a, b = _content(org_core_words(new)), _content(org_core_words(form))
    else:
        a, b = _words(new), _words(form)
    if not a or not b:
        return False
    return set(a) <= set(b) or set(b) <= set(a)


def _similar_concept(new: str, form: str, threshold: float) -> bool:
    """Rule 5 for a concept (``CONCEPT_KINDS``): only a spelling close enough to be the same
    words — a misspelling ("potery") or another number ("challenges") — is a candidate.
    Shared or contained words are not: "bowl" and "painted bowl", "love" and "unconditional
    love" are two things, where a person's first name inside a full name is one person."""
    if Levenshtein.normalized_similarity(new, form) <= threshold:
        return False
    a, b = _WORD.findall(new), _WORD.findall(form)
    if len(a) != len(b):
        return True
    changed = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    return not all(_two_words(x, y) for x, y in changed)


def _two_words(x: str, y: str) -> bool:
    """``x`` and ``y`` are two different common English words, not one word misspelt or
    inflected for number ("making"/"taking" yes; "challenge"/"challenges", "potery" no)."""
    if _singular(x) == _singular(y):
        return False
    return word_zipf(x) >= COMMON_WORD_ZIPF and word_zipf(y) >= COMMON_WORD_ZIPF


def _another_number(new: str, form: str) -> bool:
    """The same words, one or more said in the other grammatical number ("friend" /
    "friends", "dance class" / "dance classes"): one concept."""
    a, b = _WORD.findall(new), _WORD.findall(form)
    return (
        a != b
        and len(a) == len(b)
        and all(x == y or _singular(x) == _singular(y) for x, y in zip(a, b, strict=True))
    )


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _one_or_several(ids: Sequence[int], rule: str) -> MergeVerdict:
    action = MERGE if len(ids) == 1 else HOLD
    return make_verdict(
        action, ids, rule if len(ids) == 1 else f"{rule}-ambiguous", dict.fromkeys(ids, 1.0)
    )


def decide_merge(
    name: str,
    kind: str,
    stored: Sequence[StoredNode],
    *,
    hint: str | None = None,
    similarity_threshold: float = SIMILARITY_THRESHOLD,
    mention: Mention | None = None,
) -> MergeVerdict:
    """Apply the merge rules of SPEC §5.6 to one proposed entity.

    Inputs: the entity's cleaned ``name`` and ``kind``, the user's stored nodes (any
    kinds; only same-kind nodes are compared, except by rule 4), the extractor's optional
    ``hint`` ("this might be X"), the similarity threshold (1 − normalised edit distance)
    and what the batch says about the entity (``mention``: roles, gender, and the nodes a
    person settled as different — those are left out of every rule).

    Stored nodes that what was said of the entity makes another referent — an identifying
    property of the kind with values that cannot be one thing (Luna the cat, the neighbour's
    dog Luna; Cambridge, UK and Cambridge, USA: ``merge_properties.properties_differ``), or
    a young or new animal against a stored one that died (the puppy named after the old dog:
    ``merge_properties.newcomer_after_death``) — are left out of every rule, as kept-apart
    ones are; if one had the entity's name, the verdict is new under "properties-differ"
    (the Write names it "Luna (dog)").

    Stored people are first read for what their names and notes say of them: a person known
    only by a title of a calling has the calling as a role (Father Tomás: a priest,
    ``_with_calling``), and one whose note says they go by another name has it before each
    end of their name (Kim Min-jun "goes by Daniel": Daniel Kim, ``_with_noted_names``). A
    person merged by any rule is asked about instead when the notes place the two in no
    common country (``_placed_apart``).

    Rules, first that applies wins (each a function of ``_RULES``, in this order):
      0. a self placeholder ("me", "the user", …) merges into the self node
         regardless of kind (rule "self"); with no self node yet: new, rule "self";
      1. the same normalised name → merge ("exact"); several → hold. A PERSON whose
         relations with the user contradict its exact namesake's (Theo the boss, Theo the
         brother) goes instead to the one other person of that first name with the same
         relation ("<rule>-by-role", ``merge_people.exact_moved_by_role``); with none, and
         family relations on both sides that cannot be one person (the user's father and
         son, both Marco Bianchi) → new ("family-differs"; the Write numbers its name).
         A first name alone said exactly (or a title and surname) is weighed as part of a
         name (``_exact_part_name``: "exact-ambiguous", "exact-by-role",
         "exact-role-differs"); a client against a boss of one full name, or a thing of
         another stated type, is held ("exact-role-differs", "exact-type-differs");
         A name the graph already holds two referents of — the plain one and one
         labelled ("Dune" and "Dune (2021 film)", the Write's "Luna (dog)", "Harry Potter
         film series": ``name_heads.qualified``) — goes to the one the user's tie (read,
         watched) or the type said picks ("exact-by-role", "exact-by-type"), else is asked
         ("exact-ambiguous"); with the plain one set apart by what was said, to the
         labelled one ("qualified", after rule 2);
      2. the name equals a normalised alias of exactly one node → merge ("alias");
         of several → hold ("alias-ambiguous"); a name a property states the node is known
         by (a code, a handle) → merge ("identifier"); another name a note gives, by a
         word of renaming or calling or in quotes ("became Northfield Academy", "the kids
         call him 'Whitty'") → merge ("named-in-note", ``merge_properties.named_in_note``;
         a person only when nobody else may be meant); a title's part before or after its
         colon, not for people → merge ("title-part"); several → hold;
      2b. the same spelling (``name_spelling.spelling_keys``: accents, German digraphs,
         apostrophes, hyphens and punctuation aside: Zoë/Zoe, Müller/Mueller,
         O'Sullivan/OSullivan) → merge ("spelling"), several → hold;
      2c. ORG only: the same core name with the same legal form written another way, or
         with a legal form on one side only (Acme Corp / Acme Corporation, Google / Google
         LLC) → merge ("legal-form"), several → hold;
      2c'. PLACE only: another name of the same country (Holland / the Netherlands, Türkiye /
         Turkey, UK / United Kingdom: ``place_names.country_iso``; not a part of one, as
         Scotland) → merge ("country-name"), several → hold;
      2d. ORG, PLACE, EVENT, THING, TOPIC, PREFERENCE: an acronym of the other name's
         words, either way (UCLA /
         University of California, Los Angeles; NHS / National Health Service) → merge
         ("acronym"), several → hold; two letters alone only into a node the user has a tie
         to, else hold (``merge_places.acronym_matches``);
      2e. PLACE only: another name of the same city in GeoNames (Bombay / Mumbai, Köln /
         Cologne, Москва / Moscow: ``place_names.same_city``) → merge ("city-name");
         several, or a location said on either side (which city is then a question) → hold;
      2f. ORG, PLACE, EVENT: the name with its words cut short ("Mass General", "Man Utd",
         "Glasto": ``clipped_names``) → merge ("clipped"); several → hold;
      2f'. not for people: another name of a well-known entity (``known_names.txt``:
         Facebook / Meta, Maccas / McDonald's, Brum / Birmingham, Deepavali 2023 / Diwali
         2023, aubergine / eggplant) → merge ("known-name"), several → hold;
      2g. a description — a determiner or possessive and what the thing is ("my sister",
         "the church", "our cabin in Bend") — fitting exactly one stored node of the kind
         (a person by the user's relation, anything else by the words of its name, aliases
         and properties: ``descriptions``; a person of several words by relations, role,
         place and company; without a determiner, "Leo's teacher", or a common noun said
         of what the user has a tie to; in Spanish, Portuguese, French, Italian or German,
         "mi coche", "el casero": ``descriptions.foreign_description``) → merge
         ("description"); several → hold. EVENT
         also: one occasion of more or fewer people ("Sarah's wedding" / Sarah and Ben's
         wedding) → merge ("possessor");
      3. PERSON only: a kinship word alone ("Mom", "Appa") → the one person the user has
         that relation to ("kinship"), a kinship title + name ("Tía Rosa") → the person
         rules on the name ("kin-title"), a full name said as the user's mother or father →
         the parent named "Mom"/"Dad" (``kinship.people_verdict``); then
         (``merge_people.person_verdict``): nickname, title + surname, first
         name of a full name, respelling, clipped or pet form, another script, middle names
         left out, swapped order, surname alone, one first name and one close-family role —
         exactly one candidate that nothing contradicts → merge under that rule (held as
         "<rule>-role-differs" when both sides state a role sharing no word:
         ``merge_properties.roles_differ``); several →
         hold ("<rule>-ambiguous") unless the user's relation picks one
         ("<rule>-by-role"), the company said ("<rule>-by-affiliation"), a profession
         title the stated role ("title"); a variant of the name ("variant") or another
         plausible reading
         ("<rule>-near-tie") → hold; a gendered title against the first name of its only
         match ("title-gender") or only contradicted ones ("contradiction") → new. The same
         rules reach the user's pets (HAS_PET) of a catch-all kind;
      4. the same name (or alias) on a non-provisional node of another kind, when either
         kind is a catch-all (OTHER, THING) → hold ("other-kind"), never a silent twin —
         unless the user's relations tell them apart (a friend is not a pet), or what was
         said makes them two sorts of thing (an animal, a person, an object, a subject:
         Pepper the cat and Pepper the robot vacuum);
      5. candidates for review ("similar"): similarity > threshold, or one name's
         words found contiguously in the other's, or sharing at least half the
         words of the longer name (function words ignored) — except two full person
         names that are clearly different people (``merge_people.different_people``);
         for a concept (``CONCEPT_KINDS``) only the similarity counts, and not between
         two different common words (``_similar_concept``); for an ORG or OTHER only the
         similarity, or one name's words all among the other's (``_similar_named_thing``);
         for a PLACE not one name in two regions ("Portland, Maine" / "Portland, Oregon"),
         nor one with a word that makes it another place ("New York" / "York", "Richmond
         Road" / "Richmond": ``_another_place``).
         Among an ORG's or a PLACE's candidates, the user's own employer, school or home
         named by its first words → merge ("own-place", ``merge_places.own_place``); an
         ORG's or a THING's name typed one letter wrong, the only candidate → merge
         ("misspelt", ``_misspelt``: Volkswagon / Volkswagen); an ORG said by part of the
         one candidate's name → merge ("first-words", "words-within": ``_part_of_name``),
         or with words after it that the candidate's note says → merge ("words-held").
         Before rule 5: the user's thing by its model ("model": Kuga, the Ford Kuga), and
         an event, a work or a set said by the name several stored ones share (Diwali with
         2023's and 2024's, "Mulan" with two films) → hold ("editions"), unless the
         note gives the year of exactly one → merge ("edition-year");
      6. a hint naming a same-kind node's name or alias exactly → hold ("hint");
      7. otherwise new ("none").
    A person merged whom another stored person's note says is called by the name said
    ("Mummy", the mother-in-law "I also call her Mummy") is asked about instead
    ("called-otherwise": ``_unless_called_otherwise``).
    A person left new, or asked about among no one else, whom the user names in a relation
    the graph holds one person in (a partner, a parent, "my landlady") is that person
    ("one-relation": ``_one_of_the_relation``).

    Output: a ``MergeVerdict``; ``scores`` are 1.0 for rule matches (edit similarity for a
    respelling) and the best edit similarity over the node's name and aliases otherwise.
    """
    mention = mention or Mention()
    if is_self_placeholder(name):
        selves = [n.id for n in stored if n.is_self]
        if not selves:
            return MergeVerdict(NEW, None, (), "self", {})
        return make_verdict(
            MERGE if len(selves) == 1 else HOLD, selves, "self", dict.fromkeys(selves, 1.0)
        )
    kind = kind.strip().upper()
    if kind == "PERSON":
        # "Kavitha from HR", "Julien de Capgemini": the name, with where the person is from
        # left to the note that says it (round 32).
        name = _without_from(name)
    new = normalise_name(name)
    if not new:
        return MergeVerdict(NEW, None, (), "none", {})
    # What was said of it may make a stored node another referent (Luna the cat, the
    # neighbour's dog Luna): such nodes are left out of every rule, like kept-apart ones.
    said_of = with_named_type(kind, name, mention.properties)
    if kind == "OTHER":
        # "a cow called Bessie": the species a note gives an animal.
        said_of = with_noted_species(normalise_name(name), said_of)
    apart = _ApartSaid(
        countries=noted_countries(said_of) if kind in ("ORG", "EVENT") else frozenset(),
        whose=whose(said_of, own=OWN in mention.roles, name=name),
        someones_animal=someone_elses_animal(mention.properties),
        someones_named=kind in _OWNED_KINDS
        and someone_elses_named(name, mention.properties, kin=False),
        called_alike=another_of_the_name(normalise_name(name), mention.properties),
        species=noted_species(said_of)
        if kind == "OTHER" and isinstance(said_of.get("species"), str)
        else None,
        someones_kin=someone_elses_kin(name, mention.properties) if kind == "PERSON" else "",
        kin_of=_kin_of(new, mention) if kind == "PERSON" else frozenset(),
        kin_of_roles=_kin_of_roles(new, mention) if kind == "PERSON" else frozenset(),
        life=life_years(mention.properties) if kind == "PERSON" else (None, None),
        acquaintances_kin=kind == "PERSON" and relative_of_an_acquaintance(mention.properties),
        tie=_noted_relation(mention.properties) if kind == "PERSON" else None,
        owner=thing_owner(mention.properties) if kind in ("THING", "OTHER") else frozenset(),
        another_occurrence=kind == "EVENT" and _another_of(new, mention),
        place_countries=place_noted_in(new, mention.properties) if kind == "PLACE" else frozenset(),
        place_states=place_noted_states(new, mention.properties)
        if kind == "PLACE"
        else frozenset(),
        place_type=place_type_noted(mention.properties) if kind == "PLACE" else "",
        someones_roles=_someone_elses_roles(name, mention) if kind == "PERSON" else frozenset(),
        someones_group=someone_elses_group(mention.properties) if kind == "ORG" else "",
        replaces=kind == "THING" and replaces_another(said_of),
        another_copy=kind == "THING" and replaces_another(said_of, same_name=True, name=name),
        newly_met=newly_met(mention.properties, name) if kind == "PERSON" else "",
        qualifier=noted_qualifier(name, mention.properties) if kind == "PLACE" else "",
        years=_years_said(mention.properties) if kind == "EVENT" else frozenset(),
        note=fold_accents(said_text(mention.properties)) if kind == "PERSON" else "",
        appositive=_appositive(name, mention) if kind == "PERSON" else frozenset(),
    )
    if kind == "PERSON":
        stored = [_with_calling(_with_noted_names(n, mention), mention) for n in stored]
    differ = [n for n in stored if _set_apart(kind, new, mention, apart, said_of, n)]
    left_out = mention.apart | {n.id for n in differ}
    usable = [n for n in stored if n.id not in left_out]
    said = _Said(
        name=name,
        new=new,
        kind=kind,
        mention=mention,
        usable=usable,
        same_kind=[n for n in usable if n.kind == kind],
        hint=hint,
        threshold=similarity_threshold,
        set_apart=frozenset(f for n in differ if n.kind == kind for f in node_forms(n)),
    )
    for rule in _RULES:
        verdict = rule(said)
        if verdict is not None:
            verdict = _unless_called_otherwise(said, _unless_known_elsewhere(said, verdict))
            verdict = _unless_a_person_in_doubt(said, _unless_placed_otherwise(said, verdict))
            return _one_of_the_relation(said, verdict)
    namesake = any(n.kind == kind and new in node_forms(n) for n in differ)
    if namesake:
        return MergeVerdict(NEW, None, (), PROPERTIES_DIFFER, {})
    return _one_of_the_relation(said, MergeVerdict(NEW, None, (), "none", {}))


# A person's name said with where they are from: "Paul from exams", "Julien de Capgemini".
_NAME_FROM = re.compile(r"^(\w[\w'’-]*(?:\s+\w[\w'’-]*)?)\s+(?:from|de|von|aus|da|di)\s+\S.*$")


def _without_from(name: str) -> str:
    """The name of "Kavitha from HR" (Kavitha) — only when it begins with a capitalised
    given name or an uncommon word ("The lady from church" is a description). After "de",
    "von" and the like, a capitalised word is a surname: "Maria de Souza" and "Ursula von
    der Leyen" are full names, kept whole."""
    match = _NAME_FROM.match(name.strip())
    first = match.group(1).split()[0] if match else ""
    if not first[:1].isupper() or not (
        is_given_name(first.lower()) or word_zipf(first.lower()) < COMMON_WORD_ZIPF
    ):
        return name
    rest = name.strip()[match.end(1) :].split(maxsplit=1)
    if rest[0].lower() != "from" and any(
        w[:1].isupper() and not w.isupper() for w in rest[1].split()
    ):
        return name
    return match.group(1)


ONE_RELATION = "one-relation"
# Relations a user has to one person at a time: a partner, a parent, a parent-in-law, an
# ex (the one the graph holds).
_ONE_HOLDER = frozenset(
    {"partner", "partner_f", "partner_m", "fiance", "mother", "father", "ex"}
    | {"mother_in_law", "father_in_law", "stepmother", "stepfather"}
)
# Verdicts that found no one, or only the one person of the relation, by the name.
_NAME_FOUND_NO_ONE = frozenset({"none", "similar", "variant"})


def _one_of_the_relation(s: _Said, verdict: MergeVerdict) -> MergeVerdict:
    """A person said as the user's partner, mother, father, parent-in-law or ex, when the
    graph holds one person in that relation and the name found no one else: that person
    ("mi amor", HAS_HUSBAND, with Diego the husband; "belle-mère", with Brigitte, the
    mother-in-law; "Olga Sidorova", the ex-wife Olga Petrova who remarried; "阿伟", the
    boyfriend 王伟) — the user has one at a time. Not when both give names the lists know
    as two first names (Jordan, the partner since April; Alex, the partner the user broke up
    with), nor against a kinship word's question (a father and a stepfather)."""
    if s.kind != "PERSON" or verdict.rule not in _NAME_FOUND_NO_ONE or verdict.action == MERGE:
        return verdict
    said = s.mention.roles & _ONE_HOLDER
    if not said and _said_as_description(s):
        # "my RA", "mi psicóloga", "научрук": no name at all, only the relation — the one
        # person the graph holds in it, unless this one is said to be new.
        said = s.mention.roles
    holders = [n for n in s.same_kind if not n.is_self and shares_role(said, n.roles)]
    if not said or len(holders) != 1:
        return verdict
    only = holders[0]
    if verdict.action == HOLD and set(verdict.candidates) - {only.id}:
        return verdict
    if _two_given_names(s.new, only):
        return verdict
    return make_verdict(MERGE, [only.id], ONE_RELATION, {only.id: best_similarity(s.new, only)})


# A person said by a possessive or an article and a word for what they are.
_DESCRIBED_BY = frozenset(
    {"my", "our", "the", "mi", "mis", "mein", "meine", "ma", "mon", "minha", "meu", "mia"}
    | {"mio", "il", "la", "le", "el", "moja", "moj", "mijn", "onze", "de"}
)
_SAID_NEW = re.compile(
    r"\b(?:new|another|nuev[oa]s?|nouve(?:au|lle)s?|neue[rsnm]?|neu|nov[oa]s?|nuov[oa]|now[ya])\b"
)


def _said_as_description(s: _Said) -> bool:
    """Whether a person is said by no name, only by what they are to the user ("my RA", "mi
    psicóloga", "bestie", "научрук"), and not said to be a new one ("my new tandem
    partner", "the new manager")."""
    words = s.new.split()
    led = words[0] in _DESCRIBED_BY
    described = led or (s.name == s.name.lower() != s.name.upper())
    # "My" and "Mia" are given names too: the word leading a description is not read as one.
    if not described or any(is_given_name(w) for w in words[1 if led else 0 :]):
        return False
    said = " ".join([s.new, said_text(s.mention.properties)])
    return not _SAID_NEW.search(said) and not newly_met(s.mention.properties)


def _two_given_names(new: str, node: StoredNode) -> bool:
    """Whether the name said and every name of the node begin with first names the lists
    know that are no forms of one another (Jordan / Alex, Karen / Patricia)."""
    first = parse_person(new).first
    if not is_given_name(first):
        return False
    group = name_group(first)
    for form in node_forms(node):
        other = parse_person(form).first
        if not is_given_name(other) or other in group or name_group(other) & group:
            return False
        if other.startswith(first) or first.startswith(other):
            return False
    return True


# Rules that merge on what a name may be short for; the known-names table may know better.
FIRST_WORDS = "first-words"
WORDS_WITHIN = "words-within"
_SHORT_FORM_RULES = frozenset(
    {ACRONYM, OWN_PLACE, CLIPPED, SPELLING, DESCRIPTION, KNOWN_NAME, FIRST_WORDS, WORDS_WITHIN}
)
KNOWN_ELSEWHERE = "known-elsewhere"


def _unless_known_elsewhere(s: _Said, verdict: MergeVerdict) -> MergeVerdict:
    """A merge on what a name may be short for (its letters, a part, a clipping) is asked
    about when the world knows the name as another entity's, or several entities'
    (``known_names.known_elsewhere``: "UCL" with the University of Central Lancashire
    stored; "Trinity" with Trinity College Dublin, as Cambridge has one too)."""
    if verdict.action != MERGE or verdict.rule not in _SHORT_FORM_RULES or s.kind == "PERSON":
        return verdict
    target = next(n for n in s.same_kind if n.id == verdict.target)
    if not known_elsewhere(s.kind, s.name, node_forms(target), said_text(s.mention.properties)):
        return verdict
    return make_verdict(HOLD, [target.id], KNOWN_ELSEWHERE, dict(verdict.scores))


PLACED_OTHERWISE = "placed-otherwise"
# Where a note places a place or an organisation: a proper name after in, near, outside or
# at ("the one in St. Louis", "near Bala"), or the name a note opens with ("Monmouthshire,
# Dad's family were dockers there", "Halifax, Yorkshire").
_PLACED_AT = re.compile(
    r"\b(?:in|near|outside|at)\s+((?:St\.?\s+)?[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’-]*){0,2})"
)
_PLACED_OPENING = re.compile(r"^\s*([A-Z][\w'’.-]*(?:\s+[A-Z][\w'’-]*){0,2})\s*[,;]")
_NO_PLACES = frozenset(
    {"january", "february", "march", "april", "may", "june", "july", "august", "september"}
    | {"october", "november", "december", "christmas", "easter", "the", "my", "our"}
    | {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
)


def _placed_names(name: str, said: Mapping[str, object]) -> frozenset[str]:
    note = said.get("note")
    if not isinstance(note, str):
        return frozenset()
    found = [m.group(1) for m in _PLACED_AT.finditer(note)]
    opening = _PLACED_OPENING.match(note)
    found += [opening.group(1)] if opening else []
    own = fold_accents(name).lower()
    out = set()
    for phrase in found:
        words = fold_accents(phrase).lower().replace(".", "").split()
        key = " ".join(words)
        if words and words[0] not in _NO_PLACES and key not in own and own not in key:
            out.add(key)
    return frozenset(out)


CALLED_OTHERWISE = "called-otherwise"
# Rules that picked one person among several by what was said of them.
_WEIGHED = ("-by-context", "-by-role", "-by-place", "-by-affiliation", "-by-age")


def _unless_called_otherwise(s: _Said, verdict: MergeVerdict) -> MergeVerdict:
    """Round 33: a person merged by any other rule is asked about when another stored
    person's note gives the name said as what they are called ("Mummy", the mother, with the
    mother-in-law "I also call her Mummy")."""
    if verdict.action != MERGE or s.kind != "PERSON" or verdict.rule == NAMED_IN_NOTE:
        return verdict
    if _a_common_word(s) or verdict.rule.endswith(_WEIGHED):
        # "Jun", picked by the note's "Osaka" among Jun Watanabe and the cousin everyone
        # calls Jun: the person rules weighed both already (``_with_noted_names``).
        return verdict
    target = next(n for n in s.same_kind if n.id == verdict.target)
    if shares_role(s.mention.roles & PEOPLE_ROLES, target.roles):
        # "Amma", said as the mother, is the mother, whoever else is called so.
        return verdict
    others = _called_so(s, besides=verdict.target)
    if not others:
        return verdict
    ids = [*verdict.candidates, *others]
    return make_verdict(HOLD, ids, CALLED_OTHERWISE, {**dict.fromkeys(ids, 1.0), **verdict.scores})


def _placed_by_name(new: str, target: StoredNode) -> frozenset[str]:
    """Round 33: the place a stored name adds after the name said ("Goethe-Gymnasium
    Kassel", said "Goethe-Gymnasium"; "Cleveland Clinic Abu Dhabi"), when the data knows it
    as a place."""
    name = fold_accents(target.name).lower()
    said = fold_accents(new).lower()
    if not name.startswith(said + " "):
        return frozenset()
    rest = name[len(said) :].strip(" ,()")
    return frozenset({rest}) if rest and place_countries(rest) else frozenset()


def _unless_placed_otherwise(s: _Said, verdict: MergeVerdict) -> MergeVerdict:
    """Round 31: a place or an organisation merged by its name is asked about when the
    entity's note and the stored one's each place it by proper names (for an acronym, round
    34: the entity's note alone, by a place nothing held of the stored one names), none
    shared nor within another ("Newport", "Rhode Island, where the Portuguese cousins settled", with
    Newport "Monmouthshire, Dad's family were dockers there"; St Patrick's Cathedral "New
    York" and "Dublin"): two places of one name, or one place named by a district and by its
    city ("Westlands" and "Nairobi") — the data knows too few regions to tell which."""
    if verdict.action != MERGE or s.kind not in ("PLACE", "ORG"):
        return verdict
    said = _placed_names(s.name, s.mention.properties)
    if not said:
        return verdict
    target = next(n for n in s.same_kind if n.id == verdict.target)
    held = _placed_names(target.name, target.properties) | _placed_by_name(s.new, target)
    if not held and verdict.rule == ACRONYM:
        # Round 34: an acronym said, right before it, in a place nothing held of the stored
        # one names ("USP in Suva, Fiji", with the Universidade de São Paulo; "SNU near
        # Greater Noida"); not where something else of it is ("the FRCC hut in Langdale").
        known = fold_accents(" ".join(node_forms(target))) + " " + folded_said(target.properties)
        note = str(s.mention.properties.get("note", ""))
        beside = re.search(rf"{re.escape(s.name.strip())}\s+(?:in|near)\s+([A-Z][\w'’-]*)", note)
        if beside and fold_accents(beside.group(1)).lower() not in known:
            return make_verdict(HOLD, verdict.candidates, PLACED_OTHERWISE, dict(verdict.scores))
        return verdict
    if not held or any(a in b or b in a for a in said for b in held):
        return verdict
    return make_verdict(HOLD, verdict.candidates, PLACED_OTHERWISE, dict(verdict.scores))


INDEFINITE = "indefinite"
TRADE_BESIDE_NAME = "trade-beside-name"
# Ties of family and home that a trade said beside the name does not fit.
_HOME_TIES = frozenset({"neighbour", "flatmate", "roommate", "housemate"})


def _described_as_someone_elses(s: _Said, target: StoredNode) -> bool:
    """Round 35: "the builder", the note saying "Mum's builder down in Exeter", against the
    user's own builder, whose note names nobody's: someone else's builder."""
    words = s.new.split()
    if len(words) < 2 or words[0] != "the":
        return False
    note = said_text(s.mention.properties)
    match = re.search(rf"\b(\w+)['’]s\s+{re.escape(words[-1])}\b", note)
    if not match or match.group(1) in ("my", "our", "it", "that", "there", "what", "who"):
        return False
    return f"{match.group(1)}'s" not in said_text(target.properties).replace("’", "'")


def _trade_beside_name(s: _Said, target: StoredNode) -> bool:
    """Round 35: a first name said with a lower-case word after it, as the note writes it
    ("Mihai instalatorul", "Marco l'idraulico", "Marcelo pintor"), against a
    stored person of that first name alone who is family or lives beside the user and whose
    note says none of it (the cousin in Italy, the brother in Turin, the neighbour in 52):
    the plumber or the painter is someone else. Not a title or a form of address after the
    name ("Rakesh bhaiya", "Maryam jan"): words of five letters or more, none of kinship."""
    written = _as_written(s.name, s.mention).split()
    if len(written) < 2 or not all(w[:1].islower() for w in written[1:]):
        return False
    if not (family_roles(target.roles) or target.roles & _HOME_TIES):
        return False
    forms = node_forms(target)
    if any(len(f.split()) > 1 for f in forms) or fold_accents(written[0]).lower() != fold_accents(
        forms[0]
    ):
        return False
    said = [fold_accents(w).lower().split("'")[-1] for w in written[1:]]
    if parse_person(s.new).title or any(len(w) < 5 or kinship_meanings(w) for w in said):
        # A form of address after the name, not a trade: "Rakesh bhaiya", "Maryam jan".
        return False
    # Every word said is five letters or more, so a word held that begins with it counts.
    held = _held_words(target.properties, ())
    return not any(_said_in(w, held, exact=False) for w in said)


def _unless_a_person_in_doubt(s: _Said, verdict: MergeVerdict) -> MergeVerdict:
    """A person merged by any name rule is asked about instead when the user speaks of them
    as someone not known ("Mia's new school has a Mr Ali teaching Year 6", "a guy called
    Tom", "another Sophie": ``INDEFINITE``), by a title of another sort than the stored
    one's ("Dr Okonkwo" the lecturer, "Mr Okonkwo" the landlord: ``TITLES_DIFFER``), or
    with notes that place the two in different countries (``PLACED_APART``)."""
    if verdict.action != MERGE or s.kind != "PERSON":
        return verdict
    if introduced_as_stranger(s.name, s.mention.properties):
        return make_verdict(HOLD, verdict.candidates, INDEFINITE, dict(verdict.scores))
    target = next(n for n in s.same_kind if n.id == verdict.target)
    if _trade_beside_name(s, target):
        return MergeVerdict(NEW, None, (), TRADE_BESIDE_NAME, {})
    if verdict.rule == DESCRIPTION and _described_as_someone_elses(s, target):
        return MergeVerdict(NEW, None, (), SOMEONE_ELSES, {})
    if _titles_apart(parse_person(s.new).title, target):
        return make_verdict(HOLD, verdict.candidates, TITLES_DIFFER, dict(verdict.scores))
    if _ranks_apart(s, target):
        return make_verdict(HOLD, verdict.candidates, RANKS_DIFFER, dict(verdict.scores))
    if parse_person(s.new).title in GIVEN_NAME_COURTESIES and any(
        not r.endswith("_in_law") for r in family_roles(target.roles)
    ):
        # "Kyria Eleni", Yiayia's neighbour, and Eleni the user's grandmother: nobody calls
        # their own family Mrs or Don — an in-law, maybe ("Don Paco", the father-in-law).
        return make_verdict(HOLD, verdict.candidates, COURTESY_FOR_FAMILY, dict(verdict.scores))
    if _placed_apart(s.mention, target):
        return make_verdict(HOLD, verdict.candidates, PLACED_APART, dict(verdict.scores))
    if _noted_otherwise(s.mention, target):
        return make_verdict(HOLD, verdict.candidates, NOTED_OTHERWISE, dict(verdict.scores))
    generation = _generation_namesakes(s, target)
    if generation:
        # "Mike Brennan", with Michael Brennan and Michael Brennan Jr.: father or son (round
        # 31).
        ids = [target.id, *generation]
        return make_verdict(HOLD, ids, GENERATIONS, dict.fromkeys(ids, 1.0))
    if verdict.rule == "first-name" and _surname_unconnected(s, target):
        return make_verdict(HOLD, verdict.candidates, SURNAME_UNCONNECTED, dict(verdict.scores))
    return verdict


NOTED_OTHERWISE = "noted-otherwise"


def _noted_otherwise(mention: Mention, node: StoredNode) -> bool:
    """Round 30: someone said as the user's relative ("my brother-in-law Kevin"), and a
    stored person of no family tie whose note opens by another tie ("old classmate from
    Hillcrest"), or (round 31) whose stated role is none ("house help"): a classmate may
    have married into the family, or may not — asked. A partner is not compared: a date
    becomes one."""
    if not family_roles(mention.roles) - _PARTNERS or family_roles(node.roles):
        return False
    # ... or a stated role that is no relation ("house help"; round 31).
    stated = node.properties.get("role")
    if (
        isinstance(stated, str)
        and stated.strip()
        and not family_roles(
            frozenset({role_word(w) for w in re.findall(r"[a-z]+", stated.lower())})
        )
    ):
        return True
    note = node.properties.get("note")
    if not isinstance(note, str):
        return False
    opening = re.split(r"[,;.(]", note.lower(), maxsplit=1)[0]
    return any(
        (role := role_word(w)) in PEOPLE_ROLES and not family_roles(frozenset({role}))
        for w in re.findall(r"[a-z]+", opening)
    )


_PARTNERS = frozenset({"partner", "partner_f", "partner_m", "fiance"})
SURNAME_UNCONNECTED = "surname-unconnected"
_SURNAME_PARTICLES = frozenset({"van", "von", "de", "da", "di", "du", "del", "der", "le", "la"})


def _surname_unconnected(s: _Said, node: StoredNode) -> bool:
    """Whether a full name is said of a person the graph knows by a given name alone, with
    no relation to the user in common and nothing said now that is held of them ("Lukas
    Becker added me on Facebook", Lukas the pen pal from 2005; "Amina Bello, a new mum at
    the toddler group", Amina who teaches the madrasa class): the surname is news, and the
    given name alone ties nothing — a question, as a lone given name is (``_unconnected``)."""
    said = parse_person(s.new)
    if len(said.words) < 2 or any(len(parse_person(f).words) != 1 for f in node_forms(node)):
        return False
    # A given name and a surname as written ("Lukas Becker", "Ludwig van Beethoven"), not
    # a word of address or a description after it ("Rohan bhaiya", "Hannah from Bumble").
    if not all(w[:1].isupper() or w in _SURNAME_PARTICLES for w in s.name.split()):
        return False
    if not s.mention.properties or not node.properties:
        return False
    if s.mention.roles and shares_role(s.mention.roles, node.roles):
        return False
    ignore = frozenset(said.words)
    return not context_shared(s.mention.properties, node.properties, ignore=ignore)


PLACED_APART = "placed-apart"
# A note that says someone moved, or is now elsewhere.
_MOVED = re.compile(r"\b(?:moved|moving|relocated|emigrated|now (?:in|lives|living|based))\b")


def _placed_apart(mention: Mention, node: StoredNode) -> bool:
    """Whether the notes put the person said and the stored one in different countries (a
    sushi chef in Vancouver, a colleague in Tokyo: ``place_names.countries_placed``) — unless
    both are the user's one relative or partner of a kind, or a note says someone moved."""
    said = said_text(mention.properties, as_written=True)
    known = said_text(node.properties, as_written=True)
    here, there = countries_placed(said), countries_placed(known)
    if not here or not there or here & there:
        return False
    if family_roles(mention.roles) and shares_role(mention.roles, node.roles):
        return False
    return not (_MOVED.search(said.lower()) or _MOVED.search(known.lower()))


TITLES_DIFFER = "titles-differ"
# Titles of courtesy and titles of a profession or a degree. Not Herr and Frau: German says
# "Herr Weber" of Prof. Dr. Weber and "Frau Dr. Hoffmann".
_COURTESY_TITLES = frozenset({"mr", "mrs", "ms", "miss", "mx", "san"})
# ... and a teacher's title (round 28): "Tanaka-sensei" the teacher, "Tanaka-san" a mum at
# the school gate; "Ustadha Fatima" the Quran teacher, "Miss Fatima" the teaching assistant.
_PROFESSION_TITLES = frozenset(
    {"dr", "doctor", "prof", "professor", "sensei", "ustadha", "ustaz", "ustadh"}
)
# Miss and Mrs: a woman named with one and stored with the other is as often another woman
# of the surname (the young teacher, the office manager "there forever") as one married.
_MARITAL_TITLES = frozenset({"miss", "mrs"})


RANKS_DIFFER = "ranks-differ"
COURTESY_FOR_FAMILY = "courtesy-for-family"
# What says the rank said now is a promotion ("just made detective", "is now a Major").
_PROMOTED = re.compile(r"\b(?:promot\w*|made|now\s+an?|now\s+the|new\s+rank)\b")


def _ranks_apart(s: _Said, node: StoredNode) -> bool:
    """Whether a person said with a rank is stored with another rank only ("Deputy Tate" /
    Sheriff Tate, "Capitaine Moreau" / Adjudant-chef Moreau, "Staff Sergeant" / "Sergeant
    Major" Okafor): two people of one surname in one service as often as one promoted —
    unless what is said tells of the promotion."""
    said = rank_of(s.new)
    if not said:
        return False
    known = {rank_of(f) for f in node_forms(node)} - {""}
    if not known:
        # "Officer Reyes" and Daniel Reyes, the friend who is a police officer: a friend or
        # relative is not spoken of by a rank and a surname.
        return bool(family_roles(node.roles) or "friend" in node.roles)
    return said not in known and not _PROMOTED.search(said_text(s.mention.properties).lower())


def _titles_apart(said_title: str, node: StoredNode) -> bool:
    """Whether a title said and the titles a stored person is named with are one of courtesy
    and the other of a profession ("Dr Hughes" / Mr Hughes), or Miss and Mrs."""
    known = {parse_person(f).title for f in node_forms(node)} - {""}
    if said_title in _MARITAL_TITLES and known and known <= _MARITAL_TITLES - {said_title}:
        return True
    classes = [(t in _COURTESY_TITLES, t in _PROFESSION_TITLES) for t in {said_title, *known}]
    return bool(said_title and known) and any(c for c, _ in classes) and any(p for _, p in classes)


@dataclass(frozen=True)
class _Said:
    """One proposed entity as the rules see it: its name as cleaned (``name``) and
    normalised (``new``), its kind, what the batch said of it, and the stored nodes the
    rules may reach (``usable``: kept-apart and properties-differ ones left out;
    ``same_kind``: those of its kind; ``set_apart``: the names of the properties-differ
    ones)."""

    name: str
    new: str
    kind: str
    mention: Mention
    usable: Sequence[StoredNode]
    same_kind: Sequence[StoredNode]
    hint: str | None
    threshold: float
    # The names of same-kind nodes what was said sets apart (properties-differ).
    set_apart: frozenset[str] = frozenset()

    @cached_property
    def called_so(self) -> tuple[int, ...]:
        """The stored nodes of the kind whose note, or the note said, gives the name said as
        another name of them (``merge_properties.named_in_note``): asked once per decision,
        by the alias rule and again when a person is merged (``_unless_called_otherwise``)."""
        said = self.mention.properties
        return tuple(
            n.id
            for n in self.same_kind
            if not n.is_self
            and named_in_note(self.kind, self.name, said, node_forms(n), n.properties)
        )

    def matching(self, test: Callable[[str], bool]) -> list[int]:
        """Ids of same-kind nodes with a name or alias that passes ``test``."""
        return [n.id for n in self.same_kind if any(test(f) for f in node_forms(n))]

    def matching_stated(self, test: Callable[[str, Mapping[str, object]], bool]) -> list[int]:
        """The same, ``test`` given a name or alias and what the graph states of the node."""
        return [n.id for n in self.same_kind if any(test(f, n.properties) for f in node_forms(n))]


def _exact(s: _Said) -> MergeVerdict | None:
    """Rule 1: the same normalised name, its full stops aside ("Dr Kapoor" / "Dr. Kapoor")."""
    said = _stopless(s.new)
    exact = [n.id for n in s.same_kind if _stopless(normalise_name(n.name)) == said]
    # "Dune", with Dune the novel and "Dune (2021 film)" stored; "Luna", with Luna the cat
    # and "Luna (dog)": the name is two referents' already.
    siblings = [n for n in _labelled(s) if n.id not in exact]
    if exact and siblings:
        return _one_of_a_name(s, exact, siblings)
    if len(exact) == 1 and s.kind == "PERSON":
        only = next(n for n in s.same_kind if n.id == exact[0])
        moved = exact_moved_by_role(s.new, only, s.same_kind, s.mention)
        if moved is not None:
            return moved
        said, known = family_roles(s.mention.roles), family_roles(only.roles)
        if said and known and not shares_role(said, known):
            # Marco Bianchi the user's son, named after Marco Bianchi the user's father: one
            # name, two people. The Write names the second "Marco Bianchi (2)" (SPEC §4).
            return MergeVerdict(NEW, None, (), FAMILY_DIFFERS, {})
        if public_and_personal(s.mention.roles, only.roles):
            # Michael Jordan the athlete the user likes, Michael Jordan the college roommate:
            # one name, two people ("Michael Jordan (2)").
            return MergeVerdict(NEW, None, (), PUBLIC_DIFFERS, {})
        if _namesake(s.mention, only):
            # Maria Santos the friend in Manila, Maria Santos the cardiologist in Lisbon.
            return make_verdict(HOLD, exact, f"exact-{ROLE_DIFFERS}", {only.id: 1.0})
        if len(parse_person(s.new).words) == 1:
            verdict = _exact_part_name(s.new, only, s.same_kind, s.mention)
            if verdict is not None:
                return verdict
    if len(exact) == 1 and s.kind != "PERSON":
        only = next(n for n in s.same_kind if n.id == exact[0])
        if types_differ(s.mention.properties, only.properties):
            # Phoenix the internal billing project, Phoenix the web framework.
            return make_verdict(HOLD, exact, EXACT_TYPE_DIFFERS, {only.id: 1.0})
    if exact:
        action = MERGE if len(exact) == 1 else HOLD
        rule = "exact" if len(exact) == 1 else "exact-ambiguous"
        return make_verdict(action, exact, rule, dict.fromkeys(exact, 1.0))
    return None


def _qualified(s: _Said) -> MergeVerdict | None:
    """The plain "Dune" set apart by what was said (a film, not the novel): the labelled
    "Dune (2021 film)" it leaves — or, of several, the one the tie or the type picks."""
    if s.new not in s.set_apart:
        return None
    siblings = _labelled(s)
    if len(siblings) == 1:
        return make_verdict(MERGE, [siblings[0].id], QUALIFIED, {siblings[0].id: 1.0})
    return _one_of_a_name(s, [], siblings) if siblings else None


def _labelled(s: _Said) -> list[StoredNode]:
    """Same-kind nodes named as said plus a label ("Dune (2021 film)", "Luna (dog)")."""
    return [n for n in s.same_kind if any(qualified(s.new, f) for f in node_forms(n))]


def _one_of_a_name(s: _Said, exact: list[int], siblings: list[StoredNode]) -> MergeVerdict:
    """Which of the referents of one name is meant: the one the user's tie to it picks
    (read, watched, a pet), else the one whose type or label the type said fits (a film,
    a dog) — or a question ("exact-ambiguous")."""
    nodes = [n for n in s.same_kind if n.id in exact] + siblings
    ids = [n.id for n in nodes]
    roles = s.mention.roles
    by_role = [n.id for n in nodes if roles and shares_role(roles, n.roles)]
    if len(by_role) == 1:
        return make_verdict(MERGE, by_role, "exact-by-role", {by_role[0]: 1.0})
    said = type_class(work_type(s.mention.properties).get("type"))
    if said is not None:
        typed = [
            n.id
            for n in nodes
            if said
            in (
                type_class(work_type(n.properties).get("type")),
                *(type_class(q) for f in node_forms(n) if (q := qualified(s.new, f))),
            )
        ]
        if len(typed) == 1:
            return make_verdict(MERGE, typed, "exact-by-type", {typed[0]: 1.0})
    return make_verdict(HOLD, ids, "exact-ambiguous", dict.fromkeys(ids, 1.0))


def _stopless(norm: str) -> str:
    return " ".join(norm.replace(".", " ").split())


def _person_alias(s: _Said, alias: list[int]) -> MergeVerdict | None:
    """A person said by the alias one stored person goes by (round 28): not one the
    mention's relation contradicts ("my sister's newborn, little Theo", the brother
    Theodoros "Theo"); and a question when another stored person has the name as a first
    name or a nickname of it (Theo Martin, the boss; Samantha Lee for "Sam")."""
    fits = [
        n
        for n in s.same_kind
        if n.id in alias and not contradicts(s.mention.roles, n.roles, s.mention.gender, n.gender)
    ]
    if not fits:
        return None
    if len(fits) == 1 and s.mention.roles & PEOPLE_ROLES <= fits[0].roles:
        others = [
            n.id
            for n in s.same_kind
            if n.id != fits[0].id and not n.is_self and _first_named(s.new, n)
        ]
        if others and not s.mention.roles & PEOPLE_ROLES:
            ids = [fits[0].id, *others]
            return make_verdict(HOLD, ids, "alias-ambiguous", dict.fromkeys(ids, 1.0))
    return _one_or_several([n.id for n in fits], "alias")


def _first_named(said: str, node: StoredNode) -> bool:
    """Whether a stored person of two words or more has the name said as their first name,
    or the first name of which it is a nickname or a short form (Sam, Samantha)."""
    for form in node_forms(node):
        words = parse_person(form).words
        if len(words) >= 2 and (
            words[0] == said or relate_first_names(said, words[0]) in ("nickname", SHORT_FORM)
        ):
            return True
    return False


NAMED_IN_NOTE = "named-in-note"


def _called_so(s: _Said, besides: int | None = None) -> list[int]:
    """The stored nodes of the kind (but ``besides``) whose note, or the note said, gives
    the name said as another name of them (``_Said.called_so``)."""
    return [i for i in s.called_so if i != besides]


def _a_common_word(s: _Said) -> bool:
    """Whether the name was said in lower case and is common words ("baby had his first
    solids"): a word, not the nickname a note gives someone ("everyone calls her Baby")."""
    return s.name == s.name.lower() and all(word_zipf(w) >= COMMON_WORD_ZIPF for w in s.new.split())


def _only_one_so_called(s: _Said, noted: list[int]) -> bool:
    """Whether a person a note says is called by the name said (round 32: "was Miss Jenkins
    until she married"; Helga, "the kids call her Oma") is the only one it may be: no other
    person stored is in the relation or the role the name is a word for ("Amma", with the
    mother Lakshmi beside a politician her supporters called Amma; "Nanny", with the nanny
    beside the grandmother the kids call so), nor called by its first word ("Ali", with Ali
    Rahman beside Alison "goes by Ali") — those are the person rules' to weigh."""
    if len(noted) != 1:
        return False
    meant = kinship_meanings(s.new) | ({role_word(s.new), KIN_TITLES.get(s.new, "")} - {""})
    first = s.new.split()[0]
    return not any(
        shares_role(meant, n.roles)
        or any(
            first in f.split()
            # Round 34: "Olu", with Olumide beside Oluwaseun "we call him Olu too"; "Alex",
            # with Alexander the partner beside Alexandra "everyone calls her Alex".
            or relate_first_names(first, f.split()[0]) in ("nickname", SHORT_FORM)
            for f in node_forms(n)
        )
        for n in s.same_kind
        if n.id not in noted and not n.is_self
    )


def _alias(s: _Said) -> MergeVerdict | None:
    """Rule 2: an alias, a name a property states (a code, a handle), a title's part."""
    alias = [n.id for n in s.same_kind if s.new in node_forms(n)[1:]]
    if alias and s.kind == "PERSON":
        # "el míster", with Javier "el míster" and Andrés "míster": an article before a word
        # of address does not tell two of it apart.
        bare = _unarticled(s.new)
        alias = [
            n.id
            for n in s.same_kind
            if s.new in node_forms(n)[1:]
            or (bare != s.new and bare in {_unarticled(f) for f in node_forms(n)[1:]})
        ]
    if alias and s.kind == "PERSON":
        return _person_alias(s, alias)
    if alias:
        return _one_or_several(alias, "alias")
    known_as = [
        n.id
        for n in s.same_kind
        if not n.is_self and identified_by(s.new, s.mention.properties, node_forms(n), n.properties)
    ]
    if known_as:
        return _one_or_several(known_as, IDENTIFIER)
    # "Northfield Academy", stored Northfield Comprehensive "became Northfield Academy"; "Whitty",
    # whom "the kids call 'Whitty'"; "LTIMindtree", "Mindtree merged into LTIMindtree" (round 32).
    noted = _called_so(s) if not _a_common_word(s) else []
    if noted and (s.kind != "PERSON" or _only_one_so_called(s, noted)):
        return _one_or_several(noted, NAMED_IN_NOTE)
    if s.kind == "PERSON" and not is_given_name(s.new):
        stem = [
            n.id
            for n in s.same_kind
            if not n.is_self and handle_stem(s.name, node_forms(n), n.properties)
        ]
        if stem:
            return _one_or_several(stem, IDENTIFIER)
    if s.kind != "PERSON":
        # A title and its subtitle, each said alone ("Breath of the Wild", Zelda: Breath of
        # the Wild; "CS50", CS50: Introduction to Computer Science).
        parted = s.matching(lambda f: _title_part(s.new, f))
        if parted:
            # "Catan: Seafarers", with Catan stored: the subtitle may name an expansion or
            # an edition (Ticket to Ride: Europe) as well as the work — asked.
            if ":" in s.new and not any(
                ":" in f for n in s.same_kind if n.id in parted for f in node_forms(n)
            ):
                return make_verdict(
                    HOLD, parted, f"{TITLE_PART}-longer", dict.fromkeys(parted, 1.0)
                )
            return _one_or_several(parted, TITLE_PART)
    return None


def _unarticled(norm: str) -> str:
    """A name without the article before it ("el míster" → "míster")."""
    first, _, rest = norm.partition(" ")
    return rest if rest and first in ARTICLES else norm


def _known_name(s: _Said) -> MergeVerdict | None:
    """Rule 2f': another name the world knows an organisation, place, event or thing by."""
    if s.kind == "PERSON":
        return None
    known = s.matching(lambda f: known_alike(s.kind, s.name, f))
    if not known:
        return None
    # "Lloyds" with Lloyds Bank and Lloyd's of London: another node the name is part of,
    # which the table does not list, makes it a question.
    said = name_key(s.name).split()
    within = [
        i
        for i in s.matching(lambda f: _contains_words(name_key(f).split(), said))
        if i not in known
    ]
    if within:
        ids = [*known, *within]
        return make_verdict(HOLD, ids, f"{KNOWN_NAME}-ambiguous", dict.fromkeys(ids, 1.0))
    return _one_or_several(known, KNOWN_NAME)


def _spelling(s: _Said) -> MergeVerdict | None:
    """Rule 2b: the same spelling, accents, digraphs and punctuation aside."""
    keys = spelling_keys(s.new)
    bare = without_article(s.name) if s.kind != "PERSON" else None
    if bare:
        # "der ADAC", "el Oxxo": another language's article, as "the".
        keys |= spelling_keys(normalise_name(bare))
    spelled = s.matching(
        lambda f: bool(keys & spelling_keys(f)) or (s.kind != "PERSON" and same_letters(s.new, f))
    )
    if not spelled and s.kind in ("ORG", "EVENT"):
        # "Petit Bistro" / Le Petit Bistro, "Etape du Tour 2024" / L'Étape du Tour 2024.
        bare_keys = unarticled_keys(s.new) | keys
        spelled = s.matching(lambda f: bool(bare_keys & (unarticled_keys(f) | spelling_keys(f))))
    if spelled and s.kind in DESCRIBED_KINDS:
        described = _described_not_named(s)
        if described:
            # "the shelter": Shelter the charity by its name — or, said in lower case, the
            # homeless shelter the user volunteers at. Both are asked about.
            also = [
                n.id
                for n in s.same_kind
                if n.id not in spelled
                and fits_description(described, [n.name, *n.aliases], n.properties, n.roles)
            ]
            if also:
                scores = {i: 1.0 for i in [*spelled, *also]}
                return make_verdict(HOLD, [*spelled, *also], f"{SPELLING}-or-description", scores)
    if not spelled:
        return None
    verdict = _one_or_several(spelled, SPELLING)
    if s.kind == "PERSON" and len(parse_person(s.new).words) == 1 and verdict.action == MERGE:
        # "Maria from my Pilates class", with María the exchange partner from Madrid; "Mo",
        # with @mo the colleague and Mohammed the neighbour: a first name respelled is
        # weighed as the first name itself would be.
        only = next(n for n in s.same_kind if n.id == verdict.target)
        held = _exact_part_name(s.new, only, s.same_kind, s.mention)
        if held is not None:
            return held
        return _unless_roles_differ(s.new, verdict, s.same_kind, s.mention)
    return verdict


def _described_not_named(s: _Said) -> tuple[str, ...]:
    """The words of a name of common words after "the" ("the shelter", or "The Shelter" as
    the Write capitalises an organisation's lower-case name): a description as much as a
    name. () for anything else ("Shelter", "the Cozy Corner")."""
    words = s.new.split()
    if len(words) < 2 or words[0] != "the":
        return ()
    if any(word_zipf(w) < COMMON_WORD_ZIPF for w in words[1:] if w not in STOP_WORDS):
        return ()
    return description_words(s.new)


def _number(s: _Said) -> MergeVerdict | None:
    """One concept said in the singular and in the plural ("challenge" / "challenges",
    "camping trips"): on real conversations nearly every question the rules asked. Not a
    proper name against a common noun: Python the language, pythons the snakes."""
    if not (s.kind in CONCEPT_KINDS or _common_other(s.kind, s.name, s.mention)):
        return None
    counted = [
        n.id
        for n in s.same_kind
        if s.name[:1].isupper() == n.name[:1].isupper()
        and not (s.kind == "OTHER" and _animal(n))
        and any(_another_number(s.new, f) for f in node_forms(n))
    ]
    return _one_or_several(counted, NUMBER) if counted else None


def _transliteration(s: _Said) -> MergeVerdict | None:
    """A thing or an organisation named once in Cyrillic or Greek letters and once in Latin
    ones ("самовар" / samovar, "Газпром" / Gazprom), or once in kana, Hangul, Han, Arabic,
    Hebrew or Devanagari letters that read as the Latin name (``name_scripts.same_reading``:
    小笼包 / xiaolongbao, 본촌 / Bonchon). People have their own rule (full names only);
    cities theirs (city-name)."""
    if s.kind in ("PERSON", "PLACE"):
        return None
    across = s.matching(lambda f: _transliterated(s.new, f))
    if not across:
        # A pet's, a dish's or a restaurant's name in the script the user writes in: ハナ /
        # Hana, 小笼包 / xiaolongbao, 본촌 / Bonchon, فلافل / falafel.
        across = s.matching(lambda f: same_reading(s.new, f))
    return _one_or_several(across, TRANSLITERATION) if across else None


def _legal_form(s: _Said) -> MergeVerdict | None:
    """Rule 2c: an ORG's core name with its legal form written another way or left out."""
    company = same_company(s.new, s.same_kind) if s.kind == "ORG" else []
    return _one_or_several(company, LEGAL_FORM) if company else None


def _country_name(s: _Said) -> MergeVerdict | None:
    """Rule 2c': another name of the same country."""
    iso = country_iso(s.new, parts=False) if s.kind == "PLACE" else None
    named = s.matching(lambda f: country_iso(f, parts=False) == iso) if iso else []
    return _one_or_several(named, COUNTRY_NAME) if named else None


def _acronym(s: _Said) -> MergeVerdict | None:
    """Rule 2d: an acronym of the other name's words, either way."""
    named, sure = acronym_matches(s.name, s.kind, s.same_kind)
    if not named:
        return None
    # Round 34: "Kyoto Institute of Technology", with KIT stored as "Karlsruhe Institute of
    # Technology, where I'm doing my PhD": one acronym, two names — another.
    named = [i for i in named if not _spelt_otherwise(s, next(n for n in s.same_kind if n.id == i))]
    if not named:
        return MergeVerdict(NEW, None, (), f"{ACRONYM}-spelt-otherwise", {})
    if sure or len(named) > 1:
        return _one_or_several(named, ACRONYM)
    return make_verdict(HOLD, named, ACRONYM, dict.fromkeys(named, 1.0))


def _spelt_otherwise(s: _Said, node: StoredNode) -> bool:
    """Whether a full name said is set against a stored acronym whose note opens with
    another name of many words the acronym stands for."""
    if " " not in s.new or s.kind not in ("ORG", "PLACE"):
        return False
    lead = re.split(r"\s*[,(–—:;]", str(node.properties.get("note", "")), maxsplit=1)[0].strip()
    # Another name, not the same one spelt a little otherwise: its first word differs
    # ("Karlsruhe" and "Kyoto"; not "Overseas Citizen" and "Overseas Citizenship").
    return (
        len(lead.split()) > 1
        and normalise_name(lead).split()[0] != s.new.split()[0]
        and is_acronym_of(node.name, lead, s.kind)
    )


def _city_name(s: _Said) -> MergeVerdict | None:
    """Rule 2e: another name of the same city; a location said on either side asks."""
    if s.kind != "PLACE":
        return None
    named = [n for n in s.same_kind if any(same_city(s.new, f) for f in node_forms(n))]
    if not named:
        return None
    ids = [n.id for n in named]
    if len(named) > 1 or _elsewhere(s.new, named[0], s.mention):
        return make_verdict(HOLD, ids, CITY_NAME, dict.fromkeys(ids, 1.0))
    return make_verdict(MERGE, ids, CITY_NAME, dict.fromkeys(ids, 1.0))


def _clipped(s: _Said) -> MergeVerdict | None:
    """Rule 2f: the name with its words cut short ("Mass General", "Glasto")."""
    cut = s.matching(lambda f: clipped(s.new, f)) if s.kind in CLIPPED_KINDS else []
    return _one_or_several(cut, CLIPPED) if cut else None


def _kind_word(s: _Said) -> MergeVerdict | None:
    """The name with or without the word for its kind ("Corporate Finance exam"), or with
    the type the graph states of it after it ("Garbage Day newsletter": Garbage Day, a
    newsletter)."""
    typed = (
        s.matching_stated(lambda f, stated: with_stated_type(s.new, f, stated))
        if s.kind != "PERSON"
        else []
    )
    if typed:
        return _one_or_several(typed, KIND_WORD)
    # "spin class", with the Tuesday spin class stored (two of them: asked).
    dated = s.matching(lambda f: with_day(s.new, f)) if s.kind != "PERSON" else []
    if dated:
        # Another of the kind with the name said as its end (the office sci-fi book club,
        # beside the Thursday one) may be meant too.
        rivals = [
            n.id
            for n in s.same_kind
            if n.id not in dated and any(headed_as(s.new, f) for f in node_forms(n))
        ]
        return _one_or_several([*dated, *rivals], WEEKDAY)
    if s.kind not in KIND_WORDS:
        return None
    headed = s.matching(lambda f: with_kind_word(s.new, f, s.kind))
    if not headed:
        return None
    # "Corporate Finance" (an EVENT) with both the course (a THING of that name) and the
    # "Corporate Finance exam" stored: which one is a question.
    namesakes = [
        n.id
        for n in s.usable
        if n.kind != s.kind and n.kind in CONCEPT_KINDS and s.new in node_forms(n)
    ]
    # "Tony's", with Tony's Pizza and Tony's Chippy stored: the name begins both.
    namesakes += [
        n.id
        for n in s.same_kind
        if n.id not in headed and any(extends(s.new, f) for f in node_forms(n))
    ]
    if namesakes:
        ids = [*headed, *namesakes]
        return make_verdict(HOLD, ids, f"{KIND_WORD}-ambiguous", dict.fromkeys(ids, 1.0))
    return _one_or_several(headed, KIND_WORD)


def _occasion(s: _Said) -> MergeVerdict | None:
    """An EVENT's words in another order; one occasion named by fewer or more of the people
    it is for ("Sarah's wedding" for Sarah and Ben's wedding)."""
    if s.kind != "EVENT":
        return None
    ordered = s.matching(lambda f: in_another_order(s.new, f))
    if ordered:
        return _one_or_several(ordered, WORD_ORDER)
    holders = _relation_holders(s.usable)
    said = [s.new, *_by_holder(s.new, holders)]

    def owned_alike(form: str) -> bool:
        return any(
            one_occasion(n, f)
            or one_occasion_said_otherwise(n, f, s.mention.properties)
            or one_festival(n, f)
            for n in said
            for f in (form, *_by_holder(form, holders))
        )

    owned = s.matching(owned_alike)
    if len(owned) > 1:
        # "Rachel's wedding" with her first and her coming one stored: the one the note
        # shares a word with ("a hotel near Kew": at Kew Gardens; round 30).
        ignore = context_of(s.new)
        shared = [
            n.id
            for n in s.same_kind
            if n.id in owned and context_shared(s.mention.properties, n.properties, ignore=ignore)
        ]
        if len(shared) == 1:
            return make_verdict(MERGE, shared, f"{POSSESSOR}-by-context", {shared[0]: 1.0})
    if owned:
        return _one_or_several(owned, POSSESSOR)
    if s.name[:1].isupper() and word_zipf(s.new) < COMMON_WORD_ZIPF:
        return None  # a name ("Coachella"), not a common noun for a kind of event
    headed = s.matching_stated(lambda f, stated: event_head(s.new, f, stated))
    return _one_or_several(headed, EVENT_HEAD) if headed else None


# "My sister's wedding", "mum's 60th": the relation said before an occasion.
_RELATION_OWNER = re.compile(r"^(?:(?:my|our|the)\s+)?([a-z]+(?:[- ][a-z]+)?)['’]s?\s+(.+)$")


def _relation_holders(usable: Sequence[StoredNode]) -> dict[str, str]:
    """Each role the user has exactly one stored person in → that person's first name."""
    held: dict[str, list[str]] = {}
    for n in usable:
        words = normalise_name(n.name).split() if n.kind == "PERSON" and not n.is_self else []
        for role in n.roles & PEOPLE_ROLES if words else ():
            held.setdefault(role, []).append(words[0])
    return {role: names[0] for role, names in held.items() if len(names) == 1}


def _by_holder(name: str, holders: Mapping[str, str]) -> list[str]:
    """An occasion said as a relative's, named by the one person the graph holds in that
    relation (``_relation_holders``: "my sister's wedding" → "sofia's wedding", Sofia the
    sister; round 30): none when no one or several are."""
    match = _RELATION_OWNER.match(name)
    if not match:
        return []
    role = role_word(match.group(1).replace("-", "_").replace(" ", "_"))
    first = holders.get(role)
    return [f"{first}'s {match.group(2)}"] if first else []


def _described(s: _Said) -> tuple[list[str], bool]:
    """What a description says the entity is, and whether it was said with a determiner
    or possessive ("my sister"); without one, only what the user has the tie said to
    ("Dublin", moved to, is not the Dublin office the graph holds)."""
    # "mi coche", "der Vermieter": another language's determiner (``foreign_description``);
    # of a person only words the table knows ("el casero"), since "le Roy" is a name.
    # The name as the note writes it (round 34): the Write capitalises "le syndic".
    written = _as_written(s.name, s.mention)
    described = description_words(s.new) or _foreign_description(written, s.kind, s.same_kind)
    if not described and s.kind == "PERSON" and lone_calling(s.new):
        # "Bhante gave the talk": the monk, as "the monk" would be.
        described = (s.new,)
    tied = not described
    described = described or said_without_determiner(
        s.name, s.kind, tied=bool(s.mention.roles & TIE_ROLES)
    )
    if tied and described and s.kind in ("ORG", "PLACE") and _written_as_name(s.name, s.mention):
        # "our Clash of Clans clan 'Goblins'": the user wrote it as a name, not "the goblins".
        return [], tied
    return described, tied


def _written_as_name(name: str, mention: Mention) -> bool:
    """Whether a note writes the name said in quotes, or capitalised within a sentence."""
    for value in mention.properties.values():
        if not isinstance(value, str):
            continue
        for match in re.finditer(re.escape(name), value, flags=re.IGNORECASE):
            before = value[: match.start()].rstrip()
            quoted = before.endswith(("'", '"', "‘", "“"))
            within = bool(before) and not before.endswith((".", "!", "?", ":"))
            if quoted or (within and value[match.start()].isupper()):
                return True
    return False


def _foreign_description(
    name: str, kind: str, same_kind: Sequence[StoredNode] = ()
) -> tuple[str, ...]:
    described = foreign_description(name)
    if kind == "PERSON" and not all(english_word(w) for w in described):
        # "le proviseur", "der Hausmeister", "la CPE": a word the table does not know is
        # still a description when it is the stated role of someone stored (round 32);
        # "le Roy" is nobody's role.
        if len(described) != 1 or not any(
            not n.is_self and role_said(described[0], n.properties) for n in same_kind
        ):
            return ()
    return described


DESCRIBED_IN_NOTE = "described-in-note"
# What a description is said with besides its words: determiners and possessives of the
# languages users write in ("de voorzitter", "der Trafikant", "o orientador", "la directora").
_DESCRIPTION_LEADS = DETERMINERS | FOREIGN_ARTICLES | frozenset({"de", "het", "mijn", "onze"})
# Words of a description that say nothing of who the person is, or that they are someone
# other than the one known ("the new nurse", "the old boss", "a guy").
_NOT_WHO = frozenset(
    {*("new", "old", "other", "another", "former", "next", "previous", "some", "any")}
    | {*("guy", "man", "woman", "lady", "bloke", "girl", "boy", "person", "people", "kid")}
    | {*("someone", "somebody", "everyone", "nobody", "one", "ones", "folks", "friend")}
)


def _described_in_note(s: _Said) -> MergeVerdict | None:
    """Rule 2f′ (round 34): a person said by what they are, in lower case, bare or after a
    determiner of any language ("chowkidar", "de voorzitter", "der Trafikant", "yönetici",
    "society secretary", "night watchman"), that the description rule does not know: the one
    stored person whose note or properties say every word of it ("Gul Khan, the chowkidar
    of our building"; "Pieter is voorzitter van onze VvE"; "Bahadur, our building
    watchman, … night shift", not Ramu kaka "the day watchman"), several → asked. A word
    of the note counts that begins with the word said, or that the word said begins with
    (Turkish "yöneticisi", French "boulangerie", German "Trafik"), when the shorter is
    five letters or more and most of the longer. A word for anyone ("the guy") or for
    someone other than the one known ("the new nurse"), a given name and a kinship word
    are not descriptions here."""
    note = folded_said(s.mention.properties)
    if s.kind != "PERSON" or _A_NEW_ONE.search(note) or _THIS_TIME.search(note):
        # "the parish priest", "the new one in Ballyvourney"; "the lead inspector this time
        # was a woman": someone after the one known.
        return None
    written = _as_written(s.name, s.mention)
    words = written.split()
    if words and words[0] in _DESCRIPTION_LEADS:
        # A determiner written in lower case makes what follows a description, capitals or
        # not: German writes its nouns so ("der Trafikant").
        words = words[1:]
    elif written != written.lower():
        return None
    words = fold_accents(" ".join(words)).lower().split()
    words = [w for w in words if w not in STOP_WORDS]
    if not 1 <= len(words) <= 3 or any(
        len(w) < 4 or not w.isalpha() or w in _NOT_WHO or is_given_name(w) or kinship_meanings(w)
        for w in words
    ):
        return None
    people = [
        n
        for n in s.same_kind
        if not n.is_self
        and not (s.mention.roles & PEOPLE_ROLES and not shares_role(s.mention.roles, n.roles))
    ]
    # An alias counts as what they are called ("Professor", the futsal coach).
    held = {n.id: _held_words(n.properties, node_forms(n)[1:]) for n in people}
    for exact in (True, False):
        fitting = [n.id for n in people if all(_said_in(w, held[n.id], exact=exact) for w in words)]
        if fitting:
            return _one_or_several(fitting, DESCRIBED_IN_NOTE)
    return None


def _as_written(name: str, mention: Mention) -> str:
    """The name as the note writes it, when it does: the Write capitalises a person's name
    ("Chowkidar"), the note keeps what the user typed ("the chowkidar told me")."""
    note = mention.properties.get("note")
    if isinstance(note, str):
        match = re.search(rf"(?<!\w){re.escape(name.strip())}(?!\w)", note, flags=re.IGNORECASE)
        if match:
            return match.group(0)
    return name


def _held_words(properties: Mapping[str, object], aliases: Sequence[str]) -> list[str]:
    """The words of a node's note, properties and aliases, folded, in lower case."""
    aliased = fold_accents(" ".join(aliases)).lower()
    return re.findall(r"\w+", f"{folded_said(properties)} {aliased}")


def _said_in(word: str, held: Sequence[str], *, exact: bool) -> bool:
    """Whether a word is among a node's ``held`` words (``exact``), or begins one or is
    begun by one, the shorter five letters or more and 0.6 of the longer."""
    if exact:
        return word in held
    return any(
        min(len(word), len(w)) >= max(5, 0.6 * max(len(word), len(w)))
        and (w.startswith(word) or word.startswith(w))
        for w in held
    )


# "His sister", "her mum", "their son": someone else's relative, not the user's.
_THIRD_PERSON = ("his ", "her ", "their ")
SOMEONE_ELSES = "someone-elses"


def _someone_elses_relative(s: _Said) -> MergeVerdict | None:
    """A person said as someone else's relative ("his sister", Lucas's) is not the user's
    relative of that word (Inès, the user's sister): the one person held as someone's
    sister ("Lucas's sister"), none of them the user's, else someone new. So is a kinship
    word said as a name that the note gives as someone's ("my husband's obaachan")."""
    if (
        s.kind == "PERSON"
        and kinship_meanings(s.new)
        and not s.mention.roles & PEOPLE_ROLES
        and re.search(rf"\w['’]s\s+{re.escape(s.name.lower())}\b", said_text(s.mention.properties))
    ):
        return MergeVerdict(NEW, None, (), SOMEONE_ELSES, {})
    if s.kind != "PERSON" or not s.name.lower().startswith(_THIRD_PERSON):
        return None
    described = description_words(s.new)
    if len(described) != 1:
        return None
    role = role_word(described[0])
    fitting = [
        n.id
        for n in s.same_kind
        if not n.is_self
        and not shares_role(frozenset({role}), n.roles)
        and re.search(
            rf"\w['’]s\s+{re.escape(described[0])}\b",
            said_text(n.properties),
        )
    ]
    if fitting:
        return _one_or_several(fitting, DESCRIPTION)
    return MergeVerdict(NEW, None, (), SOMEONE_ELSES, {})


def _description(s: _Said) -> MergeVerdict | None:
    """Rule 2g: a description fitting exactly one stored node."""
    described, tied = _described(s)
    if not described:
        return None
    if s.kind == "ORG":
        described = org_description(described)
    verdict = _description_verdict(s.new, described, s.kind, s.same_kind, s.mention, tied=tied)
    noted = verdict is None and s.kind == "PERSON"
    if noted:
        # A person no relation or role fits may be the one whose note opens so.
        verdict = _noted_description(s.new, s.same_kind, s.mention)
    if verdict is not None and s.kind == "PERSON" and _told_a_new_one(s):
        # "the parish priest", "the new one; Fr O'Leary retired years ago" (round 31).
        return None
    return verdict if noted else _unless_described_across_kinds(s, verdict)


def _told_a_new_one(s: _Said) -> bool:
    """Whether what is said of a person described by what they are tells of a new one ("the
    new one", "the new parish priest"): not the one the graph holds."""
    words = s.new.split()
    phrase = re.escape(" ".join(words[1:] if words[0] in DETERMINERS else words))
    return bool(
        re.search(rf"\b(?:the|a)\s+new\s+one\b|\bnew\s+{phrase}\b", said_text(s.mention.properties))
    )


def _unless_described_across_kinds(s: _Said, verdict: MergeVerdict | None) -> MergeVerdict | None:
    """Round 30: "the landlord" said as a person, with a person and a company both the
    user's landlords (Mr Okafor for the flat, Greystone Estates for the shop): a role is a
    person's or a firm's alike, so a description merged into one of them is asked about
    among both."""
    if verdict is None or verdict.action != MERGE or s.kind not in ("PERSON", "ORG"):
        return verdict
    other = "ORG" if s.kind == "PERSON" else "PERSON"
    said = frozenset(role_word(w) for w in s.new.split()) & PEOPLE_ROLES
    rivals = [n.id for n in s.usable if n.kind == other and shares_role(said, n.roles)]
    if not said or not rivals:
        return verdict
    ids = [*verdict.candidates, *rivals]
    return make_verdict(HOLD, ids, f"{DESCRIPTION}-across-kinds", dict.fromkeys(ids, 1.0))


COURTESY = "courtesy"


def _lone_courtesy(s: _Said) -> MergeVerdict | None:
    """ "Uncle" or "Aunty" said alone, of no one the user has as an uncle or aunt: the one
    person the user calls so ("Uncle Femi", "Aunty Shirin"), several → asked. Never a first
    name: with Uncle Tunde and Uncle Femi both stored, "Uncle" is either."""
    kin = _COURTESY_KIN.get(s.new)
    if s.kind != "PERSON" or kin is None:
        return None
    if any(kin in n.roles for n in s.same_kind):
        return None  # the user's own aunt or uncle: the kinship rule's
    called = [
        n.id
        for n in s.same_kind
        if any(_COURTESY_KIN.get(_courtesy_title(f)) == kin for f in node_forms(n))
    ]
    return _one_or_several(called, COURTESY) if called else None


def _person(s: _Said) -> MergeVerdict | None:
    """Rule 3: kinship words and the person rules. Nicknames, titles and first names are
    facts about people; applied to an ORG or a PLACE ("Will Street") they would only
    manufacture wrong merges."""
    if s.kind != "PERSON":
        return None
    described, _ = _described(s)
    # "my dad" is Dad: a one-word description of a person is the word.
    said = described[0] if len(described) == 1 else s.new
    verdict = people_verdict(said, s.same_kind, s.mention)
    if verdict is None:
        return None
    namesakes = _namesakes(s) if verdict.action == MERGE else []
    if namesakes and not verdict.rule.startswith(("exact", "alias")):
        # "Oscar" with the cat Oscar and the friend Oscar Lindqvist: the name is the cat's
        # exactly and the friend's first name — a question, never the friend alone.
        ids = [*verdict.candidates, *(n.id for n in namesakes)]
        scores = {**dict.fromkeys(ids, 1.0), **verdict.scores}
        return make_verdict(HOLD, ids, "other-kind", scores)
    if (
        verdict.action == MERGE
        and _HANDLE.search(s.name)
        and not verdict.rule.startswith(("exact", "alias"))
        and not _named_beside(s.name, s.mention, s.same_kind, verdict.candidates[0])
    ):
        # "chloé_bxl" sent a friend request: the sister Chloé, or a stranger of that handle.
        return make_verdict(HOLD, verdict.candidates, HANDLE_PART, verdict.scores)
    return _unless_roles_differ(said, verdict, s.same_kind, s.mention)


# A name written as a handle: an "@", "u/", an underscore or digits ("chloé_bxl", "RaviKing07").
_HANDLE = re.compile(r"[_@\d]|^u/")
HANDLE_PART = "handle-part"


def _named_beside(
    handle: str, mention: Mention, same_kind: Sequence[StoredNode], target: int
) -> bool:
    """Whether what was said names the person a handle's part reaches, beside the handle
    ("Kaito changed his Discord name to kaito_genshin"), or that person is known by a handle
    too (a handle against a handle is a spelling)."""
    node = next(n for n in same_kind if n.id == target)
    if _HANDLE.search(node.name):
        return True  # a handle said as another handle is written ("@quantum_quokka")
    names = {w for f in node_forms(node) for w in f.split()}
    said = said_text(mention.properties)
    words = {normalise_name(w) for w in said.split() if handle.lower() not in w.lower()}
    return bool(names & words)


TITLE_INITIAL = "title-initial"


def _title_initial(s: _Said) -> MergeVerdict | None:
    """A title and the initial of a surname ("Mr K", "Ms. R", "Miss T"), as children call a
    teacher: the one person whose surname begins with it, of no other gender than the
    title's (Mr Kowalski, Ms. Rodriguez, Sarah Thompson)."""
    if s.kind != "PERSON":
        return None
    said = parse_person(s.new)
    if not said.title or len(said.words) != 1 or len(said.words[0]) != 1:
        return None
    gender = gender_of_titles([said.title])
    fits = [
        n
        for n in s.same_kind
        if not n.is_self
        and not (gender and node_gender(n) and node_gender(n) != gender)
        and any(
            len(p.words) >= (1 if p.title else 2) and p.words[-1][:1] == said.words[0]
            for p in (parse_person(f) for f in node_forms(n))
        )
    ]
    if not fits:
        return None
    return _one_or_several([n.id for n in fits], TITLE_INITIAL)


GENERATIONS = "generations"
# A generation said after a name: "Frank Miller Sr.", "Ramon Dela Cruz Jr.", "Henry Ford II".
_GENERATION = re.compile(r"\s*,?\s+(?:sr|snr|senior|jr|jnr|junior|ii|iii|iv)\.?$")


def _generation_namesakes(s: _Said, target: StoredNode) -> list[int]:
    """The other stored people of the target's name with a generation after it (Michael
    Brennan / Michael Brennan Jr.), when neither the name said nor the target's gives one
    ("Jun-Jun" is the junior's by its own rule) and the relation said does not pick it."""
    if _GENERATION.search(s.new) or _GENERATION.search(normalise_name(target.name)):
        return []
    if s.mention.roles and shares_role(s.mention.roles, target.roles):
        return []  # the relation said picks one ("Dad", HAS_FATHER: the father)
    base = _GENERATION.sub("", normalise_name(target.name))
    return [
        n.id
        for n in s.same_kind
        if n.id != target.id
        and not n.is_self
        and _GENERATION.sub("", normalise_name(n.name)) == base
        and normalise_name(n.name) != normalise_name(target.name)
    ]


def _generations(s: _Said) -> MergeVerdict | None:
    """A full name said without the generation, with father and son of that name stored
    (Frank Miller Sr. and Frank Miller Jr.), or an initial and a surname fitting two people
    ("J. Smith", with John and Jane Smith): which one is a question. One fitting is left to
    the other rules."""
    if s.kind != "PERSON" or _GENERATION.search(s.new):
        return None
    said = parse_person(s.new)
    if len(said.words) < 2:
        return None
    if len(said.words[0]) == 1:
        fits = [
            n.id
            for n in s.same_kind
            if not n.is_self
            and any(
                len(p.words) >= 2
                and p.words[-1] == said.words[-1]
                and p.words[0][:1] == said.words[0]
                for p in (parse_person(f) for f in node_forms(n))
            )
        ]
    else:
        fits = [
            n.id
            for n in s.same_kind
            if not n.is_self
            and any(
                _GENERATION.search(f) and _GENERATION.sub("", f) == s.new for f in node_forms(n)
            )
        ]
    if len(fits) < 2:
        return None
    return make_verdict(HOLD, fits, GENERATIONS, dict.fromkeys(fits, 1.0))


def _romanised_first(said: str, form: str) -> bool:
    """Whether a lone Latin name is the first name of a Cyrillic or Greek full name, or a
    nickname of it, as English writes the name (``romanised_name``: Дмитрий → Dmitry)."""
    if len(form.split()) < 2 or not has_transliterable_letters(form) or not said.isascii():
        return False
    first = romanised_name(form).split()[0]
    return (
        transliteration_key(first) == transliteration_key(said)
        or said in name_group(first)
        or first in name_group(said)
    )


def _lone_across_scripts(s: _Said) -> MergeVerdict | None:
    """A lone name said in Latin letters and stored in another script, or the other way
    round (Ahmed / أحمد, Giorgos / Γιώργος, Didi / दीदी), is the same name — but a lone
    name alone is as likely two people as one ("Maria", "Мария"): it merges only when the
    user's relation or a word of what was said is shared ("from Cairo"). Round 30: so is
    the first name of a Cyrillic or Greek full name, or a nickname of it, as English writes
    it ("Giorgos" / Γιώργος Παπαδόπουλος, "Masha" / Мария Иванова)."""
    if s.kind != "PERSON" or len(s.new.split()) != 1:
        return None
    fits = [
        n
        for n in s.same_kind
        if not n.is_self
        and any(
            (len(f.split()) == 1 and _read_alike(s.new, f)) or _romanised_first(s.new, f)
            for f in node_forms(n)
        )
        and (
            shares_role(s.mention.roles, n.roles)
            or context_shared(s.mention.properties, n.properties, ignore=frozenset({s.new}))
        )
    ]
    if len(fits) != 1:
        return None
    return make_verdict(MERGE, [fits[0].id], f"{TRANSLITERATION}-by-context", {fits[0].id: 1.0})


def _read_alike(a: str, b: str) -> bool:
    """Two lone names, one in Latin letters, read alike in another script."""
    if is_latin_word(a) == is_latin_word(b):
        return False
    across = has_transliterable_letters(a) or has_transliterable_letters(b)
    return romanised_alike([a], [b]) if across else same_reading(a, b)


def _pet(s: _Said) -> MergeVerdict | None:
    """A pet is named as people are (Reggie for Sir Reginald Fluffington): the person rules
    reach the user's pets (HAS_PET, or an animal the user owns) of a catch-all kind, and
    nothing else of that kind."""
    pets = (
        [n for n in s.same_kind if n.roles & PET_ROLES or (POSSESSION in n.roles and _animal(n))]
        if s.kind in CATCH_ALL_KINDS
        else []
    )
    verdict = person_verdict(s.new, pets, s.mention) if pets else None
    if verdict is not None and verdict.action != NEW:
        return verdict
    # "Mo" for Momo, "Stormy" for Storm, "Whisky" for Mr Whiskers, "Filek" for Filemon:
    # what people call their own animal, when one animal's name it fits.
    clipped_of = [n for n in pets if any(_pet_clipping(s.new, f) for f in node_forms(n))]
    if len(clipped_of) == 1:
        return make_verdict(MERGE, [clipped_of[0].id], PET_NAME, {clipped_of[0].id: 1.0})
    return None


PET_NAME = "pet-name"
# Endings people put on an animal's name (Stormy, Whisky, Filek, Mochi-chan).
_ANIMAL_NAME_ENDINGS = ("y", "ie", "ey", "ek", "ka", "ko", "chen", "i")


def _pet_clipping(said: str, form: str) -> bool:
    """Whether a one-word name is a word of an animal's name clipped (two letters or more)
    or with a pet ending: "mo" / Momo, "stormy" / Storm, "whisky" / Mr Whiskers, "filek" /
    Filemon."""
    if " " in said or len(said) < 2:
        return False
    stems = {said} | {said[: -len(e)] for e in _ANIMAL_NAME_ENDINGS if said.endswith(e)}
    for word in form.split():
        if word == said or len(word) < 3:
            continue
        for stem in stems:
            if len(stem) >= 2 and (word.startswith(stem) or stem == word):
                return True
    return False


def _namesakes(s: _Said) -> list[StoredNode]:
    """Nodes of another kind with the name said, when either kind is a catch-all (or both
    are concepts said in lower case), that nothing said sets apart."""
    return [
        n
        for n in s.usable
        if n.kind != s.kind
        and not n.provisional
        and not n.is_self
        and (
            s.kind in CATCH_ALL_KINDS
            or n.kind in CATCH_ALL_KINDS
            # Pottery as a TOPIC and as a PREFERENCE: a common noun, typed two ways.
            or ({s.kind, n.kind} <= CONCEPT_KINDS and s.name[:1].islower())
        )
        and s.new in node_forms(n)
        and not contradicts(s.mention.roles, n.roles, s.mention.gender, node_gender(n))
        and not _told_apart(s.kind, s.mention, n)
    ]


def _other_kind(s: _Said) -> MergeVerdict | None:
    """Rule 4: the same name on a node of another kind, when either kind is a catch-all.
    What the user said may settle it: the friend Luna is not the cat Luna (HAS_PET)."""
    others = _namesakes(s)
    if not others:
        return None
    # "aerial yoga" the user likes (PREFERENCE) and the aerial yoga they took up (THING); a
    # camping trip as an EVENT and as a THING: the extractor typed one concept two ways.
    # People, pets, organisations and places are named things and stay a question. Therapy
    # as an OTHER and as a TOPIC: a catch-all kind said of a common noun that is no animal
    # counts as a concept.
    only = others[0]
    # Whichever side is the OTHER is weighed by its own name: "Yoga" said as a TOPIC, the
    # stored OTHER written "yoga".
    other_is_concept = (
        _common_other(s.kind, s.name, s.mention)
        if s.kind == "OTHER"
        else only.kind == "OTHER" and only.name[:1].islower()
    )
    concepts = CONCEPT_KINDS | ({"OTHER"} if other_is_concept else set())
    if len(others) == 1 and {s.kind, only.kind} <= concepts and not _animal(only):
        return make_verdict(MERGE, [only.id], CONCEPT_KIND, {only.id: 1.0})
    ids = [n.id for n in others]
    return make_verdict(HOLD, ids, "other-kind", dict.fromkeys(ids, 1.0))


def _own_thing(s: _Said) -> MergeVerdict | None:
    """The user's own thing by its first words ("Kindle", the Kindle Paperwhite the user
    owns): a concept's narrower name otherwise, but one the user owns is theirs."""
    if s.kind != "THING" or not s.mention.roles & TIE_ROLES:
        return None
    own = own_place(s.new, s.kind, s.same_kind, s.mention)
    if own is None:
        return None
    return make_verdict(MERGE, [own.id], OWN_PLACE, {own.id: best_similarity(s.new, own)})


MODEL = "model"
# A thing said as one of its kind: "bought a Prius", "saw an i20 just like mine".
_ONE_OF_A_KIND = re.compile(r"\b(?:a|an|another|one)\s+(?:[\w-]+\s+){0,2}$")


def _model(s: _Said) -> MergeVerdict | None:
    """A thing the user owns or takes, said by the last words of its name: the model without
    the make ("Kuga", the user's Ford Kuga; "Astrox 88D", the Yonex racket), the set's number
    ("75192"). Not when two of the user's things end so, when it is said as one of its kind
    ("my brother-in-law bought a Prius"), nor when the user's relation to it is another one
    (the S3 the user commutes on is no VanMoof S3 e-bike)."""
    if s.kind != "THING":
        return None
    ended = [n for n in s.same_kind if any(headed_as(s.new, f) for f in node_forms(n))]
    if len(ended) != 1 or not ended[0].roles & {POSSESSION, OWN}:
        return None
    only = ended[0]
    if s.mention.roles and not s.mention.roles & only.roles:
        return None
    text = said_text(s.mention.properties)
    last = s.new.split()[-1]
    if any(_ONE_OF_A_KIND.search(text[: m.start()]) for m in re.finditer(re.escape(last), text)):
        return None
    return make_verdict(MERGE, [only.id], MODEL, {only.id: best_similarity(s.new, only)})


EDITIONS = "editions"


EDITION_YEAR = "edition-year"
_YEAR_SAID = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def _years_said(properties: Mapping[str, object]) -> frozenset[int]:
    """The years (1900–2099) an event's note or its year or date says."""
    return _edition_years(said_text(properties))


def _edition_years(text: str) -> frozenset[int]:
    return frozenset(int(y) for y in _YEAR_SAID.findall(text))


def _node_years(node: StoredNode) -> frozenset[int]:
    """The years a stored event's name (or alias) or its year or date gives."""
    years = {y for f in node_forms(node) for y in _edition_years(f)}
    for key in ("year", "date"):
        value = node.properties.get(key)
        if isinstance(value, str | int):
            years |= _edition_years(str(value))
    return frozenset(years)


def _another_year_said(new: str, years: frozenset[int], node: StoredNode) -> bool:
    """Whether an event said without a year ("the Christmas concert") is given by its note
    only years other than the one in the name of a stored edition of it ("Christmas concert
    2024"; said: "this December's concert, 2025")."""
    said, dated = edition_words(new)
    if not years or dated or not said:
        return False
    stored = [f for f in node_forms(node) if edition_words(f) == (said, True)]
    return bool(stored) and not years & {y for f in stored for y in _edition_years(f)}


def _edition_of_the_year(s: _Said, said: tuple[str, ...]) -> MergeVerdict | None:
    """Round 32: an event said without a year whose note or date gives the year of exactly
    one stored edition of it ("sports day", "the sports day in July 2025 where it rained",
    with Sports Day 2025; "Goa offsite", year 2025, with the 2024 and 2025 offsites)."""
    if not s.mention.properties:
        return None
    years = _years_said(s.mention.properties)
    if not years:
        return None
    fits = [
        n.id
        for n in s.same_kind
        if any(edition_words(f) == (said, True) for f in node_forms(n)) and _node_years(n) & years
    ]
    if len(fits) != 1:
        return None
    return make_verdict(MERGE, fits, EDITION_YEAR, {fits[0]: 1.0})


def _editions(s: _Said) -> MergeVerdict | None:
    """An event said without its year, with two or more of its years stored (Diwali 2023
    and Diwali 2024; "Advent of Code" with 2023's and 2024's), or a work, a set or a game
    said by the name two stored ones share ("Mulan", the 1998 film and the 2020 one; "Final
    Fantasy", VII and XIV; "Galaxy Explorer", two LEGO sets): which one is a question. One
    is left to the other rules: a festival said again is often next year's; and a thing
    said in lower case is a common word ("group"), not a title."""
    if s.kind not in ("EVENT", "THING"):
        return None
    said, dated = edition_words(s.new)
    if dated or not said:
        return None
    if s.kind == "EVENT":
        of_the_year = _edition_of_the_year(s, said)
        if of_the_year is not None:
            return of_the_year
    if s.kind == "THING":
        # A title or a name ("Mulan", "Final Fantasy"), not a common word: "group", said
        # beside a support group and a focus group, is no question worth asking.
        if s.name[:1].islower():
            return None
        fits = [n.id for n in s.same_kind if any(shares_the_name(s.new, f) for f in node_forms(n))]
    else:
        fits = [
            n.id
            for n in s.same_kind
            if any(edition_words(f) == (said, True) for f in node_forms(n))
        ]
    if len(fits) < 2:
        return None
    return make_verdict(HOLD, fits, EDITIONS, dict.fromkeys(fits, 1.0))


def _similar_names(s: _Said) -> MergeVerdict | None:
    """Rule 5: similar names are candidates for review; among an ORG's or a PLACE's, the
    user's own employer, school or home named by its first words merges."""
    inc = parse_person(s.new) if s.kind == "PERSON" else None
    similar = [
        n
        for n in s.same_kind
        if any(
            _similar(s.new, f, s.threshold, kind=s.kind)
            and not (inc and different_people(inc, parse_person(f), s.threshold))
            for f in node_forms(n)
        )
    ]
    own = own_place(s.new, s.kind, similar, s.mention) if s.kind in NAMED_PLACE_KINDS else None
    if own is not None:
        return make_verdict(MERGE, [own.id], OWN_PLACE, {own.id: best_similarity(s.new, own)})
    # A concept misspelt ("potery") is still asked about: only a name is corrected — also
    # one too short to be similar by the edit threshold ("Chipolte", two letters swapped).
    if s.kind in _MISSPELT_KINDS and s.name[:1].isupper() and len(similar) <= 1:
        typed = [
            n for n in similar or s.same_kind if any(_misspelt(s.new, f) for f in node_forms(n))
        ]
        if len(typed) == 1:
            only = typed[0]
            return make_verdict(MERGE, [only.id], MISSPELT, {only.id: best_similarity(s.new, only)})
    if not similar:
        return None
    scores = {n.id: best_similarity(s.new, n) for n in similar}
    if len(similar) == 1:
        only = similar[0]
        part = _part_of_name(s, only)
        if part is not None and not _begun_alike(s, only):
            return make_verdict(MERGE, [only.id], part, scores)
        if _added_words_held(s, only):
            return make_verdict(MERGE, [only.id], WORDS_HELD, scores)
    return make_verdict(HOLD, [n.id for n in similar], "similar", scores)


WORDS_HELD = "words-held"


def _added_words_held(s: _Said, only: StoredNode) -> bool:
    """An organisation said with words after the one stored name it is like that what is
    held of it already says ("Aviva Insurance", Aviva the "home and car insurer"; "Samaritans
    Leeds", the "Leeds branch"): the same one. Words the graph does not hold of it may name
    another business of the brand ("Co-op Bank", the Co-op the user works at; "Uber Eats")."""
    held = said_text(only.properties)
    return s.kind == "ORG" and any(words_added_echoed(s.new, f, held) for f in node_forms(only))


def _begun_alike(s: _Said, only: StoredNode) -> bool:
    """Whether another stored organisation's name begins with words much like the name said
    ("Harbor", with Harbor Analytics and Harbour Data Labs stored): which one is a question."""
    size = len(s.new.split())
    return any(
        Levenshtein.normalized_similarity(s.new, " ".join(f.split()[:size])) >= s.threshold
        for n in s.same_kind
        if n.id != only.id
        for f in node_forms(n)
    )


def _part_of_name(s: _Said, only: StoredNode) -> str | None:
    """An organisation said by part of the one stored name it is like: its first words
    ("Northgate", Northgate Logistics; "Arnold Clark", the Glasgow branch the user deals
    with: ``FIRST_WORDS``) or words all found in it ("Cook County probate court", the Probate
    Division of the Circuit Court of Cook County; "Red Cross", the British Red Cross:
    ``WORDS_WITHIN``) — the same one, as people drop the trade, the branch and the formal
    words once both know which is meant. Not when the name alone is a place's (Chicago,
    the Chicago Bears), nor when what is said of it now and what is held share no telling
    word ("flying Virgin", Virgin Media's broadband). None: no such part."""
    if s.kind != "ORG" or place_countries(s.new):
        return None
    forms = node_forms(only)
    part = (
        FIRST_WORDS
        if any(first_words_of(s.new, f) for f in forms)
        else WORDS_WITHIN
        if any(words_within(s.new, f) for f in forms)
        else None
    )
    unconnected = _notes_share_nothing(s.mention, only, ignore=frozenset(s.new.split()))
    return None if unconnected else part


# A brand or a product misspelt; places are left out (Iran/Iraq, Dalton/Dayton are places).
_MISSPELT_KINDS = frozenset({"ORG", "THING"})
_MISSPELT_MIN = 6
# The word said is hardly written at all (wordfreq's Zipf scale: "volkswagon" 1.5,
# "santandar" 0), and the stored one far more often ("microeconomics", 2.3, is a word
# of its own beside "macroeconomics", 2.7).
_TYPO_ZIPF = 2.0
_TYPO_GAP = 1.0


def _misspelt(new: str, form: str) -> bool:
    """One word of a name typed one letter wrong ("Volkswagon Passat", "Santandar",
    "Macbok Pro"): the same words but one, six letters or more on both sides and one edit
    apart, where the word said is hardly ever written and the stored one far more often —
    a typo, not another name (a word or a name of its own is not corrected)."""
    said, stored = new.split(), form.split()
    if len(said) != len(stored):
        return False
    differ = [(a, b) for a, b in zip(said, stored, strict=True) if a != b]
    if len(differ) != 1:
        return False
    a, b = differ[0]
    return (
        min(len(a), len(b)) >= _MISSPELT_MIN
        and OSA.distance(a, b) == 1
        and word_zipf(a) < _TYPO_ZIPF
        and word_zipf(b) - word_zipf(a) >= _TYPO_GAP
    )


def _hinted(s: _Said) -> MergeVerdict | None:
    """Rule 6: a hint naming a same-kind node's name or alias exactly is held."""
    wanted = normalise_name(s.hint) if s.hint else ""
    hinted = [n for n in s.same_kind if wanted and wanted in node_forms(n)]
    if not hinted:
        return None
    scores = {n.id: best_similarity(s.new, n) for n in hinted}
    return make_verdict(HOLD, [n.id for n in hinted], "hint", scores)


TEKNONYM = "teknonym"
# A parent named by their child (round 29): Arabic "Abu Omar" and "Umm Yusuf", Yoruba and
# Swahili "Mama Tunde", Japanese "Kenta-kun no mama", Korean "민준 엄마".
_TEKNONYM_BEFORE = {"abu": "m", "umm": "f", "um": "f", "mama": "f"}
_TEKNONYM_AFTER = {("no", "mama"): "f", ("no", "papa"): "m", ("엄마",): "f", ("아빠",): "m"}
_CHILD_SUFFIXES = ("kun", "chan")


def _teknonym(s: _Said) -> MergeVerdict | None:
    """A parent said by their child's name ("Abu Omar", "Umm Yusuf", "Mama Tunde", "Kenta-kun
    no mama", "민준 엄마"): the one stored person of that gender whose note says the child is
    theirs ("his eldest son is Omar", "our son is Adam", "Kenta's mum") or whom the child's
    note names as parent ("Khalid's eldest son"); several → a question; none → the other
    rules. The child is never the parent ("Abu Omar" is not Omar)."""
    if s.kind != "PERSON":
        return None
    said = _teknonym_parts(s.name)
    if said is None:
        return None
    child, gender = said
    by_id = {n.id: n for n in s.same_kind if not n.is_self}
    parents = {n.id for n in by_id.values() if _notes_child(n, child, gender)}
    for n in by_id.values():
        if _child_key(n.name.split()[0]) == child:
            parents |= {p.id for p in by_id.values() if _named_parent(n, p)}
    fitting = [
        i
        for i in parents
        if _child_key(by_id[i].name.split()[0]) != child
        and node_gender(by_id[i]) in ("", gender)
        and gender_of(by_id[i].roles) in ("", gender)
        and name_gender(_child_key(by_id[i].name.split()[0])) in ("", gender)
    ]
    return _one_or_several(sorted(fitting), TEKNONYM) if fitting else None


def _teknonym_parts(name: str) -> tuple[str, str] | None:
    """(the child's name as compared, the parent's gender) of a teknonym, else None."""
    words = name.strip().split()
    if len(words) == 2 and words[0].lower() in _TEKNONYM_BEFORE:
        return _child_key(words[1]), _TEKNONYM_BEFORE[words[0].lower()]
    for tail, gender in _TEKNONYM_AFTER.items():
        if len(words) == len(tail) + 1 and tuple(w.lower() for w in words[1:]) == tail:
            return _child_key(words[0]), gender
    return None


def _child_key(name: str) -> str:
    """A child's name as teknonyms and notes are compared: romanised, lower case, without
    hyphens or a Japanese -kun or -chan ("Kenta-kun" → kenta; "민준", "Min-jun" → minjun)."""
    key = anyascii(name).lower()
    for suffix in _CHILD_SUFFIXES:
        if key.endswith(suffix) and len(key) > len(suffix) + 2:
            key = key[: -len(suffix)]
            break
    return re.sub(r"[^a-z]", "", key)


def _notes_child(node: StoredNode, child: str, gender: str) -> bool:
    """Whether a person's note says the child is theirs: "his eldest son is Omar", "our son
    is Adam", "son Ali", "Yusuf is his eldest", "Kenta's mum" (the mother, when a mother is
    said: "Ahmed's father" is not Umm Ahmed)."""
    note = re.sub(
        r"(?<=[a-z])-(?=[a-z])", "", anyascii(str(node.properties.get("note") or "")).lower()
    )
    name = re.escape(child)
    if re.search(rf"\b{name}['’]s\s+(?:mum|mom|mother|mama)\b", note):
        return gender == "f"
    if re.search(rf"\b{name}['’]s\s+(?:dad|father|papa)\b", note):
        return gender == "m"
    return any(
        re.search(pattern, note)
        for pattern in (
            rf"\b(?:son|daughter|child|kid|boy|girl)\s+(?:(?:is|was)\s+)?{name}\b",
            rf"\b{name}\s+is\s+(?:his|her|their)\s+(?:eldest|youngest|son|daughter)\b",
        )
    )


def _named_parent(child: StoredNode, parent: StoredNode) -> bool:
    """Whether a child's note names the parent by first name ("Khalid's eldest son",
    "Folake's son")."""
    note = anyascii(str(child.properties.get("note") or "")).lower()
    first = _child_key(parent.name.split()[0])
    return bool(
        first
        and re.search(
            rf"\b{re.escape(first)}['’]s\s+(?:\w+\s+)?(?:son|daughter|child|boy|girl)\b", note
        )
    )


# decide_merge's rules in order; the first verdict wins, none → new (rule 7).
MARRIED_NAME = "married-name"
# Words by which a note tells a marriage or a name changed by one.
_MARRIAGE = re.compile(
    r"\b(?:married|marriage|wedding|n[ée]e|maiden name|changed her name|took his name"
    r"|casou|casada|se cas[óo]|evlendi|heiratete|verheiratet|mari[ée]e|sposata)\b"
)


def _married_name(s: _Said) -> MergeVerdict | None:
    """Rule 7′ (round 34): a full name whose given name is a stored person's and whose
    surname is not, when the note said tells of a marriage and names the stored surname or
    the stored note tells of a marriage too ("Emma Hughes (was Clarke, changed her name
    after the wedding)", Emma Clarke; "publishing as Zeynep Kaya now, after her wedding",
    Zeynep Arslan "married in the summer"): the same person under her new name."""
    said = s.new.split()
    if s.kind != "PERSON" or len(said) < 2 or parse_person(s.new).title:
        return None
    note = folded_said(s.mention.properties)
    if not _MARRIAGE.search(note):
        return None
    fitting = [
        n.id
        for n in s.same_kind
        if not n.is_self
        and any(
            len(f.split()) >= 2
            and f.split()[0] == said[0]
            and f.split()[-1] != said[-1]
            and (
                re.search(rf"\b{re.escape(fold_accents(f.split()[-1]))}\b", note)
                or _MARRIAGE.search(folded_said(n.properties))
            )
            for f in node_forms(n)
        )
    ]
    return _one_or_several(fitting, MARRIED_NAME) if fitting else None


_RULES: tuple[Callable[[_Said], MergeVerdict | None], ...] = (
    _exact,
    _alias,
    _qualified,
    _spelling,
    _number,
    _transliteration,
    _legal_form,
    _country_name,
    _acronym,
    _city_name,
    _clipped,
    _known_name,
    _kind_word,
    _occasion,
    _someone_elses_relative,
    _description,
    _described_in_note,
    _teknonym,
    _lone_courtesy,
    _person,
    _title_initial,
    _generations,
    _lone_across_scripts,
    _pet,
    _other_kind,
    _own_thing,
    _model,
    _editions,
    _married_name,
    _similar_names,
    _hinted,
)


@dataclass(frozen=True)
class _ApartSaid:
    """What was said of an entity that may set a stored node of its kind apart, worked out
    once per entity (not once per stored node): the countries a note puts it in, whose it
    is said to be, whether it is said to be someone else's animal, whether it replaces
    another thing or is another copy of one (a remake), whether a note calls it another of
    the name ("also called Zhang Wei", "called him Biscuit too"), the species said of an
    animal, the role a person is said to be new in ("my new coworker"), whose relative a
    person is said to be ("Ankit's wife Priya"), the people named as those whose relative or
    friend the person is ("Mrs Patel's son Raj"), whose in another role ("my sister's
    pastor") and whose a group is ("my cousin's congregation")."""

    countries: frozenset[str]
    whose: str
    someones_animal: bool
    someones_named: bool
    replaces: bool
    another_copy: bool
    called_alike: bool
    species: str | None
    newly_met: str
    someones_kin: str
    kin_of: frozenset[str]
    kin_of_roles: frozenset[str]
    life: tuple[int | None, int | None]
    acquaintances_kin: bool
    tie: tuple[frozenset[str], str] | None
    owner: frozenset[str]
    another_occurrence: bool
    place_countries: frozenset[str]
    place_states: frozenset[str]
    place_type: str
    someones_roles: frozenset[str]
    someones_group: str
    qualifier: str
    years: frozenset[int]
    note: str
    appositive: frozenset[str]


def _of_the_name(kind: str, new: str, node: StoredNode) -> bool:
    """Whether a stored node is of the name said, for a note that says the one said is
    another of it (``another_of_the_name``): the same name; for a person (round 34) also
    the same words in another order (Zhang Wei, Wei Zhang), or one of the two the given
    name of the other ("Ramu", Ramu kaka; "Nora Bianchi", Nora); for an organisation or a
    place, the stored name with more after it ("Padaria Estrela da Mooca", Padaria Estrela)."""
    forms = node_forms(node)
    if new in forms:
        return True
    if kind == "PERSON":
        said = new.split()
        return any(
            sorted(said) == sorted(f.split())
            or ((len(said) == 1) != (len(f.split()) == 1) and said[0] == f.split()[0])
            for f in forms
        )
    return kind in ("ORG", "PLACE") and any(new.startswith(f + " ") for f in forms)


def _set_apart(
    kind: str,
    new: str,
    mention: Mention,
    apart: _ApartSaid,
    said_of: Mapping[str, object],
    node: StoredNode,
) -> bool:
    """Whether what was said of the entity (``said_of``: its properties with the type its
    name states; ``apart``) makes a stored node another referent: an identifying property
    that differs (``properties_differ``), and, for a node of its own kind, another occasion
    of an event, another animal, someone else's condition or medicine, an organisation or
    an event placed in another country, the thing a new one replaces or copies, or someone
    known in other roles than the one a person is said to be new in."""
    if properties_differ(kind, said_of, node.properties):
        return True
    if node.kind != kind:
        return False
    return (
        (kind == "EVENT" and _another_occasion(mention, node))
        # "the Christmas concert", "this December's concert, 2025", is not Christmas
        # concert 2024 (round 32).
        or (kind == "EVENT" and _another_year_said(new, apart.years, node))
        # "My new coworker Kenji" is not Kenji the online friend.
        or (kind == "PERSON" and _known_otherwise(apart.newly_met, node))
        # "Lee Mi-kyung", "the new care worker, Lee seonsaengnim quit", is not the one who
        # quit (round 32).
        or (kind == "PERSON" and _said_gone(new, apart.note, node))
        # "the new F1 is called Dr Marsh too, no relation to Helen" is not Helen Marsh; "the
        # new Dr. Santos" is not the consultant who retired (round 33).
        or (kind == "PERSON" and _no_relation_said(apart.note, node))
        or (kind == "PERSON" and _new_one_after_one_gone(apart.note, node))
        # "Suresh the cab driver" is not Suresh Iyer, the colleague in finance (round 32).
        or (kind == "PERSON" and _coworker_otherwise(apart.appositive, mention, node))
        # "My friend Ankit's wife Priya" is not Priya, the user's partner.
        or (bool(apart.someones_kin) and shares_role(frozenset({apart.someones_kin}), node.roles))
        # "Lars Andersen", Anders's son born 1875, is not his grandfather born 1820.
        or (kind == "PERSON" and lives_apart(apart.life, node.properties))
        # "Mrs Patel's son Raj" is not Mrs Patel (round 30).
        or (kind == "PERSON" and not apart.kin_of.isdisjoint(node_forms(node)))
        # "jiddo's father" is not the grandfather (round 31).
        or bool(apart.kin_of_roles & node.roles)
        # "Papa's cousin from Cebu" is not Tita Baby "Mama's sister"; "Sophie's new
        # boyfriend" is not Oliver, "Sophie's boy" (round 31).
        or (kind == "PERSON" and _relations_noted_apart(apart.tie, node.properties))
        # "My neighbour's mum" is no relative of the user's (the great-aunt Ivy Clarke).
        or (apart.acquaintances_kin and bool(family_roles(node.roles)))
        # "My sister's pastor in Houston" is not the user's own pastor (HAS_PASTOR).
        or (bool(apart.someones_roles & node.roles) and not apart.someones_roles & mention.roles)
        # "Springfield, Massachusetts, where my brother moved" is not Springfield, Illinois.
        or (bool(apart.qualifier) and _qualified_apart(new, apart.qualifier, node))
        # "Drove to Atlanta, Georgia" is not Georgia, "from Tbilisi" (round 28).
        or (kind == "PLACE" and _noted_in_two_countries(apart, node))
        # "My cousin's congregation" is not the synagogue the user belongs to.
        or (
            bool(apart.someones_group)
            and bool(node.roles & _BELONGS)
            and not mention.roles & _BELONGS
        )
        # The user's aunt is not the woman everyone calls Aunty, "not related".
        or (kind == "PERSON" and _unrelated_kin(mention, node))
        or _another_animal(mention, node, someones_animal=apart.someones_animal)
        # The Hendersons' Top Field is not the user's own Top Field; the Purple Heart the
        # user was given is not Dad's.
        or (kind in _OWNED_KINDS and _owned_apart(mention, node, apart.someones_named))
        # "A new puppy called Biscuit" is not Biscuit "the college cat".
        or _species_apart(apart.species, node)
        # "My wife's cousin, also called Zhang Wei"; "named her newborn Amara after my
        # daughter"; "our new puppy, we've called him Biscuit too", with a client's dog
        # Biscuit: one name, two — not when both are said to be the user's own.
        or (
            apart.called_alike
            and _of_the_name(kind, new, node)
            and not (mention.roles & _OWNED and node.roles & _OWNED)
        )
        # The husband's slipped disc is not the user's herniated disc, nor Dad's CPAP theirs.
        or (
            kind not in ("PERSON", "ORG", "PLACE")
            and for_someone_else(apart.whose, node.properties)
        )
        # The Golden Dragon "while in Singapore" is not the takeaway in Leeds.
        or placed_apart(apart.countries, node.properties)
        # "A stairlift for Auntie Joan's house" is not "Mum's stairlift" (round 31).
        or (kind in ("THING", "OTHER") and owned_by_others(apart.owner, node.properties))
        # "Another fall last night" is not the fall stored (round 31).
        or apart.another_occurrence
        # The new bike that replaces the old one, the reissue beside the first pressing.
        or (apart.replaces and new not in node_forms(node))
        or (apart.another_copy and new in node_forms(node))
    )


def _kin_of(new: str, mention: Mention) -> frozenset[str]:
    """The people a note names the person as a relative, partner or friend of
    (``person_roles.kin_of_named``), normalised — not the person's own name ("Jamal's
    brother is minding the stall" in Jamal's own note)."""
    own = set(new.split())
    return frozenset(
        named
        for named in map(normalise_name, kin_of_named(mention.properties))
        if named and not set(named.split()) <= own
    )


def _kin_of_roles(new: str, mention: Mention) -> frozenset[str]:
    """The relations to the user of the people a note names by a kinship word as those
    whose relative the person is (``person_roles.kin_words_of``: "jiddo's father", "Dad's
    grandfather", "Mum's cousin" → grandfather, father, mother; round 31): nobody is their
    own father. Not a relation the person is said to have, or their own name means ("Mum",
    "Mum's sister is visiting")."""
    own = mention.roles | kinship_meanings(new)
    found = frozenset().union(*map(kinship_meanings, kin_words_of(mention.properties)))
    return found - own


# What a note opens by saying a person is to someone: "Mama's sister in Quezon City",
# "Nainai's live-in carer", "my grandson, Sophie's boy" (the first possessive of the note).
_NOTED_RELATION = re.compile(
    r"^(?:[^;.]*?,\s*)??(?:my\s+)?([^\W\d_]+)['’]s\s+((?:[\w-]+\s+){0,2}?[\w-]+)"
    r"(?=\s*(?:[,;.]|$|\s(?:from|in|at|who|with|on|of|for|and)\b))"
)
# A child said as someone's "boy" or "girl" is their son or daughter.
_CHILD_WORDS = {"boy": "son", "girl": "daughter", "lad": "son", "lass": "daughter"}


def _noted_relation(said: Mapping[str, object]) -> tuple[frozenset[str], str] | None:
    """(whom, what): the relations to the user (a kinship word: Mama → mother) or the name
    of the one a note opens by saying the person is someone's, and the word for what they
    are to them ("Mama's sister" → ({mother}, sister)); None when it says none."""
    note = said.get("note")
    return _relation_in(note) if isinstance(note, str) else None


@lru_cache(maxsize=16384)
def _relation_in(note: str) -> tuple[frozenset[str], str] | None:
    # Cached by note: every stored node's note is read again for each entity of a batch.
    match = _NOTED_RELATION.match(note)
    if not match:
        return None
    possessor = match.group(1).lower()
    word = match.group(2).lower().split()[-1]
    what = _CHILD_WORDS.get(word, role_word(word))
    if what not in PEOPLE_ROLES and what not in _KIN_TIES and what not in _HELPERS:
        return None  # "Theo's coming round", "my sister's flight": no one's relation
    return kinship_meanings(possessor) or frozenset({possessor}), what


def _relations_noted_apart(
    said_tie: tuple[frozenset[str], str] | None, held: Mapping[str, object]
) -> bool:
    """Whether two notes say two people: two of the user's relatives' (by kinship words),
    and something else to each ("Papa's cousin" / "Mama's sister", "Mom's friend from
    square dancing" / "Nainai's live-in carer"); or one person's, as two family ties
    ("Sophie's new boyfriend" / "Sophie's boy"). One person may be Mum's GP and Dad's GP,
    Mum's friend and her neighbour, Chloé's grandmother and "my ex's mother". ``said_tie``:
    the entity's ``_noted_relation``, worked out once for every stored node."""
    held_tie = _noted_relation(held)
    if said_tie is None or held_tie is None or said_tie[1] == held_tie[1]:
        return False
    if said_tie[0].isdisjoint(held_tie[0]):
        # Two of the user's relatives' ("Mama's", "Papa's"), not anyone's: "Chloé's
        # grandmother" is "my ex's mother".
        return said_tie[0] <= PEOPLE_ROLES and held_tie[0] <= PEOPLE_ROLES
    return said_tie[1] in _FAMILY_TIES and held_tie[1] in _FAMILY_TIES


_KIN_TIES = frozenset(_CHILD_WORDS.values())
_FAMILY_TIES = _KIN_TIES | family_roles(PEOPLE_ROLES)
# People someone has in their home or care who are no tie the roles name.
_HELPERS = frozenset({"carer", "caregiver", "helper", "nurse", "nanny", "maid", "housekeeper"})


def _another_of(new: str, mention: Mention) -> bool:
    """Whether a note tells of another occurrence of the event said by its name's last word
    ("Mum's fall", "another fall last night"), or that this is the second or third time
    (round 35: "van got broken into AGAIN last night, second time")."""
    words = new.split()
    head = re.escape(words[-1]) if words else ""
    note = said_text(mention.properties)
    return bool(head) and bool(
        re.search(rf"\b(?:another|a second|a third|one more)\s+{head}\b", note)
        or re.search(r"\b(?:second|third|fourth) time\b", note)
    )


def _noted_in_two_countries(apart: _ApartSaid, node: StoredNode) -> bool:
    """Whether what was said of a place (``apart``: the countries, US states and type its
    note gives, worked out once) and what is held of a stored place of its name put them in
    two countries, each by the places around it ("to Atlanta", "near Lahore") or a stated
    country, state or city (``place_noted_in``), in two US states, or say one is a country
    and the other a state: two places of one name."""
    said = apart.place_countries
    held = place_noted_in(node.name, node.properties) if said else frozenset()
    if said and held and said.isdisjoint(held):
        return True
    # Round 31: two US states ("Illinois, where Grandpa was born" / "Massachusetts, where
    # Aunt Rose raised her kids"), or a country and a state ("the country" / "the US state").
    states = apart.place_states
    # (A stored place's own name may say it: "the farm in Iowa".)
    held_said = {**node.properties, "name": node.name}
    held_states = place_noted_states(node.name, held_said) if states else frozenset()
    if states and held_states and states.isdisjoint(held_states):
        return True
    kinds = {apart.place_type, place_type_noted(node.properties)}
    return "" not in kinds and len(kinds) == 2


def _qualified_apart(new: str, qualifier: str, node: StoredNode) -> bool:
    """Whether a place a note writes with a region ("Williamsburg, Virginia") is stored
    with another one of the same name ("Williamsburg, Brooklyn"): two places, both regions
    being places the data knows."""
    for form in node_forms(node):
        base, _, region = form.rpartition(",")
        region = region.strip()
        if base.strip() == new and region and region != qualifier and place_countries(region):
            return True
    return False


def _someone_elses_roles(name: str, mention: Mention) -> frozenset[str]:
    """The roles in which a person is said to be someone else's: "my sister's pastor" →
    pastor; or, for a name titled with a calling, "Father Tom from my mum's parish" → priest
    (``someone_elses_group``: another person's congregation)."""
    role = someone_elses_role(mention.properties)
    if role:
        return frozenset({role})
    if someone_elses_group(mention.properties):
        return calling_of(parse_person(normalise_name(name)).title) & PEOPLE_ROLES
    return frozenset()


def _with_calling(node: StoredNode, mention: Mention) -> StoredNode:
    """A person the user knows only by a title of a calling (Father Tomás Ruiz, Ustadh Bilal
    Hussain), with the calling as a role (priest, teacher): someone in the user's life as a
    teacher is, so not the user's son of the first name; and, against a child said with an
    age, one known only by a title given to adults (Mrs, Dr, Aunty) as an adult."""
    if node.kind != "PERSON":
        return node
    words = node.name.lower().replace("-", " ").split()
    if (
        words
        and node.name.isascii()
        and words[0].rstrip(".") not in TITLES
        and words[0] not in _COURTESY
        and words[-1] not in POST_TITLES
    ):
        return node  # the name itself is untitled: most people, told without parsing it
    name = normalise_name(node.name)
    if not (parse_person(name).title or _courtesy_title(name)):
        return node
    titles = {parse_person(f).title or _courtesy_title(f) for f in node_forms(node)}
    if "" in titles:
        return node
    callings = frozenset().union(*(calling_of(t) for t in titles)) & PEOPLE_ROLES
    if MINOR in mention.roles and (titles & _ADULT_TITLES or callings):
        callings |= {ADULT}
    return node if callings <= node.roles else replace(node, roles=node.roles | callings)


_COURTESY_KIN = {"aunty": "aunt", "auntie": "aunt", "uncle": "uncle"}
_COURTESY = frozenset(_COURTESY_KIN)


def _courtesy_title(form: str) -> str:
    """ "aunty" of "aunty shirin": the courtesy Aunty or Uncle before a name, "" otherwise."""
    words = form.split()
    return words[0] if len(words) > 1 and words[0] in _COURTESY else ""


# Titles given only to adults: courtesy, profession and the courtesy Aunty and Uncle.
_ADULT_TITLES = frozenset(
    {"mr", "mrs", "ms", "miss", "dr", "doctor", "prof", "professor", "aunty", "auntie", "uncle"}
)


def _with_noted_names(node: StoredNode, mention: Mention) -> StoredNode:
    """A person whose note says they go by another given name ("Kim Min-jun … in Toronto he
    goes by Daniel"), with that name before each end of their name as aliases (Daniel Kim,
    Daniel Min-jun): the person rules then weigh it as a first name. Only when what was said
    gives no relation, or one the stored person has: a Daniel Kim who is the user's dentist
    is not the friend who goes by Daniel. A name of one word gains none: "William" alone
    would be an alias, merged before any other William is weighed."""
    if node.kind != "PERSON" or not node.properties:
        return node
    if mention.roles & PEOPLE_ROLES and not shares_role(mention.roles, node.roles):
        return node
    words = node.name.split()
    noted = noted_names(node.properties) if len(words) > 1 else ()
    if not noted:
        return node
    extra = tuple(f"{n} {w}" for n in noted for w in dict.fromkeys((words[-1], words[0])))
    return replace(node, aliases=(*node.aliases, *extra))


def _unrelated_kin(mention: Mention, node: StoredNode) -> bool:
    """Whether one side is the user's relative and the other is said to be no relative
    (``person_roles.said_unrelated``)."""
    return bool(
        (family_roles(mention.roles) and said_unrelated(node.properties))
        or (family_roles(node.roles) and said_unrelated(mention.properties))
    )


# Words by which a note says someone has gone from the role: "Lee seonsaengnim quit",
# "Mr Hale retired", "after Dr Okafor left" (``_GONE``: right after a name said).
_GONE_WORDS = r"(?:quit|left|retired|resigned|moved away|passed away|died)\b"
_GONE = re.compile(rf"\s+(?:has\s+|had\s+|just\s+)?{_GONE_WORDS}")


# What a note says a person is, in apposition to the name: "Suresh the cab driver who does
# my pickup", "Kuya Bong, the security guard at the lobby", "Lucas Ferreira, the lawyer on
# the other side" — up to three words after "the", to the first word that begins a clause.
_APPOSITION_END = frozenset(
    {"who", "that", "at", "from", "of", "on", "in", "for", "with", "and", "is", "was", "i"}
)
# The user's ties at work: a person said in apposition to be something else is not them.
_AT_WORK = frozenset({"colleague", "boss", "manager", "mentor"})


def _appositive(name: str, mention: Mention) -> frozenset[str]:
    """The words of what a note says a person is right after the name ("the cab driver"),
    none when the mention says a relation of the user's."""
    if mention.roles & PEOPLE_ROLES:
        return frozenset()
    text = fold_accents(said_text(mention.properties))
    key = re.escape(fold_accents(normalise_name(name)))
    match = re.search(
        rf"(?<!\w){key},?\s+(?:the|el|la|le|der|die|il)\s+((?:[a-z-]+\s*){{1,3}})", text
    )
    if not match:
        return frozenset()
    words: list[str] = []
    for word in match.group(1).split():
        if word in _APPOSITION_END:
            break
        words.append(word)
    return frozenset(w for w in words if w not in STOP_WORDS and len(w) > 2)


def _coworker_otherwise(said: frozenset[str], mention: Mention, node: StoredNode) -> bool:
    """Whether a person said in apposition to be something ("Marek, the IT director at the
    client") is a stored colleague or boss, or someone of a stated role (round 33: Jo the
    midwife against "Jo, the doula we've hired"), whose note and role say none of it."""
    if not said or not (
        node.roles & _AT_WORK or any(isinstance(node.properties.get(k), str) for k in ROLE_KEYS)
    ):
        return False
    held = folded_said(node.properties)
    return not any(re.search(rf"\b{re.escape(w[:5])}", held) for w in said)


_NO_RELATION = re.compile(r"\bno relation (?:to|of) (\w+)")
_A_NEW_ONE = re.compile(r"\b(?:the|a|our|my)\s+new\b")
# A role held in turn, said of this turn: "the lead inspector this time".
_THIS_TIME = re.compile(r"\bthis time\b")
_WENT = re.compile(rf"\b{_GONE_WORDS}")


def _no_relation_said(note: str, node: StoredNode) -> bool:
    """Whether the note said of a person says they are "no relation to" a word of the
    stored person's name."""
    named = {m.group(1) for m in _NO_RELATION.finditer(note)}
    return bool(named) and any(named & set(fold_accents(f).split()) for f in node_forms(node))


def _new_one_after_one_gone(note: str, node: StoredNode) -> bool:
    """Whether someone said as "the new" one is set against a stored person, known by no
    family tie, whose note says they retired, left or died: a successor of the name."""
    if not note or not _A_NEW_ONE.search(note) or family_roles(node.roles):
        return False
    return bool(_WENT.search(folded_said(node.properties)))


def _said_gone(new: str, note: str, node: StoredNode) -> bool:
    """Whether the note said of a person names a stored one, by another name than the one
    said, as gone ("the new care worker the centre sent, Lee seonsaengnim quit"): the one
    said is someone else."""
    if not note:
        return False
    said = fold_accents(new)
    for form in node_forms(node):
        key = fold_accents(form)
        if len(key) < 3 or key in said or key not in note:
            continue
        if re.search(rf"(?<!\w){re.escape(key)}{_GONE.pattern}", note):
            return True
    return False


def _known_otherwise(newly: str, node: StoredNode) -> bool:
    """Whether someone said to be new in a role (``person_roles.newly_met``: "my new
    coworker", "Ruby's new maths teacher") is known to the graph in other roles only: by the
    relation, or by a stated role that does not name it ("Ruby's swimming coach")."""
    if not newly:
        return False
    if newly not in NEWLY_MET_ROLES:
        # A trade said new beside the name ("my new barista"): someone the graph knows as
        # something else, not whose note says that trade (round 30).
        held = said_text(node.properties)
        return bool(node.roles or held) and newly not in {
            role_word(w) for w in re.findall(r"\w+", held)
        }
    if node.roles:
        return not shares_role(frozenset({newly}), node.roles)
    stated = " ".join(v for k in ROLE_KEYS if isinstance(v := node.properties.get(k), str))
    return bool(stated) and newly not in {role_word(w) for w in re.findall(r"\w+", stated.lower())}


# What an organisation the user belongs to or attends is to them (MEMBER_OF, ATTENDS).
_BELONGS = frozenset({"membership", "school"})
# What the user has: a pet, or an animal or thing they own.
_OWNED = PET_ROLES | {POSSESSION}


def _species_apart(said: str | None, node: StoredNode) -> bool:
    """Whether the species said (or given by a note before the name: ``_ApartSaid.species``)
    and the one a stored animal's note names are two (``properties_differ`` compares stated
    species)."""
    if not said:
        return False
    known = noted_species(node.properties)
    return bool(known and said != known)


def _another_occasion(mention: Mention, node: StoredNode) -> bool:
    """The Lisbon trip planned for next April is not the one the user took in May 2023
    (ATTENDED makes the stored one past: ``person_roles`` names that tie "school"); an event
    the user went to (ATTENDED) is not the one of its name they plan now (PLANS: the Berlin
    Marathon of 2023 and the one signed up for this September)."""
    happened = WENT in node.roles or finished(node.properties)
    if PLANNED not in node.roles and (
        # A stored day not held as planned took place (the 10th anniversary on 2024-08-02).
        (PLANNED in mention.roles and (happened or dated(node.properties)))
        or (
            booked(mention.properties)
            and (happened or (dated(node.properties) and not day_moved(mention.properties)))
        )
    ):
        # A kitchen refit planned now is not the one the graph says was finished in 2019;
        # the driving test rebooked is not the one failed.
        return True
    attended = "school" in node.roles
    stored = with_name_year(node.name, node.properties)
    return occasions_differ(mention.properties, stored, attended=attended)


# Kinds of node the user owns by name (a field, a medal, a tractor) — animals are
# ``_another_animal``'s.
_OWNED_KINDS = frozenset({"PLACE", "THING"})


def _owned_apart(mention: Mention, node: StoredNode, someones_named: bool) -> bool:
    """Whether one of a place or thing of one name is the user's own and the other is said
    to be someone else's: the user's Top Field and "the Hendersons' Top Field" (not a
    relative's: the family's things are shared), the user's own Purple Heart and "Dad's
    Purple Heart"."""
    if node.roles & _OWNED and not mention.roles & _OWNED:
        return someones_named
    return bool(
        mention.roles & _OWNED
        and not node.roles & _OWNED
        and someone_elses_named(node.name, node.properties, kin=True)
    )


def _another_animal(mention: Mention, node: StoredNode, *, someones_animal: bool) -> bool:
    """The puppy named after the dog that died is another animal (the stored one had, or
    said to have died; the one said now young or new: ``newcomer_after_death``); so is
    someone else's animal of the name of the user's own (``someones_animal``:
    ``someone_elses_animal`` of what was said)."""
    if node.roles & _OWNED and not mention.roles & _OWNED and someones_animal:
        # Derek's dog, "also called Rusty", is not the user's Rusty.
        return True
    return (
        _animal(node)
        and FORMER_PET not in mention.roles
        and newcomer_after_death(
            mention.properties,
            node.properties,
            stored_former=FORMER_PET in node.roles and PET not in node.roles,
        )
    )


def _title_part(a: str, b: str) -> bool:
    """Whether one name is the part before or after the colon (or a spaced dash) of the
    other ("zelda: breath of the wild" / "breath of the wild"), a part of two letters or
    more — not when the part after it numbers an entry of a series ("dune: part two" is the
    sequel of "dune")."""
    for whole, part in ((a, b), (b, a)):
        # A dash between spaces parts a title as a colon does ("Kurzgesagt – In a Nutshell").
        mark = next((m for m in (":", " – ", " — ", " - ") if m in whole), None)
        if mark is not None and mark.strip() not in part:
            parts = [p.strip() for p in whole.split(mark, 1)]
            if _SEQUEL.fullmatch(parts[1]):
                continue
            # Either part may be said without its "the" ("Rings of Power": The Lord of the
            # Rings: The Rings of Power; "Witcher 3": The Witcher 3: Wild Hunt).
            bare = _unthe(part)
            if len(bare) >= 2 and bare in (_unthe(p) for p in parts):
                return True
    return False


def _unthe(norm: str) -> str:
    return norm.removeprefix("the ").strip()


def _common_other(kind: str, name: str, mention: Mention) -> bool:
    """Whether an entity of the catch-all kind OTHER is a concept: a common noun (written in
    lower case: "painting", "therapy") said of no animal — nor naming one ("python", held
    at the reptile zoo). Pets have names (Biscuit)."""
    return (
        kind == "OTHER"
        and name[:1].islower()
        and not mention.roles & PET_ROLES
        and not mention.properties.get("species")
        and species_class(name.strip().lower()) is None
    )


def _animal(node: StoredNode) -> bool:
    return bool(node.roles & PET_ROLES) or bool(node.properties.get("species"))


def _told_apart(kind: str, mention: Mention, node: StoredNode) -> bool:
    """Whether what was said of a namesake of another kind makes it another sort of thing
    (Pepper the cat and Pepper the robot vacuum; Rosie the friend and Rosie the road bike;
    a pet python and Python the subject): ``merge_properties.what_it_is``."""
    said = what_it_is(kind, mention.properties, mention.roles)
    known = what_it_is(node.kind, node.properties, node.roles)
    return bool(said and known and said != known)


def _noted_description(
    new: str, same_kind: Sequence[StoredNode], mention: Mention
) -> MergeVerdict | None:
    """Round 29: a person described as their note describes them, at its start — "the
    school nurse" / "the school nurse at Oakfield", "the violin teacher" / "Maya's
    peripatetic violin teacher", "Ollie's mum" / "Ollie's mum; we share the school run": the
    one person whose note's first clause is the description, after a determiner or
    someone's name and a word or two; several → a question. Not one without the relation
    said ("my solicitor at Harper Lane", the trainee solicitor there), nor when what is
    said tells of a new one ("the new CO took over")."""
    words = new.split()
    phrase = " ".join(words[1:] if words[0] in DETERMINERS else words)
    if not phrase or (phrase == new and "'s " not in new):
        return None
    if re.search(rf"\bnew\s+{re.escape(phrase)}\b", said_text(mention.properties)):
        return None
    wanted = mention.roles & PEOPLE_ROLES
    opening = rf"^(?:(?:the|a|an|my|our|\w+['’]s)\s+)?(?:[\w-]+\s+){{0,2}}{re.escape(phrase)}\b"
    noted = [
        n.id
        for n in same_kind
        if not n.is_self
        and (not wanted or shares_role(wanted, n.roles))
        and isinstance(note := n.properties.get("note"), str)
        and re.search(opening, re.split(r"[,;.(]", note.lower(), maxsplit=1)[0].strip())
    ]
    return _one_or_several(noted, DESCRIPTION) if noted else None


def _description_verdict(
    new: str,
    described: tuple[str, ...],
    kind: str,
    same_kind: Sequence[StoredNode],
    mention: Mention,
    *,
    tied: bool = False,
) -> MergeVerdict | None:
    """Rule 2f (``descriptions``): "my sister", "the church" — the one stored node of the
    kind that fits the description → merge ("description"), several → hold, none → None
    (the other rules go on: "my dad" is the kinship rule's)."""
    by_trade = kind == "PERSON" and len(described) == 2 and described[-1] in _TRADE_NOUNS
    if by_trade:
        # "the scanning man", "the AI man", "the Teagasc man": a trade or an employer said
        # with a word for a person — the person known by it.
        described = described[:1]
    if kind == "PERSON" and len(described) > 1:
        # "my yoga teacher", "my sister in Glasgow", "the pottery teacher": a relation or a
        # role with what tells one apart, every word of it known of the person.
        fitting = [
            n.id
            for n in same_kind
            if not n.is_self and fits_person(described, n.roles, n.properties)
        ]
    elif kind == "PERSON":
        word = described[0]
        # "el casero", "der Vermieter": the landlord, said in another language.
        english = english_word(word)
        # "My husband" is a partner; "my dad" is left to the kinship rule.
        role = word if word in KINSHIP_WORDS else role_word(english or word)
        if role not in PEOPLE_ROLES:
            # "my GP": the one person whose stated role is the word.
            fitting = [
                n.id
                for n in same_kind
                if not n.is_self
                and (
                    role_said(word, n.properties)
                    or (english and role_said(english, n.properties))
                    # "el cura": Padre Miguel, a priest by his title.
                    or called_by(english or word, n)
                    or (by_trade and _known_by_trade(word, n.properties))
                )
            ]
            return _one_or_several(fitting, DESCRIPTION) if fitting else None
        wanted = frozenset({role}) | mention.roles
        # The relation the user has to them, or the role said of them ("my therapist":
        # Amanda Rhodes, the user's doctor, whose role is therapist; Marta Silva, noted as
        # "our couples therapist").
        fitting = [
            n.id
            for n in same_kind
            if not n.is_self
            and (
                shares_role(wanted, n.roles)
                or role_said(word, n.properties)
                or _noted_as(word, n.properties)
                # "the imam": Imam Yusuf Ali too, a calling his title says.
                or called_by(english or word, n)
            )
            # "My landlord" (HAS_LANDLORD) is not the boss stated to be a pub's landlord.
            and not (mention.roles and n.roles and not shares_role(mention.roles, n.roles))
        ]
    elif kind in DESCRIBED_KINDS:
        fits = [
            n
            for n in same_kind
            if fits_description(described, [n.name, *n.aliases], n.properties, n.roles)
            # "my watch" is not "Grandad's Omega" — unless the user owns it (inherited).
            and (POSSESSION in n.roles or not someone_elses(new, n.name))
            # A thing said without "my" is one by what it is: "boiler" is not the boiler
            # cover.
            and (not tied or kind != "THING" or headed_by(described, node_forms(n), n.properties))
            # An organisation too: "the kennels" is not the Kennel Club.
            and (
                kind != "ORG" or org_headed(described, [n.name, *n.aliases], n.properties, n.roles)
            )
        ]
        # Not the dog that died for the puppy the user has now (HAS_PET / HAD_PET) ...
        fits = [n for n in fits if not contradicts(mention.roles, n.roles)]
        # ... and, of pets that fit, the living ones ("our cat": Nori, not the late
        # Whiskers), unless the user said it is one they had.
        living = [n for n in fits if PET in n.roles or FORMER_PET not in n.roles]
        if FORMER_PET not in mention.roles and living:
            fits = living
        # "the hamster" keeping the family up at night is not Pumpkin, who "died September
        # 2025" — unless the user speaks of a death too, or of a pet they had.
        if kind == "OTHER" and FORMER_PET not in mention.roles and not died(mention.properties):
            fits = [n for n in fits if not died(n.properties)]
        # Of several that fit, the ones the user's relation picks ("the puppy", the user's
        # pet, not the puppy training class they attend).
        related = [n for n in fits if mention.roles and shares_role(mention.roles, n.roles)]
        chosen = related if tied else related or fits
        fitting = [n.id for n in chosen]
        if len(chosen) > 1 and kind in ("THING", "PLACE"):
            # "the Xbox", "after years in the attic": of two, the one noted as in the attic.
            # Not an organisation: what is said of one ("a Korean menu", "club run") is as
            # often what any of its kind does.
            said = frozenset(described) | frozenset(new.split())
            by_context = [
                n for n in chosen if context_shared(mention.properties, n.properties, ignore=said)
            ]
            if len(by_context) == 1:
                only = by_context[0].id
                return make_verdict(MERGE, [only], f"{DESCRIPTION}-by-context", {only: 1.0})
    else:
        return None
    return _one_or_several(fitting, DESCRIPTION) if fitting else None


# The words for a person said after a trade ("the gas man", "the dinner lady"): round 28.
_TRADE_NOUNS = frozenset({"man", "woman", "lady", "guy", "bloke", "fella", "fellow", "chap"})


def _known_by_trade(word: str, properties: Mapping[str, object]) -> bool:
    """Whether a person's stated role is the trade said with another ending ("scanning":
    sheep scanner) or their note names them by the word ("teagasc": "our Teagasc
    adviser")."""
    stem = _trade_stem(word)
    roles = [
        w
        for key in ROLE_KEYS
        if isinstance(properties.get(key), str)
        for w in re.findall(r"\w+", properties[key].lower())
    ]
    if len(stem) >= 4 and any(_trade_stem(w) == stem for w in roles):
        return True
    note = properties.get("note")
    return isinstance(note, str) and bool(
        re.search(rf"\b(?:our|my)\s+{re.escape(word)}\b", note.lower())
    )


def _trade_stem(word: str) -> str:
    """A trade word without its ending: scanning, scanner → scan; shearing, shearer → shear."""
    for ending in ("ing", "ers", "er", "or"):
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            word = word[: -len(ending)]
            break
    return word[:-1] if len(word) > 4 and word[-1] == word[-2] else word


def _noted_as(word: str, properties: Mapping[str, object]) -> bool:
    """Whether a person's note is a short description ending in the word ("our couples
    therapist", "Lucas's sister")."""
    note = properties.get("note")
    if not isinstance(note, str):
        return False
    words = re.findall(r"\w+", note.lower())
    return 0 < len(words) <= 5 and words[-1] == word


def _transliterated(a: str, b: str) -> bool:
    """One name in Cyrillic or Greek letters, the other in Latin ones, the same once
    romanised word by word (``name_spelling.transliteration_key``)."""
    if has_transliterable_letters(a) == has_transliterable_letters(b):
        return False
    return romanised_alike(a.split(), b.split())


def _elsewhere(new: str, node: StoredNode, mention: Mention) -> bool:
    """Whether what was said of a city's other name or of the stored city may place one of
    them elsewhere: a region or city stated (which the table cannot check), or a country
    that is not the shared city's ("Firenze" with a Florence in Italy merges; with a Florence
    in Alabama it is asked)."""
    said = [mention.properties, node.properties]
    if any(states_region(p) for p in said):
        return True
    countries = [p["country"] for p in said if isinstance(p.get("country"), str)]
    if not countries:
        return False
    known = set().union(*(shared_city_countries(new, f) for f in node_forms(node)))
    return any(country_key(c) not in known for c in countries)


def _unless_roles_differ(
    new: str, verdict: MergeVerdict, same_kind: Sequence[StoredNode], mention: Mention
) -> MergeVerdict:
    """A person merged on part of a name (a nickname, a title and surname, a first name)
    whose role as said now shares no word with the stored one ("Tariq", the plumber; Tariq
    Hussain, the engineer) is asked about instead (``merge_properties.roles_differ``), as is
    one said as family ("my son Tom") of a person known only by an occupation (Tom Hughes,
    the plumber), and one said only by an occupation of a friend or relative ("Kofi", the tour
    guide; Kofi Mensah, the friend from university)."""
    if verdict.action != MERGE:
        return verdict
    target = next((n for n in same_kind if n.id == verdict.target), None)
    if target is None:
        return verdict
    # "My son Tom" and Tom Hughes, known only as the plumber: family is not described by a
    # trade, and a first name is too little to make a tradesman the user's son.
    tradesman = (
        family_roles(mention.roles)
        and not family_roles(target.roles)
        and (
            any(target.properties.get(key) for key in ROLE_KEYS)
            # ... or by a rank: "Ash", the brother-in-law, and Sgt Ashley Grant.
            or any(rank_of(f) for f in node_forms(target))
        )
    )
    # "Kofi", the tour guide, and Kofi Mensah the friend from university: someone said only
    # by a trade, with no tie to the user, is not on a first name the friend or family member
    # of whom no trade is known.
    stranger = (
        not mention.roles
        and any(mention.properties.get(key) for key in ROLE_KEYS)
        and (family_roles(target.roles) or "friend" in target.roles)
        and not any(target.properties.get(key) for key in ROLE_KEYS)
    )
    one_word = len(parse_person(new).words) == 1
    if not (tradesman or stranger) and not said_otherwise(mention, target, part=one_word, name=new):
        return verdict
    return make_verdict(HOLD, [target.id], f"{verdict.rule}-{ROLE_DIFFERS}", dict(verdict.scores))


def _namesake(mention: Mention, node: StoredNode) -> bool:
    """Whether a full name said again may be a namesake: another relation to the user,
    another role and another city, all three (Maria Santos the friend in Manila, Maria
    Santos the cardiologist in Lisbon), or a client of the user's against someone the user
    knows otherwise (Nikhil Sharma the boss, a Nikhil Sharma at a client:
    ``person_roles.capacities_differ``). Fewer differences are the same person described
    anew: a colleague promoted to team lead, a neighbour who moved and stayed a friend."""
    return capacities_differ(mention.roles, node.roles) or (
        _relation_changed(mention, node)
        and roles_differ(mention.properties, node.properties)
        and said_elsewhere(mention.properties, node.properties)
    )


def _exact_part_name(
    new: str, only: StoredNode, same_kind: Sequence[StoredNode], mention: Mention
) -> MergeVerdict | None:
    """A first name alone, or a title and a surname, said exactly as a stored node is named
    ("Sam", "Dr. Patel") is part of a name, and weighed as the other part-name rules weigh
    it: when it also reaches another person (Sam Cole, or Jessica Wong by a nickname) the
    user's relation picks one, else it is a question ("exact-ambiguous"); when what is said
    of it now differs from what is known of the one stored (Dr. Patel the GP, a Dr. Patel
    who supervises the thesis: ``said_otherwise``) it is a question too. None: it merges."""
    others = [n for n in same_kind if n.id != only.id and not n.is_self]
    verdict = person_verdict(new, others, mention) if others else None
    reached = [only.id]
    if verdict is not None and verdict.action != NEW:
        reached += verdict.candidates
    by_id = {n.id: n for n in same_kind}
    if parse_person(new).title:
        # "Dr. Patel", said as the GP is stored: not Priya Patel, a friend the user knows as
        # something and never called by a title.
        reached = [i for i in reached if i == only.id or not _untitled_known(by_id[i])]
    if len(reached) > 1:
        picked = [
            i for i in reached if mention.roles and shares_role(mention.roles, by_id[i].roles)
        ]
        if len(picked) == 1:
            return make_verdict(MERGE, picked, "exact-by-role", {picked[0]: 1.0})
        # Or the trade said: Carlos the handyman, not Carlos Mendez the brother-in-law.
        by_trade = picked_by_stated_role(reached, by_id, mention)
        if by_trade is not None:
            return make_verdict(MERGE, [by_trade], "exact-by-role", {by_trade: 1.0})
        return make_verdict(HOLD, reached, "exact-ambiguous", dict.fromkeys(reached, 1.0))
    if not parse_person(new).title and _unconnected(new, mention, only):
        # "Oksana from the Lviv office", with Oksana the QA engineer in Kyiv: a lone given
        # name, and what is said of it now and what is held share nothing — a question.
        return make_verdict(HOLD, reached, EXACT_UNCONNECTED, {only.id: 1.0})
    if said_otherwise(mention, only, part=True, name=new):
        return make_verdict(HOLD, reached, f"exact-{ROLE_DIFFERS}", {only.id: 1.0})
    return None


EXACT_UNCONNECTED = "exact-unconnected"


def _unconnected(new: str, mention: Mention, node: StoredNode) -> bool:
    """Whether a lone given name said with a note and no relation, against a person of the
    name the graph holds with a note, shares no telling word with it (``context_shared``):
    a name alone ties nothing ("Ahmed fixed my laptop"; Ahmed the Uber driver)."""
    return not mention.roles and _notes_share_nothing(mention, node, ignore=frozenset({new}))


def _notes_share_nothing(mention: Mention, node: StoredNode, *, ignore: frozenset[str]) -> bool:
    """Whether a note was said now and one is held, and they share no telling word
    (``context_shared``; the words in ``ignore``, the name said, are none)."""
    return (
        isinstance(mention.properties.get("note"), str)
        and isinstance(node.properties.get("note"), str)
        and not context_shared(mention.properties, node.properties, ignore=ignore)
    )


def _untitled_known(node: StoredNode) -> bool:
    """Someone the user knows as something (a relation or a stated role) and names by no
    title."""
    return bool(node.roles or node.properties.get("role")) and not any(
        parse_person(f).title for f in node_forms(node)
    )


def said_otherwise(
    mention: Mention, target: StoredNode, *, part: bool = False, name: str = ""
) -> bool:
    """Whether what the user says of a person now differs from what the graph knows of the
    person a name reaches, without contradicting it: a role that shares no word ("the
    plumber" / "software engineer"), another relation to the user (a colleague, stored as a
    friend: a friend may be a colleague, or another person of the name). Each is a question,
    never a merge on a name alone; so, for a ``part`` of a name (a first name alone, a title
    and a surname), is another company, school, course or team
    (``merge_properties.affiliation_differs``: Ayşe at Getir, Ayşe Demir at Trendyol; a full
    name said with another university is the professor who moved). Another city alone is
    not: people move, and "my friend Bill from Leeds" is the William the graph placed in
    York (the write-path fixture)."""
    # A role changed at the place the person is known at is a career there (the TA now a
    # lecturer at the same university), not another person.
    career = said_same_affiliation(mention.properties, target.properties)
    return (
        _relation_changed(mention, target)
        or (roles_differ(mention.properties, target.properties) and not career)
        or (part and affiliation_differs(mention.properties, target.properties))
        # "Yuki from Hana's class", with Yuki known as Hana's violin teacher.
        or (part and bool(name) and met_elsewhere(name, mention.properties, target.properties))
    )


def _relation_changed(mention: Mention, node: StoredNode) -> bool:
    """Whether the user says the person is something to them that the graph never said (a
    colleague, stored as a friend), both sides saying something. Not a move among the roles
    of work (Marta the colleague, now the boss: ``person_roles.colleagues_both``)."""
    return bool(
        mention.roles
        and node.roles
        and not shares_role(mention.roles, node.roles)
        and not colleagues_both(mention.roles, node.roles)
    )


def band_llm_confidence(conf: float) -> str:
    """The band of an LLM merge confidence (SPEC §5.6).

    > 0.90 → "merge"; 0.70 ≤ conf ≤ 0.90 → "merge-flagged" (merge and flag for
    review); < 0.70 (or not a number) → "keep-apart".
    """
    if conf > LLM_MERGE_ABOVE:
        return "merge"
    if conf >= LLM_FLAG_ABOVE:
        return "merge-flagged"
    return "keep-apart"


def pick_llm_candidate(confidences: Mapping[int, float]) -> tuple[int | None, str]:
    """Choose among held candidates from the LLM's confidences (SPEC §5.6).

    Input: candidate node id → confidence 0..1. The highest confidence that
    qualifies (≥ 0.70) wins, ties to the lower id; output ``(id, band)``, or
    ``(None, "keep-apart")`` when none qualifies.
    """
    qualifying = [
        (conf, node_id)
        for node_id, conf in confidences.items()
        if band_llm_confidence(conf) != "keep-apart"
    ]
    if not qualifying:
        return None, "keep-apart"
    conf, node_id = min(qualifying, key=lambda pair: (-pair[0], pair[1]))
    return node_id, band_llm_confidence(conf)
