"""Names said with or without the word for what they are, and events named in either word
order (issue 21, round 7). Pure functions.

* **The kind word.** "Blue Door" is the Blue Door Café, "Oakwood Primary" Oakwood Primary
  School, "IELTS" the IELTS exam, "jazz" jazz music: the last word of the longer name is the
  word for the kind of thing it is — the head of the phrase, which restates the kind, where
  a word put *before* a concept narrows it ("painted bowl" is not "bowl"). Only the kind
  words of ``KIND_WORDS``, each for the kinds it names.
* **Word order.** "trip to Japan" is the Japan trip, "interview at Stripe" the Stripe
  interview: an event named with the same words in another order, the little words left out.
"""

from __future__ import annotations

import re
from collections import Counter

from memory.core.name_spelling import fold_accents
from memory.core.words import STOP_WORDS

KIND_WORD = "kind-word"
WORD_ORDER = "word-order"
POSSESSOR = "possessor"

_ORG_WORDS = frozenset(
    {
        *("school", "academy", "hospital", "clinic", "cafe", "restaurant", "bistro", "bakery"),
        *("pub", "gym", "church", "chapel", "mosque", "temple", "synagogue", "library"),
        *("museum", "hotel", "salon", "studio", "pharmacy"),
        # Round 9: where children are minded, the old cared for, patients seen.
        *("nursery", "preschool", "kindergarten", "care home", "nursing home", "surgery"),
        *("medical centre", "medical center", "health centre", "health center"),
    }
)
# A saint's name is given to a parish's church, school and hospital alike: "St. Mary's"
# alone is any of them.
_DEDICATIONS = frozenset({"st", "saint", "san", "santa", "sankt", "ste", "sainte"})
# The word (or words) for what a thing of the kind is, said after its name or left out.
# Not for places the words of a settlement or of what serves one ("city", "airport",
# "beach", "station"): Mexico City is not Mexico, Frankfurt Airport not Frankfurt, Miami
# Beach not Miami. A national park or a group of islands is what its name alone means.
KIND_WORDS: dict[str, frozenset[str]] = {
    "ORG": _ORG_WORDS,
    "EVENT": frozenset(
        {"exam", "test", "festival", "conference", "summit", "marathon", "hackathon"}
    ),
    "TOPIC": frozenset({"music"}),
    "PREFERENCE": frozenset({"music", "food", "cuisine"}),
    "PLACE": frozenset({"national park", "islands"}),
}
_WORD = re.compile(r"[^\W_]+")


def _words(norm: str) -> list[str]:
    return _WORD.findall(fold_accents(norm).lower())


def with_kind_word(a: str, b: str, kind: str) -> bool:
    """Whether one normalised name is the other with the word (or words) for its kind after
    it ("blue door" / "blue door café" for an ORG, "willow court" / "willow court care
    home")."""
    kind_words = KIND_WORDS.get(kind)
    if not kind_words:
        return False
    short, long = sorted((_words(a), _words(b)), key=len)
    if not short or short[0] in _DEDICATIONS:
        return False
    head = " ".join(long[len(short) :])
    return (
        long[: len(short)] == short
        and head in kind_words
        and any(w not in STOP_WORDS and w not in kind_words for w in short)
    )


_POSSESSED = re.compile(r"^(.+?)['’]s? (.+)$")
_AND = frozenset({"and", "&"})


def _possessor_and_event(norm: str) -> tuple[frozenset[str], tuple[str, ...]] | None:
    """("sarah and ben's wedding") → ({sarah, ben}, (wedding,)); None without a possessive."""
    match = _POSSESSED.match(norm.replace("&", " and "))
    if not match:
        return None
    owners = frozenset(w for w in _words(match.group(1)) if w not in _AND)
    event = tuple(_words(match.group(2)))
    return (owners, event) if owners and event else None


def one_occasion(a: str, b: str) -> bool:
    """Whether two event names are the same occasion of people named more or less fully
    ("sarah's wedding" / "sarah and ben's wedding", "grandpa's funeral" / "grandpa joe's
    funeral"): the same words after the possessive, one side's people among the other's."""
    pa, pb = _possessor_and_event(a), _possessor_and_event(b)
    if pa is None or pb is None or pa[1] != pb[1] or pa[0] == pb[0]:
        return False
    return pa[0] < pb[0] or pb[0] < pa[0]


def in_another_order(a: str, b: str) -> bool:
    """Whether two event names are the same words in another order, the little words left
    out ("trip to japan" / "japan trip"); two words or more, and not the same order."""
    wa = [w for w in _words(a) if w not in STOP_WORDS]
    wb = [w for w in _words(b) if w not in STOP_WORDS]
    return len(wa) >= 2 and wa != wb and Counter(wa) == Counter(wb)
