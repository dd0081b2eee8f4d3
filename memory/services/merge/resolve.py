"""Resolution of a batch's entities under the user's lock: merged into a node, a new node,
or held (SPEC §5.6)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memory.core.merge_properties import distinguishing_label
from memory.core.merge_rules import (
    HOLD,
    MERGE,
    is_self_placeholder,
    normalise_name,
    pick_llm_candidate,
)
from memory.models import Episode, MergeDecision, MergeStatus, Node
from memory.services.merge.common import _add_aliases, _fill_properties
from memory.services.merge.judge import OFFLINE, UNJUDGED, Judgement, judgement_key
from memory.services.merge.verdicts import _candidate_list, _verdicts

TRIVIAL_RULES = frozenset({"self", "exact"})


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
    _free_names(created, rows)
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


def _free_names(created: Sequence[Node], rows: Sequence[Node]) -> None:
    """A new node whose name a stored node of its kind already has — a second referent of
    one name, told apart by what was said of it (``merge_properties``: Luna the neighbour's
    dog beside Luna the cat) — is named with what tells it apart, "Luna (dog)", or a number,
    and keeps the name as said among its aliases, since a node's name is unique per kind
    (SPEC §4). ``rows`` are all the user's nodes of the batch's kinds."""
    taken = {(n.kind, n.normalised_name) for n in rows}
    for node in created:
        if (node.kind, node.normalised_name) not in taken:
            taken.add((node.kind, node.normalised_name))
            continue
        label = distinguishing_label(node.kind, node.properties)
        tries = [f"{node.name} ({label})"] if label else []
        tries += [f"{node.name} ({i})" for i in range(2, 100)]
        for name in tries:
            if (node.kind, normalise_name(name)) not in taken:
                said = node.name
                node.name, node.normalised_name = name[:200], normalise_name(name[:200])
                node.aliases = [said, *(a for a in node.aliases if a != said)]
                break
        taken.add((node.kind, node.normalised_name))


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


def _apart(
    user,
    entity: dict,
    status: str,
    rule: str,
    reason: str,
    score: float | None,
    candidates: list[dict],
    *,
    episode: Episode | None,
    now: datetime,
    usage: Any,
) -> Resolution:
    """The entity stands apart as a new node, with its decision: ``held`` for a moderator
    (no judgement) or ``kept-apart`` (the LLM judged no candidate the same)."""
    decision = _decision(
        user,
        status=status,
        entity=entity,
        rule=rule,
        reason=reason,
        score=score,
        candidates=candidates,
        kept=None,
        moved={},
        episode=episode,
        now=now,
    )
    outcome = "held" if status == MergeStatus.HELD else "kept-apart"
    node = _new_node(user, entity, now)
    return Resolution(
        entity["ref"],
        entity,
        node,
        outcome,
        rule,
        decision,
        candidates,
        created=True,
        changed=True,
        usage=usage,
    )


def _held(user, entity, verdict, nodes, judgement: Judgement | None, episode, now) -> Resolution:
    from lib import llm

    candidates = _candidate_list(verdict, nodes)
    if judgement is None:
        judgement = Judgement(None, UNJUDGED if llm.llm_enabled() else OFFLINE)
    confidences, reason, usage = judgement.confidences, judgement.reason, judgement.usage
    target = band = None
    if confidences is None:
        apart = (
            MergeStatus.HELD,
            verdict.rule,
            reason,
            max((c["score"] for c in candidates), default=None),
        )
    else:
        for c in candidates:
            c["llm"] = confidences.get(c["id"], 0.0)
        target, band = pick_llm_candidate(confidences)
        why = reason or "the language model judged no candidate the same"
        apart = (MergeStatus.KEPT_APART, "llm", why, max(confidences.values(), default=0.0))
    if target is None:
        status, rule, why, score = apart
        return _apart(
            user,
            entity,
            status,
            rule,
            why,
            score,
            candidates,
            episode=episode,
            now=now,
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
