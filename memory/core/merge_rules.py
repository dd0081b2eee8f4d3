"""The deterministic merge rules (SPEC §5.6); the merge service commits the verdicts.

Asymmetry drives every choice here: a wrong merge destroys two identities, a
missed merge is a fixable duplicate. So a rule merges only when exactly one
stored node qualifies; anything ambiguous or merely similar is held for review
(the LLM or a moderator), and an extractor's hint can send to review, never merge.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from rapidfuzz.distance import Levenshtein

from memory.core.cleaning import SELF_PLACEHOLDERS, normalise_name
from memory.core.person_names import (
    SPELLING,
    VARIANT,
    PersonName,
    contradicts,
    fold_accents,
    gender_of,
    gendered_pair,
    loosely_related,
    name_gender,
    name_group,
    parse_person,
    relate_first_names,
)
from memory.core.words import STOP_WORDS

__all__ = [
    "CATCH_ALL_KINDS",
    "LLM_FLAG_ABOVE",
    "LLM_MERGE_ABOVE",
    "SIMILARITY_THRESHOLD",
    "Mention",
    "MergeVerdict",
    "StoredNode",
    "band_llm_confidence",
    "decide_merge",
    "gender_of_titles",
    "is_self_placeholder",
    "name_group",
    "normalise_name",
    "pick_llm_candidate",
]

SIMILARITY_THRESHOLD = 0.80
# Kinds an extractor uses for what it could not type: a same-named entity of another kind
# may be the same referent (Biscuit the dog stored as OTHER, later said as a PERSON).
CATCH_ALL_KINDS = frozenset({"OTHER", "THING"})
LLM_MERGE_ABOVE = 0.90
LLM_FLAG_ABOVE = 0.70

MERGE = "merge"
HOLD = "hold"
NEW = "new"

_WORD = re.compile(r"[^\W_]+")
# Legal forms an organisation's name is written with, each abbreviation with its full form:
# "Acme Corp" and "Acme Corporation" are one company; "Acme Inc" and "Acme Ltd" may be two.
_LEGAL_FORMS = {
    "corp": "corporation", "corporation": "corporation", "inc": "incorporated",
    "incorporated": "incorporated", "co": "company", "company": "company", "ltd": "limited",
    "limited": "limited", "llc": "llc", "plc": "plc", "gmbh": "gmbh", "ag": "ag", "sa": "sa",
    "sarl": "sarl", "srl": "srl", "spa": "spa", "bv": "bv", "nv": "nv", "oy": "oy",
    "ab": "ab", "pty": "pty", "lp": "lp", "llp": "llp", "kg": "kg",
}


@dataclass(frozen=True)
class StoredNode:
    """An existing node of the user, as the rules see it."""

    id: int
    kind: str
    name: str
    aliases: tuple[str, ...] = ()
    is_self: bool = False
    provisional: bool = False
    # What the user has said about the node (``person_names.roles_from_relations``: "sister",
    # "colleague", …) and its gender when the graph says it ("f", "m" or "").
    roles: frozenset[str] = frozenset()
    gender: str = ""


@dataclass(frozen=True)
class Mention:
    """What the incoming batch says about the proposed entity besides its name: its roles
    for the user and gender (as for ``StoredNode``), and the nodes a person already settled
    as *not* this entity (kept-apart decisions): those are never merged nor asked again."""

    roles: frozenset[str] = frozenset()
    gender: str = ""
    apart: frozenset[int] = frozenset()


@dataclass(frozen=True)
class MergeVerdict:
    """What to do with one proposed entity.

    action: "merge" (into ``target``), "hold" (for review among ``candidates``) or
        "new" (create a node).
    target: the node to merge into, only for "merge".
    candidates: the node ids considered, ascending (the target alone for a merge).
    rule: which rule decided — "self", "exact", "exact-ambiguous", "alias",
        "alias-ambiguous", "nickname", "nickname-ambiguous", "similar", "hint", "none".
    scores: candidate id → name similarity in 0..1 (1.0 for rule matches).
    """

    action: str
    target: int | None
    candidates: tuple[int, ...]
    rule: str
    scores: Mapping[int, float] = field(default_factory=dict)


def is_self_placeholder(name: str) -> bool:
    """Whether ``name`` stands for the user ("me", "I", "The User", …; §5.6)."""
    return normalise_name(name) in SELF_PLACEHOLDERS


def _forms(node: StoredNode) -> list[str]:
    """Normalised name and aliases of a node, name first, without repeats."""
    forms = [normalise_name(node.name)]
    for alias in node.aliases:
        norm = normalise_name(alias)
        if norm and norm not in forms:
            forms.append(norm)
    return forms


def _words(norm: str) -> list[str]:
    # Function words ("the", "of") would make "The Smiths" a candidate for
    # "The Beatles"; names made only of them keep all their words.
    tokens = _WORD.findall(norm)
    content = [t for t in tokens if t not in STOP_WORDS]
    return content or tokens


def _contains_words(longer: list[str], shorter: list[str]) -> bool:
    n = len(shorter)
    return any(longer[i : i + n] == shorter for i in range(len(longer) - n + 1))


def _similar(new: str, form: str, threshold: float) -> bool:
    if Levenshtein.normalized_similarity(new, form) > threshold:
        return True
    a, b = _words(new), _words(form)
    if not a or not b:
        return False
    shorter, longer = (a, b) if len(a) <= len(b) else (b, a)
    if _contains_words(longer, shorter):
        return True
    return len(set(a) & set(b)) * 2 >= max(len(a), len(b))


def _best_similarity(new: str, node: StoredNode) -> float:
    return max(Levenshtein.normalized_similarity(new, form) for form in _forms(node))


def _verdict(
    action: str, ids: Sequence[int], rule: str, scores: Mapping[int, float]
) -> MergeVerdict:
    ordered = tuple(sorted(ids))
    target = ordered[0] if action == MERGE else None
    return MergeVerdict(action, target, ordered, rule, {i: scores[i] for i in ordered})


# Person rules, strongest first: a merge or hold names the strongest rule that matched.
_PERSON_RANK = {"nickname": 0, "title": 1, "first-name": 2, "spelling": 3, "short-form": 4,
                "pet-form": 5, "variant": 6}


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


def _different_people(inc: PersonName, form: PersonName, threshold: float) -> bool:
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


def _title_in_doubt(inc: PersonName, inc_gender: str, node: StoredNode) -> bool:
    """A gendered title ("Mr. Brown") matched by surname to a node the graph knows no gender
    of, but whose first name the first-name lists give to the other gender (Lucy Brown)."""
    if not (inc.title and inc_gender) or _node_gender(node):
        return False
    firsts = {parse_person(f).first for f in _forms(node) if len(parse_person(f).words) >= 2}
    return any(name_gender(first) not in ("", inc_gender) for first in firsts)


def _person_verdict(new: str, same_kind: Sequence[StoredNode],
                    mention: Mention) -> MergeVerdict | None:
    """Rules 3a–3e (PERSON): every node one of ``_person_match``'s reasons links to the new
    name is a candidate. Exactly one, and nothing the user said contradicts it → merge —
    unless it is in doubt: a "variant" of the name (held), a gendered title against a first
    name of the other gender (held), or a near-tie: another node, not contradicted, that is
    a plausible reading of the name under the loosest rules (held with it). Several → hold
    among those not contradicted. Only contradicted ones → a new node."""
    inc = parse_person(new)
    inc_gender = mention.gender or gender_of_titles([inc.title])
    found: dict[int, str] = {}
    for node in same_kind:
        for form in _forms(node):
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
        return not contradicts(mention.roles, node.roles, inc_gender, _node_gender(node))

    fitting = [i for i in found if fits(by_id[i])]
    if not fitting:
        return _verdict(NEW, list(found), "contradiction", dict.fromkeys(found, 1.0))
    scores = {i: (1.0 if found[i] != SPELLING else _best_similarity(new, by_id[i]))
              for i in fitting}
    if len(found) > 1:
        return _verdict(HOLD, fitting, f"{rule}-ambiguous", scores)
    only = by_id[fitting[0]]
    if rule == VARIANT:
        return _verdict(HOLD, fitting, VARIANT, scores)
    if rule == "title" and _title_in_doubt(inc, inc_gender, only):
        return _verdict(HOLD, fitting, "title-gender", scores)
    if rule != "title":
        near = [n for n in same_kind
                if n.id != only.id and not n.is_self and fits(n)
                and any(_reading(inc, parse_person(f)) for f in _forms(n))]
        if near:
            scores.update({n.id: _best_similarity(new, n) for n in near})
            return _verdict(HOLD, [only.id, *(n.id for n in near)], f"{rule}-near-tie",
                            scores)
    return _verdict(MERGE, fitting, rule, scores)


def gender_of_titles(titles: Iterable[str]) -> str:
    """"f"/"m" from gendered titles said with a name (Mrs./Mr.), "" when none or mixed."""
    return gender_of((), titles=titles)


def _node_gender(node: StoredNode) -> str:
    return node.gender or gender_of_titles(parse_person(f).title for f in _forms(node))


def _legal_form(norm: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """An organisation's name split into its core words and its trailing legal forms written
    out in full ("Acme Corp." → (("acme",), ("corporation",))), or None without a legal form
    or without a core."""
    words = _WORD.findall(fold_accents(norm))
    forms: list[str] = []
    while len(words) > 1 and words[-1] in _LEGAL_FORMS:
        forms.insert(0, _LEGAL_FORMS[words.pop()])
    return (tuple(words), tuple(forms)) if forms else None


def _one_or_several(ids: Sequence[int], rule: str) -> MergeVerdict:
    action = MERGE if len(ids) == 1 else HOLD
    return _verdict(action, ids, rule if len(ids) == 1 else f"{rule}-ambiguous",
                    dict.fromkeys(ids, 1.0))


def decide_merge(
    name: str,
    kind: str,
    stored: Sequence[StoredNode],
    *,
    hint: str | None = None,
    similarity_threshold: float = SIMILARITY_THRESHOLD,
    mention: Mention | None = None,
) -> MergeVerdict:
    """Apply the merge rules of SPEC §5.6 to one proposed entity.

    Inputs: the entity's cleaned ``name`` and ``kind``, the user's stored nodes (any
    kinds; only same-kind nodes are compared, except by rule 4), the extractor's optional
    ``hint`` ("this might be X"), the similarity threshold (1 − normalised edit distance)
    and what the batch says about the entity (``mention``: roles, gender, and the nodes a
    person settled as different — those are left out of every rule).

    Rules, first that applies wins:
      0. a self placeholder ("me", "the user", …) merges into the self node
         regardless of kind (rule "self"); with no self node yet: new, rule "self";
      1. the same normalised name → merge ("exact"); several → hold;
      2. the name equals a normalised alias of exactly one node → merge ("alias");
         of several → hold ("alias-ambiguous");
      2b. the same name once accents are removed (Zoë/Zoe) → merge ("spelling"), several
         → hold;
      2c. ORG only: the same name with the same legal form written another way (Acme Corp /
         Acme Corporation) → merge ("legal-form"), several → hold;
      3. PERSON only (``_person_verdict``): nickname, title + surname, first name of a
         full name, respelling, clipped or pet form — exactly one candidate that nothing
         contradicts → merge under that rule; several → hold ("<rule>-ambiguous"); a
         variant of the name ("variant"), a gendered title against a first name of the
         other gender ("title-gender") or another plausible reading ("<rule>-near-tie")
         → hold; only contradicted ones → new ("contradiction");
      4. the same name (or alias) on a non-provisional node of another kind, when either
         kind is a catch-all (OTHER, THING) → hold ("other-kind"), never a silent twin;
      5. candidates for review ("similar"): similarity > threshold, or one name's
         words found contiguously in the other's, or sharing at least half the
         words of the longer name (function words ignored) — except two full person
         names that are clearly different people (``_different_people``);
      6. a hint naming a same-kind node's name or alias exactly → hold ("hint");
      7. otherwise new ("none").

    Output: a ``MergeVerdict``; ``scores`` are 1.0 for rule matches (edit similarity for a
    respelling) and the best edit similarity over the node's name and aliases otherwise.
    """
    mention = mention or Mention()
    new = normalise_name(name)
    if is_self_placeholder(name):
        selves = [n.id for n in stored if n.is_self]
        if not selves:
            return MergeVerdict(NEW, None, (), "self", {})
        return _verdict(
            MERGE if len(selves) == 1 else HOLD, selves, "self", dict.fromkeys(selves, 1.0)
        )

    kind = kind.strip().upper()
    usable = [n for n in stored if n.id not in mention.apart]
    same_kind = [n for n in usable if n.kind == kind]
    if not new:
        return MergeVerdict(NEW, None, (), "none", {})

    exact = [n.id for n in same_kind if normalise_name(n.name) == new]
    if exact:
        action = MERGE if len(exact) == 1 else HOLD
        rule = "exact" if len(exact) == 1 else "exact-ambiguous"
        return _verdict(action, exact, rule, dict.fromkeys(exact, 1.0))

    alias = [n.id for n in same_kind if new in _forms(n)[1:]]
    if alias:
        return _one_or_several(alias, "alias")

    folded = fold_accents(new)
    accents = [n.id for n in same_kind if any(fold_accents(f) == folded for f in _forms(n))]
    if accents:
        return _one_or_several(accents, SPELLING)

    if kind == "ORG":
        wanted = _legal_form(new)
        same_company = [n.id for n in same_kind
                        if wanted and any(_legal_form(f) == wanted for f in _forms(n))]
        if same_company:
            return _one_or_several(same_company, "legal-form")

    # Nicknames, titles and first names are facts about people; applied to an ORG or a
    # PLACE ("Will Street") they would only manufacture wrong merges.
    if kind == "PERSON":
        verdict = _person_verdict(new, same_kind, mention)
        if verdict is not None:
            return verdict

    others = [
        n.id for n in usable
        if n.kind != kind and not n.provisional and not n.is_self
        and (kind in CATCH_ALL_KINDS or n.kind in CATCH_ALL_KINDS) and new in _forms(n)
    ]
    if others:
        return _verdict(HOLD, others, "other-kind", dict.fromkeys(others, 1.0))

    inc = parse_person(new) if kind == "PERSON" else None
    similar = [
        n for n in same_kind
        if any(
            _similar(new, f, similarity_threshold)
            and not (inc and _different_people(inc, parse_person(f), similarity_threshold))
            for f in _forms(n)
        )
    ]
    if similar:
        scores = {n.id: _best_similarity(new, n) for n in similar}
        return _verdict(HOLD, [n.id for n in similar], "similar", scores)

    if hint:
        wanted = normalise_name(hint)
        hinted = [n for n in same_kind if wanted and wanted in _forms(n)]
        if hinted:
            scores = {n.id: _best_similarity(new, n) for n in hinted}
            return _verdict(HOLD, [n.id for n in hinted], "hint", scores)

    return MergeVerdict(NEW, None, (), "none", {})


def band_llm_confidence(conf: float) -> str:
    """The band of an LLM merge confidence (SPEC §5.6).

    > 0.90 → "merge"; 0.70 ≤ conf ≤ 0.90 → "merge-flagged" (merge and flag for
    review); < 0.70 (or not a number) → "keep-apart".
    """
    if conf > LLM_MERGE_ABOVE:
        return "merge"
    if conf >= LLM_FLAG_ABOVE:
        return "merge-flagged"
    return "keep-apart"


def pick_llm_candidate(confidences: Mapping[int, float]) -> tuple[int | None, str]:
    """Choose among held candidates from the LLM's confidences (SPEC §5.6).

    Input: candidate node id → confidence 0..1. The highest confidence that
    qualifies (≥ 0.70) wins, ties to the lower id; output ``(id, band)``, or
    ``(None, "keep-apart")`` when none qualifies.
    """
    qualifying = [
        (conf, node_id)
        for node_id, conf in confidences.items()
        if band_llm_confidence(conf) != "keep-apart"
    ]
    if not qualifying:
        return None, "keep-apart"
    conf, node_id = min(qualifying, key=lambda pair: (-pair[0], pair[1]))
    return node_id, band_llm_confidence(conf)
