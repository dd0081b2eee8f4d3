"""The sentence search's vector side ranked in the process from cached vectors
(memory/services/read/sentence_vectors.py): the same list as PostgreSQL's exact scan, never
stale (the graph version covers the sentence store), never another user's rows."""

from __future__ import annotations

import pytest

from memory import embedding
from memory.models import GraphVersion, Sentence
from memory.services.read import sentence_vectors
from memory.services.read import sentences as sentence_search
from tests.memory.sentence_factories import ended_conversation

pytestmark = pytest.mark.django_db

TOPICS = [
    "My sister Kate moved to Lisbon last spring.",
    "I bought new running shoes for the marathon.",
    "The cat knocked a glass off the table.",
    "Our violin teacher retired in June.",
    "We rented a van for the kayak trip to Porto.",
    "Grandma's apple orchard had a great harvest.",
    "I finally filed my tax return yesterday.",
    "Ok.",
]


def version(user) -> int:
    return GraphVersion.objects.get(user=user).version


def search(user, message, *, cached: bool, **kwargs):
    """The search as a Read makes it (``cached``: with the graph version), run twice when
    cached so that the second is served by the process's copy of the vectors."""
    vector = embedding.embed([message])[0]
    limit = kwargs.pop("limit", 8)
    at = version(user) if cached else None
    for _ in range(2 if cached else 1):
        hits = sentence_search.search(
            user=user, text=message, vector=vector, limit=limit, version=at, **kwargs
        )
    return hits


def ranked(hits):
    return [(h.id, h.lexical_rank, h.dense_rank, round(h.score, 9)) for h in hits]


@pytest.fixture(autouse=True)
def empty_cache():
    sentence_vectors.clear_sentence_cache()
    yield
    sentence_vectors.clear_sentence_cache()


def test_the_process_ranks_the_vectors_exactly_as_postgresql_does(alice):
    first, _ = ended_conversation(alice, TOPICS[:4])
    ended_conversation(alice, TOPICS[4:])
    for message, kwargs in [
        ("Where did Kate move to?", {}),
        ("a boat trip in Portugal", {"candidates": 3}),
        ("money and paperwork", {"exclude_conversation": first.pk}),
        ("ok", {"min_terms": 2}),
    ]:
        in_sql = search(alice, message, cached=False, **kwargs)
        in_process = search(alice, message, cached=True, **kwargs)
        assert ranked(in_process) == ranked(in_sql), message
        assert all(h.dense_rank for h in in_process[:3])
    assert sentence_vectors._sets.entries, "the process's copy served the cached searches"


def test_the_copy_is_loaded_at_the_second_search_of_a_version_then_costs_no_query(
    alice, django_assert_num_queries
):
    ended_conversation(alice, TOPICS[:3])
    at, vector = version(alice), embedding.embed(["running shoes"])[0]

    def find():
        return sentence_search.search(
            user=alice, text="running shoes", vector=vector, limit=5, version=at
        )

    with django_assert_num_queries(1):  # first sight of this version: SQL ranks
        cold = find()
    assert not sentence_vectors._sets.entries
    with django_assert_num_queries(2):  # second: the copy is loaded
        assert find() == cold
    assert sentence_vectors._sets.entries
    with django_assert_num_queries(1):
        assert find() == cold


def test_new_and_deleted_sentences_are_seen_at_once(alice):
    conversation, _ = ended_conversation(alice, TOPICS[:3])
    assert "Lisbon" in search(alice, "Lisbon", cached=True)[0].text
    before = version(alice)

    ended_conversation(alice, ["The ferry to Lisbon was cancelled, so we flew."])
    assert version(alice) != before  # the sentence store moves the graph version
    assert any("ferry" in h.text for h in search(alice, "ferry to Lisbon", cached=True))

    conversation.delete()  # its sentences go with it
    hits = search(alice, "Where did Kate move to?", cached=True)
    assert hits and all("Kate" not in h.text for h in hits)
    assert not Sentence.objects.for_user(alice).filter(text__contains="Kate").exists()


def test_a_reembedded_vector_replaces_the_cached_one(alice):
    ended_conversation(alice, TOPICS[:3])
    search(alice, "cats", cached=True)
    row = Sentence.objects.for_user(alice).get(text__startswith="The cat")
    # An update of the vector alone (as reembed writes) moves the version too.
    Sentence.objects.for_user(alice).filter(pk=row.pk).update(
        vector=embedding.embed(["a quiet evening of chess"])[0]
    )
    hits = search(alice, "a quiet evening of chess", cached=True)
    assert hits[0].id == row.pk and hits[0].dense_rank == 1


def test_bob_never_appears_in_alices_cached_search_nor_alice_in_his(alice, bob):
    ended_conversation(alice, ["The bakery on my street sells sourdough."])
    ended_conversation(bob, ["The bakery on my street sells sourdough.", "Priya likes rye."])
    for _ in range(2):  # cold, then warm
        alice_hits = search(alice, "sourdough bakery rye Priya", cached=True)
        bob_hits = search(bob, "sourdough bakery rye Priya", cached=True)
        assert {h.text for h in alice_hits} == {"The bakery on my street sells sourdough."}
        assert {h.id for h in alice_hits}.isdisjoint({h.id for h in bob_hits})
        alice_ids = set(Sentence.objects.for_user(alice).values_list("id", flat=True))
        assert {h.id for h in alice_hits} <= alice_ids


def test_a_user_past_the_exact_threshold_is_not_cached_and_uses_the_index(alice, settings):
    ended_conversation(alice, TOPICS)
    settings.EXACT_SCAN_MAX_KEYS = 3
    hits = search(alice, "Where did Kate move to?", cached=True)
    assert hits[0].text == TOPICS[0]
    entry = next(iter(sentence_vectors._sets.entries.values()))
    assert entry.large and len(entry.ids) == 0
