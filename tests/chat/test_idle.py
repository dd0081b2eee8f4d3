from datetime import timedelta

import pytest
from django.utils import timezone
from django_q.models import OrmQ

from chat.models import Conversation, Message
from chat.services import close_idle_conversations

pytestmark = pytest.mark.django_db(transaction=True)


def _conversation(user, last_message_minutes_ago, now):
    conversation = Conversation.objects.create(user=user, started_at=now - timedelta(hours=2))
    at = now - timedelta(minutes=last_message_minutes_ago)
    Message.objects.create(
        user=user, conversation=conversation, role="user", text="hello", created_at=at
    )
    conversation.last_message_at = at
    conversation.save()
    return conversation


def test_only_idle_conversations_end_and_each_enqueues_one_job(alice, bob):
    now = timezone.now()
    idle = _conversation(alice, 45, now)
    active = _conversation(bob, 5, now)
    assert close_idle_conversations(now=now, idle_minutes=30) == 1
    assert close_idle_conversations(now=now, idle_minutes=30) == 0
    idle.refresh_from_db()
    active.refresh_from_db()
    assert (idle.status, active.status) == ("ended", "open")
    assert OrmQ.objects.count() == 1
