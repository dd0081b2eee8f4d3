"""``manage.py reembed [--user U]`` — recompute every MemoryKey with the current sentence
model (SPEC §6.3), after changing ``EMBEDDING_MODEL``. Committed batches, progress with ETA;
an interrupted run can simply be started again."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand

from memory import embedding
from memory.management import get_account
from memory.services.keys import Progress, reembed


class Command(BaseCommand):
    help = "Recompute every memory key's embedding with the current model."

    def add_arguments(self, parser):
        parser.add_argument("--user", help="only this account's keys (default: everyone's)")

    def handle(self, *args, **options):
        user = get_account(options["user"]) if options["user"] else None
        started = time.perf_counter()
        done = reembed(
            user_id=user.pk if user else None, progress=Progress(self.stdout.write, "reembed")
        )
        whose = f" of {user.get_username()}" if user else ""
        self.stdout.write(
            f"reembed: {done} keys{whose} recomputed with {embedding.status()['model']} "
            f"in {time.perf_counter() - started:.1f}s"
        )
