"""SQL literals the Read binds as parameters (id arrays, pgvector vectors) and the binary
vectors it reads back."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import numpy as np
from django.conf import settings

__all__ = ["id_array", "vector_literal", "vectors_from_binary"]


def id_array(ids: Iterable[int]) -> str:
    """A PostgreSQL array literal of ids, to bind as ``%s::bigint[]``.

    Typed bigint (psycopg would send small ids as ``smallint[]``): with the column's own type
    the planner can hash a large ``= ANY(...)`` — measured 754 ms → 31 ms with 8 000 ids —
    and building the literal here is far cheaper than psycopg's per-element list adapter."""
    return "{" + ",".join(str(int(i)) for i in ids) + "}"


def vector_literal(vector: np.ndarray) -> str:
    """pgvector's text input form of ``vector``, to bind as ``%s::vector``.

    pgvector keeps float32, and nine significant digits give every float32 back exactly, so
    the values are rounded to float32 and written with ``%.9g`` through one format string
    (0.06 ms for 384 dimensions, against 0.16 ms for ``repr`` of each, and a third shorter).
    """
    values = np.asarray(vector, dtype=np.float32).ravel().astype(np.float64).tolist()
    return _format(len(values)) % tuple(values)


@lru_cache(maxsize=8)
def _format(dimensions: int) -> str:
    return "[" + ",".join(["%.9g"] * dimensions) + "]"


def vectors_from_binary(blobs: Iterable[bytes]) -> np.ndarray:
    """Rows of ``vector_send(embedding)`` (int16 dim, int16 0, dim big-endian float32) → (n × d)
    float32. Binary is ~10× cheaper to parse than pgvector's text form."""
    blobs = [bytes(blob) for blob in blobs]
    if not blobs:
        return np.zeros((0, settings.EMBEDDING_DIM), dtype=np.float32)
    width = len(blobs[0]) // 4  # the 4-byte header counts as one column, dropped below
    joined = np.frombuffer(b"".join(blobs), dtype=">f4").reshape(len(blobs), width)
    return joined[:, 1:].astype(np.float32)
