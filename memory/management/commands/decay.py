"""``manage.py decay [--user U] [--now T]`` — flag dormant and expired edges (SPEC §5.4).

Without ``--user`` every user with edges is processed, one committed transaction each, with
progress lines (count, rate, ETA); an interrupted run keeps what it did and re-running is
harmless."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from memory.management import get_account, parse_now
from memory.services.decay import decay_all, decay_user
from memory.services.keys import Progress


class Command(BaseCommand):
    help = "Flag edges whose strength fell below 2.0 or whose expiry passed as dormant."

    def add_arguments(self, parser):
        parser.add_argument("--user", help="only this account (default: every user)")
        parser.add_argument("--now", help="ISO 8601 time to decay to (default: now)")

    def handle(self, *args, **options):
        now = parse_now(options["now"])
        started = time.perf_counter()
        if options["user"]:
            user = get_account(options["user"])
            flagged = decay_user(user_id=user.pk, now=now)
            self.stdout.write(
                f"decay at {now.isoformat()}: {user.get_username()}: "
                f"{flagged} edges flagged dormant in {time.perf_counter() - started:.1f}s"
            )
            return
        try:
            users, flagged = decay_all(now=now, progress=Progress(self.stdout.write, "decay"))
        except DatabaseError as exc:
            # One committed transaction per user: those done keep their flags.
            raise CommandError(
                f"the database failed during the run ({exc.__class__.__name__}: "
                f"{str(exc).strip().splitlines()[0] if str(exc).strip() else 'no detail'}); "
                "users already processed keep their flags — run decay again to finish"
            ) from None
        self.stdout.write(
            f"decay at {now.isoformat()}: {users} users, {flagged} edges flagged dormant "
            f"in {time.perf_counter() - started:.1f}s"
        )
