"""Pytest fixtures for the fake Anthropic server.

Registered for the whole suite by ``pytest_plugins = ["tests.fakes.conftest_plugin"]`` in
``tests/conftest.py``; a test module can also import the fixture explicitly.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.anthropic_server import FakeAnthropic


@pytest.fixture
def fake_anthropic(settings) -> Iterator[FakeAnthropic]:
    """A started ``FakeAnthropic``, with ``ANTHROPIC_API_KEY`` set (online mode) and
    ``ANTHROPIC_BASE_URL`` pointing at it for the duration of the test."""
    server = FakeAnthropic().start()
    settings.ANTHROPIC_API_KEY = "test-key"
    settings.ANTHROPIC_BASE_URL = server.url
    try:
        yield server
    finally:
        server.stop()
