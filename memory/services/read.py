"""The Read path: content words → seeds → spreading activation → injected text (SPEC §5.1–§5.3).

``recall(user=..., message=..., now=...)`` runs before every assistant reply. It loads only
the part of one user's graph the message touches, in a fixed number of queries, calls the pure
algorithms of ``memory.core`` and returns a ``ReadRecord`` (SPEC §6.4). A Read takes no lock
and changes nothing except appending the Traversal rows of its conversation (SPEC §3).

Queries per Read (no conversation), whatever the size of the graph:

1. the user's keys: only a signature when the in-process key cache is current, the key
   vectors when it is not; above ``EXACT_SCAN_MAX_KEYS`` keys, the HNSW candidates instead
   (the first Read of such a user in a process pays one more query to learn its size);
2. what the seeding keys point at, and the live edges of seeding relation labels;
3. the live edges incident to the seeds, and 4. to the nodes they reach (one query per hop);
5. the episodes that decide the co-episode bonus (skipped when no contender can gain it);
6. names of the seeds and fired nodes, and the live edges among them with their snippets.

So at most 6 with the default two hops, + 1 INSERT for the Traversal rows when a
conversation is given. Every query filters on the user's id; ids travel as one typed array
per query, never one query per node or edge.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from django.conf import settings
from django.db import connection

from memory import embedding
from memory.core.activation import (
    Activation,
    EdgeView,
    apply_co_episode_bonus,
    select_fired,
    spread,
)
from memory.core.injection import LineEdge, context_snippets, memory_lines
from memory.core.passages import (
    LexicalIndex,
    Passage,
    format_with_passages,
    hybrid_scores,
    lexical_terms,
    select_passages,
    split_sentences,
)
from memory.core.seeding import (
    KeyTarget,
    SeedHit,
    centred_scores,
    resolve_seed_nodes,
    select_seed_keys,
)
from memory.core.words import content_words
from memory.models import Edge, MemoryKey, Node, NodeEpisode, Snippet, Traversal
from memory.services.decay import current_strength_sql, dormancy_sql

__all__ = ["STRATEGIES", "ReadOptions", "ReadRecord", "clear_key_cache", "recall"]


def _setting(name: str, fallback=None):
    # Bound late so that ``ReadOptions()`` reads the settings when it is built (tests and
    # operators change them at run time), never at import time.
    return field(default_factory=lambda: getattr(settings, name, fallback))


STRATEGIES = ("spec", "default")
"""``spec``: SPEC §5.1–§5.3 exactly. ``default``: the spec Read plus the measured additions
described in ``recall`` (docs/BENCHMARKS.md, "LoCoMo evidence recall")."""


@dataclass(frozen=True)
class ReadOptions:
    """Thresholds and budget of one Read (SPEC §5.1–§5.3; defaults are the settings).

    ``ReadOptions()`` and ``ReadOptions.from_settings(**overrides)`` both take every value not
    overridden from ``settings.MEMORY_*`` at construction time. The Write path's broad
    neighbourhood (SPEC §5.5) passes e.g. a lower ``seed_threshold`` and a larger ``budget``.
    """

    seed_threshold: float = _setting("MEMORY_SEED_THRESHOLD")
    margin_floor: float = _setting("MEMORY_SEED_MARGIN_FLOOR")
    margin: float = _setting("MEMORY_SEED_MARGIN")
    hops: int = _setting("MEMORY_HOPS")
    spread_factor: float = _setting("MEMORY_SPREAD_FACTOR")
    co_episode_bonus: float = _setting("MEMORY_CO_EPISODE_BONUS")
    fire_threshold: float = _setting("MEMORY_FIRE_THRESHOLD")
    budget: int = _setting("MEMORY_BUDGET")
    forward_share: float = _setting("MEMORY_FORWARD_SHARE")
    context_threshold: float = _setting("MEMORY_CONTEXT_THRESHOLD")
    snippets_per_node: int = _setting("MEMORY_SNIPPETS_PER_NODE")
    strategy: str = _setting("MEMORY_READ_STRATEGY", "default")
    # Strategy "default" only (docs/BENCHMARKS.md, "LoCoMo evidence recall"):
    passages: int = _setting("MEMORY_PASSAGES", 4)
    passage_threshold: float = _setting("MEMORY_PASSAGE_THRESHOLD", 0.30)
    passage_lexical_weight: float = _setting("MEMORY_PASSAGE_LEXICAL_WEIGHT", 0.60)
    passage_min_words: int = _setting("MEMORY_PASSAGE_MIN_WORDS", 3)
    passage_speaker_vectors: bool = _setting("MEMORY_PASSAGE_SPEAKER_VECTORS", False)
    passages_per_turn: int = _setting("MEMORY_PASSAGES_PER_TURN", 1)
    passage_context: float = _setting("MEMORY_PASSAGE_CONTEXT", 0.0)
    passage_replies: bool = _setting("MEMORY_PASSAGE_REPLIES", True)
    filter_snippets: bool = _setting("MEMORY_FILTER_SNIPPETS", True)
    passage_lexical_ceiling: bool = _setting("MEMORY_PASSAGE_LEXICAL_CEILING", True)

    @classmethod
    def from_settings(cls, **overrides) -> ReadOptions:
        """The current settings, with ``overrides`` (field name → value) on top."""
        return cls(**overrides)


@dataclass(frozen=True)
class ReadRecord:
    """What a Read recalled (SPEC §6.4).

    * ``words``: the content words, in message order.
    * ``seeds``: ``{"name", "kind", "key", "similarity"}`` per seeded node (its best key hit,
      similarity = centred score rounded to 4 places), in the order nodes were seeded.
    * ``fired``: ``{"id", "name", "kind", "score", "direction", "hop"}`` per fired node,
      highest score first (score rounded to 4 places).
    * ``memory_lines``: ``"Source -[RELATION]-> Target"``, strongest edge first.
    * ``context_snippets``: ``{"node", "edge", "text"}``, the user's own words, verbatim.
    * ``crossed_edges``: ids of the edges activation crossed, ascending (reinforced at Write).
    * ``text``: the ``[MEMORY]``/``[CONTEXT]`` block (``""`` when nothing is injected); the
      chat layer prepends ``memory.core.injection.RECOLLECTION_PREAMBLE``.
    * ``timings_ms``: ``{"embed", "seed", "spread", "format"}`` wall-clock milliseconds.
    """

    words: list[str] = field(default_factory=list)
    seeds: list[dict] = field(default_factory=list)
    fired: list[dict] = field(default_factory=list)
    memory_lines: list[str] = field(default_factory=list)
    context_snippets: list[dict] = field(default_factory=list)
    crossed_edges: list[int] = field(default_factory=list)
    text: str = ""
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        """True when nothing is injected into the prompt (no memory line and no snippet)."""
        return not self.text

    def to_dict(self) -> dict:
        """The SPEC §6.4 JSON object: exactly its eight keys, as fresh (mutable) copies."""
        return {
            "words": list(self.words),
            "seeds": [dict(seed) for seed in self.seeds],
            "fired": [dict(node) for node in self.fired],
            "memory_lines": list(self.memory_lines),
            "context_snippets": [dict(snippet) for snippet in self.context_snippets],
            "crossed_edges": list(self.crossed_edges),
            "text": self.text,
            "timings_ms": dict(self.timings_ms),
        }


# --- the per-process key cache ----------------------------------------------------------------
#
# Scoring every key exactly (SPEC §5.1 step 3) needs the user's whole key matrix, centred on
# its mean. Fetching and centring 10 000 vectors costs far more than a Read may take, so each
# process keeps the centred matrix per user and only checks, in the same query, whether the
# user's keys changed since. The signature (row count, highest id, a checksum of every row
# version's creating transaction and command — xmin, cmin) changes on every insert (ids only
# grow), delete (count, or id when paired with an insert) and update (the new row version
# carries the updating transaction's xid, or a later command id within one transaction), so
# a stale matrix is never used; a spurious change only costs a reload.
# Only vectors and ids are cached: what a key points at (node, relation) is read fresh for
# the keys that seed, so merges that move keys between nodes are seen at once.

_CACHE_MAX_ROWS = 100_000
"""Total key rows cached per process (≈ 150 MB of float32 at 384 dimensions); LRU by user."""

_ZERO_NORM = 1e-6  # as in memory.core.seeding: a centred vector this short has no direction


@dataclass(frozen=True)
class _KeySet:
    signature: tuple[int, ...]  # (count, max id, Σ xmin, Σ cmin)
    large: bool  # above EXACT_SCAN_MAX_KEYS: HNSW pre-selection, only μ is cached
    mean: np.ndarray | None  # μ over all the user's keys (d,)
    ids: np.ndarray | None = None  # key ids, ascending (exact path only)
    centred: np.ndarray | None = None  # normalise(M − μ), one row per id (exact path only)
    checked_at: float = 0.0  # time.monotonic() of the last signature check (large users)

    @property
    def rows(self) -> int:
        return 0 if self.ids is None else len(self.ids)


_NO_SIGNATURE = (-1, -1, -1, -1)
_cache: OrderedDict[tuple, _KeySet] = OrderedDict()
_cache_lock = threading.Lock()


def clear_key_cache() -> None:
    """Forget every cached key matrix (tests, benchmarks; never needed for correctness)."""
    with _cache_lock:
        _cache.clear()


def _cache_key(user_id: int) -> tuple:
    db = connection.settings_dict
    return (db.get("HOST"), db.get("PORT"), db.get("NAME"), user_id)


def _cache_get(key: tuple) -> _KeySet | None:
    with _cache_lock:
        entry = _cache.get(key)
        if entry is not None:
            _cache.move_to_end(key)
        return entry


def _cache_put(key: tuple, entry: _KeySet) -> None:
    with _cache_lock:
        _cache[key] = entry
        _cache.move_to_end(key)
        total = sum(e.rows for e in _cache.values())
        while total > _CACHE_MAX_ROWS and len(_cache) > 1:
            _, dropped = _cache.popitem(last=False)
            total -= dropped.rows


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


def _vectors(blobs: Iterable[bytes]) -> np.ndarray:
    """Rows of ``vector_send(embedding)`` (int16 dim, int16 0, dim big-endian float32) → (n × d)
    float32. Binary is ~10× cheaper to parse than pgvector's text form."""
    blobs = [bytes(blob) for blob in blobs]
    if not blobs:
        return np.zeros((0, settings.EMBEDDING_DIM), dtype=np.float32)
    width = len(blobs[0]) // 4  # the 4-byte header counts as one column, dropped below
    joined = np.frombuffer(b"".join(blobs), dtype=">f4").reshape(len(blobs), width)
    return joined[:, 1:].astype(np.float32)


