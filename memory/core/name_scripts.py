"""A person's name written in another script than the stored one (SPEC §5.6, rule 3): 陈佳慧 /
Chen Jiahui, 김민준 / Kim Min-jun, ليلى منصور / Layla Mansour, אֲנִי / …, अंजलि / Anjali.
Pure functions, no Django. Cyrillic and Greek, which have a letter-for-letter romanisation,
are ``person_forms.transliterated``'s; this module is for the scripts that do not.

Every script is read into Latin letters with ``anyascii`` (a maintained transliteration
table, ISC licence, already a dependency), then compared with the Latin name under a key
that forgives what the romanisation systems of that script disagree on — and no more:

* **Han** (Chinese characters) is read as Mandarin pinyin without tones, the first
  character the surname and the rest one given name (陈佳慧 → chen jiahui). Only the
  syllables must agree: 李娜 is Li Na, not Lina Lee. A name of two characters (李娜, 王伟)
  is one of the commonest names there are, and its pinyin is written with many characters:
  asked about ("variant"), not merged. Japanese names in kanji have readings
  no table here holds (a dictionary would be a GPL dependency, pykakasi); they stay apart.
* **Kana** is read syllable by syllable (さくら → sakura), long vowels written once
  (ゆうこ, Yuko); -san, -sama, -kun, -chan, -sensei are titles.
* **Hangul** is read as Revised Romanisation (김민준 → gim minjun) and keyed loosely: the
  common surnames by their usual spellings (Kim/Gim, Lee/Yi/I, Park/Bak), voiced and
  voiceless consonants as one (g/k, d/t, b/p, j/ch), eo/u/o and ee/i alike.
* **Abjads** (Arabic, Hebrew, Syriac, Thaana) write few vowels, and **Brahmic scripts**
  (Devanagari, Bengali, Tamil, Thai, …) romanise their inherent vowel one way or another;
  both are compared by consonant skeleton: vowels, y, w, glottal marks and a final h dropped,
  doubled letters once, v and p as b, q and c as k (ليلى منصور → l mnsr = Layla Mansour;
  אברהם → brm = Avraham); in a Brahmic script the anusvara before a consonant as n
  (अंजलि → njl = Anjali).

A skeleton is loose, so what may match is narrow: every word of a full name on both sides,
in any order (family names come first in Chinese, Korean, Hungarian), or a lone given name
in the other script against the first name of a full name ("first-name"), or a kana title
with a surname ("title"). Two lone names in two scripts stay apart, as in
``person_forms.transliterated``. The person rules then require exactly one candidate.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from anyascii import anyascii

from memory.core.name_spelling import name_parts, name_words

__all__ = ["Reading", "across_scripts", "reading_of", "same_reading"]

# "Haldiram's": the possessive is no part of the name's reading.
_POSSESSIVE = re.compile(r"['’]s\b")

# Script families read here (the first word of a letter's Unicode name → family).
_FAMILY = {
    "CJK": "han",
    "HIRAGANA": "kana",
    "KATAKANA": "kana",
    "HANGUL": "hangul",
    "ARABIC": "skeleton",
    "HEBREW": "skeleton",
    "SYRIAC": "skeleton",
    "THAANA": "skeleton",
    "DEVANAGARI": "brahmic",
    "BENGALI": "brahmic",
    "GURMUKHI": "brahmic",
    "GUJARATI": "brahmic",
    "ORIYA": "brahmic",
    "TAMIL": "brahmic",
    "TELUGU": "brahmic",
    "KANNADA": "brahmic",
    "MALAYALAM": "brahmic",
    "SINHALA": "brahmic",
    "THAI": "brahmic",
    "LAO": "brahmic",
    "MYANMAR": "brahmic",
    "KHMER": "brahmic",
    "ETHIOPIC": "skeleton",
    "GEORGIAN": "skeleton",
    "ARMENIAN": "skeleton",
}
# Japanese honorifics said after a name (田中さん, 先生).
_KANA_TITLES = frozenset({"san", "sama", "kun", "chan", "sensei", "senpai", "sempai"})
# Korean surnames by their Revised Romanisation (what anyascii writes, its final consonant
# as g/b/d) → the spellings people use. Keyed by the first, the others read as it.
_KOREAN_SURNAMES = {
    "gim": ("kim", "gim"),
    "i": ("lee", "yi", "rhee", "rhie", "ri", "li", "ee"),
    "bag": ("park", "pak", "bak", "bag", "pack"),
    "choe": ("choi", "choe", "chwe"),
    "jeong": ("jung", "jeong", "chung", "cheong", "joung"),
    "gang": ("kang", "gang"),
    "jo": ("cho", "jo", "joh"),
    "yun": ("yoon", "yun"),
    "jang": ("jang", "chang"),
    "im": ("lim", "im", "rim"),
    "o": ("oh", "o"),
    "seo": ("seo", "suh", "so"),
    "sin": ("shin", "sin"),
    "gwon": ("kwon", "gwon"),
    "an": ("ahn", "an"),
    "yu": ("yoo", "yu", "ryu", "ryoo", "you"),
    "jeon": ("jeon", "jun", "chun", "chon"),
    "go": ("ko", "go", "koh"),
    "mun": ("moon", "mun"),
    "son": ("son", "sohn"),
    "bae": ("bae", "pae"),
    "baeg": ("baek", "paek", "paik", "baeg"),
    "heo": ("heo", "huh", "hur"),
    "no": ("noh", "roh", "no", "ro"),
    "ryu": ("ryu", "yoo", "yu"),
}
_KOREAN_SPELLING = {
    spelling: key for key, spellings in _KOREAN_SURNAMES.items() for spelling in spellings
}
_NON_LETTERS = re.compile(r"[^a-z]")
# A Chinese name of two characters read in pinyin (Li Na, Wang Wei) is shared by many
# people and written with many characters: asked about ("variant"), not merged.
_COMMON_HAN_SYLLABLES = 2


@dataclass(frozen=True)
class Reading:
    """A name in another script read into Latin words (family name first where the script
    puts it first), the family of key it is compared under, and a title said with it."""

    family: str
    words: tuple[str, ...]
    title: str = ""
    syllables: int = 0  # Han and Hangul: characters read


def _script(ch: str) -> str:
    return unicodedata.name(ch, "").split(" ", 1)[0]


def _family(word: str) -> str | None:
    """The family of the letters of ``word`` that are not Latin, or None (Latin only, or a
    script read elsewhere or not at all). Kana with kanji is Japanese."""
    families = {_FAMILY.get(_script(ch)) for ch in word if ch.isalpha() and not ch.isascii()}
    if "kana" in families:
        return "kana"
    families.discard(None)
    return families.pop() if len(families) == 1 else None


def _syllables(word: str) -> list[str]:
    """A Han or Hangul word read a syllable per character (anyascii capitalises each)."""
    return [s.lower() for s in re.findall(r"[A-Z][a-z]*", anyascii(word))]


@lru_cache(maxsize=4096)
def reading_of(norm: str) -> Reading | None:
    """``norm`` (a normalised name) read into Latin words, when its letters are of one of
    the families above and it has no Latin word; else None."""
    words = norm.split()
    if not words or any(w.isascii() for w in words):
        return None
    families = {_family(w) for w in words}
    if len(families) != 1 or None in families:
        return None
    family = families.pop()
    if family in ("han", "hangul"):
        if len(words) == 1:  # 陈佳慧: the first character the surname, the rest one name
            syllables = _syllables(words[0])
            if len(syllables) < 2:
                return None
            read = (syllables[0], "".join(syllables[1:]))
        else:
            syllables = [s for w in words for s in _syllables(w)]
            read = tuple("".join(_syllables(w)) for w in words)
        return Reading(family, read, syllables=len(syllables))
    read = tuple(w for w in (_NON_LETTERS.sub("", anyascii(w).lower()) for w in words) if w)
    title = ""
    if family == "kana":
        # 田中さん: the honorific is a title; kanji alone are not read (see the module).
        if any(_script(ch) == "CJK" for w in words for ch in w):
            return None
        read = tuple(_split_honorific(w) for w in read)
        read = tuple(p for pair in read for p in pair if p)
        if read and read[-1] in _KANA_TITLES:
            title, read = read[-1], read[:-1]
    return Reading(family, read, title) if read else None


def _split_honorific(word: str) -> tuple[str, str]:
    for title in sorted(_KANA_TITLES, key=len, reverse=True):
        if word.endswith(title) and len(word) > len(title) + 1:
            return word[: -len(title)], title
    return word, ""


def _kana_key(word: str) -> str:
    # Long vowels are written doubled, with "u" after "o", or not at all (ゆうこ: Yuuko, Yuko).
    word = word.replace("ou", "o")
    return re.sub(r"([aeiou])\1+", r"\1", word)


def _hangul_key(word: str) -> str:
    word = _KOREAN_SPELLING.get(word, word)
    for a, b in (("eo", "o"), ("eu", "u"), ("oo", "u"), ("ee", "i"), ("ae", "e"), ("wo", "o")):
        word = word.replace(a, b)
    for a, b in (("ch", "j"), ("sh", "s"), ("k", "g"), ("t", "d"), ("p", "b"), ("r", "l")):
        word = word.replace(a, b)
    return word


def _skeleton_key(word: str) -> str:
    word = word.replace("ph", "f").replace("kh", "k").replace("gh", "g").replace("th", "t")
    word = word.replace("dh", "d").replace("sh", "s").replace("ch", "c").replace("x", "ks")
    word = re.sub(r"[vp]", "b", word)
    word = re.sub(r"[qc]", "k", word)
    word = re.sub(r"[aeiouyw]", "", word.removesuffix("h"))
    return re.sub(r"(.)\1+", r"\1", word)


def _vowel_gaps(word: str, abjad: bool) -> list[set[str]]:
    """The long vowels between the consonants of ``word`` (as ``_skeleton_key`` keeps
    them), gap by gap: an abjad's written w and y (not at the start) as "u" and "i"; a Latin
    word's o, u, w as "u", e, i, y as "i", a as "a"."""
    word = word.replace("ph", "f").replace("kh", "k").replace("gh", "g").replace("th", "t")
    word = word.replace("dh", "d").replace("sh", "s").replace("ch", "c").removesuffix("h")
    gaps: list[set[str]] = [set()]
    last = ""
    for i, ch in enumerate(word):
        if abjad:
            mark = {"w": "u", "y": "i"}.get(ch, "") if i else ""
            vowel = ch in "aeiou" or bool(mark)
        else:
            mark = "u" if ch in "ouw" else "i" if ch in "eiy" else "a" if ch == "a" else ""
            vowel = ch in "aeiouyw"
        if i == 0 and ch in "wy":
            vowel = False
        if not vowel:
            if ch != last:  # a doubled consonant is one, as in the skeleton
                gaps.append(set())
            last = ch
        elif mark:
            gaps[-1].add(mark)
    return gaps


