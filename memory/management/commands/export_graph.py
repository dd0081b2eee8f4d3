"""``manage.py export_graph [FILE] --user U`` — an account's whole graph as pegasus-graph/1
JSON (SPEC §6.1, §6.3), to FILE or, without one, to standard output (and nothing else there,
so it can be piped)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memory.management import get_account
from memory.services.graph_io.export import export_graph


class Command(BaseCommand):
    help = "Write an account's memory graph as pegasus-graph/1 JSON."

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", help="output file (default: standard output)")
        parser.add_argument("--user", required=True, help="username of an existing account")

    def handle(self, *args, **options):
        user = get_account(options["user"])
        data = export_graph(user=user)
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        path = options["file"]
        if not path:
            self.stdout.write(text, ending="")
            return
        target = Path(path)
        try:
            # Written beside the target and renamed over it, so an interrupted export never
            # leaves a truncated file where a good one was.
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".export-")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(tmp, target)
        except OSError as exc:
            raise CommandError(f"cannot write {path}: {exc.strerror or exc}") from None
        self.stdout.write(
            f"exported {len(data['nodes'])} nodes, {len(data['edges'])} edges, "
            f"{len(data['episodes'])} episodes of {user.get_username()} to {path}"
        )
