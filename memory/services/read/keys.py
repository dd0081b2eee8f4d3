"""Scoring a Read's words against the user's keys (SPEC §5.1 step 3), with a per-process cache.

``score_keys(cursor, user_id, vectors)`` is query 1 of every Read: the centred cosine of each
word against each of the user's ``MemoryKey`` rows — an exact scan of the cached, centred key
matrix up to ``EXACT_SCAN_MAX_KEYS`` keys, the HNSW candidates above. ``gate_columns`` keeps
the columns that can affect the seed gate. ``clear_key_cache`` empties this cache, the
graph snapshots and the sentence vectors (tests, benchmarks).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.conf import settings

from memory.core.seeding import centred_scores
from memory.models import Edge, GraphVersion, MemoryKey, Node, Snippet
from memory.services.caches import UserLRU, user_key
from memory.services.read.sentence_vectors import clear_sentence_cache
from memory.services.read.sql import vector_literal, vectors_from_binary
from memory.services.snapshot import clear_snapshot_cache

__all__ = ["Scored", "clear_key_cache", "gate_columns", "score_keys"]

# --- the per-process key cache ----------------------------------------------------------------
#
# Scoring every key exactly (SPEC §5.1 step 3) needs the user's whole key matrix, centred on
# its mean. Fetching and centring 10 000 vectors costs far more than a Read may take, so each
# process keeps the centred matrix per user, tagged with the user's graph version
# (``memory.models.GraphVersion``: bumped by database triggers on every statement that touches
# the user's keys, nodes, edges, memberships or snippets, never reusing a value). Each Read
# reads the version, and the vectors only when it moved, in one query. So a stale matrix is
# never used; a write that did not touch the keys only costs a reload.
# Only vectors and ids are cached here: what a key points at (node, relation) comes from the
# graph snapshot of the same version (memory.services.snapshot).

_CACHE_MAX_ROWS_DEFAULT = 1_000_000
"""Key rows cached per process unless ``settings.MEMORY_KEY_CACHE_ROWS`` says otherwise
(1.5 KB each in float32 at 384 dimensions: ≤ 1.5 GB, room for 90 users of 10 000 nodes);
LRU by user."""

_ZERO_NORM = 1e-6  # as in memory.core.seeding: a centred vector this short has no direction


@dataclass(frozen=True)
class _KeySet:
    version: int  # the user's graph version the entry was read at
    n: int  # how many keys the user had
    threshold: int  # EXACT_SCAN_MAX_KEYS when the exact-or-HNSW decision was taken
    large: bool  # n > threshold: HNSW pre-selection, only μ is cached
    mean: np.ndarray | None  # μ over all the user's keys (d,)
    ids: np.ndarray | None = None  # key ids, ascending (exact path only)
    centred: np.ndarray | None = None  # normalise(M − μ), one row per id (exact path only)

    @property
    def rows(self) -> int:
        return 0 if self.ids is None else len(self.ids)


_keys: UserLRU[_KeySet] = UserLRU(
    lambda: getattr(settings, "MEMORY_KEY_CACHE_ROWS", _CACHE_MAX_ROWS_DEFAULT)
)
_cache = _keys.entries  # key → _KeySet, for inspection (tests)
_cache_key = user_key


def clear_key_cache() -> None:
    """Forget every cached key matrix, graph snapshot and sentence set (tests, benchmarks;
    never needed for correctness)."""
    _keys.clear()
    clear_snapshot_cache()
    clear_sentence_cache()


def _centre(rows: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """``normalise(rows − μ)``, zero rows staying zero — exactly the centring inside
    ``memory.core.seeding.centred_scores`` (a test holds the two equal), done once per cached
    matrix instead of once per Read."""
    centred = np.asarray(rows, dtype=np.float32) - mean
    norms = np.linalg.norm(centred, axis=1, keepdims=True)
    short = norms[:, 0] < _ZERO_NORM
    centred /= np.where(norms < _ZERO_NORM, 1.0, norms)
    centred[short] = 0.0
    return centred


def _tables() -> dict[str, str]:
    return {
        "keys": MemoryKey._meta.db_table,
        "edges": Edge._meta.db_table,
        "nodes": Node._meta.db_table,
        "snippets": Snippet._meta.db_table,
        "versions": GraphVersion._meta.db_table,
    }


# The user's graph version, and whether it differs from the cached entry's (or the user has
# no version row: then nothing is cached).
_VERSION = """
    v AS (SELECT (SELECT version FROM {versions} WHERE user_id = %(user)s) AS version),
    stale AS (SELECT 1 FROM v WHERE v.version IS NULL OR v.version IS DISTINCT FROM %(cached)s)
