"""``manage.py write_batch FILE --user U [--now T] [--json]`` — clean, merge and commit one
pegasus-batch/1 file into an account's graph (SPEC §6.2, §6.3).

Prints what was added, reinforced, merged, held, superseded, made provisional and dropped
(with reasons); ``--json`` prints ``WriteSummary.to_dict()``. A malformed batch changes
nothing and exits with a one-line reason. Each run is a new episode; relations may cite
message ids of the account's own chat turns (others are unknown and dropped)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from memory.core.cleaning import BatchError
from memory.management import get_account, parse_now, read_json_file
from memory.services.write import commit_batch


class Command(BaseCommand):
    help = "Commit a pegasus-batch/1 JSON file (extractor output) to an account's graph."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the batch JSON file ('-' reads standard input)")
        parser.add_argument("--user", required=True, help="username of an existing account")
        parser.add_argument("--now", help="ISO 8601 time of the write (default: now)")
        parser.add_argument("--json", action="store_true", help="print the summary as JSON")

    def handle(self, *args, **options):
        user = get_account(options["user"])
        now = parse_now(options["now"])
        path = options["file"]
        batch = read_json_file(path)
        try:
            summary = commit_batch(user=user, batch=batch, now=now)
        except BatchError as exc:
            raise CommandError(f"{path}: {exc}; nothing was written") from None
        if options["json"]:
            self.stdout.write(json.dumps(summary.to_dict(), indent=2, ensure_ascii=False))
            return
        self.stdout.write(f"write_batch into {user.get_username()} at {now.isoformat()}")
        for line in summary.lines():
            self.stdout.write(line)
