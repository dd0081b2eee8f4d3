"""Issue 18 item 8: bounded cost per request — aliases per node, properties size, nodes,
edges and aliases per import (400 for one bad node, 413 for a document over a count cap,
before any row or key is written), and conversations started per minute."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.tokens import create_token
from chat.models import Conversation
from memory.models import MemoryKey, Node
from tests.memory.factories import make_node

pytestmark = pytest.mark.django_db

IMPORT = "/api/v1/memory/import/"


def api(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {create_token(user=user, device='t').token}")
    return client


def document(nodes=(), edges=()):
    return {"format": "pegasus-graph/1", "nodes": list(nodes), "edges": list(edges), "episodes": []}


def node(i, **extra):
    return {"id": f"n{i}", "kind": "PERSON", "name": f"Person {i}", **extra}


def assert_nothing_written(user):
    assert not Node.objects.for_user(user).exists()
    assert not MemoryKey.objects.for_user(user).exists()


def test_the_probes_20000_aliases_are_refused_before_the_lock(alice):
    """One node with 20 000 aliases (340 kB) held the user's lock for 78 s."""
    aliases = [f"alias number {i}" for i in range(20_000)]
    response = api(alice).post(IMPORT, document([node(1, aliases=aliases)]), format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert "nodes[0]" in error["detail"] and "at most 100" in error["detail"]
    assert_nothing_written(alice)


def test_aliases_and_properties_per_node_are_capped(alice, settings):
    settings.GRAPH_MAX_ALIASES_PER_NODE = 3
    settings.GRAPH_MAX_PROPERTIES_BYTES = 100
    client = api(alice)
    ok = client.post(
        IMPORT,
        document([node(1, aliases=["a", "b", "c"], properties={"job": "x" * 50})]),
        format="json",
    )
    assert ok.status_code == 201, ok.json()
    too_many = client.post(IMPORT, document([node(2, aliases=["a", "b", "c", "d"])]), format="json")
    assert too_many.status_code == 400 and "aliases" in too_many.json()["error"]["detail"]
    too_big = client.post(IMPORT, document([node(3, properties={"job": "x" * 200})]), format="json")
    assert too_big.status_code == 400 and "properties" in too_big.json()["error"]["detail"]
    assert Node.objects.for_user(alice).count() == 1


@pytest.mark.parametrize(
    ("setting", "doc", "word"),
    [
        ("GRAPH_IMPORT_MAX_NODES", document([node(i) for i in range(6)]), '"nodes" has 6'),
        (
            "GRAPH_IMPORT_MAX_EDGES",
            document(
                [node(1), node(2)],
                [
                    {
                        "id": f"e{i}",
                        "source": "n1",
                        "relation": f"KNOWS_{i}",
                        "target": "n2",
                        "last_touched_at": "2026-01-01T00:00:00+00:00",
                    }
                    for i in range(6)
                ],
            ),
            '"edges" has 6',
        ),
        (
            "GRAPH_IMPORT_MAX_ALIASES",
            document([node(i, aliases=["x", "y"]) for i in range(3)]),
            "6 aliases",
        ),
    ],
)
def test_a_document_over_a_count_cap_is_a_413(alice, settings, setting, doc, word):
    setattr(settings, setting, 5)
    response = api(alice).post(IMPORT, doc, format="json")
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "payload_too_large" and word in error["detail"]
    assert "split the file" in error["detail"]
    assert_nothing_written(alice)


def test_adding_an_alias_past_the_cap_is_a_400(alice, bob, settings):
    settings.GRAPH_MAX_ALIASES_PER_NODE = 2
    person = make_node(alice, "Joshua", aliases=["Josh", "J"])
    client = api(alice)
    response = client.patch(
        f"/api/v1/memory/nodes/{person.pk}/", {"add_alias": "Joshy"}, format="json"
    )
    assert response.status_code == 400
    assert "at most 2 aliases" in response.json()["error"]["fields"]["add_alias"][0]
    # Bob cannot reach alice's node at all.
    assert (
        api(bob)
        .patch(f"/api/v1/memory/nodes/{person.pk}/", {"add_alias": "x"}, format="json")
        .status_code
        == 404
    )


def test_conversations_per_minute_are_capped_per_user(alice, bob, settings):
    settings.CHAT_CONVERSATIONS_PER_MINUTE = 3
    client = api(alice)
    for _ in range(3):
        assert client.post("/api/v1/conversations/", {}, format="json").status_code == 201
    refused = client.post("/api/v1/conversations/", {}, format="json")
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "throttled"
    assert 1 <= int(refused["Retry-After"]) <= 60
    # The website shares the limit.
    browser = Client()
    browser.force_login(alice)
    page = browser.post("/chat/new/", follow=True)
    assert "at most 3 conversations a minute" in page.content.decode()
    assert Conversation.objects.for_user(alice).count() == 3
    # Bob, the outsider, is not limited by alice's conversations.
    assert api(bob).post("/api/v1/conversations/", {}, format="json").status_code == 201


def test_conversations_older_than_a_minute_do_not_count(alice, settings):
    settings.CHAT_CONVERSATIONS_PER_MINUTE = 2
    long_ago = timezone.now() - timedelta(minutes=2)
    for _ in range(5):
        Conversation.objects.create(user=alice, started_at=long_ago)
    assert api(alice).post("/api/v1/conversations/", {}, format="json").status_code == 201
