"""Health of every part Pegasus needs, as one JSON-able report (GET /healthz)."""

from __future__ import annotations

from django.conf import settings
from django.db import DatabaseError, connection
from django.utils import timezone

from lib.llm import llm_mode
from memory import embedding
from ops.models import WorkerHeartbeat


def _database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cursor.fetchone()
    except DatabaseError as exc:
        return {"ok": False, "error": str(exc).splitlines()[0], "pgvector": None}
    return {"ok": row is not None, "pgvector": row[0] if row else None}


def _worker(db_ok: bool, now) -> dict:
    if not db_ok:
        return {"ok": False, "heartbeat_age_s": None}
    beat = WorkerHeartbeat.objects.filter(name=settings.Q_CLUSTER["name"]).first()
    if beat is None:
        return {"ok": False, "heartbeat_age_s": None}
    age = (now - beat.beat_at).total_seconds()
    return {"ok": age <= settings.WORKER_STALE_SECONDS, "heartbeat_age_s": round(age, 1)}


def report(*, now=None) -> tuple[bool, dict]:
    """(healthy, details). Healthy means: database and pgvector up, a worker beat recently,
    and the embedding model present on disk."""
    now = now or timezone.now()
    database = _database()
    worker = _worker(database["ok"], now)
    model = embedding.status()
    healthy = database["ok"] and worker["ok"] and model["available"]
    return healthy, {
        "status": "ok" if healthy else "unhealthy",
        "database": database,
        "worker": worker,
        "embedding": model,
        "llm_mode": llm_mode(),
        "time": now.isoformat(),
    }