def _vector_literal(vector: np.ndarray) -> str:
    # pgvector's text input form, bound as a parameter and cast with ::vector.
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


def _tables() -> dict[str, str]:
    return {
        "keys": MemoryKey._meta.db_table,
        "edges": Edge._meta.db_table,
        "nodes": Node._meta.db_table,
        "snippets": Snippet._meta.db_table,
    }


_SIGNATURE = """
    SELECT count(*) AS n, coalesce(max(id), 0) AS top,
           coalesce(sum(xmin::text::bigint), 0) AS xs, coalesce(sum(cmin::text::bigint), 0) AS cs
    FROM {keys} WHERE user_id = %(user)s
"""

# Signature, plus every key vector when the cached matrix is stale and the user is small
# enough for the exact scan (one round trip either way).
_EXACT_KEYS_SQL = """
    WITH sig AS ({signature})
    SELECT sig.n, sig.top, sig.xs, sig.cs, k.id, vector_send(k.embedding)
    FROM sig LEFT JOIN {keys} k
      ON k.user_id = %(user)s AND sig.n <= %(max_keys)s
     AND (sig.n, sig.top, sig.xs, sig.cs) IS DISTINCT FROM (%(n)s, %(top)s, %(xs)s, %(cs)s)
    ORDER BY k.id
"""

