"""The Read: what a message recalls from its user's memory, before every assistant reply.

``recall(user=, message=, now=)`` → ``ReadRecord``. One module per step:

* ``record`` — ``ReadOptions`` (thresholds, strategy, token budget; the settings by default)
  and ``ReadRecord`` (SPEC §6.4);
* ``keys`` — scoring the message's words against the user's keys, with the per-process
  key cache (query 1 of every Read);
* ``spreading`` — spreading activation over the graph snapshot (SPEC §5.2) and the turn's
  Traversal row;
* ``spec`` — strategy ``"spec"``, SPEC §5.1–§5.3 to the letter (the reference);
* ``sentences`` — BM25 + vector search of the sentence store;
* ``ranking`` — Read v2, strategies ``"graph"`` and ``"default"`` (SPEC §5.7): precise seeds,
  one ranked list from the graph and the sentences, packed to ``MEMORY_BUDGET_TOKENS``;
* ``sql`` — the literals the queries bind.

A Read takes no lock and writes nothing but the Traversal row of a conversation's turn.
Every query filters on the user's id.
"""

from __future__ import annotations

from datetime import datetime

from memory.services.read.keys import clear_key_cache
from memory.services.read.ranking import ranked_recall
from memory.services.read.record import STRATEGIES, ReadOptions, ReadRecord
from memory.services.read.spec import spec_recall

__all__ = ["STRATEGIES", "ReadOptions", "ReadRecord", "clear_key_cache", "recall"]


def recall(
    *, user, message: str, now: datetime, conversation=None, options: ReadOptions | None = None
) -> ReadRecord:
    """Recall what ``message`` touches in ``user``'s graph (SPEC §5.1–§5.3) as a ReadRecord.

    Inputs: ``user`` (instance or id), the message text, ``now`` (timezone-aware; current
    strengths and expiry are judged at this instant), optionally the ``conversation`` the
    message belongs to (must be the user's), and ``options`` (default: the settings).

    ``options.strategy``: ``"spec"`` is SPEC §5.1–§5.3 exactly (``spec``); ``"graph"``
    and ``"default"`` are Read v2 (SPEC §5.7, ``ranking``), whose
    ``context_snippets`` entries also carry ``source`` (``edge`` or ``sentence``), ``id``,
    ``score`` and ``tokens``.

    With a conversation that is not incognito, the crossed edges are logged as the turn's
    Traversal row (``crossed_at = now``) for reinforcement at its Write.
    Nothing else is written. Raises ValueError for a naive ``now`` or another user's
    conversation.
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"now must be timezone-aware, got {now!r}")
    user_id = user if isinstance(user, int) else user.pk
    if conversation is not None and conversation.user_id != user_id:
        raise ValueError("the conversation belongs to another user")
    options = options if options is not None else ReadOptions()
    if options.strategy not in STRATEGIES:
        raise ValueError(f"unknown Read strategy {options.strategy!r}")
    read = spec_recall if options.strategy == "spec" else ranked_recall
    return read(
        user_id=user_id, message=message, now=now, conversation=conversation, options=options
    )
