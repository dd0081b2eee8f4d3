"""Edges of a commit: ``_EdgeWriter`` collects the batch's new edges, re-observations,
supersessions and snippets in memory and writes them in a fixed number of queries;
``_apply_traversals`` reinforces what the conversation's Reads crossed (SPEC §5.4)."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from django.db import connection

from memory import ports
from memory.core.decay import TEMPORARY, reinforce, strength_at
from memory.models import Cardinality, Edge, EdgeEpisode, Episode, Node, Snippet, Traversal
from memory.services import reinforce as reinforcement
from memory.services.write.batch import _message_ids, _moment
from memory.services.write.summary import WriteSummary


def _line(source: Node, relation: str, target: Node) -> str:
    return f"{source.name} -[{relation}]-> {target.name}"


def _reserve_ids(model, count: int) -> list[int]:
    """Take ``count`` primary keys from ``model``'s sequence. Knowing a new edge's id before
    inserting it lets the edge it supersedes point at it *before* the insert, so the partial
    unique index "one live edge per claim" never sees two live rows (foreign keys are
    deferred to commit, unique indexes are not)."""
    if not count:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [model._meta.db_table, count],
        )
        return sorted(row[0] for row in cursor.fetchall())


class _EdgeWriter:
    """Collects a batch's edge work in memory, then writes it in a fixed number of queries."""

    def __init__(self, user, now: datetime, episode: Episode, summary: WriteSummary):
        self.user, self.now, self.episode, self.summary = user, now, episode, summary
        self.nodes: dict[int, Node] = {}
        self.relations: list[tuple[dict, Node, Node, Any, Any]] = []
        self.new: list[Edge] = []  # edges created (ids reserved, inserted by flush)
        self.touched: list[Edge] = []  # every edge the batch observed, new or not
        self.reinforced_ids: set[int] = set()  # edges reinforced by re-observation
        self._through: dict[str, dict[str, list]] = defaultdict(
            lambda: {"edges": [], "observed": []}
        )

    def add(self, relation: dict, source: Node, target: Node, source_ref, target_ref) -> None:
        self.nodes[source.pk], self.nodes[target.pk] = source, target
        self.relations.append((relation, source, target, source_ref, target_ref))

    def flush(self) -> None:
        if not self.relations:
            return
        existing = list(
            Edge.objects.for_user(self.user)
            .filter(
                superseded_by__isnull=True,
                source_id__in={s.pk for _, s, _, _, _ in self.relations},
                relation__in={r["relation"] for r, _, _, _, _ in self.relations},
            )
            .select_related("source", "target")
            .order_by("id")
        )
        claims = {(e.source_id, e.relation, e.target_id): e for e in existing}
        by_source: dict[tuple[int, str], list[Edge]] = defaultdict(list)
        for edge in existing:
            by_source[(edge.source_id, edge.relation)].append(edge)
        superseded: dict[int, Edge] = {}  # id(old edge) → the new edge that supersedes it
        changed: dict[int, Edge] = {}
        sightings: list[tuple[Edge, dict]] = []
        owned = ports.conversations().existing_message_ids(
            user=self.user, message_ids=_message_ids(r["message"] for r, *_ in self.relations)
        )

        for relation, source, target, source_ref, target_ref in self.relations:
            claim = (source.pk, relation["relation"], target.pk)
            edge = claims.get(claim)
            if edge is not None and id(edge) in superseded:
                edge = None  # superseded earlier in this batch: the claim is stated anew
            if edge is None:
                edge = self._new_edge(relation, source, target)
                claims[claim] = edge
                if relation["cardinality"] == Cardinality.ONE_TO_ONE:
                    for other in by_source[(source.pk, relation["relation"])]:
                        if other.target_id != target.pk and id(other) not in superseded:
                            superseded[id(other)] = edge
                            changed[id(other)] = other
                            self.summary.superseded.append(
                                f"{_line(source, other.relation, self._target(other))} "
                                f"(by → {target.name})"
                            )
                by_source[(source.pk, relation["relation"])].append(edge)
                kind = "edges"
            elif edge.pk is None:
                # Stated again in another turn of this conversation: one more sighting (its
                # snippet and date), not a reinforcement — an edge is new only once.
                kind = "edges"
                if relation.get("occurred"):
                    edge.occurred = relation["occurred"]
            else:
                self._reobserve(edge, relation, source, target)
                changed[id(edge)] = edge
                kind = "observed"
            sightings.append((edge, relation))
            for ref, end in ((source_ref, "source"), (target_ref, "target")):
                if ref is not None and (edge, end) not in self._through[ref.ref][kind]:
                    self._through[ref.ref][kind].append((edge, end))

        new = [e for e, _ in sightings if e.pk is None]
        new = list({id(e): e for e in new}.values())
        new_ids = _reserve_ids(Edge, len(new))
        for edge, pk in zip(new, new_ids, strict=True):
            edge.pk = edge.id = pk
        self.new = new
        for key, old in list(changed.items()):
            if key in superseded:
                old.superseded_by_id = superseded[key].pk

        snippets = self._snippets(sightings, owned)
        # Edges created in this batch (even one superseded later in it) are inserted as they
        # stand; only rows already in the database are updated.
        created = set(new_ids)
        stored = [e for e in changed.values() if e.pk not in created]
        if stored:
            Edge.objects.bulk_update(
                stored,
                [
                    "strength_at_touch",
                    "last_touched_at",
                    "dormant",
                    "confidence",
                    "snippet",
                    "superseded_by",
                    "expires_at",
                    "occurred",
                ],
            )
        Edge.objects.bulk_create(new)
        Snippet.objects.bulk_create(snippets)
        touched = {e.pk: e for e, _ in sightings}
        self.touched = list(touched.values())
        EdgeEpisode.objects.bulk_create(
            [EdgeEpisode(user_id=self.user.pk, edge_id=pk, episode=self.episode) for pk in touched],
            ignore_conflicts=True,
        )

    def _target(self, edge: Edge) -> Node:
        return self.nodes.get(edge.target_id) or edge.target

    def _new_edge(self, relation: dict, source: Node, target: Node) -> Edge:
        stability = relation["stability"]
        expires = _moment(relation["expires_at"]) if stability in TEMPORARY else None
        self.summary.added_edges.append(_line(source, relation["relation"], target))
        return Edge(
            user_id=self.user.pk,
            source_id=source.pk,
            relation=relation["relation"],
            target_id=target.pk,
            strength_at_touch=100.0,
            last_touched_at=self.now,
            confidence=relation["confidence"],
            stability=stability,
            cardinality=relation["cardinality"],
            expires_at=expires,
            dormant=False,
            occurred=relation.get("occurred") or "",
            created_at=self.now,
        )

    def _reobserve(self, edge: Edge, relation: dict, source: Node, target: Node) -> None:
        if edge.pk not in self.reinforced_ids:
            # §5.4: from the *current* strength, S0·e^(−λt), not the stored S0.
            current = strength_at(
                edge.strength_at_touch, edge.stability, edge.last_touched_at, self.now
            )
            edge.strength_at_touch = reinforce(current)
            edge.last_touched_at, edge.dormant = self.now, False
            self.reinforced_ids.add(edge.pk)
            self.summary.reinforced.append(_line(source, edge.relation, target))
        if relation.get("occurred"):
            edge.occurred = relation["occurred"]  # the latest dated sighting
        expires = _moment(relation["expires_at"])
        if (
            expires
            and edge.stability in TEMPORARY
            and (edge.expires_at is None or expires > edge.expires_at)
        ):
            edge.expires_at = expires

    def _snippets(self, sightings, owned: set[int]) -> list[Snippet]:
        """One Snippet per sighting (a repeat of the same words in the same episode is not
        stored twice); an edge's current snippet becomes the sighting only when it is the
        edge's first or more confident than the edge so far (§5.4)."""
        new_ids = {n.pk for n in self.new}
        old_ids = [e.pk for e, _ in sightings if e.pk not in new_ids]
        seen = set(
            Snippet.objects.for_user(self.user)
            .filter(edge_id__in=old_ids, episode=self.episode)
            .values_list("edge_id", "text")
        )
        fresh = [
            (edge, relation)
            for edge, relation in sightings
            if (edge.pk, relation["snippet"]) not in seen
        ]
        ids = _reserve_ids(Snippet, len(fresh))
        rows: list[Snippet] = []
        for (edge, relation), pk in zip(fresh, ids, strict=True):
            seen.add((edge.pk, relation["snippet"]))
            message = relation.get("message")
            message_id = int(message) if message and str(message).isdigit() else None
            rows.append(
                Snippet(
                    pk=pk,
                    user_id=self.user.pk,
                    edge_id=edge.pk,
                    text=relation["snippet"],
                    evidence=relation["evidence"][:500],
                    confidence=relation["confidence"],
                    episode=self.episode,
                    message_id=message_id if message_id in owned else None,
                    occurred=relation.get("occurred") or "",
                    created_at=self.now,
                )
            )
            if edge.snippet_id is None or relation["confidence"] > edge.confidence:
                edge.snippet_id = pk
            edge.confidence = max(edge.confidence, relation["confidence"])
        for edge, relation in sightings:  # a repeated sighting still counts for confidence
            edge.confidence = max(edge.confidence, relation["confidence"])
        return rows

    def edges_through(self, ref: str) -> dict[str, list]:
        """For a merge decision: the edges this batch created through the entity ``ref``
        (with the end it used) — what a revert moves back — and those it re-observed."""
        through = self._through.get(ref, {"edges": [], "observed": []})
        return {
            "edges": [{"edge": e.pk, "end": end} for e, end in through["edges"]],
            "observed": [{"edge": e.pk, "end": end} for e, end in through["observed"]],
        }