# HNSW pre-selection (SPEC §2, §5.1): per word the top-k keys of this user by raw cosine.
# A shared index with a user filter returns too few rows unless the scan may continue past
# ef_search (iterative_scan); relaxed order is fine because candidates are rescored exactly.
# The settings are SET LOCAL: the statements run as one implicit transaction in autocommit
# mode, and inside a caller's transaction they are set back to the defaults at the end.
# When a check is due (``_MEAN_RECHECK_SECONDS``) the signature is read too, and μ is
# recomputed in SQL if it moved (the scalar subquery only runs in that branch).
_HNSW_SQL = """
    SET LOCAL hnsw.ef_search = {ef};
    SET LOCAL hnsw.iterative_scan = relaxed_order;
    WITH sig AS ({signature}),
    mu AS ({mean}),
    words (i, q) AS (VALUES {words}),
    cand AS (
        SELECT w.i, c.id, c.embedding
        FROM words w CROSS JOIN LATERAL (
            SELECT id, embedding FROM {keys}
            WHERE user_id = %(user)s ORDER BY embedding <=> w.q LIMIT %(k)s
        ) c
    )
    SELECT sig.n, sig.top, sig.xs, sig.cs, mu.v, cand.id, vector_send(cand.embedding)
    FROM sig CROSS JOIN mu LEFT JOIN cand ON true;
    SET LOCAL hnsw.ef_search TO DEFAULT;
    SET LOCAL hnsw.iterative_scan TO DEFAULT
"""
_HNSW_MEAN = """
    SELECT CASE WHEN (sig.n, sig.top, sig.xs, sig.cs)
                     IS DISTINCT FROM (%(n)s, %(top)s, %(xs)s, %(cs)s)
           THEN (SELECT vector_send(avg(embedding)) FROM {keys} WHERE user_id = %(user)s)
           END AS v
    FROM sig
"""
_NO_CHECK = ("SELECT NULL::bigint AS n, NULL::bigint AS top, NULL::numeric AS xs, "
             "NULL::numeric AS cs", "SELECT NULL::bytea AS v")

_MEAN_RECHECK_SECONDS = 60.0
"""How long a large user's μ is trusted without re-reading the signature.

Reading the signature means visiting every key row: ~250 ms at 100 000 keys, more than a Read
may cost, while μ over more than EXACT_SCAN_MAX_KEYS unit vectors moves by at most 2/n per
changed key (< 1e-4 in norm). So a large user's μ is re-validated at most once a minute per
process — its candidates and their vectors are always read fresh, so new keys seed at once;
only μ may lag by the keys written in the last minute. The exact path (≤ EXACT_SCAN_MAX_KEYS
keys) checks its signature on every Read."""


@dataclass
class _Scored:
    """Seed scores of a Read: ``scores`` (w × c) over ``key_ids`` (c columns)."""

    key_ids: np.ndarray
    scores: np.ndarray


def _exact_scores(cursor, user_id: int, vectors: np.ndarray, cached: _KeySet | None,
                  cache_key: tuple) -> _Scored | None:
    """Query 1, exact path. Returns None when the user has too many keys for it."""
    sig = cached.signature if cached is not None and not cached.large else _NO_SIGNATURE
    cursor.execute(
        _EXACT_KEYS_SQL.format(signature=_SIGNATURE.format(**_tables()), **_tables()),
        {"user": user_id, "max_keys": settings.EXACT_SCAN_MAX_KEYS,
         "n": sig[0], "top": sig[1], "xs": sig[2], "cs": sig[3]},
    )
    rows = cursor.fetchall()
    signature = tuple(int(value) for value in rows[0][:4])
    if signature[0] > settings.EXACT_SCAN_MAX_KEYS:
        return None
    if signature != sig:
        matrix = _vectors(row[5] for row in rows if row[4] is not None)
        ids = np.fromiter((row[4] for row in rows if row[4] is not None), dtype=np.int64,
                          count=len(matrix))
        # Same reduction as centred_scores' default ``keys.mean(axis=0)``.
        mean = matrix.mean(axis=0) if len(matrix) else None
        centred = _centre(matrix, mean) if len(matrix) else matrix
        for array in (ids, centred):
            array.setflags(write=False)
        cached = _KeySet(signature=signature, large=False, mean=mean, ids=ids, centred=centred)
        _cache_put(cache_key, cached)
    if cached.rows == 0:
        return _Scored(np.zeros(0, dtype=np.int64), np.zeros((len(vectors), 0), np.float32))
    queries = _centre(vectors, cached.mean)
    return _Scored(cached.ids, queries @ cached.centred.T)


def _hnsw_scores(cursor, user_id: int, vectors: np.ndarray, cached: _KeySet | None,
                 cache_key: tuple) -> _Scored | None:
    """Query 1, HNSW path. Returns None when the user has shrunk below the exact threshold."""
    cached = cached if cached is not None and cached.large else None
    check = cached is None or time.monotonic() - cached.checked_at >= _MEAN_RECHECK_SECONDS
    sig = cached.signature if cached is not None else _NO_SIGNATURE
    k = max(50, settings.HNSW_CANDIDATES_PER_WORD)
    params = {"user": user_id, "k": k, "n": sig[0], "top": sig[1], "xs": sig[2], "cs": sig[3]}
    words_sql = []
    for i, vector in enumerate(vectors):
        params[f"q{i}"] = _vector_literal(vector)
        words_sql.append(f"({i}, %(q{i})s::vector)")
    signature_sql, mean_sql = (
        (_SIGNATURE, _HNSW_MEAN) if check else _NO_CHECK
    )
    sql = _HNSW_SQL.format(
        signature=signature_sql.format(**_tables()), mean=mean_sql.format(**_tables()),
        ef=max(2 * k, 100), words=", ".join(words_sql), **_tables(),
    )
    cursor.execute(sql, params)
    while cursor.description is None and cursor.nextset():
        pass
    rows = cursor.fetchall()
    if check:
        signature = tuple(int(value) for value in rows[0][:4])
        if signature[0] <= settings.EXACT_SCAN_MAX_KEYS:
            return None
        if signature != sig:
            mean = _vectors([rows[0][4]])[0]
        else:
            mean = cached.mean
        cached = _KeySet(signature=signature, large=True, mean=mean,
                         checked_at=time.monotonic())
        _cache_put(cache_key, cached)
    candidates: dict[int, bytes] = {}
    for row in rows:
        if row[5] is not None:
            candidates.setdefault(int(row[5]), row[6])
    ids = np.fromiter(sorted(candidates), dtype=np.int64, count=len(candidates))
    matrix = _vectors(candidates[int(i)] for i in ids)
    # Few candidates: score them with the core function itself, centred on the mean of ALL
    # the user's keys so the score does not depend on which candidates were picked.
    return _Scored(ids, centred_scores(vectors, matrix, mean=cached.mean))


def _score_keys(cursor, user_id: int, vectors: np.ndarray) -> _Scored:
    cache_key = _cache_key(user_id)
    cached = _cache_get(cache_key)
    if cached is not None and cached.large:
        scored = _hnsw_scores(cursor, user_id, vectors, cached, cache_key)
        if scored is None:
            scored = _exact_scores(cursor, user_id, vectors, None, cache_key)
    else:
        scored = _exact_scores(cursor, user_id, vectors, cached, cache_key)
        if scored is None:
            scored = _hnsw_scores(cursor, user_id, vectors, None, cache_key)
    return scored


