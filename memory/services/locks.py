"""The per-user advisory lock that serialises Write, Decay and merge actions (SPEC §3).

Reads take no lock. The lock is transaction-scoped (``pg_advisory_xact_lock``): it is
released by COMMIT or ROLLBACK, so a crashed worker can never leave a user locked.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from django.db import connection, transaction

# First key of the two-int advisory lock: keeps Pegasus's locks apart from anyone else's.
LOCK_NAMESPACE = 0x5E6A


@contextlib.contextmanager
def user_lock(user_id: int) -> Iterator[None]:
    """Open a transaction holding ``user_id``'s graph lock for its whole duration."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [LOCK_NAMESPACE, user_id])
        yield
