from django.apps import AppConfig


class BenchConfig(AppConfig):
    """Benchmark and load tooling: installed in development and tests, never in production
    (pegasus_site/settings.py, ``installed_apps``)."""

    name = "bench"
    verbose_name = "Benchmarks (development only)"
