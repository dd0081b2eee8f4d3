"""The user's own merge inbox: held merge decisions about their graph, asked as questions
("Is *Matt* the same person as *Matt Patterson*?") and answered by the owner.

A *held* decision (SPEC §5.6: the rules found candidates but could not decide, and no language
model settled it) stands alone as its own node (``moved["node"]``) until someone answers. The
owner answers here, in the explorer or through the API:

* **same** — the held node is merged into the chosen candidate with
  ``merge.merge_held`` (its own revertible node merge, as a moderator's would be);
* **different** — ``merge.keep_apart``: status ``kept-apart``, which the Write path
  remembers so the pair is not asked again;
* **not sure** — nothing changes in the graph; the decision is escalated to moderators.

Each answer is recorded on the decision (``answer``, ``answered_at`` and a ``log`` line) and can
be undone: a "same" is reverted with ``merge.revert_merge`` and the question reopened, a
"different" or "not sure" simply reopens it. Every change runs under the user's graph lock
(``user_lock``) and reaches rows only through ``for_user``.

Moderators see a held decision only once the owner escalates it or leaves it unanswered for
``MERGE_INBOX_STAFF_AFTER_DAYS`` days (``for_staff``); see docs/moderation.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Exists, IntegerField, OuterRef, Q, QuerySet
from django.db.models.fields.json import KT
from django.db.models.functions import Cast

from memory.models import MergeDecision, MergeStatus, Node
from memory.models.merges import InboxAnswer
from memory.services import merge
from memory.services.locks import user_lock
from memory.services.merge.common import _log  # the one shape of a decision's log line
from memory.services.neighbourhood import neighbourhoods

__all__ = [
    "InboxConflict",
    "InboxError",
    "answer",
    "awaiting_owner",
    "detail",
    "for_staff",
    "get_item",
    "pending",
    "settled",
    "staff_after",
    "summaries",
    "undo",
]

LINES_PER_SIDE = 5  # memory lines shown for each side of a question
NOUNS = {"PERSON": "person", "PLACE": "place", "ORG": "organisation", "EVENT": "event"}
ANSWERS = tuple(InboxAnswer.values)


class InboxError(ValueError):
    """The answer is not acceptable as sent (``field`` names the input at fault)."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


class InboxConflict(ValueError):
    """The question's state forbids the action (already answered, nothing to undo, the merge
    can no longer be undone, the held node is gone)."""


# --- who sees what ---------------------------------------------------------------------------


def staff_after() -> timedelta:
    """How long a held decision waits for its owner before moderators see it."""
    return timedelta(days=int(settings.MERGE_INBOX_STAFF_AFTER_DAYS))


def awaiting_owner(now: datetime) -> Q:
    """Decisions that are still the owner's to answer: held, unanswered, and younger than
    ``MERGE_INBOX_STAFF_AFTER_DAYS`` at ``now``."""
    return Q(status=MergeStatus.HELD, answer="", created_at__gt=now - staff_after())


def for_staff(queryset: QuerySet, now: datetime) -> QuerySet:
    """``queryset`` without what moderators must not be asked yet: a held decision reaches
    them when the owner says "not sure" or leaves it unanswered for
    ``MERGE_INBOX_STAFF_AFTER_DAYS`` days. Everything else (flagged merges, settled history)
    stays."""
    return queryset.exclude(awaiting_owner(now))


def _held_node_id(decision: MergeDecision) -> int | None:
    value = (decision.moved or {}).get("node")
    return value if isinstance(value, int) else None


def pending(user) -> QuerySet:
    """The user's open questions, newest first: held, unanswered, and the entity's own node
    still exists (a held node the user has since merged or forgotten by hand asks nothing)."""
    return (
        MergeDecision.objects.for_user(user)
        .filter(status=MergeStatus.HELD, answer="")
        .annotate(held_node=Cast(KT("moved__node"), IntegerField()))
        .filter(Exists(Node.objects.for_user(user).filter(pk=OuterRef("held_node"))))
        .order_by("-created_at", "-id")
    )


def settled(user) -> QuerySet:
    """The questions the user has answered, most recent answer first."""
    return (
        MergeDecision.objects.for_user(user)
        .exclude(answer="")
        .select_related("kept")
        .order_by("-answered_at", "-id")
    )


def get_item(user, decision_id) -> MergeDecision:
    """One of ``user``'s inbox questions (held, or answered by them); ``LookupError`` for
    anything else — another user's decision and a decision that was never a question alike."""
    try:
        pk = int(decision_id)
    except (TypeError, ValueError):
        raise LookupError("no such question") from None
    found = (
        MergeDecision.objects.for_user(user)
        .select_related("kept")
        .filter(Q(status=MergeStatus.HELD) | ~Q(answer=""), pk=pk)
        .first()
    )
    if found is None:
        raise LookupError("no such question")
    return found


