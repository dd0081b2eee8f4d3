"""django-q2 tasks of the memory app: ids in, one service call, idempotent (STYLE §6).

Tests run them inline (``Q_CLUSTER["sync"]``) or call them directly.
"""

from __future__ import annotations

from django.utils import timezone

from memory.services.decay import decay_all


def decay_all_users() -> dict:
    """The daily decay (SPEC §3, §5.4) over every user with edges, at the current time.

    Idempotent: a retry or a second run the same day flags nothing new. Each user is its own
    transaction, so a worker killed mid-run loses nothing; the next run completes it.
    """
    users, flagged = decay_all(now=timezone.now())
    return {"users": users, "edges_flagged": flagged}


def extract_conversation(episode_id: int) -> int | None:
    """Extract one ended conversation's episode and commit it to the graph (SPEC §3, §5.5).

    Idempotent: a done episode is never extracted again, and two deliveries of the task can
    never both run it (``memory.services.jobs.extract_episode`` claims the episode first). A
    failure marks the episode failed and re-raises, so django-q2 records it and re-delivers;
    a delivery that finds the episode running elsewhere raises ``EpisodeBusy`` for the same
    reason.
    Returns the episode id when it ran (or was already handled), None when it is gone.
    """
    from memory.models import ExtractionStatus
    from memory.services.jobs import EpisodeBusy, extract_episode

    episode = extract_episode(episode_id=episode_id, now=timezone.now())[0]
    if episode is not None and episode.status == ExtractionStatus.RUNNING:
        # Not claimed: another worker holds it and is not presumed dead yet. Acknowledging
        # this delivery would lose the job if that worker has in fact died.
        raise EpisodeBusy(
            f"episode {episode.pk} is running in another worker since "
            f"{episode.job_started_at:%H:%M:%S}; delivered again later"
        )
    return episode.pk if episode is not None else None
