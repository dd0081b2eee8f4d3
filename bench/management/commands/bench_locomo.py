"""``manage.py bench_locomo FILE [--samples N] [--extractor offline|anthropic] [--strategy NAME]
[--budget TOKENS] [--merges OUT] [--json]`` — evidence recall of the Read on LoCoMo-format
conversations, against BM25, dense and hybrid retrieval over the same turns and over single
sentences packed to the Read's tokens, with tokens per query, Read latency and what the replay
filed in the graph (docs/BENCHMARKS.md, "LoCoMo evidence recall"; definitions in ``bench.locomo``).

Each sample is replayed as a fresh account ``bench_locomo_<n>_<random>`` through the real
Write path (Decay between sessions, extraction when each session's conversation ends), then
every question of categories 1–4 is asked as of the end of the last session: one Read per
question, and the baselines rank the sample's turns with the same sentence model. The accounts
are deleted at the end, also after an error or Ctrl-C. Refuses to run in production.

``--merges OUT`` also writes every merge decision of the replays to the JSON file ``OUT``
(``bench.locomo.merge_decisions``), so the automatic merges made on real conversations can be
read by hand.
"""

from __future__ import annotations

import json
import os
from collections import Counter

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.test.utils import override_settings

from bench import locomo
from memory.services.keys import Progress
from memory.services.read import STRATEGIES, ReadOptions

SYSTEMS = [
    "pegasus",
    "bm25@5",
    "bm25@10",
    "bm25@match",
    "dense@5",
    "dense@10",
    "dense@match",
    "hybrid@match",
    "bm25-sentences@match",
    "hybrid-sentences@match",
]


