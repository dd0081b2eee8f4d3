"""A fresh clone: the first ``manage.py`` command, before any ``migrate`` (issue 19, item 8).

Each test makes an empty database on the test server and runs a real ``manage.py``
subprocess against it: on the embedded database the schema is created first; on an
operator's database the command stops with one line saying what to run.
"""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from django.db import connection

BASE = Path(__file__).resolve().parents[2]


@pytest.fixture
def empty_database():
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    server = f"postgres://{auth}@{s['HOST']}:{s['PORT']}"
    name = f"fresh_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{server}/{name}"
    finally:
        with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _manage(url: str, *args: str, embedded: bool) -> subprocess.CompletedProcess:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"PEGASUS_EMBEDDED_DB", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(DATABASE_URL=url, DJANGO_SUPERUSER_PASSWORD="first-staff-pass-123")
    if embedded:
        env["PEGASUS_EMBEDDED_DB"] = "1"
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _users(url: str) -> list[tuple]:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT username, is_staff, is_superuser FROM auth_user").fetchall()


def test_createsuperuser_on_a_fresh_embedded_database_migrates_first(empty_database):
    done = _manage(
        empty_database,
        "createsuperuser",
        "--noinput",
        "--username",
        "boss",
        "--email",
        "boss@example.com",
        embedded=True,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "applying" in done.stderr and "migration" in done.stderr
    assert _users(empty_database) == [("boss", True, True)]
    again = _manage(empty_database, "showmigrations", "--plan", embedded=True)
    assert "[ ]" not in again.stdout  # everything applied


def test_a_fresh_operator_database_gets_one_line_not_a_traceback(empty_database):
    done = _manage(
        empty_database,
        "createsuperuser",
        "--noinput",
        "--username",
        "boss",
        "--email",
        "boss@example.com",
        embedded=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines == [
        "pegasus: the database at DATABASE_URL has no tables yet; run "
        "`python manage.py migrate` first"
    ]
    with psycopg.connect(empty_database) as conn:  # nothing was created behind its back
        assert (
            conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()[0]
            == 0
        )
