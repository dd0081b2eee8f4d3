"""The recurring jobs Pegasus relies on, created idempotently at start-up.

Other apps register theirs in ``SCHEDULES``; ``ensure_schedules()`` upserts every entry by
name, so running it on each start (``make run``) never duplicates a schedule.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone
from django_q.models import Schedule


@dataclass(frozen=True)
class Recurring:
    name: str
    func: str
    minutes: int


SCHEDULES: list[Recurring] = [
    Recurring("worker heartbeat", "ops.tasks.heartbeat", 1),
    Recurring("daily decay", "memory.tasks.decay_all_users", 24 * 60),
    Recurring("close idle conversations", "chat.tasks.close_idle_conversations", 5),
    Recurring("erase expired undo history", "ops.tasks.erase_expired_history", 24 * 60),
]


def ensure_schedules() -> list[str]:
    """Create or update every schedule; return their names."""
    for item in SCHEDULES:
        Schedule.objects.update_or_create(
            name=item.name,
            defaults={
                "func": item.func,
                "schedule_type": Schedule.MINUTES,
                "minutes": item.minutes,
                "repeats": -1,
            },
            create_defaults={
                "func": item.func,
                "schedule_type": Schedule.MINUTES,
                "minutes": item.minutes,
                "repeats": -1,
                "next_run": timezone.now(),
            },
        )
    return [item.name for item in SCHEDULES]
