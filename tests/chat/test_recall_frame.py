"""A turn's recall frame on a graph where one word seeds more nodes than the frame carries:
the most similar seeds and the first crossed edges, with counts of the rest; the Read still
logs every crossed edge for reinforcement."""

from itertools import pairwise

import pytest
from asgiref.sync import sync_to_async

from chat.models import Message
from chat.services import RECORD_LIST_LIMIT
from memory.models import Edge, Node, Traversal
from memory.services.keys import sync_node_keys, sync_relation_keys
from tests.chat.conftest import communicator, receive_turn
from tests.memory.factories import T0

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

FIRST = [
    "Priya",
    "Mateo",
    "Olivia",
    "Kenji",
    "Amara",
    "Lars",
    "Ines",
    "Tomasz",
    "Leila",
    "Dmitri",
    "Sofia",
    "Kwame",
]
LAST = [
    "Okafor",
    "Lindqvist",
    "Haddad",
    "Moreau",
    "Tanaka",
    "Kowalski",
    "Alvarez",
    "Novak",
    "Silva",
    "Murphy",
    "Chen",
]


def a_big_circle_of_friends(user) -> int:
    """~130 people in a chain of KNOWS edges: the word "knows" seeds both ends of each."""
    names = [f"{first} {last}" for first in FIRST for last in LAST][: RECORD_LIST_LIMIT + 30]
    nodes = Node.objects.bulk_create(
        Node(
            user=user,
            kind="PERSON",
            name=name,
            normalised_name=name.lower(),
            created_at=T0,
            updated_at=T0,
        )
        for name in names
    )
    sync_node_keys(user_id=user.pk, nodes=nodes)
    Edge.objects.bulk_create(
        Edge(user=user, source=a, target=b, relation="KNOWS", last_touched_at=T0, created_at=T0)
        for a, b in pairwise(nodes)
    )
    sync_relation_keys(user_id=user.pk)
    return len(nodes)


async def test_a_frame_carries_the_most_similar_seeds_and_counts_the_rest(
    alice, conversation, settings
):
    settings.ANTHROPIC_API_KEY = ""
    settings.MEMORY_READ_STRATEGY = "spec"  # SPEC §5.1: a relation word seeds every edge's ends
    total = await sync_to_async(a_big_circle_of_friends)(alice)
    comm = await communicator(conversation.pk, alice)
    await comm.connect()

    await comm.send_json_to({"type": "message", "text": "who knows whom", "client_id": "a"})
    events = await receive_turn(comm)
    await comm.disconnect()

    record = events[0]["record"]
    assert events[0]["type"] == "recall"
    seeded = len(record["seeds"]) + record["omitted"]["seeds"]
    assert len(record["seeds"]) == RECORD_LIST_LIMIT < seeded <= total
    similarities = [s["similarity"] for s in record["seeds"]]
    assert min(similarities) >= 0.30
    crossed = len(record["crossed_edges"]) + record["omitted"]["crossed_edges"]
    logged = await sync_to_async(Traversal.objects.get)(conversation=conversation)
    assert len(logged.edge_ids) == crossed > RECORD_LIST_LIMIT
    stored = await sync_to_async(Message.objects.get)(role="assistant")
    assert stored.recall["omitted"] == record["omitted"]