def _gate_columns(scores: np.ndarray, threshold: float) -> np.ndarray:
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


# --- the other queries ------------------------------------------------------------------------
#
# Current strength and read-time dormancy (SPEC §5.2: below 2.0 or past expiry counts as
# dormant before the daily run flags it) are computed in SQL by the decay service's
# expressions, generated from memory.core.decay's constants and tested equal to
# ``strength_at`` / ``is_dormant``. Parsing two timestamps per edge and calling the core per
# edge in Python cost ~15 µs an edge — most of a Read once a hub is in reach.


def _id_array(ids: Iterable[int]) -> str:
    """A PostgreSQL array literal of ids, to bind as ``%s::bigint[]``.

    Typed bigint (psycopg would send small ids as ``smallint[]``): with the column's own type
    the planner can hash a large ``= ANY(...)`` — measured 754 ms → 31 ms with 8 000 ids —
    and building the literal here is far cheaper than psycopg's per-element list adapter."""
    return "{" + ",".join(str(int(i)) for i in ids) + "}"


def _live_edges(now: datetime, *, alias: str = "e.") -> tuple[str, str, list, list]:
    """``(strength_sql, live_condition_sql, strength_params, condition_params)`` for edges
    aliased ``alias``: not superseded, not flagged dormant, and not dormant at ``now``."""
    strength, strength_params = current_strength_sql(now, alias=alias)
    dormant, dormant_params = dormancy_sql(now, alias=alias)
    condition = (f"{alias}superseded_by_id IS NULL AND NOT {alias}dormant AND NOT {dormant}")
    return strength, condition, strength_params, dormant_params


def _resolve_keys(cursor, user_id: int, key_ids: list[int], now: datetime):
    """Query 2: what the seeding keys point at now — ``{key id: (KeyTarget, text)}``, the
    user's live nodes among their targets, and relation label → ends of its live edges."""
    t = _tables()
    _, live, _, live_params = _live_edges(now)
    ids = _id_array(key_ids)
    cursor.execute(
        f"""
        SELECT k.id, k.node_id, k.relation, k.text, n.id, NULL::bigint
        FROM {t['keys']} k LEFT JOIN {t['nodes']} n ON n.id = k.node_id AND n.user_id = %s
        WHERE k.user_id = %s AND k.id = ANY(%s::bigint[])
        UNION ALL
        SELECT NULL, e.source_id, e.relation, NULL, NULL, e.target_id
        FROM {t['edges']} e
        WHERE e.user_id = %s AND {live}
          AND e.relation IN (SELECT relation FROM {t['keys']}
                             WHERE user_id = %s AND id = ANY(%s::bigint[]) AND node_id IS NULL)
        """,
        [user_id, user_id, ids, user_id, *live_params, user_id, ids],
    )
    targets: dict[int, tuple[KeyTarget, str]] = {}
    live_nodes: set[int] = set()
    relation_ends: dict[str, list[tuple[int, int]]] = {}
    for key_id, node_id, relation, text, node_alive, target in cursor.fetchall():
        if key_id is not None:
            targets[key_id] = (KeyTarget(node_id, relation or None), text)
            if node_alive is not None:
                live_nodes.add(node_alive)
        else:
            relation_ends.setdefault(relation, []).append((node_id, target))
            live_nodes.update((node_id, target))
    return targets, live_nodes, relation_ends


def _load_neighbourhood(cursor, user_id: int, seeds: list[int], hops: int,
                        now: datetime) -> dict[int, EdgeView]:
    """Queries 3 … hops + 2: the live edges (at current strength) incident to every node
    within ``hops − 1`` edges of a seed, one query per hop. Those nodes are the only senders
    of a ``hops``-wave spread, so every sender's degree sum is complete (SPEC §5.2)."""
    strength, live, strength_params, live_params = _live_edges(now)
    # Edges of earlier frontiers were loaded by earlier queries: skipped in SQL, not shipped.
    sql = f"""
        SELECT e.id, e.source_id, e.target_id, e.relation, {strength}
        FROM {_tables()['edges']} e
        WHERE e.user_id = %s
          AND (e.source_id = ANY(%s::bigint[]) OR e.target_id = ANY(%s::bigint[]))
          AND NOT (e.source_id = ANY(%s::bigint[]) OR e.target_id = ANY(%s::bigint[]))
          AND {live}
    """
    loaded: dict[int, EdgeView] = {}
    known = set(seeds)
    frontier = list(seeds)
    done = _id_array(())
    for _ in range(hops):
        if not frontier:
            break
        ids = _id_array(frontier)
        cursor.execute(sql, [*strength_params, user_id, ids, ids, done, done, *live_params])
        reached: set[int] = set()
        for row in cursor.fetchall():
            loaded[row[0]] = EdgeView(*row)
            if row[1] not in known:
                reached.add(row[1])
            if row[2] not in known:
                reached.add(row[2])
        done = _id_array(known)
        known |= reached
        frontier = list(reached)
    return loaded


def _bonus_can_fire_unreached(options: ReadOptions) -> bool:
    return options.co_episode_bonus >= options.fire_threshold


def _contenders(acts: dict[int, Activation], options: ReadOptions) -> dict[int, Activation]:
    """The activation records that can still fire (SPEC §5.2, last two bullets).

    The bonus only adds ``co_episode_bonus`` to a non-seed and never changes a direction, and
    ``select_fired`` takes at most ``budget`` nodes from either side (seed-or-forward,
    reverse). So a node cannot fire when its score + bonus is below the fire threshold, or
    below the ``budget``-th best score already reached on its side. Such nodes are reported
    nowhere; leaving them out changes nothing that fires, and spares copying and sorting
    thousands of records when thousands of nodes are reached. When the bonus alone can fire a
    node, unreached nodes are contenders too, and nothing is left out.
    """
    if _bonus_can_fire_unreached(options):
        return acts
    bonus = max(options.co_episode_bonus, 0.0)
    # The epsilon keeps a node whose score + bonus lands on a bar up to float rounding.
    bar = {"front": options.fire_threshold - 1e-9, "back": options.fire_threshold - 1e-9}
    sides: dict[str, list[float]] = {"front": [], "back": []}
    for act in acts.values():
        sides["back" if act.direction == "reverse" else "front"].append(act.score)
    for side, scores in sides.items():
        if options.budget > 0 and len(scores) >= options.budget:
            scores.sort(reverse=True)
            bar[side] = max(bar[side], scores[options.budget - 1] - 1e-9)
        elif options.budget <= 0:
            return {}
    return {
        node: act for node, act in acts.items()
        if act.score + (0.0 if act.direction == "seed" else bonus)
        >= bar["back" if act.direction == "reverse" else "front"]
    }