"""

# Version; when stale, the key count and — when the user is small enough for the exact scan —
# every key vector (one round trip either way). The first row is the header (version, count);
# key rows follow. Both conditions of the key rows are one-time filters, so a warm Read (the
# version unchanged) reads no key row at all — as a join condition they cost a scan of every
# key (4.7 ms at 10 000 keys).
_EXACT_KEYS_SQL = """
    WITH {version},
    c AS (SELECT count(*) AS n FROM {keys}
          WHERE user_id = %(user)s AND EXISTS (SELECT 1 FROM stale))
    SELECT v.version, c.n, NULL::bigint AS id, NULL::bytea AS vector FROM v CROSS JOIN c
    UNION ALL
    SELECT NULL, NULL, k.id, vector_send(k.embedding) FROM {keys} k
    WHERE k.user_id = %(user)s AND EXISTS (SELECT 1 FROM stale)
      AND (SELECT n FROM c) <= %(max_keys)s
    ORDER BY id NULLS FIRST
"""

# HNSW pre-selection (SPEC §2, §5.1): per word the top-k keys of this user by raw cosine.
# A shared index with a user filter returns too few rows unless the scan may continue past
# ef_search (iterative_scan); relaxed order is fine because candidates are rescored exactly.
# The settings are SET LOCAL: the statements run as one implicit transaction in autocommit
# mode, and inside a caller's transaction they are set back to the defaults at the end.
# When the version moved, the key count and μ are recomputed in SQL too.
_HNSW_SQL = """
    SET LOCAL hnsw.ef_search = {ef};
    SET LOCAL hnsw.iterative_scan = relaxed_order;
    WITH {version},
    stats AS (SELECT count(*) AS n, vector_send(avg(embedding)) AS mu FROM {keys}
              WHERE user_id = %(user)s AND EXISTS (SELECT 1 FROM stale)),
    words (i, q) AS (VALUES {words}),
    cand AS (
        SELECT w.i, c.id, c.embedding
        FROM words w CROSS JOIN LATERAL (
            SELECT id, embedding FROM {keys}
            WHERE user_id = %(user)s ORDER BY embedding <=> w.q LIMIT %(k)s
        ) c
    )
    SELECT v.version, stats.n, stats.mu, cand.id, vector_send(cand.embedding)
    FROM v CROSS JOIN stats LEFT JOIN cand ON true;
    SET LOCAL hnsw.ef_search TO DEFAULT;
    SET LOCAL hnsw.iterative_scan TO DEFAULT
