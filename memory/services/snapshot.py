"""Per-process snapshots of a user's graph for the Read path (SPEC §5.1–§5.2).

A Read on a large graph can start from thousands of seeds and cross most of the user's edges
(docs/BENCHMARKS.md, "Read path"). Shipping those edges from PostgreSQL on every Read cost
hundreds of milliseconds; instead each process keeps, per user, the parts of the graph a Read
walks — nodes (id, name, kind), edges that can conduct (not superseded, not flagged dormant:
ends, relation, S0, stability, touch and expiry instants, whether a snippet with words is
attached), node–episode memberships and what each memory key points at — as numpy arrays,
tagged with the user's ``GraphVersion``.

Every Read asks the database for the version in one query which, only when the version moved,
also returns the whole snapshot (one round trip either way). The version is bumped by
database triggers on every statement touching those tables, from sequence values that are
never reused, so a snapshot with the current version is exactly the committed graph (see
``memory.models.GraphVersion``). Current strength and read-time dormancy depend on ``now`` and
are computed per Read from the cached columns (``GraphSnapshot.live_strengths``), with the
arithmetic of ``memory.core.decay`` and of the decay service's SQL.

Snapshots are LRU by user, bounded by ``settings.MEMORY_GRAPH_CACHE_ROWS`` rows in all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from django.conf import settings

from memory.core.decay import DORMANT_BELOW, LAMBDA, MIN_EXPONENT, TEMPORARY
from memory.models import Edge, GraphVersion, MemoryKey, Node, NodeEpisode, Snippet
from memory.services.caches import UserLRU, user_key

__all__ = ["GraphSnapshot", "clear_snapshot_cache", "load_snapshot"]

_NEVER = np.iinfo(np.int64).max  # "no expiry", in epoch microseconds
_US_PER_SECOND = 1_000_000.0
_SECONDS_PER_DAY = 86_400.0


@dataclass(frozen=True)
class GraphSnapshot:
    """One user's graph as the Read sees it. Node *indices* are positions in ``node_ids``."""

    version: int | None  # None: the user has no version row yet (never cached)
    node_ids: np.ndarray  # ascending
    names: list[str]
    kinds: list[str]
    edge_ids: np.ndarray  # ascending; edges not superseded and not flagged dormant
    source: np.ndarray  # node index per edge
    target: np.ndarray
    relation: np.ndarray  # index into ``relations`` per edge
    relations: list[str]
    s0: np.ndarray  # strength_at_touch
    rate: np.ndarray  # λ per day, from the stability
    touched_us: np.ndarray  # last_touched_at, epoch microseconds
    expires_us: np.ndarray  # expires_at of temporary edges, else _NEVER
    snippet: np.ndarray  # id of the edge's snippet when its text is not blank, else 0
    occurred: tuple[str, ...]  # per edge: when it happened ("" when unknown)
    pair_node: np.ndarray  # node index per node–episode membership
    pair_episode: np.ndarray  # dense episode index per membership
    keys: dict[int, tuple[int | None, str | None, str]]  # key id → (node id, relation, text)
    live_node_ids: frozenset[int] = field(default=frozenset())

    @property
    def rows(self) -> int:
        return len(self.node_ids) + len(self.edge_ids) + len(self.pair_node) + len(self.keys)

    def indices(self, node_ids) -> np.ndarray:
        """Node indices of ``node_ids`` (every id must be in the snapshot)."""
        return np.searchsorted(self.node_ids, np.asarray(node_ids, dtype=np.int64))

    def live_strengths(self, now: datetime) -> tuple[np.ndarray, np.ndarray]:
        """``(strength, live)`` per edge at ``now``: ``S0 · e^(−λ t)`` with t in days floored at
        0 (``memory.core.decay.strength_at``; the exponent clamped as in the decay SQL), and
        live = strength ≥ 2.0 and not expired (``is_live`` for an edge that is neither
        superseded nor flagged — the only ones a snapshot holds)."""
        now_us = _epoch_us(now)
        # The same operations in the same order as ``max(MIN, -rate * (seconds / day))``,
        # written into one buffer: the same bits, without a new array per step (a Read on
        # 250 000 edges spent ~2 ms here).
        elapsed = np.subtract(now_us, self.touched_us)
        np.maximum(elapsed, 0, out=elapsed)
        strength = elapsed / _US_PER_SECOND
        np.divide(strength, _SECONDS_PER_DAY, out=strength)
        np.multiply(self.rate, strength, out=strength)
        np.negative(strength, out=strength)
        np.maximum(strength, MIN_EXPONENT, out=strength)
        np.exp(strength, out=strength)
        np.multiply(self.s0, strength, out=strength)
        live = (strength >= DORMANT_BELOW) & (self.expires_us > now_us)
        return strength, live