def _co_episodes(cursor, user_id: int, acts: dict[int, Activation],
                 contenders: dict[int, Activation],
                 options: ReadOptions) -> dict[int, list[int]]:
    """Query hops + 3: what decides the co-episode bonus of the contenders (SPEC §5.2).

    Returns node → episodes for (a) the non-seed contenders, in the episodes they share with a
    strong node (spread score ≥ fire threshold, judged over *all* reached nodes), and (b) those
    strong partners, in the same episodes. ``apply_co_episode_bonus`` over the contenders plus
    these partners then gives every contender exactly its bonus. When the bonus alone can fire
    a node, every member of the strong nodes' episodes is returned instead, reached or not.
    No query when no contender could gain.
    """
    if options.co_episode_bonus <= 0:
        return {}
    strong = _id_array(node for node, act in acts.items()
                       if act.score >= options.fire_threshold)
    table = NodeEpisode._meta.db_table
    if _bonus_can_fire_unreached(options):
        sql = f"""
            SELECT m.node_id, m.episode_id FROM {table} m
            WHERE m.user_id = %s
              AND m.episode_id IN (SELECT episode_id FROM {table}
                                   WHERE user_id = %s AND node_id = ANY(%s::bigint[]))
        """
        params: list = [user_id, user_id, strong]
    else:
        gaining = [node for node, act in contenders.items() if act.direction != "seed"]
        if not gaining:
            return {}  # seeds never gain the bonus
        sql = f"""
            WITH c AS (SELECT node_id, episode_id FROM {table}
                       WHERE user_id = %s AND node_id = ANY(%s::bigint[])),
                 s AS (SELECT node_id, episode_id FROM {table}
                       WHERE user_id = %s AND node_id = ANY(%s::bigint[]))
            SELECT node_id, episode_id FROM c WHERE episode_id IN (SELECT episode_id FROM s)
            UNION
            SELECT node_id, episode_id FROM s WHERE episode_id IN (SELECT episode_id FROM c)
        """
        params = [user_id, _id_array(gaining), user_id, strong]
    cursor.execute(sql, params)
    out: dict[int, list[int]] = {}
    for node_id, episode_id in cursor.fetchall():
        out.setdefault(node_id, []).append(episode_id)
    return out


_SNIPPET_EDGES_SQL = """
    SELECT 2, r.id, r.source_id, r.target_id, r.relation, r.text, r.strength, r.hot
    FROM (
        SELECT c.*, row_number() OVER (PARTITION BY c.hot ORDER BY c.strength DESC, c.id)
               AS rank
        FROM (
            SELECT h.id AS hot, e.id, e.source_id, e.target_id, e.relation, s.text,
                   {strength} AS strength
            FROM unnest(%s::bigint[]) AS h(id)
            JOIN {edges} e ON e.user_id = %s AND (e.source_id = h.id OR e.target_id = h.id)
            JOIN {snippets} s ON s.id = e.snippet_id AND s.user_id = %s
            WHERE {live} AND btrim(s.text) <> ''
        ) c
    ) r
    WHERE r.rank <= %s
"""


def _snippet_edges_sql(user_id: int, hot_ids: list[int], limit: int,
                       now: datetime) -> tuple[str, list]:
    """The ``limit`` strongest live edges with a snippet per hot node (ties: lower edge id —
    the order ``context_snippets`` takes them in), ranked in SQL so a hot hub ships a few rows,
    not thousands."""
    t = _tables()
    strength, live, strength_params, live_params = _live_edges(now)
    sql = _SNIPPET_EDGES_SQL.format(strength=strength, live=live, **t)
    return sql, [*strength_params, _id_array(hot_ids), user_id, user_id, *live_params, limit]


def _load_injection(cursor, user_id: int, named: list[int], fired: list[Activation],
                    options: ReadOptions, now: datetime):
    """Last query: names and kinds of ``named`` nodes; the live edges among the fired nodes
    (memory lines); and per hot node (score ≥ context threshold) its strongest live edges
    with a snippet (SPEC §5.3). Returns ``(names, edges)``, edges with current strength and,
    for the snippet candidates, their current snippet text.

    Each hot node ships its ``2 × snippets_per_node × (hot nodes + 1)`` strongest candidates
    (at least 32): ``context_snippets`` takes at most ``snippets_per_node`` per node and only
    skips texts already used — by an earlier node (at most ``snippets_per_node`` each) or by
    the node itself (one sentence often justifies several edges). Should a node still run out
    of candidates, all of its snippet edges are fetched in one more query, so the result is
    always exactly the core's over every incident edge.
    """
    t = _tables()
    fired_ids = [act.node_id for act in fired]
    hot_ids = [act.node_id for act in fired if act.score >= options.context_threshold]
    per_node = max(options.snippets_per_node, 0)
    limit = max(32, 2 * per_node * (len(hot_ids) + 1))
    strength, live, strength_params, live_params = _live_edges(now)
    snippet_sql, snippet_params = _snippet_edges_sql(user_id, hot_ids, limit, now)
    cursor.execute(
        f"""
        SELECT 0, n.id, NULL::bigint, NULL::bigint, n.name, n.kind, NULL::float8, NULL::bigint
        FROM {t['nodes']} n WHERE n.user_id = %s AND n.id = ANY(%s::bigint[])
        UNION ALL
        SELECT 1, e.id, e.source_id, e.target_id, e.relation, NULL::text, {strength},
               NULL::bigint
        FROM {t['edges']} e
        WHERE e.user_id = %s AND {live}
          AND e.source_id = ANY(%s::bigint[]) AND e.target_id = ANY(%s::bigint[])
        UNION ALL
        {snippet_sql}
        """,
        [user_id, _id_array(named), *strength_params, user_id, *live_params,
         _id_array(fired_ids), _id_array(fired_ids), *snippet_params],
    )
    names: dict[int, tuple[str, str]] = {}
    with_text: list[LineEdge] = []
    lines_only: list[LineEdge] = []
    shipped: dict[int, int] = {}
    for part, row_id, source, target, text_a, text_b, strength_now, hot in cursor.fetchall():
        if part == 0:
            names[row_id] = (text_a, text_b)
        elif part == 1:
            lines_only.append(LineEdge(row_id, source, target, text_a, strength_now, None))
        else:
            with_text.append(LineEdge(row_id, source, target, text_a, strength_now, text_b))
            shipped[hot] = shipped.get(hot, 0) + 1
    # The core keeps the first copy of an edge id: the one carrying its snippet comes first.
    edges = with_text + lines_only

    truncated = [node for node in hot_ids if shipped.get(node, 0) >= limit > 0]
    if truncated:
        named_fired = [act for act in fired if act.node_id in names]
        display = {node: name for node, (name, _) in names.items()}
        taken = context_snippets(named_fired, edges, display,
                                 threshold=options.context_threshold, per_node=per_node)
        by_id = {edge.id: edge for edge in with_text}
        short = [
            node for node in truncated if node in display and sum(
                1 for s in taken if s["node"] == display[node]
                and node in (by_id[s["edge"]].source, by_id[s["edge"]].target)) < per_node
        ]
        if short:
            sql, params = _snippet_edges_sql(user_id, short, 2**31 - 1, now)
            cursor.execute(sql, params)
            extra = [LineEdge(row[1], row[2], row[3], row[4], row[6], row[5])
                     for row in cursor.fetchall()]
            edges = extra + edges
    return names, edges


