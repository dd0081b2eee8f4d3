"""The Read path: content words → seeds → spreading activation → injected text (SPEC §5.1–§5.3).

``recall(user=..., message=..., now=...)`` runs before every assistant reply. It loads only
the part of one user's graph the message touches, in a fixed number of queries, calls the pure
algorithms of ``memory.core`` and returns a ``ReadRecord`` (SPEC §6.4). A Read takes no lock
and changes nothing except appending the Traversal rows of its conversation (SPEC §3).

Queries per Read (no conversation), whatever the size of the graph:

1. the user's keys: only the user's graph version when the in-process key cache is current,
   the key vectors when it is not; above ``EXACT_SCAN_MAX_KEYS`` keys, the HNSW candidates instead
   (the first Read of such a user in a process pays one more query to learn its size);
2. the user's graph version — and, only when it changed since this process last saw it, the
   whole snapshot the spreading walks (``memory.services.snapshot``): nodes, conducting
   edges, episode memberships, what each key points at;
3. names of the fired nodes, and the live edges among them with their snippets (+ 1 when a
   hot node's strongest snippets are all repeats).

Seeding resolution, spreading and the co-episode bonus then run in memory over the snapshot
(``memory.core.activation_arrays``, held equal to ``memory.core.activation``), so a Read that
seeds thousands of nodes costs milliseconds, not a query per hop. + 1 INSERT for the
Traversal rows when a conversation is given (strategy "spec"; Read v2 is in ranked_read).
Every query filters on the user's id.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from django.conf import settings
from django.db import connection

from memory import embedding
from memory.core.activation import FORWARD, REVERSE, SEED, Activation, select_fired
from memory.core.activation_arrays import co_episode_gainers, spread_arrays
from memory.core.injection import LineEdge, context_snippets, format_block, memory_lines
from memory.core.seeding import (
    KeyTarget,
    SeedHit,
    centred_scores,
    resolve_seed_offers,
    select_seed_keys,
)
from memory.core.words import content_words
from memory.models import Edge, GraphVersion, MemoryKey, Node, Snippet, Traversal
from memory.services.caches import UserLRU, user_key
from memory.services.snapshot import GraphSnapshot, clear_snapshot_cache, load_snapshot

__all__ = ["STRATEGIES", "ReadOptions", "ReadRecord", "clear_key_cache", "recall"]


def _setting(name: str, fallback=None):
    # Bound late so that ``ReadOptions()`` reads the settings when it is built (tests and
    # operators change them at run time), never at import time.
    return field(default_factory=lambda: getattr(settings, name, fallback))


STRATEGIES = ("spec", "graph", "default")
"""``spec``: SPEC §5.1–§5.3 exactly (the reference). ``graph`` and ``default``: Read v2 (SPEC
§5.7, ``memory.services.ranked_read``): precise seeds, ranked candidates packed to
``MEMORY_BUDGET_TOKENS`` — from the graph only, or from the graph and the sentence store."""


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
    # Strategy "default": which stored sentences may be injected (SPEC §5.7).
    passage_threshold: float = _setting("MEMORY_PASSAGE_THRESHOLD", 0.30)
    passage_min_bm25: float = _setting("MEMORY_PASSAGE_MIN_BM25", 3.0)
    passage_min_words: int = _setting("MEMORY_PASSAGE_MIN_WORDS", 3)
    # Read v2, strategies "graph" and "default" (SPEC §5.7):
    budget_tokens: int = _setting("MEMORY_BUDGET_TOKENS", 200)
    seeds_per_word: int = _setting("MEMORY_SEEDS_PER_WORD", 3)
    relation_edges: int = _setting("MEMORY_RELATION_EDGES", 3)
    max_seeds: int = _setting("MEMORY_MAX_SEEDS", 32)
    graph_edges: int = _setting("MEMORY_GRAPH_EDGES", 40)
    graph_floor: float = _setting("MEMORY_GRAPH_FLOOR", 0.05)
    graph_weight: float = _setting("MEMORY_GRAPH_WEIGHT", 0.5)
    graph_lines: int = _setting("MEMORY_GRAPH_LINES", 3)
    graph_snippets: int = _setting("MEMORY_GRAPH_SNIPPETS", 400)
    sentence_tokens: int = _setting("MEMORY_SENTENCE_TOKENS", 20)

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

    def to_dict(self, *, limit: int | None = None) -> dict:
        """The SPEC §6.4 JSON object: exactly its eight keys, as fresh (mutable) copies.

        With ``limit``, ``seeds`` keeps only the ``limit`` most similar seeds (in seeding
        order) and ``crossed_edges`` its first ``limit`` ids, and a ninth key ``"omitted"``
        counts what was left out (``{"seeds": n, "crossed_edges": m}``) — for the chat's
        recalled panel and stored messages, where a Read seeding thousands of nodes on a large
        graph would otherwise ship hundreds of kilobytes per turn. Without ``limit`` (the
        API's recall endpoint, ``manage.py recall --json``) nothing is left out."""
        seeds, crossed = self.seeds, self.crossed_edges
        if limit is not None and (len(seeds) > limit or len(crossed) > limit):
            keep = sorted(range(len(seeds)), key=lambda i: -seeds[i]["similarity"])[:limit]
            seeds = [seeds[i] for i in sorted(keep)]
            crossed = crossed[:limit]
        out = {
            "words": list(self.words),
            "seeds": [dict(seed) for seed in seeds],
            "fired": [dict(node) for node in self.fired],
            "memory_lines": list(self.memory_lines),
            "context_snippets": [dict(snippet) for snippet in self.context_snippets],
            "crossed_edges": list(crossed),
            "text": self.text,
            "timings_ms": dict(self.timings_ms),
        }
        if seeds is not self.seeds:
            out["omitted"] = {"seeds": len(self.seeds) - len(seeds),
                              "crossed_edges": len(self.crossed_edges) - len(crossed)}
        return out


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
    lambda: getattr(settings, "MEMORY_KEY_CACHE_ROWS", _CACHE_MAX_ROWS_DEFAULT))
