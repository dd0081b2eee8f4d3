"""The extraction job monitor: failed and stuck jobs are visible and retried from the admin
through ``memory.services.jobs.retry_extraction`` (SPEC §3, issue 9)."""

from datetime import timedelta

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone
from django_q.models import OrmQ

from chat.models import Conversation, Message
from memory.models import Episode
from memory.services.jobs import extract_episode
from tests.admin.conftest import NOW, change_url
from tests.fakes.anthropic_server import Error

pytestmark = pytest.mark.django_db

JOBS = reverse("admin:memory_episode_changelist")


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def queued_episode_ids() -> list[int]:
    return [
        q.task["args"][0]
        for q in OrmQ.objects.all()
        if q.task["func"] == "memory.tasks.extract_conversation"
    ]


def episode_for(user, status="failed", **fields) -> Episode:
    conversation = Conversation.objects.create(
        user=user, title="Work talk", status="ended", started_at=NOW, ended_at=NOW
    )
    Message.objects.create(
        user=user,
        conversation=conversation,
        role="user",
        text="My boss Joshua works at Acme.",
        created_at=NOW,
    )
    return Episode.objects.create(
        user=user,
        conversation=conversation,
        status=status,
        created_at=NOW,
        started_at=NOW,
        ended_at=NOW,
        **fields,
    )


@pytest.fixture
def failed_for_real(alice, fake_anthropic, settings):
    """An extraction that really failed: the model answered 500 and no retry was left."""
    settings.ANTHROPIC_MAX_RETRIES = 0
    fake_anthropic.script([Error(500)])
    episode = episode_for(alice, status="pending")
    with pytest.raises(Exception):  # noqa: B017 - whatever the SDK raises, the job records it
        extract_episode(episode_id=episode.pk, now=NOW)[0]
    episode.refresh_from_db()
    assert episode.status == "failed" and episode.attempts == 1
    return episode


def test_the_monitor_lists_status_attempts_duration_tokens_and_error(mod_client, alice):
    episode = episode_for(
        alice,
        attempts=3,
        last_error="LLMError: overloaded",
        extractor="anthropic",
        input_tokens=1200,
        output_tokens=340,
        job_started_at=NOW,
        job_finished_at=NOW + timedelta(seconds=12.5),
    )
    page = mod_client.get(JOBS)
    html = page.content.decode()
    assert page.status_code == 200
    for text in (
        "failed",
        "12.5 s",
        "1200 / 340",
        "LLMError: overloaded",
        "anthropic",
        reverse("admin:chat_conversation_change", args=[episode.conversation_id]),
        "Work talk",
    ):
        assert text in html
    assert 'value="retry_extraction"' in html


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        ("job=failed", {"failed"}),
        ("job=stuck", {"stuck"}),
        ("job=attention", {"failed", "stuck"}),
        ("job=running", {"stuck", "running"}),
        ("job=done", {"done"}),
        ("", {"failed", "stuck", "running", "done"}),
    ],
)
def test_job_filters(mod_client, alice, query, shown):
    now = timezone.now()
    rows = {
        "failed": episode_for(alice, "failed"),
        "stuck": episode_for(alice, "running", job_started_at=now - timedelta(hours=2)),
        "running": episode_for(alice, "running", job_started_at=now - timedelta(seconds=5)),
        "done": episode_for(alice, "done"),
    }
    page = mod_client.get(f"{JOBS}?{query}")
    assert {e.pk for e in page.context["cl"].result_list} == {rows[n].pk for n in shown}


def test_retry_action_requeues_failed_and_stuck_jobs_and_skips_the_rest(
    mod_client,
    alice,
    django_capture_on_commit_callbacks,
):
    now = timezone.now()
    failed = episode_for(alice, "failed", attempts=3, last_error="boom")
    stuck = episode_for(alice, "running", attempts=1, job_started_at=now - timedelta(hours=2))
    busy = episode_for(alice, "running", attempts=1, job_started_at=now - timedelta(seconds=5))
    done = episode_for(alice, "done", attempts=1)

    with django_capture_on_commit_callbacks(execute=True):
        response = mod_client.post(
            JOBS,
            {
                "action": "retry_extraction",
                "_selected_action": [failed.pk, stuck.pk, busy.pk, done.pk],
            },
            follow=True,
        )

    shown = messages_of(response)
    assert "Queued again 2 of 4 selected; skipped 2." in shown
    assert any(f"#{done.pk}: episode {done.pk} is done; it cannot be retried" in m for m in shown)
    for episode in (failed, stuck):
        episode.refresh_from_db()
        assert (episode.status, episode.attempts) == ("pending", 0)
    busy.refresh_from_db(), done.refresh_from_db()
    assert (busy.status, done.status) == ("running", "done")
    assert sorted(queued_episode_ids()) == sorted([failed.pk, stuck.pk])


def test_a_really_failed_job_is_retried_from_its_page_and_then_succeeds(
    mod_client,
    mod,
    failed_for_real,
    settings,
    django_capture_on_commit_callbacks,
):
    episode = failed_for_real
    page = mod_client.get(change_url(episode))
    html = page.content.decode()
    assert 'id="retry-extraction"' in html
    assert episode.last_error.split(":")[0] in html
    assert f"?q=extract-{episode.pk}" in html  # django-q2's own records of the task

    with django_capture_on_commit_callbacks(execute=True):
        response = mod_client.post(
            reverse("admin:memory_episode_retry", args=[episode.pk]), follow=True
        )

    assert f"Episode {episode.pk} is queued for extraction again." in messages_of(response)
    episode.refresh_from_db()
    assert (episode.status, episode.attempts) == ("pending", 0)
    assert queued_episode_ids() == [episode.pk]
    # The worker picks it up again; offline this time, it succeeds.
    settings.ANTHROPIC_API_KEY = ""
    extract_episode(episode_id=episode.pk, now=NOW + timedelta(hours=1))[0]
    episode.refresh_from_db()
    assert episode.status == "done" and episode.extractor


def test_retrying_a_done_job_from_its_page_is_refused_with_a_message(mod_client, alice):
    episode = episode_for(alice, "done")
    response = mod_client.post(
        reverse("admin:memory_episode_retry", args=[episode.pk]), follow=True
    )
    assert any("cannot be retried" in m for m in messages_of(response))
    episode.refresh_from_db()
    assert episode.status == "done"
    assert 'id="retry-extraction"' not in mod_client.get(change_url(episode)).content.decode()


def test_index_counts_failed_and_stuck_jobs(mod_client, alice):
    episode_for(alice, "failed")
    episode_for(alice, "failed")
    episode_for(alice, "running", job_started_at=timezone.now() - timedelta(hours=1))
    page = mod_client.get(reverse("admin:index"))
    assert page.context["job_queue"] == {"failed": 2, "stuck": 1, "pending": 0}
    html = page.content.decode()
    assert '<td id="count-failed">2</td>' in html and '<td id="count-stuck">1</td>' in html


def test_django_q_failures_are_visible(mod_client, every_model):
    from django_q.models import Failure

    failure = Failure.objects.get()
    page = mod_client.get(reverse("admin:django_q_failure_changelist"))
    assert page.status_code == 200
    assert failure.name in page.content.decode()
