"""``manage.py bench_merge FILE [--json]`` — how often entity resolution merges right (issue 21).

Replays a labelled case file (``pegasus-merge-cases/1``, see ``bench.merge_cases``)
through the real Write path, one fresh account per case, everything rolled back; merge
judging by a language model is off, so "held" means "would be asked". Prints the precision
and recall of automatic merges, the share of entities with a candidate that were held, and
every wrong merge and every miss; ``--json`` prints one JSON object. Progress (cases done,
ETA) goes to standard error; Ctrl-C stops between cases and reports what ran.
"""

from __future__ import annotations

import json
import time
import uuid

from django.core.management.base import BaseCommand, CommandError

from bench.merge_cases import CaseError, load_cases, run_cases
from memory.management import read_json_file

TARGETS = {"wrong_merges": 0, "missed_share": 0.10, "held_share": 0.10}


class Command(BaseCommand):
    help = "Measure entity resolution on a labelled case file through the real Write path."

    def add_arguments(self, parser):
        parser.add_argument("file", help="a pegasus-merge-cases/1 JSON file")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, **options):
        path = options["file"]
        try:
            cases = load_cases(read_json_file(path))
        except CaseError as exc:
            raise CommandError(f"{path}: {exc}") from None
        started = time.monotonic()

        def progress(done: int, total: int) -> None:
            if done % 10 and done != total:
                return
            elapsed = time.monotonic() - started
            eta = elapsed / done * (total - done)
            self.stderr.write(
                f"bench_merge: {done}/{total} cases · {elapsed:.1f} s · ETA {eta:.0f} s"
            )

        interrupted = False
        try:
            scores = run_cases(cases, run_id=uuid.uuid4().hex[:8], progress=progress)
        except CaseError as exc:
            raise CommandError(f"{path}: {exc}") from None
        except KeyboardInterrupt as exc:
            scores, interrupted = exc.scores, True  # type: ignore[attr-defined]
        report = scores.report()
        ran = len({r["case"] for r in scores.results})
        report = {
            "file": path,
            "cases": ran,
            "of_cases": len(cases),
            "interrupted": interrupted,
            "seconds": round(time.monotonic() - started, 1),
            **report,
        }
        # Holds the set does not label as ambiguities (labelled merge or new): what the rules
        # add to the held share beyond the genuine ambiguities the set contains.
        report["held_unlabelled"] = report["held"] - report["held_as_expected"]
        report["held_unlabelled_share"] = (
            round(report["held_unlabelled"] / report["with_candidate"], 4)
            if report["with_candidate"]
            else None
        )
        report["targets"] = {
            "wrong_merges": report["wrong_merges"] <= TARGETS["wrong_merges"],
            "missed_share": (report["missed_share"] or 0) <= TARGETS["missed_share"],
            "held_share": (report["held_share"] or 0) <= TARGETS["held_share"],
        }
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False))
            return
        self._print(report)

    def _print(self, r: dict) -> None:
        def pct(value) -> str:
            return "n/a" if value is None else f"{value * 100:.1f} %"

        def ok(key: str) -> str:
            return "meets target" if r["targets"][key] else "MISSES target"

        w = self.stdout.write
        head = f"bench_merge {r['file']}: {r['cases']} cases, {r['entities']} incoming entities"
        w(
            head
            + (f" (interrupted after {r['cases']} of {r['of_cases']})" if r["interrupted"] else "")
            + f", {r['seconds']} s"
        )
        w(
            f"automatic merges: {r['automatic_merges']} — correct {r['correct_merges']}, "
            f"wrong {r['wrong_merges']} ({ok('wrong_merges')}: 0)"
        )
        w(
            f"precision {pct(r['precision'])}, recall {pct(r['recall'])} of "
            f"{r['expected_merges']} expected merges"
        )
        w(
            f"missed merges: {r['missed_merges']} = {pct(r['missed_share'])} "
            f"({ok('missed_share')}: ≤ 10 %)"
        )
        w(
            f"held: {r['held']} of {r['with_candidate']} entities with a candidate = "
            f"{pct(r['held_share'])} ({ok('held_share')}: ≤ 10 %); "
            f"{r['held_as_expected']} of them labelled held"
        )
        w(
            f"held beyond the labelled ambiguities: {r['held_unlabelled']} = "
            f"{pct(r['held_unlabelled_share'])} of entities with a candidate"
        )
        for title, rows in (
            ("wrong merges", r["wrong"]),
            ("misses", r["missed"]),
            ("held but labelled new", r["needless_holds"]),
            ("labelled held, became new", r["unasked"]),
        ):
            if rows:
                w(f"{title}:")
                for row in rows:
                    w(
                        f"  [{row['case']}] {row['name']!r} → {row['got']} "
                        f"(expected {row['expect']})"
                    )
