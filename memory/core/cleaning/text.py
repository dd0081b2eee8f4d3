"""Text normalisation: whitespace, the comparison form of a name, and the look-alike folding
that matching for instructions relies on."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_WS = re.compile(r"\s+")
# Quotes, brackets, dashes and sentence punctuation are wrapping, not part of a
# name; symbols such as "#", "&" or "+" can be ("C#", "AT&T") and are kept.
_EDGE_PUNCT_CATEGORIES = frozenset({"Pi", "Pf", "Ps", "Pe", "Pd", "Pc"})
_EDGE_PUNCT_CHARS = frozenset(".,;:!?\"'`…¡¿·")


def normalise_ws(text: str) -> str:
    """Collapse every run of whitespace to one space and strip the ends."""
    return _WS.sub(" ", text).strip()


def _strip_edge_punct(text: str) -> str:
    def wrapping(ch: str) -> bool:
        return (
            ch.isspace()
            or ch in _EDGE_PUNCT_CHARS
            or unicodedata.category(ch) in _EDGE_PUNCT_CATEGORIES
        )

    start, end = 0, len(text)
    while start < end and wrapping(text[start]):
        start += 1
    while end > start and wrapping(text[end - 1]):
        end -= 1
    return text[start:end]


# The merge rules compare a said name with every stored node's name and aliases, rule after
# rule: the same few thousand strings are normalised again and again.
@lru_cache(maxsize=65536)
def normalise_name(name: str) -> str:
    """The comparison form of a name (SPEC §4 unique key, §5.6 rule 1).

    NFKC (full-width and compatibility forms fold), casefold, whitespace collapsed,
    surrounding quotes/brackets/punctuation stripped. ``'  "Bill  Smith". '`` →
    ``"bill smith"``.
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    return _strip_edge_punct(normalise_ws(folded))


# Common Cyrillic and Greek letters that look like Latin ones (after case folding).
_LOOKALIKES = str.maketrans(
    dict(zip("асϲеεһіικκмоοσрρʀѕтτхχуγүոԁɡј", "acceehiikkmooopprsttxxyyyndgj", strict=True))
)
# Characters that show nothing of their own: combining marks and format characters
# (zero-width, bidi controls, tag characters), plus the Hangul fillers.
_UNSEEN_CATEGORIES = frozenset({"Mn", "Me", "Cf"})
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0")


def fold_lookalikes(text: str) -> str:
    """The form of ``text`` a reader (or a model) recognises: NFKD (full-width and other
    compatibility forms fold, accents split off), case-folded, with combining marks,
    format characters (zero-width, bidi, tag characters) and Hangul fillers removed and
    common Cyrillic/Greek look-alikes mapped to Latin letters: full-width "ＩＧＮＯＲＥ",
    "ig" + ZERO WIDTH SPACE + "nore" and Cyrillic "іgnоrе" all fold to "ignore".
    For matching only; stored text is never replaced by it."""
    folded = unicodedata.normalize("NFKD", text).casefold()
    if folded.isascii():
        return folded
    kept = (
        c for c in folded if c not in _FILLERS and unicodedata.category(c) not in _UNSEEN_CATEGORIES
    )
    return "".join(kept).translate(_LOOKALIKES)