"""


@dataclass
class Scored:
    """Seed scores of a Read: ``scores`` (w × c) over ``key_ids`` (c columns)."""

    key_ids: np.ndarray
    scores: np.ndarray


def _known_version(cached: _KeySet | None, large: bool) -> int | None:
    """The version of a cached entry usable on this path, or None (→ read everything)."""
    if cached is None or cached.large != large:
        return None
    if cached.threshold != settings.EXACT_SCAN_MAX_KEYS:
        return None  # the threshold changed: take the exact-or-HNSW decision again
    return cached.version


def _exact_scores(
    cursor, user_id: int, vectors: np.ndarray, cached: _KeySet | None, cache_key: tuple
) -> Scored | None:
    """Query 1, exact path. Returns None when the user has too many keys for it."""
    known = _known_version(cached, large=False)
    cursor.execute(
        _EXACT_KEYS_SQL.format(version=_VERSION.format(**_tables()), **_tables()),
        {"user": user_id, "max_keys": settings.EXACT_SCAN_MAX_KEYS, "cached": known},
    )
    rows = cursor.fetchall()
    version, n = rows[0][0], int(rows[0][1])
    if known is None or version != known:
        if n > settings.EXACT_SCAN_MAX_KEYS:
            return None
        matrix = vectors_from_binary(row[3] for row in rows if row[2] is not None)
        ids = np.fromiter(
            (row[2] for row in rows if row[2] is not None), dtype=np.int64, count=len(matrix)
        )
        # Same reduction as centred_scores' default ``keys.mean(axis=0)``.
        mean = matrix.mean(axis=0) if len(matrix) else None
        centred = _centre(matrix, mean) if len(matrix) else matrix
        for array in (ids, centred):
            array.setflags(write=False)
        cached = _KeySet(
            version=version,
            n=n,
            threshold=settings.EXACT_SCAN_MAX_KEYS,
            large=False,
            mean=mean,
            ids=ids,
            centred=centred,
        )
        if version is not None:
            _keys.put(cache_key, cached)
    if cached.rows == 0:
        return Scored(np.zeros(0, dtype=np.int64), np.zeros((len(vectors), 0), np.float32))
    queries = _centre(vectors, cached.mean)
    # (keys × d) @ (d × w), then turned: BLAS runs this shape about twice as fast as
    # ``queries @ centred.T`` on one thread (10 000 keys: ~1.6 vs ~3.5 ms).
    return Scored(cached.ids, np.ascontiguousarray((cached.centred @ queries.T).T))


def _hnsw_scores(
    cursor, user_id: int, vectors: np.ndarray, cached: _KeySet | None, cache_key: tuple
) -> Scored | None:
    """Query 1, HNSW path. Returns None when the user has shrunk below the exact threshold."""
    known = _known_version(cached, large=True)
    k = max(50, settings.HNSW_CANDIDATES_PER_WORD)
    params = {"user": user_id, "k": k, "cached": known}
    words_sql = []
    for i, vector in enumerate(vectors):
        params[f"q{i}"] = vector_literal(vector)
        words_sql.append(f"({i}, %(q{i})s::vector)")
    sql = _HNSW_SQL.format(
        version=_VERSION.format(**_tables()),
        # ef_search = k: the iterative scan goes on past it when the user filter needs more
        # rows, and on 100 000 nodes ef 64, 128 and an exact scan give the same context in
        # 120 of 120 messages (docs/BENCHMARKS.md, "The Read in session 13").
        ef=k,
        words=", ".join(words_sql),
        **_tables(),
    )
    cursor.execute(sql, params)
    while cursor.description is None and cursor.nextset():
        pass
    rows = cursor.fetchall()
    version = rows[0][0]
    if known is None or version != known:
        n = int(rows[0][1])
        if n <= settings.EXACT_SCAN_MAX_KEYS:
            return None
        cached = _KeySet(
            version=version,
            n=n,
            threshold=settings.EXACT_SCAN_MAX_KEYS,
            large=True,
            mean=vectors_from_binary([rows[0][2]])[0],
        )
        if version is not None:
            _keys.put(cache_key, cached)
    candidates: dict[int, bytes] = {}
    for row in rows:
        if row[3] is not None:
            candidates.setdefault(int(row[3]), row[4])
    ids = np.fromiter(sorted(candidates), dtype=np.int64, count=len(candidates))
    matrix = vectors_from_binary(candidates[int(i)] for i in ids)
    # Few candidates: score them with the core function itself, centred on the mean of ALL
    # the user's keys so the score does not depend on which candidates were picked.
    return Scored(ids, centred_scores(vectors, matrix, mean=cached.mean))


def score_keys(cursor, user_id: int, vectors: np.ndarray) -> Scored:
    cache_key = user_key(user_id)
    cached = _keys.get(cache_key)
    if cached is not None and cached.large:
        scored = _hnsw_scores(cursor, user_id, vectors, cached, cache_key)
        if scored is None:
            scored = _exact_scores(cursor, user_id, vectors, None, cache_key)
    else:
        scored = _exact_scores(cursor, user_id, vectors, cached, cache_key)
        if scored is None:
            scored = _hnsw_scores(cursor, user_id, vectors, None, cache_key)
    return scored


def gate_columns(scores: np.ndarray, threshold: float) -> np.ndarray:
    """Columns that can affect ``select_seed_keys``: per word every key at or above the
    threshold and its top two (the margin gate compares top and runner-up). Ascending, so the
    core's tie-break on key index is unchanged; the gate's outcome is identical to running it
    over all columns, without a Python loop over every key."""
    n_keys = scores.shape[1]
    if n_keys <= 2:
        return np.arange(n_keys)
    # Compared in float64, as the core does; ties with the runner-up are all kept so the
    # core's stable tie-break sees the same candidates.
    wide = scores.astype(np.float64)
    runner_up = np.partition(wide, -2, axis=1)[:, -2:-1]
    return np.flatnonzero(((wide >= threshold) | (wide >= runner_up)).any(axis=0))
