"""Benchmarks that replay real-shaped data through the real pipeline.

* ``locomo``: the LoCoMo long-conversation format — loading and validation, replay through the
  Write path with a simulated clock, evidence recall of the Read against retrieval baselines
  (``manage.py bench_locomo``; docs/BENCHMARKS.md, "LoCoMo evidence recall").
* ``bm25``: the Okapi BM25 ranker of the lexical baseline.
"""
