"""Shared fixtures: alice and bob (the outsider in every test) and a staff moderator."""

import pytest

pytest_plugins = ["tests.fakes.conftest_plugin"]


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", "alice@example.com", "alice-pass-123")


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user("bob", "bob@example.com", "bob-pass-123")


@pytest.fixture
def mod(django_user_model):
    return django_user_model.objects.create_user(
        "mod", "mod@example.com", "mod-pass-123", is_staff=True, is_superuser=True
    )
