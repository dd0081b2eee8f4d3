"""Extraction jobs: one per ended conversation, never run twice, never lost (SPEC §3).

Life of a job::

    schedule_extraction ──► pending ──claim──► running ──commit──► done
                                ▲                 │
                                │            exception
                                │                 ▼
                   (django-q2 re-delivers)     failed  ──retry_extraction──► pending

* ``schedule_extraction`` creates the conversation's one Episode (idempotent under a row lock
  on the conversation) and enqueues ``memory.tasks.extract_conversation(episode_id)`` after
  commit. Incognito conversations, and ones without a user turn, get a ``skipped`` episode
  and no job.
* ``extract_episode`` claims the episode with one conditional UPDATE (pending or failed with
  attempts left, or running but stale — its worker died), extracts outside any transaction,
  then in ONE transaction re-checks its claim, marks the episode done and commits the batch:
  the graph change and "done" become visible together or not at all. A done episode is
  never extracted again.
* Failures: the episode is marked ``failed`` with a short ``last_error`` and the exception
  re-raised, so django-q2 records it. The task is enqueued with ``ack_failure=False``: the
  ORM broker keeps a failed task and re-delivers it ``Q_CLUSTER["retry"]`` seconds (360)
  later, until ``Q_CLUSTER["max_attempts"]`` (3) deliveries have failed; the episode's own
  ``attempts`` counter enforces the same cap whatever the broker does. After that it stays
  ``failed`` (visible in the admin) until ``retry_extraction`` resets it.
* A worker killed mid-job leaves the episode ``running``; the broker re-delivers the
  unacknowledged task after ``retry`` seconds (> ``timeout``), and the claim takes a
  running episode whose ``job_started_at`` is older than ``Q_CLUSTER["timeout"]``. A task
  delivered while its episode runs elsewhere and is not yet presumed dead raises
  ``EpisodeBusy`` (``memory.tasks``), so the broker keeps it for a later delivery. When the
  worker died during the last allowed attempt, the next delivery marks the episode
  ``failed``. django-q2's own task timeout (a ``SystemExit``) is recorded as a failure too.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q

from memory import ports
from memory.models import Episode, ExtractionStatus, Node
from memory.services.sentences import prepare_conversation, store_conversation
from memory.services.write import WriteSummary, commit_batch, judge_batch

__all__ = [
    "TASK",
    "EpisodeBusy",
    "extract_episode",
    "retry_extraction",
    "schedule_extraction",
]

TASK = "memory.tasks.extract_conversation"
NEIGHBOURHOOD_CHARS = 20_000
ERROR_CHARS = 500


def _max_attempts() -> int:
    return int(settings.Q_CLUSTER.get("max_attempts") or 3)


def _stale_before(now: datetime) -> datetime:
    return now - timedelta(seconds=int(settings.Q_CLUSTER.get("timeout") or 300))


def _enqueue(episode_id: int) -> None:
    from django_q.tasks import async_task

    # ack_failure=False: a failed run stays queued for re-delivery (see module docstring).
    async_task(TASK, episode_id, task_name=f"extract-{episode_id}", ack_failure=False)


def schedule_extraction(*, user, conversation, now: datetime, enqueue: bool = True) -> Episode:
    """The conversation's one Episode, created (``pending``) and its job enqueued on commit
    the first time; every later call returns the same Episode and enqueues nothing.

    ``started_at`` is the conversation's first message (else its start), ``ended_at`` its end
    (else ``now``). Incognito conversations and ones with no user turn get a ``skipped``
    episode and no job. ``enqueue=False`` (``manage.py extract --sync``) creates the episode
    without a job. Raises ``ValueError`` for a conversation that is not ``user``'s.
    """
    pk = conversation.pk if hasattr(conversation, "pk") else int(conversation)
    chats = ports.conversations()
    with transaction.atomic():
        # The row lock serialises concurrent ends of one conversation (button + idle sweep).
        locked = chats.get(user=user, conversation_id=pk, lock=True)
        if locked is None:
            raise ValueError("conversation not found")
        existing = Episode.objects.for_user(user).filter(conversation_id=locked.id).first()
        if existing is not None:
            return existing
        first = chats.first_message_at(user=user, conversation_id=locked.id)
        has_turns = chats.has_user_turns(user=user, conversation_id=locked.id)
        skip = locked.incognito or not has_turns
        episode = Episode.objects.create(
            user_id=user.pk,
            conversation_id=locked.id,
            status=ExtractionStatus.SKIPPED if skip else ExtractionStatus.PENDING,
            started_at=first or locked.started_at,
            ended_at=locked.ended_at or now,
            last_error=(
                "incognito conversation" if locked.incognito else "no user turns" if skip else ""
            ),
            created_at=now,
        )
        if not skip and enqueue:
            transaction.on_commit(lambda: _enqueue(episode.pk))
    return episode


def _claim(episode_id: int, now: datetime) -> bool:
    """Take the episode for this run: one conditional UPDATE, so two deliveries of the task
    can never both run it."""
    claimable = Q(status__in=[ExtractionStatus.PENDING, ExtractionStatus.FAILED]) | Q(
        status=ExtractionStatus.RUNNING, job_started_at__lt=_stale_before(now)
    )
    return bool(
        Episode.objects.filter(pk=episode_id, attempts__lt=_max_attempts())
        .filter(claimable)
        .update(
            status=ExtractionStatus.RUNNING,
            attempts=F("attempts") + 1,
            job_started_at=now,
            job_finished_at=None,
        )
    )


def extract_episode(
    *, episode_id: int, now: datetime
) -> tuple[Episode | None, WriteSummary | None]:
    """Claim, extract and commit one episode; return it and the Write summary (``None``
    when nothing ran: already done, skipped, running elsewhere, out of attempts, or gone).

    Extraction input (SPEC §5.5): the conversation's user turns (with their speaker), its
    dates, the user's time zone, the self node's name, and the broad neighbourhood — a Read
    over the concatenated turns with lowered thresholds and a larger budget. The extractor is
    ``memory.extraction.get_extractor()`` (Anthropic with a key, spaCy offline).
    """
    if not _claim(episode_id, now):
        _fail_if_abandoned(episode_id, now)
        return Episode.objects.filter(pk=episode_id).first(), None
    episode = Episode.objects.select_related("user", "conversation").get(pk=episode_id)
    try:
        summary = _extract_and_write(episode, now)
    except BaseException as exc:  # also django-q2's task timeout, a SystemExit
        Episode.objects.filter(
            pk=episode_id, status=ExtractionStatus.RUNNING, job_started_at=now
        ).update(status=ExtractionStatus.FAILED, last_error=_short(exc), job_finished_at=now)
        raise
    episode.refresh_from_db()
    return episode, summary


def _fail_if_abandoned(episode_id: int, now: datetime) -> None:
    """A running episode past the timeout with no attempt left lost its worker during the
    last one; no delivery can claim it again, so it becomes a visible failure."""
    Episode.objects.filter(
        pk=episode_id,
        status=ExtractionStatus.RUNNING,
        attempts__gte=_max_attempts(),
        job_started_at__lt=_stale_before(now),
    ).update(
        status=ExtractionStatus.FAILED,
        job_finished_at=now,
        last_error=f"WorkerLost: the worker stopped (killed or timed out) during the last "
        f"of {_max_attempts()} attempts",
    )


def _short(exc: BaseException) -> str:
    # LLMError.detail is meant for the admin; SDK errors never carry the API key.
    detail = getattr(exc, "detail", None) or str(exc)
    return f"{type(exc).__name__}: {detail}"[:ERROR_CHARS]


class ClaimLost(RuntimeError):
    """Another worker took the episode over (this one was presumed dead); nothing written."""


class EpisodeBusy(RuntimeError):
    """The episode is running in another worker that is not yet presumed dead; raised by the
    task so the broker keeps it and delivers it again later."""


def _extract_and_write(episode: Episode, now: datetime) -> WriteSummary | None:
    from memory.extraction import get_extractor
    from memory.extraction.base import Turn

    # ``now`` is the job's clock (tests and replays set it); the finish time adds the real
    # seconds the job took, so the admin's job monitor shows how long it ran.
    started = time.monotonic()

    user, conversation = episode.user, episode.conversation
    if conversation is None or conversation.incognito:
        Episode.objects.filter(pk=episode.pk).update(
            status=ExtractionStatus.SKIPPED,
            job_finished_at=now,
            last_error="conversation deleted" if conversation is None else "incognito conversation",
        )
        return None
    turns = ports.conversations().messages(
        user=user, conversation_id=conversation.pk, user_turns_only=True
    )
    texts = {str(m.id): m.text for m in turns}
    extractor = get_extractor()
    result = extractor.extract(
        turns=[Turn(message_id=str(m.id), text=m.text, speaker=m.speaker or None) for m in turns],
        started_at=episode.started_at,
        ended_at=episode.ended_at,
        time_zone=_time_zone(user),
        neighbourhood=_neighbourhood(user, "\n".join(texts.values()), now) if turns else "",
        self_name=Node.objects.for_user(user)
        .filter(is_self=True)
        .values_list("name", flat=True)
        .first(),
    )
    notes = "partial extraction: " + "; ".join(result.notes) if result.partial else ""
    # The sentence store (SPEC §4 Sentence): embedded here, before the transaction, and
    # written inside it, replacing the conversation's rows — so a retried job never
    # duplicates them and they appear together with the graph change.
    sentences = prepare_conversation(user=user, conversation=conversation)
    # The LLM's merge judgements too: a network call never runs inside the transaction.
    judgements = judge_batch(user=user, batch=result.batch, now=now, messages=texts)
    with transaction.atomic():
        done = Episode.objects.filter(
            pk=episode.pk,
            status=ExtractionStatus.RUNNING,
            job_started_at=now,
        ).update(
            status=ExtractionStatus.DONE,
            job_finished_at=now + timedelta(seconds=time.monotonic() - started),
            extractor=extractor.name,
            last_error=notes[:ERROR_CHARS],
        )
        if not done:
            raise ClaimLost(f"episode {episode.pk} was claimed by another worker")
        summary = commit_batch(
            user=user,
            batch=result.batch,
            now=now,
            episode=episode.pk,
            messages=texts,
            conversation=conversation,
            judgements=judgements,
        )
        store_conversation(user=user, prepared=sentences, now=now)
        Episode.objects.filter(pk=episode.pk).update(
            input_tokens=int(result.input_tokens or 0) + summary.input_tokens,
            output_tokens=int(result.output_tokens or 0) + summary.output_tokens,
        )
    return summary


def _time_zone(user) -> str:
    return ports.profiles().time_zone(user.pk) or "UTC"


def _neighbourhood(user, text: str, now: datetime) -> str:
    """The broad neighbourhood (SPEC §5.5): a Read with lower thresholds and a larger budget,
    logging nothing (no conversation is passed)."""
    from memory.services.read import ReadOptions, recall

    options = ReadOptions.from_settings(seed_threshold=0.2, fire_threshold=0.1, budget=40)
    return recall(user=user, message=text[:NEIGHBOURHOOD_CHARS], now=now, options=options).text


def retry_extraction(*, user, episode, now: datetime, force: bool = False) -> Episode:
    """Reset a failed (or stuck: running past the timeout) episode to ``pending`` with its
    attempts cleared, and enqueue its job after commit — the admin's "retry" action.

    ``force=True`` also resets a ``done`` episode (``manage.py extract --force``): its Write
    runs again, so edges it re-observes are reinforced again (+15) — traversals are not,
    they are applied once. Skipped (incognito) episodes are never extracted. Raises
    ``ValueError`` for an episode not ``user``'s or in another state.
    """
    pk = episode.pk if isinstance(episode, Episode) else int(episode)
    with transaction.atomic():
        row = Episode.objects.for_user(user).select_for_update().filter(pk=pk).first()
        if row is None:
            raise ValueError("episode not found")
        stuck = (
            row.status == ExtractionStatus.RUNNING
            and row.job_started_at is not None
            and row.job_started_at < _stale_before(now)
        )
        allowed = {ExtractionStatus.FAILED, ExtractionStatus.PENDING}
        if force:
            allowed.add(ExtractionStatus.DONE)
        if row.status not in allowed and not stuck:
            raise ValueError(f"episode {row.pk} is {row.status}; it cannot be retried")
        if row.conversation_id is None:
            raise ValueError(f"episode {row.pk} has no conversation to extract")
        row.status, row.attempts = ExtractionStatus.PENDING, 0
        row.save(update_fields=["status", "attempts"])
        transaction.on_commit(lambda: _enqueue(row.pk))
    return row
