"""Production posture: `check --deploy` is clean and misconfiguration fails loudly."""

import os
import subprocess
import sys
from pathlib import Path

BASE = Path(__file__).resolve().parents[2]


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    # Test-process settings must not leak into the production check.
    dropped = {"SECRET_KEY", "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    full_env = {k: v for k, v in os.environ.items() if k not in dropped}
    full_env.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


PRODUCTION = {
    "PEGASUS_ENV": "production",
    "SECRET_KEY": "x7#" + "k" * 30 + "q9!vZ" + "p" * 20,
    "ALLOWED_HOSTS": "pegasus.example.com",
    "CSRF_TRUSTED_ORIGINS": "https://pegasus.example.com",
}


def test_production_mode_passes_check_deploy_at_warning_level():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_mode_refuses_to_start_without_a_secret_key():
    env = dict(PRODUCTION)
    env.pop("SECRET_KEY")
    result = _manage("check", **env)
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_production_mode_requires_allowed_hosts():
    result = _manage("check", **{**PRODUCTION, "ALLOWED_HOSTS": ""})
    assert result.returncode != 0
    assert "ALLOWED_HOSTS must be set" in result.stderr
