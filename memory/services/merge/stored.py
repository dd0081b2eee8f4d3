"""Merging two stored nodes, recorded in full so that ``revert_merge`` restores the graph
exactly."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from django.db.models import Q

from memory.models import Edge, EdgeEpisode, MergeDecision, MergeStatus, Node, NodeEpisode, Snippet
from memory.services import keys
from memory.services.edges import delete_edge_rows, edge_row
from memory.services.locks import user_lock
from memory.services.merge.common import _add_aliases, _fill_properties, _iso, _log


def _edge_row(edge: Edge) -> dict:
    return {**edge_row(edge), "snippet": edge.snippet_id, "created_at": _iso(edge.created_at)}


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
    delete_edge_rows(user, [e.pk for e in dropped])
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