_cache = _keys.entries  # key → _KeySet, for inspection (tests)
_cache_key = user_key


def clear_key_cache() -> None:
    """Forget every cached key matrix and graph snapshot (tests, benchmarks; never needed for
    correctness)."""
    _keys.clear()
    clear_snapshot_cache()


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
        "versions": GraphVersion._meta.db_table,
    }


# The user's graph version, and whether it differs from the cached entry's (or the user has
# no version row: then nothing is cached).
_VERSION = """
    v AS (SELECT (SELECT version FROM {versions} WHERE user_id = %(user)s) AS version),
    stale AS (SELECT 1 FROM v WHERE v.version IS NULL OR v.version IS DISTINCT FROM %(cached)s)
"""

# Version; when stale, the key count and — when the user is small enough for the exact scan —
# every key vector (one round trip either way).
_EXACT_KEYS_SQL = """
    WITH {version},
    c AS (SELECT count(*) AS n FROM {keys}
          WHERE user_id = %(user)s AND EXISTS (SELECT 1 FROM stale))
    SELECT v.version, c.n, k.id, vector_send(k.embedding)
    FROM v CROSS JOIN c LEFT JOIN {keys} k
      ON k.user_id = %(user)s AND EXISTS (SELECT 1 FROM stale) AND c.n <= %(max_keys)s
    ORDER BY k.id
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
class _Scored:
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


def _exact_scores(cursor, user_id: int, vectors: np.ndarray, cached: _KeySet | None,
                  cache_key: tuple) -> _Scored | None:
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
        matrix = _vectors(row[3] for row in rows if row[2] is not None)
        ids = np.fromiter((row[2] for row in rows if row[2] is not None), dtype=np.int64,
                          count=len(matrix))
        # Same reduction as centred_scores' default ``keys.mean(axis=0)``.
        mean = matrix.mean(axis=0) if len(matrix) else None
        centred = _centre(matrix, mean) if len(matrix) else matrix
        for array in (ids, centred):
            array.setflags(write=False)
        cached = _KeySet(version=version, n=n, threshold=settings.EXACT_SCAN_MAX_KEYS,
                         large=False, mean=mean, ids=ids, centred=centred)
        if version is not None:
            _keys.put(cache_key, cached)
    if cached.rows == 0:
        return _Scored(np.zeros(0, dtype=np.int64), np.zeros((len(vectors), 0), np.float32))
    queries = _centre(vectors, cached.mean)
    return _Scored(cached.ids, queries @ cached.centred.T)


def _hnsw_scores(cursor, user_id: int, vectors: np.ndarray, cached: _KeySet | None,
                 cache_key: tuple) -> _Scored | None:
    """Query 1, HNSW path. Returns None when the user has shrunk below the exact threshold."""
    known = _known_version(cached, large=True)
    k = max(50, settings.HNSW_CANDIDATES_PER_WORD)
    params = {"user": user_id, "k": k, "cached": known}
    words_sql = []
    for i, vector in enumerate(vectors):
        params[f"q{i}"] = _vector_literal(vector)
        words_sql.append(f"({i}, %(q{i})s::vector)")
    sql = _HNSW_SQL.format(version=_VERSION.format(**_tables()), ef=max(2 * k, 100),
                           words=", ".join(words_sql), **_tables())
    cursor.execute(sql, params)
    while cursor.description is None and cursor.nextset():
        pass
    rows = cursor.fetchall()
    version = rows[0][0]
    if known is None or version != known:
        n = int(rows[0][1])
        if n <= settings.EXACT_SCAN_MAX_KEYS:
            return None
        cached = _KeySet(version=version, n=n, threshold=settings.EXACT_SCAN_MAX_KEYS,
                         large=True, mean=_vectors([rows[0][2]])[0])
        if version is not None:
            _keys.put(cache_key, cached)
    candidates: dict[int, bytes] = {}
    for row in rows:
        if row[3] is not None:
            candidates.setdefault(int(row[3]), row[4])
    ids = np.fromiter(sorted(candidates), dtype=np.int64, count=len(candidates))
    matrix = _vectors(candidates[int(i)] for i in ids)
    # Few candidates: score them with the core function itself, centred on the mean of ALL
    # the user's keys so the score does not depend on which candidates were picked.
    return _Scored(ids, centred_scores(vectors, matrix, mean=cached.mean))


def _score_keys(cursor, user_id: int, vectors: np.ndarray) -> _Scored:
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


# --- small SQL helpers ------------------------------------------------------------------------


def _id_array(ids: Iterable[int]) -> str:
    """A PostgreSQL array literal of ids, to bind as ``%s::bigint[]``.

    Typed bigint (psycopg would send small ids as ``smallint[]``): with the column's own type
    the planner can hash a large ``= ANY(...)`` — measured 754 ms → 31 ms with 8 000 ids —
    and building the literal here is far cheaper than psycopg's per-element list adapter."""
    return "{" + ",".join(str(int(i)) for i in ids) + "}"


