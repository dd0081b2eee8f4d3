"""``manage.py recall "MESSAGE" --user U [--now T] [--json]`` — what a Read recalls (SPEC §6.3).

Runs the Read path (SPEC §5.1–§5.3) for one message as the given account and prints the
record: with ``--json`` exactly the SPEC §6.4 object, otherwise a readable report (words,
seeds with their similarity, the fired nodes with score, direction and hop, the injected
memory lines and snippets, timings). Read-only: no conversation, so nothing is logged.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand

from memory.management import get_account, parse_now
from memory.services.read import ReadRecord, recall


def render(record: ReadRecord) -> str:
    """The human-readable form of a Read record."""
    out = [f"words: {' '.join(record.words) if record.words else '(no content words)'}"]
    out.append(f"seeds ({len(record.seeds)}):")
    for seed in record.seeds:
        out.append(
            f"  {seed['similarity']:.4f}  {seed['name']} ({seed['kind']})  via key {seed['key']!r}"
        )
    if not record.seeds:
        out.append("  (none: no key passed the seed threshold or the margin gate)")
    out.append(f"fired ({len(record.fired)}):")
    if record.fired:
        out.append(f"  {'score':>7}  {'direction':<9}  hop  node")
        for node in record.fired:
            out.append(
                f"  {node['score']:>7.4f}  {node['direction']:<9}  {node['hop']:>3}  "
                f"{node['name']} ({node['kind']}, #{node['id']})"
            )
    out.append(f"memory lines ({len(record.memory_lines)}):")
    out.extend(f"  {line}" for line in record.memory_lines)
    out.append(f"context snippets ({len(record.context_snippets)}):")
    for snippet in record.context_snippets:
        # Graph snippets cite their edge; other strategies may add quotes that cite none.
        source = (
            snippet["node"]
            if snippet.get("edge") is None
            else (f"{snippet['node']}, edge #{snippet['edge']}")
        )
        out.append(f"  [{source}] {json.dumps(snippet['text'], ensure_ascii=False)}")
    out.append(
        f"crossed edges ({len(record.crossed_edges)}): "
        + (", ".join(str(e) for e in record.crossed_edges) or "-")
    )
    out.append(
        "timings: " + " · ".join(f"{stage} {ms:.2f} ms" for stage, ms in record.timings_ms.items())
    )
    out.append("injected text:" if record.text else "injected text: (nothing)")
    if record.text:
        out.extend(f"  {line}" for line in record.text.split("\n"))
    return "\n".join(out)


class Command(BaseCommand):
    help = "Show what the memory Read recalls for a message (read-only)."

    def add_arguments(self, parser):
        parser.add_argument("message", help="the chat message to recall for")
        parser.add_argument("--user", required=True, help="the account whose memory to read")
        parser.add_argument(
            "--now",
            help="ISO 8601 time of the Read (default: now); edge "
            "strengths and expiry are judged at this instant",
        )
        parser.add_argument(
            "--json", action="store_true", help="print the SPEC §6.4 record as JSON"
        )

    def handle(self, *args, **options):
        user = get_account(options["user"])
        now = parse_now(options["now"])
        record = recall(user=user, message=options["message"], now=now)
        if options["json"]:
            self.stdout.write(json.dumps(record.to_dict(), ensure_ascii=False, indent=2))
        else:
            self.stdout.write(render(record))
