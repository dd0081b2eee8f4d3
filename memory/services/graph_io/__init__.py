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

Layout: ``document`` (format name, caps, errors, parsed dataclasses), ``storable`` (what
PostgreSQL cannot store: ``find_unstorable``), ``fields`` (one object read field by field),
``parse`` (``parse_graph``), ``import_`` (``import_graph``, COPY), ``export``
(``export_graph``) and ``canonical`` (``canonical_graph``). The names below are re-exported
so ``from memory.services.graph_io import ...`` keeps working.
"""

from memory.services.graph_io.canonical import canonical_graph
from memory.services.graph_io.document import (
    FORMAT,
    MAX_NAME,
    MAX_RELATION,
    GraphConflictError,
    GraphFormatError,
    GraphTooLargeError,
    ParsedGraph,
)
from memory.services.graph_io.export import export_graph
from memory.services.graph_io.import_ import ImportSummary, import_graph
from memory.services.graph_io.parse import parse_graph
from memory.services.graph_io.storable import find_unstorable

__all__ = [
    "FORMAT",
    "MAX_NAME",
    "MAX_RELATION",
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
