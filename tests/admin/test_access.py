"""Only staff reach the console; acting needs the permission; the admin login is allauth's,
with its brute-force limits (issue 9)."""

import pytest
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.contrib.auth.models import Permission
from django.core.cache import cache
from django.urls import reverse

from memory.models import Episode, MergeDecision
from tests.admin.conftest import review_url

pytestmark = pytest.mark.django_db

ADMIN_LOGIN = reverse("admin:login")


def every_admin_page() -> list[str]:
    """Index, app pages, and each registered model's list, add, change and history pages
    (one fixture row each)."""
    urls = [reverse("admin:index")]
    for model in admin.site._registry:
        opts = model._meta
        info = f"admin:{opts.app_label}_{opts.model_name}"
        urls.append(reverse("admin:app_list", args=[opts.app_label]))
        urls.append(reverse(f"{info}_changelist"))
        urls.append(reverse(f"{info}_add"))
        row = model._default_manager.first()
        urls += [
            reverse(f"{info}_{page}", args=[quote(row.pk)])
            for page in ("change", "history", "delete")
        ]
    return urls


def console_posts(decision: MergeDecision, episode: Episode) -> list[tuple[str, dict]]:
    """Every POST that changes something: review buttons, bulk actions, the job retry."""
    queue = reverse("admin:memory_mergedecision_changelist")
    jobs = reverse("admin:memory_episode_changelist")
    return [
        *[
            (review_url(decision, action), {"into": 1, "why": "x"})
            for action in ("confirm", "revert", "merge", "keep_apart")
        ],
        *[
            (
                queue,
                {"action": action, "_selected_action": [decision.pk], "post": "yes", "why": "x"},
            )
            for action in ("revert_merges", "confirm_merges", "keep_apart")
        ],
        (reverse("admin:memory_episode_retry", args=[episode.pk]), {}),
        (jobs, {"action": "retry_extraction", "_selected_action": [episode.pk]}),
    ]


@pytest.fixture
def console(every_model, alice):
    decision = MergeDecision.objects.for_user(alice).get()
    episode = Episode.objects.for_user(alice).first()
    Episode.objects.filter(pk=episode.pk).update(status="failed")
    return decision, episode


def assert_sent_to_login(response):
    assert response.status_code == 302
    assert response["Location"].startswith(ADMIN_LOGIN + "?next=")


def test_alice_cannot_open_any_admin_page(client, alice, console):
    client.force_login(alice)
    for url in every_admin_page():
        assert_sent_to_login(client.get(url))


def test_anonymous_visitors_cannot_open_any_admin_page(client, console):
    for url in every_admin_page():
        assert_sent_to_login(client.get(url))


def test_alice_cannot_act_through_the_console(client, alice, console):
    decision, episode = console
    before = MergeDecision.objects.get(pk=decision.pk)
    client.force_login(alice)
    for url, data in console_posts(decision, episode):
        assert_sent_to_login(client.post(url, data))
    after = MergeDecision.objects.get(pk=decision.pk)
    assert (after.status, after.log) == (before.status, before.log)
    assert Episode.objects.get(pk=episode.pk).status == "failed"


def test_the_admin_login_refuses_a_signed_in_non_staff_user(client, alice):
    client.force_login(alice)
    response = client.get(reverse("admin:memory_mergedecision_changelist"), follow=True)
    assert response.status_code == 403
    assert response.redirect_chain[-1][0].startswith(ADMIN_LOGIN)


def test_staff_without_permissions_see_no_console(client, django_user_model, console):
    decision, episode = console
    staff = django_user_model.objects.create_user(
        "helper", "h@example.com", "helper-pw-123", is_staff=True
    )
    client.force_login(staff)
    assert client.get(reverse("admin:memory_mergedecision_changelist")).status_code == 403
    assert client.get(reverse("admin:memory_episode_changelist")).status_code == 403
    assert client.post(review_url(decision, "revert")).status_code == 403
    assert client.post(reverse("admin:memory_episode_retry", args=[episode.pk])).status_code == 403
    decision.refresh_from_db()
    assert decision.status == "merged"


def test_view_permission_alone_shows_the_queue_but_no_review_actions(
    client,
    django_user_model,
    console,
):
    decision, _ = console
    viewer = django_user_model.objects.create_user(
        "viewer", "v@example.com", "viewer-pw-123", is_staff=True
    )
    viewer.user_permissions.add(Permission.objects.get(codename="view_mergedecision"))
    client.force_login(viewer)

    queue = client.get(reverse("admin:memory_mergedecision_changelist"))
    assert queue.status_code == 200
    assert "revert_merges" not in queue.content.decode()
    page = client.get(reverse("admin:memory_mergedecision_change", args=[decision.pk]))
    assert page.status_code == 200
    assert 'id="review-revert"' not in page.content.decode()
    assert client.post(review_url(decision, "revert")).status_code == 403
    response = client.post(
        reverse("admin:memory_mergedecision_changelist"),
        {"action": "revert_merges", "_selected_action": [decision.pk]},
    )
    assert response.status_code in (200, 302)
    decision.refresh_from_db()
    assert decision.status == "merged"


# --- the admin login ---------------------------------------------------------------------------


@pytest.fixture
def clean_rate_limits():
    cache.clear()
    yield
    cache.clear()


def test_the_admin_login_is_allauths_login(client, mod):
    response = client.get(ADMIN_LOGIN)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))
    # The admin's own password form is never processed: no way around allauth's limits.
    response = client.post(ADMIN_LOGIN, {"username": "mod", "password": "mod-pass-123"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))
    assert "_auth_user_id" not in client.session


def test_a_moderator_signing_in_lands_on_the_admin(client, mod, clean_rate_limits):
    page = client.get(reverse("admin:memory_mergedecision_changelist"), follow=True)
    login_url = page.redirect_chain[-1][0]
    assert login_url.startswith(reverse("account_login"))
    response = client.post(login_url, {"login": "mod", "password": "mod-pass-123"}, follow=True)
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == reverse("admin:memory_mergedecision_changelist")


def test_password_guessing_is_rate_limited(client, mod, clean_rate_limits):
    login = reverse("account_login") + "?next=" + ADMIN_LOGIN
    for _ in range(5):
        response = client.post(login, {"login": "mod", "password": "wrong-guess"})
        assert "_auth_user_id" not in client.session
    response = client.post(login, {"login": "mod", "password": "mod-pass-123"})
    assert "_auth_user_id" not in client.session  # even the right password, for a while
    assert response.status_code in (200, 429)
    assert "Too many failed login attempts" in response.content.decode()
