"""The embedded PostgreSQL launcher: start, reuse, and recovery after SIGKILL."""

import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

import psycopg
import pytest

from pegasus_site import devdb


@pytest.fixture
def cluster():
    parent = devdb.ROOT_STATE if devdb._is_root() else devdb.BASE_DIR / "var"
    parent.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="devdb-test-", dir=parent))
    home.chmod(0o755)
    c = devdb.default_cluster(throwaway_dir=home)
    yield c
    devdb.stop(c)
    shutil.rmtree(home, ignore_errors=True)


def _version(url: str) -> str:
    with psycopg.connect(url, connect_timeout=5) as conn:
        return conn.execute("SHOW server_version").fetchone()[0]


def test_start_then_reuse_gives_the_same_server(cluster):
    url = devdb.ensure_running(cluster)
    assert _version(url).startswith("18")
    pid = devdb._read_pid_file(cluster)[0]
    assert devdb.ensure_running(cluster) == url
    assert devdb._read_pid_file(cluster)[0] == pid


def test_pgvector_and_btree_gin_are_available_and_the_page_cache_is_sized(cluster, monkeypatch):
    monkeypatch.setenv("PEGASUS_DB_SHARED_BUFFERS", "256MB")
    url = devdb.ensure_running(cluster)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        assert conn.execute("SELECT '[1,2]'::vector <=> '[2,4]'::vector").fetchone()[0] < 1e-6
        conn.execute("CREATE EXTENSION IF NOT EXISTS btree_gin")
        assert conn.execute("SHOW shared_buffers").fetchone()[0] == "256MB"


def test_the_page_cache_setting_refuses_anything_but_a_size(monkeypatch):
    from pegasus_site.devdb.server import _shared_buffers

    monkeypatch.delenv("PEGASUS_DB_SHARED_BUFFERS", raising=False)
    assert _shared_buffers() == "1GB"
    monkeypatch.setenv("PEGASUS_DB_SHARED_BUFFERS", "2GB -c fsync=off")
    assert _shared_buffers() == "1GB"
    monkeypatch.setenv("PEGASUS_DB_SHARED_BUFFERS", "512MB")
    assert _shared_buffers() == "512MB"


def test_recovers_after_the_postmaster_and_backends_are_killed(cluster):
    url = devdb.ensure_running(cluster)
    conn = psycopg.connect(url)  # keep a backend alive, as a killed app would
    conn.execute("SELECT 1")
    pid = devdb._read_pid_file(cluster)[0]
    os.kill(pid, signal.SIGKILL)
    time.sleep(0.5)
    url2 = devdb.ensure_running(cluster)
    assert _version(url2).startswith("18")
    assert devdb._read_pid_file(cluster)[0] != pid
    conn.close()


def test_stop_is_clean_and_idempotent(cluster):
    devdb.ensure_running(cluster)
    assert devdb.stop(cluster) is True
    assert devdb.stop(cluster) is False
    assert not (cluster.data / "postmaster.pid").exists()
