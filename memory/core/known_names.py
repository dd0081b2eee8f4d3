"""Other names of well-known organisations, places, events and things (``known_names.txt``):
Facebook and Meta, Maccas and McDonald's, Spurs and Tottenham Hotspur, Brum and
Birmingham, Wiesn and Oktoberfest, aubergine and eggplant — names that no spelling, acronym
or containment rule links, because the link is a fact about the world. Pure functions, no
Django.

The table is many-to-many like the nickname tables: "Spurs" is Tottenham's and San
Antonio's, "the Magpies" Newcastle's and Collingwood's. It says two names *may* be one
entity's; the merge rules merge only when exactly one node of a listed kind fits.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from memory.core.name_spelling import fold_accents

__all__ = ["known_alike", "known_elsewhere", "name_key"]

_FILE = Path(__file__).with_name("known_names.txt")
_WORD = re.compile(r"[^\W_]+")
_APOSTROPHE = re.compile(r"['’`]")
# A year at the end names an edition ("Wiesn 2023" is Oktoberfest 2023, not 2024's).
_YEAR = re.compile(r"\s+((?:19|20)\d\d)$")


def name_key(name: str) -> str:
    """Compared without case, accents, apostrophes ("TJ's": tjs), punctuation, "and" or
    "&" (M&S: "m s"), and a leading "the"."""
    text = _APOSTROPHE.sub("", fold_accents(name).casefold())
    words = [w for w in _WORD.findall(text) if w != "and"]
    if len(words) > 1 and words[0] == "the":
        words = words[1:]
    return " ".join(words)


@lru_cache(maxsize=1)
def _groups() -> dict[tuple[str, str], frozenset[int]]:
    """(kind, name key) → the lines (entities) that name lists, read once per process."""
    found: dict[tuple[str, str], set[int]] = {}
    for number, line in enumerate(_FILE.read_text(encoding="utf-8").splitlines()):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        kinds, _, names = line.partition(":")
        for kind in kinds.split():
            for name in names.split("|"):
                found.setdefault((kind, name_key(name)), set()).add(number)
    return {key: frozenset(lines) for key, lines in found.items()}


def _split_year(name: str) -> tuple[str, str | None]:
    match = _YEAR.search(name.strip())
    return (name.strip()[: match.start()], match.group(1)) if match else (name, None)


def known_alike(kind: str, a: str, b: str) -> bool:
    """Whether two different names of one ``kind`` are listed as names of one entity, and
    say the same year if either says one ("Deepavali 2023" / Diwali 2023; not "Wiesn 2024"
    / Oktoberfest 2023)."""
    (a, year_a), (b, year_b) = _split_year(a), _split_year(b)
    ka, kb = name_key(a), name_key(b)
    if year_a != year_b or not ka or ka == kb:
        return False
    groups = _groups()
    return bool(groups.get((kind, ka), frozenset()) & groups.get((kind, kb), frozenset()))


@lru_cache(maxsize=1)
def _line_words() -> dict[int, frozenset[str]]:
    """Line (entity) → the words of all its names."""
    found: dict[int, frozenset[str]] = {}
    for number, line in enumerate(_FILE.read_text(encoding="utf-8").splitlines()):
        line = line.strip()
        if line and not line.startswith("#"):
            names = line.partition(":")[2].split("|")
            found[number] = frozenset(w for n in names for w in name_key(n).split())
    return found


def known_elsewhere(kind: str, name: str, forms: list[str], said: str = "") -> bool:
    """Whether the table knows ``name`` as another entity's than the stored node whose
    ``forms`` are given: "UCL" is University College London, not the University of Central
    Lancashire its letters also fit — or, when it names the stored one and others too
    ("OU": the Open University and the University of Oklahoma), whether what was ``said``
    names one of the others ("in Norman, Oklahoma")."""
    groups = _groups()
    key = name_key(_split_year(name)[0])
    lines = groups.get((kind, key), frozenset())
    if not lines:
        return False
    own = {
        line
        for f in forms
        for line in groups.get((kind, name_key(_split_year(f)[0])), frozenset())
        if line in lines
    }
    said_name = set(key.split())
    form_words = [set(name_key(f).split()) for f in forms]
    if not own and not any(said_name <= words for words in form_words):
        return True
    # The stored one is named so (in the table, or in so many words: the DMV, California
    # DMV; MIT Manipal): elsewhere only when what was said names one of the others.
    lines_words = _line_words()
    own_words = frozenset().union(*(lines_words[line] for line in own), *form_words)
    said_words = set(name_key(said).split())
    return any(
        said_words & {w for w in lines_words[line] - own_words if len(w) >= 4}
        for line in lines - own
    )
