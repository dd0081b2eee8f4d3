"""Shared fixtures: alice and bob (the outsider in every test), a staff moderator, and no
persistent database connections under test."""

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


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """No persistent connections under test: a socket test's consumer reaches the database
    from asgiref's worker thread, and a connection kept there for ``CONN_MAX_AGE`` would
    still be open when pytest drops the test database at the end ("being accessed by other
    users"). ``database_sync_to_async`` closes it after each call when the age is 0."""
    from django.conf import settings

    for database in settings.DATABASES.values():
        database["CONN_MAX_AGE"] = 0
