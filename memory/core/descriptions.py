"""A known referent named by a description instead of its name (SPEC §5.6): "my sister",
"my boss", "the church", "the wedding", "our cabin in Bend", "my Toyota". Pure functions,
no Django.

A description is a determiner or possessive ("the", "my", "our" …) and words saying what
the thing is. People mean by it the one thing they have told about that fits — so it
merges into exactly one stored node of the kind that fits it, is asked about when several
fit (two sisters, two weddings), and is a new node when none does:

* a person described by a role ("my sister", "my boss") fits the people the user has that
  relation to (``person_roles.shares_role``);
* anything else fits a node when every word of the description (singular; function words
  left out) is among the node's name and alias words or the words of its properties (a
  type, a species, a place): "the church" / Lakeside Community Church, "the dog" / Pippin
  (species dog), "our cabin in Bend" / the cabin (near Bend, Oregon), "my Toyota" / the
  Corolla (type Toyota Corolla). The parts of a compound name count ("the gym" / PureGym).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

from memory.core.merge_properties import make_class, species_class
from memory.core.name_spelling import FOREIGN_ARTICLES, fold_accents
from memory.core.person_roles import PEOPLE_ROLES, role_word
from memory.core.words import COMMON_WORD_ZIPF, STOP_WORDS, word_zipf

__all__ = [
    "DETERMINERS",
    "description_words",
    "english_word",
    "fits_description",
    "fits_person",
    "foreign_description",
    "headed_by",
    "org_description",
    "org_headed",
    "said_without_determiner",
    "someone_elses",
]

# ... and the demonstratives people point back with ("that podcast", "this gym").
DETERMINERS = frozenset(
    {"the", "my", "our", "his", "her", "their", "your", "that", "this", "those", "these"}
)
# Determiners and possessives of Spanish, Portuguese, French, Italian and German said before
# a description ("mi coche", "o eletricista", "der Vermieter"): the articles said before a
# name (``name_spelling.FOREIGN_ARTICLES``) but the genitive or plural "des", and the
# possessives. Not "a" or "as", which are English words too.
_FOREIGN_DETERMINERS = (FOREIGN_ARTICLES - {"des"}) | frozenset(
    {
        *("mi", "mis", "tu", "su", "nuestro", "nuestra"),
        *("meu", "minha", "meus", "minhas", "nosso", "nossa"),
        *("mon", "ma", "mes", "notre"),
        *("mio", "mia", "nostro", "nostra"),
        *("mein", "meine", "meinen", "unser", "unsere"),
    }
)
_TRANSLATIONS_FILE = Path(__file__).with_name("description_words.txt")
_WORD = re.compile(r"[^\W_]+")
# A capital inside a word starts another word of a compound name (PureGym: pure, gym).
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_POSSESSIVE = re.compile(r"['’]s\b")
# A name that starts with someone's possessive: "Mia's birthday party", "Dad's car".
_SOMEONES = re.compile(r"[A-Z][^\W\d_]*['’]s\b")
_MINE = frozenset({"my", "our"})


# Words that end in "s" in the singular.
_INVARIANT = frozenset({"lens", "series", "species", "news"})


def _singular(word: str) -> str:
    if word in _INVARIANT:
        return word
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _words(text: str, *, split_camel: bool = True) -> list[str]:
    """Lower-case words, possessives off; "iPhone" is "i phone" unless ``split_camel`` is
    off."""
    folded = fold_accents(text)
    if split_camel:
        folded = _CAMEL.sub(" ", folded)
    return _WORD.findall(_POSSESSIVE.sub(" ", folded.lower()))


def description_words(norm: str) -> tuple[str, ...]:
    """The words of a description after its leading determiner, function words left out
    and singular ("our cabin in Bend" → cabin, bend); () when ``norm`` is no description."""
    words = _kin_compounds(_words(norm))
    if len(words) < 2 or words[0] not in DETERMINERS:
        return ()
    return tuple(_singular(w) for w in words[1:] if w not in STOP_WORDS)


# The first word of a kinship word written in two ("half-sister", "step dad", "ex-wife"), and
# the last two of an in-law ("mother-in-law").
_KIN_PREFIXES = frozenset({"half", "step", "ex", "great", "grand"})


def _kin_compounds(words: list[str]) -> list[str]:
    """Words with a kinship word written in two or three joined as the roles name it
    ("mother in law" → mother_in_law, "half sister" → half_sister, "step dad" → step_dad)."""
    out: list[str] = []
    i = 0
    while i < len(words):
        if words[i + 1 : i + 3] == ["in", "law"]:
            out.append(f"{words[i]}_in_law")
            i += 3
        elif (
            words[i] in _KIN_PREFIXES
            and i + 1 < len(words)
            and role_word(words[i + 1]) in PEOPLE_ROLES
        ):
            out.append(f"{words[i]}_{words[i + 1]}")
            i += 2
        else:
            out.append(words[i])
            i += 1
    return out


@lru_cache(maxsize=1)
def _translations() -> dict[str, str]:
    """Another language's word of a description → the English one (description_words.txt)."""
    table: dict[str, str] = {}
    for line in _TRANSLATIONS_FILE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        english, *others = line.split()
        table.update(dict.fromkeys(others, english))
    return table