def _long_vowels_fit(script_word: str, latin_word: str) -> bool:
    """Whether the long vowels an abjad writes are said in the Latin name where it writes
    them: محمود (mhmwd) is Mahmoud, not Mohammed, though both have the skeleton mhmd."""
    script_gaps, latin_gaps = _vowel_gaps(script_word, True), _vowel_gaps(latin_word, False)
    if len(script_gaps) != len(latin_gaps):
        return True  # the skeletons agree but letters were read differently: no evidence
    return all(a <= b for a, b in zip(script_gaps, latin_gaps, strict=True))


def _abjad_fits(read: tuple[str, ...], said: tuple[str, ...], key) -> bool:
    by_key = {key(w): w for w in said}
    return all(_long_vowels_fit(w, by_key.get(key(w), "")) for w in read)


def _brahmic_key(word: str) -> str:
    # The anusvara is read "m" before any consonant (अंजलि → amjli): a nasal before a
    # consonant of another place is "n" (Anjali), as it is said.
    return _skeleton_key(re.sub(r"m(?=[^aeiouybpmh])", "n", word))


_KEYS = {
    "han": str,
    "kana": _kana_key,
    "hangul": _hangul_key,
    "skeleton": _skeleton_key,
    "brahmic": _brahmic_key,
}


def _latin_readings(norm: str, titles: frozenset[str]) -> list[tuple[str, ...]]:
    """The words of a Latin name, title left out, with hyphenated words joined and split
    (Ben-David: bendavid; ben, david): the other script may write them either way."""
    joined = tuple(name_words(norm))
    split = tuple(w for part in name_parts(norm) for w in part)
    out = []
    for words in dict.fromkeys((joined, split)):
        if len(words) >= 2 and words[0] in titles:
            words = words[1:]
        if words and all(w.isascii() and w.isalpha() for w in words):
            out.append(words)
    return out


