"""MemoryKeys follow node names, aliases and relation labels (SPEC §4, §5.1)."""

from datetime import UTC, datetime
from functools import partial

import numpy as np
import pytest

from memory import embedding
from memory.models import Edge, MemoryKey
from memory.services.keys import reembed, relation_phrase, sync_node_keys, sync_relation_keys
from tests.memory.factories import HashEncoder, make_bare_node

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 1, 1, tzinfo=UTC)


class CountingEncoder:
    """The real model, counting the texts it is asked to encode."""

    def __init__(self):
        self.inner = embedding.get_encoder()
        self.name, self.dim = self.inner.name, self.inner.dim
        self.texts: list[str] = []

    def encode(self, texts):
        self.texts += texts
        return self.inner.encode(texts)


# A node row alone: these tests sync its keys themselves.
make_node = partial(make_bare_node, at=NOW)


def node_keys(node):
    return sorted(
        MemoryKey.objects.for_user(node.user_id).filter(node=node).values_list("text", flat=True)
    )


def test_a_node_gets_a_key_for_its_name_and_each_alias(alice):
    trevor = make_node(alice, "Trevor", aliases=["Trev", "T. Walsh", "Trev"])
    assert sync_node_keys(user_id=alice.pk, nodes=[trevor]) == 3
    assert node_keys(trevor) == ["T. Walsh", "Trev", "Trevor"]
    key = MemoryKey.objects.get(node=trevor, text="Trev")
    assert np.allclose(np.asarray(key.embedding), embedding.embed(["Trev"])[0], atol=1e-6)
    assert key.model == embedding.model_name()


def test_keys_follow_a_rename_and_alias_changes(alice):
    trevor = make_node(alice, "Trevor", aliases=["Trev"])
    sync_node_keys(user_id=alice.pk, nodes=[trevor])
    kept = MemoryKey.objects.get(node=trevor, text="Trev").pk
    trevor.name, trevor.aliases = "Trevor Walsh", ["Trev", "Walshy"]
    trevor.save()
    assert sync_node_keys(user_id=alice.pk, nodes=[trevor]) == 2
    assert node_keys(trevor) == ["Trev", "Trevor Walsh", "Walshy"]
    assert MemoryKey.objects.get(node=trevor, text="Trev").pk == kept  # unchanged form kept
    trevor.aliases = []
    trevor.save()
    sync_node_keys(user_id=alice.pk, nodes=[trevor])
    assert node_keys(trevor) == ["Trevor Walsh"]


def test_syncing_unchanged_nodes_embeds_nothing(alice):
    nodes = [make_node(alice, "Trevor", aliases=["Trev"]), make_node(alice, "Acme", kind="ORG")]
    sync_node_keys(user_id=alice.pk, nodes=nodes)
    with embedding.use_encoder(CountingEncoder()) as counting:
        assert sync_node_keys(user_id=alice.pk, nodes=nodes) == 0
    assert counting.texts == []


def test_relation_labels_become_phrases(alice):
    assert relation_phrase("HAS_PARTNER") == "has partner"
    assert relation_phrase("IS_BROTHER_OF") == "is brother of"
    trevor, acme = make_node(alice, "Trevor"), make_node(alice, "Acme", kind="ORG")
    Edge.objects.create(
        user=alice,
        source=trevor,
        target=acme,
        relation="WORKS_AT",
        last_touched_at=NOW,
        created_at=NOW,
    )
    assert sync_relation_keys(user_id=alice.pk) == 1
    key = MemoryKey.objects.for_user(alice).get(node=None)
    assert (key.relation, key.text) == ("WORKS_AT", "works at")


def test_relation_keys_follow_the_labels_in_use(alice):
    trevor, acme = make_node(alice, "Trevor"), make_node(alice, "Acme", kind="ORG")
    works = Edge.objects.create(
        user=alice,
        source=trevor,
        target=acme,
        relation="WORKS_AT",
        last_touched_at=NOW,
        created_at=NOW,
    )
    # A label no edge carries is not keyed even when asked for.
    assert sync_relation_keys(user_id=alice.pk, relations=["WORKS_AT", "OWNS"]) == 1
    works.relation = "FOUNDED"
    works.save()
    assert sync_relation_keys(user_id=alice.pk) == 1
    assert list(
        MemoryKey.objects.for_user(alice).filter(node=None).values_list("relation", flat=True)
    ) == ["FOUNDED"]


def test_reembed_recomputes_every_key_with_the_current_model(alice):
    trevor = make_node(alice, "Trevor", aliases=["Trev"])
    sync_node_keys(user_id=alice.pk, nodes=[trevor])
    calls = []
    with embedding.use_encoder(HashEncoder()):
        done = reembed(user_id=alice.pk, batch_size=1, progress=lambda d, t: calls.append((d, t)))
        expected = embedding.embed(["Trev"])[0]
    assert done == 2
    assert calls == [(1, 2), (2, 2)]
    key = MemoryKey.objects.get(node=trevor, text="Trev")
    assert np.allclose(np.asarray(key.embedding), expected, atol=1e-6)
