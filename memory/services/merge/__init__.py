"""Merging referents (SPEC §5.6): proposed entities of a batch into stored nodes, stored nodes
into each other, and the exact undo of both.

Three layers:

* **Resolution** (``ensure_self_node``, ``judge_entities``, ``resolve_entities``) — called by
  ``memory.services.write``: each cleaned entity goes through
  ``memory.core.merge_rules.decide_merge`` against the user's stored nodes of its kind (one
  query for every kind of the batch). Entities the rules hold are judged by the LLM when one
  is configured (``judge_entities``, via
  ``memory.extraction.disambiguation.judge_candidates``) *before* the user's lock is taken;
  ``resolve_entities`` then commits the verdicts under the lock: merged into a node, a new
  node, or held. It never calls the LLM: a held entity without a judgement for exactly its
  candidates (offline, the call failed, or the graph changed meanwhile) stays apart as a new
  node with a ``held`` MergeDecision for a moderator.
* **Stored merges** (``merge_nodes``) — a moderator's or user's merge of two nodes, recorded
  in full so that ``revert_merge`` restores the graph exactly (the absorbed node comes back
  with its primary key, so every reference to it is restored too).
* **Review actions** (``confirm``, ``keep_apart``, ``merge_held``, ``revert_merge``) used by
  the admin console.

Every non-trivial decision is a ``MergeDecision`` row whose ``moved`` records exactly what
changed. An exact-name match, a self placeholder, or a name that is already one of the node's
aliases changes no identity and records nothing.
"""

from memory.services.merge.judge import Judgement, judge_entities, judgement_key
from memory.services.merge.resolve import Resolution, resolve_entities
from memory.services.merge.revert import revert_merge
from memory.services.merge.review import confirm, keep_apart, merge_held
from memory.services.merge.self_node import display_name, ensure_self_node
from memory.services.merge.stored import MergeError, merge_nodes

__all__ = [
    "Judgement",
    "MergeError",
    "Resolution",
    "confirm",
    "display_name",
    "ensure_self_node",
    "judge_entities",
    "judgement_key",
    "keep_apart",
    "merge_held",
    "merge_nodes",
    "resolve_entities",
    "revert_merge",
]
