"""``manage.py bench_recall [--sizes 1000,10000,100000] [--messages 200] [--history TURNS]
[--cold N] [--strategy NAME] [--json]`` — Read latency on synthetic per-user graphs (SPEC
§5.1–§5.3, §5.7; targets in docs/BENCHMARKS.md).

For each size N it times Reads against the graph of a bench account ``bench_recall_<N>``,
built by ``bench.synthetic``: N nodes with realistic names (people, companies, places,
things, topics, events, preferences), mean degree 5, a few power-law hubs, a self node linked
to 10% of the nodes, ~40 relation labels, one snippet per edge, episodes of ~20 nodes, and a
MemoryKey per surface form embedded with the real sentence model (each distinct text once,
cached on disk under ``var/bench-cache/``). Rows go in with COPY. Then it times ``recall`` on
``--messages`` sentences that mention one to three node names among ordinary words, and
prints p50/p95/p99 of the whole Read and of each stage, and queries per Read. Building is
reported separately from reading. ``--history TURNS`` also gives the account that many turns
of earlier conversations in its sentence store (``bench.history``), which strategy
``default`` searches; the first ``--cold`` Reads are timed apart, each with the process's Read
caches emptied first (a web process that never served this user).

**Reuse (the default).** The account is kept after the run, and the next run with the same
size, ``--seed`` and generator version reuses its graph instead of rebuilding it (building
100 000 nodes took 1 063 s); Reads then run at the graph's build time, so the figures are
comparable. The graph is rebuilt when it is missing, was built with another size, seed,
generator version or model, or its row counts changed. ``--rebuild`` forces a rebuild;
``--drop`` deletes the bench accounts at the end (also when interrupted). ``--keep`` and
``--reuse`` are accepted for older scripts: both are now the default.

Refuses to run in production: it writes (and deletes) a large graph in the database.
"""

from __future__ import annotations

import json
import os
import random
import time

import numpy as np
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bench import history, locomo, synthetic
from memory.models import Edge, MemoryKey, Sentence, Traversal
from memory.services.keys import Progress
from memory.services.read import ReadOptions, recall

TARGETS_P95_MS = {10_000: 25.0, 100_000: 60.0}
# Read latency by number of seeded nodes: SPEC §5.1 seeds every key a word scores ≥ 0.30
# against, and both ends of every live edge of a matching relation label, so the seed count —
# not the graph size — is what drives the cost.
SEED_BUCKETS = {
    "1-10": (1, 10),
    "11-100": (11, 100),
    "101-1000": (101, 1000),
    ">1000": (1001, 10**9),
}
BENCH_PREFIX = "bench_recall_"


def _embedding() -> dict:
    """The sentence model's runtime and threads, as the timed Reads used it."""
    from memory import embedding

    encoder = embedding.get_encoder()
    return {"runtime": embedding.runtime(), "threads": getattr(encoder, "threads", None)}


def _percentiles(values: list[float]) -> dict[str, float]:
    arr = np.asarray(values, dtype=np.float64)
    if arr.size == 0:
        return {"p50": 0.0, "p95": 0.0, "p99": 0.0, "max": 0.0}
    return {
        "p50": round(float(np.percentile(arr, 50)), 2),
        "p95": round(float(np.percentile(arr, 95)), 2),
        "p99": round(float(np.percentile(arr, 99)), 2),
        "max": round(float(arr.max()), 2),
    }