# --- seeding resolution, spreading and the bonus, over the snapshot ---------------------------


def _resolve_seeds(snapshot: GraphSnapshot, live: np.ndarray, hits: list[SeedHit],
                   hit_key_ids: list[int]):
    """SPEC §5.1 step 5 over the snapshot: ``(seeded, key_targets)`` where ``seeded`` is node id
    → the SeedHit that seeds it (``memory.core.seeding.resolve_seed_offers``, the array form of
    ``resolve_seed_nodes``), in the order nodes were first seeded, and ``key_targets`` key id →
    (KeyTarget, key text). A key missing from the snapshot (deleted since it was scored), a
    node key whose node is gone, or a label without live edges seeds nothing."""
    key_targets: dict[int, tuple[KeyTarget, str]] = {}
    for key_id in set(hit_key_ids):
        found = snapshot.keys.get(key_id)
        if found is not None:
            node_id, relation, text = found
            key_targets[key_id] = (KeyTarget(node_id, relation), text)
    codes = {label: i for i, label in enumerate(snapshot.relations)}
    ends: dict[str, np.ndarray] = {}
    nothing = np.zeros(0, dtype=np.int64)
    gone = (KeyTarget(None, None), "")
    targets = [key_targets.get(key_id, gone)[0] for key_id in hit_key_ids]
    # Node keys: every live node's index in one lookup, one single-element view per hit.
    node_hits = [t.node_id for t in targets
                 if t.node_id is not None and t.node_id in snapshot.live_node_ids]
    node_index = dict(zip(node_hits, snapshot.indices(node_hits)[:, None], strict=True))
    offers = []
    for target in targets:
        if target.node_id is not None:
            offers.append(node_index.get(target.node_id, nothing))
        elif target.relation in codes:
            if target.relation not in ends:
                # Both ends of every live edge with the label, in edge-id order.
                at = np.flatnonzero(live & (snapshot.relation == codes[target.relation]))
                pairs = np.empty(2 * len(at), dtype=np.int64)
                pairs[0::2], pairs[1::2] = snapshot.source[at], snapshot.target[at]
                ends[target.relation] = pairs
            offers.append(ends[target.relation])
        else:
            offers.append(nothing)
    nodes, chosen = resolve_seed_offers([hit.similarity for hit in hits], offers)
    seeded = {
        int(snapshot.node_ids[node]): SeedHit(hits[i].word, i, hits[i].similarity)
        for node, i in zip(nodes.tolist(), chosen.tolist(), strict=True)
    }
    return seeded, key_targets


