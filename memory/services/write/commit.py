"""The entry points: ``judge_batch`` (the LLM's merge judgements, before the lock) and
``commit_batch`` (clean → self node → resolve → edges → traversals → citations → merge
decisions → keys, in one transaction under the user lock)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from memory.core.merge_rules import is_self_placeholder, normalise_name
from memory.models import MergeDecision, Node, NodeEpisode
from memory.services import keys, merge
from memory.services.locks import user_lock
from memory.services.write.batch import _check_batch, _clean, _Cleaned, _episode
from memory.services.write.edges import _apply_traversals, _EdgeWriter, _reserve_ids
from memory.services.write.summary import Judgements, WriteSummary


def _self_node(user, cleaned: _Cleaned, now: datetime, **options):
    clean = cleaned.result.batch
    # The cleaned self fields (instruction-like or malformed ones are dropped by cleaning).
    return merge.ensure_self_node(
        user=user,
        now=now,
        self_name=clean.get("self_name"),
        self_aliases=clean.get("self_aliases", ()),
        self_properties=clean.get("self_properties"),
        needed=cleaned.names_self,
        **options,
    )


def judge_batch(
    *, user, batch: dict, now: datetime, messages: Mapping[str, str] | None = None
) -> Judgements:
    """Ask the LLM about the batch's held entities (SPEC §5.6) before ``commit_batch`` takes
    the user's lock. Call it outside any transaction: a judgement is a network call of up to
    60 s per attempt, with retries. Reads the graph and writes nothing (it may take one id
    from the node sequence for a self node the batch will create). Offline, or when the
    rules hold nothing, no request is made. Raises ``BatchError`` as ``commit_batch`` does.
    """
    from lib import llm

    _check_batch(batch)
    if not llm.llm_enabled():
        return Judgements()
    cleaned = _clean(user, batch, messages)
    if not cleaned.entities:
        return Judgements()
    self_node, _ = _self_node(user, cleaned, now, save=False)
    self_id = None
    if self_node is not None and self_node.pk is None:
        self_id = self_node.pk = _reserve_ids(Node, 1)[0]
    by_key = merge.judge_entities(
        user=user,
        entities=cleaned.entities,
        self_node=self_node,
        conversation_text=cleaned.conversation_text,
        relations=cleaned.relations,
    )
    return Judgements(by_key, self_id if by_key else None)


def commit_batch(
    *,
    user,
    batch: dict,
    now: datetime,
    episode=None,
    messages: Mapping[str, str] | None = None,
    conversation=None,
    judgements: Judgements | None = None,
) -> WriteSummary:
    """Clean, merge and commit one batch into ``user``'s graph (SPEC §5.4–§5.6).

    Inputs: the batch (``pegasus-batch/1``, §6.2; an optional top-level ``self_name`` is the
    name the user introduced themself by); ``now`` (aware); the ``episode`` it belongs to
    (instance or id; ``None`` creates a done episode, as ``write_batch`` does); ``messages``,
    the cited turns' texts by message id (``None``: the user's own turns cited by the batch
    are loaded); ``conversation``, whose logged Read traversals are applied; ``judgements``,
    the LLM's merge judgements from ``judge_batch`` (``None``: asked here, before the lock —
    pass them when calling inside a transaction, so no network call runs in it).

    In one transaction under ``user_lock`` (no network call inside it):

    1. clean (``memory.core.cleaning.clean_batch``): relation ends may name existing nodes;
    2. the self node is ensured when the batch refers to the user; entities are resolved by
       the merge rules (``merge.resolve_entities``), a held entity by its judgement; one
       without a judgement for exactly its current candidates (the graph changed since) is
       held for a moderator, never merged;
    3. relation ends resolve to a batch ref, a self placeholder, or an existing node's name;
       an end merged onto the other end drops the relation (no self-relations);
    4. a relation whose claim (source, relation, target) is already a non-superseded edge
       re-observes it: reinforced once from its *current* decayed strength
       (``min(S + 15, 100)``, touch = now, dormancy cleared), confidence = max, the sighting
       stored as a Snippet and made current only when its confidence is higher. Otherwise a
       new edge (strength 100) with its snippet; a one_to_one edge supersedes the
       non-superseded edges with the same (source, relation) and another target;
    5. the conversation's unapplied Traversal rows reinforce their edges once, except edges
       already re-observed here, and are marked applied;
    6. the episode takes the batch's summary, importance and tags; nodes and edges cite it;
       keys are synced.

    Committing the same batch for the same episode twice creates no duplicate node, edge or
    snippet (the second run reinforces). Raises ``BatchError`` for a malformed batch — one
    holding anything PostgreSQL cannot store (``graph_io.find_unstorable``: NUL, unpaired
    surrogates, non-finite numbers, deep nesting) or a name or label longer than its column
    included — and ``ValueError`` for an episode or conversation not ``user``'s, or an
    incognito one.
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"now must be a timezone-aware datetime, got {now!r}")
    _check_batch(batch)
    if conversation is not None:
        if conversation.user_id != user.pk:
            raise ValueError("conversation not found")
        if conversation.incognito:
            raise ValueError("an incognito conversation is never written to memory")
    if judgements is None:
        judgements = judge_batch(user=user, batch=batch, now=now, messages=messages)
    with user_lock(user.pk):
        return _commit(user, batch, now, episode, messages, conversation, judgements)