def english_word(word: str) -> str | None:
    """The English word of a description word said in another language ("coche" → car,
    "vermieter" → landlord), None for a word the table does not know."""
    return _translations().get(word)


def foreign_description(name: str) -> tuple[str, ...]:
    """The words of a description said in another language, after its determiner or
    possessive ("mi coche" → coche; "der Vermieter" → vermieter), as ``description_words``
    gives them; () when the name is none."""
    words = name.strip().split()
    if len(words) < 2 or words[0].lower() not in _FOREIGN_DETERMINERS:
        return ()
    described = tuple(_singular(w) for w in _words(" ".join(words[1:])) if w not in STOP_WORDS)
    # A capital determiner may be part of a name (El Salvador, La Paz) — or the Write's
    # casing of a lower-case person's, organisation's or place's name ("El Casero"): a
    # description only when the table knows every word.
    if words[0][:1].isupper() and not all(english_word(w) for w in described):
        return ()
    return described


# A person said as someone else's relation or role: "Leo's teacher", "Sam's mum".
_SOMEONES_ROLE = re.compile(r"^[A-Z][^\W\d_]*['’]s\s+[^\W\d_]+(?:\s+[^\W\d_]+)?$")


def said_without_determiner(name: str, kind: str, *, tied: bool) -> tuple[str, ...]:
    """The words of a description said without its determiner, () for a name:

    * a person said as someone else's ("Leo's teacher" → leo, teacher), matched on the
      person's relations and role;
    * a common noun said of an organisation or a place the user has a tie to (``tied``:
      "church", said as the church the user belongs to; "book club") — every word a common
      English one, since the Write capitalises an organisation's lower-case name and the
      case cannot tell."""
    if kind == "PERSON":
        return description_words(f"the {name}") if _SOMEONES_ROLE.match(name.strip()) else ()
    if kind == "THING" and tied:
        # "dishwasher", "Worcester boiler", "Sony headphones", said of a thing the user owns:
        # a common noun at the end says what it is; the words before it may be a make.
        described = description_words(f"my {name}")
        return described if described and word_zipf(described[-1]) >= COMMON_WORD_ZIPF else ()
    if kind not in ("ORG", "PLACE") or not tied:
        return ()
    words = _WORD.findall(fold_accents(name).lower())
    if not words or any(word_zipf(w) < COMMON_WORD_ZIPF for w in words if w not in STOP_WORDS):
        return ()
    return description_words(f"my {name}")


