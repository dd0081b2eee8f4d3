"""The ``pegasus-graph/1`` document's vocabulary (SPEC §6.1): its format name, size caps, the
errors an import raises, and the dataclasses a parsed document is made of."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

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


@dataclass
class ParsedGraph:
    """A validated graph: labels are unique per section and every reference resolves."""

    episodes: list[ParsedEpisode]
    nodes: list[ParsedNode]
    edges: list[ParsedEdge]


def _user_id(user) -> int:
    return user if isinstance(user, int) else user.pk
