"""Fixtures for the moderator's console: real graphs, real merges through the services, a
signed-in moderator, and one row of every model the admin registers."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest
from django.contrib.admin.utils import quote
from django.urls import reverse

from chat.models import Conversation, Message
from memory import embedding
from memory.models import Edge, EdgeEpisode, Episode, MergeDecision, Node, NodeEpisode, Snippet
from memory.services import keys
from memory.services.write import commit_batch
from tests.memory.factories import HashEncoder, make_bare_node

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
BILL_BATCH = Path(__file__).resolve().parents[1] / "memory" / "fixtures" / "batches" / "bill.json"
BILL_SAYS = "Had drinks with my friend Bill from Leeds yesterday."


@pytest.fixture(autouse=True)
def stand_in_encoder():
    with embedding.use_encoder(HashEncoder()):
        yield


@pytest.fixture
def mod_client(client, mod):
    client.force_login(mod)
    return client


def change_url(obj) -> str:
    opts = obj._meta
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[quote(obj.pk)])


def review_url(decision, action: str) -> str:
    return reverse("admin:memory_mergedecision_review", args=[decision.pk, action])


# A node row alone (no keys), created at this file's NOW.
make_node = partial(make_bare_node, at=NOW)


def make_edge(user, source, relation, target, *, snippet=None, episode=None, **fields):
    fields.setdefault("last_touched_at", NOW)
    edge = Edge.objects.create(
        user=user, source=source, relation=relation, target=target, created_at=NOW, **fields
    )
    if snippet:
        edge.snippet = Snippet.objects.create(
            user=user,
            edge=edge,
            text=snippet,
            confidence=edge.confidence,
            episode=episode,
            created_at=NOW,
        )
        edge.save(update_fields=["snippet"])
    if episode:
        EdgeEpisode.objects.create(user=user, edge=edge, episode=episode)
    return edge


def build_people(user):
    """William and Billy: one person known twice, with an edge between them (dropped by a
    merge), a duplicate friendship (collapsed) and an edge only Billy has (remapped)."""
    episode = Episode.objects.create(
        user=user, summary="pub", created_at=NOW, started_at=NOW, ended_at=NOW
    )
    me = make_node(user, user.username, is_self=True, confidence=1.0)
    william = make_node(user, "William", aliases=["Will"], properties={"city": "York"})
    billy = make_node(user, "Billy", properties={"job": "baker"}, confidence=0.9)
    acme = make_node(user, "Acme", kind="ORG")
    NodeEpisode.objects.create(user=user, node=billy, episode=episode)
    make_edge(user, me, "HAS_FRIEND", william, snippet="my friend William")
    make_edge(
        user,
        me,
        "HAS_FRIEND",
        billy,
        snippet="my friend Billy",
        episode=episode,
        strength_at_touch=80.0,
    )
    make_edge(user, billy, "WORKS_AT", acme, snippet="Billy works at Acme", episode=episode)
    make_edge(user, billy, "KNOWS", william, snippet="Billy knows William")
    keys.sync_node_keys(user_id=user.pk, nodes=Node.objects.for_user(user))
    keys.sync_relation_keys(user_id=user.pk)
    return {"me": me, "william": william, "billy": billy, "acme": acme, "episode": episode}


@pytest.fixture
def people(alice):
    return build_people(alice)


def build_two_bills(user):
    """Two people both known as Bill; William Smith works at Acme."""
    me = make_node(user, user.username, is_self=True, confidence=1.0)
    smith = make_node(user, "William Smith", aliases=["Bill"], confidence=0.7)
    jones = make_node(user, "Robert Jones", aliases=["Bill"])
    acme = make_node(user, "Acme", kind="ORG")
    make_edge(user, smith, "WORKS_AT", acme, snippet="Bill works at Acme")
    make_edge(user, me, "HAS_COLLEAGUE", smith)
    keys.sync_node_keys(user_id=user.pk, nodes=Node.objects.for_user(user))
    keys.sync_relation_keys(user_id=user.pk)
    return smith, jones


@pytest.fixture
def two_bills(alice):
    return build_two_bills(alice)


def flag_for(user, fake_anthropic) -> MergeDecision:
    """A flagged merge in ``user``'s graph: the LLM is 0.8 sure Bill is William Smith."""
    from django.test import override_settings

    smith, jones = build_two_bills(user)
    fake_anthropic.script([llm_rating(smith, jones, 0.8)])
    with override_settings(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_anthropic.url):
        decision = commit_bill(user)
    assert decision.status == "merged-flagged"
    return decision


