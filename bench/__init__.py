"""Benchmark and load tooling, a development-only app (absent from production's
INSTALLED_APPS; docs/operations.md).

* ``locomo``: the LoCoMo long-conversation format — loading and validation, replay through the
  Write path with a simulated clock, evidence recall of the Read against retrieval baselines
  (``manage.py bench_locomo``; docs/BENCHMARKS.md, "LoCoMo evidence recall").
* ``synthetic``: benchmark graphs of a promised shape, loaded through COPY (``bench_recall``,
  ``bench_chat``); ``history``: conversations for the sentence store.
* ``merge_cases``: labelled entity-resolution cases replayed through the Write path
  (``bench_merge``).
* ``devredis``: a throwaway redis-server for ``bench_chat --redis`` and the two-server test.
* ``management/commands``: ``bench_store``, ``bench_recall``, ``bench_chat``, ``bench_locomo``,
  ``bench_extract``, ``bench_merge``.
"""
