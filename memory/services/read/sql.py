"""SQL literals the Read binds as parameters: id arrays and pgvector vectors."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

__all__ = ["id_array", "vector_literal"]


def id_array(ids: Iterable[int]) -> str:
    """A PostgreSQL array literal of ids, to bind as ``%s::bigint[]``.

    Typed bigint (psycopg would send small ids as ``smallint[]``): with the column's own type
    the planner can hash a large ``= ANY(...)`` — measured 754 ms → 31 ms with 8 000 ids —
    and building the literal here is far cheaper than psycopg's per-element list adapter."""
    return "{" + ",".join(str(int(i)) for i in ids) + "}"


def vector_literal(vector: np.ndarray) -> str:
    """pgvector's text input form of ``vector``, to bind as ``%s::vector``."""
    return "[" + ",".join(repr(float(x)) for x in np.asarray(vector).ravel()) + "]"
