"""The deterministic merge rules (SPEC §5.6); the merge service commits the verdicts.

Asymmetry drives every choice here: a wrong merge destroys two identities, a
missed merge is a fixable duplicate. So a rule merges only when exactly one
stored node qualifies; anything ambiguous or merely similar is held for review
(the LLM or a moderator), and an extractor's hint can send to review, never merge.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from nicknames import NickNamer
from rapidfuzz.distance import Levenshtein

from memory.core.cleaning import SELF_PLACEHOLDERS, normalise_name
from memory.core.words import STOP_WORDS

__all__ = [
    "LLM_FLAG_ABOVE",
    "LLM_MERGE_ABOVE",
    "SIMILARITY_THRESHOLD",
    "MergeVerdict",
    "StoredNode",
    "band_llm_confidence",
    "decide_merge",
    "is_self_placeholder",
    "name_group",
    "normalise_name",
    "pick_llm_candidate",
]

SIMILARITY_THRESHOLD = 0.80
LLM_MERGE_ABOVE = 0.90
LLM_FLAG_ABOVE = 0.70

MERGE = "merge"
HOLD = "hold"
NEW = "new"

_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class StoredNode:
    """An existing node of the user, as the rules see it."""

    id: int
    kind: str
    name: str
    aliases: tuple[str, ...] = ()
    is_self: bool = False


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


@lru_cache(maxsize=1)
def _nicknamer() -> NickNamer:
    # Parsing the bundled table takes tens of milliseconds: do it once, and only
    # when a merge first needs it (not at import time).
    return NickNamer()


@lru_cache(maxsize=4096)
def name_group(first_name: str) -> frozenset[str]:
    """The nickname group of a (normalised) first name: itself, its nicknames and
    the names it is a nickname of. The table is many-to-many, so "bill" gives
    william, robert, will, … — which is why several matches only hold."""
    nn = _nicknamer()
    return frozenset({first_name} | nn.nicknames_of(first_name) | nn.canonicals_of(first_name))


def _forms(node: StoredNode) -> list[str]:
    """Normalised name and aliases of a node, name first, without repeats."""
    forms = [normalise_name(node.name)]
    for alias in node.aliases:
        norm = normalise_name(alias)
        if norm and norm not in forms:
            forms.append(norm)
    return forms


def _nickname_match(new: str, stored: str) -> bool:
    """Same word count, same words after the first, first words in one group."""
    a, b = new.split(" "), stored.split(" ")
    if len(a) != len(b) or a[1:] != b[1:]:
        return False
    return a[0] in name_group(b[0]) or b[0] in name_group(a[0])


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


def decide_merge(
    name: str,
    kind: str,
    stored: Sequence[StoredNode],
    *,
    hint: str | None = None,
    similarity_threshold: float = SIMILARITY_THRESHOLD,
) -> MergeVerdict:
    """Apply the merge rules of SPEC §5.6 to one proposed entity.

    Inputs: the entity's cleaned ``name`` and ``kind``, the user's stored nodes (any
    kinds; only same-kind nodes are compared), the extractor's optional ``hint``
    ("this might be X"), and the similarity threshold (1 − normalised edit distance).

    Rules, first that applies wins:
      0. a self placeholder ("me", "the user", …) merges into the self node
         regardless of kind (rule "self"); with no self node yet: new, rule "self";
      1. the same normalised name → merge ("exact"); several → hold;
      2. the name equals a normalised alias of exactly one node → merge ("alias");
         of several → hold ("alias-ambiguous");
      3. PERSON only: a node whose name or alias has the same word count, the same
         words after the first, and a first word in the same nickname group →
         exactly one: merge ("nickname"); several: hold ("nickname-ambiguous");
      4. candidates for review ("similar"): similarity > threshold, or one name's
         words found contiguously in the other's, or sharing at least half the
         words of the longer name (function words ignored);
      5. a hint naming a same-kind node's name or alias exactly → hold ("hint");
      6. otherwise new ("none").

    Output: a ``MergeVerdict``; ``scores`` are 1.0 for rule matches (0–3) and the best
    edit similarity over the node's name and aliases otherwise.
    """
    new = normalise_name(name)
    if is_self_placeholder(name):
        selves = [n.id for n in stored if n.is_self]
        if not selves:
            return MergeVerdict(NEW, None, (), "self", {})
        return _verdict(
            MERGE if len(selves) == 1 else HOLD, selves, "self", dict.fromkeys(selves, 1.0)
        )

    same_kind = [n for n in stored if n.kind == kind.strip().upper()]
    if not new or not same_kind:
        return MergeVerdict(NEW, None, (), "none", {})

    exact = [n.id for n in same_kind if normalise_name(n.name) == new]
    if exact:
        action = MERGE if len(exact) == 1 else HOLD
        rule = "exact" if len(exact) == 1 else "exact-ambiguous"
        return _verdict(action, exact, rule, dict.fromkeys(exact, 1.0))

    alias = [n.id for n in same_kind if new in _forms(n)[1:]]
    if alias:
        action = MERGE if len(alias) == 1 else HOLD
        rule = "alias" if len(alias) == 1 else "alias-ambiguous"
        return _verdict(action, alias, rule, dict.fromkeys(alias, 1.0))

    # Nicknames are a fact about people's first names; applied to an ORG or a PLACE
    # ("Will Street") they would only manufacture wrong merges.
    if kind.strip().upper() == "PERSON":
        nick = [n.id for n in same_kind if any(_nickname_match(new, f) for f in _forms(n))]
        if nick:
            action = MERGE if len(nick) == 1 else HOLD
            rule = "nickname" if len(nick) == 1 else "nickname-ambiguous"
            return _verdict(action, nick, rule, dict.fromkeys(nick, 1.0))

    similar = [
        n for n in same_kind if any(_similar(new, f, similarity_threshold) for f in _forms(n))
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
