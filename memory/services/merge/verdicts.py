"""The merge rules' verdicts for a batch's entities (read-only): what each entity and each
stored node is to the user, the pairs a person kept apart, and ``decide_merge`` over them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from django.db.models import Q

from memory.core.merge_rules import (
    Mention,
    StoredNode,
    decide_merge,
    is_self_placeholder,
    normalise_name,
)
from memory.core.person_names import gender_of, parse_person, roles_from_relations
from memory.core.person_roles import roles_from_properties
from memory.models import Edge, MergeDecision, MergeStatus, Node


def _stored(node: Node, links: Sequence[tuple[str, bool]] = ()) -> StoredNode:
    properties = node.properties if isinstance(node.properties, dict) else {}
    roles = roles_from_relations(links) | roles_from_properties(properties)
    titles = [parse_person(normalise_name(f)).title for f in [node.name, *node.aliases]]
    return StoredNode(
        id=node.pk,
        kind=node.kind,
        name=node.name,
        aliases=tuple(node.aliases),
        is_self=node.is_self,
        provisional=node.provisional,
        roles=roles,
        gender=gender_of(roles, titles=titles, properties=properties),
        properties=properties,
    )


def _self_links(user, self_node: Node | None, node_ids: Iterable[int]) -> dict[int, list]:
    """For each node, the labels of its live edges with the self node and whether each points
    at the user (``[(label, towards_self)]``): what the user has said the node is to them
    (sister, colleague …). One query."""
    links: dict[int, list[tuple[str, bool]]] = defaultdict(list)
    if self_node is None or self_node.pk is None:
        return links
    ids = [i for i in node_ids if i != self_node.pk]
    rows = (
        Edge.objects.for_user(user)
        .filter(superseded_by__isnull=True)
        .filter(
            Q(source_id=self_node.pk, target_id__in=ids)
            | Q(target_id=self_node.pk, source_id__in=ids)
        )
        .values_list("source_id", "target_id", "relation")
    )
    for source, target, relation in rows:
        if source == self_node.pk:
            links[target].append((relation, False))
        else:
            links[source].append((relation, True))
    return links


def _batch_links(
    entities: Sequence[dict], relations: Sequence[dict], self_node: Node | None
) -> dict[str, list]:
    """The same for the batch: each entity ref's relations with the user (a self placeholder
    or the self node's name or alias at the other end)."""
    self_forms = (
        {normalise_name(f) for f in [self_node.name, *self_node.aliases]}
        if self_node is not None
        else set()
    )
    refs = {e["ref"] for e in entities}

    def is_user(end: str) -> bool:
        return end not in refs and (is_self_placeholder(end) or normalise_name(end) in self_forms)

    links: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    for r in relations:
        source, target = r.get("source", ""), r.get("target", "")
        if is_user(source) and target in refs:
            links[target].append((r.get("relation", ""), False))
        elif is_user(target) and source in refs:
            links[source].append((r.get("relation", ""), True))
    return links


def _settled_apart(user, entities: Sequence[dict]) -> dict[tuple[str, str], set[int]]:
    """Pairs a person (the user in their inbox, or a moderator) settled as different:
    (kind, normalised name) → node ids, from ``kept-apart`` decisions they made (the
    proposed name and aliases against the candidates and the node it was kept from). Such
    a pair is never merged automatically nor asked about again. One query."""
    names = {normalise_name(e["name"]) for e in entities}
    apart: dict[tuple[str, str], set[int]] = defaultdict(set)
    rows = (
        MergeDecision.objects.for_user(user)
        .filter(
            status=MergeStatus.KEPT_APART,
            decided_by__isnull=False,
        )
        .values_list("kind", "proposed", "candidates", "kept_id")
    )
    for kind, proposed, candidates, kept_id in rows:
        proposed = proposed if isinstance(proposed, dict) else {}
        forms = [proposed.get("name"), *(proposed.get("aliases") or [])]
        ids = {c["id"] for c in candidates or [] if isinstance(c, dict) and "id" in c}
        if kept_id is not None:
            ids.add(kept_id)
        for form in forms:
            norm = normalise_name(form) if isinstance(form, str) else ""
            if norm in names:
                apart[(kind, norm)] |= ids
    return apart


