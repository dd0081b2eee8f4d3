"""Per-process, per-user LRU caches of the Read path (key vectors, graph snapshots, passages).

Each entry belongs to one user of one database (the key is ``(host, port, database, user
id)``, so test databases and servers never share entries) and has a ``rows`` size; the cache
drops least-recently-used users until the total is within its limit. Entries are immutable
and are validated by their owner on every use (graph version, passage signature), so a cache
only ever saves work — ``clear()`` is never needed for correctness.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from django.db import connection

__all__ = ["UserLRU", "user_key"]


class _Sized(Protocol):
    @property
    def rows(self) -> int: ...


Entry = TypeVar("Entry", bound=_Sized)


def user_key(user_id: int) -> tuple:
    """The cache key of ``user_id`` on the current database."""
    db = connection.settings_dict
    return (db.get("HOST"), db.get("PORT"), db.get("NAME"), user_id)


class UserLRU(Generic[Entry]):
    """Thread-safe LRU of per-user entries bounded by total ``rows``; ``limit`` is read at each
    insert (a callable, so settings changed at run time apply)."""

    def __init__(self, limit: Callable[[], int]):
        self.entries: OrderedDict[tuple, Entry] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Entry | None:
        with self._lock:
            entry = self.entries.get(key)
            if entry is not None:
                self.entries.move_to_end(key)
            return entry

    def put(self, key: tuple, entry: Entry) -> None:
        with self._lock:
            self.entries[key] = entry
            self.entries.move_to_end(key)
            total = sum(e.rows for e in self.entries.values())
            while total > self._limit() and len(self.entries) > 1:
                _, dropped = self.entries.popitem(last=False)
                total -= dropped.rows

    def clear(self) -> None:
        with self._lock:
            self.entries.clear()
