"""Validation of a whole ``pegasus-graph/1`` document into a ``ParsedGraph``, without
touching the database (SPEC §6.1)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from memory.core.cleaning import OCCURRED_PATTERN, RELATION_LABEL
from memory.core.decay import TEMPORARY
from memory.core.merge_rules import normalise_name
from memory.models import Cardinality, Edge, NodeKind, Stability
from memory.services.graph_io.document import (
    FORMAT,
    MAX_EVIDENCE,
    MAX_NAME,
    MAX_RELATION,
    MAX_TAG,
    GraphFormatError,
    GraphTooLargeError,
    ParsedEdge,
    ParsedEpisode,
    ParsedGraph,
    ParsedNode,
)
from memory.services.graph_io.fields import _describe, _Item, _quoted
from memory.services.graph_io.storable import find_unstorable

_OCCURRED = re.compile(OCCURRED_PATTERN)


def _occurred(item) -> str:
    """An edge's optional ``occurred`` (``""`` when absent), checked against its pattern."""
    value = item.text("occurred", default="", max_length=21).strip()
    if not _OCCURRED.match(value):
        raise item.fail(
            f'"occurred" must be YYYY, YYYY-MM, YYYY-MM-DD or a day range '
            f"YYYY-MM-DD/YYYY-MM-DD, got {_quoted(value)}"
        )
    return value


# Computed once: Django's ``TextChoices.values`` rebuilds its list on every access, which
# showed up as a third of the validation time of a 100 000-edge graph.
_KINDS = frozenset(NodeKind.values)
_STABILITIES = frozenset(Stability.values)
_CARDINALITIES = frozenset(Cardinality.values)

_EPISODE_FIELDS = frozenset(("id", "started_at", "ended_at", "summary", "importance", "tags"))
_NODE_FIELDS = frozenset(
    (
        "id",
        "kind",
        "name",
        "aliases",
        "properties",
        "confidence",
        "provisional",
        "is_self",
        "episodes",
    )
)
_EDGE_FIELDS = frozenset(
    (
        "id",
        "source",
        "relation",
        "target",
        "strength",
        *Edge.STATE_FIELDS,
        "superseded_by",
        "episodes",
        "snippet",
        "occurred",
    )
)
_SNIPPET_FIELDS = frozenset(("text", "evidence"))


def _section(data: Mapping, key: str) -> list:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise GraphFormatError(f'"{key}" must be a list, got {_describe(value)}')
    return value


def _cap(name: str, default: int) -> int:
    from django.conf import settings

    return int(getattr(settings, name, default))


def _check_import_caps(data: Mapping) -> None:
    """Counts per document, checked before any item is parsed: a graph import holds the
    user's write lock, and its cost grows with nodes, edges and keys (each alias is a key to
    embed). Settings: GRAPH_IMPORT_MAX_NODES (default 20 000), GRAPH_IMPORT_MAX_EDGES
    (100 000), GRAPH_IMPORT_MAX_ALIASES (50 000 in all)."""
    for key, setting, default in (
        ("nodes", "GRAPH_IMPORT_MAX_NODES", 20_000),
        ("edges", "GRAPH_IMPORT_MAX_EDGES", 100_000),
        ("episodes", "GRAPH_IMPORT_MAX_NODES", 20_000),
    ):
        count, limit = len(_section(data, key)), _cap(setting, default)
        if count > limit:
            raise GraphTooLargeError(
                f'"{key}" has {count} items; one import takes at most {limit} (split the file)'
            )
    aliases = sum(
        len(n["aliases"])
        for n in _section(data, "nodes")
        if isinstance(n, Mapping) and isinstance(n.get("aliases"), list)
    )
    limit = _cap("GRAPH_IMPORT_MAX_ALIASES", 50_000)
    if aliases > limit:
        raise GraphTooLargeError(
            f"the nodes have {aliases} aliases in all; one import takes at most {limit} "
            "(split the file)"
        )


def _check_node_caps(item: _Item, properties: Mapping) -> None:
    """Per node: at most GRAPH_MAX_ALIASES_PER_NODE aliases (default 100) and
    GRAPH_MAX_PROPERTIES_BYTES of properties as compact JSON (default 16 384)."""
    aliases = item.raw.get("aliases")
    limit = _cap("GRAPH_MAX_ALIASES_PER_NODE", 100)
    if isinstance(aliases, list) and len(aliases) > limit:
        raise item.fail(f'"aliases" has {len(aliases)} entries; a node has at most {limit}')
    size = len(
        json.dumps(properties, ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8", "surrogatepass"
        )
    )
    limit = _cap("GRAPH_MAX_PROPERTIES_BYTES", 16_384)
    if size > limit:
        raise item.fail(f'"properties" is {size} bytes as JSON; a node has at most {limit}')


