"""A user's own corrections to their memory graph: rename, aliases, kind, forget.

The explorer and the REST API both call these; nothing else edits a node's identity outside
the Write and merge paths. Every function:

* runs in one transaction under ``memory.services.locks.user_lock`` (so a correction never
  interleaves with a Write, a Decay run or a merge of the same graph);
* reaches the row through ``for_user`` (another user's node or edge is ``Http404``, exactly
  like a missing one);
* keeps the MemoryKeys in step (``keys.sync_node_keys`` / ``keys.sync_relation_keys``), so
  the next Read seeds from the corrected names;
* records a ``Correction`` row with what changed (``before`` / ``after``), and returns the
  updated node (``None`` for a forget).

Forgetting means it: the record of a forget keeps ids and labels, never the forgotten words
(the sentence store keeps its own keyed digests of them), and older records naming the
forgotten node (its corrections, the merge decisions that kept it) lose their text at once.
Every other record keeps the text an undo needs for ``MEMORY_UNDO_WINDOW_DAYS`` (default
30); then ``erase_expired_history`` (a daily job) replaces it with ``ERASED`` in place, and a
merge can no longer be reverted.

A correction that changes nothing (adding an alias the node already has, renaming to the
same name, the same kind) is not recorded. Invalid input raises ``CorrectionError`` whose
message is fit to show the user and whose ``field`` names the input at fault.

Forgetting deletes rows for good (the user asked for it): an edge with its snippets, episode
links and traversals, and the stored sentences its snippets were cut from; a node with every
edge touching it and every stored sentence naming it (``memory.services.sentences``). An
edge that the forgotten edge had superseded takes over the forgotten edge's own successor,
or — when there is none — becomes current again (the claim it was replaced by is gone),
unless the same claim is live on another edge, which then supersedes it.

Layout: ``common`` (``CorrectionError``, the locked node, the ``Correction`` record),
``identity`` (rename, aliases, kind, and ``correct_node`` applying several together),
``forget`` (``forget_edge``, ``forget_node``) and ``history`` (the undo window: which text a
record keeps, ``erase_text``, ``erase_expired_history``). The names below are re-exported so
``from memory.services.corrections import ...`` keeps working.
"""

from memory.services.corrections.common import CorrectionError
from memory.services.corrections.forget import forget_edge, forget_node
from memory.services.corrections.history import (
    FORGET_ACTIONS,
    erase_expired_history,
    erase_text,
)
from memory.services.corrections.identity import (
    MAX_NAME,
    add_alias,
    change_kind,
    correct_node,
    remove_alias,
    rename_node,
)

__all__ = [
    "FORGET_ACTIONS",
    "MAX_NAME",
    "CorrectionError",
    "add_alias",
    "change_kind",
    "correct_node",
    "erase_expired_history",
    "erase_text",
    "forget_edge",
    "forget_node",
    "remove_alias",
    "rename_node",
]
