"""Import: a validated document written under the user's lock with COPY, then its
MemoryKeys (SPEC §6.1)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import JSONField

from memory.models import (
    Edge,
    EdgeEpisode,
    Episode,
    ExtractionStatus,
    Node,
    NodeEpisode,
    Snippet,
)
from memory.services import keys
from memory.services.graph_io.document import (
    MAX_LISTED_CONFLICTS,
    GraphConflictError,
    ParsedGraph,
    _user_id,
)
from memory.services.graph_io.fields import _quoted
from memory.services.graph_io.parse import parse_graph
from memory.services.locks import user_lock


@dataclass
class ImportSummary:
    """What ``import_graph`` created, and where its time went (seconds: ``validate`` the
    document, write the ``rows``, build the ``keys`` — embedding included)."""

    nodes: int = 0
    edges: int = 0
    episodes: int = 0
    snippets: int = 0
    node_keys: int = 0
    relation_keys: int = 0
    seconds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        return (
            f"{self.nodes} nodes, {self.edges} edges, {self.episodes} episodes, "
            f"{self.snippets} snippets, {self.node_keys + self.relation_keys} keys "
            f"({self.node_keys} node, {self.relation_keys} relation)"
        )


def _labels_to_ids(model, items: list) -> dict[str, int]:
    """Take one id per item from ``model``'s sequence, keyed by the item's label.

    Knowing ids before inserting lets every row be written complete in one pass: an edge
    points at its successor (``superseded_by``) and its current snippet although they are
    inserted later. The foreign keys are DEFERRABLE INITIALLY DEFERRED, so they are checked
    at commit, when every row is in.
    """
    if not items:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [model._meta.db_table, len(items)],
        )
        ids = sorted(row[0] for row in cursor.fetchall())
    return {item.label: pk for item, pk in zip(items, ids, strict=True)}


def _copy_rows(model, columns: Sequence[str], rows: Iterable[Sequence]) -> int:
    """Write ``rows`` (tuples of values for the fields named in ``columns``) into ``model``'s
    table with one COPY; return how many.

    COPY of plain tuples is several times faster than ``bulk_create`` for 10⁵ rows (model
    instances and per-value field preparation dominated the import's time). Every other
    concrete field, except an unnamed primary key (left to the identity column), gets its
    model default, prepared once; JSON values are adapted as Django adapts them.
    """
    named = [model._meta.get_field(name) for name in columns]
    rest = [f for f in model._meta.concrete_fields if f not in named and not f.primary_key]
    constants = tuple(f.get_db_prep_save(f.get_default(), connection) for f in rest)
    json_at = [(i, f.encoder) for i, f in enumerate(named) if isinstance(f, JSONField)]
    sql_columns = ", ".join(connection.ops.quote_name(f.column) for f in named + rest)
    table = connection.ops.quote_name(model._meta.db_table)
    count = 0
    with (
        connection.cursor() as cursor,
        cursor.copy(f"COPY {table} ({sql_columns}) FROM STDIN") as copy,
    ):
        for row in rows:
            if json_at:
                row = list(row)
                for i, encoder in json_at:
                    row[i] = connection.ops.adapt_json_value(row[i], encoder)
            copy.write_row((*row, *constants))
            count += 1
    return count


def _check_conflicts(user_id: int, graph: ParsedGraph) -> None:
    wanted = {(n.kind, n.normalised_name) for n in graph.nodes}
    existing = (
        Node.objects.for_user(user_id)
        .filter(normalised_name__in={n.normalised_name for n in graph.nodes})
        .order_by("kind", "normalised_name")
        .values_list("kind", "normalised_name", "name")
    )
    clashes = [f"{kind} {_quoted(name)}" for kind, norm, name in existing if (kind, norm) in wanted]
    if clashes:
        listed = ", ".join(clashes[:MAX_LISTED_CONFLICTS])
        more = len(clashes) - MAX_LISTED_CONFLICTS
        raise GraphConflictError(
            f"{len(clashes)} node{'s' if len(clashes) > 1 else ''} of this graph already "
            f"exist{'s' if len(clashes) == 1 else ''} in the account: {listed}"
            + (f" and {more} more" if more > 0 else "")
            + "; nothing was imported"
        )
    new_self = next((n for n in graph.nodes if n.is_self), None)
    if new_self is not None:
        current = Node.objects.for_user(user_id).filter(is_self=True).first()
        if current is not None:
            raise GraphConflictError(
                f"the graph's self node {_quoted(new_self.name)} cannot be added: the account "
                f"already has its self node {_quoted(current.name)}; nothing was imported"
            )


def import_graph(
    *, user, data: Any, now: datetime, progress: Callable[[str], None] | None = None
) -> ImportSummary:
    """Add a ``pegasus-graph/1`` document to ``user``'s graph (SPEC §6.1); all or nothing.

    Inputs: ``user`` (instance or id), ``data`` (decoded JSON), ``now`` (aware; the rows'
    ``created_at``, and the touch time of edges that omit ``last_touched_at``).
    ``progress`` receives a short line per step (commands print it).

    One transaction under ``user_lock``: episodes (status ``skipped``: they come from a file,
    not a conversation to extract), nodes, their episode links, edges with supersession,
    expiry, dormancy and stored strength exactly as given, each edge's snippet (its current
    one; confidence = the edge's, episode = the last episode the edge lists), edge episode
    links, then MemoryKeys for every new name, alias and relation label. Raises
    ``GraphFormatError`` for an invalid document and ``GraphConflictError`` when a node's
    (kind, normalised name) or a self node already exists in the account.
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"now must be a timezone-aware datetime, got {now!r}")
    say = progress or (lambda line: None)
    summary = ImportSummary()
    started = time.perf_counter()
    graph = parse_graph(data, default_touch=now)
    summary.seconds["validate"] = time.perf_counter() - started
    user_id = _user_id(user)

    with user_lock(user_id):
        step = time.perf_counter()
        _check_conflicts(user_id, graph)
        with_snippet = [e for e in graph.edges if e.snippet is not None]
        episode_id = _labels_to_ids(Episode, graph.episodes)
        node_id = _labels_to_ids(Node, graph.nodes)
        edge_id = _labels_to_ids(Edge, graph.edges)
        snippet_id = _labels_to_ids(Snippet, with_snippet)

        _copy_rows(
            Episode,
            ["id", "user", *Episode.CONTENT_FIELDS, "status", "created_at"],
            (
                (
                    episode_id[e.label],
                    user_id,
                    e.summary,
                    e.importance,
                    e.tags,
                    e.started_at,
                    e.ended_at,
                    ExtractionStatus.SKIPPED.value,
                    now,
                )
                for e in graph.episodes
            ),
        )
        _copy_rows(
            Node,
            ["id", "user", *Node.CONTENT_FIELDS, "created_at", "updated_at"],
            (
                (
                    node_id[n.label],
                    user_id,
                    n.kind,
                    n.name,
                    n.normalised_name,
                    n.aliases,
                    n.properties,
                    n.confidence,
                    n.provisional,
                    n.is_self,
                    now,
                    now,
                )
                for n in graph.nodes
            ),
        )
        _copy_rows(
            NodeEpisode,
            ["user", "node", "episode"],
            (
                (user_id, node_id[n.label], episode_id[label])
                for n in graph.nodes
                for label in n.episodes
            ),
        )
        say(f"{len(graph.nodes)} nodes, {len(graph.episodes)} episodes written")
        _copy_rows(
            Edge,
            [
                "id",
                "user",
                "source",
                "relation",
                "target",
                "strength_at_touch",
                *Edge.STATE_FIELDS,
                "superseded_by",
                "snippet",
                "occurred",
                "created_at",
            ],
            (
                (
                    edge_id[e.label],
                    user_id,
                    node_id[e.source],
                    e.relation,
                    node_id[e.target],
                    e.strength,
                    *(getattr(e, field) for field in Edge.STATE_FIELDS),
                    edge_id[e.superseded_by] if e.superseded_by else None,
                    snippet_id.get(e.label),
                    e.occurred,
                    now,
                )
                for e in graph.edges
            ),
        )
        _copy_rows(
            Snippet,
            [
                "id",
                "user",
                "edge",
                "text",
                "evidence",
                "confidence",
                "episode",
                "occurred",
                "created_at",
            ],
            (
                (
                    snippet_id[e.label],
                    user_id,
                    edge_id[e.label],
                    e.snippet[0],
                    e.snippet[1],
                    e.confidence,
                    episode_id[e.episodes[-1]] if e.episodes else None,
                    e.occurred,
                    now,
                )
                for e in with_snippet
            ),
        )
        _copy_rows(
            EdgeEpisode,
            ["user", "edge", "episode"],
            (
                (user_id, edge_id[e.label], episode_id[label])
                for e in graph.edges
                for label in e.episodes
            ),
        )
        summary.seconds["rows"] = time.perf_counter() - step
        say(f"{len(graph.edges)} edges, {len(with_snippet)} snippets written")

        step = time.perf_counter()
        # sync_node_keys reads only pk, name and aliases: unsaved instances carrying the
        # reserved ids stand in for the rows just copied.
        nodes = [Node(id=node_id[n.label], name=n.name, aliases=n.aliases) for n in graph.nodes]
        summary.node_keys = keys.sync_node_keys(user_id=user_id, nodes=nodes)
        summary.relation_keys = keys.sync_relation_keys(
            user_id=user_id, relations={e.relation for e in graph.edges}
        )
        summary.seconds["keys"] = time.perf_counter() - step
        say(f"{summary.node_keys + summary.relation_keys} keys embedded")

    summary.nodes, summary.edges = len(nodes), len(graph.edges)
    summary.episodes, summary.snippets = len(graph.episodes), len(with_snippet)
    summary.seconds["total"] = time.perf_counter() - started
    return summary