# --- passages (strategy "default") ------------------------------------------------------------
#
# The sentences of the user's earlier turns — user-role messages of conversations that ended
# into a non-skipped episode (so never incognito ones) — scored against the whole message by
# the sentence model and BM25 (memory.core.passages). Their vectors and the BM25 index are kept
# per process and user, checked on every Read by the same kind of signature as the key cache
# (count, highest id, Σ xmin of the rows), so only a changed history is re-split; re-embedding
# goes through memory.embedding's text cache, so a new conversation costs the embedding of its
# own sentences. A user with more than PASSAGE_MAX_MESSAGES such turns gets passages from the
# latest ones.

PASSAGE_MAX_MESSAGES = 5_000
_PASSAGE_CACHE_MAX = 50_000  # sentences cached per process (≈ 77 MB of vectors), LRU by user


@dataclass(frozen=True)
class _PassageSet:
    signature: tuple[int, int, int]
    shape: tuple[int, bool, float]  # (min_words, speaker_vectors, context) it was built with
    message_ids: np.ndarray  # per sentence
    conversation_ids: np.ndarray
    labels: tuple[str, ...]  # "Priya, 27 May 2023"
    speakers: tuple[str, ...]
    dates: tuple[str, ...]
    texts: tuple[str, ...]  # the sentence, verbatim
    vectors: np.ndarray  # (sentences × d), unit rows
    lexical: LexicalIndex
    replies: dict[int, list[int]]  # message id → sentences of the next turn, when another
    #                               speaker said it (a replayed dialogue)

    @property
    def rows(self) -> int:
        return len(self.texts)


_passage_cache: OrderedDict[tuple, _PassageSet] = OrderedDict()

_PASSAGE_SQL = """
    WITH m AS (
        SELECT msg.id, msg.conversation_id, msg.speaker, msg.text, msg.created_at,
               msg.xmin::text::bigint AS xv
        FROM {messages} msg
        JOIN {conversations} c ON c.id = msg.conversation_id AND c.user_id = %(user)s
        JOIN {episodes} ep ON ep.conversation_id = msg.conversation_id AND ep.user_id = %(user)s
        WHERE msg.user_id = %(user)s AND msg.role = 'user' AND NOT c.incognito
          AND ep.status <> 'skipped'
    ),
    sig AS (SELECT count(*) AS n, coalesce(max(id), 0) AS top, coalesce(sum(xv), 0) AS xs
            FROM m),
    fresh AS (
        SELECT m.* FROM m, sig
        WHERE (sig.n, sig.top, sig.xs) IS DISTINCT FROM (%(n)s, %(top)s, %(xs)s)
        ORDER BY m.id DESC LIMIT %(max)s
    )
    SELECT sig.n, sig.top, sig.xs, f.id, f.conversation_id, f.speaker, f.text, f.created_at
    FROM sig LEFT JOIN fresh f ON true
    ORDER BY f.id
"""


def clear_passage_cache() -> None:
    """Forget every cached passage set (tests, benchmarks; never needed for correctness)."""
    with _cache_lock:
        _passage_cache.clear()


def _said_on(moment: datetime) -> str:
    return f"{moment.day} {moment:%B %Y}"


def _build_passages(signature: tuple[int, int, int], rows, min_words: int,
                    speaker_vectors: bool, context: float) -> _PassageSet:
    message_ids, conversation_ids, speakers, dates, texts, units = [], [], [], [], [], []
    for message_id, conversation_id, speaker, text, created_at in rows:
        speaker = (speaker or "").strip()
        for sentence in split_sentences(text or ""):
            if len(lexical_terms(sentence)) < min_words:
                continue
            message_ids.append(message_id)
            conversation_ids.append(conversation_id)
            speakers.append(speaker)
            dates.append(_said_on(created_at))
            texts.append(sentence)
            units.append(f"{speaker}: {sentence}" if speaker else sentence)
    # The speaker's name is part of what a sentence is about ("Priya's dog"), for BM25; in the
    # vector it makes every sentence of a speaker close to any message naming them.
    embedded = units if speaker_vectors else texts
    vectors = (embedding.embed(embedded) if embedded
               else np.zeros((0, settings.EMBEDDING_DIM), dtype=np.float32))
    replies: dict[int, list[int]] = {}
    by_message: dict[int, list[int]] = {}
    for i, message_id in enumerate(message_ids):
        by_message.setdefault(message_id, []).append(i)
    last: dict[int, tuple[int, str]] = {}
    for message_id, conversation_id, speaker, _, _ in rows:
        before = last.get(conversation_id)
        speaker = (speaker or "").strip()
        if before is not None and speaker and before[1] and speaker != before[1]:
            replies[before[0]] = by_message.get(message_id, [])
        last[conversation_id] = (message_id, speaker)
    if context > 0 and len(vectors):
        vectors = _in_context(vectors, message_ids, conversation_ids, context)
    vectors.setflags(write=False)
    return _PassageSet(
        signature=signature, shape=(min_words, speaker_vectors, context),
        message_ids=np.asarray(message_ids, dtype=np.int64),
        conversation_ids=np.asarray(conversation_ids, dtype=np.int64),
        labels=tuple(f"{who or 'you'}, {day}" for who, day in zip(speakers, dates, strict=True)),
        speakers=tuple(speakers), dates=tuple(dates), texts=tuple(texts), vectors=vectors,
        lexical=LexicalIndex([lexical_terms(unit) for unit in units]), replies=replies,
    )