def _commit(
    user, batch, now, episode, messages, conversation, judgements: Judgements
) -> WriteSummary:
    # Cleaned again under the lock: the graph may have changed since ``judge_batch``.
    cleaned = _clean(user, batch, messages)
    result, named = cleaned.result, cleaned.named
    summary = WriteSummary(
        fixes=list(result.fixes),
        dropped=[{"item": d.item, "reason": d.reason} for d in result.drops],
    )
    summary.input_tokens, summary.output_tokens = judgements.tokens()
    episode = _episode(user, episode, result.batch.get("episode"), now)
    summary.episode = episode.pk

    relations = cleaned.relations
    self_node, notes = _self_node(user, cleaned, now, new_id=judgements.self_id)
    summary.fixes.extend(notes)

    resolutions = merge.resolve_entities(
        user=user,
        entities=cleaned.entities,
        self_node=self_node,
        now=now,
        episode=episode,
        relations=relations,
        judgements=judgements.by_key,
    )
    by_ref = {r.ref: r for r in resolutions}
    _summarise_resolutions(summary, resolutions)

    def end_node(value: str) -> Node | None:
        if value in by_ref:
            return by_ref[value].node
        if is_self_placeholder(value):
            return self_node
        return named.get(normalise_name(value))

    writer = _EdgeWriter(user, now, episode, summary)
    for relation in relations:
        source, target = end_node(relation["source"]), end_node(relation["target"])
        item = f"relation {relation['source']} -[{relation['relation']}]-> {relation['target']}"
        if source is None or target is None:
            summary.dropped.append({"item": item, "reason": "end could not be resolved"})
            continue
        if source.pk == target.pk:
            summary.dropped.append({"item": item, "reason": "self-relation after merge"})
            continue
        writer.add(
            relation, source, target, by_ref.get(relation["source"]), by_ref.get(relation["target"])
        )
    writer.flush()

    if conversation is not None:
        _apply_traversals(user, conversation, writer.reinforced_ids, now, summary)

    # Every node the batch mentions cites the episode (SPEC §4 "the episodes it appeared in").
    cited = {r.node.pk for r in resolutions}
    cited |= {pk for edge in writer.touched for pk in (edge.source_id, edge.target_id)}
    had = set(
        NodeEpisode.objects.for_user(user)
        .filter(episode=episode, node_id__in=cited)
        .values_list("node_id", flat=True)
    )
    NodeEpisode.objects.bulk_create(
        [NodeEpisode(user_id=user.pk, node_id=pk, episode=episode) for pk in sorted(cited - had)]
    )
    decisions = []
    for r in resolutions:
        if r.decision is None:
            continue
        if r.decision.kept_id is not None:
            # What a revert needs to split the entity back out (merge.revert_merge).
            r.decision.moved = {
                **r.decision.moved,
                "episode_added": r.node.pk not in had,
                **writer.edges_through(r.ref),
            }
        decisions.append(r.decision)
    MergeDecision.objects.bulk_create(decisions)

    changed = [r.node for r in resolutions if r.changed]
    keys.sync_node_keys(user_id=user.pk, nodes=list({n.pk: n for n in changed}.values()))
    keys.sync_relation_keys(user_id=user.pk, relations={e.relation for e in writer.new})
    return summary


def _summarise_resolutions(summary: WriteSummary, resolutions) -> None:
    for r in resolutions:
        summary.outcomes[r.outcome] = summary.outcomes.get(r.outcome, 0) + 1
        summary.entities[r.ref] = {"outcome": r.outcome, "node": r.node.name, "rule": r.rule}
        name = r.entity["name"]
        if r.created:
            summary.added_nodes.append(r.node.name)
            if r.entity.get("provisional"):
                summary.provisional.append(r.node.name)
        if r.outcome in ("merged", "flagged"):
            summary.merged.append(
                {
                    "name": name,
                    "into": r.node.name,
                    "rule": r.rule,
                    "flagged": r.outcome == "flagged",
                }
            )
        elif r.outcome == "upgraded":
            summary.fixes.append(f"provisional node {r.node.name!r} is now a {r.node.kind}")
        elif r.outcome == "held":
            summary.held.append({"name": name, "candidates": [c["name"] for c in r.candidates]})
        elif r.outcome == "kept-apart":
            summary.kept_apart.append(
                {"name": name, "candidates": [c["name"] for c in r.candidates]}
            )
