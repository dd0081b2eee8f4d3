"""``manage.py reembed [--user U]`` — recompute every MemoryKey and Sentence vector with the
current sentence model (SPEC §6.3), after changing ``EMBEDDING_MODEL``. Committed batches,
progress with ETA; an interrupted run can simply be started again."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand

from memory import embedding
from memory.management import get_account
from memory.services.keys import Progress, reembed
from memory.services.sentences import reembed_sentences


class Command(BaseCommand):
    help = "Recompute every memory key's and stored sentence's embedding with the current model."

    def add_arguments(self, parser):
        parser.add_argument("--user", help="only this account's rows (default: everyone's)")

    def handle(self, *args, **options):
        user = get_account(options["user"]) if options["user"] else None
        user_id = user.pk if user else None
        started = time.perf_counter()
        keys = reembed(user_id=user_id, progress=Progress(self.stdout.write, "reembed keys"))
        sentences = reembed_sentences(
            user_id=user_id, progress=Progress(self.stdout.write, "reembed sentences")
        )
        whose = f" of {user.get_username()}" if user else ""
        self.stdout.write(
            f"reembed: {keys} keys and {sentences} sentences{whose} recomputed with "
            f"{embedding.model_name()} in {time.perf_counter() - started:.1f}s"
        )
