"""The merge rules for organisations and places besides their legal form (SPEC §5.6): an
acronym and its expansion ("UCLA", University of California, Los Angeles; "NYC", New York
City), the user's own employer, school or home named by its first words ("Quillfeather" for
Quillfeather Analytics, where the user works; "Portland" for Portland, Oregon, where they
live), and one name in two regions ("Portland, Maine" is not Portland, Oregon). Pure
functions, no Django.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from memory.core.merge_orgs import org_core_words
from memory.core.merge_types import Mention, StoredNode, node_forms
from memory.core.name_spelling import fold_accents
from memory.core.person_roles import TIE_ROLES
from memory.core.words import STOP_WORDS

__all__ = [
    "ACRONYM",
    "OWN_PLACE",
    "acronym_matches",
    "is_acronym_of",
    "other_region",
    "own_place",
]

ACRONYM = "acronym"
OWN_PLACE = "own-place"
# Kinds whose names people shorten to initials: organisations and places, and conferences,
# tools, subjects (ICML, PBI for Power BI, ML for machine learning). Not people, nor pets.
_ACRONYM_KINDS = frozenset({"ORG", "PLACE", "EVENT", "THING", "TOPIC", "PREFERENCE"})
_TOKEN = re.compile(r"[^\W_]+")
# A dot between two letters ("U.C.L.A.", "D.C.") joins an abbreviation's letters.
_DOTS = re.compile(r"(?<=[^\W\d_])\.(?=[^\W\d_])")
_HYPHENS = re.compile(r"[-‐‑‒–]")
# An ampersand between two capitals joins an abbreviation's letters ("P&G", "M&S").
_AMPERSANDS = re.compile(r"(?<=[A-Z])&(?=[A-Z])")
MIN_ACRONYM, MAX_ACRONYM = 2, 6
# Function words inside names in other languages, left out of acronyms as "of" is
# (Universidade de São Paulo is USP).
# ... and Polish "w" (in), Dutch "en" (and): Koło Gospodyń Wiejskich w Zalesiu is KGW.
_PARTICLES = frozenset(
    "de da do dos das del della di du des la le les van von der den y e et und w en".split()
)


def _acronym(token: str) -> bool:
    """An acronym as written: in capitals ("NHS"), or with small letters for the little
    words between capitals ("MoMA": Museum of Modern Art)."""
    if not (MIN_ACRONYM <= len(token) <= MAX_ACRONYM and token.isascii()):
        return False
    if token.isupper():
        return True
    return token.isalpha() and token[:1].isupper() and sum(c.isupper() for c in token) >= 3


def _tokens(name: str) -> list[str]:
    """A name's words as written (case kept), an abbreviation's dots joined, a leading
    "the" left out ("the U.N." → ["UN"])."""
    words = _TOKEN.findall(fold_accents(_DOTS.sub("", _AMPERSANDS.sub("", name))))
    return words[1:] if len(words) > 1 and words[0].lower() == "the" else words


_DOTTED = re.compile(r"\b(?:[a-z]\.){2,}")


def _expansions(name: str, kind: str) -> list[list[str]]:
    """The words an acronym of ``name`` may stand for: lower-case, hyphenated words split
    (Toronto-Dominion), an organisation's legal form left out; with and without function
    words (London School of Economics is LSE, not LSOE)."""
    text = _HYPHENS.sub(" ", fold_accents(name).lower())
    # An abbreviation written with full stops stands for its letters' words: "U.S.
    # Citizenship and Immigration Services" is USCIS.
    dotted: set[str] = set()

    def spelt(match: re.Match) -> str:
        letters = match.group(0).replace(".", "")
        dotted.update(letters)
        return " ".join(letters) + " "

    text = _DOTTED.sub(spelt, text)
    words = org_core_words(text) if kind == "ORG" else _TOKEN.findall(_DOTS.sub("", text))
    content = [w for w in words if w in dotted or (w not in STOP_WORDS and w not in _PARTICLES)]
    # A title's "the" is left out of its initials, its other little words kept ("LOTR", The
    # Lord of the Rings).
    unled = words[1:] if words[:1] == ["the"] else []
    found = [w for w in (content, words, unled) if len(w) >= MIN_ACRONYM]
    return [w for i, w in enumerate(found) if w not in found[:i]]


def _aligns(
    tokens: list[str], words: list[str], used: bool = False, whole: frozenset[str] = frozenset()
) -> bool:
    """Whether the written ``tokens`` read as ``words``, each token either the next word or
    an acronym of the next words' initials ("UC Berkeley" → university california berkeley)
    — an acronym among the words giving all its letters (``whole``) — at least one of them
    an acronym."""
    if not tokens:
        return used and not words
    token, rest = tokens[0], tokens[1:]
    if words and token.lower() == words[0] and _aligns(rest, words[1:], used, whole):
        return True
    if not _acronym(token):
        return False
    return any(
        _aligns(rest, words[n:], True, whole) for n in _spelt_by(token.lower(), words, whole)
    )


def _spelt_by(letters: str, words: list[str], whole: frozenset[str]) -> Iterator[int]:
    """How many of ``words``, from the first, spell ``letters`` by their initials, or by all
    the letters of a word in ``whole``."""
    if not letters:
        yield 0
        return
    if not words:
        return
    word = words[0]
    if letters[0] == word[0]:
        yield from (n + 1 for n in _spelt_by(letters[1:], words[1:], whole))
    if word in whole and len(word) > 1 and letters.startswith(word):
        yield from (n + 1 for n in _spelt_by(letters[len(word) :], words[1:], whole))


def is_acronym_of(short: str, long: str, kind: str, *, whole_words: bool = True) -> bool:
    """Whether the name ``short`` (as written: an acronym is in capitals) is an acronym of the
    name ``long``, alone or with other words of it ("NYC", New York City; "UC Berkeley",
    University of California, Berkeley; "EY", Ernst & Young)."""
    tokens = _tokens(short)
    if not any(_acronym(t) for t in tokens):
        return False
    # An acronym in the long name gives all its letters ("UKVI", UK Visas and Immigration;
    # "NHSBT", NHS Blood and Transplant) — when the acronym is the one said: "UC Davis" said
    # is not the UCD stored (University College Dublin).
    whole = frozenset(
        t.lower() for t in _tokens(long) if whole_words and len(t) >= MIN_ACRONYM and t.isupper()
    )
    return any(
        len(words) > len(tokens) and _aligns(tokens, words, whole=whole)
        for words in _expansions(long, kind)
    )


def acronym_matches(
    name: str, kind: str, same_kind: Sequence[StoredNode]
) -> tuple[list[int], bool]:
    """The ORG or PLACE nodes ``name`` names by acronym, either way: an acronym said for a
    stored expansion (UCLA, University of California, Los Angeles), or an expansion said for
    a stored acronym (National Health Service, NHS); and whether the match is sure enough to
    merge one. Two letters alone are a weak match — a state's or a country's code as often
    as an acronym ("PA" may be Pennsylvania, not Palo Alto) — so they are sure only for a
    place or organisation the user has a tie to (lives in, works at: "SF" for San Francisco,
    "EY" for Ernst & Young); otherwise they are asked about. With a word of the name said
    too ("UC Berkeley", "TD Bank") they are sure."""
    if kind not in _ACRONYM_KINDS:
        return [], False
    found, sure = [], True
    for node in same_kind:
        if node.is_self:
            continue
        shorts = [
            short
            for form in (node.name, *node.aliases)
            for short, long, said in ((name, form, True), (form, name, False))
            if is_acronym_of(short, long, kind, whole_words=said)
        ]
        if shorts:
            found.append(node.id)
            weak = all(len("".join(_tokens(short))) <= MIN_ACRONYM for short in shorts)
            sure = sure and (not weak or bool(node.roles & TIE_ROLES))
    if found or kind != "ORG":
        return found, sure
    # Round 28: a club's or a union's acronym of its name but a word at either end, a place or
    # a country ("YFC", Kington Young Farmers Club; "the WI", Llanfair Women's Institute;
    # "LTO", Land- en Tuinbouw Organisatie Nederland): the one organisation the user belongs
    # to, or a question among those; of others, no match (a charity's initials are its own
    # known name: "SVP").
    partial = [
        node
        for node in same_kind
        if not node.is_self and node.roles & TIE_ROLES and _acronym_but_an_end(name, node.name)
    ]
    return [n.id for n in partial], len(partial) == 1


def _acronym_but_an_end(short: str, long: str) -> bool:
    """Whether ``short`` is one acronym of three letters or more (two with "the": "the WI")
    that spells all the words of ``long`` but its first or its last."""
    tokens = _tokens(short)
    said = short.strip().lower().startswith("the ")
    if len(tokens) != 1 or not _acronym(tokens[0]) or len(tokens[0]) < (2 if said else 3):
        return False
    letters = tokens[0].lower()
    for words in _expansions(long, "ORG"):
        for part in (words[1:], words[:-1]):
            if len(part) == len(letters) and "".join(w[0] for w in part) == letters:
                return True
    return False


def _lead_words(norm: str, kind: str) -> list[str]:
    words = org_core_words(norm) if kind == "ORG" else _TOKEN.findall(fold_accents(norm))
    return [w for w in words if w not in STOP_WORDS] or words


def _leads(short: str, long: str, kind: str) -> bool:
    """Whether ``short`` is ``long`` said by its first words: an organisation's leading words
    ("Quillfeather", Quillfeather Analytics); a place's name without its region ("Portland",
    Portland, Oregon) — never a place's first words, which name another place ("Mexico",
    Mexico City; "Kansas", Kansas City)."""
    if kind == "PLACE":
        head = long.split(",", 1)[0]
        return head != long and _lead_words(head, kind) == _lead_words(short, kind)
    a, b = _lead_words(short, kind), _lead_words(long, kind)
    return 0 < len(a) < len(b) and b[: len(a)] == a


def own_place(
    new: str, kind: str, candidates: Sequence[StoredNode], mention: Mention
) -> StoredNode | None:
    """Among the review candidates of an ORG or PLACE, the user's own employer, school, home
    or home town (``person_roles.TIE_ROLES``) named by its first words (``_leads``):
    "Quillfeather" for Quillfeather Analytics, where the user works; "Portland" for Portland,
    Oregon, where they live — the only candidate, and one the user has such a tie to. Among
    several ("Vantage": Vantage Health, Vantage Capital; "Springfield" in Illinois and
    Massachusetts) the mention's own tie picks the one candidate that has it (the user works
    at Vantage); and with that tie said on both sides, an organisation's longer name may be
    the one said ("Deloitte Consulting", where the user works, for Deloitte). A place with
    words the stored one lacks ("Paris, Texas" for the Paris the user lives in) is asked
    about: it may be another place."""
    said = mention.roles & TIE_ROLES
    if said:
        picked = [n for n in candidates if n.roles & said]
        if len(picked) != 1:
            return None
        forms = node_forms(picked[0])
        # "Paris, Texas" may be another Paris than the user's home; an organisation's or a
        # thing's longer name is the same one named in full ("Kindle Paperwhite").
        longer = kind in ("ORG", "THING")
        if any(
            _leads(new, f, kind) or (longer and _leads(f, new, kind) and not _model_added(f, new))
            for f in forms
        ):
            return picked[0]
        return None
    if len(candidates) != 1 or not candidates[0].roles & TIE_ROLES:
        return None
    only = candidates[0]
    return only if any(_leads(new, f, kind) for f in node_forms(only)) else None


# Words after a product's name that make it another model (the Nikon Z6 II, not the Z6; the
# Trek Émonda SL 6, not the Émonda): a number, a Roman numeral, a mark or a size.
_MODEL = re.compile(r"^(?:\d+\w*|[ivx]{2,4}|mk\d*|mark|pro|max|plus|ultra|mini|gen\d*)$")


def _model_added(short: str, long: str) -> bool:
    """Whether the words ``long`` adds after ``short`` name another model of it."""
    a, b = _lead_words(short, "THING"), _lead_words(long, "THING")
    return any(_MODEL.match(w) for w in b[len(a) :])


def other_region(a: str, b: str) -> bool:
    """Two places of one name in two regions, each written "Name, Region" with the region in
    full ("Portland, Maine" / "Portland, Oregon", "Paris, France" / "Paris, Texas"): two
    places, not a question. A region abbreviated or named more or less widely ("Portland,
    OR", "Cambridge, UK" / "Cambridge, England") may be the same one and stays a question."""
    if "," not in a or "," not in b:
        return False
    (name_a, region_a), (name_b, region_b) = a.split(",", 1), b.split(",", 1)
    if _TOKEN.findall(fold_accents(name_a)) != _TOKEN.findall(fold_accents(name_b)):
        return False
    ra = " ".join(_TOKEN.findall(fold_accents(region_a)))
    rb = " ".join(_TOKEN.findall(fold_accents(region_b)))
    short, long = sorted((ra, rb), key=len)
    return len(short) >= 4 and not long.startswith(short)