def _node_words(forms: Iterable[str], properties: Mapping[str, object]) -> set[str]:
    # A compound name counts split (PureGym: pure, gym) and whole (iPhone: iphone, as the
    # description, lower-cased, says it).
    forms = list(forms)
    words = {
        _singular(w) for form in forms for w in (*_words(form), *_words(form, split_camel=False))
    }
    words |= _property_words(properties)
    # An animal's words name its species too: a puppy is a dog, a kitten a cat. An object's
    # make names what it is (a Toyota is a car, a Ford pickup a truck), by the type stated
    # or else by its name (a Honda of type motorcycle is no car).
    words |= {c for w in words if (c := species_class(w))}
    return (words | _made(forms, properties)) - STOP_WORDS


def _property_words(properties: Mapping[str, object]) -> set[str]:
    """The words of what the graph states of a node, singular."""
    return {
        _singular(w)
        for value in properties.values()
        if isinstance(value, str | int)
        for w in _words(str(value))
    }


def _tie_words(roles: Iterable[str]) -> set[str]:
    """The ties the user has to a node and the words a description says them with ("the
    firm" for the workplace)."""
    roles = set(roles)
    return roles | {w for role in roles for w in _ROLE_WORDS.get(role, ())}


def _made(forms: Iterable[str], properties: Mapping[str, object]) -> set[str]:
    """What a thing is by its make (``merge_properties.make_class``), from its stated type
    if it has one, else from its name."""
    said = properties.get("type")
    texts = [str(said)] if isinstance(said, str | int) else list(forms)
    return {c for text in texts for w in _words(text, split_camel=False) if (c := make_class(w))}


def _heads(forms: Iterable[str], properties: Mapping[str, object]) -> set[str]:
    """What a thing is by its name's last word, its stated type, or its make ("Bosch
    dishwasher", type headphones, a Toyota: dishwasher, headphone, car)."""
    forms = list(forms)
    heads = {_singular(words[-1]) for form in forms if (words := _words(form))}
    if isinstance(properties.get("type"), str):
        heads |= {_singular(w) for w in _words(properties["type"])}
    return heads | _made(forms, properties)


def headed_by(
    described: tuple[str, ...], forms: Iterable[str], properties: Mapping[str, object]
) -> bool:
    """Whether the last word of a description is what a thing is (``_heads``): a "boiler"
    is the Worcester Bosch boiler, not the "boiler service" booked for it."""
    return bool(described) and described[-1] in _heads(forms, properties)


# Words a description uses for a thing stored under another word: a bike is a bicycle or a
# motorbike (both stored: asked), a phone a mobile or a smartphone, a telly a television.
_SAME_THING = {
    "bike": ("bicycle", "motorbike", "motorcycle", "cycle"),
    # A band may be an ensemble or a group (the brass ensemble the user plays in).
    "band": ("ensemble", "group"),
    # A lens may be named by what it does (a telephoto, a standard zoom, a prime).
    "lens": ("zoom", "telephoto", "prime"),
    "motorbike": ("motorcycle",),
    "motorcycle": ("motorbike",),
    "phone": ("mobile", "smartphone", "handset"),
    "mobile": ("phone", "smartphone"),
    "telly": ("television", "tv"),
    "tv": ("television",),
    "television": ("tv",),
    "fridge": ("refrigerator",),
    "refrigerator": ("fridge",),
    # A gym may be named for fitness (Fitness First, Anytime Fitness), a CrossFit box, a
    # council's leisure centre or, to climbers, a climbing wall.
    "gym": ("fitness", "crossfit", "leisure", "climbing"),
}


# The words a description uses for what an organisation is to the user: "the firm" or "the
# company" for the employer, "the insurance company" for the insurer.
_ROLE_WORDS = {
    "workplace": ("company", "firm", "employer"),
    "insurer": ("insurance", "company", "provider"),
    "lender": ("mortgage", "bank"),
}


# Words that only say an organisation is somewhere to go ("the dumpling place", "the Thai
# spot", "the bike shop"): no word of what it is, so not looked for among its words.
_SOMEWHERE = frozenset({"place", "spot", "joint", "shop", "store"})


