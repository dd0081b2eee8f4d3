"""What moderators see of held decisions now that their owners answer them first: nothing,
until the owner says "not sure" or leaves the question unanswered for
MERGE_INBOX_STAFF_AFTER_DAYS (docs/moderation.md)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from memory.models import MergeDecision
from memory.services import inbox
from tests.admin.conftest import change_url, review_url

pytestmark = pytest.mark.django_db

QUEUE = reverse("admin:memory_mergedecision_changelist")


def listed(client, query: str = "") -> set[int]:
    page = client.get(f"{QUEUE}?{query}")
    assert page.status_code == 200
    return {d.pk for d in page.context["cl"].result_list}


def age(decision: MergeDecision, days: float) -> None:
    MergeDecision.objects.filter(pk=decision.pk).update(
        created_at=timezone.now() - timedelta(days=days)
    )


def test_a_fresh_held_decision_is_its_owners_not_the_moderators(mod_client, alice, held, settings):
    settings.MERGE_INBOX_STAFF_AFTER_DAYS = 14
    age(held, 13)
    assert held.pk not in listed(mod_client)
    assert held.pk not in listed(mod_client, "status=review")
    assert mod_client.get(reverse("admin:index")).context["review_queue"]["held"] == 0
    assert mod_client.get(change_url(held)).status_code in (302, 404)
    response = mod_client.post(review_url(held, "keep_apart"), {"why": "too early"})
    assert response.status_code == 404
    held.refresh_from_db()
    assert held.status == "held"


def test_after_the_waiting_time_moderators_see_it(mod_client, held, settings):
    settings.MERGE_INBOX_STAFF_AFTER_DAYS = 14
    age(held, 14.1)
    assert held.pk in listed(mod_client, "status=review")
    assert listed(mod_client, "status=unanswered") == {held.pk}
    assert listed(mod_client, "status=escalated") == set()
    assert mod_client.get(reverse("admin:index")).context["review_queue"]["held"] == 1
    assert mod_client.get(change_url(held)).status_code == 200


def test_not_sure_sends_it_at_once(mod_client, alice, held, settings):
    settings.MERGE_INBOX_STAFF_AFTER_DAYS = 14
    age(held, 1)
    inbox.answer(user=alice, decision=held, answer="unsure", now=timezone.now())
    assert listed(mod_client, "status=escalated") == {held.pk}
    assert held.pk in listed(mod_client, "status=review")
    page = mod_client.get(change_url(held))
    assert page.status_code == 200 and "unsure" in page.content.decode()
    # The moderator settles it; the owner's answer stays recorded beside it.
    mod_client.post(review_url(held, "keep_apart"), {"why": "two people"})
    held.refresh_from_db()
    assert (held.status, held.answer) == ("kept-apart", "unsure")


def test_answered_decisions_stay_in_the_history(mod_client, alice, held, two_bills, settings):
    settings.MERGE_INBOX_STAFF_AFTER_DAYS = 14
    age(held, 1)
    _smith, jones = two_bills
    inbox.answer(user=alice, decision=held, answer="same", into=jones.pk, now=timezone.now())
    assert held.pk in listed(mod_client, "status=merged")
    assert held.pk not in listed(mod_client, "status=review")
