"""An organisation's, a place's or an event's name with its words cut short, as people say
it (SPEC §5.6): "Mass General" for Massachusetts General Hospital, "Man Utd" for Manchester
United, "Glasto" for Glastonbury Festival. Pure functions, no Django.

Each word said is the stored word, the start of it, or its contraction (its first letter
and then some of its letters in order: Utd, Intl, Dept), in the stored order; words may be
left off the end ("Hospital"). At least one word must be cut to three letters or more of its
start, losing four or more ("Will Street" is no William Street) — a name said with fewer
words but none cut ("Trinity College", Trinity College Dublin) is another matter, the
similarity rule's — and every cut word keeps two letters: "Man U" could be United or
University. A single word is the start of the stored name's first
word, four letters or more and no common English word ("Mass" is one).
"""

from __future__ import annotations

import re

from memory.core.name_spelling import fold_accents
from memory.core.words import word_zipf

__all__ = ["CLIPPED", "clipped"]

CLIPPED = "clipped"
# A word said alone this common in English is a word, not a clipped name (wordfreq's Zipf
# scale, as words.COMMON_WORD_ZIPF).
_COMMON_ZIPF = 3.0
_MIN_ALONE = 4
_MIN_CUT = 3
# ... and at least this many letters are cut off: "Will Street" is no William Street.
_MIN_CUT_OFF = 4
_WORD = re.compile(r"[^\W_]+")


def _words(norm: str) -> list[str]:
    words = _WORD.findall(fold_accents(norm).lower().replace("'s", ""))
    return words[1:] if len(words) > 1 and words[0] == "the" else words


def _contraction(short: str, word: str) -> bool:
    if len(short) < 2 or short[0] != word[0] or len(short) >= len(word):
        return False
    rest = iter(word[1:])
    return all(ch in rest for ch in short[1:])


def clipped(short_norm: str, long_norm: str) -> bool:
    """Whether the normalised name ``short_norm`` is ``long_norm`` with its words cut short
    (see the module), or a university's name said as students say it ("Melbourne Uni", "Uni
    of Leeds": the University of Melbourne, of Leeds — not Melbourne University, a name
    that in some places is another one's)."""
    short, long = _words(short_norm), _words(long_norm)
    if long[:2] == ["university", "of"] and len(long) > 2:
        place = long[2:]
        if short in ([*place, "uni"], ["uni", "of", *place]):
            return True
    if not short or not long or len(short) > len(long) or short == long[: len(short)]:
        return False
    if len(short) == 1:
        word = short[0]
        return (
            len(word) >= _MIN_ALONE
            and long[0].startswith(word)
            and len(long[0]) > len(word)
            and word_zipf(word) < _COMMON_ZIPF
        )
    cut = False
    for said, stored in zip(short, long, strict=False):
        if said == stored:
            continue
        if stored.startswith(said) and len(said) >= 2:
            cut = cut or (len(said) >= _MIN_CUT and len(stored) - len(said) >= _MIN_CUT_OFF)
        elif not _contraction(said, stored):
            return False
    return cut
