"""The Write path's commit (SPEC §3, §5.4–§5.6, §6.2): clean → judge → merge → commit →
reinforce.

``commit_batch`` takes one extractor batch (``pegasus-batch/1``) and writes it into a user's
graph in one transaction under the user's lock; an exception anywhere leaves the graph as it
was. The LLM's merge judgements (``judge_batch``) are asked *before* that lock is taken, so
the lock holds only database work. The pure parts come from ``memory.core`` (cleaning, merge
rules, decay arithmetic); the merge verdicts are committed by ``memory.services.merge``.

By concept: ``commit`` (the two entry points), ``batch`` (checks, cited turns, cleaning
against the graph, the episode), ``edges`` (edge upsert, snippets, traversals) and
``summary`` (what a commit reports).
"""

from memory.services.write.commit import commit_batch, judge_batch
from memory.services.write.summary import Judgements, WriteSummary

__all__ = ["Judgements", "WriteSummary", "commit_batch", "judge_batch"]