def org_description(described: tuple[str, ...]) -> tuple[str, ...]:
    """A description of an organisation without the words that only say it is somewhere
    to go ("dumpling place" → dumpling), unless nothing else is said ("the place")."""
    return tuple(w for w in described if w not in _SOMEWHERE) or described


def fits_description(
    described: tuple[str, ...],
    forms: Iterable[str],
    properties: Mapping[str, object],
    roles: Iterable[str] = (),
) -> bool:
    """Whether every word of a description is among a node's words: its name and aliases as
    written (``forms``; a compound name's parts count: PureGym), its property values, and
    the ties the user has to it (``roles``: "my hometown" for the place the user is from)."""
    words = _node_words(forms, properties) | _tie_words(roles)
    return bool(described) and all(_fits_word(w, words) for w in described)


# Words an organisation's name ends in that make the word before them a modifier: the
# Kennel Club is a club, the Met Office an office, a School Board a board.
_ORG_HEADS = frozenset(
    {
        *("club", "office", "society", "association", "trust", "council", "board", "agency"),
        *("authority", "department", "institute", "foundation", "fund", "group", "company"),
        *("union", "federation", "league", "network", "service", "bank", "school", "shop"),
    }
)


def org_headed(
    described: tuple[str, ...],
    forms: Iterable[str],
    properties: Mapping[str, object],
    roles: Iterable[str] = (),
) -> bool:
    """Whether the last word of a description of an organisation may be what it is: not
    when, in its name, the word only comes before another word that says what the
    organisation is ("the kennels" is no Kennel Club, "the met" no Met Office) — unless
    that is also its name's last word, its compound's last part ("the gym": PureGym), or a
    word of what the graph states of it or of the user's tie to it."""
    if not described:
        return False
    word = described[-1]
    modifies, heads = False, set()
    for form in forms:
        words = [_singular(w) for w in _words(form)]
        if not words:
            continue
        heads.add(words[-1])
        modifies |= any(w == word and nxt in _ORG_HEADS for w, nxt in itertools.pairwise(words))
        for part in fold_accents(form).split():
            parts = _WORD.findall(_CAMEL.sub(" ", part).lower())
            if len(parts) > 1:
                heads.add(_singular(parts[-1]))
    if not modifies:
        return True
    return _fits_word(word, heads | _property_words(properties) | _tie_words(roles))


def _fits_word(word: str, words: set[str]) -> bool:
    """Whether one word of a description is among a node's words: as itself, as the animal
    it names, as another word for the same thing, or as its English word."""
    if word in words or species_class(word) in words:
        return True
    if not words.isdisjoint(_SAME_THING.get(word, ())):
        return True
    english = english_word(word)
    # A word of another language is also the head of a compound there: a Ferienwohnung is
    # a Wohnung.
    return english is not None and (english in words or any(x.endswith(word) for x in words))


# What a person's properties say they are and where: a description of a person is matched
# on these ("my yoga teacher", "my sister in Glasgow"), not on free-text notes.
_PERSON_KEYS = (
    *("role", "occupation", "job", "relation", "relationship"),
    *("city", "state", "country", "company", "employer", "school", "university", "team"),
)


def fits_person(
    described: tuple[str, ...], roles: Iterable[str], properties: Mapping[str, object]
) -> bool:
    """Whether every word of a description of a person ("yoga teacher", "sister glasgow")
    is a relation the user has to them (``roles``, words as roles are named: "mum" is
    "mother") or a word of their role, occupation, place or company."""
    words = _node_words((), {k: properties[k] for k in _PERSON_KEYS if k in properties})
    known = set(roles)
    return bool(described) and all(w in words or role_word(w) in known for w in described)


def someone_elses(description: str, name: str) -> bool:
    """Whether the user's own thing ("my birthday party") is described against a stored
    thing named as someone else's ("Mia's birthday party"): not the same one."""
    words = _words(description)
    return bool(words) and words[0] in _MINE and bool(_SOMEONES.match(name.strip()))
