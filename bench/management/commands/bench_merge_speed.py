"""``manage.py bench_merge_speed [--nodes N] [--repeat R] [--json]`` — what one merge
decision costs against a large graph (issue 21).

Draws ``N`` stored nodes in memory (``bench.merge_speed``; no database) and times
``decide_merge`` for five names a user says (a first name, an organisation, a description,
an occasion, a thing): least and median CPU time of ``R`` decisions, and the Python calls one
makes — steady from run to run where the time is not. Progress goes to standard error;
Ctrl-C stops between names and prints what ran.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from bench.merge_speed import NAMES, measure, synthetic_nodes


class Command(BaseCommand):
    help = "Time merge decisions against a synthetic graph of stored nodes."

    def add_arguments(self, parser):
        parser.add_argument("--nodes", type=int, default=6000, help="stored nodes (6000)")
        parser.add_argument("--repeat", type=int, default=10, help="decisions per name (10)")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, **options):
        size, repeat = options["nodes"], options["repeat"]
        if size < 10 or repeat < 1:
            raise CommandError("--nodes must be at least 10 and --repeat at least 1")
        nodes = synthetic_nodes(size)
        rows: list[dict] = []
        interrupted = False
        try:
            for done, name in enumerate(NAMES, start=1):
                rows.extend(measure(nodes, repeat, names=(name,)))
                self.stderr.write(f"bench_merge_speed: {done}/{len(NAMES)} names")
        except KeyboardInterrupt:
            interrupted = True
        report = {"nodes": len(nodes), "repeat": repeat, "interrupted": interrupted, "rows": rows}
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
            return
        self.stdout.write(f"decide_merge against {len(nodes)} stored nodes, {repeat} runs each")
        for row in rows:
            self.stdout.write(
                f"  {row['name']:22} {row['kind']:7} {row['nodes']:6d} nodes  "
                f"{row['action']:5} {row['rule']:24} least {row['least_ms']:7.1f} ms  "
                f"median {row['median_ms']:7.1f} ms  {row['python_calls']:>9,} calls"
            )
        if interrupted:
            self.stdout.write("(interrupted)")
