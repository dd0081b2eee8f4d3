"""The vector side of the sentence search, exact, in the web process (SPEC §2, §5.7).

Scoring a user's stored sentences against the message in PostgreSQL reads every row through
the B-tree on ``user_id`` and computes each distance there: 10 ms for 6 000 sentences, half
of a Read's time at 10 000 nodes (docs/BENCHMARKS.md). As with the key matrix
(``memory.services.read.keys``), each process keeps, per user, the sentence vectors with what
the search filters on (conversation, content-word count), tagged with the user's graph
version — which the sentence store's triggers bump on every insert, update and delete
(migration 0012) — and ranks them with one matrix product. A stale copy is never used: the
Read passes the version it read, and a copy of another version is reloaded (one query,
which reads the version with the rows and tags the copy with it) at
the user's second search of the new version; the first is served by SQL, as loading costs
more than one scan there.

Only users at or below ``EXACT_SCAN_MAX_KEYS`` sentences are kept; above it the search uses
the HNSW index in SQL, as before. Entries are LRU by user, bounded by
``settings.MEMORY_SENTENCE_CACHE_ROWS`` rows (1.5 KB each at 384 dimensions).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from django.conf import settings

from memory.models import GraphVersion, Sentence
from memory.services.caches import UserLRU, user_key
from memory.services.read.sql import vectors_from_binary

__all__ = ["DenseList", "clear_sentence_cache", "dense_list"]


@dataclass(frozen=True)
class _SentenceSet:
    version: int | None
    threshold: int  # EXACT_SCAN_MAX_KEYS when loaded
    large: bool  # more sentences than the threshold: nothing cached, SQL's HNSW serves
    ids: np.ndarray  # ascending
    conversations: np.ndarray
    terms: np.ndarray
    vectors: np.ndarray  # unit rows, float32

    @property
    def rows(self) -> int:
        return max(len(self.ids), 1)


@dataclass(frozen=True)
class DenseList:
    """The ``k`` nearest sentences, nearest first (ties: lower id): ids and cosine distances."""

    ids: list[int]
    distances: list[float]


_sets: UserLRU[_SentenceSet] = UserLRU(lambda: settings.MEMORY_SENTENCE_CACHE_ROWS)
# The version each user was last searched at without a copy (see ``dense_list``).
_seen: OrderedDict[tuple, int] = OrderedDict()
_seen_lock = threading.Lock()
_SEEN_MAX = 100_000

# The header row (count, capped at max + 1 so a large user costs max + 1 index entries) and,
# when the user is small enough, every sentence; both conditions are one-time filters.
_LOAD_SQL = """
    WITH n AS (
        SELECT count(*) AS n FROM (
            SELECT 1 FROM {table} WHERE user_id = %(user)s LIMIT %(max)s + 1
        ) x
    )
    SELECT n.n, NULL::bigint AS id,
           (SELECT version FROM {versions} WHERE user_id = %(user)s), NULL::int, NULL::bytea
    FROM n
    UNION ALL
    SELECT NULL, s.id, s.conversation_id, s.terms, vector_send(s.vector) FROM {table} s
    WHERE s.user_id = %(user)s AND (SELECT n FROM n) <= %(max)s
    ORDER BY id NULLS FIRST
"""


def clear_sentence_cache() -> None:
    """Forget every cached sentence set (tests, benchmarks; never needed for correctness)."""
    _sets.clear()
    with _seen_lock:
        _seen.clear()


def _load(cursor, user_id: int) -> _SentenceSet:
    """The user's sentences, tagged with the graph version read in the same statement (so
    the tag always describes the rows, whichever server or snapshot answered)."""
    threshold = int(settings.EXACT_SCAN_MAX_KEYS)
    cursor.execute(
        _LOAD_SQL.format(table=Sentence._meta.db_table, versions=GraphVersion._meta.db_table),
        {"user": user_id, "max": threshold},
    )
    rows = cursor.fetchall()
    large, version = int(rows[0][0]) > threshold, rows[0][2]
    body = rows[1:]
    vectors = vectors_from_binary(row[4] for row in body)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors /= np.where(norms == 0, 1.0, norms)  # pgvector's cosine divides by both norms
    entry = _SentenceSet(
        version=version,
        threshold=threshold,
        large=large,
        ids=np.fromiter((row[1] for row in body), dtype=np.int64, count=len(body)),
        conversations=np.fromiter((row[2] for row in body), dtype=np.int64, count=len(body)),
        terms=np.fromiter((row[3] for row in body), dtype=np.int32, count=len(body)),
        vectors=vectors,
    )
    for array in (entry.ids, entry.conversations, entry.terms, entry.vectors):
        array.setflags(write=False)
    return entry


def dense_list(
    cursor,
    user_id: int,
    version: int | None,
    vector: np.ndarray,
    k: int,
    *,
    exclude_conversation: int | None,
    min_terms: int,
) -> DenseList | None:
    """``user_id``'s ``k`` sentences nearest to ``vector`` (unit) by cosine distance, among
    those with at least ``min_terms`` content words and not in ``exclude_conversation``,
    exactly. None when the search must run in SQL: no version (nothing can be cached), the
    user's first search at this version in this process, or a user past
    ``EXACT_SCAN_MAX_KEYS`` sentences (the HNSW index). Queries: none when the cached copy
    has ``version``; one (the load) at the second search of a version."""
    if version is None:
        return None
    key = user_key(user_id)
    entry = _sets.get(key)
    if entry is None or entry.version != version or entry.threshold != settings.EXACT_SCAN_MAX_KEYS:
        # Loading costs more than one scan in SQL (6 000 sentences: ~40 ms against ~10), so
        # a user's first search at a version is served by SQL and the copy is loaded at the
        # second: a web process that serves one Read of a user never pays for it, a
        # conversation pays once per graph version.
        with _seen_lock:
            first_sight = _seen.get(key) != version
            _seen[key] = version
            _seen.move_to_end(key)
            while len(_seen) > _SEEN_MAX:
                _seen.popitem(last=False)
        if first_sight:
            return None
        entry = _load(cursor, user_id)
        if entry.version is None:
            return None  # no version row: nothing can be cached
        _sets.put(key, entry)
    if entry.large:
        return None
    keep = entry.terms >= min_terms
    if exclude_conversation is not None:
        keep &= entry.conversations != exclude_conversation
    count = int(keep.sum())
    if not count or k <= 0:
        return DenseList([], [])
    # Every row at once (indexing the matrix first would copy it), the filtered ones pushed
    # to infinity.
    query = np.asarray(vector, dtype=np.float32)
    distances = 1.0 - (entry.vectors @ query).astype(np.float64)
    distances[~keep] = np.inf
    if count > k:
        near = np.argpartition(distances, k - 1)[:k]
        # Rows tied with the k-th distance outside the partition would break the id
        # tie-break: take every row at or below it, then order.
        near = np.flatnonzero(distances <= distances[near].max())
    else:
        near = np.flatnonzero(keep)
    order = near[np.lexsort((entry.ids[near], distances[near]))][:k]
    return DenseList(entry.ids[order].tolist(), distances[order].tolist())
