"""``manage.py import_graph FILE --user U [--now T]`` — add a pegasus-graph/1 file to an
account's graph (SPEC §6.1, §6.3). All or nothing: an invalid file or a clash with existing
nodes changes nothing and exits with a one-line reason."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError

from memory.management import get_account, parse_now, read_json_file
from memory.services.graph_io.document import GraphFormatError
from memory.services.graph_io.import_ import import_graph


class Command(BaseCommand):
    help = "Add a pegasus-graph/1 JSON file to an account's memory graph."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the JSON file ('-' reads standard input)")
        parser.add_argument("--user", required=True, help="username of an existing account")
        parser.add_argument("--now", help="ISO 8601 time of the import (default: now)")

    def handle(self, *args, **options):
        user = get_account(options["user"])
        now = parse_now(options["now"])
        path = options["file"]
        data = read_json_file(path)
        started = time.perf_counter()
        try:
            summary = import_graph(
                user=user,
                data=data,
                now=now,
                progress=lambda line: self.stdout.write(f"import_graph: {line}"),
            )
        except GraphFormatError as exc:
            raise CommandError(f"{path}: {exc}") from None
        self.stdout.write(
            f"imported into {user.get_username()}: {summary} "
            f"in {time.perf_counter() - started:.1f}s"
        )
