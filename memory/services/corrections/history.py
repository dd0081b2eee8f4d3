"""The undo window: corrections and merge decisions keep the text an undo needs for
``MEMORY_UNDO_WINDOW_DAYS``, then lose it in place (``ERASED``); the records naming a
forgotten node lose it at once."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import models, transaction

from memory.models import Correction, CorrectionAction, MergeDecision, MergeStatus

ERASED = "[erased]"
# Keys of Correction / MergeDecision JSON whose values are the user's words or names.
TEXT_KEYS = frozenset(
    (
        "name",
        "aliases",
        "aliases_added",
        "properties",
        "properties_added",
        "text",
        "evidence",
        "summary",
        "why",
        "hint",
        "source_name",
        "target_name",
        "snippet",
        "normalised_name",
        "title",
        "lines",
        "neighbourhood",
        "conversation",
        "keys",
    )
)
# What erase_expired_history leaves in MergeDecision.moved, so that revert_merge refuses.
ERASED_MARK = "erased_at"
FORGET_ACTIONS = (CorrectionAction.FORGET_NODE, CorrectionAction.FORGET_EDGE)


def undo_window() -> timedelta:
    """How long corrections and merge decisions keep the text an undo needs
    (``MEMORY_UNDO_WINDOW_DAYS``, default 30 days)."""
    return timedelta(days=int(getattr(settings, "MEMORY_UNDO_WINDOW_DAYS", 30)))


def _blank(value: Any) -> Any:
    if isinstance(value, str):
        return ERASED
    if isinstance(value, list):
        return [_blank(item) for item in value]
    if isinstance(value, dict):
        return {}  # properties: their keys are the user's words too
    return value  # ids, numbers, booleans, null


def erase_text(value: Any, *, keep: frozenset[str] = frozenset()) -> Any:
    """``value`` (decoded JSON) with every value under a ``TEXT_KEYS`` key replaced by
    ``ERASED`` (lists keep their length, objects become empty); ids, labels, numbers and
    dates are kept, and so are the top-level keys in ``keep``. Idempotent."""
    if isinstance(value, dict):
        return {
            key: item if key in keep else _blank(item) if key in TEXT_KEYS else erase_text(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [erase_text(item) for item in value]
    return value


def _erase_decision(decision: MergeDecision, now: datetime) -> None:
    decision.reason = ERASED if decision.reason else ""
    decision.proposed = erase_text(decision.proposed)
    decision.candidates = erase_text(decision.candidates)
    decision.absorbed = erase_text(decision.absorbed)
    decision.moved = {**erase_text(decision.moved), ERASED_MARK: now.isoformat()}
    decision.log = erase_text(decision.log)


_DECISION_TEXT = ["reason", "proposed", "candidates", "absorbed", "moved", "log"]


def _erase_records_of_node(user, node_id: int, now: datetime) -> None:
    """When a node is forgotten: its earlier corrections and the merge decisions that kept
    it (they cannot be reverted without it) lose their text now; a decision still held for
    review keeps its proposal but forgets this node among its candidates."""
    corrections = list(
        Correction.objects.for_user(user).filter(target_type="node", target_id=node_id)
    )
    for correction in corrections:
        correction.before, correction.after = (
            erase_text(correction.before),
            erase_text(correction.after),
        )
    Correction.objects.bulk_update(corrections, ["before", "after"])
    decisions = list(MergeDecision.objects.for_user(user).filter(kept_id=node_id))
    for decision in decisions:
        _erase_decision(decision, now)
    listed = [
        d
        for d in MergeDecision.objects.for_user(user)
        .filter(candidates__contains=[{"id": node_id}])
        .exclude(kept_id=node_id)
    ]
    for decision in listed:
        decision.candidates = [
            erase_text(c) if isinstance(c, dict) and c.get("id") == node_id else c
            for c in decision.candidates
        ]
    MergeDecision.objects.bulk_update(decisions + listed, _DECISION_TEXT)


def erase_expired_history(*, now: datetime, user=None, batch: int = 500) -> dict[str, int]:
    """Replace the text of records older than the undo window with ``ERASED``, in place:
    corrections (``created_at``) and merge decisions that are no longer
    open (held ones wait for a moderator) by ``decided_at`` or else ``created_at``.
    Afterwards such a merge cannot be reverted (``moved`` carries ``ERASED_MARK``). All
    users, or only ``user``; idempotent (already erased rows are skipped); ``batch`` rows
    per transaction. Returns counts."""
    cutoff = now - undo_window()
    corrections = Correction.objects.filter(created_at__lt=cutoff).exclude(before__has_key="erased")
    decisions = (
        MergeDecision.objects.exclude(status=MergeStatus.HELD)
        .filter(
            models.Q(decided_at__lt=cutoff)
            | models.Q(decided_at__isnull=True, created_at__lt=cutoff)
        )
        .exclude(moved__has_key=ERASED_MARK)
    )
    if user is not None:
        corrections, decisions = corrections.for_user(user), decisions.for_user(user)
    counts = {"corrections": 0, "merge_decisions": 0}
    while True:
        with transaction.atomic():
            rows = list(corrections.select_for_update(skip_locked=True).order_by("id")[:batch])
            for row in rows:
                row.before = {**erase_text(row.before), "erased": True}
                row.after = erase_text(row.after)
            Correction.objects.bulk_update(rows, ["before", "after"])
        counts["corrections"] += len(rows)
        if len(rows) < batch:
            break
    while True:
        with transaction.atomic():
            rows = list(decisions.select_for_update(skip_locked=True).order_by("id")[:batch])
            for row in rows:
                _erase_decision(row, now)
            MergeDecision.objects.bulk_update(rows, _DECISION_TEXT)
        counts["merge_decisions"] += len(rows)
        if len(rows) < batch:
            break
    return counts
