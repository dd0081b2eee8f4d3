"""What the merge rules work on and return (SPEC §5.6): stored nodes, what the batch says
about a proposed entity, and the verdict. Pure dataclasses, no Django."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz.distance import Levenshtein

from memory.core.cleaning import normalise_name

__all__ = [
    "HOLD",
    "MERGE",
    "NEW",
    "Mention",
    "MergeVerdict",
    "StoredNode",
    "best_similarity",
    "make_verdict",
    "node_forms",
]

MERGE = "merge"
HOLD = "hold"
NEW = "new"


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
    # The node's stored properties (species, city, role …): ``merge_properties``.
    properties: Mapping[str, object] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Mention:
    """What the incoming batch says about the proposed entity besides its name: its roles
    for the user and gender (as for ``StoredNode``), and the nodes a person already settled
    as *not* this entity (kept-apart decisions): those are never merged nor asked again,
    and the properties the batch gives it (``merge_properties``)."""

    roles: frozenset[str] = frozenset()
    gender: str = ""
    apart: frozenset[int] = frozenset()
    properties: Mapping[str, object] = field(default_factory=dict, compare=False)


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


def node_forms(node: StoredNode) -> list[str]:
    """Normalised name and aliases of a node, name first, without repeats."""
    return list(_forms(node.name, node.aliases))


@lru_cache(maxsize=65536)
def _forms(name: str, aliases: tuple[str, ...]) -> tuple[str, ...]:
    # Every rule asks for a node's forms, once per stored node and decision: normalised once.
    forms = [normalise_name(name)]
    for alias in aliases:
        norm = normalise_name(alias)
        if norm and norm not in forms:
            forms.append(norm)
    return tuple(forms)


def best_similarity(new: str, node: StoredNode) -> float:
    """The best edit similarity (0..1) of a normalised name to the node's name and aliases."""
    return max(Levenshtein.normalized_similarity(new, form) for form in node_forms(node))


def make_verdict(
    action: str, ids: Sequence[int], rule: str, scores: Mapping[int, float]
) -> MergeVerdict:
    """A verdict over ``ids`` (ascending); a merge targets the lowest id."""
    ordered = tuple(sorted(ids))
    target = ordered[0] if action == MERGE else None
    return MergeVerdict(action, target, ordered, rule, {i: scores[i] for i in ordered})