def same_reading(a: str, b: str) -> bool:
    """Whether two normalised names, one in a script read here (kana, Hangul, Han, Arabic
    or Hebrew letters, Devanagari) and one in Latin letters, read the same, word breaks and
    a possessive aside: ハナ / hana, 馒头 / mantou, سمسم / simsim, 小笼包 / xiaolongbao,
    すし さいとう / sushi saito, हल्दीराम / haldiram's (each side by the key of that
    script)."""
    for other, latin in ((a, b), (b, a)):
        reading = reading_of(other)
        if reading is None:
            continue
        words = _POSSESSIVE.sub("", latin).split()
        if not words or not all(w.isascii() and w.isalpha() for w in words):
            return False
        key = _KEYS[reading.family]
        read = [key(w) for w in reading.words]
        said = "".join(read)
        return all(read) and said in ("".join(key(w) for w in words), key("".join(words)))
    return False


def across_scripts(new: str, form: str, titles: frozenset[str]) -> str | None:
    """Why two normalised person names, one in Latin letters and one in a script read here,
    may be one person: "transliteration" (every word of two full names, in any order;
    "variant", held, for a two-character Chinese name),
    "first-name" (a lone given name in one script, the first name of a full name in the
    other) or "title" (a title and a surname: 田中さん / Hiroshi Tanaka). None otherwise.
    ``titles`` are the Latin titles (``person_roles.TITLES``), left out of the Latin words."""
    for other, latin in ((new, form), (form, new)):
        reading = reading_of(other)
        if reading is None:
            continue
        key = _KEYS[reading.family]
        read = [key(w) for w in reading.words]
        if not all(read):
            return None
        # The given name of a full name read from Han or Hangul comes last (陈佳慧: jiahui).
        given = read[-1] if reading.family in ("han", "hangul") else read[0]
        for words in _latin_readings(latin, titles):
            said = [key(w) for w in words]
            if not all(said):
                continue
            if reading.title:
                if len(read) == 1 and len(said) >= 2 and read[0] in (said[0], said[-1]):
                    return "title"
            elif len(read) >= 2 and sorted(read) == sorted(said):
                if reading.family == "han" and reading.syllables <= _COMMON_HAN_SYLLABLES:
                    return "variant"
                if reading.family != "skeleton" or _abjad_fits(reading.words, words, key):
                    return "transliteration"
            elif len(read) == 1 and len(said) >= 2 and read[0] == said[0]:
                return "first-name"
            elif len(said) == 1 and len(read) >= 2 and said[0] == given:
                return "first-name"
        return None
    return None
