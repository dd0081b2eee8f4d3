"""``manage.py extract --conversation ID [--user U] [--sync] [--force] [--json]`` — (re-)run
one ended conversation's extraction job (SPEC §3, §5.5).

* Without ``--sync`` the job is enqueued for the worker; with ``--sync`` it runs here and the
  Write summary is printed.
* A conversation without an episode gets one (as ending it would have done).
* Idempotent: a ``done`` episode is reported and left alone; ``--force`` resets it and runs
  the Write again — edges it re-observes are reinforced again (+15 each), Read traversals
  are not (they were applied once). Incognito conversations are never extracted; a job
  running in a live worker is not touched.
* ``--user`` restricts the lookup to that account's conversations."""

from __future__ import annotations

import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from memory import ports
from memory.management import get_account
from memory.models import Episode, ExtractionStatus
from memory.services.jobs import extract_episode, retry_extraction, schedule_extraction


class Command(BaseCommand):
    help = "Run (or enqueue) the extraction job of one ended conversation."

    def add_arguments(self, parser):
        parser.add_argument("--conversation", type=int, required=True, help="conversation id")
        parser.add_argument("--user", help="username owning the conversation (optional)")
        parser.add_argument(
            "--sync",
            action="store_true",
            help="run inline and print the summary instead of enqueueing",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="re-run a done episode (re-applies its reinforcements)",
        )
        parser.add_argument("--json", action="store_true", help="print the summary as JSON")

    def handle(self, *args, **options):
        now = timezone.now()
        chats = ports.conversations()
        if options["user"]:
            user = get_account(options["user"])
        else:
            owner = chats.owner_id(options["conversation"])
            user = get_user_model().objects.filter(pk=owner).first() if owner else None
        conversation = (
            chats.get(user=user, conversation_id=options["conversation"]) if user else None
        )
        if conversation is None:
            raise CommandError(f"no conversation {options['conversation']}")
        if not conversation.ended:
            raise CommandError(f"conversation {conversation.id} is still open; end it first")
        episode = Episode.objects.for_user(user).filter(conversation_id=conversation.id).first()
        created = episode is None
        if created:
            episode = schedule_extraction(
                user=user, conversation=conversation.id, now=now, enqueue=not options["sync"]
            )
        if episode.status == ExtractionStatus.SKIPPED:
            reason = episode.last_error or "nothing to extract"
            self.stdout.write(f"episode {episode.pk}: skipped ({reason}); never extracted")
            return
        if created and not options["sync"]:
            self.stdout.write(f"episode {episode.pk}: created and enqueued")
            return
        if episode.status == ExtractionStatus.DONE and not options["force"]:
            self.stdout.write(f"episode {episode.pk}: already done (use --force to re-run)")
            return
        if not options["sync"]:
            try:
                retry_extraction(user=user, episode=episode, now=now, force=options["force"])
            except ValueError as exc:
                raise CommandError(str(exc)) from None
            self.stdout.write(f"episode {episode.pk}: enqueued")
            return
        if not created:
            self._reset(user, episode, now)
        try:
            episode, summary = extract_episode(episode_id=episode.pk, now=now)
        except Exception as exc:
            raise CommandError(f"episode {episode.pk}: extraction failed: {exc}") from exc
        if summary is None:
            self.stdout.write(f"episode {episode.pk}: not run ({episode.status})")
            return
        if options["json"]:
            self.stdout.write(json.dumps(summary.to_dict(), indent=2, ensure_ascii=False))
            return
        self.stdout.write(
            f"episode {episode.pk}: {episode.status} "
            f"({episode.extractor}, attempt {episode.attempts})"
        )
        for line in summary.lines():
            self.stdout.write(line)

    def _reset(self, user, episode: Episode, now) -> None:
        """Make the episode claimable here (attempts cleared) without enqueueing a job."""
        stale = (
            episode.job_started_at is not None
            and (now - episode.job_started_at).total_seconds() > _timeout()
        )
        if episode.status == ExtractionStatus.RUNNING and not stale:
            raise CommandError(
                f"episode {episode.pk} is running in a worker since "
                f"{episode.job_started_at.isoformat()}; not touched"
            )
        Episode.objects.for_user(user).filter(pk=episode.pk).update(
            status=ExtractionStatus.PENDING, attempts=0
        )
        episode.status = ExtractionStatus.PENDING


def _timeout() -> int:
    from django.conf import settings

    return int(settings.Q_CLUSTER.get("timeout") or 300)