# --- presenting questions --------------------------------------------------------------------


def _noun(kind: str) -> str:
    return NOUNS.get(kind, "thing")


def _joined(names: Sequence[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


def _candidate_ids(decision: MergeDecision) -> list[int]:
    ids = [c.get("id") for c in decision.candidates or [] if isinstance(c, dict)]
    held = _held_node_id(decision)
    return [i for i in dict.fromkeys(ids) if isinstance(i, int) and i != held]


def _state(decision: MergeDecision) -> str:
    """pending | same | different | unsure | moderator (a moderator settled it after the
    owner's answer, or reverted the owner's merge)."""
    if not decision.answer:
        return "pending"
    expected = {
        InboxAnswer.SAME: MergeStatus.MERGED,
        InboxAnswer.DIFFERENT: MergeStatus.KEPT_APART,
        InboxAnswer.UNSURE: MergeStatus.HELD,
    }[decision.answer]
    return decision.answer if decision.status == expected else "moderator"


def _can_undo(decision: MergeDecision) -> bool:
    state = _state(decision)
    if state == "unsure":
        return True
    if state in ("same", "different"):
        return decision.decided_by_id == decision.user_id and "erased_at" not in (
            decision.moved or {}
        )
    return False


def summaries(user, decisions: Sequence[MergeDecision]) -> list[dict[str, Any]]:
    """Each decision as an inbox question (no neighbourhoods): one query for the nodes of
    all of them."""
    ids = {i for d in decisions for i in [_held_node_id(d), *_candidate_ids(d)] if i}
    nodes = {
        n.pk: n for n in Node.objects.for_user(user).filter(pk__in=ids).only("id", "name", "kind")
    }
    return [_summary(d, nodes) for d in decisions]


def _summary(decision: MergeDecision, nodes: dict[int, Node]) -> dict[str, Any]:
    proposed = decision.proposed or {}
    held_id = _held_node_id(decision)
    held = nodes.get(held_id) if held_id else None
    entity = {
        "id": held_id,
        "name": held.name if held else proposed.get("name") or "?",
        "kind": held.kind if held else decision.kind,
        "exists": held is not None,
    }
    stored = {c.get("id"): c.get("name") for c in decision.candidates or [] if isinstance(c, dict)}
    candidates = []
    for node_id in _candidate_ids(decision):
        node = nodes.get(node_id)
        candidates.append(
            {
                "id": node_id,
                "name": node.name if node else stored.get(node_id) or "?",
                "kind": node.kind if node else "",
                "exists": node is not None,
            }
        )
    noun = _noun(decision.kind)
    question = (
        f"Is {entity['name']} the same {noun} as "
        f"{_joined([c['name'] for c in candidates]) or 'someone you know'}?"
    )
    kept = decision.kept if decision.kept_id and decision.status == MergeStatus.MERGED else None
    return {
        "id": decision.pk,
        "kind": decision.kind,
        "noun": noun,
        "question": question,
        "entity": entity,
        "candidates": candidates,
        "state": _state(decision),
        "status": decision.status,
        "answer": decision.answer,
        "answered_at": decision.answered_at,
        "created_at": decision.created_at,
        "staff_from": None if decision.answer else decision.created_at + staff_after(),
        "merged_into": {"id": kept.pk, "name": kept.name} if kept is not None else None,
        "can_undo": _can_undo(decision),
    }


def detail(user, decision: MergeDecision) -> dict[str, Any]:
    """A question with both sides' neighbourhoods: for the entity's own node and every
    candidate, up to ``LINES_PER_SIDE`` memories touching it (``A -[REL]-> B``, live before
    dormant, strongest first), each with the user's own sentence that justified it (its
    snippet). A fixed number of queries however many candidates."""
    item = summaries(user, [decision])[0]
    sides = [item["entity"], *item["candidates"]]
    ids = [s["id"] for s in sides if s["exists"]]
    lines = neighbourhoods(user.pk, ids) if ids else {}
    for side in sides:
        near = [e for e in lines.get(side["id"], ([], False))[0] if e.hop == 1]
        side["lines"] = [
            {"id": e.id, "text": e.line, "snippet": e.snippet, "dormant": e.dormant}
            for e in near[:LINES_PER_SIDE]
        ]
        side["more"] = max(0, len(near) - LINES_PER_SIDE)
    return item


# --- answering and undoing -------------------------------------------------------------------


def _locked(user, decision) -> MergeDecision:
    pk = decision.pk if isinstance(decision, MergeDecision) else decision
    found = MergeDecision.objects.for_user(user).select_for_update().filter(pk=pk).first()
    if found is None:
        raise LookupError("no such question")
    return found


def _choose_into(user, decision: MergeDecision, into: int | None) -> int:
    candidates = _candidate_ids(decision)
    held_id = _held_node_id(decision)
    kinds = dict(
        Node.objects.for_user(user).filter(pk__in=[*candidates, held_id]).values_list("pk", "kind")
    )
    kind = kinds.get(held_id, decision.kind)
    live = [pk for pk in candidates if kinds.get(pk) == kind]
    if into is None:
        if len(live) == 1:
            return live[0]
        if not live:
            raise InboxConflict(
                "none of the candidates exists any more (merged or forgotten "
                "since); answer 'different' or 'not sure' instead"
            )
        raise InboxError("say which one it is: this question has several candidates", field="into")
    if into not in candidates:
        raise InboxError("not one of this question's candidates", field="into")
    if into not in kinds:
        raise InboxConflict("that candidate no longer exists (merged or forgotten since)")
    if into not in live:
        raise InboxConflict(
            f"that candidate is a {kinds[into]} and this name a {kind}: only "
            "nodes of the same kind can be merged; give them the same kind "
            "in the explorer first"
        )
    return into


def answer(*, user, decision, answer: str, into: int | None = None, now: datetime) -> MergeDecision:
    """The owner answers a held decision of theirs.

    ``answer``: "same" (merge the held node into ``into``, which must be one of the
    decision's candidates; optional when exactly one candidate still exists), "different"
    (keep apart, remembered) or "unsure" (escalate to moderators). Under the user's lock;
    the merge and keep-apart go through ``memory.services.merge`` (logged, revertible).

    Raises ``LookupError`` for a decision that is not ``user``'s, ``InboxError`` for a bad
    answer or ``into``, ``InboxConflict`` when it is no longer an open question (already
    answered, settled by a moderator, or its node is gone).
    """
    if answer not in ANSWERS:
        raise InboxError(f"answer must be one of {', '.join(ANSWERS)}", field="answer")
    if answer != InboxAnswer.SAME and into is not None:
        raise InboxError("only a 'same' answer names a node", field="into")
    with user_lock(user.pk):
        current = _locked(user, decision)
        if current.status != MergeStatus.HELD:
            raise InboxConflict(f"this question is already settled ({current.status})")
        if current.answer:
            raise InboxConflict(f"you already answered '{current.answer}'; undo it first")
        held_id = _held_node_id(current)
        if held_id is None or not Node.objects.for_user(user).filter(pk=held_id).exists():
            raise InboxConflict(
                "this question no longer applies: its node was merged or forgotten since"
            )
        name = (current.proposed or {}).get("name") or "?"
        if answer == InboxAnswer.SAME:
            target = _choose_into(user, current, into)
            try:
                merge.merge_held(user=user, decision=current, into_node_id=target, by=user, now=now)
            except ValueError as exc:
                raise InboxConflict(str(exc)) from None
            why = f"the owner said {name!r} is the same as node #{target}"
        elif answer == InboxAnswer.DIFFERENT:
            merge.keep_apart(
                user=user,
                decision=current,
                by=user,
                why=f"the owner said {name!r} is someone else",
                now=now,
            )
            why = f"the owner said {name!r} is different from every candidate"
        else:
            why = "the owner was not sure: escalated to moderators"
        current = _locked(user, current)
        current.answer, current.answered_at = answer, now
        _log(current, at=now, by=user, action=f"answered-{answer}", why=why)
        current.save(update_fields=["answer", "answered_at", "log"])
        return current


def undo(*, user, decision, now: datetime) -> MergeDecision:
    """Take back the owner's answer and reopen the question (status ``held``, unanswered).

    "same": the merge is reverted exactly (``merge.revert_merge``) first; "different" and
    "not sure" changed nothing in the graph. Refused (``InboxConflict``) when there is no
    answer, when a moderator has acted on the decision since, or when the merge can no longer
    be reverted (its undo window closed, or a later merge must be undone first).
    """
    with user_lock(user.pk):
        current = _locked(user, decision)
        state = _state(current)
        if state == "pending":
            raise InboxConflict("this question has not been answered")
        if not _can_undo(current):
            raise InboxConflict(
                "a moderator has settled this question since, or the undo "
                "window has closed: nothing to undo"
            )
        why = f"the owner took back '{current.answer}'"
        if state == InboxAnswer.SAME:
            try:
                merge.revert_merge(user=user, decision=current, by=user, now=now)
            except ValueError as exc:
                raise InboxConflict(str(exc)) from None
            current = _locked(user, current)
            inner = current.moved.get("merge_decision")
            current.moved = {k: v for k, v in current.moved.items() if k != "merge_decision"}
            why += f"; node merge #{inner} reverted" if inner else ""
        current.status = MergeStatus.HELD
        current.kept = None
        current.answer, current.answered_at = "", None
        current.decided_by, current.decided_at = None, None
        _log(current, at=now, by=user, action="reopened", why=why)
        current.save(
            update_fields=[
                "status",
                "kept",
                "moved",
                "answer",
                "answered_at",
                "decided_by",
                "decided_at",
                "log",
            ]
        )
        return current