def _epoch_us(moment: datetime) -> int:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"now must be timezone-aware, got {moment!r}")
    delta = moment - datetime(1970, 1, 1, tzinfo=moment.tzinfo) - moment.utcoffset()
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


# --- the cache ---------------------------------------------------------------------------------

_snapshots: UserLRU[GraphSnapshot] = UserLRU(
    lambda: getattr(settings, "MEMORY_GRAPH_CACHE_ROWS", 3_000_000)
)


def clear_snapshot_cache() -> None:
    """Forget every cached snapshot (tests, benchmarks; never needed for correctness)."""
    _snapshots.clear()


# --- loading -----------------------------------------------------------------------------------

# One statement: the version and every row of the snapshot, tagged by part (read together,
# so the version describes the rows). Epoch instants are exact integer microseconds, so the
# strength arithmetic starts from the same numbers as the SQL's.
_SNAPSHOT_SQL = """
    SELECT 0, (SELECT version FROM {versions} WHERE user_id = %(user)s), NULL::bigint,
           NULL::bigint, NULL::text, NULL::text, NULL::float8, NULL::bigint, NULL::bigint,
           NULL::bigint, NULL::text
    UNION ALL
    SELECT 1, e.id, e.source_id, e.target_id, e.relation, e.stability, e.strength_at_touch,
           (extract(epoch FROM e.last_touched_at) * 1000000)::bigint,
           (extract(epoch FROM e.expires_at) * 1000000)::bigint,
           CASE WHEN btrim(s.text) <> '' THEN s.id END, e.occurred
    FROM {edges} e LEFT JOIN {snippets} s ON s.id = e.snippet_id AND s.user_id = e.user_id
    WHERE e.user_id = %(user)s AND e.superseded_by_id IS NULL AND NOT e.dormant
    UNION ALL
    SELECT 2, n.id, NULL, NULL, n.name, n.kind, NULL, NULL, NULL, NULL, NULL
    FROM {nodes} n WHERE n.user_id = %(user)s
    UNION ALL
    SELECT 3, m.node_id, m.episode_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    FROM {members} m WHERE m.user_id = %(user)s
    UNION ALL
    SELECT 4, k.id, k.node_id, NULL, k.text, k.relation, NULL, NULL, NULL, NULL, NULL
    FROM {keys} k WHERE k.user_id = %(user)s
"""


def load_snapshot(cursor, user_id: int) -> GraphSnapshot:
    """The user's current snapshot: the cached one when its version is current (one indexed
    lookup), else freshly loaded with its version in one statement (and cached, when the user
    has a version row). One query, two when a cached snapshot turned out stale."""
    key = user_key(user_id)
    cached = _snapshots.get(key)
    if cached is not None:
        # The warm path: one indexed lookup. Asking for the version inside the loading
        # statement instead cost 6 ms at 250 000 edges (the planner starts parallel workers
        # for the branches that then read nothing).
        cursor.execute(
            f"SELECT version FROM {GraphVersion._meta.db_table} WHERE user_id = %s", [user_id]
        )
        row = cursor.fetchone()
        if row is not None and row[0] == cached.version:
            return cached
    cursor.execute(
        _SNAPSHOT_SQL.format(
            versions=GraphVersion._meta.db_table,
            edges=Edge._meta.db_table,
            nodes=Node._meta.db_table,
            members=NodeEpisode._meta.db_table,
            keys=MemoryKey._meta.db_table,
            snippets=Snippet._meta.db_table,
        ),
        {"user": user_id},
    )
    rows = cursor.fetchall()
    # Found by its tag, not its place: nothing orders the branches of a UNION ALL.
    header = next(i for i, row in enumerate(rows) if row[0] == 0)
    version = rows[header][1]
    snapshot = _build(version, rows[:header] + rows[header + 1 :])
    if version is not None:
        _snapshots.put(key, snapshot)
    return snapshot


