#!/usr/bin/env python
"""Django's command-line utility for Pegasus.

Without DATABASE_URL every command starts (or reuses) the embedded PostgreSQL server first;
see pegasus_site/devdb.py.
"""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pegasus_site.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
