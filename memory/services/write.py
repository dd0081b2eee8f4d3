"""The Write path's commit (SPEC §3, §5.4–§5.6, §6.2): clean → judge → merge → commit →
reinforce.

``commit_batch`` takes one extractor batch (``pegasus-batch/1``) and writes it into a user's
graph in one transaction under the user's lock; an exception anywhere leaves the graph as it
was. The LLM's merge judgements (``judge_batch``) are asked *before* that lock is taken, so
the lock holds only database work. The pure parts come from ``memory.core`` (cleaning, merge
rules, decay arithmetic); the merge verdicts are committed by ``memory.services.merge``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from django.db import connection

from memory import ports
from memory.core.cleaning import BatchError, clean_batch, normalise_ws
from memory.core.decay import TEMPORARY, reinforce, strength_at
from memory.core.merge_rules import is_self_placeholder, normalise_name
from memory.models import (
    Cardinality,
    Edge,
    EdgeEpisode,
    Episode,
    ExtractionStatus,
    MergeDecision,
    Node,
    NodeEpisode,
    Snippet,
    Traversal,
)
from memory.services import keys, merge
from memory.services import reinforce as reinforcement
from memory.services.graph_io.document import MAX_NAME, MAX_RELATION
from memory.services.graph_io.storable import find_unstorable
from memory.services.locks import user_lock

__all__ = ["Judgements", "WriteSummary", "commit_batch", "judge_batch"]


@dataclass
class WriteSummary:
    """What one commit did; ``to_dict()`` is what ``write_batch --json`` prints.

    Lines name edges ``Source -[RELATION]-> Target``. ``reinforced`` lists edges re-observed
    by the batch, ``crossed`` edges reinforced because a Read of the conversation crossed
    them; ``usage`` counts the tokens of LLM merge judgements.
    """

    episode: int | None = None
    added_nodes: list[str] = field(default_factory=list)
    added_edges: list[str] = field(default_factory=list)
    reinforced: list[str] = field(default_factory=list)
    crossed: list[str] = field(default_factory=list)
    merged: list[dict] = field(default_factory=list)
    held: list[dict] = field(default_factory=list)
    kept_apart: list[dict] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    provisional: list[str] = field(default_factory=list)
    dropped: list[dict] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0

    def to_dict(self) -> dict:
        return {
            "added": {"nodes": list(self.added_nodes), "edges": list(self.added_edges)},
            "reinforced": list(self.reinforced),
            "crossed": list(self.crossed),
            "merged": [dict(m) for m in self.merged],
            "held": [dict(h) for h in self.held],
            "kept_apart": [dict(k) for k in self.kept_apart],
            "superseded": list(self.superseded),
            "provisional": list(self.provisional),
            "dropped": [dict(d) for d in self.dropped],
            "fixes": list(self.fixes),
            "episode": self.episode,
            "usage": {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens},
        }

    def lines(self) -> list[str]:
        """A human-readable report, one item per line (``write_batch``, ``extract --sync``)."""
        out = [f"episode {self.episode}"]

        def section(title: str, items: list[str]) -> None:
            out.append(f"{title}: {len(items)}")
            out.extend(f"  {item}" for item in items)

        section("added nodes", self.added_nodes)
        section("added edges", self.added_edges)
        section("reinforced", self.reinforced)
        section("reinforced (crossed by a Read)", self.crossed)
        section(
            "merged",
            [
                f"{m['name']} → {m['into']} ({m['rule']}"
                f"{', flagged for review' if m.get('flagged') else ''})"
                for m in self.merged
            ],
        )
        section(
            "held for review",
            [f"{h['name']} (candidates: {', '.join(h['candidates'])})" for h in self.held],
        )
        section(
            "kept apart",
            [f"{k['name']} (candidates: {', '.join(k['candidates'])})" for k in self.kept_apart],
        )
        section("superseded", self.superseded)
        section("provisional", self.provisional)
        section("dropped", [f"{d['item']}: {d['reason']}" for d in self.dropped])
        section("fixes", self.fixes)
        return out


@dataclass(frozen=True)
class Judgements:
    """The LLM's merge judgements for one batch, made before the lock (``judge_batch``).

    by_key: ``merge.Judgement`` by ``merge.judgement_key`` (entity + exact candidate ids).
    self_id: the primary key reserved for the self node the batch creates, when the
        judgements were made against it (so their candidate ids name it).
    """

    by_key: Mapping[str, merge.Judgement] = field(default_factory=dict)
    self_id: int | None = None

    def tokens(self) -> tuple[int, int]:
        """(input, output) tokens the judgements spent, used or not."""
        usages = [j.usage for j in self.by_key.values() if j.usage is not None]
        return (
            sum(int(getattr(u, "input_tokens", 0) or 0) for u in usages),
            sum(int(getattr(u, "output_tokens", 0) or 0) for u in usages),
        )


@dataclass
class _Cleaned:
    """A batch cleaned against the graph as it stands (``_clean``)."""

    texts: dict[str, str]
    named: dict[str, Node]
    result: Any  # memory.core.cleaning's CleanResult
    entities: list[dict]
    relations: list[dict]
    names_self: bool
    conversation_text: str


def _line(source: Node, relation: str, target: Node) -> str:
    return f"{source.name} -[{relation}]-> {target.name}"


def _moment(value: str | None) -> datetime | None:
    if not value:
        return None
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


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


def _raw_relations(batch: Any) -> list[dict]:
    relations = batch.get("relations") if isinstance(batch, dict) else None
    return [r for r in relations if isinstance(r, dict)] if isinstance(relations, list) else []


def _nodes_named(user, batch: Any) -> dict[str, Node]:
    """Existing nodes named by the batch's relation ends (normalised name → node), in one
    query. A name carried by nodes of several kinds is ambiguous and left out, so cleaning
    treats it as unknown (a provisional node) rather than guessing a referent."""
    names = {
        normalise_name(v)
        for r in _raw_relations(batch)
        for v in (r.get("source"), r.get("target"))
        if isinstance(v, str)
    }
    names = {n for n in names if n and not is_self_placeholder(n)}
    if not names:
        return {}
    found: dict[str, list[Node]] = defaultdict(list)
    for node in Node.objects.for_user(user).filter(normalised_name__in=names):
        found[node.normalised_name].append(node)
    return {name: nodes[0] for name, nodes in found.items() if len(nodes) == 1}


def _message_ids(values) -> set[int]:
    ids: set[int] = set()
    for value in values:
        text = str(value).strip() if value is not None else ""
        if text.isdigit():
            ids.add(int(text))
    return ids


def _cited_messages(user, batch: Any) -> dict[str, str]:
    """The user's own turns cited by the batch (id string → text); another user's message,
    or an assistant turn, is unknown, so its relations are dropped."""
    ids = _message_ids(r.get("message") for r in _raw_relations(batch))
    return ports.conversations().user_turn_texts(user=user, message_ids=ids)


def _episode(user, episode, data: dict | None, now: datetime) -> Episode:
    if episode is None:
        row = Episode(
            user_id=user.pk, status=ExtractionStatus.DONE, extractor="batch", created_at=now
        )
    else:
        pk = episode.pk if isinstance(episode, Episode) else int(episode)
        row = Episode.objects.for_user(user).select_for_update().filter(pk=pk).first()
        if row is None:
            raise ValueError("episode not found")
    if data:
        if data.get("summary"):
            row.summary = data["summary"]
        row.importance = data.get("importance", row.importance)
        if data.get("tags"):
            row.tags = list(data["tags"])
        row.started_at = row.started_at or _moment(data.get("started_at"))
        row.ended_at = row.ended_at or _moment(data.get("ended_at"))
    row.started_at = row.started_at or now
    row.ended_at = row.ended_at or now
    row.save()
    return row


def _check_batch(batch: Any) -> None:
    unstorable = find_unstorable(batch)
    if unstorable:
        raise BatchError(unstorable)
    self_name = batch.get("self_name") if isinstance(batch, dict) else None
    if isinstance(self_name, str) and len(normalise_ws(self_name)) > MAX_NAME:
        raise BatchError(f"self_name is longer than {MAX_NAME} characters")


def _clean(user, batch: dict, messages: Mapping[str, str] | None) -> _Cleaned:
    """Clean the batch against the graph as it stands: relation ends may name existing
    nodes; ``messages`` None loads the user's own turns the batch cites."""
    texts = dict(messages) if messages is not None else _cited_messages(user, batch)
    named = _nodes_named(user, batch)
    result = clean_batch(
        batch, messages=texts, known_names={name: node.kind for name, node in named.items()}
    )
    clean = result.batch
    _check_lengths(clean)
    entities, relations = clean["entities"], clean["relations"]
    refs = {e["ref"] for e in entities}
    names_self = any(is_self_placeholder(e["name"]) for e in entities) or any(
        end not in refs and is_self_placeholder(end)
        for r in relations
        for end in (r["source"], r["target"])
    )
    conversation_text = "\n".join(texts.values()) or "\n".join(r["snippet"] for r in relations)
    return _Cleaned(texts, named, result, entities, relations, names_self, conversation_text)


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
    from memory import llm

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


def _check_lengths(clean: dict) -> None:
    """Names and labels the cleaned batch would store must fit their columns; one too long
    rejects the batch (``BatchError``) instead of failing in the database."""
    for entity in clean["entities"]:
        if len(entity["name"]) > MAX_NAME:
            raise BatchError(
                f"entity {entity['name'][:40]!r}… has a name longer than {MAX_NAME} characters"
            )
    for relation in clean["relations"]:
        if len(relation["relation"]) > MAX_RELATION:
            raise BatchError(
                f"relation {relation['relation'][:40]!r}… has a label longer "
                f"than {MAX_RELATION} characters"
            )


def _summarise_resolutions(summary: WriteSummary, resolutions) -> None:
    for r in resolutions:
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