def _in_context(vectors: np.ndarray, message_ids: list[int], conversation_ids: list[int],
                weight: float) -> np.ndarray:
    """Each sentence vector moved towards its turn and the turn before it in the same
    conversation: ``normalise(v + weight · (mean of the turn) + weight · (mean of the previous
    turn))`` — what the sentence answers is often in the turn before ("Any news on the plan?"
    → "I opened a savings account")."""
    turns: dict[int, list[int]] = {}
    for i, message_id in enumerate(message_ids):
        turns.setdefault(message_id, []).append(i)
    means = {m: vectors[rows].mean(axis=0) for m, rows in turns.items()}
    previous: dict[int, int | None] = {}
    last: dict[int, int] = {}
    for message_id, conversation_id in dict.fromkeys(zip(message_ids, conversation_ids,
                                                         strict=True)):
        previous[message_id] = last.get(conversation_id)
        last[conversation_id] = message_id
    out = vectors.astype(np.float32).copy()
    for i, message_id in enumerate(message_ids):
        out[i] += weight * means[message_id]
        if previous[message_id] is not None:
            out[i] += weight * means[previous[message_id]]
    out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-6)
    return out


def _load_passages(cursor, user_id: int, options: ReadOptions) -> _PassageSet:
    """One query: the signature of the user's passage turns, and the turns when it moved."""
    from chat.models import Conversation, Message
    from memory.models import Episode

    key = _cache_key(user_id)
    with _cache_lock:
        cached = _passage_cache.get(key)
        if cached is not None:
            _passage_cache.move_to_end(key)
    shape = (options.passage_min_words, bool(options.passage_speaker_vectors),
             float(options.passage_context))
    if cached is not None and cached.shape != shape:
        cached = None
    sig = cached.signature if cached is not None else (-1, -1, -1)
    cursor.execute(
        _PASSAGE_SQL.format(messages=Message._meta.db_table,
                            conversations=Conversation._meta.db_table,
                            episodes=Episode._meta.db_table),
        {"user": user_id, "n": sig[0], "top": sig[1], "xs": sig[2],
         "max": PASSAGE_MAX_MESSAGES},
    )
    rows = cursor.fetchall()
    signature = tuple(int(value) for value in rows[0][:3])
    if cached is not None and signature == cached.signature:
        return cached
    built = _build_passages(signature, [row[3:] for row in rows if row[3] is not None], *shape)
    with _cache_lock:
        _passage_cache[key] = built
        _passage_cache.move_to_end(key)
        total = sum(entry.rows for entry in _passage_cache.values())
        while total > _PASSAGE_CACHE_MAX and len(_passage_cache) > 1:
            _, dropped = _passage_cache.popitem(last=False)
            total -= dropped.rows
    return built


def _score_passages(cursor, user_id: int, words: list[str], message_vector: np.ndarray,
                    options: ReadOptions) -> tuple[_PassageSet, np.ndarray]:
    """The user's passage set and each sentence's hybrid score for this message."""
    found = _load_passages(cursor, user_id, options)
    if not found.rows:
        return found, np.zeros(0)
    scale = found.lexical.ceiling(words) if options.passage_lexical_ceiling else None
    return found, hybrid_scores(found.vectors @ message_vector, found.lexical.scores(words),
                                lexical_weight=options.passage_lexical_weight, scale=scale)


def _relevant_snippets(snippets: list[dict], found: _PassageSet, scores: np.ndarray,
                       options: ReadOptions) -> list[dict]:
    """Graph snippets whose sentence is also a passage scoring below the passage threshold are
    left out (the node is relevant, that memory of it is not); the others stay, in order."""
    best: dict[str, float] = {}
    for text, score in zip(found.texts, scores, strict=True):
        key = " ".join(text.split())
        best[key] = max(best.get(key, -1.0), float(score))
    return [snippet for snippet in snippets
            if best.get(" ".join(snippet["text"].split()), 1.0) >= options.passage_threshold]


def _pick_passages(found: _PassageSet, scores: np.ndarray, conversation, exclude: list[str],
                   options: ReadOptions) -> list[Passage]:
    """The best sentences of earlier conversations for this message (strategy "default"):
    hybrid score ≥ ``passage_threshold``, at most ``passages``, at most ``passages_per_turn``
    per turn, none of the current conversation, none repeating a graph snippet."""
    if not found.rows:
        return []
    allowed = (found.conversation_ids != conversation.pk) if conversation is not None else None
    instead = None
    if options.passage_replies:
        instead = [-1] * found.rows
        for i, text in enumerate(found.texts):
            reply = found.replies.get(int(found.message_ids[i]))
            if text.rstrip().endswith("?") and reply:
                instead[i] = max(reply, key=lambda j: (scores[j], -j))
    chosen = select_passages(scores, found.texts, limit=options.passages,
                             threshold=options.passage_threshold, exclude=exclude,
                             allowed=allowed, groups=found.message_ids.tolist(),
                             per_group=options.passages_per_turn, instead=instead)
    return [Passage(int(found.message_ids[i]), found.speakers[i], found.dates[i],
                    found.texts[i]) for i in chosen]


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000.0, 2)