class Command(BaseCommand):
    help = "Evidence recall of the Read on a LoCoMo-format file, against BM25 and dense baselines."

    def add_arguments(self, parser):
        parser.add_argument("file", help="a LoCoMo-format JSON file (a list of samples)")
        parser.add_argument(
            "--samples", type=int, default=0, help="only the first N samples (default: all)"
        )
        parser.add_argument(
            "--extractor",
            choices=["offline", "anthropic"],
            default="offline",
            help="offline spaCy (default) or Claude (needs ANTHROPIC_API_KEY)",
        )
        parser.add_argument(
            "--strategy",
            choices=STRATEGIES,
            default=None,
            help="the Read strategy (default: settings.MEMORY_READ_STRATEGY)",
        )
        parser.add_argument(
            "--budget",
            default=None,
            help="tokens the Read fills (strategies graph and default; "
            "default: settings.MEMORY_BUDGET_TOKENS); several, comma-"
            "separated (100,200,400,800), measure a curve from one replay",
        )
        parser.add_argument(
            "--merges",
            metavar="OUT",
            default=None,
            help="also write every merge decision of the replays to this JSON file",
        )
        parser.add_argument("--json", action="store_true", help="print the result as JSON")

    def handle(self, *args, **options):
        if settings.PEGASUS_ENV == "production":
            raise CommandError("bench_locomo creates and deletes accounts; not in production")
        if options["extractor"] == "anthropic" and not settings.ANTHROPIC_API_KEY:
            raise CommandError("--extractor anthropic needs ANTHROPIC_API_KEY")
        samples = locomo.load_for_command(options["file"], options["samples"])
        if options["merges"] and not os.path.isdir(
            os.path.dirname(os.path.abspath(options["merges"]))
        ):
            raise CommandError(f"--merges: no folder for {options['merges']}")
        try:
            budgets = [int(b) for b in (options["budget"] or "").split(",") if b.strip()]
        except ValueError:
            raise CommandError("--budget takes whole numbers of tokens, comma-separated") from None
        if any(b < 1 for b in budgets):
            raise CommandError("--budget must be ≥ 1")
        base = {"strategy": options["strategy"]} if options["strategy"] else {}
        runs = [ReadOptions.from_settings(**base, budget_tokens=b) for b in budgets] or [
            ReadOptions.from_settings(**base)
        ]
        say = self.stderr.write
        # Offline: the key is hidden for the run, so extraction and merge judging both take
        # their offline paths even when a key is configured.
        key = settings.ANTHROPIC_API_KEY if options["extractor"] == "anthropic" else ""

        asked: dict[int, list[locomo.Asked]] = {run.budget_tokens: [] for run in runs}
        graph: list[locomo.GraphStats] = []
        merges: list[dict] = []
        users = []
        try:
            turns_total = sum(len(sample.turns) for sample in samples)
            questions_total = len(runs) * sum(1 for s in samples for q in s.questions if q.scored)
            replayed = Progress(say, "replay (turns)")
            read = Progress(say, "questions")
            turns_before = 0
            for n, sample in enumerate(samples, start=1):
                user = locomo.create_user(n)
                users.append(user)
                outcomes = Counter()
                with override_settings(ANTHROPIC_API_KEY=key):
                    now = locomo.replay(
                        sample,
                        user=user,
                        progress=lambda done, base=turns_before: replayed(base + done, turns_total),
                        outcomes=outcomes,
                    )
                turns_before += len(sample.turns)
                graph.append(locomo.graph_stats(sample, user=user, outcomes=outcomes))
                if options["merges"]:
                    merges.extend(locomo.merge_decisions(sample, user=user))
                rankers = locomo.baseline_rankers(sample)
                sources = locomo.snippet_sources(user)
                for run in runs:
                    with locomo.cold_read_caches():
                        for question in sample.questions:
                            if not question.scored:
                                continue
                            asked[run.budget_tokens].append(
                                locomo.ask(
                                    sample,
                                    question,
                                    user=user,
                                    now=now,
                                    options=run,
                                    sources=sources,
                                    rankers=rankers,
                                )
                            )
                            read(sum(map(len, asked.values())), questions_total)
        except KeyboardInterrupt:
            raise CommandError("interrupted; the benchmark accounts were deleted") from None
        finally:
            for user in users:
                user.delete()

        if options["merges"]:
            self._write_merges(options["merges"], options["file"], merges)
        skipped = sum(
            len(q.skipped) for s in samples for q in s.questions if q.category in locomo.CATEGORIES
        )
        results = {
            budget: locomo.report(rows, samples, skipped_evidence=skipped, graph=graph)
            for budget, rows in asked.items()
        }
        if options["json"]:
            if len(results) == 1:
                self.stdout.write(json.dumps(next(iter(results.values())), indent=2))
            else:
                self.stdout.write(
                    json.dumps({"curve": {str(b): r for b, r in results.items()}}, indent=2)
                )
            return
        for run in runs:
            ks = locomo.match_ks(asked[run.budget_tokens], locomo.turn_tokens(samples))
            self._print(results[run.budget_tokens], samples, run, options["extractor"], ks)

    def _write_merges(self, path: str, source: str, merges: list[dict]) -> None:
        by = Counter((row["status"], row["rule"]) for row in merges)
        summary = [
            {"status": status, "rule": rule, "count": count}
            for (status, rule), count in sorted(by.items(), key=lambda item: (-item[1], item[0]))
        ]
        try:
            with open(path, "w", encoding="utf-8") as out:
                json.dump(
                    {"file": source, "summary": summary, "decisions": merges},
                    out,
                    ensure_ascii=False,
                    indent=1,
                )
        except OSError as error:
            raise CommandError(f"--merges: cannot write {path}: {error.strerror}") from None
        self.stderr.write(f"{len(merges)} merge decisions written to {path}")

    def _print(self, result: dict, samples, read_options, extractor: str, ks: dict) -> None:
        out = self.stdout.write
        out(
            f"LoCoMo evidence recall: {len(samples)} sample(s), {result['questions']} questions "
            f"(categories 1-4), {result['skipped_evidence']} evidence id(s) skipped"
        )
        out(
            f"strategy {read_options.strategy} · extractor {extractor} · "
            f"budget {read_options.budget_tokens} · @match: bm25 k={ks['bm25']}, dense "
            f"k={ks['dense']}, hybrid k={ks['hybrid']}, sentences packed to the Read's tokens · "
            f"tokens = words × 1.3 · "
            f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
        tables = [("overall", result["systems"])] + [
            (f"category {c} ({locomo.CATEGORIES[int(c)]})", table)
            for c, table in result["by_category"].items()
        ]
        for title, table in tables:
            out("")
            out(title)
            out(f"  {'system':<22} {'recall':>7} {'tokens':>8} {'p50 ms':>8} {'p95 ms':>8}")
            for system in SYSTEMS:
                row = table[system]
                out(
                    f"  {system:<22} {row['recall']:>7.3f} {row['tokens']:>8.1f} "
                    f"{row['p50_ms']:>8.2f} {row['p95_ms']:>8.2f}"
                )
            out(f"  {'full_context':<22} {'':>7} {table['full_context']['tokens']:>8.1f}")
        g = result["graph"]
        out("")
        out(
            f"graph: coverage {g['coverage']:.3f} of {g['evidence_turns']} evidence turns · "
            f"{g['nodes_per_100_turns']} nodes and {g['edges_per_100_turns']} edges per 100 "
            f"turns · {g['person_nodes']} PERSON nodes, suspect "
            f"{len(g['suspect_person_nodes'])} ({g['suspect_person_share']:.1%})"
            + (f": {', '.join(g['suspect_person_nodes'])}" if g["suspect_person_nodes"] else "")
            + f" · evidence turns naming a time: {g['timed_evidence_turns']} in the graph, "
            f"{g['timed_evidence_dated']:.1%} with their date"
        )
        r = g["resolution"]
        out(
            f"entities: {r['entities']} extracted, {r['with_candidate']} with a stored "
            f"candidate, {r['held_share']:.1%} of those held for a question · "
            + ", ".join(f"{outcome} {n}" for outcome, n in r["outcomes"].items())
        )
