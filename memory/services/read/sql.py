"""SQL literals the Read binds as parameters (id arrays, pgvector vectors) and the binary
vectors it reads back."""

from __future__ import annotations

from collections.abc import Iterable

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
    """pgvector's text input form of ``vector``, to bind as ``%s::vector``. (``tolist`` makes
    the Python floats in one call: iterating numpy scalars cost ~0.3 ms per vector.)"""
    return "[" + ",".join(map(repr, np.asarray(vector, dtype=np.float64).ravel().tolist())) + "]"


def vectors_from_binary(blobs: Iterable[bytes]) -> np.ndarray:
    """Rows of ``vector_send(embedding)`` (int16 dim, int16 0, dim big-endian float32) → (n × d)
    float32. Binary is ~10× cheaper to parse than pgvector's text form."""
    blobs = [bytes(blob) for blob in blobs]
    if not blobs:
        return np.zeros((0, settings.EMBEDDING_DIM), dtype=np.float32)
    width = len(blobs[0]) // 4  # the 4-byte header counts as one column, dropped below
    joined = np.frombuffer(b"".join(blobs), dtype=">f4").reshape(len(blobs), width)
    return joined[:, 1:].astype(np.float32)
