from datetime import timedelta

import pytest
from django.utils import timezone

from ops.models import WorkerHeartbeat
from ops.tasks import heartbeat

pytestmark = pytest.mark.django_db


def test_healthz_is_503_before_any_worker_heartbeat(client):
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unhealthy"
    assert body["database"]["ok"] is True
    assert body["worker"] == {"ok": False, "heartbeat_age_s": None}


def test_healthz_is_200_with_a_fresh_heartbeat_and_reports_every_part(client):
    heartbeat()
    body = client.get("/healthz").json()
    assert body["status"] == "ok"
    assert body["database"]["pgvector"].startswith("0.8")
    assert body["worker"]["ok"] is True and body["worker"]["heartbeat_age_s"] < 5
    assert body["embedding"]["available"] is True
    assert body["embedding"]["dim"] == 384
    assert body["llm_mode"] in {"anthropic", "offline"}


def test_healthz_is_503_when_the_worker_heartbeat_is_stale(client, settings):
    WorkerHeartbeat.objects.create(
        name=settings.Q_CLUSTER["name"], beat_at=timezone.now() - timedelta(minutes=10)
    )
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["worker"]["ok"] is False


def test_healthz_reports_offline_mode_without_a_key(client, settings):
    settings.ANTHROPIC_API_KEY = ""
    assert client.get("/healthz").json()["llm_mode"] == "offline"
    settings.ANTHROPIC_API_KEY = "sk-test"
    assert client.get("/healthz").json()["llm_mode"] == "anthropic"


def test_healthz_only_answers_get(client):
    assert client.post("/healthz").status_code == 405
