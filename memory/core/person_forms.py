"""How one person's full name is said in other forms (SPEC §5.6, rule 3): the order of its
words, its middle names, its surname alone, another script. Pure functions, no Django; the
words are ``person_names.parse_person``'s (folded, lower-case, titles apart).

Each function returns the reason it found, or None; ``merge_people`` decides with them under
the same guards as every person rule (exactly one candidate, nothing contradicting it, no
near-tie).
"""

from __future__ import annotations

import re

from anyascii import anyascii
from rapidfuzz.distance import OSA

from memory.core.first_names import is_given_name, name_gender
from memory.core.name_spelling import (
    has_transliterable_letters,
    is_latin_word,
    name_parts,
    name_words,
    romanised_alike,
    transliteration_key,
)
from memory.core.person_names import NICKNAME, relate_first_names
from memory.core.words import word_zipf

__all__ = [
    "FAMILY_ROLE",
    "MIDDLE_NAME",
    "PATRONYMIC",
    "SURNAME",
    "SWAPPED",
    "TRANSLITERATION",
    "by_initials",
    "by_junior",
    "by_syllable",
    "gendered_surname",
    "lone_transliterated",
    "middle_names",
    "same_rest",
    "surname_alone",
    "surname_initial",
    "surname_respelled",
    "swapped",
    "transliterated",
]

MIDDLE_NAME = "middle-name"
# The endings of an East Slavic patronymic ("Olga Ivanovna", "Pyotr Ilyich").
PATRONYMIC = re.compile(r"(ovna|evna|yevna|ivna|ichna|ovich|evich|yevich|ovych|ilyich)$")
FIRST_NAME = "first-name"
SWAPPED = "swapped"
SURNAME = "surname"
TRANSLITERATION = "transliteration"
FAMILY_ROLE = "family-role"
# The variant of ``person_names`` (held): returned where the words allow two readings.
_VARIANT = "variant"
# Both surnames at least this common in English (wordfreq's Zipf scale, as for
# words.COMMON_WORD_ZIPF): each is a name in its own right (Burton, Barton), so a
# vowel between them is no typing slip. Rarer ones may be (Meier 2.9 / Meyer 3.7).
COMMON_SURNAME_ZIPF = 3.0

# Words after a name that tell a parent from a child of the same name.
_GENERATIONS = frozenset({"jr", "junior", "sr", "senior", "ii", "iii", "iv"})