class Command(BaseCommand):
    help = "Benchmark the Read path on synthetic graphs (builds, reuses or drops bench accounts)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--sizes",
            default="1000,10000,100000",
            help="comma-separated node counts (default 1000,10000,100000)",
        )
        parser.add_argument(
            "--messages", type=int, default=200, help="Reads timed per size (default 200)"
        )
        parser.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
        parser.add_argument(
            "--history",
            type=int,
            default=0,
            help="earlier turns in the account's sentence store (bench.history; "
            "e.g. 5000), searched by the default strategy (default 0)",
        )
        parser.add_argument(
            "--cold",
            type=int,
            default=20,
            help="first Reads timed with the process's Read caches emptied before each, "
            "as in a web process that never served the user (default 20)",
        )
        parser.add_argument("--json", action="store_true", help="print the results as JSON")
        parser.add_argument(
            "--seed-threshold",
            type=float,
            default=None,
            help="override MEMORY_SEED_THRESHOLD for the timed Reads (to see "
            "how the seed count drives the cost); default: the setting",
        )
        parser.add_argument(
            "--strategy", default=None, help="Read strategy to time (default: MEMORY_READ_STRATEGY)"
        )
        parser.add_argument(
            "--rebuild",
            action="store_true",
            help="build the graphs afresh even when a reusable one exists",
        )
        parser.add_argument(
            "--drop",
            action="store_true",
            help="delete the bench accounts at the end (default: keep them "
            "for the next run to reuse)",
        )
        parser.add_argument(
            "--keep",
            action="store_true",
            help="(default; kept for older scripts) keep the bench accounts",
        )
        parser.add_argument(
            "--reuse",
            action="store_true",
            help="(default; kept for older scripts) reuse a matching graph",
        )

    def handle(self, *args, **options):
        if settings.PRODUCTION:
            raise CommandError("bench_recall writes large throwaway graphs; not in production")
        try:
            sizes = [int(s) for s in options["sizes"].split(",") if s.strip()]
        except ValueError:
            raise CommandError(f"--sizes {options['sizes']!r}: expected e.g. 1000,10000") from None
        if not sizes or min(sizes) < 50 or options["messages"] < 1:
            raise CommandError("--sizes must be ≥ 50 nodes each and --messages ≥ 1")
        if options["history"] < 0 or options["cold"] < 1:
            raise CommandError("--history must be ≥ 0 and --cold ≥ 1")
        if options["drop"] and options["keep"]:
            raise CommandError("--drop and --keep contradict each other")
        self.quiet = options["json"]
        results = []
        for size in sizes:
            # One number per (seed, size): the graph's, and the messages' own generator.
            seed = options["seed"] * 1_000_003 + size
            username = f"{BENCH_PREFIX}{size}"
            try:
                try:
                    user, marker, setup = synthetic.ensure_graph(
                        username,
                        size,
                        seed=seed,
                        now=timezone.now(),
                        rebuild=options["rebuild"],
                        progress=self._say,
                    )
                except ValueError as exc:
                    raise CommandError(f"bench_recall: {exc}") from None
                if setup is not None:
                    analysed = time.perf_counter()
                    synthetic.analyse()
                    setup["total"] = round(setup["total"] + time.perf_counter() - analysed, 1)
                # Reads at the graph's build time: a reused graph reads exactly as when built.
                now = synthetic.built_at(marker)
                indexed = Progress(self._say, f"history (turns) at {size} nodes")
                built = history.ensure_history(
                    user, options["history"], seed=seed, now=now, progress=indexed
                )
                overrides = {}
                if options["seed_threshold"] is not None:
                    overrides["seed_threshold"] = options["seed_threshold"]
                if options["strategy"] is not None:
                    overrides["strategy"] = options["strategy"]
                result = self._bench(
                    user,
                    size,
                    options["messages"],
                    random.Random(seed),
                    now,
                    ReadOptions.from_settings(**overrides),
                    cold=options["cold"],
                )
                result["setup_s"] = setup
                result["history"] = {
                    "turns": options["history"],
                    "sentences": Sentence.objects.for_user(user).count(),
                    "built_s": built["seconds"] if built else None,
                }
                results.append(result)
                self._say(self._summary(result))
            finally:
                if options["drop"]:
                    synthetic.drop_user(username)
        out = {
            "results": results,
            "targets_p95_ms": {str(k): v for k, v in TARGETS_P95_MS.items()},
            "max_queries_target": 6,
        }
        if options["json"]:
            self.stdout.write(json.dumps(out, indent=2))

    def _say(self, line: str) -> None:
        # With --json, stdout carries only the JSON; progress still shows, on stderr.
        (self.stderr if self.quiet else self.stdout).write(line)

    # --- reading ----------------------------------------------------------------------------

    def _messages(self, user, count: int, rng: random.Random) -> list[str]:
        return synthetic.sample_messages(synthetic.names_by_kind(user), count, rng)

    def _bench(
        self,
        user,
        size: int,
        count: int,
        rng: random.Random,
        now,
        options: ReadOptions,
        *,
        cold: int,
    ) -> dict:
        messages = self._messages(user, count + cold, rng)
        edges = Edge.objects.for_user(user).count()
        keys = MemoryKey.objects.for_user(user).count()
        load_before = os.getloadavg()[0]
        # The first Read of a user in a process loads (or sizes up) its keys and snapshot:
        # timed apart, each with the Read caches emptied (the sentence model stays loaded,
        # as in a web process that is up but never served this user).
        cold_ms, cold_queries = [], []
        for message in messages[:cold]:
            with locomo.cold_read_caches(), CaptureQueriesContext(connection) as captured:
                started = time.perf_counter()
                recall(user=user, message=message, now=now, options=options)
                cold_ms.append((time.perf_counter() - started) * 1000.0)
            cold_queries.append(len(captured.captured_queries))

        totals: list[float] = []
        stages: dict[str, list[float]] = {"embed": [], "seed": [], "spread": [], "format": []}
        queries: list[int] = []
        seeds: list[int] = []
        crossed: list[int] = []
        fired: list[int] = []
        slowest = (0.0, "")
        progress = Progress(self._say, f"recall × {count} at {size} nodes")
        for i, message in enumerate(messages[cold:], start=1):
            with CaptureQueriesContext(connection) as captured:
                started = time.perf_counter()
                record = recall(user=user, message=message, now=now, options=options)
                elapsed = (time.perf_counter() - started) * 1000.0
            totals.append(elapsed)
            for stage, values in stages.items():
                values.append(record.timings_ms[stage])
            queries.append(len(captured.captured_queries))
            seeds.append(len(record.seeds))
            crossed.append(len(record.crossed_edges))
            fired.append(len(record.fired))
            slowest = max(slowest, (elapsed, message))
            progress(i, count)
        if Traversal.objects.for_user(user).exists():
            raise CommandError("a Read without a conversation logged traversals")
        return {
            "nodes": size,
            "edges": edges,
            "keys": keys,
            "scan": "exact" if keys <= settings.EXACT_SCAN_MAX_KEYS else "hnsw",
            "messages": count,
            "read_ms": _percentiles(totals),
            "stages_ms": {stage: _percentiles(values) for stage, values in stages.items()},
            "queries": {"mean": round(float(np.mean(queries)), 2), "max": max(queries)},
            "first_read": {
                "ms": round(cold_ms[0], 2),
                "queries": cold_queries[0],
                "reads": len(cold_ms),
                **{f"{k}_ms": v for k, v in _percentiles(cold_ms).items()},
                "queries_max": max(cold_queries),
            },
            "seeds": {"mean": round(float(np.mean(seeds)), 2), "max": max(seeds)},
            "crossed_edges": {"mean": round(float(np.mean(crossed)), 1), "max": max(crossed)},
            "fired_mean": round(float(np.mean(fired)), 2),
            "read_ms_by_seeds": {
                label: dict(
                    _percentiles(
                        [t for t, n in zip(totals, seeds, strict=True) if low <= n <= high]
                    ),
                    reads=sum(1 for n in seeds if low <= n <= high),
                )
                for label, (low, high) in SEED_BUCKETS.items()
            },
            "seed_threshold": options.seed_threshold,
            "strategy": getattr(options, "strategy", "spec"),
            # Other work on the machine inflates every figure: recorded next to them.
            "machine": {
                "cpus": os.cpu_count(),
                "load_1m_before": round(load_before, 2),
                "load_1m_after": round(os.getloadavg()[0], 2),
                "embedding": _embedding(),
            },
            "slowest": {"ms": round(slowest[0], 2), "message": slowest[1]},
            "target_p95_ms": TARGETS_P95_MS.get(size),
        }

    def _summary(self, r: dict) -> str:
        read, st = r["read_ms"], r["stages_ms"]
        setup = r["setup_s"]
        lines = [
            f"== {r['nodes']} nodes · {r['edges']} edges · {r['keys']} keys ({r['scan']} scan)"
            f" · strategy {r['strategy']} ==",
            f"setup: generate {setup['generate']}s · embed {setup['distinct_surface_forms']} "
            f"forms {setup['embed']}s ({setup['embedded']} new) · insert {setup['insert']}s "
            f"(keys {setup['insert_stages']['keys']}s, {setup['insert_stages']['ms_per_key']} "
            f"ms/key) · total {setup['total']}s"
            if setup
            else "setup: reused the graph of an earlier run",
            f"history: {r['history']['turns']} earlier turns, {r['history']['sentences']} "
            f"sentences in the store",
            f"first read in a fresh process (caches emptied, × {r['first_read']['reads']}): "
            f"p50 {r['first_read']['p50_ms']} · p95 {r['first_read']['p95_ms']} ms · "
            f"≤ {r['first_read']['queries_max']} queries",
            f"read  ms over {r['messages']} messages: p50 {read['p50']} · p95 {read['p95']} · "
            f"p99 {read['p99']} · max {read['max']}"
            + (f"  (target p95 ≤ {r['target_p95_ms']})" if r["target_p95_ms"] else ""),
        ]
        for stage in ("embed", "seed", "spread", "format"):
            s = st[stage]
            lines.append(f"  {stage:<7} p50 {s['p50']} · p95 {s['p95']} · p99 {s['p99']}")
        lines.append(
            f"queries per read: mean {r['queries']['mean']} · max {r['queries']['max']}"
            f" · seeds mean {r['seeds']['mean']} (max {r['seeds']['max']})"
            f" · crossed edges mean {r['crossed_edges']['mean']}"
            f" (max {r['crossed_edges']['max']}) · fired mean {r['fired_mean']}"
        )
        for label, bucket in r["read_ms_by_seeds"].items():
            if bucket["reads"]:
                lines.append(
                    f"  reads with {label} seeds: {bucket['reads']} · p50 "
                    f"{bucket['p50']} · p95 {bucket['p95']} ms"
                )
        lines.append(f"slowest: {r['slowest']['ms']} ms — {r['slowest']['message']!r}")
        machine = r["machine"]
        lines.append(
            f"machine: {machine['cpus']} CPUs · load (1 min) {machine['load_1m_before']}"
            f" → {machine['load_1m_after']} · embedding {machine['embedding']['runtime']} on "
            f"{machine['embedding']['threads']} thread(s)"
        )
        return "\n".join(lines)