def bill_conversation(user):
    """An ended conversation about Bill, with its (pending) episode and the user's turn."""
    conversation = Conversation.objects.create(
        user=user, title="Drinks", status="ended", started_at=NOW, ended_at=NOW
    )
    message = Message.objects.create(
        user=user, conversation=conversation, role="user", text=BILL_SAYS, created_at=NOW
    )
    Message.objects.create(
        user=user,
        conversation=conversation,
        role="assistant",
        text="Sounds fun.",
        created_at=NOW + timedelta(seconds=5),
    )
    episode = Episode.objects.create(
        user=user,
        conversation=conversation,
        created_at=NOW,
        started_at=NOW,
        ended_at=NOW,
        status="done",
    )
    return conversation, message, episode


def commit_bill(user) -> MergeDecision:
    """The Write path on "my friend Bill from Leeds": Bill is an alias of two people."""
    conversation, message, episode = bill_conversation(user)
    batch = json.loads(BILL_BATCH.read_text())
    batch["relations"][0]["message"] = str(message.pk)
    commit_batch(
        user=user,
        batch=batch,
        now=NOW,
        episode=episode.pk,
        messages={str(message.pk): message.text},
        conversation=conversation,
    )
    return MergeDecision.objects.for_user(user).get()


def llm_rating(smith, jones, smith_conf, jones_conf=0.05):
    from tests.fakes.anthropic_server import ToolCall

    return ToolCall(
        "rate_candidates",
        {
            "ratings": [
                {"id": smith.pk, "confidence": smith_conf, "reason": "works at Acme too"},
                {"id": jones.pk, "confidence": jones_conf, "reason": "nothing in common"},
            ],
            "reason": "judged on the neighbourhoods",
        },
    )


@pytest.fixture
def held(alice, two_bills, settings):
    """Offline: Bill is held for a moderator, standing alone as a new node."""
    settings.ANTHROPIC_API_KEY = ""
    decision = commit_bill(alice)
    assert decision.status == "held"
    return decision


@pytest.fixture
def flagged(alice, two_bills, fake_anthropic):
    """The LLM is 0.8 sure Bill is William Smith: merged and flagged for review."""
    smith, jones = two_bills
    fake_anthropic.script([llm_rating(smith, jones, 0.8)])
    decision = commit_bill(alice)
    assert decision.status == "merged-flagged"
    return decision


def populate(user, mod):
    """One of each memory and chat row for ``user``: a graph, a stored merge, a
    conversation with its episode and messages, a correction."""
    from memory.models import Correction
    from memory.services.merge import merge_nodes

    people = build_people(user)
    bill_conversation(user)
    Correction.objects.create(
        user=user,
        action="rename",
        target_type="node",
        target_id=people["acme"].pk,
        before={"name": "ACME"},
        after={"name": "Acme"},
        created_at=NOW,
    )
    merge_nodes(
        user=user,
        keep=people["william"],
        absorb=people["billy"],
        reason="same person",
        by=mod,
        now=NOW,
    )
    return people


@pytest.fixture
def every_model(alice, mod):
    """At least one row of every model the admin registers (the smoke test checks that
    none is missing, so a newly registered model needs a row here)."""
    from allauth.account.models import EmailAddress
    from django.contrib.auth.models import Group
    from django.utils import timezone
    from django_q.models import Schedule, Task
    from django_q.tasks import async_task
    from knox.models import AuthToken

    from ops.models import ModeratorView, WorkerHeartbeat

    people = populate(alice, mod)
    now = timezone.now()
    Group.objects.create(name="moderators")
    Schedule.objects.create(
        name="decay", func="memory.tasks.decay_all", schedule_type=Schedule.DAILY, next_run=now
    )
    for success in (True, False):
        Task.objects.create(
            id=uuid.uuid4().hex,
            name=f"extract-{people['episode'].pk}",
            func="memory.tasks.extract_conversation",
            args=(people["episode"].pk,),
            kwargs={},
            result="ok" if success else "ValueError: boom",
            started=now,
            stopped=now,
            success=success,
        )
    async_task("math.floor", 1.5, task_name="smoke-queued")
    AuthToken.objects.create(user=alice)
    EmailAddress.objects.create(user=alice, email="alice@example.com", verified=True, primary=True)
    WorkerHeartbeat.objects.create(name="pegasus", beat_at=now)
    ModeratorView.objects.create(
        moderator=mod,
        subject=alice,
        model="chat.message",
        object_id="1",
        path="/admin/chat/message/1/change/",
        viewed_at=now,
    )
    return people