def _unique_label(item: _Item, seen: dict[str, str], section: str) -> str:
    label = item.label()
    if label in seen:
        raise item.fail(f"repeats the id of {seen[label]}; ids must be unique among {section}")
    seen[label] = item.where
    return label


def parse_graph(data: Any, *, default_touch: datetime | None = None) -> ParsedGraph:
    """Validate a ``pegasus-graph/1`` document (SPEC §6.1) without touching the database.

    Inputs: the decoded JSON; ``default_touch`` is the ``last_touched_at`` of edges that omit
    it (the import's ``now``; required only if some edge omits it).

    Checks every field's type and range, the relation label pattern, no self-relations, expiry
    only on time_bound/ephemeral edges, unique ids per section, that every reference resolves,
    unique (kind, normalised name) among nodes, at most one self node, at most one live edge
    per (source, relation, target), no supersession cycles, and — anywhere in the document —
    nothing PostgreSQL cannot store (``find_unstorable``). Raises ``GraphFormatError`` naming
    the first bad item.
    """
    if not isinstance(data, Mapping):
        raise GraphFormatError(f"a graph must be a JSON object, got {_describe(data)}")
    # Numbers are range-checked field by field below, and nesting only matters in the one
    # free-form field, properties (checked below too): elsewhere a nested value is a type error.
    unstorable = find_unstorable(data, finite=False, max_depth=None)
    if unstorable:
        raise GraphFormatError(unstorable)
    if data.get("format") != FORMAT:
        raise GraphFormatError(
            f'"format" must be "{FORMAT}", got {_describe(data.get("format", None))}'
        )
    unknown = sorted(set(data) - {"format", "nodes", "edges", "episodes"})
    if unknown:
        raise GraphFormatError(
            "unknown top-level field(s): " + ", ".join(_quoted(name)[1:-1] for name in unknown)
        )
    _check_import_caps(data)

    episodes: dict[str, ParsedEpisode] = {}
    seen: dict[str, str] = {}
    for i, raw in enumerate(_section(data, "episodes")):
        item = _Item(f"episodes[{i}]", raw, _EPISODE_FIELDS)
        label = _unique_label(item, seen, "episodes")
        started = item.moment("started_at", default=None, nullable=True)
        ended = item.moment("ended_at", default=None, nullable=True)
        if started and ended and ended < started:
            raise item.fail('"ended_at" is before "started_at"')
        episodes[label] = ParsedEpisode(
            label=label,
            started_at=started,
            ended_at=ended,
            summary=item.text("summary", default=""),
            importance=item.number("importance", 0, 1, default=0.5),
            tags=item.strings("tags", max_length=MAX_TAG, default=[]),
        )

    nodes: dict[str, ParsedNode] = {}
    seen, by_name = {}, {}
    self_node: str | None = None
    for i, raw in enumerate(_section(data, "nodes")):
        item = _Item(f"nodes[{i}]", raw, _NODE_FIELDS)
        label = _unique_label(item, seen, "nodes")
        kind = item.choice("kind", _KINDS)
        name = item.text("name", max_length=MAX_NAME, allow_empty=False)
        normalised = normalise_name(name)
        if not normalised or len(normalised) > MAX_NAME:
            raise item.fail(f'"name" {_describe(name)} has no usable characters')
        if (kind, normalised) in by_name:
            raise item.fail(
                f"{kind} {_quoted(name)} repeats {by_name[kind, normalised]}; names are unique per "
                "kind (ignoring case, spacing and surrounding punctuation)"
            )
        by_name[kind, normalised] = item.where
        properties = item._get("properties", {})
        if not isinstance(properties, dict):
            raise item.fail(f'"properties" must be an object, got {_describe(properties)}')
        unstorable = find_unstorable(properties, root="properties")
        if unstorable:
            raise item.fail(unstorable)
        _check_node_caps(item, properties)
        is_self = item.boolean("is_self", default=False)
        if is_self:
            if self_node is not None:
                raise item.fail(f"is a second self node ({self_node} is already the self node)")
            self_node = item.where
        nodes[label] = ParsedNode(
            label=label,
            kind=kind,
            name=name,
            normalised_name=normalised,
            aliases=item.strings("aliases", max_length=MAX_NAME, default=[]),
            properties=properties,
            confidence=item.number("confidence", 0, 1, default=0.5),
            provisional=item.boolean("provisional", default=False),
            is_self=is_self,
            episodes=item.labels("episodes", episodes, "an episode"),
        )

    edges: dict[str, ParsedEdge] = {}
    seen, live = {}, {}
    where: dict[str, _Item] = {}
    for i, raw in enumerate(_section(data, "edges")):
        item = _Item(f"edges[{i}]", raw, _EDGE_FIELDS)
        label = _unique_label(item, seen, "edges")
        source = item.text("source")
        target = item.text("target")
        for end, value in (("source", source), ("target", target)):
            if value not in nodes:
                raise item.fail(
                    f'"{end}" names {_quoted(value)}, which is not a node in this graph'
                )
        if source == target:
            raise item.fail("source and target are the same node (no self-relations)")
        relation = item.text("relation", max_length=MAX_RELATION)
        if not RELATION_LABEL.match(relation):
            raise item.fail(
                f'"relation" {_describe(relation)} is not an uppercase, verb-first label of '
                "1-4 words joined by _ (e.g. WORKS_AT)"
            )
        stability = item.choice("stability", _STABILITIES, default=Stability.STABLE)
        expires_at = item.moment("expires_at", default=None, nullable=True)
        if expires_at is not None and stability not in TEMPORARY:
            raise item.fail(
                f'"expires_at" is only allowed on time_bound or ephemeral edges, not {stability}'
            )
        if default_touch is None and "last_touched_at" not in item.raw:
            raise item.fail('"last_touched_at" is required')
        superseded_by = item._get("superseded_by", None)
        if superseded_by is not None and not isinstance(superseded_by, str):
            raise item.fail(
                f'"superseded_by" must be an edge id or null, got {_describe(superseded_by)}'
            )
        if superseded_by == label:
            raise item.fail("an edge cannot supersede itself")
        snippet_raw = item._get("snippet", None)
        snippet = None
        if snippet_raw is not None:
            inner = _Item(f"{item.where}: snippet", snippet_raw, _SNIPPET_FIELDS)
            snippet = (
                inner.text("text", allow_empty=False),
                inner.text("evidence", default="", max_length=MAX_EVIDENCE),
            )
        edge = ParsedEdge(
            label=label,
            source=source,
            relation=relation,
            target=target,
            strength=item.number("strength", 0, 100, default=100.0),
            last_touched_at=item.moment("last_touched_at", default=default_touch),
            confidence=item.number("confidence", 0, 1, default=0.5),
            stability=stability,
            cardinality=item.choice("cardinality", _CARDINALITIES, default=Cardinality.ONE_TO_MANY),
            expires_at=expires_at,
            dormant=item.boolean("dormant", default=False),
            superseded_by=superseded_by,
            episodes=item.labels("episodes", episodes, "an episode"),
            snippet=snippet,
            occurred=_occurred(item),
        )
        if superseded_by is None:
            claim = (source, relation, target)
            if claim in live:
                raise item.fail(
                    f"a second live edge {source} -[{relation}]-> {target} (also "
                    f"{live[claim]}); only one may have superseded_by null"
                )
            live[claim] = item.where
        edges[label] = edge
        where[label] = item

    for label, edge in edges.items():
        if edge.superseded_by is not None and edge.superseded_by not in edges:
            raise where[label].fail(
                f'"superseded_by" names {_quoted(edge.superseded_by)}, which is not an edge in '
                "this graph"
            )
    _reject_supersession_cycles(edges, where)
    return ParsedGraph(list(episodes.values()), list(nodes.values()), list(edges.values()))


def _reject_supersession_cycles(
    edges: Mapping[str, ParsedEdge], where: Mapping[str, _Item]
) -> None:
    # Each edge has at most one successor, so following the chain from every edge finds any
    # cycle; ``done`` holds edges already known to end at a live edge (linear overall).
    done: set[str] = set()
    for start in edges:
        path: list[str] = []
        on_path: set[str] = set()
        label: str | None = start
        while label is not None and label not in done:
            if label in on_path:
                cycle = [*path[path.index(label) :], label]
                raise where[start].fail("supersession cycle " + " → ".join(cycle))
            path.append(label)
            on_path.add(label)
            label = edges[label].superseded_by
        done.update(path)