def _apply_traversals(
    user, conversation, reobserved: set[int], now: datetime, summary: WriteSummary
) -> None:
    """Reinforce the edges the conversation's Reads crossed, once each, except those already
    reinforced by re-observation in this batch (SPEC §5.4: each edge once per conversation);
    mark every pending row applied so a second Write of the conversation skips them.

    Each row holds one turn's crossed edge ids: an edge crossed in several turns is reinforced
    once, an edge already applied by an earlier Write of the conversation is not again, and an
    id whose edge no longer exists (forgotten, merged away) or is not the user's is skipped."""
    rows = Traversal.objects.for_user(user).filter(conversation=conversation)
    pending = rows.filter(applied_at__isnull=True)
    crossed: set[int] = set()
    for ids in pending.values_list("edge_ids", flat=True):
        crossed.update(ids)
    if crossed:
        for ids in rows.filter(applied_at__isnull=False).values_list("edge_ids", flat=True):
            crossed.difference_update(ids)
    crossed -= reobserved
    edges = (
        list(
            Edge.objects.for_user(user)
            .filter(pk__in=crossed)
            .select_related("source", "target")
            .order_by("id")
        )
        if crossed
        else []
    )
    if edges:
        reinforcement.reinforce_edges(user_id=user.pk, edge_ids=[e.pk for e in edges], now=now)
        for edge in edges:
            summary.crossed.append(_line(edge.source, edge.relation, edge.target))
    pending.update(applied_at=now)
