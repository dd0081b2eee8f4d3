"""``manage.py bench_embed [--runtimes torch,onnx,onnx-int8] [--repeat 200] [--threads 1]
[--json]`` — what one embedding costs in each runtime of the sentence model, and how far its
vectors lie from sentence-transformers' (docs/BENCHMARKS.md, "The sentence model's runtime").

For each runtime it loads the model as a web process does (``--threads`` threads, the ONNX
graph exported first if missing, not timed) and times, ``--repeat`` times each, what a Read
embeds: one chat message alone, three content words, and the message with its words as one
call; then a batch of 64 sentences, as the extraction job embeds a conversation. Wall-clock
p50/p95 in ms and CPU ms per call. The vectors of every text are compared with those of the
``torch`` runtime (cosine, min and mean). Reads nothing from and writes nothing to the
database; the process's text cache is bypassed.
"""

from __future__ import annotations

import json
import time

import numpy as np
from django.core.management.base import BaseCommand, CommandError

from memory import embedding
from memory.embedding.encoders import RUNTIMES

MESSAGE = "What did Caroline say about the pottery class she took last summer?"
WORDS = ["caroline", "pottery", "summer"]
SENTENCES = [
    "I went hiking with my sister Melanie in the mountains near Denver last weekend.",
    "My boss Joshua asked me to lead the Deloitte audit next quarter.",
    "Did I take the Spotify job in the end?",
    "We adopted a beagle puppy called Biscuit in May.",
    "The violin recital is on Friday at seven.",
    "Thanks!",
    "Painting by the lake calms me down after a long week at the hospital.",
    "Grandma's apple orchard had its best harvest in years, so we made forty jars of jam.",
] * 8


def _percentiles(values: list[float]) -> dict[str, float]:
    arr = np.asarray(values)
    return {
        "p50": round(float(np.percentile(arr, 50)), 3),
        "p95": round(float(np.percentile(arr, 95)), 3),
    }


def _unit(rows: np.ndarray) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.float64)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


class Command(BaseCommand):
    help = "Time the sentence model's runtimes on what a Read and an extraction embed."

    def add_arguments(self, parser):
        parser.add_argument("--runtimes", default=",".join(RUNTIMES), help="comma-separated")
        parser.add_argument("--repeat", type=int, default=200, help="timed calls per case")
        parser.add_argument("--threads", type=int, default=1, help="threads (web process: 1)")
        parser.add_argument("--json", action="store_true", help="print the result as JSON")

    def handle(self, *args, **options):
        runtimes = [r.strip() for r in options["runtimes"].split(",") if r.strip()]
        unknown = [r for r in runtimes if r not in RUNTIMES]
        if unknown or options["repeat"] < 1:
            raise CommandError(f"runtimes are {', '.join(RUNTIMES)}; --repeat must be ≥ 1")
        threads = options["threads"]
        texts = [MESSAGE, *WORDS, *dict.fromkeys(SENTENCES)]
        reference = _unit(embedding.load_encoder("torch", threads).encode(texts))
        cases = {
            "message": [MESSAGE],
            "words": WORDS,
            "message_and_words": [*WORDS, MESSAGE],
            "batch_64_sentences": SENTENCES,
        }
        results = {}
        for runtime in runtimes:
            encoder = embedding.load_encoder(runtime, threads)
            cosine = (_unit(encoder.encode(texts)) * reference).sum(axis=1)
            timed = {}
            for name, batch in cases.items():
                repeat = options["repeat"] if len(batch) < 10 else max(options["repeat"] // 10, 3)
                for _ in range(3):
                    encoder.encode(batch)  # warm-up
                wall, cpu = [], []
                for _ in range(repeat):
                    started, started_cpu = time.perf_counter(), time.process_time()
                    encoder.encode(batch)
                    wall.append((time.perf_counter() - started) * 1000)
                    cpu.append((time.process_time() - started_cpu) * 1000)
                timed[name] = {**_percentiles(wall), "cpu_ms": round(float(np.mean(cpu)), 3)}
            results[runtime] = {
                "ms": timed,
                "cosine_to_torch": {
                    "min": round(float(cosine.min()), 5),
                    "mean": round(float(cosine.mean()), 5),
                },
            }
            if not options["json"]:
                self.stdout.write(f"== {runtime} ({threads} thread(s))")
                for name, row in timed.items():
                    self.stdout.write(
                        f"  {name:20s} p50 {row['p50']:8.2f} · p95 {row['p95']:8.2f} ms · "
                        f"cpu {row['cpu_ms']:8.2f} ms"
                    )
                self.stdout.write(
                    f"  cosine to torch: min {results[runtime]['cosine_to_torch']['min']} · "
                    f"mean {results[runtime]['cosine_to_torch']['mean']}"
                )
        if options["json"]:
            self.stdout.write(json.dumps({"threads": threads, "runtimes": results}, indent=2))
