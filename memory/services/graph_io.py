"""Export and import of a user's whole graph as ``pegasus-graph/1`` JSON (SPEC §6.1).

Export: every node, edge and episode of one user, ordered by primary key, each ``id`` a
stable label made from the row's key (``n<pk>`` nodes, ``x<pk>`` edges, ``e<pk>`` episodes).
``strength`` is the stored ``strength_at_touch`` (not the decayed value), datetimes are UTC
ISO 8601, an edge's ``snippet`` is its *current* snippet (``{"text", "evidence"}``) or null.

Import: ids are labels only, meaningful inside the document. The whole document is validated
first (``parse_graph``, no database access) and any problem is one ``GraphFormatError`` whose
message names the bad item (``edges[3] (id "x7"): ...``). Rows are then written in one
transaction under the user's lock, with COPY, followed by their MemoryKeys (embedding names,
aliases and relation labels with the current model). Importing into an account that already
has a graph *adds* to it; a node that would collide with an existing one on (kind, normalised
name), or a second self node, rejects the whole import (``GraphConflictError``) and nothing is
written — merging two graphs is a job for the merge path, not for a file import.

Fields a hand-written file may omit take the defaults of a new row: aliases ``[]``,
properties ``{}``, confidence 0.5, provisional/is_self/dormant false, strength 100,
last_touched_at = the import's ``now``, stability ``stable``, cardinality ``one_to_many``,
expires_at/superseded_by/snippet null, episodes ``[]``. Unknown fields are rejected (a typo
must not silently lose data). Export always writes every field.

Round trip: ``export_graph(import_graph(g)) == g`` modulo id labels and datetime spelling;
``canonical_graph`` gives the label-free form to compare.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from django.db import connection
from django.db.models import JSONField

from memory.core.cleaning import OCCURRED_PATTERN, RELATION_LABEL
from memory.core.decay import TEMPORARY
from memory.core.merge_rules import normalise_name
from memory.models import (
    Cardinality,
    Edge,
    EdgeEpisode,
    Episode,
    ExtractionStatus,
    Node,
    NodeEpisode,
    NodeKind,
    Snippet,
    Stability,
)
from memory.services import keys
from memory.services.locks import user_lock

__all__ = [
    "FORMAT",
    "GraphConflictError",
    "GraphFormatError",
    "GraphTooLargeError",
    "ImportSummary",
    "ParsedGraph",
    "canonical_graph",
    "export_graph",
    "find_unstorable",
    "import_graph",
    "parse_graph",
]

FORMAT = "pegasus-graph/1"
MAX_NAME = 200  # Node.name, aliases, normalised_name
MAX_RELATION = 64
MAX_TAG = 64
MAX_EVIDENCE = 500
MAX_LISTED_CONFLICTS = 10
MAX_DEPTH = 64  # nesting of objects and lists (free-form properties included)


class GraphFormatError(ValueError):
    """The document is not a valid ``pegasus-graph/1`` graph; the message is one line naming
    the offending item, fit to show a user as is."""


class GraphTooLargeError(GraphFormatError):
    """The document is over one of the import's size caps (``_check_import_caps``): the API
    answers 413 rather than 400."""


class GraphConflictError(GraphFormatError):
    """A valid graph that cannot be added to this account (a node already exists under the
    same kind and name, or a second self node)."""


# --- the parsed document -------------------------------------------------------------------


@dataclass
class ParsedEpisode:
    label: str
    started_at: datetime | None
    ended_at: datetime | None
    summary: str
    importance: float
    tags: list[str]


@dataclass
class ParsedNode:
    label: str
    kind: str
    name: str
    normalised_name: str
    aliases: list[str]
    properties: dict
    confidence: float
    provisional: bool
    is_self: bool
    episodes: list[str]


@dataclass
class ParsedEdge:
    label: str
    source: str
    relation: str
    target: str
    strength: float
    last_touched_at: datetime
    confidence: float
    stability: str
    cardinality: str
    expires_at: datetime | None
    dormant: bool
    superseded_by: str | None
    episodes: list[str]
    snippet: tuple[str, str] | None  # (text, evidence)
    occurred: str = ""  # when it happened (memory.core.cleaning.OCCURRED_PATTERN)


_OCCURRED = re.compile(OCCURRED_PATTERN)


def _occurred(item) -> str:
    """An edge's optional ``occurred`` (``""`` when absent), checked against its pattern."""
    value = item.text("occurred", default="", max_length=21).strip()
    if not _OCCURRED.match(value):
        raise item.fail(f'"occurred" must be YYYY, YYYY-MM, YYYY-MM-DD or a day range '
                        f"YYYY-MM-DD/YYYY-MM-DD, got {_quoted(value)}")
    return value