def _spread_and_fire(snapshot: GraphSnapshot, strength: np.ndarray, live: np.ndarray,
                     seed_ids: list[int], options: ReadOptions,
                     initial: np.ndarray | None = None,
                     ) -> tuple[list[Activation], list[int]]:
    """SPEC §5.2 over the snapshot: spread from the seeds along the live edges, add the
    co-episode bonus, pick the nodes that fire. Returns ``(fired, crossed edge ids)``.

    The same rules as ``spread`` → ``apply_co_episode_bonus`` → ``select_fired`` of
    ``memory.core.activation`` (a test runs both on random graphs): the waves and the bonus
    are vectorised, and only each side's ``budget`` best candidates become Activation
    records for ``select_fired`` — it takes at most that many from either side.
    """
    at = np.flatnonzero(live)
    result = spread_arrays(len(snapshot.node_ids), snapshot.indices(seed_ids),
                           snapshot.source[at], snapshot.target[at], strength[at],
                           hops=options.hops, factor=options.spread_factor, initial=initial)
    crossed = snapshot.edge_ids[at[result.crossed]].tolist()

    reached = result.reached
    score = result.score.copy()
    bonus = np.zeros(len(score))
    strong = reached & (result.score >= options.fire_threshold)
    gaining = co_episode_gainers(strong, snapshot.pair_node, snapshot.pair_episode) & ~result.seed
    bonus[gaining] = options.co_episode_bonus
    score += bonus
    entered = gaining & ~reached  # reached only through the bonus: forward, hop 1
    hop = np.where(entered, 1, result.hop)
    forward = (result.forward | entered) & ~result.seed
    reverse = reached & ~result.seed & ~forward

    picked: list[int] = []
    candidate = (reached | entered) & (score >= options.fire_threshold)
    for side in (candidate & (result.seed | forward), candidate & reverse):
        index = np.flatnonzero(side)
        order = np.lexsort((index, -score[index]))  # score descending, then node id
        picked.extend(index[order[:max(options.budget, 0)]].tolist())
    acts = {}
    for i in picked:
        node_id = int(snapshot.node_ids[i])
        direction = SEED if result.seed[i] else FORWARD if forward[i] else REVERSE
        acts[node_id] = Activation(
            node_id=node_id, score=float(score[i]), direction=direction, hop=int(hop[i]),
            forward_in=float(result.forward_in[i]), reverse_in=float(result.reverse_in[i]),
            bonus=float(bonus[i]))
    fired = select_fired(acts, threshold=options.fire_threshold, budget=options.budget,
                         forward_share=options.forward_share)
    return fired, crossed


