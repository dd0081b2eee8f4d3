"""Before a ``manage.py`` command: make sure the database has the schema."""

from __future__ import annotations

import os
import sys

# manage.py commands that work on a database without the schema (or manage the schema).
SCHEMA_FREE_COMMANDS = frozenset(
    {
        "help",
        "version",
        "migrate",
        "makemigrations",
        "showmigrations",
        "sqlmigrate",
        "squashmigrations",
        "optimizemigration",
        "check",
        "dbshell",
        "collectstatic",
        "findstatic",
        "test",
        "startapp",
        "startproject",
        "diffsettings",
        "sendtestemail",
        "compilemessages",
        "makemessages",
        "spectacular",
        "serve",
    }
)


def prepare_schema(argv: list[str]) -> None:
    """Before a ``manage.py`` command (``argv`` as given to it): make sure the schema exists.

    On the embedded database (``PEGASUS_EMBEDDED_DB=1``) pending migrations are applied first,
    announced in one line — a fresh clone then works with any command. On an operator's
    database nothing is changed: with no schema at all the command stops with one line saying
    to run ``migrate`` (instead of a traceback); with some migrations pending it warns.
    Commands in ``SCHEMA_FREE_COMMANDS`` and a database that cannot be reached are left
    alone (the command reports the latter itself).
    """
    command = argv[1] if len(argv) > 1 else "help"
    if command in SCHEMA_FREE_COMMANDS or command.startswith("-"):
        return
    import django
    from django.core.management import call_command
    from django.db import DatabaseError, connection
    from django.db.migrations.executor import MigrationExecutor

    django.setup()
    try:
        executor = MigrationExecutor(connection)
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
        fresh = not executor.recorder.has_table()
    except DatabaseError:
        return
    if not pending:
        return
    if os.environ.get("PEGASUS_EMBEDDED_DB") == "1":
        sys.stderr.write(
            f"pegasus: applying {len(pending)} database migration(s) to the "
            "embedded database first (python manage.py migrate)\n"
        )
        call_command("migrate", interactive=False, verbosity=0)
        return
    if fresh:
        sys.stderr.write(
            "pegasus: the database at DATABASE_URL has no tables yet; run "
            "`python manage.py migrate` first\n"
        )
        sys.exit(2)
    sys.stderr.write(
        f"pegasus: {len(pending)} database migration(s) are not applied; run "
        "`python manage.py migrate`\n"
    )
