#!/usr/bin/env python
"""Django's command-line utility for Pegasus.

Without DATABASE_URL every command starts (or reuses) the embedded PostgreSQL server first
and applies any pending migrations to it; see pegasus_site/devdb/schema.py (``prepare_schema``).
"""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pegasus_site.settings")
    from django.core.management import execute_from_command_line

    from pegasus_site.devdb import prepare_schema

    prepare_schema(sys.argv)
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
