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
from django.db import connection, transaction

from memory import embedding
from memory.core.activation import (
    Activation,
    EdgeView,
    apply_co_episode_bonus,
    select_fired,
    spread,
)
from memory.core.injection import LineEdge, context_snippets, format_block, memory_lines
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

__all__ = ["ReadOptions", "ReadRecord", "clear_key_cache", "recall"]


def _setting(name: str):
    # Bound late so that ``ReadOptions()`` reads the settings when it is built (tests and
    # operators change them at run time), never at import time.
    return field(default_factory=lambda: getattr(settings, name))


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
# μ is recomputed in SQL only when the signature moved (the scalar subquery is lazy).
_HNSW_SQL = """
    SET LOCAL hnsw.ef_search = {ef};
    SET LOCAL hnsw.iterative_scan = relaxed_order;
    WITH sig AS ({signature}),
    mu AS (
        SELECT CASE WHEN (sig.n, sig.top, sig.xs, sig.cs)
                         IS DISTINCT FROM (%(n)s, %(top)s, %(xs)s, %(cs)s)
               THEN (SELECT vector_send(avg(embedding)) FROM {keys} WHERE user_id = %(user)s)
               END AS v
        FROM sig
    ),
    words (i, q) AS (VALUES {words}),
    cand AS (
        SELECT w.i, c.id, c.embedding
        FROM words w CROSS JOIN LATERAL (
            SELECT id, embedding FROM {keys}
            WHERE user_id = %(user)s ORDER BY embedding <=> w.q LIMIT %(k)s
        ) c
    )
    SELECT sig.n, sig.top, sig.xs, sig.cs, mu.v, cand.id, vector_send(cand.embedding)
    FROM sig CROSS JOIN mu LEFT JOIN cand ON sig.n > 0
"""


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
    sig = cached.signature if cached is not None and cached.large else _NO_SIGNATURE
    k = max(50, settings.HNSW_CANDIDATES_PER_WORD)
    params = {"user": user_id, "k": k, "n": sig[0], "top": sig[1], "xs": sig[2], "cs": sig[3]}
    words_sql = []
    for i, vector in enumerate(vectors):
        params[f"q{i}"] = _vector_literal(vector)
        words_sql.append(f"({i}, %(q{i})s::vector)")
    sql = _HNSW_SQL.format(
        signature=_SIGNATURE.format(**_tables()), ef=max(2 * k, 100),
        words=", ".join(words_sql), **_tables(),
    )
    # SET LOCAL needs a transaction; savepoint=False adds no statements inside an outer one.
    with transaction.atomic(savepoint=False):
        cursor.execute(sql, params)
        while cursor.description is None and cursor.nextset():
            pass
        rows = cursor.fetchall()
    signature = tuple(int(value) for value in rows[0][:4])
    if signature[0] <= settings.EXACT_SCAN_MAX_KEYS:
        return None
    if signature != sig:
        mean = _vectors([rows[0][4]])[0]
        cached = _KeySet(signature=signature, large=True, mean=mean)
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


def _load_injection(cursor, user_id: int, named: list[int], fired_ids: list[int],
                    hot_ids: list[int], now: datetime):
    """Last query: names and kinds of ``named`` nodes, and the live edges (current strength,
    current snippet text) among the fired nodes or incident to a hot one (SPEC §5.3)."""
    t = _tables()
    strength, live, strength_params, live_params = _live_edges(now)
    cursor.execute(
        f"""
        SELECT 0, n.id, NULL::bigint, NULL::bigint, n.name, n.kind, NULL::float8
        FROM {t['nodes']} n WHERE n.user_id = %s AND n.id = ANY(%s::bigint[])
        UNION ALL
        SELECT 1, e.id, e.source_id, e.target_id, e.relation, s.text, {strength}
        FROM {t['edges']} e LEFT JOIN {t['snippets']} s ON s.id = e.snippet_id AND s.user_id = %s
        WHERE e.user_id = %s AND {live}
          AND ((e.source_id = ANY(%s::bigint[]) AND e.target_id = ANY(%s::bigint[]))
               OR e.source_id = ANY(%s::bigint[]) OR e.target_id = ANY(%s::bigint[]))
        """,
        [user_id, _id_array(named), *strength_params, user_id, user_id, *live_params,
         _id_array(fired_ids), _id_array(fired_ids), _id_array(hot_ids), _id_array(hot_ids)],
    )
    names: dict[int, tuple[str, str]] = {}
    edges: list[LineEdge] = []
    for part, row_id, source, target, text_a, text_b, strength_now in cursor.fetchall():
        if part == 0:
            names[row_id] = (text_a, text_b)
        else:
            edges.append(LineEdge(row_id, source, target, text_a, strength_now, text_b))
    return names, edges


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000.0, 2)


def recall(*, user, message: str, now: datetime, conversation=None,
           options: ReadOptions | None = None) -> ReadRecord:
    """Recall what ``message`` touches in ``user``'s graph (SPEC §5.1–§5.3) as a ReadRecord.

    Inputs: ``user`` (instance or id), the message text, ``now`` (timezone-aware; current
    strengths and expiry are judged at this instant), optionally the ``conversation`` the
    message belongs to (must be the user's), and ``options`` (default: the settings).

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
    timings = {"embed": 0.0, "seed": 0.0, "spread": 0.0, "format": 0.0}

    words = content_words(message)
    if not words or user_id is None:
        return ReadRecord(words=words, timings_ms=timings)

    started = time.perf_counter()
    vectors = embedding.embed(words)
    timings["embed"] = _ms(started)

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
        if not seed_ids:
            return ReadRecord(words=words, timings_ms=timings)

        # --- spreading activation (SPEC §5.2) ---
        started = time.perf_counter()
        edges = _load_neighbourhood(cursor, user_id, seed_ids, options.hops, now)
        acts, crossed = spread(seed_ids, list(edges.values()), hops=options.hops,
                               factor=options.spread_factor)
        contenders = _contenders(acts, options)
        node_episodes = _co_episodes(cursor, user_id, acts, contenders, options)
        if node_episodes:
            # The strong partners ride along so the core sees who they are; a partner that is
            # not a contender still cannot fire (see _contenders).
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
            [act.node_id for act in fired],
            [act.node_id for act in fired if act.score >= options.context_threshold], now,
        )
    # Reads take no lock: a node deleted by a concurrent merge after it was reached has no
    # name row, and is dropped rather than shown nameless.
    fired = [act for act in fired if act.node_id in names]
    fired_ids = [act.node_id for act in fired]
    display = {node_id: name for node_id, (name, _) in names.items()}
    lines = [line for _, line in memory_lines(fired_ids, line_edges, display)]
    snippets = context_snippets(fired, line_edges, display, threshold=options.context_threshold,
                                per_node=options.snippets_per_node)
    text = format_block(lines, [snippet["text"] for snippet in snippets])
    timings["format"] = _ms(started)

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