def _mention(
    entity: dict, links: Sequence[tuple[str, bool]], apart: Mapping[tuple[str, str], set[int]]
) -> Mention:
    properties = entity.get("properties") or {}
    roles = roles_from_relations(links) | roles_from_properties(properties)
    title = parse_person(normalise_name(entity["name"])).title
    return Mention(
        roles=roles,
        gender=gender_of(roles, titles=[title], properties=properties),
        apart=frozenset(apart.get((entity["kind"], normalise_name(entity["name"])), ())),
        properties=properties,
    )


def _candidate_list(verdict, nodes: Mapping[int, Node]) -> list[dict]:
    return [
        {"id": i, "name": nodes[i].name, "score": round(float(verdict.scores.get(i, 0)), 4)}
        for i in verdict.candidates
        if i in nodes
    ]


# Nodes of other kinds the rules read when the user has a tie to them (round 30): the
# people an occasion is said to be a relative's ("my sister's wedding": Sofia, the sister),
# and a firm and a person holding one role ("the landlord": Mr Okafor, Greystone Estates).
_TIED_KINDS = {"EVENT": ("PERSON",), "PERSON": ("ORG",), "ORG": ("PERSON",)}


def _tied_to(user, column: str, **end):
    """The ids at ``column`` of the user's live edges with the self node at the other end
    (a subquery)."""
    return (
        Edge.objects.for_user(user)
        .filter(superseded_by__isnull=True, **end)
        .values_list(column, flat=True)
    )


def _verdicts(
    user, entities: Sequence[dict], self_node: Node | None, relations: Sequence[dict]
) -> tuple[list[Node], dict[int, Node], list]:
    """The merge rules' verdict for each entity (read-only; four queries whatever the batch):
    the user's nodes of every kind present (plus nodes of any kind sharing a name with an
    entity, for the provisional upgrade and the other-kind hold, and the user's people for
    an event, or firms for a person, tied to the user: ``_TIED_KINDS``), the live edges between
    those nodes and the self node (what each is to the user), and the kept-apart decisions a
    person made (pairs never merged nor asked again). Returns the rows loaded, every node
    considered by id (the self node included) and the verdicts in entity order."""
    kinds = {e["kind"] for e in entities}
    names = {normalise_name(e["name"]) for e in entities}
    loaded = Q(kind__in=kinds) | Q(is_self=True) | Q(normalised_name__in=names)
    tied_kinds = set().union(*(_TIED_KINDS.get(k, ()) for k in kinds)) - kinds
    if tied_kinds and self_node is not None and self_node.pk is not None:
        loaded |= Q(kind__in=tied_kinds) & (
            Q(pk__in=_tied_to(user, "target_id", source_id=self_node.pk))
            | Q(pk__in=_tied_to(user, "source_id", target_id=self_node.pk))
        )
    rows = list(Node.objects.for_user(user).filter(loaded))
    nodes: dict[int, Node] = {n.pk: n for n in rows}
    if self_node is not None:
        nodes[self_node.pk] = self_node
    links = _self_links(user, self_node, nodes)
    stored = [_stored(n, links.get(n.pk, ())) for n in nodes.values()]
    batch_links = _batch_links(entities, relations, self_node)
    apart = _settled_apart(user, entities)
    verdicts = [
        decide_merge(
            entity["name"],
            entity["kind"],
            stored,
            hint=entity.get("hint"),
            mention=_mention(entity, batch_links.get(entity["ref"], ()), apart),
        )
        for entity in entities
    ]
    return rows, nodes, verdicts
