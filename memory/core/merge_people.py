"""The merge rules for people (SPEC §5.6, rule 3): how people are named in conversation.

A first name (or a nickname of it) reaches the one full name it fits, a title + surname the
one full name with that surname, a clipped, pet or respelled name the one name it comes
from — only when exactly one stored person qualifies, nothing the user said contradicts it,
and no other stored person is a plausible reading of the name (a near-tie). The facts about
names are in ``person_names``, ``first_names`` and ``person_roles``; this module decides.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rapidfuzz.distance import Levenshtein

from memory.core.merge_types import (
    HOLD,
    MERGE,
    NEW,
    Mention,
    MergeVerdict,
    StoredNode,
    best_similarity,
    make_verdict,
    node_forms,
)
from memory.core.person_names import (
    SPELLING,
    VARIANT,
    PersonName,
    contradicts,
    gender_of,
    gendered_pair,
    loosely_related,
    name_gender,
    parse_person,
    relate_first_names,
)

__all__ = ["different_people", "gender_of_titles", "node_gender", "person_verdict"]

# Person rules, strongest first: a merge or hold names the strongest rule that matched.
_PERSON_RANK = {
    "nickname": 0,
    "title": 1,
    "first-name": 2,
    "spelling": 3,
    "short-form": 4,
    "pet-form": 5,
    "variant": 6,
}


def _person_match(inc: PersonName, form: PersonName) -> str | None:
    """Why the incoming person name may be the stored form (both parsed), or None.

    * the same words with another title or other accents → "title" / "spelling";
    * title + surname ("Mr. Patterson") → the surname of a full name ("Matt Patterson"),
      or a full name → a stored title + surname → "title";
    * one name is a lone first name and the other a full name whose first name is the
      same, a nickname of it ("first-name"), a respelling ("spelling") or a clipped form
      ("short-form") of it;
    * the same number of words, the same words after the first, first names related:
      "nickname" (Bill Smith/William Smith), "spelling" or "short-form".
    """
    a, b = inc.words, form.words
    if not a or not b:
        return None
    if a == b:
        return "title" if inc.title != form.title else SPELLING
    if inc.title and len(a) == 1:
        return "title" if len(b) >= 2 and b[-1] == a[0] else None
    if form.title and len(b) == 1:
        return "title" if len(a) >= 2 and a[-1] == b[0] else None
    if (len(a) == 1) != (len(b) == 1):
        if a[0] == b[0]:
            return "first-name"
        why = relate_first_names(a[0], b[0])
        return "first-name" if why == "nickname" else why
    if a[1:] != b[1:]:
        return None
    return relate_first_names(a[0], b[0])


def different_people(inc: PersonName, form: PersonName, threshold: float) -> bool:
    """Two full names (Latin letters) that the user would never mix up: the same or related
    first names with clearly different surnames (Matt Smith / Matt Patterson), or
    unrelated first names (John Smith / Jane Smith, a relative). They are not even
    candidates for review. A surname one typo away (Johnson/Johnston) stays a candidate."""
    a, b = inc.words, form.words
    if not all(w.isalpha() and w.isascii() for w in (*a, *b)):
        return False
    if len(a) == 1 and len(b) == 1:  # Daniel/Daniela, Simon/Simone: a gendered ending
        short, long = sorted((a[0], b[0]), key=len)
        return short != long and gendered_pair(short, long)
    if len(a) < 2 or len(b) < 2:
        return False
    firsts_related = a[0] == b[0] or relate_first_names(a[0], b[0]) is not None
    if not firsts_related:
        return True
    return Levenshtein.normalized_similarity(a[-1], b[-1]) <= threshold


def _reading(inc: PersonName, form: PersonName) -> bool:
    """Whether a stored name is a plausible reading of the incoming one under the loosest
    rules (``person_names.loosely_related`` on the first names, the rest of the words not
    in conflict). Titles are about surnames and are left to the title rule."""
    a, b = inc.words, form.words
    if not a or not b or inc.title or form.title:
        return False
    if len(a) > 1 and len(b) > 1 and a[1:] != b[1:]:
        return False
    return loosely_related(a[0], b[0])


def _title_against_first_name(inc: PersonName, inc_gender: str, node: StoredNode) -> bool:
    """A gendered title ("Mr. Brown") matched by surname to a node the graph knows no gender
    of, but whose first name the first-name lists give to the other gender (Lucy Brown)."""
    if not (inc.title and inc_gender) or node_gender(node):
        return False
    firsts = {parse_person(f).first for f in node_forms(node) if len(parse_person(f).words) >= 2}
    return any(name_gender(first) not in ("", inc_gender) for first in firsts)


def person_verdict(
    new: str, same_kind: Sequence[StoredNode], mention: Mention
) -> MergeVerdict | None:
    """Rules 3a–3e (PERSON): every node one of ``_person_match``'s reasons links to the new
    name is a candidate. Exactly one, and nothing the user said contradicts it → merge —
    unless it is in doubt: a "variant" of the name (held) or a near-tie: another node, not
    contradicted, that is a plausible reading of the name under the loosest rules (held with
    it). A gendered title whose only match has a first name the lists give to the other
    gender ("Mr. Brown", Lucy Brown) → a new node. Several → hold among those not
    contradicted. Only contradicted ones → a new node."""
    inc = parse_person(new)
    inc_gender = mention.gender or gender_of_titles([inc.title])
    found: dict[int, str] = {}
    for node in same_kind:
        for form in node_forms(node):
            why = _person_match(inc, parse_person(form))
            # The user is not renamed by a guess: only the nickname table reaches the
            # self node (as it always has); clipped or respelled names do not.
            if why is None or (node.is_self and why != "nickname"):
                continue
            if node.id not in found or _PERSON_RANK[why] < _PERSON_RANK[found[node.id]]:
                found[node.id] = why
    if not found:
        return None
    by_id = {n.id: n for n in same_kind}
    rule = min(found.values(), key=_PERSON_RANK.__getitem__)

    def fits(node: StoredNode) -> bool:
        return not contradicts(mention.roles, node.roles, inc_gender, node_gender(node))

    fitting = [i for i in found if fits(by_id[i])]
    if not fitting:
        return make_verdict(NEW, list(found), "contradiction", dict.fromkeys(found, 1.0))
    scores = {i: (1.0 if found[i] != SPELLING else best_similarity(new, by_id[i])) for i in fitting}
    if len(found) > 1:
        return make_verdict(HOLD, fitting, f"{rule}-ambiguous", scores)
    only = by_id[fitting[0]]
    if rule == VARIANT:
        return make_verdict(HOLD, fitting, VARIANT, scores)
    if rule == "title" and _title_against_first_name(inc, inc_gender, only):
        # The user's own "Mr." against a woman's first name (or "Mrs." against a man's): as
        # good as a contradiction for a title match, which is the weakest evidence of all —
        # a surname. The worst case is a duplicate to merge later, never two identities lost.
        return make_verdict(NEW, fitting, "title-gender", scores)
    if rule != "title":
        near = [
            n
            for n in same_kind
            if n.id != only.id
            and not n.is_self
            and fits(n)
            and any(_reading(inc, parse_person(f)) for f in node_forms(n))
        ]
        if near:
            scores.update({n.id: best_similarity(new, n) for n in near})
            return make_verdict(HOLD, [only.id, *(n.id for n in near)], f"{rule}-near-tie", scores)
    return make_verdict(MERGE, fitting, rule, scores)


def gender_of_titles(titles: Iterable[str]) -> str:
    """ "f"/"m" from gendered titles said with a name (Mrs./Mr.), "" when none or mixed."""
    return gender_of((), titles=titles)


def node_gender(node: StoredNode) -> str:
    return node.gender or gender_of_titles(parse_person(f).title for f in node_forms(node))
