"""Reliability and security checks (issue 12, docs/RELIABILITY.md).

Every module here has a fast variant that runs in ``make test`` and a long variant that anyone
can start with ``PEGASUS_RELIABILITY=full``, e.g.::

    PEGASUS_RELIABILITY=full .venv/bin/python -m pytest tests/reliability -q

The ``reliability_full`` and ``scaled`` fixtures tell a test which one it is running.
"""

from __future__ import annotations

import os

import pytest


def _full() -> bool:
    return os.environ.get("PEGASUS_RELIABILITY", "fast").strip().lower() == "full"


@pytest.fixture(scope="session")
def reliability_full() -> bool:
    """True for the long runs (``PEGASUS_RELIABILITY=full``), False in ``make test``."""
    return _full()


@pytest.fixture(scope="session")
def scaled():
    """``scaled(fast, full)``: ``fast`` in ``make test``, ``full`` under
    ``PEGASUS_RELIABILITY=full`` — the size of a run (turns, examples, faults)."""
    return lambda fast, full: full if _full() else fast
