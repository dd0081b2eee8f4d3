"""What the bundled tables say about a first name: its nickname group and the gender it
suggests (SPEC §5.6). Pure functions, no Django.

* The nickname table is the ``nicknames`` package's: many-to-many ("bill" is William's and
  Robert's), so it is evidence that two names *may* be one person's, never that they are.
* ``nicknames_world.txt`` adds the usual pet forms of given names outside English (Paco,
  Gosia, Sasha, Kostas …), which that table does not list; the same kind of evidence.
* ``name_variants.txt`` lists the romanisations of one given name (Muhammad/Mohammed,
  Yusuf/Youssef): spellings, which edit distance alone finds too far apart.
* ``first_name_genders.txt`` holds the given names of the female and male first-name lists
  of the Faker package's 80-odd locales (census and registry data), each tagged with the
  gender it suggests ("f", "m") or "u" when the lists give it to both. It is a suggestion: it
  only ever makes the merge rules more careful (a veto or a hold), never merges by itself,
  and never contradicts what the graph says about a person.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from nicknames import NickNamer

__all__ = [
    "genders_differ",
    "is_given_name",
    "is_world_name",
    "is_world_pet_form",
    "name_gender",
    "name_group",
    "nicknamer",
    "same_gender",
    "written_otherwise",
]

_GENDER_FILE = Path(__file__).with_name("first_name_genders.txt")
_WORLD_FILE = Path(__file__).with_name("nicknames_world.txt")
_VARIANTS_FILE = Path(__file__).with_name("name_variants.txt")


@lru_cache(maxsize=1)
def nicknamer() -> NickNamer:
    """The nickname table. Parsing it takes tens of milliseconds: done once, on first use."""
    return NickNamer()


@lru_cache(maxsize=4096)
def name_group(first_name: str) -> frozenset[str]:
    """The nickname group of a (normalised) first name: itself, its nicknames and the names
    it is a nickname of. The table is many-to-many ("bill" gives william, robert, will …),
    which is why the merge rules merge only when exactly one node qualifies."""
    nn = nicknamer()
    world = _world_groups().get(first_name, frozenset())
    return frozenset(
        {first_name} | nn.nicknames_of(first_name) | nn.canonicals_of(first_name) | world
    )


def is_world_name(word: str) -> bool:
    """Whether ``nicknames_world.txt`` knows the word, as a full name or a pet form (Mien,
    Gosia, Paco)."""
    return word in _world_groups()


def is_world_pet_form(a: str, b: str) -> bool:
    """Whether ``nicknames_world.txt`` gives one of two first names as a pet form of the
    other (full name and pet form, either way round)."""
    pets = _world_pets()
    return b in pets.get(a, ()) or a in pets.get(b, ())


@lru_cache(maxsize=1)
def _world_pets() -> dict[str, frozenset[str]]:
    """``nicknames_world.txt`` as written: a full name → its pet forms."""
    pets: dict[str, set[str]] = {}
    for line in _WORLD_FILE.read_text(encoding="utf-8").splitlines():
        names = line.split("#", 1)[0].split()
        if len(names) >= 2:
            pets.setdefault(names[0], set()).update(names[1:])
    return {full: frozenset(forms) for full, forms in pets.items()}


def written_otherwise(a: str, b: str) -> bool:
    """Whether ``name_variants.txt`` gives two first names as romanisations of one name
    (Muhammad/Mohammed, Yusuf/Youssef, Fatma/Fatima)."""
    group = _variants().get(a)
    return group is not None and b in group


@lru_cache(maxsize=1)
def _variants() -> dict[str, frozenset[str]]:
    """``name_variants.txt``: each spelling → the spellings of its line (itself included)."""
    out: dict[str, frozenset[str]] = {}
    for line in _VARIANTS_FILE.read_text(encoding="utf-8").splitlines():
        names = frozenset(line.split("#", 1)[0].split())
        for name in names:
            out[name] = out.get(name, frozenset()) | names
    return out


@lru_cache(maxsize=1)
def _world_groups() -> dict[str, frozenset[str]]:
    """``nicknames_world.txt`` both ways: a full name → its pet forms, a pet form → the full
    names it is a pet form of."""
    links: dict[str, set[str]] = {}
    for full, pets in _world_pets().items():
        links.setdefault(full, set()).update(pets)
        for pet in pets:
            links.setdefault(pet, set()).add(full)
    return {name: frozenset(group) for name, group in links.items()}


@lru_cache(maxsize=1)
def _name_tags() -> dict[str, str]:
    tags: dict[str, str] = {}
    tag = ""
    for line in _GENDER_FILE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        if line.startswith("["):
            tag = line.strip("[] \n")
            continue
        tags.update(dict.fromkeys(line.split(), tag))
    return tags


def name_gender(first_name: str) -> str:
    """The gender a (folded, lower-case) first name suggests: "f" or "m" when the lists give
    it to one gender (three times as many locales' lists or more), "" when to both or
    unknown. A suggestion, not a fact: it only holds a merge for review or vetoes a link
    between two names, it never contradicts what the graph says about a person."""
    tag = _name_tags().get(first_name, "")
    return tag if tag in ("f", "m") else ""


def is_given_name(first_name: str) -> bool:
    """Whether a (folded, lower-case) first name is a given name of the lists, of either
    gender or both ("mags" is not: it is only ever a pet form of Margaret or Magdalena)."""
    return first_name in _name_tags()


def genders_differ(a: str, b: str) -> bool:
    """Whether the lists give the two first names to different genders (Louis/Louise)."""
    ga, gb = name_gender(a), name_gender(b)
    return bool(ga and gb and ga != gb)


def same_gender(a: str, b: str) -> bool:
    """Whether the lists give both first names to the same gender (Isabel/Isabelle)."""
    ga = name_gender(a)
    return bool(ga) and ga == name_gender(b)
