"""How one name is written several ways: the spelling facts the merge rules compare names by
(SPEC §5.6). Pure functions, no Django.

* ``fold_accents`` — Latin letters to ASCII with ``anyascii`` (a maintained transliteration
  table, ISC licence): accents dropped (Zoë/Zoe), strokes and ligatures written out (ø, æ,
  ß, ł → o, ae, ss, l). Letters of other scripts stay in their script: a lone "Мария" is not
  a "Maria" by spelling (see ``transliteration_key`` for the one place scripts meet).
* ``spelling_keys`` — the forms a name is typed in without its special letters: German
  umlauts as digraphs (Müller/Mueller, ä/ae, ö/oe, ü/ue), apostrophes dropped
  (O'Sullivan/OSullivan), hyphens dropped or read as a space (Al-Farsi/Alfarsi,
  Anne-Marie/Anne Marie), punctuation ignored ("Stripe, Inc."/"Stripe Inc"), "St", "Mt",
  "Ft" before a name written out (St. Mary's/Saint Mary's).
* ``transliteration_key`` — a Cyrillic or Greek word in Latin letters, read loosely where
  the romanisation systems differ (й as y, i or j; ь as ' or nothing; х as kh or h; γι
  before a vowel as gi or y).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from anyascii import anyascii

__all__ = [
    "FOREIGN_ARTICLES",
    "fold_accents",
    "has_transliterable_letters",
    "is_latin_word",
    "name_parts",
    "name_words",
    "romanised_alike",
    "spelling_keys",
    "transliteration_key",
    "unarticled_keys",
    "without_article",
]

_WORD = re.compile(r"[^\W_]+")
# Marks written inside a name that do not separate two names: O'Brien, D’Angelo, Al-Farsi.
_APOSTROPHES = re.compile(r"['’ʼ‘`´]")
_HYPHENS = re.compile(r"[-‐‑‒–]")
# German umlauts are typed as digraphs without the letter (Jürgen → Juergen).
_GERMAN = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue"})
# Scripts whose letters map to Latin ones closely enough to compare full names (alphabets
# with a letter-for-letter romanisation). Han, kana, Hangul and abjads (Arabic, Hebrew) do
# not: 李娜 has many romanisations and one romanisation many 李娜s; Arabic omits vowels.
_TRANSLITERABLE = ("CYRILLIC", "GREEK")


def _script(ch: str) -> str:
    return unicodedata.name(ch, "").split(" ", 1)[0]


@lru_cache(maxsize=16384)
def fold_accents(text: str) -> str:
    """``text`` with its Latin letters in ASCII ("zoë" → "zoe", "søren" → "soren",
    "straße" → "strasse") and typographic punctuation in ASCII ("’" → "'"). Letters of
    other scripts stay in their script, only losing their combining marks ("мария" stays
    Cyrillic), so a Cyrillic or CJK name never becomes a Latin one by spelling."""
    out: list[str] = []
    for ch in unicodedata.normalize("NFC", text):
        if ch.isascii():
            out.append(ch)
        elif _script(ch) == "LATIN" or unicodedata.category(ch).startswith("P"):
            out.append(anyascii(ch))
        else:
            decomposed = unicodedata.normalize("NFKD", ch)
            out.append("".join(c for c in decomposed if not unicodedata.combining(c)))
    return "".join(out)


def name_words(norm: str) -> list[str]:
    """The words of a normalised name once folded, an apostrophe or hyphen inside a word
    joining its parts: "o'sullivan" → ["osullivan"], "al-farsi" → ["alfarsi"]. A hyphenated
    name is one name (a double-barrelled surname, Anne-Marie)."""
    joined = _HYPHENS.sub("", _APOSTROPHES.sub("", fold_accents(norm)))
    return _WORD.findall(joined)


@lru_cache(maxsize=16384)
def spelling_keys(norm: str) -> frozenset[str]:
    """The spellings of a normalised name that count as the same name: folded to ASCII, with
    and without German digraphs for umlauts, apostrophes dropped, hyphens dropped or read as
    a space, punctuation ignored, with and without a leading "the". Two names are one
    spelling when their keys meet."""
    keys: set[str] = set()
    # "B&Q" is "B and Q".
    norm = norm.replace("&", " and ")
    for variant in {norm, norm.translate(_GERMAN)}:
        folded = _APOSTROPHES.sub("", fold_accents(variant))
        keys.add(" ".join(_WORD.findall(_HYPHENS.sub(" ", folded))))
        keys.add(" ".join(_WORD.findall(_HYPHENS.sub("", folded))))
    keys.discard("")
    # A leading "the" is how a name is said, not part of it: "the Lake District" is the
    # Lake District, "The Smiths" the Smiths.
    keys |= {k[4:] for k in keys if k.startswith("the ") and len(k) > 4}
    return frozenset(keys | {_expanded(k) for k in keys})


# Articles other languages say before a name, as English says "the": "el Oxxo", "der ADAC",
# "o Nubank". Written in lower case before a word that starts with a capital or a digit: a
# capital article is part of the name (El Salvador, Los Angeles, Das Boot), a lower-case
# word after it makes a phrase ("la casa").
FOREIGN_ARTICLES = frozenset(
    {
        *("el", "la", "los", "las", "lo", "il", "le", "les", "o", "os"),
        *("der", "die", "das", "den", "dem", "des"),
    }
)
_ARTICLE = re.compile(rf"^(?:{'|'.join(sorted(FOREIGN_ARTICLES))})\s+")


# An article elided before a vowel ("L'Étape du Tour", "l'Ospedale").
_ELIDED = re.compile(r"^(?:l|d)['’]\s*", re.IGNORECASE)


def unarticled_keys(norm: str) -> frozenset[str]:
    """The spelling keys of a name of two words or more after a leading article of any
    language, capital or not ("Le Petit Bistro" → petit bistro, "L'Étape du Tour 2024" →
    etape du tour 2024): a restaurant's or an event's name said without its article."""
    words = _ELIDED.sub("", norm.strip()).split()
    if words and words[0] in FOREIGN_ARTICLES | {"the"}:
        words = words[1:]
    if len(words) < 2 or " ".join(words) == norm.strip():
        return frozenset()
    return spelling_keys(" ".join(words))


def without_article(name: str) -> str | None:
    """A name said after another language's lower-case article, without it ("der ADAC" →
    "ADAC"), or None when it starts with none."""
    stripped = name.strip()
    match = _ARTICLE.match(stripped)
    rest = stripped[match.end() :] if match else ""
    return rest if rest[:1].isupper() or rest[:1].isdigit() else None


# Abbreviations written before a name, and "St" after one (Main St): "St. Mary's Hospital"
# is Saint Mary's Hospital, "Mt Hood" Mount Hood, "Ft Worth" Fort Worth.
_BEFORE_A_NAME = {"st": "saint", "ste": "sainte", "mt": "mount", "ft": "fort"}


def _expanded(key: str) -> str:
    words = key.split()
    out = []
    for i, word in enumerate(words):
        if i < len(words) - 1 and word in _BEFORE_A_NAME:
            word = _BEFORE_A_NAME[word]
        elif i == len(words) - 1 and i > 0 and word == "st":
            word = "street"
        out.append(word)
    return " ".join(out)


def name_parts(norm: str) -> list[list[str]]:
    """The words of a normalised name once folded, each split at its hyphens (apostrophes
    still join): "ngozi eze-williams" → [["ngozi"], ["eze", "williams"]]."""
    folded = _APOSTROPHES.sub("", fold_accents(norm))
    return [_WORD.findall(_HYPHENS.sub(" ", word)) for word in folded.split()]


def is_latin_word(word: str) -> bool:
    return word.isascii() and word.isalpha()


def has_transliterable_letters(text: str) -> bool:
    """Whether ``text`` has letters of a script compared by transliteration (Cyrillic,
    Greek) and no Latin ones."""
    scripts = {_script(ch) for ch in text if ch.isalpha()}
    return bool(scripts) and scripts <= set(_TRANSLITERABLE)


def transliteration_key(word: str) -> str:
    """A word (Latin, or Cyrillic/Greek romanised with ``anyascii``) as the romanisation
    systems agree on it: y, j and i as one letter (Дмитрий → Dmitriy, Dmitrii, Dmitri;
    Юлия → Yuliya, Julia), "kh" as "h", "ks" as "x", soft signs and doubled letters
    dropped. Only ever compared between a Cyrillic/Greek name and a Latin one."""
    # Greek ου is "ou" (Παπαδόπουλος: Papadopoulos), which anyascii writes letter by letter.
    word = re.sub(r"ο[υύ]", "ou", word.lower())
    word = re.sub(r"[^a-z]", "", anyascii(word).lower())
    word = word.replace("kh", "h").replace("ks", "x").replace("j", "i").replace("y", "i")
    # Greek γι before a vowel is said and often written "y" (Γιάννης: Giannis, Yiannis).
    word = re.sub(r"gi(?=[aeiou])", "i", word)
    return re.sub(r"(.)\1+", r"\1", word)


# Round 30: endings English writes otherwise than letter by letter (Дмитрий: Dmitry, Мария:
# Maria, Наталья: Natalya), and the soft and hard signs, which it drops.
_ROMANISED_ENDINGS = (
    (re.compile(r"ий\b"), "y"),
    (re.compile(r"ия\b"), "ia"),
    (re.compile(r"[ьъ]"), ""),
)


def romanised_name(text: str) -> str:
    """A Cyrillic or Greek name as English usually writes it ("дмитрий волков" → "dmitry
    volkov", "γιώργος παπαδόπουλος" → "giorgos papadopoulos"), so that the first-name and
    nickname rules read it as they read a Latin name."""
    text = re.sub(r"ο[υύ]", "ou", text.lower())
    for ending, written in _ROMANISED_ENDINGS:
        text = ending.sub(written, text)
    return anyascii(text).lower()


def romanised_alike(a: Sequence[str], b: Sequence[str]) -> bool:
    """Whether two names, as words, are the same word for word once romanised
    (``transliteration_key``); the callers check that one is written in Cyrillic or Greek
    letters and the other in Latin ones."""
    return len(a) == len(b) and all(
        transliteration_key(x) == transliteration_key(y) for x, y in zip(a, b, strict=True)
    )
