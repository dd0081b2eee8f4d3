"""``manage.py bench_locomo FILE [--samples N] [--extractor offline|anthropic] [--strategy NAME]
[--json]`` — evidence recall of the Read on LoCoMo-format conversations, against BM25 and dense
retrieval over the same turns, with tokens per query and Read latency (docs/BENCHMARKS.md,
"LoCoMo evidence recall"; definitions in ``memory.bench.locomo``).

Each sample is replayed as a fresh account ``bench_locomo_<n>_<random>`` through the real
Write path (Decay between sessions, extraction when each session's conversation ends), then
every question of categories 1–4 is asked as of the end of the last session: one Read per
question, and the baselines rank the sample's turns with the same sentence model. The accounts
are deleted at the end, also after an error or Ctrl-C. Refuses to run in production.
"""

from __future__ import annotations

import json
import os

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.test.utils import override_settings

from memory.bench import locomo
from memory.services.keys import Progress
from memory.services.read import STRATEGIES, ReadOptions

SYSTEMS = ["pegasus", "bm25@5", "bm25@10", "bm25@match", "dense@5", "dense@10", "dense@match"]


class Command(BaseCommand):
    help = "Evidence recall of the Read on a LoCoMo-format file, against BM25 and dense baselines."

    def add_arguments(self, parser):
        parser.add_argument("file", help="a LoCoMo-format JSON file (a list of samples)")
        parser.add_argument("--samples", type=int, default=0,
                            help="only the first N samples (default: all)")
        parser.add_argument("--extractor", choices=["offline", "anthropic"], default="offline",
                            help="offline spaCy (default) or Claude (needs ANTHROPIC_API_KEY)")
        parser.add_argument("--strategy", choices=STRATEGIES, default=None,
                            help="the Read strategy (default: settings.MEMORY_READ_STRATEGY)")
        parser.add_argument("--json", action="store_true", help="print the result as JSON")

    def handle(self, *args, **options):
        if settings.PEGASUS_ENV == "production":
            raise CommandError("bench_locomo creates and deletes accounts; not in production")
        if options["samples"] < 0:
            raise CommandError("--samples must be ≥ 0")
        if options["extractor"] == "anthropic" and not settings.ANTHROPIC_API_KEY:
            raise CommandError("--extractor anthropic needs ANTHROPIC_API_KEY")
        try:
            samples = locomo.load_file(options["file"])
        except locomo.LocomoFormatError as exc:
            raise CommandError(str(exc)) from None
        if options["samples"]:
            samples = samples[:options["samples"]]
        read_options = ReadOptions.from_settings(
            **({"strategy": options["strategy"]} if options["strategy"] else {}))
        say = self.stderr.write
        # Offline: the key is hidden for the run, so extraction and merge judging both take
        # their offline paths even when a key is configured.
        key = settings.ANTHROPIC_API_KEY if options["extractor"] == "anthropic" else ""

        asked: list[locomo.Asked] = []
        users = []
        try:
            turns_total = sum(len(sample.turns) for sample in samples)
            questions_total = sum(1 for s in samples for q in s.questions if q.scored)
            replayed = Progress(say, "replay (turns)")
            read = Progress(say, "questions")
            turns_before = 0
            for n, sample in enumerate(samples, start=1):
                user = locomo.create_user(n)
                users.append(user)
                with override_settings(ANTHROPIC_API_KEY=key):
                    now = locomo.replay(
                        sample, user=user,
                        progress=lambda done, base=turns_before: replayed(base + done,
                                                                          turns_total))
                turns_before += len(sample.turns)
                rankers = [locomo.LexicalRanker(sample.turns), locomo.DenseRanker(sample.turns)]
                sources = locomo.snippet_sources(user)
                with locomo.cold_read_caches():
                    for question in sample.questions:
                        if not question.scored:
                            continue
                        asked.append(locomo.ask(sample, question, user=user, now=now,
                                                options=read_options, sources=sources,
                                                rankers=rankers))
                        read(len(asked), questions_total)
        except KeyboardInterrupt:
            raise CommandError("interrupted; the benchmark accounts were deleted") from None
        finally:
            for user in users:
                user.delete()

        skipped = sum(len(q.skipped) for s in samples for q in s.questions
                      if q.category in locomo.CATEGORIES)
        result = locomo.report(asked, samples, skipped_evidence=skipped)
        if options["json"]:
            self.stdout.write(json.dumps(result, indent=2))
            return
        ks = locomo.match_ks(asked, locomo.turn_tokens(samples))
        self._print(result, samples, read_options, options["extractor"], ks)

    def _print(self, result: dict, samples, read_options, extractor: str, ks: dict) -> None:
        out = self.stdout.write
        out(f"LoCoMo evidence recall: {len(samples)} sample(s), {result['questions']} questions "
            f"(categories 1-4), {result['skipped_evidence']} evidence id(s) skipped")
        out(f"strategy {read_options.strategy} · extractor {extractor} · "
            f"@match: bm25 k={ks['bm25']}, dense k={ks['dense']} · tokens = words × 1.3 · "
            f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        tables = [("overall", result["systems"])] + [
            (f"category {c} ({locomo.CATEGORIES[int(c)]})", table)
            for c, table in result["by_category"].items()]
        for title, table in tables:
            out("")
            out(title)
            out(f"  {'system':<13} {'recall':>7} {'tokens':>8} {'p50 ms':>8} {'p95 ms':>8}")
            for system in SYSTEMS:
                row = table[system]
                out(f"  {system:<13} {row['recall']:>7.3f} {row['tokens']:>8.1f} "
                    f"{row['p50_ms']:>8.2f} {row['p95_ms']:>8.2f}")
            out(f"  {'full_context':<13} {'':>7} {table['full_context']['tokens']:>8.1f}")