@dataclass
class ParsedGraph:
    """A validated graph: labels are unique per section and every reference resolves."""

    episodes: list[ParsedEpisode]
    nodes: list[ParsedNode]
    edges: list[ParsedEdge]


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


# --- validation ----------------------------------------------------------------------------

_MISSING = object()


def _text_problem(text: str) -> str | None:
    if "\x00" in text:
        return "contains a NUL character, which cannot be stored"
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return "contains an unpaired surrogate (invalid Unicode), which cannot be stored"
    return None


def _value_problem(value: Any, depth: int, finite: bool, max_depth: int | None) -> str | None:
    if isinstance(value, str):
        return _text_problem(value)
    if finite and isinstance(value, float) and not math.isfinite(value):
        return "is not a finite number"
    if max_depth is not None and isinstance(value, (dict, list)) and depth >= max_depth:
        return f"is nested more than {max_depth} levels deep"
    return None


def _children(value: Any):
    if isinstance(value, dict):
        return value.items()
    if isinstance(value, list):
        return enumerate(value)
    return ()


def _storable_at_a_glance(value: Any, finite: bool) -> bool:
    """True when encoding ``value`` (in C) shows no NUL, no unpaired surrogate and, with
    ``finite``, no Infinity/NaN. False means "look closer", not "bad": a literal
    backslash-u0000 in a string also lands here."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=not finite)
        text.encode("utf-8")
    except (ValueError, TypeError, RecursionError):  # UnicodeEncodeError is a ValueError
        return False
    return "\\u0000" not in text


def _short(path: str, limit: int = 80) -> str:
    return path if len(path) <= limit else f"{path[:50]}…{path[-25:]}"


def find_unstorable(value: Any, *, root: str = "", finite: bool = True,
                    max_depth: int | None = MAX_DEPTH) -> str | None:
    """The first thing in decoded JSON ``value`` that PostgreSQL cannot store, as a phrase
    naming where it is (``nodes[0].properties.city contains a NUL character, …``), or None.

    PostgreSQL text and jsonb refuse NUL characters, UTF-8 has no unpaired surrogates (JSON's
    ``"\\ud800"`` decodes to one), and jsonb has no Infinity or NaN (``1e400`` decodes to
    Infinity); nesting deeper than ``max_depth`` is refused too, so that encoding the value
    again can never exhaust the stack. Keys are checked like values. Iterative: a deep value
    cannot exhaust the stack here either. ``root`` names ``value`` in the phrase (default
    "the document"); ``finite=False`` leaves numbers to a caller that checks their range;
    ``max_depth=None`` checks no depth, and then a valid value costs one ``json.dumps``
    (about 0.3 s for 100 000 edges) instead of a walk in Python.
    """
    if max_depth is None and _storable_at_a_glance(value, finite):
        return None
    paths: list[tuple[str, Any, int]] = [(root, value, 0)]
    while paths:
        path, item, depth = paths.pop()
        problem = _value_problem(item, depth, finite, max_depth)
        if problem:
            return f"{_short(path) or 'the document'} {problem}"
        for key, inner in _children(item):
            if isinstance(key, str):
                problem = _text_problem(key)
                shown = json.dumps(key)[1:-1]  # escaped: the key itself may be the problem
                if problem:
                    return (f'{_short(path) or "the document"} has a key "{_short(shown)}" '
                            f"that {problem}")
                paths.append((f"{path}.{shown}" if path else shown, inner, depth + 1))
            else:
                paths.append((f"{path}[{key}]", inner, depth + 1))
    return None


def _quoted(text: str) -> str:
    """``text`` in double quotes, with newlines and control characters escaped: a message
    quoting the input stays one line."""
    return json.dumps(text, ensure_ascii=False)


def _describe(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except RecursionError:
        return f"a {type(value).__name__} nested too deeply"
    # An unpaired surrogate would make the message itself unprintable.
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= 60 else text[:57] + "..."


def _is_number(value: Any) -> bool:
    # bool is an int subclass, but true is not a strength.
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class _Item:
    """One object of a section, read field by field with errors that name it."""

    def __init__(self, where: str, raw: Any, fields: frozenset[str]):
        self.where = where
        if not isinstance(raw, Mapping):
            raise GraphFormatError(f"{self.where}: must be an object, got {_describe(raw)}")
        label = raw.get("id")
        if isinstance(label, str) and label:
            self.where += f" (id {_quoted(label)})"
        unknown = raw.keys() - fields
        if unknown:
            unknown = sorted(unknown)
            raise GraphFormatError(
                f"{self.where}: unknown field{'s' if len(unknown) > 1 else ''} "
                + ", ".join(_quoted(name) for name in unknown)
            )
        self.raw = raw

    def fail(self, message: str) -> GraphFormatError:
        return GraphFormatError(f"{self.where}: {message}")

    def _get(self, key: str, default: Any) -> Any:
        value = self.raw.get(key, _MISSING)
        if value is _MISSING:
            if default is _MISSING:
                raise self.fail(f'"{key}" is required')
            return default
        return value

    def label(self) -> str:
        value = self._get("id", _MISSING)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(f'"id" must be a non-empty string, got {_describe(value)}')
        return value

    def text(self, key: str, *, default: Any = _MISSING, max_length: int | None = None,
             allow_empty: bool = True) -> str:
        value = self._get(key, default)
        if not isinstance(value, str):
            raise self.fail(f'"{key}" must be a string, got {_describe(value)}')
        if not allow_empty and not value.strip():
            raise self.fail(f'"{key}" must not be empty')
        if max_length is not None and len(value) > max_length:
            raise self.fail(f'"{key}" is longer than {max_length} characters')
        return value

    def number(self, key: str, low: float, high: float, *, default: Any = _MISSING) -> float:
        value = self._get(key, default)
        if not _is_number(value) or not math.isfinite(value) or not low <= value <= high:
            raise self.fail(
                f'"{key}" must be a number from {low:g} to {high:g}, got {_describe(value)}'
            )
        return float(value)

    def boolean(self, key: str, *, default: Any = _MISSING) -> bool:
        value = self._get(key, default)
        if not isinstance(value, bool):
            raise self.fail(f'"{key}" must be true or false, got {_describe(value)}')
        return value

    def choice(self, key: str, choices: frozenset[str], *, default: Any = _MISSING) -> str:
        value = self._get(key, default)
        if not isinstance(value, str) or value not in choices:
            raise self.fail(
                f'"{key}" must be one of {", ".join(sorted(choices))}, got {_describe(value)}'
            )
        return value

    def moment(self, key: str, *, default: Any = _MISSING, nullable: bool = False):
        value = self._get(key, default)
        if value is None and nullable:
            return None
        if isinstance(value, datetime):  # a default supplied by the caller
            return value
        if not isinstance(value, str):
            raise self.fail(f'"{key}" must be an ISO 8601 date-time, got {_describe(value)}')
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            raise self.fail(f'"{key}" is not an ISO 8601 date-time: {_describe(value)}') from None
        if parsed.tzinfo is None or parsed.utcoffset() is None:
            raise self.fail(f'"{key}" must include a UTC offset, got {_describe(value)}')
        return parsed

    def strings(self, key: str, *, max_length: int, default: Any = _MISSING) -> list[str]:
        value = self._get(key, default)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(f'"{key}" must be a list of strings, got {_describe(value)}')
        for v in value:
            if len(v) > max_length:
                raise self.fail(f'"{key}" has an entry longer than {max_length} characters')
        return list(value)

    def labels(self, key: str, known: Mapping[str, Any], what: str) -> list[str]:
        value = self.strings(key, max_length=10_000, default=[])
        for label in value:
            if label not in known:
                raise self.fail(
                    f'"{key}" names {_quoted(label)}, which is not {what} in this graph'
                )
        if len(set(value)) != len(value):
            raise self.fail(f'"{key}" lists the same id twice')
        return value


# Computed once: Django's ``TextChoices.values`` rebuilds its list on every access, which
# showed up as a third of the validation time of a 100 000-edge graph.
_KINDS = frozenset(NodeKind.values)
_STABILITIES = frozenset(Stability.values)
_CARDINALITIES = frozenset(Cardinality.values)

_EPISODE_FIELDS = frozenset(("id", "started_at", "ended_at", "summary", "importance", "tags"))
_NODE_FIELDS = frozenset(("id", "kind", "name", "aliases", "properties", "confidence",
                          "provisional", "is_self", "episodes"))
_EDGE_FIELDS = frozenset(("id", "source", "relation", "target", "strength", "last_touched_at",
                          "confidence", "stability", "cardinality", "expires_at", "dormant",
                          "superseded_by", "episodes", "snippet", "occurred"))
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
    for key, setting, default in (("nodes", "GRAPH_IMPORT_MAX_NODES", 20_000),
                                  ("edges", "GRAPH_IMPORT_MAX_EDGES", 100_000),
                                  ("episodes", "GRAPH_IMPORT_MAX_NODES", 20_000)):
        count, limit = len(_section(data, key)), _cap(setting, default)
        if count > limit:
            raise GraphTooLargeError(
                f'"{key}" has {count} items; one import takes at most {limit} (split the file)')
    aliases = sum(len(n["aliases"]) for n in _section(data, "nodes")
                  if isinstance(n, Mapping) and isinstance(n.get("aliases"), list))
    limit = _cap("GRAPH_IMPORT_MAX_ALIASES", 50_000)
    if aliases > limit:
        raise GraphTooLargeError(
            f"the nodes have {aliases} aliases in all; one import takes at most {limit} "
            "(split the file)")


def _check_node_caps(item: _Item, properties: Mapping) -> None:
    """Per node: at most GRAPH_MAX_ALIASES_PER_NODE aliases (default 100) and
    GRAPH_MAX_PROPERTIES_BYTES of properties as compact JSON (default 16 384)."""
    aliases = item.raw.get("aliases")
    limit = _cap("GRAPH_MAX_ALIASES_PER_NODE", 100)
    if isinstance(aliases, list) and len(aliases) > limit:
        raise item.fail(f'"aliases" has {len(aliases)} entries; a node has at most {limit}')
    size = len(json.dumps(properties, ensure_ascii=False, separators=(",", ":"))
               .encode("utf-8", "surrogatepass"))
    limit = _cap("GRAPH_MAX_PROPERTIES_BYTES", 16_384)
    if size > limit:
        raise item.fail(f'"properties" is {size} bytes as JSON; a node has at most {limit}')


def _unique_label(item: _Item, seen: dict[str, str], section: str) -> str:
    label = item.label()
    if label in seen:
        raise item.fail(f'repeats the id of {seen[label]}; ids must be unique among {section}')
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
            label=label, started_at=started, ended_at=ended,
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
            label=label, kind=kind, name=name, normalised_name=normalised,
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
            raise item.fail(f'"expires_at" is only allowed on time_bound or ephemeral edges, '
                            f"not {stability}")
        if default_touch is None and "last_touched_at" not in item.raw:
            raise item.fail('"last_touched_at" is required')
        superseded_by = item._get("superseded_by", None)
        if superseded_by is not None and not isinstance(superseded_by, str):
            raise item.fail(f'"superseded_by" must be an edge id or null, got '
                            f"{_describe(superseded_by)}")
        if superseded_by == label:
            raise item.fail("an edge cannot supersede itself")
        snippet_raw = item._get("snippet", None)
        snippet = None
        if snippet_raw is not None:
            inner = _Item(f"{item.where}: snippet", snippet_raw, _SNIPPET_FIELDS)
            snippet = (inner.text("text", allow_empty=False),
                       inner.text("evidence", default="", max_length=MAX_EVIDENCE))
        edge = ParsedEdge(
            label=label, source=source, relation=relation, target=target,
            strength=item.number("strength", 0, 100, default=100.0),
            last_touched_at=item.moment("last_touched_at", default=default_touch),
            confidence=item.number("confidence", 0, 1, default=0.5),
            stability=stability,
            cardinality=item.choice("cardinality", _CARDINALITIES,
                                    default=Cardinality.ONE_TO_MANY),
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


def _reject_supersession_cycles(edges: Mapping[str, ParsedEdge],
                                where: Mapping[str, _Item]) -> None:
    # Each edge has at most one successor, so following the chain from every edge finds any
    # cycle; ``done`` holds edges already known to end at a live edge (linear overall).
    done: set[str] = set()
    for start in edges:
        path: list[str] = []
        on_path: set[str] = set()
        label: str | None = start
        while label is not None and label not in done:
            if label in on_path:
                cycle = [*path[path.index(label):], label]
                raise where[start].fail("supersession cycle " + " → ".join(cycle))
            path.append(label)
            on_path.add(label)
            label = edges[label].superseded_by
        done.update(path)


# --- import --------------------------------------------------------------------------------


def _user_id(user) -> int:
    return user if isinstance(user, int) else user.pk


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
    with connection.cursor() as cursor, cursor.copy(
        f"COPY {table} ({sql_columns}) FROM STDIN"
    ) as copy:
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


def import_graph(*, user, data: Any, now: datetime,
                 progress: Callable[[str], None] | None = None) -> ImportSummary:
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
            ["id", "user", "summary", "importance", "tags", "started_at", "ended_at", "status",
             "created_at"],
            ((episode_id[e.label], user_id, e.summary, e.importance, e.tags, e.started_at,
              e.ended_at, ExtractionStatus.SKIPPED.value, now) for e in graph.episodes),
        )
        _copy_rows(
            Node,
            ["id", "user", "kind", "name", "normalised_name", "aliases", "properties",
             "confidence", "provisional", "is_self", "created_at", "updated_at"],
            ((node_id[n.label], user_id, n.kind, n.name, n.normalised_name, n.aliases,
              n.properties, n.confidence, n.provisional, n.is_self, now, now)
             for n in graph.nodes),
        )
        _copy_rows(
            NodeEpisode, ["user", "node", "episode"],
            ((user_id, node_id[n.label], episode_id[label])
             for n in graph.nodes for label in n.episodes),
        )
        say(f"{len(graph.nodes)} nodes, {len(graph.episodes)} episodes written")
        _copy_rows(
            Edge,
            ["id", "user", "source", "relation", "target", "strength_at_touch",
             "last_touched_at", "confidence", "stability", "cardinality", "expires_at",
             "dormant", "superseded_by", "snippet", "occurred", "created_at"],
            ((edge_id[e.label], user_id, node_id[e.source], e.relation, node_id[e.target],
              e.strength, e.last_touched_at, e.confidence, e.stability, e.cardinality,
              e.expires_at, e.dormant,
              edge_id[e.superseded_by] if e.superseded_by else None,
              snippet_id.get(e.label), e.occurred, now) for e in graph.edges),
        )
        _copy_rows(
            Snippet,
            ["id", "user", "edge", "text", "evidence", "confidence", "episode", "occurred",
             "created_at"],
            ((snippet_id[e.label], user_id, edge_id[e.label], e.snippet[0], e.snippet[1],
              e.confidence, episode_id[e.episodes[-1]] if e.episodes else None, e.occurred,
              now)
             for e in with_snippet),
        )
        _copy_rows(
            EdgeEpisode, ["user", "edge", "episode"],
            ((user_id, edge_id[e.label], episode_id[label])
             for e in graph.edges for label in e.episodes),
        )
        summary.seconds["rows"] = time.perf_counter() - step
        say(f"{len(graph.edges)} edges, {len(with_snippet)} snippets written")

        step = time.perf_counter()
        # sync_node_keys reads only pk, name and aliases: unsaved instances carrying the
        # reserved ids stand in for the rows just copied.
        nodes = [Node(id=node_id[n.label], name=n.name, aliases=n.aliases)
                 for n in graph.nodes]
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


# --- export --------------------------------------------------------------------------------


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat()


def export_graph(*, user) -> dict:
    """``user``'s whole graph as a ``pegasus-graph/1`` dict (SPEC §6.1).

    Five queries whatever the size (nodes, node episodes, episodes, edges with their current
    snippet, edge episodes), every one filtered on the owner. Lists are ordered by primary
    key and each row's episode list by episode key, so the same graph always exports to the
    same JSON.
    """
    user_id = _user_id(user)
    node_episodes: dict[int, list[str]] = defaultdict(list)
    for node, episode in (NodeEpisode.objects.for_user(user_id)
                          .order_by("node_id", "episode_id")
                          .values_list("node_id", "episode_id")):
        node_episodes[node].append(f"e{episode}")
    edge_episodes: dict[int, list[str]] = defaultdict(list)
    for edge, episode in (EdgeEpisode.objects.for_user(user_id)
                          .order_by("edge_id", "episode_id")
                          .values_list("edge_id", "episode_id")):
        edge_episodes[edge].append(f"e{episode}")

    nodes = [
        {
            "id": f"n{row['id']}", "kind": row["kind"], "name": row["name"],
            "aliases": list(row["aliases"]), "properties": row["properties"],
            "confidence": row["confidence"], "provisional": row["provisional"],
            "is_self": row["is_self"], "episodes": node_episodes.get(row["id"], []),
        }
        for row in Node.objects.for_user(user_id).order_by("id").values(
            "id", "kind", "name", "aliases", "properties", "confidence", "provisional",
            "is_self")
    ]
    edges = []
    for row in Edge.objects.for_user(user_id).order_by("id").values(
        "id", "source_id", "relation", "target_id", "strength_at_touch", "last_touched_at",
        "confidence", "stability", "cardinality", "expires_at", "dormant",
        "superseded_by_id", "snippet__user_id", "snippet__text", "snippet__evidence",
        "occurred",
    ):
        # A snippet row of another owner would be a bug elsewhere; never let it leak here.
        own_snippet = row["snippet__user_id"] == user_id
        edges.append({
            "id": f"x{row['id']}", "source": f"n{row['source_id']}",
            "relation": row["relation"], "target": f"n{row['target_id']}",
            "strength": row["strength_at_touch"],
            "last_touched_at": _iso(row["last_touched_at"]),
            "confidence": row["confidence"], "stability": row["stability"],
            "cardinality": row["cardinality"], "expires_at": _iso(row["expires_at"]),
            "dormant": row["dormant"],
            "superseded_by": (f"x{row['superseded_by_id']}"
                              if row["superseded_by_id"] is not None else None),
            "episodes": edge_episodes.get(row["id"], []),
            "snippet": ({"text": row["snippet__text"], "evidence": row["snippet__evidence"]}
                        if own_snippet else None),
            "occurred": row["occurred"],
        })
    episodes = [
        {
            "id": f"e{row['id']}", "started_at": _iso(row["started_at"]),
            "ended_at": _iso(row["ended_at"]), "summary": row["summary"],
            "importance": row["importance"], "tags": list(row["tags"]),
        }
        for row in Episode.objects.for_user(user_id).order_by("id").values(
            "id", "started_at", "ended_at", "summary", "importance", "tags")
    ]
    return {"format": FORMAT, "nodes": nodes, "edges": edges, "episodes": episodes}


# --- comparison ----------------------------------------------------------------------------


def canonical_graph(data: Any, *, now: datetime | None = None) -> dict:
    """``data`` in a label-free canonical form, for testing two graphs for equality modulo
    id labels (the round-trip guarantee of SPEC §6.1).

    The document is parsed (so omitted fields take their defaults; pass the import's ``now``
    to compare a document whose edges omit ``last_touched_at``), datetimes are rewritten
    as UTC ISO 8601, and every id is replaced by one derived from content: a node's by its
    kind and normalised name (unique in a valid graph), episodes and edges by their rank in
    the sorted list of their dereferenced contents. Reference lists are sorted. Two exactly
    identical episodes or edges are interchangeable; if only their referrers tell them apart
    the result may depend on input order.
    """
    graph = parse_graph(data, default_touch=now or datetime(1970, 1, 1, tzinfo=UTC))

    def dump(value: Any) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)

    episode_items = sorted(
        (
            ({"started_at": _iso(e.started_at), "ended_at": _iso(e.ended_at),
              "summary": e.summary, "importance": e.importance, "tags": e.tags}, e.label)
            for e in graph.episodes
        ),
        key=lambda pair: dump(pair[0]),
    )
    episode_label = {label: f"e{i}" for i, (_, label) in enumerate(episode_items, start=1)}
    episodes = [{"id": episode_label[label], **body} for body, label in episode_items]

    node_label = {n.label: f"n:{n.kind}:{n.normalised_name}" for n in graph.nodes}
    nodes = sorted(
        (
            {"id": node_label[n.label], "kind": n.kind, "name": n.name, "aliases": n.aliases,
             "properties": n.properties, "confidence": n.confidence,
             "provisional": n.provisional, "is_self": n.is_self,
             "episodes": sorted(episode_label[x] for x in n.episodes)}
            for n in graph.nodes
        ),
        key=lambda node: node["id"],
    )

    edge_items = sorted(
        (
            ({"source": node_label[e.source], "relation": e.relation,
              "target": node_label[e.target], "strength": e.strength,
              "last_touched_at": _iso(e.last_touched_at), "confidence": e.confidence,
              "stability": e.stability, "cardinality": e.cardinality,
              "expires_at": _iso(e.expires_at), "dormant": e.dormant,
              "episodes": sorted(episode_label[x] for x in e.episodes),
              "snippet": ({"text": e.snippet[0], "evidence": e.snippet[1]}
                          if e.snippet else None), "occurred": e.occurred}, e)
            for e in graph.edges
        ),
        key=lambda pair: dump(pair[0]),
    )
    edge_label = {e.label: f"x{i}" for i, (_, e) in enumerate(edge_items, start=1)}
    edges = [
        {"id": edge_label[e.label], **body,
         "superseded_by": edge_label[e.superseded_by] if e.superseded_by else None}
        for body, e in edge_items
    ]
    return {"format": FORMAT, "nodes": nodes, "edges": edges, "episodes": episodes}