def _owned(node_ids: np.ndarray, ids: np.ndarray) -> np.ndarray:
    at = np.minimum(np.searchsorted(node_ids, ids), max(len(node_ids) - 1, 0))
    return node_ids[at] == ids if len(node_ids) else np.zeros(len(ids), dtype=bool)


def _build(version: int | None, rows: list[tuple]) -> GraphSnapshot:
    parts: dict[int, list[tuple]] = {1: [], 2: [], 3: [], 4: []}
    for row in rows:
        parts[row[0]].append(row)

    nodes = sorted(parts[2], key=lambda r: r[1])
    node_ids = np.fromiter((r[1] for r in nodes), dtype=np.int64, count=len(nodes))

    edges = sorted(parts[1], key=lambda r: r[1])
    relations: list[str] = sorted({r[4] for r in edges})
    code = {label: i for i, label in enumerate(relations)}
    temporary = frozenset(TEMPORARY)
    n = len(edges)
    expires = np.fromiter(
        (r[8] if r[8] is not None and r[5] in temporary else _NEVER for r in edges),
        dtype=np.int64,
        count=n,
    )
    ends = np.fromiter((end for r in edges for end in (r[2], r[3])), dtype=np.int64, count=2 * n)
    # Rows are filtered on the owner in SQL; an edge or membership naming a node that is not
    # among the user's nodes (it cannot happen through the services) is dropped, never mapped
    # onto a neighbouring index.
    owned = _owned(node_ids, ends[0::2]) & _owned(node_ids, ends[1::2])
    if not owned.all():
        edges = [row for row, keep in zip(edges, owned, strict=True) if keep]
        ends = ends.reshape(-1, 2)[owned].reshape(-1)
        expires = expires[owned]
        n = len(edges)
    members = sorted({(r[1], r[2]) for r in parts[3]})
    member_nodes = np.fromiter((m[0] for m in members), dtype=np.int64, count=len(members))
    if not _owned(node_ids, member_nodes).all():
        members = [
            m for m, keep in zip(members, _owned(node_ids, member_nodes), strict=True) if keep
        ]
    episode_ids = np.fromiter((m[1] for m in members), dtype=np.int64, count=len(members))
    _, pair_episode = np.unique(episode_ids, return_inverse=True)

    snapshot = GraphSnapshot(
        version=version,
        node_ids=node_ids,
        names=[r[4] for r in nodes],
        kinds=[r[5] for r in nodes],
        edge_ids=np.fromiter((r[1] for r in edges), dtype=np.int64, count=n),
        source=np.searchsorted(node_ids, ends[0::2]),
        target=np.searchsorted(node_ids, ends[1::2]),
        relation=np.fromiter((code[r[4]] for r in edges), dtype=np.int32, count=n),
        relations=relations,
        s0=np.fromiter((r[6] for r in edges), dtype=np.float64, count=n),
        rate=np.fromiter((LAMBDA[r[5]] for r in edges), dtype=np.float64, count=n),
        touched_us=np.fromiter((r[7] for r in edges), dtype=np.int64, count=n),
        expires_us=expires,
        snippet=np.fromiter((r[9] or 0 for r in edges), dtype=np.int64, count=n),
        occurred=tuple(r[10] or "" for r in edges),
        pair_node=np.searchsorted(
            node_ids, np.fromiter((m[0] for m in members), dtype=np.int64, count=len(members))
        ),
        pair_episode=pair_episode.astype(np.int64),
        keys={r[1]: (r[2], r[5] or None, r[4]) for r in parts[4]},
        live_node_ids=frozenset(int(i) for i in node_ids),
    )
    for array in (
        snapshot.node_ids,
        snapshot.edge_ids,
        snapshot.source,
        snapshot.target,
        snapshot.relation,
        snapshot.s0,
        snapshot.rate,
        snapshot.touched_us,
        snapshot.expires_us,
        snapshot.snippet,
        snapshot.pair_node,
        snapshot.pair_episode,
    ):
        array.setflags(write=False)
    return snapshot
