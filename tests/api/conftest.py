"""Fixtures for the REST API: token clients for alice and bob, a small graph of alice's,
offline chat, and throttles that start empty in every test."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts.tokens import create_token
from memory.models import Node
from tests.memory.factories import T0, make_edge, make_episode, make_node


@pytest.fixture(autouse=True)
def fresh_throttles():
    # Throttle counters live in the cache, which outlives a test's database.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def offline(settings):
    settings.ANTHROPIC_API_KEY = ""


def token_client(user, device: str = "test phone") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {create_token(user=user, device=device).token}")
    return client


@pytest.fixture
def alice_api(alice) -> APIClient:
    return token_client(alice)


@pytest.fixture
def bob_api(bob) -> APIClient:
    return token_client(bob)


@pytest.fixture
def anon_api() -> APIClient:
    return APIClient()


class Graph:
    """alice's graph: Trevor (self) → HAS_BOSS → Joshua ("Josh"), Trevor → WORKS_AT → Acme,
    a dormant LIKES edge, and a superseded LIVES_IN edge replaced by a newer one."""

    def __init__(self, user):
        self.episode = make_episode(user, summary="Talked about work")
        self.me = make_node(user, "Trevor", "PERSON", is_self=True, episodes=[self.episode])
        self.boss = make_node(user, "Joshua", "PERSON", aliases=["Josh"], episodes=[self.episode])
        self.acme = make_node(user, "Acme", "ORG")
        self.jazz = make_node(user, "Jazz", "TOPIC")
        self.london = make_node(user, "London", "PLACE")
        self.paris = make_node(user, "Paris", "PLACE")
        self.has_boss = make_edge(
            user,
            self.me,
            "HAS_BOSS",
            self.boss,
            snippet="my boss Joshua is great",
            episodes=[self.episode],
        )
        self.works_at = make_edge(user, self.me, "WORKS_AT", self.acme)
        self.likes = make_edge(user, self.me, "LIKES", self.jazz, dormant=True)
        self.lives_in = make_edge(user, self.me, "LIVES_IN", self.paris, cardinality="one_to_one")
        self.lived_in = make_edge(
            user,
            self.me,
            "LIVES_IN",
            self.london,
            cardinality="one_to_one",
            superseded_by=self.lives_in,
        )

    def node(self, pk) -> Node:
        return Node.objects.get(pk=pk)


@pytest.fixture
def graph(alice) -> Graph:
    return Graph(alice)


__all__ = ["T0", "Graph", "token_client"]
