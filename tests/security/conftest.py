"""Fixtures for the security hardening tests (issue 18): an empty cache (throttles, login
failures and allauth's rate limits live there) and a fast password hasher."""

import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def offline(settings):
    settings.ANTHROPIC_API_KEY = ""


@pytest.fixture
def fast_hashers(settings):
    # Every sign-in attempt hashes a password; the limits under test do not depend on the
    # hasher's cost.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