def _injection(cursor, user_id: int, snapshot: GraphSnapshot, strength: np.ndarray,
               live: np.ndarray, fired: list[Activation], options: ReadOptions):
    """What SPEC §5.3 injects, from the snapshot: ``(names, edges)`` — name and kind of each
    fired node, and as ``LineEdge`` rows (current strength) the live edges among the fired
    nodes (memory lines) and, per hot node (score ≥ context threshold), its strongest live
    edges with a snippet, carrying the snippet's text. The texts are the only thing read from
    the database (one query, by snippet id).

    Each hot node ships its ``2 × snippets_per_node × (hot nodes + 1)`` strongest candidates
    (at least 32): ``context_snippets`` takes at most ``snippets_per_node`` per node and only
    skips texts already used — by an earlier node (at most ``snippets_per_node`` each) or by
    the node itself (one sentence often justifies several edges). Should a node still run out
    of candidates, the texts of all of its snippet edges are read in one more query, so the
    result is always exactly the core's over every incident edge.
    """
    fired_at = snapshot.indices([act.node_id for act in fired])
    names = {int(snapshot.node_ids[i]): (snapshot.names[i], snapshot.kinds[i])
             for i in fired_at.tolist()}
    is_fired = np.zeros(len(snapshot.node_ids), dtype=bool)
    is_fired[fired_at] = True

    def rows(at: np.ndarray, texts: dict[int, str] | None) -> list[LineEdge]:
        ids, sources, targets = (snapshot.edge_ids[at].tolist(),
                                 snapshot.node_ids[snapshot.source[at]].tolist(),
                                 snapshot.node_ids[snapshot.target[at]].tolist())
        labels = [snapshot.relations[code] for code in snapshot.relation[at].tolist()]
        snippet_ids = snapshot.snippet[at].tolist()
        return [LineEdge(edge_id, source, target, label, float(value),
                         None if texts is None else texts.get(snippet_id),
                         snapshot.occurred[index])
                for edge_id, source, target, label, value, snippet_id, index in zip(
                    ids, sources, targets, labels, strength[at].tolist(), snippet_ids,
                    at.tolist(), strict=True)]

    lines_only = rows(np.flatnonzero(live & is_fired[snapshot.source]
                                     & is_fired[snapshot.target]), None)

    hot = [i for act, i in zip(fired, fired_at.tolist(), strict=True)
           if act.score >= options.context_threshold]
    per_node = max(options.snippets_per_node, 0)
    limit = max(32, 2 * per_node * (len(hot) + 1))
    is_hot = np.zeros(len(snapshot.node_ids), dtype=bool)
    is_hot[hot] = True
    near = np.flatnonzero(live & (snapshot.snippet > 0)
                          & (is_hot[snapshot.source] | is_hot[snapshot.target]))
    # Per hot node: its snippet edges, strongest first (ties: lower edge id).
    ranked: dict[int, np.ndarray] = {}
    for i in hot:
        at = near[(snapshot.source[near] == i) | (snapshot.target[near] == i)]
        ranked[i] = at[np.lexsort((snapshot.edge_ids[at], -strength[at]))]

    def with_texts(picks: dict[int, np.ndarray]) -> list[LineEdge]:
        chosen = [at for at in picks.values() if len(at)]
        if not chosen:
            return []
        wanted = np.unique(snapshot.snippet[np.concatenate(chosen)])
        cursor.execute(
            f"SELECT id, text FROM {Snippet._meta.db_table}"
            " WHERE user_id = %s AND id = ANY(%s::bigint[])",
            [user_id, _id_array(wanted.tolist())],
        )
        texts = dict(cursor.fetchall())
        return [edge for i in picks for edge in rows(picks[i], texts)]

    first = {i: at[:limit] for i, at in ranked.items()}
    # The core keeps the first copy of an edge id: the one carrying its snippet comes first.
    edges = with_texts(first) + lines_only
    # A node with more candidates than shipped can only run short when its own shipped
    # candidates hold fewer distinct texts than the hot nodes can take in all (earlier nodes
    # use at most ``per_node`` each); only then is the core asked.
    text_of = {edge.id: " ".join(edge.snippet.split()) for edge in edges if edge.snippet}
    truncated = [i for i in hot if len(ranked[i]) > limit and len(
        {text_of.get(edge_id) for edge_id in snapshot.edge_ids[first[i]].tolist()}
    ) < per_node * len(hot)]
    if truncated:
        display = {node: name for node, (name, _) in names.items()}
        taken = context_snippets(fired, edges, display, threshold=options.context_threshold,
                                 per_node=per_node)
        by_id = {edge.id: edge for edge in edges if edge.snippet is not None}
        short = []
        for i in truncated:
            node = int(snapshot.node_ids[i])
            used = sum(1 for s in taken if s["node"] == display[node]
                       and node in (by_id[s["edge"]].source, by_id[s["edge"]].target))
            if used < per_node:
                short.append(i)
        if short:
            edges = with_texts({i: ranked[i][limit:] for i in short}) + edges
    return names, edges


