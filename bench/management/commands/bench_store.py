"""``manage.py bench_store`` — how fast the graph store decays and imports (docs/BENCHMARKS.md).

Measured, with wall time and rows/s:

* decay over all benchmark users (``decay_all``: one UPDATE per user, each under its lock),
  then a second run at the same ``now`` (idempotent: it must flag nothing);
* ``import_graph`` of one synthetic graph (default 100 000 edges, 20 000 nodes), split into
  validation, row SQL, embedding (the real sentence model) and key SQL.

Setup is not measured: users ``bench_store_<n>`` with their nodes and edges are generated in
PostgreSQL by ``INSERT ... SELECT generate_series`` (no keys are embedded for them: decay never
reads keys). Every ``bench_store_*`` account is deleted at the end, also after a failure or
Ctrl-C, and left-overs of an interrupted run are removed at the start. Refuses to run when
``PEGASUS_ENV=production``.
"""

from __future__ import annotations

import math
import random
import time
from datetime import timedelta

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.utils import timezone

from memory import embedding
from memory.services.decay import decay_all
from memory.services.graph_io.document import FORMAT
from memory.services.graph_io.import_ import import_graph
from memory.services.keys import Progress

PREFIX = "bench_store_"
KINDS = ["PERSON"] * 10 + ["ORG"] * 3 + ["PLACE"] * 3 + ["THING"] * 2 + ["TOPIC", "EVENT"]
RELATIONS = [
    "KNOWS",
    "WORKS_AT",
    "LIVES_IN",
    "HAS_BOSS",
    "HAS_PARTNER",
    "HAS_SISTER",
    "HAS_BROTHER",
    "LIKES",
    "DISLIKES",
    "VISITED",
    "PLANS_TO_VISIT",
    "STUDIED_AT",
    "OWNS",
    "PLAYS",
    "LEARNS",
    "TRAINS_FOR",
    "ATTENDS",
    "MANAGES",
    "FOUNDED",
    "MET_AT",
    "IS_MEMBER_OF",
    "WORKS_ON",
    "USES",
    "READS",
    "WATCHES",
    "COOKS",
    "PREFERS",
    "AVOIDS",
    "TEACHES",
    "MENTORS",
    "CARES_FOR",
    "BORROWED",
    "LENT",
    "RECOMMENDED",
    "WROTE",
    "BUILT",
    "SUPPORTS",
    "COLLABORATES_WITH",
    "IS_ALLERGIC_TO",
    "GREW_UP_IN",
]
SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ren",
    "tos",
    "vel",
    "an",
    "dri",
    "sa",
    "nor",
    "bel",
    "ti",
    "mar",
    "co",
    "jen",
    "ul",
    "fa",
    "ros",
    "hel",
    "gun",
    "pe",
    "das",
    "ri",
    "on",
    "bra",
    "zo",
    "lin",
    "qua",
    "sev",
    "ith",
]
STABILITIES = ["immutable", "stable", "stable", "mutable", "mutable", "time_bound", "ephemeral"]


class TimedEncoder:
    """The real encoder, timed: splits an import's embedding time from its SQL time."""

    def __init__(self, inner):
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.seconds, self.cpu_seconds, self.texts = 0.0, 0.0, 0

    def encode(self, texts):
        started, cpu = time.perf_counter(), time.process_time()
        try:
            return self.inner.encode(texts)
        finally:
            self.seconds += time.perf_counter() - started
            # CPU time of this process (all torch threads): on a shared machine it shows
            # how much of the wall time was the model's own work.
            self.cpu_seconds += time.process_time() - cpu
            self.texts += len(texts)


def _rate(count: int, seconds: float) -> str:
    return f"{count / seconds:,.0f}/s" if seconds > 0 else "n/a"