def same_rest(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """The same words after the first name, however they were split: "garcia lopez" and
    "garcia-lopez" (joined by ``name_words``), "al farsi" and "alfarsi"."""
    return "".join(a[1:]) == "".join(b[1:])


def transliterated(a: tuple[str, ...], b: tuple[str, ...]) -> str | None:
    """Two full names, one in Cyrillic or Greek letters and one in Latin ones, word for word
    the same once romanised (Дмитрий Соколов / Dmitri Sokolov, Αλέξανδρος Παπαδάκης /
    Alexandros Papadakis). Only full names: a lone first name in two scripts ("Мария",
    "Maria") is as likely two people as one, and is left apart."""
    if len(a) < 2 or len(a) != len(b):
        return None
    for cyr, lat in ((a, b), (b, a)):
        if has_transliterable_letters("".join(cyr)) and all(is_latin_word(w) for w in lat):
            return TRANSLITERATION if romanised_alike(cyr, lat) else None
    return None


def lone_transliterated(a: tuple[str, ...], b: tuple[str, ...]) -> str | None:
    """A lone first name in Cyrillic or Greek letters and a full name in Latin ones whose
    first name it is once romanised (Γιάννης / Yiannis Kostopoulos, Алексей / Alexei
    Smirnov), or a nickname of it in the tables (Дима / Dmitri Volkov) → "first-name", as
    the same said in Latin letters would be. Two lone names stay apart (``transliterated``)."""
    for cyr, lat in ((a, b), (b, a)):
        if len(cyr) != 1 or not has_transliterable_letters(cyr[0]):
            continue
        if len(lat) < 2 or not all(is_latin_word(w) for w in lat):
            return None
        if transliteration_key(cyr[0]) == transliteration_key(lat[0]):
            return "first-name"
        nickname = relate_first_names(anyascii(cyr[0]).lower(), lat[0]) == NICKNAME
        return "first-name" if nickname else None
    return None


def middle_names(a: tuple[str, ...], b: tuple[str, ...]) -> str | None:
    """A full name said without its middle names or second surname: the shorter (two words
    or more) starts with the same first name and its other words come, in order, among the
    longer's ("María García" / María José García López, "Ana Lucía" / Ana Lucía Paredes);
    or the longer without its first word ("Henry Peters" / William Henry Peters, "Wei Ming"
    / Tan Wei Ming). Never across a generational suffix (John Smith / John Smith Jr.)."""
    short, long = sorted((a, b), key=len)
    if len(short) < 2 or len(short) == len(long) or _GENERATIONS & {*short, *long}:
        return None
    if short[0] != long[0]:
        # Called by the middle name ("Henry Peters" / William Henry Peters), or by the given
        # name of a family-name-first name ("Wei Ming" / Tan Wei Ming): the rest of the name
        # after its first word.
        # Not across genders: "José Fernández" is not María José Fernández, whose
        # given name is María José.
        if tuple(long[1:]) != tuple(short):
            return None
        genders = {name_gender(long[0]), name_gender(short[0])}
        return None if genders == {"f", "m"} else MIDDLE_NAME
    rest = iter(long[1:])
    if not all(word in rest for word in short[1:]):
        return None
    if (
        len(long) == 3
        and short[1:] == long[2:]
        and not is_given_name(long[1])
        and not PATRONYMIC.search(long[1])
    ):
        # "Carmen García" / Carmen López García: of two surnames a person goes by the first
        # (the father's); said by the second alone it may be another Carmen: asked.
        return _VARIANT
    return MIDDLE_NAME


def swapped(a: tuple[str, ...], b: tuple[str, ...]) -> str | None:
    """The same name with the family name first in one and last in the other (Zhang Wei /
    Wei Zhang, Nguyễn Thị Lan / Lan Nguyen): one name of two words, the other starting with
    its last word and ending with its first. When both words are given names of the lists
    (James Thomas / Thomas James) either order is a person's name: held ("variant")."""
    short, long = sorted((a, b), key=len)
    if len(short) != 2 or short[0] == short[1]:
        return None
    if (long[0], long[-1]) != (short[1], short[0]):
        return None
    return _VARIANT if all(is_given_name(w) for w in short) else SWAPPED


def surname_initial(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, str] | None:
    """One name is a first name and an initial of the family's name, the other a full name
    of that first name whose other name has that initial: "Kasia N." / Kasia Nowicka (how
    people tell two of one first name apart), "R. Karthik" / Karthik Ramasamy (the Tamil
    initial of the father's name, before the name). Returns the two first names, in the
    order of ``a`` and ``b``, for the caller to compare; None when the forms do not fit."""
    for short, full, flip in ((a, b, False), (b, a, True)):
        if len(short) != 2 or len(full) < 2 or len(full[-1]) < 2:
            continue
        if len(short[1]) == 1 and len(short[0]) > 1 and full[-1].startswith(short[1]):
            given = short[0]
        elif len(short[0]) == 1 and len(short[1]) > 1 and full[-1].startswith(short[0]):
            given = short[1]
        else:
            continue
        return (full[0], given) if flip else (given, full[0])
    return None


def surname_alone(said: tuple[str, ...], stored: tuple[str, ...]) -> str | None:
    """A lone word said that is the last word of a stored full name and no given name of the
    lists ("Nakamura" / Hiroshi Nakamura): how colleagues and teachers are named, the title
    rule without its title. A lone given name ("Carter", "Jordan") may be someone's first
    name: left to the other rules. Not the other way round: a stored lone word is a name the
    graph knows nothing more about, not known to be a surname."""
    if len(said) != 1 or len(stored) < 2 or stored[-1] != said[0]:
        return None
    return SURNAME if is_latin_word(said[0]) and not is_given_name(said[0]) else None


# A surname this long or longer has room for a slip that leaves it recognisable.
_MIN_SURNAME_SLIP = 6
_VOWEL = re.compile("[aeiouy]")


def surname_respelled(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Two full names with the same given names and a surname typed with one vowel changed,
    added or dropped inside it ("Catherine Abernethy" / Catherine Abernathy, "Meier" /
    "Meyer"): the consonants are the name, and a vowel slip keeps them. Not at its end,
    where a surname carries its origin (Hansen/Hanson, Petersen/Peterson are two names), nor
    a consonant (Johnson/Johnston, Nowak/Nowack: another name, or asked about)."""
    if len(a) < 2 or len(a) != len(b) or a[:-1] != b[:-1]:
        return False
    x, y = a[-1], b[-1]
    if x == y or min(len(x), len(y)) < _MIN_SURNAME_SLIP or not (x + y).isascii():
        return False
    if not (x.isalpha() and y.isalpha()) or OSA.distance(x, y) != 1:
        return False
    if min(word_zipf(x), word_zipf(y)) >= COMMON_SURNAME_ZIPF:
        return False  # two surnames in common use (Burton/Barton): two names, not a slip
    start = next((i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q), None)
    if start is None or start == 0:
        return False  # a letter added at the end (Fielding/Fieldings) or a first one changed
    tail = 0
    while tail < min(len(x), len(y)) - start and x[-1 - tail] == y[-1 - tail]:
        tail += 1
    changed = {x[start : len(x) - tail], y[start : len(y) - tail]} - {""}
    return all(_VOWEL.fullmatch(c) for c in changed) and bool(_VOWEL.search(x[len(x) - tail :]))


def _initials_said(norm: str) -> tuple[str, tuple[str, ...]] | None:
    """The initials a name is said by, and the words after them: "A.J." → ("aj", ()), "T.J.
    Miller" → ("tj", ("miller",)), "JP" → ("jp", ()) — two or three single letters, or one
    word of two or three letters with no vowel (no given name is one)."""
    tokens = [part for word in name_parts(norm) for part in word]
    lead = 0
    while lead < len(tokens) and len(tokens[lead]) == 1:
        lead += 1
    if 2 <= lead <= 3:
        return "".join(tokens[:lead]), tuple(tokens[lead:])
    if lead == 0 and tokens and 2 <= len(tokens[0]) <= 3 and is_latin_word(tokens[0]):
        if not _VOWEL.search(tokens[0]):
            return tokens[0], tuple(tokens[1:])
    return None


def by_initials(said: str, full: str) -> str | None:
    """A person called by the initials of their given names ("JP" / Jean-Pierre Lefebvre,
    "A.J." / Alistair James Brennan, "T.J. Miller" / Thomas James Miller): the letters are
    the first letters of every given name, a hyphenated one counting each part, and the
    words after them, if any, end the full name — or, said alone, the first letters of all
    its words ("AJ" / Anna Jones, "JFK"). → "first-name"."""
    got = _initials_said(said)
    if got is None:
        return None
    letters, rest = got
    parts = name_parts(full)
    if len(parts) < 2 or any(len("".join(word)) < 2 for word in parts):
        return None
    words = tuple("".join(word) for word in parts)
    if rest and (len(words) <= len(rest) or words[-len(rest) :] != rest):
        return None
    given = parts[: -len(rest)] if rest else parts[:-1]
    initials = "".join(part[0] for word in given for part in word)
    if initials == letters:
        return FIRST_NAME
    # Or the first letters of all the words, surname included ("AJ" / Anna Jones, "JFK").
    return FIRST_NAME if not rest and "".join(w[0] for w in words) == letters else None


def by_syllable(said: str, full: str) -> str | None:
    """Cantonese familiar address: "Ah" and one syllable of a hyphenated given name ("Ah
    Ming" / Leung Ka-ming, "Ah Keung" / Chan Wing-keung). → "first-name"."""
    words = name_words(said)
    if len(words) != 2 or words[0] != "ah":
        return None
    syllables = {part for word in name_parts(full) if len(word) > 1 for part in word}
    return FIRST_NAME if words[1] in syllables else None


_JUNIOR = frozenset({"jun", "junjun", "junior", "jr"})


def by_junior(said: str, full: str) -> str | None:
    """A junior called "Jun", "Jun-Jun" or "Junior", as Filipino and American families call
    the son who bears his father's name: a full name ending in Jr. or Junior. → "first-name"."""
    if "".join(name_words(said)) not in _JUNIOR:
        return None
    words = name_words(full)
    return FIRST_NAME if len(words) >= 2 and words[-1] in {"jr", "junior"} else None


def gendered_surname(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Two full names of one first name whose surnames are one Slavic surname in its
    masculine and feminine forms, as a woman's is often said or typed in its base form
    ("Jana Novak" / Jana Nováková, "Olga Smirnov" / Olga Smirnova, "Anna Kowalski" / Anna
    Kowalska, "Jana Novotny" / Jana Novotná)."""
    if len(a) != len(b) or len(a) < 2 or a[:-1] != b[:-1]:
        return False
    short, long = sorted((a[-1], b[-1]), key=len)
    if len(short) < 4 or not is_latin_word(short) or not is_latin_word(long):
        return False
    if long == short + "ova":
        return True  # Czech and Slovak -ová (Novák / Nováková)
    if long == short + "a" and short.endswith(("ov", "ev", "in", "yn")):
        return True
    if short.endswith("sky") and long == short[:-1] + "aya":
        return True  # Russian -sky / -skaya
    if len(short) == len(long) and short[:-1] == long[:-1]:
        ends = {short[-1], long[-1]}
        if ends == {"i", "a"} and short[:-1].endswith(("sk", "ck", "dzk")):
            return True  # Polish -ski / -ska
        return ends == {"y", "a"} and len(short) >= 6  # Czech -ý / -á (Novotný / Novotná)
    return False