def _log_traversals(user_id: int, conversation_id: int, edge_ids: list[int],
                    now: datetime) -> None:
    """One row for the turn: the crossed edges' ids as one array (a Read on a large graph
    crosses thousands; a row each made this the costliest write of a turn). Ids are taken as
    the Read found them; the Write applies only ids of the user's edges that still exist, each
    edge once per conversation (``write._apply_traversals``)."""
    ids = sorted({int(i) for i in edge_ids})
    if not ids:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            INSERT INTO {Traversal._meta.db_table} (user_id, conversation_id, edge_ids, crossed_at)
            VALUES (%s, %s, %s::bigint[], %s)
            """,
            [user_id, conversation_id, _id_array(ids), now],
        )


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000.0, 2)


def recall(*, user, message: str, now: datetime, conversation=None,
           options: ReadOptions | None = None) -> ReadRecord:
    """Recall what ``message`` touches in ``user``'s graph (SPEC §5.1–§5.3) as a ReadRecord.

    Inputs: ``user`` (instance or id), the message text, ``now`` (timezone-aware; current
    strengths and expiry are judged at this instant), optionally the ``conversation`` the
    message belongs to (must be the user's), and ``options`` (default: the settings).

    ``options.strategy``: ``"spec"`` is SPEC §5.1–§5.3 exactly (this function); ``"graph"``
    and ``"default"`` are Read v2 (SPEC §5.7, ``memory.services.ranked_read``), whose
    ``context_snippets`` entries also carry ``source`` (``edge`` or ``sentence``), ``id``,
    ``score`` and ``tokens``.

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
    if options.strategy != "spec":
        # Read v2 builds on this module's seeding and spreading helpers, so it is imported
        # here rather than at the top (it imports this module).
        from memory.services.ranked_read import ranked_recall

        return ranked_recall(user_id=user_id, message=message, now=now,
                             conversation=conversation, options=options)
    timings = {"embed": 0.0, "seed": 0.0, "spread": 0.0, "format": 0.0}

    words = content_words(message)
    if not words or user_id is None:
        return ReadRecord(words=words, timings_ms=timings)

    started = time.perf_counter()
    vectors = embedding.embed(words)
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
        snapshot = None
        if hits:
            snapshot = load_snapshot(cursor, user_id)
            strength, live = snapshot.live_strengths(now)
            seeded, key_targets = _resolve_seeds(snapshot, live, hits, hit_key_ids)
        seed_ids = list(seeded)
        timings["seed"] = _ms(started)
        if not seed_ids:
            return ReadRecord(words=words, timings_ms=timings)

        if seed_ids:
            # --- spreading activation (SPEC §5.2) ---
            started = time.perf_counter()
            fired, crossed = _spread_and_fire(snapshot, strength, live, seed_ids, options)
            timings["spread"] = _ms(started)

            # --- injection (SPEC §5.3) ---
            started = time.perf_counter()
            names, line_edges = _injection(cursor, user_id, snapshot, strength, live, fired,
                                           options)
        else:
            started = time.perf_counter()
        # Reads take no lock: a node deleted by a concurrent merge after it was reached has no
        # name row, and is dropped rather than shown nameless.
        fired = [act for act in fired if act.node_id in names]
        fired_ids = [act.node_id for act in fired]
        display = {node_id: name for node_id, (name, _) in names.items()}
        lines = [line for _, line in memory_lines(fired_ids, line_edges, display,
                                                  dated=options.strategy != "spec")]
        snippets = context_snippets(fired, line_edges, display,
                                    threshold=options.context_threshold,
                                    per_node=options.snippets_per_node)
        timings["format"] = _ms(started)

    started = time.perf_counter()
    text = format_block(lines, [snippet["text"] for snippet in snippets])
    timings["format"] = round(timings["format"] + _ms(started), 2)

    if conversation is not None and not conversation.incognito and crossed:
        _log_traversals(user_id, conversation.pk, crossed, now)

    seed_index = snapshot.indices(list(seeded)).tolist() if seeded else []
    return ReadRecord(
        words=words,
        seeds=[
            {"name": snapshot.names[i], "kind": snapshot.kinds[i],
             "key": key_targets[hit_key_ids[hit.key_index]][1],
             "similarity": round(hit.similarity, 4)}
            for (node_id, hit), i in zip(seeded.items(), seed_index, strict=True)
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
