"""Merging referents (SPEC §5.6): proposed entities of a batch into stored nodes, stored nodes
into each other, and the exact undo of both.

Three layers:

* **Resolution** (``ensure_self_node``, ``judge_entities``, ``resolve_entities``) — called by
  ``memory.services.write``: each cleaned entity goes through
  ``memory.core.merge_rules.decide_merge`` against the user's stored nodes of its kind (one
  query for every kind of the batch). Entities the rules hold are judged by the LLM when one
  is configured (``judge_entities``, via
  ``memory.extraction.disambiguation.judge_candidates``) *before* the user's lock is taken;
  ``resolve_entities`` then commits the verdicts under the lock: merged into a node, a new
  node, or held. It never calls the LLM: a held entity without a judgement for exactly its
  candidates (offline, the call failed, or the graph changed meanwhile) stays apart as a new
  node with a ``held`` MergeDecision for a moderator.
* **Stored merges** (``merge_nodes``) — a moderator's or user's merge of two nodes, recorded
  in full so that ``revert_merge`` restores the graph exactly (the absorbed node comes back
  with its primary key, so every reference to it is restored too).
* **Review actions** (``confirm``, ``keep_apart``, ``merge_held``, ``revert_merge``) used by
  the admin console.

Every non-trivial decision is a ``MergeDecision`` row whose ``moved`` records exactly what
changed. An exact-name match, a self placeholder, or a name that is already one of the node's
aliases changes no identity and records nothing.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.utils.dateparse import parse_datetime

from memory.core.merge_rules import (
    HOLD,
    MERGE,
    Mention,
    StoredNode,
    decide_merge,
    is_self_placeholder,
    normalise_name,
    pick_llm_candidate,
)
from memory.core.person_names import gender_of, parse_person, roles_from_relations
from memory.models import (
    Edge,
    EdgeEpisode,
    Episode,
    MergeDecision,
    MergeStatus,
    Node,
    NodeEpisode,
    NodeKind,
    Snippet,
    Traversal,
)
from memory.services import keys
from memory.services.locks import user_lock

__all__ = [
    "Judgement",
    "MergeError",
    "Resolution",
    "confirm",
    "display_name",
    "ensure_self_node",
    "judge_entities",
    "judgement_key",
    "keep_apart",
    "merge_held",
    "merge_nodes",
    "resolve_entities",
    "revert_merge",
]

MAX_NEIGHBOURHOOD_LINES = 30
TRIVIAL_RULES = frozenset({"self", "exact"})


# --- small helpers ----------------------------------------------------------------------------


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _when(value: str | None) -> datetime | None:
    return parse_datetime(value) if value else None


def _actor(by) -> str:
    return by.get_username() if by is not None else "system"


def _log(decision: MergeDecision, *, at: datetime, by, action: str, why: str) -> None:
    decision.log = [
        *decision.log,
        {"at": at.isoformat(), "by": _actor(by), "action": action, "why": why},
    ]


def _known_forms(node: Node) -> set[str]:
    return {normalise_name(form) for form in [node.name, *node.aliases]}


def _add_aliases(node: Node, forms: Iterable[str]) -> list[str]:
    """Append each form that is not already the node's name or an alias (case-insensitive,
    SPEC §5.6 "the new surface form becomes an alias"); return exactly those appended."""
    known = _known_forms(node)
    added: list[str] = []
    for form in forms:
        norm = normalise_name(form)
        if norm and norm not in known:
            known.add(norm)
            added.append(form[:200])
    if added:
        node.aliases = [*node.aliases, *added]
    return added


def _fill_properties(node: Node, properties: Mapping[str, Any]) -> list[str]:
    """New values fill missing keys only (stored facts win on conflict); return the keys
    added."""
    added = [key for key in properties if key not in node.properties]
    if added:
        node.properties = {**node.properties, **{key: properties[key] for key in added}}
    return added


def _undo_node_changes(node: Node, moved: Mapping[str, Any]) -> None:
    """Remove the aliases and property keys a merge added and restore confidence and the
    provisional flag."""
    added = list(moved.get("aliases_added", []))
    aliases = list(node.aliases)
    for alias in reversed(added):  # remove the last occurrence: that is the one appended
        for i in range(len(aliases) - 1, -1, -1):
            if aliases[i] == alias:
                del aliases[i]
                break
    node.aliases = aliases
    added_keys = set(moved.get("properties_added", []))
    node.properties = {k: v for k, v in node.properties.items() if k not in added_keys}
    if "previous_confidence" in moved:
        node.confidence = moved["previous_confidence"]
    if "previous_provisional" in moved:
        node.provisional = moved["previous_provisional"]


def _locked_decision(user, decision) -> MergeDecision:
    pk = decision.pk if isinstance(decision, MergeDecision) else decision
    found = MergeDecision.objects.for_user(user).select_for_update().filter(pk=pk).first()
    if found is None:
        raise ValueError("merge decision not found")
    return found


# --- the self node ---------------------------------------------------------------------------


def display_name(user) -> str:
    """The account's name for its self node: the profile's display name when set, else the
    full name, else the username."""
    try:
        from accounts.models import Profile

        profile_name = (
            Profile.objects.filter(user_id=user.pk).values_list("display_name", flat=True).first()
        )
    except (ImportError, LookupError):  # accounts app absent: fall back to the user row
        profile_name = None
    name = profile_name or user.get_full_name() or user.get_username()
    return " ".join(name.split())[:200]


def _clean_name(value: Any) -> str:
    name = " ".join(value.split())[:200] if isinstance(value, str) else ""
    return "" if not normalise_name(name) or is_self_placeholder(name) else name


def ensure_self_node(
    *,
    user,
    now: datetime,
    self_name: str | None = None,
    self_aliases: Sequence[str] = (),
    self_properties: Mapping | None = None,
    needed: bool = True,
    save: bool = True,
    new_id: int | None = None,
) -> tuple[Node | None, list[str]]:
    """The user's self node (SPEC §5.6), created lazily; call under ``user_lock``.

    With none yet, it is created when ``needed`` (the batch refers to the user) or when the
    batch says who the user is (``self_name``, ``self_aliases``, ``self_properties`` — the
    optional top-level keys of a batch), named ``self_name`` (the user introduced themself)
    else ``display_name(user)``; a name already taken by another PERSON node falls back to the
    next of (self name, display name, username, "Me"). Once created it keeps its identity
    forever. A later ``self_name`` it does not know becomes an alias — except that a self
    node still named after the username (a login, not a name) is renamed to it, the username
    kept as an alias. ``self_aliases`` become aliases; ``self_properties`` fill missing keys.
    A node created takes the primary key ``new_id`` when given (reserved by
    ``write.judge_batch``, so judgements made before the lock name it). With ``save=False``
    nothing is written: the node is returned as it would be (unsaved when new), which is how
    ``write.judge_batch`` sees it before the lock.
    Returns the node (None when not needed and absent) and notes for the write summary.
    """
    notes: list[str] = []
    node = Node.objects.for_user(user).filter(is_self=True).first()
    name = _clean_name(self_name)
    aliases = [a for a in (_clean_name(a) for a in self_aliases or ()) if a]
    properties = dict(self_properties) if isinstance(self_properties, Mapping) else {}
    if node is None:
        if not (needed or name or aliases or properties):
            return None, notes
        taken = set(
            Node.objects.for_user(user)
            .filter(kind=NodeKind.PERSON)
            .values_list("normalised_name", flat=True)
        )
        options = [name, display_name(user), user.get_username(), "Me"]
        chosen = next((o for o in options if o and normalise_name(o) not in taken), "Me (self)")
        node = Node(
            pk=new_id,
            user_id=user.pk,
            kind=NodeKind.PERSON,
            name=chosen,
            normalised_name=normalise_name(chosen),
            is_self=True,
            confidence=1.0,
            created_at=now,
            updated_at=now,
        )
        notes.append(f"self node created as {chosen!r}")
        if name and normalise_name(name) != node.normalised_name:
            _add_aliases(node, [name])
    elif name and normalise_name(name) not in _known_forms(node):
        named_after_login = node.normalised_name == normalise_name(user.get_username())
        clash = (
            Node.objects.for_user(user)
            .filter(kind=node.kind, normalised_name=normalise_name(name))
            .exists()
        )
        if named_after_login and not clash:
            old = node.name
            node.name, node.normalised_name = name, normalise_name(name)
            _add_aliases(node, [old])
            notes.append(f"self node renamed {old!r} → {name!r} ({old!r} kept as an alias)")
        else:
            _add_aliases(node, [name])
            notes.append(f"{name!r} added as an alias of the self node {node.name!r}")
    added = _add_aliases(node, aliases)
    if added:
        notes.append(f"self node aliases added: {', '.join(added)}")
    filled = _fill_properties(node, properties)
    if filled:
        notes.append(f"self node properties added: {', '.join(filled)}")
    if save and (node._state.adding or notes):
        node.updated_at = now
        node.save(force_insert=node._state.adding)
        keys.sync_node_keys(user_id=user.pk, nodes=[node])
    return node, notes


# --- resolution of a batch's entities --------------------------------------------------------


@dataclass
class Resolution:
    """What became of one cleaned entity of a batch.

    outcome: "self" | "matched" (exact/alias, no decision) | "merged" | "flagged" | "new" |
        "upgraded" (a provisional node of the same name took the entity's kind) | "held" |
        "kept-apart".
    decision: an unsaved MergeDecision for non-trivial outcomes (``commit_batch`` completes
        ``moved["edges"]`` and saves it).
    """

    ref: str
    entity: dict
    node: Node
    outcome: str
    rule: str
    decision: MergeDecision | None = None
    candidates: list[dict] = field(default_factory=list)
    created: bool = False
    changed: bool = False  # name/aliases changed: keys need a sync
    usage: Any = None  # tokens of the LLM judgement, when there was one


def _stored(node: Node, links: Sequence[tuple[str, bool]] = ()) -> StoredNode:
    roles = roles_from_relations(links)
    titles = [parse_person(normalise_name(f)).title for f in [node.name, *node.aliases]]
    return StoredNode(
        id=node.pk,
        kind=node.kind,
        name=node.name,
        aliases=tuple(node.aliases),
        is_self=node.is_self,
        provisional=node.provisional,
        roles=roles,
        gender=gender_of(roles, titles=titles, properties=node.properties),
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
    roles = roles_from_relations(links)
    title = parse_person(normalise_name(entity["name"])).title
    return Mention(
        roles=roles,
        gender=gender_of(roles, titles=[title], properties=entity.get("properties") or {}),
        apart=frozenset(apart.get((entity["kind"], normalise_name(entity["name"])), ())),
    )


def _candidate_list(verdict, nodes: Mapping[int, Node]) -> list[dict]:
    return [
        {"id": i, "name": nodes[i].name, "score": round(float(verdict.scores.get(i, 0)), 4)}
        for i in verdict.candidates
        if i in nodes
    ]


def _neighbourhoods(
    user, node_ids: Sequence[int], current: Mapping[int, Node] | None = None
) -> dict[int, list[str]]:
    """Each node's 2-hop neighbourhood as ``A -[REL]-> B: "snippet"`` lines (live edges,
    strongest first), for the LLM judge. Two queries whatever the number of nodes. A node in
    ``current`` is named as it stands there (the self node as this batch will leave it)."""

    def load(ids: Iterable[int]) -> list[Edge]:
        return list(
            Edge.objects.for_user(user)
            .filter(superseded_by__isnull=True, dormant=False)
            .filter(Q(source_id__in=ids) | Q(target_id__in=ids))
            .select_related("source", "target", "snippet")
            .order_by("-strength_at_touch", "id")
        )

    current = current or {}

    def line(edge: Edge) -> str:
        source = current.get(edge.source_id, edge.source)
        target = current.get(edge.target_id, edge.target)
        text = f"{source.name} -[{edge.relation}]-> {target.name}"
        if edge.snippet is not None and edge.snippet.user_id == edge.user_id:
            text += f': "{edge.snippet.text[:200]}"'
        return text

    first = load(node_ids)
    by_node: dict[int, list[Edge]] = defaultdict(list)
    for edge in first:
        by_node[edge.source_id].append(edge)
        by_node[edge.target_id].append(edge)
    hop1 = {
        nid: {e.target_id if e.source_id == nid else e.source_id for e in by_node[nid]}
        for nid in node_ids
    }
    second_ids = set().union(*hop1.values()) - set(node_ids) if hop1 else set()
    for edge in load(second_ids) if second_ids else []:
        by_node[edge.source_id].append(edge)
        by_node[edge.target_id].append(edge)
    out: dict[int, list[str]] = {}
    for nid in node_ids:
        seen: dict[int, Edge] = {e.pk: e for e in by_node[nid]}
        for neighbour in hop1[nid]:
            for edge in by_node[neighbour]:
                seen.setdefault(edge.pk, edge)
        out[nid] = [line(e) for e in list(seen.values())[:MAX_NEIGHBOURHOOD_LINES]]
    return out


@dataclass(frozen=True)
class Judgement:
    """The LLM's answer about one held entity against one exact set of candidates.

    confidences: candidate node id → confidence in 0..1; None when there is no answer (the
        call failed), and the entity is held for a moderator with ``reason``.
    usage: the tokens the call spent (also when it failed part-way).
    """

    confidences: dict[int, float] | None
    reason: str
    usage: Any = None


OFFLINE = "offline: held for a moderator"
UNJUDGED = (
    "the graph changed while the language model was judging (these candidates were "
    "not judged); held for a moderator"
)


def judgement_key(entity: Mapping, candidate_ids: Iterable[int]) -> str:
    """What a judgement answers: this cleaned entity, against exactly these candidates. A
    judgement is used only for the same key, so a candidate that appeared (or went) between
    the judgement and the commit leaves the entity held instead of merged unjudged."""
    return json.dumps([entity, sorted(candidate_ids)], sort_keys=True, default=str)


def _judge(entity: dict, conversation_text: str, candidates: list[dict]) -> Judgement:
    """The LLM's confidences for a held entity (``confidences`` None when the call fails).
    Network: up to ``ANTHROPIC_MAX_RETRIES`` retries of a 60 s call — never call it under
    ``user_lock``."""
    from memory import llm

    if not llm.llm_enabled():
        return Judgement(None, OFFLINE)
    try:
        from memory.extraction.disambiguation import judge_candidates

        confidences, reason, usage = judge_candidates(
            entity=entity,
            conversation_text=conversation_text,
            candidates=candidates,
        )
    except (llm.LLMUnavailable, llm.LLMError) as exc:
        detail = getattr(exc, "detail", None) or str(exc)
        return Judgement(
            None,
            f"language model unavailable ({detail[:300]}); held for a moderator",
            getattr(exc, "usage", None),
        )
    clean: dict[int, float] = {}
    wanted = {c["id"] for c in candidates}
    for key, value in (confidences or {}).items():
        try:
            node_id, conf = int(key), float(value)
        except (TypeError, ValueError):
            continue
        if node_id in wanted:
            clean[node_id] = conf
    return Judgement(clean, reason or "", usage)


def _merge_entity(node: Node, entity: dict, rule: str) -> dict:
    """Commit a proposed entity into ``node`` in memory (the caller saves); return ``moved``.
    A self placeholder ("me", "the user") is never recorded as a name of anyone."""
    previous_conf, previous_prov = node.confidence, node.provisional
    forms = [f for f in [entity["name"], *entity.get("aliases", [])] if not is_self_placeholder(f)]
    aliases = _add_aliases(node, forms)
    props = _fill_properties(node, entity.get("properties") or {})
    node.confidence = max(node.confidence, float(entity.get("confidence", 0.5)))
    if node.provisional and not entity.get("provisional", False):
        node.provisional = False
    return {
        "aliases_added": aliases,
        "properties_added": props,
        "previous_confidence": previous_conf,
        "previous_provisional": previous_prov,
        "rule": rule,
    }


def _decision(
    user,
    *,
    status: str,
    entity: dict,
    rule: str,
    reason: str,
    score: float | None,
    candidates: list[dict],
    kept: Node | None,
    moved: dict,
    episode: Episode | None,
    now: datetime,
) -> MergeDecision:
    proposed = {
        k: entity.get(k)
        for k in ("name", "kind", "aliases", "properties", "confidence", "hint", "provisional")
    }
    return MergeDecision(
        user_id=user.pk,
        status=status,
        kind=entity["kind"],
        rule=rule,
        reason=reason,
        score=score,
        proposed=proposed,
        candidates=candidates,
        kept=kept,
        moved=moved,
        episode=episode,
        created_at=now,
        decided_at=now,
        log=[{"at": now.isoformat(), "by": "system", "action": status, "why": reason}],
    )


def _verdicts(
    user, entities: Sequence[dict], self_node: Node | None, relations: Sequence[dict]
) -> tuple[list[Node], dict[int, Node], list]:
    """The merge rules' verdict for each entity (read-only; four queries whatever the batch):
    the user's nodes of every kind present (plus nodes of any kind sharing a name with an
    entity, for the provisional upgrade and the other-kind hold), the live edges between
    those nodes and the self node (what each is to the user), and the kept-apart decisions a
    person made (pairs never merged nor asked again). Returns the rows loaded, every node
    considered by id (the self node included) and the verdicts in entity order."""
    kinds = {e["kind"] for e in entities}
    names = {normalise_name(e["name"]) for e in entities}
    rows = list(
        Node.objects.for_user(user).filter(
            Q(kind__in=kinds) | Q(is_self=True) | Q(normalised_name__in=names)
        )
    )
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


def judge_entities(
    *,
    user,
    entities: Sequence[dict],
    self_node: Node | None,
    conversation_text: str = "",
    relations: Sequence[dict] = (),
) -> dict[str, Judgement]:
    """Ask the LLM about every entity the merge rules hold (SPEC §5.6); call it *before*
    taking ``user_lock`` (each call may take minutes with retries) and outside any
    transaction. Read-only: the same verdicts ``resolve_entities`` will reach, from the graph
    as it stands now; ``self_node`` as the batch will leave it (unsaved, see
    ``ensure_self_node(save=False)``).

    Each held entity is sent with the conversation and each candidate's name, aliases and
    2-hop neighbourhood. Returns the answers by ``judgement_key``, failures included (a
    failed call holds the entity with its reason); empty offline or when nothing is held.
    """
    from memory import llm

    if not entities or not llm.llm_enabled():
        return {}
    _, nodes, verdicts = _verdicts(user, entities, self_node, relations)
    held = [(e, v) for e, v in zip(entities, verdicts, strict=True) if v.action == HOLD]
    if not held:
        return {}
    current = {self_node.pk: self_node} if self_node is not None else {}
    lines = _neighbourhoods(user, sorted({i for _, v in held for i in v.candidates}), current)
    judgements: dict[str, Judgement] = {}
    for entity, verdict in held:
        judged = [
            {
                "id": c["id"],
                "name": c["name"],
                "kind": nodes[c["id"]].kind,
                "aliases": list(nodes[c["id"]].aliases),
                "neighbourhood": lines.get(c["id"], []),
            }
            for c in _candidate_list(verdict, nodes)
        ]
        judgements[judgement_key(entity, verdict.candidates)] = _judge(
            entity, conversation_text, judged
        )
    return judgements


def resolve_entities(
    *,
    user,
    entities: Sequence[dict],
    self_node: Node | None,
    now: datetime,
    episode: Episode | None,
    relations: Sequence[dict] = (),
    judgements: Mapping[str, Judgement] | None = None,
) -> list[Resolution]:
    """Apply the merge rules (SPEC §5.6) to a cleaned batch's entities; call under the lock.

    The verdicts come from ``_verdicts`` (four queries whatever the batch). ``relations``
    are the cleaned batch's relations: what the batch says each entity is to the user, which
    can contradict a candidate (a sister is not a colleague). A held entity takes the LLM's
    answer from ``judgements`` (``judge_entities``, made before the lock) under its
    ``judgement_key``; none for exactly its candidates — offline, or the graph changed since
    — holds it for a moderator: the LLM is never called here, and nothing merges unjudged.
    The verdicts are committed in bulk: new nodes created, merged nodes updated (alias,
    properties filled, confidence max). Decisions are returned unsaved. Entities created by
    this batch are not candidates for each other (two names the extractor kept apart stay
    apart unless identical, which cleaning already folded).
    """
    if not entities:
        return []
    rows, nodes, verdicts = _verdicts(user, entities, self_node, relations)
    provisional_by_name = {n.normalised_name: n for n in rows if n.provisional and not n.is_self}

    resolutions: list[Resolution] = []
    for entity, verdict in zip(entities, verdicts, strict=True):
        if verdict.action == MERGE:
            resolutions.append(_merged(user, entity, verdict, nodes, episode, now))
        elif verdict.action == HOLD:
            judgement = (judgements or {}).get(judgement_key(entity, verdict.candidates))
            resolutions.append(_held(user, entity, verdict, nodes, judgement, episode, now))
        else:
            resolutions.append(_new_or_upgrade(user, entity, verdict, provisional_by_name, now))

    created = [r.node for r in resolutions if r.created]
    Node.objects.bulk_create(created)
    changed = {
        r.node.pk: r.node
        for r in resolutions
        if not r.created and r.outcome in {"self", "matched", "merged", "flagged", "upgraded"}
    }
    for node in changed.values():
        node.updated_at = now
    if changed:
        Node.objects.bulk_update(
            list(changed.values()),
            ["kind", "aliases", "properties", "confidence", "provisional", "updated_at"],
        )
    for r in resolutions:
        if (
            r.decision is not None
            and r.decision.moved.get("node") is None
            and r.outcome in {"held", "kept-apart"}
        ):
            r.decision.moved = {**r.decision.moved, "node": r.node.pk}
    return resolutions


def _merged(user, entity, verdict, nodes, episode, now) -> Resolution:
    node = nodes[verdict.target]
    moved = _merge_entity(node, entity, verdict.rule)
    changed = bool(moved["aliases_added"])
    # A name that is already one of the node's aliases was established by an earlier
    # decision: matching it again (and learning a property) is not a new identity claim.
    trivial = verdict.rule in TRIVIAL_RULES or (
        verdict.rule == "alias" and not moved["aliases_added"]
    )
    outcome = "self" if verdict.rule == "self" else "matched" if trivial else "merged"
    decision = None
    if not trivial:
        decision = _decision(
            user,
            status=MergeStatus.MERGED,
            entity=entity,
            rule=verdict.rule,
            reason=f"{entity['name']!r} matched {node.name!r} by the {verdict.rule} rule",
            score=1.0,
            candidates=_candidate_list(verdict, nodes),
            kept=node,
            moved=moved,
            episode=episode,
            now=now,
        )
    return Resolution(entity["ref"], entity, node, outcome, verdict.rule, decision, changed=changed)


def _new_node(user, entity: dict, now: datetime) -> Node:
    return Node(
        user_id=user.pk,
        kind=entity["kind"],
        name=entity["name"][:200],
        normalised_name=normalise_name(entity["name"]),
        aliases=[a[:200] for a in entity.get("aliases", [])],
        properties=dict(entity.get("properties") or {}),
        confidence=float(entity.get("confidence", 0.5)),
        provisional=bool(entity.get("provisional", False)),
        created_at=now,
        updated_at=now,
    )


def _new_or_upgrade(user, entity, verdict, provisional_by_name, now) -> Resolution:
    norm = normalise_name(entity["name"])
    candidate = provisional_by_name.get(norm)
    if candidate is not None and not entity.get("provisional") and candidate.kind != entity["kind"]:
        # A node made for an unknown edge end is now named with a kind: same referent, same
        # name — it takes the kind instead of leaving an OTHER twin behind.
        del provisional_by_name[norm]
        candidate.kind = entity["kind"]
        _merge_entity(candidate, entity, "provisional")
        return Resolution(entity["ref"], entity, candidate, "upgraded", "provisional", changed=True)
    return Resolution(
        entity["ref"],
        entity,
        _new_node(user, entity, now),
        "new",
        verdict.rule,
        created=True,
        changed=True,
    )


def _held(user, entity, verdict, nodes, judgement: Judgement | None, episode, now) -> Resolution:
    from memory import llm

    candidates = _candidate_list(verdict, nodes)
    if judgement is None:
        judgement = Judgement(None, UNJUDGED if llm.llm_enabled() else OFFLINE)
    confidences, reason, usage = judgement.confidences, judgement.reason, judgement.usage
    if confidences is None:
        decision = _decision(
            user,
            status=MergeStatus.HELD,
            entity=entity,
            rule=verdict.rule,
            reason=reason,
            score=max((c["score"] for c in candidates), default=None),
            candidates=candidates,
            kept=None,
            moved={},
            episode=episode,
            now=now,
        )
        return Resolution(
            entity["ref"],
            entity,
            _new_node(user, entity, now),
            "held",
            verdict.rule,
            decision,
            candidates,
            created=True,
            changed=True,
            usage=usage,
        )
    for c in candidates:
        c["llm"] = confidences.get(c["id"], 0.0)
    target, band = pick_llm_candidate(confidences)
    if target is None:
        decision = _decision(
            user,
            status=MergeStatus.KEPT_APART,
            entity=entity,
            rule="llm",
            reason=reason or "the language model judged no candidate the same",
            score=max(confidences.values(), default=0.0),
            candidates=candidates,
            kept=None,
            moved={},
            episode=episode,
            now=now,
        )
        return Resolution(
            entity["ref"],
            entity,
            _new_node(user, entity, now),
            "kept-apart",
            "llm",
            decision,
            candidates,
            created=True,
            changed=True,
            usage=usage,
        )
    node = nodes[target]
    moved = _merge_entity(node, entity, "llm")
    status = MergeStatus.MERGED if band == "merge" else MergeStatus.FLAGGED
    decision = _decision(
        user,
        status=status,
        entity=entity,
        rule="llm",
        reason=reason,
        score=confidences[target],
        candidates=candidates,
        kept=node,
        moved=moved,
        episode=episode,
        now=now,
    )
    outcome = "merged" if band == "merge" else "flagged"
    return Resolution(
        entity["ref"],
        entity,
        node,
        outcome,
        "llm",
        decision,
        candidates,
        changed=bool(moved["aliases_added"]),
        usage=usage,
    )


# --- merging two stored nodes -----------------------------------------------------------------


def _edge_row(edge: Edge) -> dict:
    return {
        "id": edge.pk,
        "source": edge.source_id,
        "relation": edge.relation,
        "target": edge.target_id,
        "strength_at_touch": edge.strength_at_touch,
        "last_touched_at": _iso(edge.last_touched_at),
        "confidence": edge.confidence,
        "stability": edge.stability,
        "cardinality": edge.cardinality,
        "expires_at": _iso(edge.expires_at),
        "dormant": edge.dormant,
        "superseded_by": edge.superseded_by_id,
        "snippet": edge.snippet_id,
        "created_at": _iso(edge.created_at),
    }


class MergeError(ValueError):
    """A merge of two stored nodes that cannot be made; ``str(exc)`` is fit to show the
    user, ``field`` names the input at fault (``into``: the node to keep)."""

    def __init__(self, message: str, *, field: str = "into"):
        super().__init__(message)
        self.field = field


def _pk(value) -> int:
    return value.pk if isinstance(value, Node) else int(value)


def merge_nodes(*, user, keep, absorb, reason: str, by=None, now: datetime) -> MergeDecision:
    """Merge the stored node ``absorb`` into ``keep`` (both ``user``'s, same kind); revertible.

    Under ``user_lock``: ``absorb`` is snapshotted in full (row, episodes, key texts) into
    ``decision.absorbed``; its name and aliases become aliases of ``keep``, its properties
    fill ``keep``'s missing keys, ``keep.confidence`` = max; its episodes are cited on
    ``keep``; every edge touching it is remapped to ``keep``, except:

    * an edge between the two (it would become a self-relation) is deleted, recorded in
      full with its snippets, episodes and traversals in ``moved["dropped_edges"]``; edges it
      superseded take its successor (or become live again when it had none);
    * a remapped live edge whose claim (source, relation, target) is already live on
      ``keep`` is *collapsed*: superseded by the surviving edge, which takes the stronger
      current strength with its touch time, the higher confidence, the union of episodes
      and stays dormant only if both were — its previous values are recorded so revert
      restores them. This keeps "one live edge per claim" and is exactly undoable.

    Then ``absorb`` is deleted and ``keep``'s keys synced. ``keep`` and ``absorb`` are nodes
    or ids; a node that is missing or not ``user``'s raises ``MergeError`` (a ``ValueError``;
    the same message either way), as do different kinds, a node merged into itself and an
    absorbed self node — every check of a merge lives here, callers only map the error.
    Returns the ``merged`` decision (rule "manual", ``decided_by`` = ``by``).
    """
    keep_id, absorb_id = _pk(keep), _pk(absorb)
    if keep_id == absorb_id:
        raise MergeError("A node cannot be merged into itself.")
    with user_lock(user.pk):
        found = {
            n.pk: n
            for n in Node.objects.for_user(user)
            .select_for_update()
            .filter(pk__in=[keep_id, absorb_id])
        }
        if len(found) != 2:
            raise MergeError("Cannot merge: node not found.")
        return _merge_stored(user, found[keep_id], found[absorb_id], reason=reason, by=by, now=now)


def _merge_stored(
    user, keep: Node, absorb: Node, *, reason: str, by, now: datetime, rule: str = "manual"
) -> MergeDecision:
    if keep.kind != absorb.kind:
        raise MergeError(
            f"{absorb.name!r} is a {absorb.kind} and {keep.name!r} a {keep.kind}: only nodes "
            "of the same kind can be merged (different kinds are different referents)."
        )
    if absorb.is_self:
        raise MergeError("The self node can only be kept, never absorbed.")
    absorb_episodes = sorted(
        NodeEpisode.objects.for_user(user).filter(node=absorb).values_list("episode_id", flat=True)
    )
    keep_episodes = set(
        NodeEpisode.objects.for_user(user).filter(node=keep).values_list("episode_id", flat=True)
    )
    snapshot = {
        "id": absorb.pk,
        "kind": absorb.kind,
        "name": absorb.name,
        "normalised_name": absorb.normalised_name,
        "aliases": list(absorb.aliases),
        "properties": absorb.properties,
        "confidence": absorb.confidence,
        "provisional": absorb.provisional,
        "is_self": absorb.is_self,
        "created_at": _iso(absorb.created_at),
        "updated_at": _iso(absorb.updated_at),
        "episodes": absorb_episodes,
        "keys": sorted(absorb.keys.values_list("text", flat=True)),
        "decisions_kept": sorted(
            MergeDecision.objects.for_user(user).filter(kept=absorb).values_list("pk", flat=True)
        ),
    }
    moved: dict[str, Any] = {
        "previous_confidence": keep.confidence,
        "previous_provisional": keep.provisional,
        "aliases_added": _add_aliases(keep, [absorb.name, *absorb.aliases]),
        "properties_added": _fill_properties(keep, absorb.properties),
        "episodes_added": [e for e in absorb_episodes if e not in keep_episodes],
    }
    keep.confidence = max(keep.confidence, absorb.confidence)
    keep.provisional = keep.provisional and absorb.provisional

    touching = list(
        Edge.objects.for_user(user).filter(Q(source=absorb) | Q(target=absorb)).order_by("id")
    )
    dropped = [e for e in touching if keep.pk in (e.source_id, e.target_id)]
    dropped_ids = {e.pk for e in dropped}
    remapped = [e for e in touching if e.pk not in dropped_ids]
    moved["remapped"] = [
        {"edge": e.pk, "field": "source" if e.source_id == absorb.pk else "target"}
        for e in remapped
    ]
    for e in remapped:
        if e.source_id == absorb.pk:
            e.source_id = keep.pk
        else:
            e.target_id = keep.pk

    # Edges superseded by a dropped edge take its first surviving successor (or none).
    successor_of = {e.pk: e.superseded_by_id for e in dropped}

    def surviving(edge_id: int | None) -> int | None:
        while edge_id in successor_of:
            edge_id = successor_of[edge_id]
        return edge_id

    orphans = list(
        Edge.objects.for_user(user)
        .filter(superseded_by_id__in=dropped_ids)
        .exclude(pk__in=dropped_ids)
    )
    by_pk = {e.pk: e for e in remapped}
    orphans = [by_pk.get(e.pk, e) for e in orphans]
    moved["resuperseded"] = [{"edge": e.pk, "superseded_by": e.superseded_by_id} for e in orphans]
    for e in orphans:
        e.superseded_by_id = surviving(e.superseded_by_id)

    moved["dropped_edges"] = _snapshot_edges(user, dropped)
    moved["collapsed"] = _collapse(user, keep, remapped, orphans, dropped_ids, now)

    # Remap and re-point first, so that deleting the dropped edges finds nothing left
    # pointing at them (Django's SET_NULL would otherwise revive superseded edges) and no
    # edge still touches ``absorb`` when it goes (CASCADE would delete it silently).
    touched = {e.pk: e for e in [*orphans, *remapped]}
    if touched:
        Edge.objects.bulk_update(list(touched.values()), ["source", "target", "superseded_by"])
    _delete_edges(dropped)
    NodeEpisode.objects.bulk_create(
        [NodeEpisode(user_id=user.pk, node=keep, episode_id=e) for e in moved["episodes_added"]],
        ignore_conflicts=True,
    )
    # Decisions that kept ``absorb`` lose their node (SET_NULL) rather than being pointed at
    # ``keep``: reverting one of them now must fail ("revert the later merge first") instead
    # of undoing its changes on the wrong node. The snapshot lists them for revert.
    absorb.delete()
    keep.updated_at = now
    keep.save(update_fields=["aliases", "properties", "confidence", "provisional", "updated_at"])
    keys.sync_node_keys(user_id=user.pk, nodes=[keep])
    if dropped:
        keys.sync_relation_keys(user_id=user.pk, relations={e.relation for e in dropped})

    decision = MergeDecision(
        user_id=user.pk,
        status=MergeStatus.MERGED,
        kind=keep.kind,
        rule=rule,
        reason=reason,
        score=None,
        proposed={
            "name": absorb.name,
            "kind": absorb.kind,
            "aliases": list(absorb.aliases),
            "properties": absorb.properties,
            "confidence": absorb.confidence,
        },
        candidates=[{"id": keep.pk, "name": keep.name, "score": None}],
        kept=keep,
        absorbed=snapshot,
        moved=moved,
        decided_by=by,
        created_at=now,
        decided_at=now,
    )
    _log(decision, at=now, by=by, action="merged", why=reason)
    decision.save()
    return decision


def _delete_edges(edges: list[Edge]) -> None:
    """Delete edges, successors last: deleting an edge first would make Django null the
    ``superseded_by`` of its predecessor (SET_NULL), reviving it for a moment — and a revived
    edge can clash with its own successor in the "one live edge per claim" index."""
    remaining = {e.pk: e for e in edges}
    while remaining:
        referenced = {e.superseded_by_id for e in remaining.values()}
        wave = [pk for pk in remaining if pk not in referenced] or list(remaining)
        Edge.objects.filter(pk__in=wave).delete()
        for pk in wave:
            del remaining[pk]


def _snapshot_edges(user, edges: list[Edge]) -> list[dict]:
    """Full rows of edges about to be deleted, with everything that cascades from them."""
    ids = [e.pk for e in edges]
    if not ids:
        return []
    snippets: dict[int, list[dict]] = defaultdict(list)
    for s in Snippet.objects.for_user(user).filter(edge_id__in=ids).order_by("id"):
        snippets[s.edge_id].append(
            {
                "id": s.pk,
                "text": s.text,
                "evidence": s.evidence,
                "confidence": s.confidence,
                "episode": s.episode_id,
                "message": s.message_id,
                "created_at": _iso(s.created_at),
            }
        )
    episodes: dict[int, list[int]] = defaultdict(list)
    for edge_id, episode_id in (
        EdgeEpisode.objects.for_user(user)
        .filter(edge_id__in=ids)
        .order_by("episode_id")
        .values_list("edge_id", "episode_id")
    ):
        episodes[edge_id].append(episode_id)
    # Traversals hold edge ids, not keys, and ids are never reused: a restored edge is found
    # again by the Reads that crossed it, so they need no snapshot.
    return [{**_edge_row(e), "snippets": snippets[e.pk], "episodes": episodes[e.pk]} for e in edges]


def _collapse(
    user,
    keep: Node,
    remapped: list[Edge],
    orphans: list[Edge],
    dropped_ids: set[int],
    now: datetime,
) -> list[dict]:
    """Supersede remapped (or revived) edges whose claim is already live on ``keep``."""
    from memory.core.decay import strength_at

    contenders = {
        e.pk: e
        for e in [*remapped, *orphans]
        if e.superseded_by_id is None and e.pk not in dropped_ids
    }
    if not contenders:
        return []
    live: dict[tuple, Edge] = {}
    for e in (
        Edge.objects.for_user(user)
        .filter(superseded_by__isnull=True)
        .filter(Q(source=keep) | Q(target=keep))
        .exclude(pk__in=[*contenders, *dropped_ids])
        .order_by("id")
    ):
        live[(e.source_id, e.relation, e.target_id)] = e
    episodes_of: dict[int, set[int]] = defaultdict(set)
    ids = [*contenders, *(e.pk for e in live.values())]
    for edge_id, episode_id in (
        EdgeEpisode.objects.for_user(user)
        .filter(edge_id__in=ids)
        .values_list("edge_id", "episode_id")
    ):
        episodes_of[edge_id].add(episode_id)
    records: list[dict] = []
    survivors: list[Edge] = []
    for e in sorted(contenders.values(), key=lambda x: x.pk):
        claim = (e.source_id, e.relation, e.target_id)
        into = live.get(claim)
        if into is None:
            live[claim] = e
            continue
        before = {
            "strength_at_touch": into.strength_at_touch,
            "last_touched_at": _iso(into.last_touched_at),
            "dormant": into.dormant,
            "confidence": into.confidence,
        }
        mine = strength_at(e.strength_at_touch, e.stability, e.last_touched_at, now)
        theirs = strength_at(into.strength_at_touch, into.stability, into.last_touched_at, now)
        if mine > theirs:
            into.strength_at_touch, into.last_touched_at = e.strength_at_touch, e.last_touched_at
        into.dormant = into.dormant and e.dormant
        into.confidence = max(into.confidence, e.confidence)
        added = sorted(episodes_of[e.pk] - episodes_of[into.pk])
        episodes_of[into.pk] |= set(added)
        e.superseded_by_id = into.pk
        records.append(
            {"edge": e.pk, "into": into.pk, "into_before": before, "episodes_added": added}
        )
        if into.pk not in contenders:
            survivors.append(into)
    if survivors:
        Edge.objects.bulk_update(
            list({s.pk: s for s in survivors}.values()),
            ["strength_at_touch", "last_touched_at", "dormant", "confidence"],
        )
    EdgeEpisode.objects.bulk_create(
        [
            EdgeEpisode(user_id=user.pk, edge_id=r["into"], episode_id=ep)
            for r in records
            for ep in r["episodes_added"]
        ],
        ignore_conflicts=True,
    )
    # A contender that is itself a survivor is saved with the other remapped edges.
    for r in records:
        if r["into"] in contenders:
            survivor = contenders[r["into"]]
            survivor.save(
                update_fields=["strength_at_touch", "last_touched_at", "dormant", "confidence"]
            )
    return records


# --- revert ----------------------------------------------------------------------------------


def revert_merge(*, user, decision, by=None, now: datetime) -> MergeDecision:
    """Undo a ``merged`` or ``merged-flagged`` decision exactly; status becomes ``reverted``.

    * A merge of two stored nodes (``decision.absorbed`` set): the absorbed node is recreated
      with its primary key and every field, its episodes, aliases and keys; remapped edges
      move back; collapsed edges are live again and their survivors get back their strength,
      touch, dormancy, confidence and episodes; dropped edges are recreated with their ids,
      snippets, episodes and traversals; ``keep`` loses exactly the aliases and property
      keys the merge added and gets back its confidence. ``export_graph`` afterwards equals
      the export before the merge.
    * A merge of a batch's proposed entity into a node: the entity is split back out as its
      own node (from ``decision.proposed``; a new primary key), taking the edges this batch
      created through it (``moved["edges"]``) and its citation of the episode; the node
      loses the aliases and properties the merge added. Reinforcement of edges that existed
      before the batch is not undone.
    * A moderator's merge of a held entity (``moved["merge_decision"]``) reverts that merge.

    Raises ``ValueError`` for another status, a decision not ``user``'s, a kept node that no
    longer exists (revert the later merge first) or a name taken again since.
    """
    with user_lock(user.pk):
        decision = _locked_decision(user, decision)
        _revert_locked(user, decision, by=by, now=now)
        return decision


def _revert_locked(user, decision: MergeDecision, *, by, now: datetime) -> None:
    if decision.status not in (MergeStatus.MERGED, MergeStatus.FLAGGED):
        raise ValueError(f"only merged decisions can be reverted (this one is {decision.status})")
    if "erased_at" in decision.moved:  # memory.services.corrections.erase_expired_history
        raise ValueError(
            "this merge can no longer be undone: its undo window has closed (or "
            "a node it kept was forgotten) and what it recorded was erased"
        )
    linked = decision.moved.get("merge_decision")
    if linked is not None:
        inner = _locked_decision(user, linked)
        if inner.status != MergeStatus.REVERTED:
            _revert_locked(user, inner, by=by, now=now)
    elif decision.absorbed:
        _restore_absorbed(user, decision, now)
    else:
        split = _split_proposed(user, decision, now)
        decision.moved = {**decision.moved, "split_node": split.pk}
    decision.status = MergeStatus.REVERTED
    decision.decided_by, decision.decided_at = by, now
    _log(decision, at=now, by=by, action="reverted", why="merge reverted")
    decision.save()


def _kept_node(user, decision: MergeDecision) -> Node:
    node = (
        Node.objects.for_user(user).select_for_update().filter(pk=decision.kept_id).first()
        if decision.kept_id
        else None
    )
    if node is None:
        raise ValueError(
            "the merged node no longer exists (it was merged again or deleted); "
            "revert the later merge first"
        )
    return node


def _name_free(user, kind: str, name: str) -> None:
    if Node.objects.for_user(user).filter(kind=kind, normalised_name=normalise_name(name)).exists():
        raise ValueError(f"cannot split {name!r} back out: another {kind} node has that name now")


def _restore_absorbed(user, decision: MergeDecision, now: datetime) -> None:
    keep = _kept_node(user, decision)
    snap, moved = decision.absorbed, decision.moved
    _name_free(user, snap["kind"], snap["name"])
    absorbed = Node(
        pk=snap["id"],
        user_id=user.pk,
        kind=snap["kind"],
        name=snap["name"],
        normalised_name=snap["normalised_name"],
        aliases=snap["aliases"],
        properties=snap["properties"],
        confidence=snap["confidence"],
        provisional=snap["provisional"],
        is_self=snap["is_self"],
        created_at=_when(snap["created_at"]),
        updated_at=_when(snap["updated_at"]),
    )
    absorbed.save(force_insert=True)
    live_episodes = set(
        Episode.objects.for_user(user)
        .filter(pk__in=[*snap["episodes"], *moved.get("episodes_added", [])])
        .values_list("pk", flat=True)
    )
    NodeEpisode.objects.bulk_create(
        [
            NodeEpisode(user_id=user.pk, node=absorbed, episode_id=e)
            for e in snap["episodes"]
            if e in live_episodes
        ]
    )
    NodeEpisode.objects.for_user(user).filter(
        node=keep, episode_id__in=moved.get("episodes_added", [])
    ).delete()

    edges = {
        e.pk: e
        for e in Edge.objects.for_user(user).filter(
            pk__in=[
                *(r["edge"] for r in moved.get("remapped", [])),
                *(r["edge"] for r in moved.get("resuperseded", [])),
                *(r["into"] for r in moved.get("collapsed", [])),
            ]
        )
    }
    for record in reversed(moved.get("collapsed", [])):
        into = edges.get(record["into"])
        if into is not None:
            before = record["into_before"]
            into.strength_at_touch = before["strength_at_touch"]
            into.last_touched_at = _when(before["last_touched_at"])
            into.dormant, into.confidence = before["dormant"], before["confidence"]
            EdgeEpisode.objects.for_user(user).filter(
                edge=into, episode_id__in=record["episodes_added"]
            ).delete()
        if record["edge"] in edges:
            edges[record["edge"]].superseded_by_id = None
    for record in moved.get("remapped", []):
        edge = edges.get(record["edge"])
        if edge is not None and getattr(edge, f"{record['field']}_id") == keep.pk:
            setattr(edge, f"{record['field']}_id", absorbed.pk)
    _recreate_edges(user, moved.get("dropped_edges", []))
    for record in moved.get("resuperseded", []):
        if record["edge"] in edges:
            edges[record["edge"]].superseded_by_id = record["superseded_by"]
    if edges:
        Edge.objects.bulk_update(
            list(edges.values()),
            [
                "source",
                "target",
                "superseded_by",
                "strength_at_touch",
                "last_touched_at",
                "dormant",
                "confidence",
            ],
        )
    MergeDecision.objects.for_user(user).filter(pk__in=snap.get("decisions_kept", [])).update(
        kept=absorbed
    )

    _undo_node_changes(keep, moved)
    keep.updated_at = now
    keep.save(update_fields=["aliases", "properties", "confidence", "provisional", "updated_at"])
    keys.sync_node_keys(user_id=user.pk, nodes=[keep, absorbed])
    relations = {e["relation"] for e in moved.get("dropped_edges", [])}
    if relations:
        keys.sync_relation_keys(user_id=user.pk, relations=relations)


def _recreate_edges(user, rows: list[dict]) -> None:
    """Insert dropped edges back with their ids (foreign keys are deferred to commit, so
    edges, their snippets and successors may reference each other in any order)."""
    if not rows:
        return
    existing_edges = set(
        Edge.objects.for_user(user)
        .filter(pk__in=[r["superseded_by"] for r in rows if r["superseded_by"]])
        .values_list("pk", flat=True)
    ) | {r["id"] for r in rows}
    episodes = set(
        Episode.objects.for_user(user)
        .filter(
            pk__in=[e for r in rows for e in r["episodes"]]
            + [s["episode"] for r in rows for s in r["snippets"] if s["episode"]]
        )
        .values_list("pk", flat=True)
    )
    Edge.objects.bulk_create(
        [
            Edge(
                pk=r["id"],
                user_id=user.pk,
                source_id=r["source"],
                relation=r["relation"],
                target_id=r["target"],
                strength_at_touch=r["strength_at_touch"],
                last_touched_at=_when(r["last_touched_at"]),
                confidence=r["confidence"],
                stability=r["stability"],
                cardinality=r["cardinality"],
                expires_at=_when(r["expires_at"]),
                dormant=r["dormant"],
                superseded_by_id=r["superseded_by"]
                if r["superseded_by"] in existing_edges
                else None,
                snippet_id=r["snippet"]
                if any(s["id"] == r["snippet"] for s in r["snippets"])
                else None,
                created_at=_when(r["created_at"]),
            )
            for r in rows
        ]
    )
    from chat.models import Conversation, Message

    message_ids = set(
        Message.objects.for_user(user)
        .filter(pk__in=[s["message"] for r in rows for s in r["snippets"] if s["message"]])
        .values_list("pk", flat=True)
    )
    Snippet.objects.bulk_create(
        [
            Snippet(
                pk=s["id"],
                user_id=user.pk,
                edge_id=r["id"],
                text=s["text"],
                evidence=s["evidence"],
                confidence=s["confidence"],
                episode_id=s["episode"] if s["episode"] in episodes else None,
                message_id=s["message"] if s["message"] in message_ids else None,
                created_at=_when(s["created_at"]),
            )
            for r in rows
            for s in r["snippets"]
        ]
    )
    EdgeEpisode.objects.bulk_create(
        [
            EdgeEpisode(user_id=user.pk, edge_id=r["id"], episode_id=e)
            for r in rows
            for e in r["episodes"]
            if e in episodes
        ]
    )
    # Decisions recorded when a traversal was a row per edge carry those rows (deleted with
    # the edge then): each comes back as a one-edge row of today's shape.
    old = [(r["id"], t) for r in rows for t in r.get("traversals", ())]
    conversations = set(
        Conversation.objects.for_user(user)
        .filter(pk__in=[t["conversation"] for _, t in old])
        .values_list("pk", flat=True)
    )
    Traversal.objects.bulk_create(
        [
            Traversal(
                user_id=user.pk,
                edge_ids=[edge_id],
                conversation_id=t["conversation"],
                crossed_at=_when(t["crossed_at"]),
                applied_at=_when(t["applied_at"]),
            )
            for edge_id, t in old
            if t["conversation"] in conversations
        ]
    )


def _split_proposed(user, decision: MergeDecision, now: datetime) -> Node:
    keep = _kept_node(user, decision)
    proposed, moved = decision.proposed, decision.moved
    _name_free(user, proposed["kind"], proposed["name"])
    node = Node.objects.create(
        user_id=user.pk,
        kind=proposed["kind"],
        name=proposed["name"],
        normalised_name=normalise_name(proposed["name"]),
        aliases=[
            a
            for a in proposed.get("aliases") or []
            if normalise_name(a) != normalise_name(proposed["name"])
        ],
        properties=dict(proposed.get("properties") or {}),
        confidence=float(proposed.get("confidence") or 0.5),
        provisional=bool(proposed.get("provisional")),
        created_at=now,
        updated_at=now,
    )
    records = moved.get("edges", [])
    edges = {
        e.pk: e for e in Edge.objects.for_user(user).filter(pk__in=[r["edge"] for r in records])
    }
    for record in records:
        edge = edges.get(record["edge"])
        if edge is not None and getattr(edge, f"{record['end']}_id") == keep.pk:
            setattr(edge, f"{record['end']}_id", node.pk)
    if edges:
        Edge.objects.bulk_update(list(edges.values()), ["source", "target"])
    if decision.episode_id:
        if moved.get("episode_added"):
            NodeEpisode.objects.for_user(user).filter(
                node=keep, episode_id=decision.episode_id
            ).delete()
        NodeEpisode.objects.create(user_id=user.pk, node=node, episode_id=decision.episode_id)
    _undo_node_changes(keep, moved)
    keep.updated_at = now
    keep.save(update_fields=["aliases", "properties", "confidence", "provisional", "updated_at"])
    keys.sync_node_keys(user_id=user.pk, nodes=[keep, node])
    return node


# --- review actions ---------------------------------------------------------------------------


def confirm(*, user, decision, by, now: datetime) -> MergeDecision:
    """A moderator confirms a flagged merge (``merged-flagged`` → ``merged``). A held decision
    is resolved with ``merge_held`` or ``keep_apart`` instead (``ValueError``)."""
    with user_lock(user.pk):
        decision = _locked_decision(user, decision)
        if decision.status != MergeStatus.FLAGGED:
            raise ValueError(
                f"only a flagged merge can be confirmed (this one is {decision.status})"
            )
        decision.status = MergeStatus.MERGED
        decision.decided_by, decision.decided_at = by, now
        _log(decision, at=now, by=by, action="confirmed", why="a moderator confirmed the merge")
        decision.save()
        return decision


def keep_apart(*, user, decision, by, why: str, now: datetime) -> MergeDecision:
    """A moderator keeps an entity apart from its candidates (status ``kept-apart``).

    Held: its node already stands alone, so only the status changes. Flagged: the merge is
    split back out first, exactly as ``revert_merge`` does for a proposed entity."""
    with user_lock(user.pk):
        decision = _locked_decision(user, decision)
        if decision.status == MergeStatus.FLAGGED:
            if decision.absorbed:
                _restore_absorbed(user, decision, now)
            else:
                split = _split_proposed(user, decision, now)
                decision.moved = {**decision.moved, "node": split.pk}
        elif decision.status != MergeStatus.HELD:
            raise ValueError(
                f"only held or flagged decisions can be kept apart (this one is {decision.status})"
            )
        decision.status = MergeStatus.KEPT_APART
        decision.decided_by, decision.decided_at = by, now
        _log(decision, at=now, by=by, action="kept-apart", why=why)
        decision.save()
        return decision


def merge_held(*, user, decision, into_node_id: int, by, now: datetime) -> MergeDecision:
    """A moderator merges a held entity's node into ``into_node_id`` (one of the candidates
    or any node of the same kind). Runs ``merge_nodes`` (its own revertible decision) and links
    it: the held decision becomes ``merged`` with ``kept`` set and ``moved["merge_decision"]``
    naming the node merge; reverting either reverts the merge. Returns the held decision."""
    with user_lock(user.pk):
        decision = _locked_decision(user, decision)
        if decision.status != MergeStatus.HELD:
            raise ValueError(f"only a held decision can be merged (this one is {decision.status})")
        held_id = decision.moved.get("node")
        nodes = {
            n.pk: n
            for n in Node.objects.for_user(user)
            .select_for_update()
            .filter(pk__in=[held_id, into_node_id])
        }
        if held_id not in nodes:
            raise ValueError("the held entity's node no longer exists")
        if into_node_id not in nodes or into_node_id == held_id:
            raise ValueError("node not found")
        why = f"a moderator merged the held entity {decision.proposed.get('name')!r}"
        inner = _merge_stored(
            user, nodes[into_node_id], nodes[held_id], reason=why, by=by, now=now, rule="moderator"
        )
        decision.status = MergeStatus.MERGED
        decision.kept = nodes[into_node_id]
        decision.moved = {**decision.moved, "merge_decision": inner.pk}
        decision.decided_by, decision.decided_at = by, now
        _log(decision, at=now, by=by, action="merged", why=why)
        decision.save()
        return decision
