"""The bench app is development and test tooling: installed there, absent in production."""

from django.conf import settings

from pegasus_site.settings import PRODUCT_APPS, installed_apps
from tests.pegasus_site.test_production_settings import PRODUCTION, _manage

BENCH_COMMANDS = {
    "bench_chat",
    "bench_extract",
    "bench_locomo",
    "bench_merge",
    "bench_recall",
    "bench_store",
}


def test_production_settings_do_not_install_bench():
    assert "bench" not in installed_apps(production=True)
    assert installed_apps(production=True) == PRODUCT_APPS


def test_development_and_test_settings_install_bench_after_the_product_apps():
    apps = installed_apps(production=False)
    assert apps[-1] == "bench"
    assert apps[:-1] == PRODUCT_APPS
    assert "bench" in settings.INSTALLED_APPS  # this test run


def test_manage_help_lists_the_bench_commands_in_development_only():
    development = _manage("help", PEGASUS_ENV="development")
    assert development.returncode == 0, development.stderr
    listed = set(development.stdout.split())
    assert BENCH_COMMANDS <= listed
    assert "[bench]" in development.stdout

    production = _manage("help", **PRODUCTION)
    assert production.returncode == 0, production.stderr
    assert "bench" not in production.stdout
    assert "migrate" in production.stdout  # the product's commands are still there
