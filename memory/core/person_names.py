"""How people are named in conversation: the facts the merge rules use for PERSON entities.

Pure functions, no Django (SPEC §5.6 "rules for how people are actually named"). Each
relation between two spellings of a first name says *why* they may be one person:

* ``nickname`` — one is in the other's nickname group (the ``nicknames`` package's table:
  Liz/Elizabeth, Jon/Jonathan) and shorter; when they begin with another sound, shorter by
  a syllable or with a pet ending (Bill/William, Bobby/Robert) — Hannah/Anna, linked by the
  table, are two given names;
* ``spelling`` — the same name written differently: accents (Zoë/Zoe, José/Jose) or a
  small misspelling (Carolyn/Caroline, Jonathon/Jonathan, Micheal/Michael);
* ``short-form`` — a clipped form by prefix that the table does not list (Mel/Melanie,
  Caro/Caroline);
* ``pet-form`` — a clipped form with a diminutive ending, which is no prefix (Gabi/Gabriela,
  Rosie/Rosalind, Katie/Kate, Gracie/Grace);
* ``variant`` — the table links two full forms of a name, neither shorter than the other,
  that begin alike (Sophia/Sophie): the same name in another language, or two names. A
  variant is a reason to ask, never to merge; forms that begin otherwise (Helen/Elena) are
  not even that. So are two given names of the lists one letter apart (Noa/Noah,
  Jonah/Jonas: ``one_letter_apart``).

The guards are just as important: a name's ending carries gender in many languages
(Daniel/Daniela, Louis/Louise, Paul/Pauline, Christian/Christina), so two names that differ
only there are never one person's — unless the first-name lists (``first_names``) say both
are given to the same gender (Isabel/Isabelle); a table link between names the lists give
to different genders (Louis/Louise) is no evidence; what the user said about someone
(sister, colleague, "Mr.") can contradict a candidate (``person_roles.contradicts``,
re-exported here with ``gender_of`` and ``roles_from_relations`` for the merge service).
``loosely_related`` is the widest reading of all of these: another stored name it relates
to makes a match a near-tie.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz.distance import OSA

from memory.core.first_names import (
    genders_differ,
    is_given_name,
    is_world_pet_form,
    name_gender,
    name_group,
    nicknamer,
    same_gender,
    written_otherwise,
)
from memory.core.name_spelling import FOREIGN_ARTICLES, fold_accents, name_parts, name_words
from memory.core.person_roles import (
    GIVEN_NAME_TITLES,
    INITIAL_RANKS,
    POST_TITLES,
    RANK_PARTS,
    RANK_WORDS,
    RANKS,
    TITLES,
    contradicts,
    gender_of,
    roles_from_relations,
)

__all__ = [
    "NICKNAME",
    "PET_FORM",
    "SHORT_FORM",
    "SPELLING",
    "VARIANT",
    "PersonName",
    "contradicts",
    "fold_accents",
    "gender_of",
    "gendered_pair",
    "loosely_related",
    "name_gender",
    "name_group",
    "one_letter_apart",
    "parse_person",
    "rank_of",
    "relate_first_names",
    "roles_from_relations",
]

NICKNAME = "nickname"
SPELLING = "spelling"
SHORT_FORM = "short-form"
PET_FORM = "pet-form"
VARIANT = "variant"

# A clipped or respelled name differs from the full one by more than a gendered ending.
_GENDERED_ENDINGS = frozenset(
    {
        "a",
        "e",
        "ia",
        "ie",
        "ine",
        "ina",
        "ette",
        "elle",
        "ella",
        "la",
        "le",
        "s",
        "o",
        "y",
        "ita",
        "een",
    }
)
_VOWELS = "aeiouy"
MIN_SHORT_FORM = 3
MIN_SPELLING = 4
# Diminutive endings put on a clipped name (Gab-i, Ros-ie, Mag-s, Kat-ie, Bets-y).
_DIMINUTIVE_ENDINGS = ("ie", "y", "i", "s")
_PET_ENDINGS = ("ie", "y", "i")


@dataclass(frozen=True)
class PersonName:
    """A person's name as words: ``title`` ("mr", "dr", … or "") and the other words,
    accent-folded and lower-case ("Mr. José Reyes" → title "mr", words ("jose", "reyes"))."""

    title: str
    words: tuple[str, ...]
    # The words with a double-barrelled surname split at its hyphen ("ngozi eze-williams" →
    # ("ngozi", "eze", "williams")); the given name stays whole (Anne-Marie is one name).
    split: tuple[str, ...] = ()

    @property
    def first(self) -> str:
        return self.words[0] if self.words else ""

    @property
    def rest(self) -> tuple[str, ...]:
        return self.words[1:]


# Articles said before a title ("le père Antoine", "el padre Miguel", "the Reverend Smith",
# round 24) or a word of address ("el míster", round 26).
ARTICLES = FOREIGN_ARTICLES | {"the"}


@lru_cache(maxsize=8192)
def parse_person(norm: str) -> PersonName:
    """Split a normalised name into an optional leading title and its words (folded; an
    apostrophe or hyphen inside a word joins it: "mr. o'brien" → title "mr", ("obrien",))."""
    words = name_words(norm)
    parts = [p for p in name_parts(norm) if p]
    if len(words) >= 3 and words[0] in ARTICLES and words[1] in TITLES and len(parts) == len(words):
        # "le père Antoine", "el padre Miguel", "the Reverend Smith": the article is no name.
        words, parts = words[1:], parts[1:]
    title, start = _leading_title(words)
    if not title and len(words) >= 2 and words[-1] in POST_TITLES:
        # "Watanabe Sensei": an honorific after the name, read as a title before it.
        return PersonName(words[-1], tuple(words[:-1]), tuple(words[:-1]))
    if not title and len(parts) == len(words) and len(parts[-1]) == 2:
        name, honorific = parts[-1]
        if honorific in POST_TITLES:  # "Sharma-ji": the honorific joined by a hyphen
            rest = (*words[:-1], name)
            return PersonName(honorific, rest, rest)
    split = tuple(words[start:])
    if len(parts) == len(words):  # one part per word: the hyphens can be told apart
        split = (*words[start : start + 1], *(p for word in parts[start + 1 :] for p in word))
    return PersonName(title, tuple(words[start:]), split)


def _leading_title(words: list[str]) -> tuple[str, int]:
    """The title said before a name and how many words it takes, ("", 0) for none. Titles
    stacked before a name ("Prof. Dr. Klaus Weber", "Rev. Dr. King", "Lt Col Whitaker") are
    one title, named by its first; a rank of several words ("Colour Sergeant", "Sqn Ldr",
    "Airman First Class") is one title too. A name is left after it."""
    if len(words) >= 2 and words[0] in GIVEN_NAME_TITLES and is_given_name(words[1]):
        return words[0], 1
    if len(words) >= 3 and words[0] in INITIAL_RANKS:
        return words[0], 1
    title, start = "", 0
    while len(words) - start >= 2:
        word = words[start]
        if word in TITLES:
            title = title or word
        elif not (word in RANK_PARTS and (title or _rank_ahead(words, start + 1))):
            break
        start += 1
    return (title, start) if title else ("", 0)


@lru_cache(maxsize=8192)
def rank_of(norm: str) -> str:
    """The rank a normalised name is said with, each word written in full ("c/sgt
    ainsworth" → "colour sergeant"; "lt col dana whitaker" → "lieutenant colonel"), "" when
    it has none (no title, or only a courtesy: "mr")."""
    words = name_words(norm)
    _, start = _leading_title(words)
    said = [w for w in words[:start] if w in RANKS or w in INITIAL_RANKS or w in RANK_PARTS]
    if said == [w for w in said if w in RANK_PARTS]:
        return ""
    return " ".join(RANK_WORDS.get(w, w) for w in said)


def _rank_ahead(words: list[str], start: int) -> bool:
    """Whether the words from ``start`` are parts of a rank and then a rank, with a name
    left after it ("sergeant ainsworth" after "colour")."""
    for i in range(start, len(words) - 1):
        if words[i] in TITLES:
            return True
        if words[i] not in RANK_PARTS:
            return False
    return False


def _latin(word: str) -> bool:
    return word.isascii() and word.isalpha()


def gendered_pair(short: str, long: str) -> bool:
    """Whether two names differ only by an ending that marks gender or number (Daniel/
    Daniela, Louis/Louise, Maria/Marie, Paul/Pauline, Andrea/Andreas)."""
    if short.rstrip(_VOWELS) == long.rstrip(_VOWELS):
        return True
    return long.startswith(short) and long[len(short) :] in _GENDERED_ENDINGS


def _skeleton(word: str) -> str:
    """The letters a misspelling keeps: first letter, then consonants with each run of
    vowels as one "*", doubled letters once, a silent "h" after a consonant or at the end
    dropped, a final "e" dropped, "y" read as a vowel ("carolyn", "caroline" → "c*r*l*n")."""
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    # "ph" and "v" sound as "f" does (Stephan/Stefan, Stephen/Steven).
    word = word[0] + word[1:].replace("ph", "f").replace("v", "f")
    out: list[str] = [word[0]]
    last = len(word) - 1
    for i in range(1, len(word)):
        ch = word[i]
        if ch == "h" and (word[i - 1] not in _VOWELS or i == last):
            continue
        mark = "*" if ch in _VOWELS else ch
        if mark != out[-1]:
            out.append(mark)
    return "".join(out)


def _spelling(a: str, b: str) -> bool:
    if fold_accents(a) == fold_accents(b):
        return True
    if not (_latin(a) and _latin(b)) or min(len(a), len(b)) < MIN_SPELLING or a[0] != b[0]:
        return False
    short, long = sorted((a, b), key=len)
    if genders_differ(a, b):
        return False
    if (gendered_pair(short, long) or gendered_pair(long, short)) and not same_gender(a, b):
        return False
    key = _skeleton(a)
    if key != _skeleton(b) or sum(c != "*" for c in key) < 3:
        return False
    # The first vowel is how a name sounds; respellings keep it (Bryan/Brian: y is i), other
    # names of one skeleton do not (Wanda/Wendy, Robin/Ruben, Taylor/Tyler). A respelling
    # changes one sound: one edit once "ph" and "v" are read as "f" and a final "e" is
    # dropped (Stephen/Steven, Isabel/Isabelle); two changes are another name of the same
    # origin (Carlos/Charles: an "h" and another vowel).
    return _first_vowels(a) == _first_vowels(b) and OSA.distance(_sound(a), _sound(b)) <= 1


def _sound(word: str) -> str:
    """A name as it sounds for counting edits: "ph" and "v" as "f", no final "e"."""
    word = word.replace("ph", "f").replace("v", "f")
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def _first_vowels(word: str) -> str:
    found = re.search(f"[{_VOWELS}]+", word[1:].replace("y", "i"))
    return found.group() if found else ""


def _short_form(a: str, b: str) -> bool:
    short, long = sorted((a, b), key=len)
    if not (_latin(short) and _latin(long)) or len(short) < MIN_SHORT_FORM:
        return False
    if not long.startswith(short):
        return False
    return not gendered_pair(short, long)


def _pet_form(a: str, b: str) -> bool:
    """One name is a clipped form of the other plus a diminutive ending, and not a prefix of
    it (Gabi/Gabriela, Rosie/Rosalind, Katie/Kate): the clipped stem keeps three letters or
    more; the nickname table does not list nicknames of the clipped name itself (then it is a
    full name: Mary is no pet form of Margaret, nor Marie of Martha); the lists do not give
    the two names to different genders (Ross/Rosa, Tony/Tonya, Hans/Hannah are other people).
    When the table lists the full name's nicknames, the clipped name shares a group with them
    (Katie and Kate are both Katy's; Christie is none of Christopher's) — or it is a pet form
    of one of them that is no given name of its own (Mags from Maggie, Margaret's). A pet form
    that is a given name of the lists, on a stem the full name extends by one or two letters
    only, may be another name on the same stem (Toni/Tonya, Brandy/Brandon): it counts only
    when the lists give both names to the same gender (Kirsty/Kirsten, Holly/Hollie,
    Katie/Kate)."""
    if not (_latin(a) and _latin(b)) or genders_differ(a, b):
        return False
    if len(a) == len(b):
        return False  # Maria/Marie, Georgia/Georgie: two forms of a name, not a pet form
    for pet, full in ((a, b), (b, a)):
        if full.startswith(pet):
            continue  # a plain prefix: the short-form rule and its guards decide
        if nicknamer().nicknames_of(pet):
            continue  # the table knows it as a full name with nicknames of its own (Mary)
        given = is_given_name(pet)
        listed = nicknamer().nicknames_of(full)
        for stem in _pet_stems(pet):
            if listed and not name_group(pet) & name_group(full):
                # The table lists the full name's nicknames and this is none of them.
                if not given and any(n.startswith(stem) and n != stem for n in listed):
                    return True
                continue
            rest = full[len(stem) :]
            if not full.startswith(stem) or not rest:
                continue
            if given and len(rest) <= 2 and not same_gender(pet, full):
                continue  # maybe another name on the same stem (Toni/Tonya, Brandy/Brandon)
            return True
    return False


def _pet_stems(pet: str) -> list[str]:
    """The clipped stems a pet form may be built on: the name without a diminutive ending,
    three letters or more (Katie → kat, Mags → mag) — and without the consonant a pet form
    doubles before its ending (Nikki → nik, as Nikita's; Tammy → tam, as Tamara's)."""
    stems = []
    for ending in _DIMINUTIVE_ENDINGS:
        stem = pet[: -len(ending)]
        if not pet.endswith(ending) or len(stem) < MIN_SHORT_FORM:
            continue
        stems.append(stem)
        if len(stem) > MIN_SHORT_FORM and stem[-1] == stem[-2] and stem[-1] not in _VOWELS:
            stems.append(stem[:-1])
    return stems


def relate_first_names(a: str, b: str) -> str | None:
    """Why two different (folded, lower-case) first names may name one person: "nickname",
    "variant", "spelling", "short-form" or "pet-form" — or None. Identical names return
    None (the caller handles equality).

    A link of the nickname table counts as a nickname only when one name is shorter than
    the other (Liz/Elizabeth, Annie/Anne); two names of the same length are two full forms
    ("variant": Sophia/Sophie; nothing when they begin with other letters, Helen/Elena), and
    a link between names the first-name lists give to different genders is no evidence
    (Louis/Louise, listed as one group)."""
    if a == b or not a or not b:
        return None
    if written_otherwise(a, b):
        return SPELLING  # two romanisations of one name (Yusuf/Youssef): name_variants.txt
    if is_world_pet_form(a, b):
        # The table of pet forms outside English lists only pet forms of a full name (Pepe
        # for José, Gosia for Małgorzata), never two full names: a nickname whatever its
        # length or first sound — and whatever gender English lists give the pet form, for
        # the table says whose it is (Sasha is Aleksandr's and Aleksandra's).
        return NICKNAME
    if (a in name_group(b) or b in name_group(a)) and (
        not genders_differ(a, b) or _listed_diminutive(a, b)
    ):
        if len(a) != len(b):
            # A nickname that begins with another sound is a shorter form of the name (Bill,
            # Beth, Peggy) or a pet form (Bobby, Teddy); two names of as many syllables that
            # begin otherwise are two given names of one origin (Hannah/Anna, Susan/Hannah).
            return NICKNAME if _initial(a) == _initial(b) or _shorter_form(a, b) else None
        if _spelling(a, b):
            return SPELLING
        # Two full forms that begin alike may be one person's (Sophia/Sophie, Cathy/Kathy);
        # forms that begin otherwise are the name in another language (Helen/Elena,
        # Helen/Ellen), and a person is called by their own form.
        return VARIANT if _initial(a) == _initial(b) else None
    if _spelling(a, b):
        return SPELLING
    if _short_form(a, b):
        # A given name one letter longer than another is another given name (Noa/Noah) or a
        # typo of one, not a clipped form: a clipping drops a syllable. Of another gender
        # (Eva/Evan) it is another name outright.
        if abs(len(a) - len(b)) == 1 and is_given_name(a) and is_given_name(b):
            return None if genders_differ(a, b) else VARIANT
        return SHORT_FORM
    if _pet_form(a, b) or _suffixed_diminutive(a, b) or _z_form(a, b):
        return PET_FORM
    return None


def _listed_diminutive(a: str, b: str) -> bool:
    """Whether the table lists the shorter name as a diminutive of the longer one (Vinnie
    for Vincent, Frankie for Frank): the lists give many such diminutives to girls too, which
    makes them no other person's name. Full forms of the other gender (Louise for Louis) end
    otherwise and stay vetoed."""
    short, long = sorted((a, b), key=len)
    return short.endswith(_PET_ENDINGS) and short in nicknamer().nicknames_of(long)


# Diminutive suffixes of the Romance languages, put on the whole name rather than a clipped
# stem: Juanito, Chispita, Carlitos (Spanish), Joãozinho, Pedrinho (Portuguese). Italian
# -ino/-ina and -etto/-etta are left out: Martina, Nicoletta and Giannina are given names.
_DIMINUTIVE_SUFFIXES = ("zinho", "zinha", "cito", "cita", "illo", "illa", "inho", "inha")
_DIMINUTIVE_SUFFIXES += ("itos", "itas", "ito", "ita")
# What the full name may have after the stem the suffix was put on: nothing (Juan), its
# final vowel (Chispa, Pedro) or a final -os/-as/-es (Carlos → Carlitos).
_STEM_ENDINGS = frozenset({"", "a", "e", "o", "os", "as", "es"})


def _z_form(a: str, b: str) -> bool:
    """The British and Australian pet form that cuts a name after its first vowel and adds
    "z" (Gaz for Gareth or Gary, Shaz for Sharon, Baz for Barry, Kaz for Karen): three or
    four letters ending in z, the rest the opening of a name two letters longer or more,
    which has no z of its own and goes on with the r, s, n or l the z stands for (Chaz for
    Charles, Dez for Desmond; not Gabriel)."""
    short, long = sorted((a, b), key=len)
    if not (3 <= len(short) <= 4 and short.endswith("z") and "z" not in long):
        return False
    stem = short[:-1]
    return (
        len(long) >= len(short) + 2
        and long.startswith(stem)
        and stem[-1] in "aeiou"
        and long[len(stem)] in "rsnl"
    )


def _suffixed_diminutive(a: str, b: str) -> bool:
    """One name is the other with a diminutive suffix (Chispita/Chispa, Joãozinho/João,
    Carlitos/Carlos): the stem keeps three letters or more, and the longer name is no given
    name of the lists of the other gender (Anita is a name of its own, as Juanita)."""
    if not (_latin(a) and _latin(b)):
        return False
    short, long = sorted((a, b), key=len)
    for suffix in _DIMINUTIVE_SUFFIXES:
        if not long.endswith(suffix):
            continue
        stem = long[: -len(suffix)]
        if len(stem) < MIN_SHORT_FORM or not short.startswith(stem):
            continue
        if short[len(stem) :] not in _STEM_ENDINGS:
            continue
        return not is_given_name(long) or same_gender(long, short)
    return False


def one_letter_apart(a: str, b: str) -> bool:
    """Two given names of the lists one letter apart after the same first letter (Noa/Noah,
    Jonah/Jonas, Leo/Leon) that the lists do not give to different genders: two names in
    their own right, each a plausible typo of the other, so asked about — never merged, nor
    kept silently apart. Names that begin with another sound are two names (Anna/Hanna)."""
    if a == b or a[:1] != b[:1] or genders_differ(a, b) or not (_latin(a) and _latin(b)):
        return False
    return OSA.distance(a, b) == 1 and is_given_name(a) and is_given_name(b)


def _syllables(word: str) -> int:
    """Vowel groups in a name, a silent final "e" left out (Anne 1, Hannah 2, Rebecca 3)."""
    if len(word) > 3 and word.endswith("e") and word[-2] not in _VOWELS:
        word = word[:-1]
    return len(re.findall(f"[{_VOWELS}]+", word))


def _shorter_form(a: str, b: str) -> bool:
    """Whether the shorter of two names the nickname table links is a form of the longer:
    fewer syllables (Bill/William, Beth/Elizabeth, Becky/Rebecca) or a pet ending (Bobby/
    Robert, Teddy/Edward)."""
    short, long = sorted((a, b), key=len)
    return _syllables(short) < _syllables(long) or short.endswith(_PET_ENDINGS)


def _initial(word: str) -> str:
    """The first sound of a name, written one way: "k" as "c" (Kathy/Cathy), "ph" as "f"."""
    if word.startswith("ph"):
        return "f"
    return "c" if word[0] == "k" else word[0]


def loosely_related(a: str, b: str) -> bool:
    """Whether a stored first name ``b`` is a plausible reading of ``a`` under any loose rule,
    read as widely as it can be: any relation above, a shared nickname group (Liz and Eliza
    are both Elizabeth's), a prefix whatever the ending (Alex/Alexandra), or one edit apart
    (two for names of five letters or more: Carolyn/Carolina, Zoe/Zoey). Used to find
    near-ties, where it is better to ask than to pick; names the first-name lists give to
    different genders are not readings of each other."""
    if a == b:
        return True
    if not a or not b or genders_differ(a, b):
        return False
    if relate_first_names(a, b) is not None:
        return True
    if not (_latin(a) and _latin(b)):
        return False
    if name_group(a) & name_group(b):
        return True
    short, long = sorted((a, b), key=len)
    if len(short) < MIN_SHORT_FORM or a[0] != b[0]:
        return False
    if long.startswith(short):
        return True
    return OSA.distance(a, b) <= (2 if len(short) >= 5 else 1)
