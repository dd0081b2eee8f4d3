"""The exact undo of a merge: a stored merge, a batch's proposed entity, a held entity
merged by a moderator."""

from __future__ import annotations

from datetime import datetime

from memory import ports
from memory.core.merge_rules import normalise_name
from memory.models import (
    Edge,
    EdgeEpisode,
    Episode,
    MergeDecision,
    MergeStatus,
    Node,
    NodeEpisode,
    Snippet,
    Traversal,
)
from memory.services import keys
from memory.services.locks import user_lock
from memory.services.merge.common import _locked_decision, _log, _undo_node_changes, _when

# The columns of an edge record (``memory.services.edges.edge_row``) and of its snippets'
# records (``stored._snapshot_edges``) restored as they are.
EDGE_VALUES = ("relation", "strength_at_touch", "confidence", "stability", "cardinality", "dormant")
SNIPPET_VALUES = ("text", "evidence", "confidence")


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
                target_id=r["target"],
                **{column: r[column] for column in EDGE_VALUES},
                last_touched_at=_when(r["last_touched_at"]),
                expires_at=_when(r["expires_at"]),
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
    message_ids = ports.conversations().existing_message_ids(
        user=user,
        message_ids=[s["message"] for r in rows for s in r["snippets"] if s["message"]],
    )
    Snippet.objects.bulk_create(
        [
            Snippet(
                pk=s["id"],
                user_id=user.pk,
                edge_id=r["id"],
                **{column: s[column] for column in SNIPPET_VALUES},
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
    conversations = ports.conversations().existing_conversation_ids(
        user=user, conversation_ids=[t["conversation"] for _, t in old]
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