def recall(*, user, message: str, now: datetime, conversation=None,
           options: ReadOptions | None = None) -> ReadRecord:
    """Recall what ``message`` touches in ``user``'s graph (SPEC §5.1–§5.3) as a ReadRecord.

    Inputs: ``user`` (instance or id), the message text, ``now`` (timezone-aware; current
    strengths and expiry are judged at this instant), optionally the ``conversation`` the
    message belongs to (must be the user's), and ``options`` (default: the settings).

    ``options.strategy``: ``"spec"`` is SPEC §5.1–§5.3 exactly. ``"default"`` runs the same
    graph Read and then adds *passages*: the best-matching sentences of the user's earlier,
    ended conversations (not the current one), scored by the sentence model and BM25
    (``memory.core.passages``), at most ``options.passages`` of them, appended to
    ``[CONTEXT]`` with who said them and when, and listed in ``context_snippets`` as
    ``{"node": "<speaker>, <date>", "edge": None, "text", "message": <message id>}``. They
    cost one more query, and their scoring time is counted in ``timings_ms["seed"]``.

    With a conversation that is not incognito, the crossed edges are logged as Traversal rows
    (once per conversation and edge, ``crossed_at = now``) for reinforcement at its Write.
    Nothing else is written. Raises ValueError for a naive ``now`` or another user's
    conversation.
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"now must be timezone-aware, got {now!r}")
    user_id = user if isinstance(user, int) else user.pk
    if conversation is not None and conversation.user_id != user_id:
        raise ValueError("the conversation belongs to another user")
    options = options if options is not None else ReadOptions()
    if options.strategy not in STRATEGIES:
        raise ValueError(f"unknown Read strategy {options.strategy!r}")
    with_passages = options.strategy == "default" and options.passages > 0
    timings = {"embed": 0.0, "seed": 0.0, "spread": 0.0, "format": 0.0}

    words = content_words(message)
    if not words or user_id is None:
        return ReadRecord(words=words, timings_ms=timings)

    started = time.perf_counter()
    # Passages are scored against the whole message, embedded with the words in one call.
    embedded = embedding.embed([*words, message] if with_passages else words)
    vectors, message_vector = embedded[:len(words)], embedded[-1]
    timings["embed"] = _ms(started)

    fired: list[Activation] = []
    crossed: list[int] = []
    names: dict[int, tuple[str, str]] = {}
    line_edges: list[LineEdge] = []
    with connection.cursor() as cursor:
        # --- seeding (SPEC §5.1) ---
        started = time.perf_counter()
        scored = _score_keys(cursor, user_id, vectors)
        columns = _gate_columns(scored.scores, options.seed_threshold)
        hits = select_seed_keys(
            words, scored.scores[:, columns], threshold=options.seed_threshold,
            margin_floor=options.margin_floor, margin=options.margin,
        )
        hit_key_ids = [int(scored.key_ids[columns[hit.key_index]]) for hit in hits]
        seeded: dict[int, SeedHit] = {}
        key_targets: dict[int, tuple[KeyTarget, str]] = {}
        if hits:
            key_targets, live_nodes, relation_ends = _resolve_keys(
                cursor, user_id, sorted(set(hit_key_ids)), now)
            # A key deleted since it was scored has no row: it points at nothing.
            gone = (KeyTarget(None, None), "")
            targets = [key_targets.get(key_id, gone)[0] for key_id in hit_key_ids]
            indexed = [SeedHit(hit.word, i, hit.similarity) for i, hit in enumerate(hits)]
            seeded = resolve_seed_nodes(indexed, targets, relation_ends, live_nodes)
        seed_ids = list(seeded)
        timings["seed"] = _ms(started)
        if not seed_ids and not with_passages:
            return ReadRecord(words=words, timings_ms=timings)

        if seed_ids:
            # --- spreading activation (SPEC §5.2) ---
            started = time.perf_counter()
            edges = _load_neighbourhood(cursor, user_id, seed_ids, options.hops, now)
            acts, crossed = spread(seed_ids, list(edges.values()), hops=options.hops,
                                   factor=options.spread_factor)
            contenders = _contenders(acts, options)
            node_episodes = _co_episodes(cursor, user_id, acts, contenders, options)
            if node_episodes:
                # The strong partners ride along so the core sees who they are; a partner that
                # is not a contender still cannot fire (see _contenders).
                partners = {node: acts[node] for node in node_episodes
                            if node in acts and node not in contenders}
                contenders = apply_co_episode_bonus({**contenders, **partners}, node_episodes,
                                                    threshold=options.fire_threshold,
                                                    bonus=options.co_episode_bonus)
            fired = select_fired(contenders, threshold=options.fire_threshold,
                                 budget=options.budget, forward_share=options.forward_share)
            timings["spread"] = _ms(started)

            # --- injection (SPEC §5.3) ---
            started = time.perf_counter()
            names, line_edges = _load_injection(
                cursor, user_id, sorted(set(seed_ids) | {act.node_id for act in fired}),
                fired, options, now,
            )
        else:
            started = time.perf_counter()
        # Reads take no lock: a node deleted by a concurrent merge after it was reached has no
        # name row, and is dropped rather than shown nameless.
        fired = [act for act in fired if act.node_id in names]
        fired_ids = [act.node_id for act in fired]
        display = {node_id: name for node_id, (name, _) in names.items()}
        lines = [line for _, line in memory_lines(fired_ids, line_edges, display)]
        snippets = context_snippets(fired, line_edges, display,
                                    threshold=options.context_threshold,
                                    per_node=options.snippets_per_node)
        timings["format"] = _ms(started)

        passages: list[Passage] = []
        if with_passages:
            started = time.perf_counter()
            found, scores = _score_passages(cursor, user_id, words, message_vector, options)
            if options.filter_snippets and found.rows:
                snippets = _relevant_snippets(snippets, found, scores, options)
            passages = _pick_passages(found, scores, conversation,
                                      [snippet["text"] for snippet in snippets], options)
            timings["seed"] = round(timings["seed"] + _ms(started), 2)

    started = time.perf_counter()
    text = format_with_passages(lines, [snippet["text"] for snippet in snippets], passages)
    snippets += [{"node": f"{p.speaker or 'you'}, {p.said_on}", "edge": None, "text": p.text,
                  "message": p.message_id} for p in passages]
    timings["format"] = round(timings["format"] + _ms(started), 2)

    if conversation is not None and not conversation.incognito and crossed:
        Traversal.objects.bulk_create(
            [Traversal(user_id=user_id, conversation_id=conversation.pk, edge_id=edge_id,
                       crossed_at=now) for edge_id in crossed],
            ignore_conflicts=True,
        )

    return ReadRecord(
        words=words,
        seeds=[
            {"name": names[node_id][0], "kind": names[node_id][1],
             "key": key_targets[hit_key_ids[hit.key_index]][1],
             "similarity": round(hit.similarity, 4)}
            for node_id, hit in seeded.items() if node_id in names
        ],
        fired=[
            {"id": act.node_id, "name": names[act.node_id][0], "kind": names[act.node_id][1],
             "score": round(act.score, 4), "direction": act.direction, "hop": act.hop}
            for act in fired
        ],
        memory_lines=lines,
        context_snippets=snippets,
        crossed_edges=crossed,
        text=text,
        timings_ms=timings,
    )
