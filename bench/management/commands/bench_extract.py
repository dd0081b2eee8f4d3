"""``manage.py bench_extract FILE [--samples N] [--turns 30] [--json]`` — CPU time of the offline
extractor per conversation, as the worker runs it (docs/BENCHMARKS.md, "Extraction").

Every session of every LoCoMo-format sample is cut into conversations of at most ``--turns``
turns (the speakers kept, the session's date as the conversation's), and each is extracted
with the spaCy model loaded once, as a worker process loads it. Prints the model's load time
and the CPU seconds per conversation (process time: what the extraction costs the machine,
whatever else runs) at p50/p95/max, scaled to ``--turns`` turns. Reads nothing from and
writes nothing to the database.
"""

from __future__ import annotations

import json
import time
from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError

from bench import locomo
from memory.extraction.base import Turn
from memory.extraction.offline import OfflineExtractor, load_model
from memory.services.keys import Progress


class Command(BaseCommand):
    help = "CPU time of the offline extractor per conversation (model loaded once)."

    def add_arguments(self, parser):
        parser.add_argument("file", help="a LoCoMo-format JSON file (a list of samples)")
        parser.add_argument("--samples", type=int, default=0, help="only the first N samples")
        parser.add_argument(
            "--turns", type=int, default=30, help="turns per conversation (default 30)"
        )
        parser.add_argument("--json", action="store_true", help="print the result as JSON")

    def handle(self, *args, **options):
        if options["turns"] < 1:
            raise CommandError("--turns must be ≥ 1")
        samples = locomo.load_for_command(options["file"], options["samples"])
        size = options["turns"]
        conversations = [
            (session.date, session.turns[i : i + size])
            for sample in samples
            for session in sample.sessions
            for i in range(0, len(session.turns), size)
        ]
        started = time.process_time()
        load_model()
        load_s = time.process_time() - started
        extractor = OfflineExtractor()
        progress = Progress(self.stderr.write, "conversations")
        per_conversation: list[float] = []
        turns = edges = 0
        try:
            for done, (day, chunk) in enumerate(conversations, start=1):
                started = time.process_time()
                result = extractor.extract(
                    turns=[Turn(t.dia_id, t.text, t.speaker) for t in chunk],
                    started_at=day,
                    ended_at=day + timedelta(minutes=len(chunk)),
                )
                spent = time.process_time() - started
                per_conversation.append(spent * size / len(chunk))
                turns += len(chunk)
                edges += len(result.batch["relations"])
                progress(done, len(conversations))
        except KeyboardInterrupt:
            raise CommandError(f"interrupted after {len(per_conversation)} conversations") from None
        figures = {
            "conversations": len(per_conversation),
            "turns": turns,
            "turns_per_conversation": size,
            "model_load_s": round(load_s, 2),
            "cpu_s_per_conversation": {
                "p50": round(locomo.percentile(per_conversation, 50), 3),
                "p95": round(locomo.percentile(per_conversation, 95), 3),
                "max": round(max(per_conversation, default=0.0), 3),
            },
            "edges_per_100_turns": round(100 * edges / turns, 1) if turns else 0.0,
        }
        if options["json"]:
            self.stdout.write(json.dumps(figures, indent=2))
            return
        cpu = figures["cpu_s_per_conversation"]
        self.stdout.write(
            f"offline extraction: {figures['conversations']} conversations, {turns} turns · "
            f"model load {figures['model_load_s']} s CPU (once per worker) · CPU per "
            f"{size}-turn conversation p50 {cpu['p50']} s, p95 {cpu['p95']} s, max "
            f"{cpu['max']} s · {figures['edges_per_100_turns']} edges per 100 turns"
        )