class Command(BaseCommand):
    help = "Benchmark decay (1M edges) and graph import (100k edges) on synthetic accounts."

    def add_arguments(self, parser):
        parser.add_argument("--users", type=int, default=1000)
        parser.add_argument(
            "--edges", type=int, default=1_000_000, help="edges in total over all decay users"
        )
        parser.add_argument("--import-edges", type=int, default=100_000)
        parser.add_argument(
            "--import-nodes",
            type=int,
            default=None,
            help="nodes of the imported graph (default: edges / 5)",
        )
        parser.add_argument("--skip-decay", action="store_true")
        parser.add_argument("--skip-import", action="store_true")
        parser.add_argument("--seed", type=int, default=42)

    def handle(self, *args, **options):
        if settings.PEGASUS_ENV == "production":
            raise CommandError(
                "bench_store creates and deletes accounts; refusing to run "
                "with PEGASUS_ENV=production"
            )
        if options["users"] < 1 or options["edges"] < options["users"]:
            raise CommandError("--users must be ≥ 1 and --edges ≥ --users")
        self.say = self.stdout.write
        self.say(f"bench_store on {connection.settings_dict['NAME']}, load average {self._load()}")
        self._delete_bench_users()
        try:
            if not options["skip_decay"]:
                self._bench_decay(options["users"], options["edges"], options["seed"])
            if not options["skip_import"]:
                nodes = options["import_nodes"] or max(10, options["import_edges"] // 5)
                self._bench_import(options["import_edges"], nodes, options["seed"])
        finally:
            self._delete_bench_users()

    # --- decay ---------------------------------------------------------------------------

    def _bench_decay(self, users: int, edges: int, seed: int) -> None:
        now = timezone.now()
        per_user = edges // users
        # Nodes per user: enough that (source, target) pairs below are all distinct.
        nodes = max(math.isqrt(per_user) + 2, per_user // 5)
        started = time.perf_counter()
        ids = self._create_users([f"{PREFIX}{i}" for i in range(users)])
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT setseed(%s)", [(seed % 1000) / 1000])
            cursor.execute(
                """
                INSERT INTO memory_node (user_id, kind, name, normalised_name, aliases,
                    properties, confidence, provisional, is_self, created_at, updated_at)
                SELECT u.id, 'THING', 'Bench node ' || g, 'bench node ' || g,
                       '{}'::varchar[], '{}'::jsonb, 0.5, false, false, %(now)s, %(now)s
                FROM unnest(%(ids)s::bigint[]) AS u(id)
                CROSS JOIN generate_series(0, %(nodes)s - 1) AS g
                """,
                {"ids": ids, "nodes": nodes, "now": now},
            )
            # Edge i of a user joins node i mod N to node (i mod N + 1 + i div N) mod N: a
            # distinct pair for every i while i div N < N − 1, never a self-relation.
            # Stabilities, strengths (20–100) and ages (0–400 days) are random; half the
            # temporary edges carry an expiry within ±30 days of now.
            cursor.execute(
                """
                INSERT INTO memory_edge (user_id, source_id, relation, target_id,
                    strength_at_touch, last_touched_at, confidence, stability, cardinality,
                    expires_at, dormant, superseded_by_id, snippet_id, created_at)
                SELECT e.user_id, s.id, 'REL_' || (e.i %% 40), t.id, e.s0, e.touched, 0.8,
                       e.stability, 'one_to_many',
                       CASE WHEN e.stability IN ('time_bound', 'ephemeral') AND e.r < 0.5
                            THEN %(now)s + (e.r2 * 60 - 30) * interval '1 day' END,
                       false, NULL, NULL, %(now)s
                FROM (
                    SELECT u.id AS user_id, g AS i,
                           (%(stabilities)s::text[])[1 + floor(random() * %(n_stab)s)::int]
                               AS stability,
                           20 + random() * 80 AS s0,
                           %(now)s - random() * 400 * interval '1 day' AS touched,
                           random() AS r, random() AS r2
                    FROM unnest(%(ids)s::bigint[]) AS u(id)
                    CROSS JOIN generate_series(0, %(per_user)s - 1) AS g
                ) AS e
                JOIN memory_node s ON s.user_id = e.user_id
                     AND s.normalised_name = 'bench node ' || (e.i %% %(nodes)s)
                JOIN memory_node t ON t.user_id = e.user_id
                     AND t.normalised_name = 'bench node '
                         || ((e.i %% %(nodes)s + 1 + e.i / %(nodes)s) %% %(nodes)s)
                """,
                {
                    "ids": ids,
                    "nodes": nodes,
                    "per_user": per_user,
                    "now": now,
                    "stabilities": STABILITIES,
                    "n_stab": len(STABILITIES),
                },
            )
            created = cursor.rowcount
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE memory_node")
            cursor.execute("ANALYZE memory_edge")
        self.say(
            f"setup: {users} users, {users * nodes} nodes, {created} edges "
            f"in {time.perf_counter() - started:.1f}s (not measured)"
        )

        for run in (1, 2):
            started = time.perf_counter()
            done, flagged = decay_all(
                now=now, user_ids=ids, progress=Progress(self.say, f"decay run {run}")
            )
            seconds = time.perf_counter() - started
            self.say(
                f"RESULT decay run {run}: {done} users, {created} edges, {flagged} "
                f"flagged dormant in {seconds:.2f}s ({_rate(created, seconds)} edges, "
                f"{_rate(done, seconds)} users); load average {self._load()}"
            )
        self._delete_bench_users()

    # --- import --------------------------------------------------------------------------

    def _bench_import(self, edges: int, nodes: int, seed: int) -> None:
        now = timezone.now()
        started = time.perf_counter()
        graph = synthetic_graph(edges=edges, nodes=nodes, now=now, seed=seed)
        (user_id,) = self._create_users([f"{PREFIX}import"])
        texts = sum(1 + len(n["aliases"]) for n in graph["nodes"])
        self.say(
            f"setup: graph of {len(graph['nodes'])} nodes ({texts} names and aliases), "
            f"{len(graph['edges'])} edges, {len(graph['episodes'])} episodes built in "
            f"{time.perf_counter() - started:.1f}s (not measured)"
        )
        started = time.perf_counter()
        embedding.embed(["warm up the model"])
        self.say(
            f"setup: sentence model loaded in {time.perf_counter() - started:.1f}s (not measured)"
        )

        with embedding.use_encoder(TimedEncoder(embedding.get_encoder())) as timed:
            started = time.perf_counter()
            summary = import_graph(
                user=user_id, data=graph, now=now, progress=lambda line: self.say(f"import: {line}")
            )
            seconds = time.perf_counter() - started
        parts = summary.seconds
        key_sql = parts["keys"] - timed.seconds
        self.say(
            f"RESULT import: {summary} in {seconds:.2f}s ({_rate(summary.edges, seconds)} "
            f"edges); validate {parts['validate']:.2f}s, row SQL {parts['rows']:.2f}s, "
            f"embedding {timed.seconds:.2f}s ({timed.texts} texts, "
            f"{_rate(timed.texts, timed.seconds)}, {timed.cpu_seconds:.1f}s CPU), "
            f"key SQL {key_sql:.2f}s; load average {self._load()}"
        )

    # --- accounts ------------------------------------------------------------------------

    def _create_users(self, names: list[str]) -> list[int]:
        model = get_user_model()
        password = make_password(None)  # unusable: nobody can log in as a benchmark user
        users = model.objects.bulk_create(
            [model(**{model.USERNAME_FIELD: name}, password=password) for name in names]
        )
        return [user.pk for user in users]

    def _delete_bench_users(self) -> None:
        model = get_user_model()
        ids = list(
            model.objects.filter(**{f"{model.USERNAME_FIELD}__startswith": PREFIX}).values_list(
                "pk", flat=True
            )
        )
        if not ids:
            return
        started = time.perf_counter()
        # Django's cascade would load a million edges into Python (Edge.superseded_by is
        # SET_NULL), so rows owned by the benchmark users (a non-null foreign key to the user)
        # are deleted with plain SQL, table by table, then the users. Foreign keys are
        # DEFERRABLE INITIALLY DEFERRED: the order is free, and anything still pointing at a
        # deleted row fails the commit, which then deletes nothing.
        tables = set(connection.introspection.table_names())
        with transaction.atomic(), connection.cursor() as cursor:
            for owned in apps.get_models(include_auto_created=True):
                if owned is model or owned._meta.db_table not in tables:
                    continue
                for field in owned._meta.concrete_fields:
                    if field.is_relation and field.related_model is model and not field.null:
                        cursor.execute(
                            f"DELETE FROM {connection.ops.quote_name(owned._meta.db_table)} "
                            f"WHERE {connection.ops.quote_name(field.column)} = ANY(%s)",
                            [ids],
                        )
            cursor.execute(
                f"DELETE FROM {connection.ops.quote_name(model._meta.db_table)} "
                f"WHERE {connection.ops.quote_name(model._meta.pk.column)} = ANY(%s)",
                [ids],
            )
        self.say(
            f"cleanup: {len(ids)} bench_store users deleted in {time.perf_counter() - started:.1f}s"
        )

    @staticmethod
    def _load() -> str:
        try:
            with open("/proc/loadavg", encoding="ascii") as handle:
                return " ".join(handle.read().split()[:3])
        except OSError:
            return "unknown"


def _name(rng: random.Random, words: int) -> str:
    return " ".join(
        "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()
        for _ in range(words)
    )


def synthetic_graph(*, edges: int, nodes: int, now, seed: int) -> dict:
    """A ``pegasus-graph/1`` document shaped like a long-time user's: one self node as a hub,
    people, organisations and places with invented two-word names (10% with an alias), 40
    relation labels, 80% of edges with a snippet, 1% superseded, temporary edges expiring
    around ``now``, an episode per 50 edges."""
    rng = random.Random(seed)
    episodes = [
        {
            "id": f"e{i}",
            "started_at": (now - timedelta(days=i)).isoformat(),
            "ended_at": (now - timedelta(days=i) + timedelta(minutes=20)).isoformat(),
            "summary": f"Conversation {i}",
            "importance": round(rng.random(), 3),
            "tags": [rng.choice(["work", "family", "sport", "travel", "food"])],
        }
        for i in range(max(1, edges // 50))
    ]
    seen: set[tuple[str, str]] = set()
    node_items = [
        {
            "id": "n0",
            "kind": "PERSON",
            "name": "Bench User",
            "is_self": True,
            "confidence": 1.0,
            "aliases": [],
            "episodes": ["e0"],
        }
    ]
    seen.add(("PERSON", "bench user"))
    while len(node_items) < nodes:
        kind = rng.choice(KINDS)
        name = _name(rng, 2 if kind in ("PERSON", "ORG") else rng.randint(1, 2))
        if (kind, name.lower()) in seen:
            continue
        seen.add((kind, name.lower()))
        aliases = [name.split()[0]] if rng.random() < 0.1 and " " in name else []
        node_items.append(
            {
                "id": f"n{len(node_items)}",
                "kind": kind,
                "name": name,
                "aliases": aliases,
                "properties": {},
                "confidence": round(rng.uniform(0.4, 1.0), 2),
                "episodes": [rng.choice(episodes)["id"]],
            }
        )
    claims: set[tuple[int, str, int]] = set()
    edge_items: list[dict] = []
    while len(edge_items) < edges:
        # A third of the memories hang off the user's own node, as in real graphs.
        source = 0 if rng.random() < 0.33 else rng.randrange(nodes)
        target = rng.randrange(nodes)
        relation = rng.choice(RELATIONS)
        if source == target or (source, relation, target) in claims:
            continue
        claims.add((source, relation, target))
        stability = rng.choice(STABILITIES)
        temporary = stability in ("time_bound", "ephemeral")
        expires = now + timedelta(days=rng.uniform(-30, 30)) if temporary else None
        i = len(edge_items)
        edge_items.append(
            {
                "id": f"x{i}",
                "source": f"n{source}",
                "relation": relation,
                "target": f"n{target}",
                "strength": round(rng.uniform(20, 100), 3),
                "last_touched_at": (now - timedelta(days=rng.uniform(0, 400))).isoformat(),
                "confidence": round(rng.uniform(0.3, 1.0), 2),
                "stability": stability,
                "cardinality": "one_to_many",
                "expires_at": expires.isoformat() if expires else None,
                "dormant": rng.random() < 0.05,
                # Point forward only, so chains can never form a cycle.
                "superseded_by": f"x{i + 1}" if rng.random() < 0.01 and i + 1 < edges else None,
                "episodes": [rng.choice(episodes)["id"]],
                "snippet": (
                    {
                        "text": f"I mentioned {relation.lower().replace('_', ' ')} "
                        f"n{target} in passing",
                        "evidence": "stated",
                    }
                    if rng.random() < 0.8
                    else None
                ),
            }
        )
    return {"format": FORMAT, "nodes": node_items, "edges": edge_items, "episodes": episodes}
