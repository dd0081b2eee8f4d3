"""A moderator's review actions on merge decisions: confirm, keep apart, merge a held entity."""

from __future__ import annotations

from datetime import datetime

from memory.models import MergeDecision, MergeStatus, Node
from memory.services.locks import user_lock
from memory.services.merge.common import _locked_decision, _log
from memory.services.merge.revert import _restore_absorbed, _split_proposed
from memory.services.merge.stored import _merge_stored


def confirm(*, user, decision, by, now: datetime) -> MergeDecision:
    """A moderator confirms a flagged merge (``merged-flagged`` → ``merged``). A held decision
    is resolved with ``merge_held`` or ``keep_apart`` instead (``ValueError``)."""
    with user_lock(user.pk):
        decision = _locked_decision(user, decision)
        if decision.status != MergeStatus.FLAGGED:
            raise ValueError(
                f"only a flagged merge can be confirmed (this one is {decision.status})"
            )
        decision.status = MergeStatus.MERGED
        decision.decided_by, decision.decided_at = by, now
        _log(decision, at=now, by=by, action="confirmed", why="a moderator confirmed the merge")
        decision.save()
        return decision


def keep_apart(*, user, decision, by, why: str, now: datetime) -> MergeDecision:
    """A moderator keeps an entity apart from its candidates (status ``kept-apart``).

    Held: its node already stands alone, so only the status changes. Flagged: the merge is
    split back out first, exactly as ``revert_merge`` does for a proposed entity."""
    with user_lock(user.pk):
        decision = _locked_decision(user, decision)
        if decision.status == MergeStatus.FLAGGED:
            if decision.absorbed:
                _restore_absorbed(user, decision, now)
            else:
                split = _split_proposed(user, decision, now)
                decision.moved = {**decision.moved, "node": split.pk}
        elif decision.status != MergeStatus.HELD:
            raise ValueError(
                f"only held or flagged decisions can be kept apart (this one is {decision.status})"
            )
        decision.status = MergeStatus.KEPT_APART
        decision.decided_by, decision.decided_at = by, now
        _log(decision, at=now, by=by, action="kept-apart", why=why)
        decision.save()
        return decision


def merge_held(*, user, decision, into_node_id: int, by, now: datetime) -> MergeDecision:
    """A moderator merges a held entity's node into ``into_node_id`` (one of the candidates
    or any node of the same kind). Runs ``merge_nodes`` (its own revertible decision) and links
    it: the held decision becomes ``merged`` with ``kept`` set and ``moved["merge_decision"]``
    naming the node merge; reverting either reverts the merge. Returns the held decision."""
    with user_lock(user.pk):
        decision = _locked_decision(user, decision)
        if decision.status != MergeStatus.HELD:
            raise ValueError(f"only a held decision can be merged (this one is {decision.status})")
        held_id = decision.moved.get("node")
        nodes = {
            n.pk: n
            for n in Node.objects.for_user(user)
            .select_for_update()
            .filter(pk__in=[held_id, into_node_id])
        }
        if held_id not in nodes:
            raise ValueError("the held entity's node no longer exists")
        if into_node_id not in nodes or into_node_id == held_id:
            raise ValueError("node not found")
        why = f"a moderator merged the held entity {decision.proposed.get('name')!r}"
        inner = _merge_stored(
            user, nodes[into_node_id], nodes[held_id], reason=why, by=by, now=now, rule="moderator"
        )
        decision.status = MergeStatus.MERGED
        decision.kept = nodes[into_node_id]
        decision.moved = {**decision.moved, "merge_decision": inner.pk}
        decision.decided_by, decision.decided_at = by, now
        _log(decision, at=now, by=by, action="merged", why=why)
        decision.save()
        return decision
