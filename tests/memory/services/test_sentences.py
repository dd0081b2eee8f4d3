"""The sentence store (SPEC §4 Sentence, §5.7): what is indexed, idempotence, owner isolation,
the exact and HNSW vector paths, cascades, the extraction job's hook and the backfill."""

from __future__ import annotations

import importlib
import math
from datetime import timedelta

import pytest
from django.apps import apps as global_apps
from django.db import connection

from chat.models import Conversation, ConversationStatus, Message, Role
from memory import embedding
from memory.core.passages import Forgotten, forgotten_from_corrections, message_sentences
from memory.models import Correction, CorrectionAction, Sentence
from memory.services import sentences
from memory.services.jobs import extract_episode, retry_extraction, schedule_extraction
from memory.services.read import sentences as sentence_search
from tests.memory.factories import T0
from tests.memory.sentence_factories import ended_conversation

pytestmark = pytest.mark.django_db


def texts(user) -> list[str]:
    return list(
        Sentence.objects.for_user(user)
        .order_by("message_id", "position")
        .values_list("text", flat=True)
    )


def find(user, message, **kwargs):
    vector = embedding.embed([message])[0]
    return sentence_search.search(
        user=user, text=message, vector=vector, limit=kwargs.pop("limit", 5), **kwargs
    )


# --- pure rules -------------------------------------------------------------------------------


def test_message_sentences_keep_user_turns_and_model_replies_but_not_offline_replies():
    rows = message_sentences(
        [
            (1, "user", "", False, "I adopted a beagle. Ok!", T0),
            (2, "assistant", "", False, "You could read Dune next. It is long.", T0),
            (3, "assistant", "", True, "Maya -[HAS_SISTER]-> Kate", T0),
            (4, "user", "  Priya  Shah ", False, "My garden is full of tomatoes.", T0),
        ]
    )
    assert [(r[0], r[1], r[2], r[4], r[5]) for r in rows] == [
        (1, "", "user", 0, "I adopted a beagle."),  # "Ok!" has no content word
        (2, "assistant", "assistant", 0, "You could read Dune next."),
        (2, "assistant", "assistant", 1, "It is long."),
        (4, "Priya Shah", "user", 0, "My garden is full of tomatoes."),
    ]


def test_forgotten_names_match_whole_words_case_insensitively_and_snippets_either_way():
    forgotten = forgotten_from_corrections(
        [
            ("forget_node", {"name": "Al", "aliases": ["Big  Al"]}),
            ("forget_edge", {"snippet": "my  boss is strict"}),
            ("rename", {"name": "Kate"}),
            ("forget_edge", {"snippet": None}),
        ]
    )
    assert forgotten.matches("I saw al yesterday.") and forgotten.matches("Al's car broke.")
    assert forgotten.matches("big al called")
    assert not forgotten.matches("Alice called.") and not forgotten.matches("Kate called.")
    assert forgotten.matches("Honestly, My boss is strict.")  # contains the snippet
    assert forgotten.matches("my boss")  # is part of the snippet
    assert not Forgotten().matches("anything")


def test_forgotten_digests_match_the_same_sentence_and_whole_word_names_only():
    import hashlib

    from memory.core.passages import fold_text, name_form

    def digest(text):
        return hashlib.sha256(text.encode()).hexdigest()

    forgotten = Forgotten(
        sentence_digests=frozenset({digest(fold_text("I  failed my test."))}),
        name_digests=frozenset({digest(name_form("Big Al"))}),
        name_words=2,
        digest=digest,
    )
    assert forgotten.matches("i failed my TEST.")
    assert not forgotten.matches("I failed my test again.")
    assert forgotten.matches("Then BIG AL's van broke down.")
    assert not forgotten.matches("Big Alice came.") and not forgotten.matches("Al came.")


# --- indexing ---------------------------------------------------------------------------------


def test_indexing_twice_replaces_the_rows_instead_of_duplicating_them(alice):
    conversation, _ = ended_conversation(alice, ["I adopted a beagle named Biscuit. He is two."])
    first = texts(alice)

    assert sentences.index_conversation(user=alice, conversation=conversation, now=T0) == 2
    assert texts(alice) == first == ["I adopted a beagle named Biscuit.", "He is two."]
    row = Sentence.objects.for_user(alice).get(position=0)
    assert (row.speaker, row.role, row.said_at, row.conversation_id) == (
        "",
        "user",
        T0,
        conversation.pk,
    )


def test_model_replies_are_the_assistants_sentences_and_offline_replies_are_not_stored(alice):
    ended_conversation(
        alice,
        [
            "Can you suggest a book for my trip?",
            (Role.ASSISTANT, "Try Piranesi by Susanna Clarke."),
            (Role.ASSISTANT, "Recalled: Maya -[HAS_SISTER]-> Kate", "", True),
        ],
    )

    stored = list(Sentence.objects.for_user(alice).order_by("id").values_list("speaker", "text"))
    assert stored == [
        ("", "Can you suggest a book for my trip?"),
        ("assistant", "Try Piranesi by Susanna Clarke."),
    ]
    hit = find(alice, "what was that book you suggested?")[0]
    assert (hit.speaker, hit.role) == ("assistant", "assistant") or hit.role == "user"
    assert "Piranesi" in " ".join(h.text for h in find(alice, "Piranesi book"))


def test_open_incognito_and_other_users_conversations_get_no_sentences(alice, bob):
    ended_conversation(alice, ["My secret recipe uses saffron and cardamom."], incognito=True)
    open_one = Conversation.objects.create(user=alice, started_at=T0)
    Message.objects.create(
        user=alice,
        conversation=open_one,
        role=Role.USER,
        created_at=T0,
        text="The open conversation mentions saffron too.",
    )
    bobs, _ = ended_conversation(bob, ["Bob likes saffron rice."], index=False)

    assert sentences.index_conversation(user=alice, conversation=open_one, now=T0) == 0
    assert sentences.index_conversation(user=alice, conversation=bobs, now=T0) == 0
    assert texts(alice) == [] and texts(bob) == []


def test_a_conversation_made_incognito_loses_its_rows_when_indexed_again(alice):
    conversation, _ = ended_conversation(alice, ["We planted three apple trees."])
    Conversation.objects.filter(pk=conversation.pk).update(incognito=True)

    sentences.index_conversation(user=alice, conversation=conversation, now=T0)

    assert texts(alice) == []


def test_indexing_leaves_out_what_the_user_already_forgot(alice):
    Correction.objects.create(
        user=alice,
        action=CorrectionAction.FORGET_NODE,
        target_type="node",
        target_id=1,
        created_at=T0,
        before={"name": "Priya", "aliases": ["Pri"]},
    )
    Correction.objects.create(
        user=alice,
        action=CorrectionAction.FORGET_EDGE,
        target_type="edge",
        target_id=2,
        created_at=T0,
        before={"snippet": "I failed my driving test"},
    )
    ended_conversation(
        alice,
        [
            "Pri is my manager. Honestly, I failed my driving test again.",
            "The weather in Lisbon was lovely.",
        ],
    )

    assert texts(alice) == ["The weather in Lisbon was lovely."]


# --- deletion ---------------------------------------------------------------------------------


def test_deleting_a_message_or_a_conversation_deletes_its_sentences(alice):
    conversation, messages = ended_conversation(
        alice, ["The kayak trip starts in Porto.", "We rent a van for the kayak."]
    )
    other, _ = ended_conversation(alice, ["My violin lesson is on Friday."])

    messages[0].delete()
    assert texts(alice) == ["We rent a van for the kayak.", "My violin lesson is on Friday."]
    conversation.delete()
    assert texts(alice) == ["My violin lesson is on Friday."]
    other.delete()
    assert not Sentence.objects.exists()


# --- searching --------------------------------------------------------------------------------


def test_search_fuses_full_text_and_vectors_and_reports_both_ranks(alice):
    ended_conversation(
        alice,
        [
            "My sister Kate moved to Lisbon last spring.",
            "I bought new running shoes for the marathon.",
            "The cat knocked a glass off the table.",
        ],
    )

    hits = find(alice, "Where did Kate move to?")

    best = hits[0]
    assert best.text == "My sister Kate moved to Lisbon last spring."
    assert best.lexical_rank == 1 and best.dense_rank == 1
    assert best.score == pytest.approx(2 / (sentence_search.RRF_K + 1))
    assert best.lexical > 0 and 0 < best.similarity <= 1
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    # A sentence only the vector side found has no full-text rank.
    assert any(h.lexical_rank is None and h.dense_rank is not None for h in hits)


def test_full_text_matches_any_word_of_the_question_with_stemming(alice):
    ended_conversation(alice, ["We were hiking near Sintra with the dogs."])

    hit = find(alice, "Which trails did I hike and where?")[0]

    assert hit.text == "We were hiking near Sintra with the dogs." and hit.lexical_rank == 1


def test_search_leaves_out_the_excluded_conversation_and_short_sentences(alice):
    current, _ = ended_conversation(alice, ["The violin teacher cancelled the violin lesson."])
    ended_conversation(alice, ["Violin.", "I practise the violin scales daily at home."])

    got = [h.text for h in find(alice, "violin", exclude_conversation=current.pk, min_terms=2)]

    assert got == ["I practise the violin scales daily at home."]


def test_full_text_scores_are_okapi_bm25_over_all_the_users_sentences(alice, bob):
    """Each word's idf counts every sentence of the user holding it — the excluded
    conversation's and the too-short ones too — while only the rest are ranked."""
    current, _ = ended_conversation(alice, ["The violin teacher praised my violin bow."])
    ended_conversation(
        alice,
        [
            "Violin.",
            "I practise violin scales daily.",
            "Lisbon has steep streets and yellow trams everywhere.",
            "My violin lessons in Lisbon start in May.",
        ],
    )
    ended_conversation(bob, ["violin violin violin"] * 4)  # never counted for alice

    hits = find(alice, "violin Lisbon", exclude_conversation=current.pk, min_terms=2, limit=10)

    rows = list(Sentence.objects.for_user(alice).values_list("text", "terms"))
    n, avgdl = len(rows), max(sum(t for _, t in rows) / len(rows), 1)
    df = {w: sum(w in text.lower() for text, _ in rows) for w in ("violin", "lisbon")}
    assert df == {"violin": 4, "lisbon": 2}
    idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}
    k1, b = sentence_search.BM25_K1, sentence_search.BM25_B
    terms = dict(rows)

    def bm25(text):
        norm = k1 * (1 - b + b * terms[text] / avgdl)
        return sum(idf[w] * (k1 + 1) / (1 + norm) for w in idf if w in text.lower())

    lexical = {h.text: h.lexical for h in hits if h.lexical is not None}
    assert set(lexical) == {
        "I practise violin scales daily.",
        "Lisbon has steep streets and yellow trams everywhere.",
        "My violin lessons in Lisbon start in May.",
    }
    for text, score in lexical.items():
        assert score == pytest.approx(bm25(text), rel=1e-9)


def test_bob_with_the_same_words_never_appears_in_alices_search(alice, bob):
    ended_conversation(bob, ["My manager Priya yelled at me about the budget."] * 3)
    ended_conversation(alice, ["The bakery on my street sells sourdough."])

    hits = find(alice, "My manager Priya yelled at me about the budget.", limit=20)

    assert hits and all(h.text == "The bakery on my street sells sourdough." for h in hits)
    assert not sentence_search.search(
        user=alice,
        text="Priya",
        vector=embedding.embed(["x"])[0],
        limit=5,
        exclude_conversation=hits[0].conversation_id,
    )


def test_the_hnsw_path_finds_the_same_best_sentences_as_the_exact_scan(alice, bob, settings):
    topics = [
        "beagle puppy",
        "sourdough bread",
        "violin lesson",
        "marathon training",
        "tax return",
        "apple orchard",
        "kayak trip",
        "chess club",
    ]
    ended_conversation(alice, [f"Today I thought a lot about my {t}." for t in topics])
    # Bob's identical rows crowd the shared index: the HNSW scan must skip them all.
    ended_conversation(bob, [f"Today I thought a lot about my {t}." for t in topics] * 3)

    settings.EXACT_SCAN_MAX_KEYS = 20_000
    exact = [(h.id, h.dense_rank) for h in find(alice, "my violin lesson", limit=3)]
    # On a table this small the planner would rather sort the user's rows (any B-tree
    # leading with user_id, e.g. (user_id, terms)): take that choice away for this
    # test's transaction, as a large table does.
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        constraints = connection.introspection.get_constraints(cursor, Sentence._meta.db_table)
        for name, info in constraints.items():
            if info["index"] and info["columns"][:1] == ["user_id"]:
                cursor.execute(f'DROP INDEX "{name}"')
    settings.EXACT_SCAN_MAX_KEYS = 2
    before = _index_scans("sentence_vector_hnsw")
    approx = [(h.id, h.dense_rank) for h in find(alice, "my violin lesson", limit=3)]

    assert approx == exact and len(exact) == 3
    assert _index_scans("sentence_vector_hnsw") > before  # the index did serve it
    settings.EXACT_SCAN_MAX_KEYS = 20_000
    before = _index_scans("sentence_vector_hnsw")
    find(alice, "my violin lesson")
    assert _index_scans("sentence_vector_hnsw") == before  # the exact scan never uses it


def _index_scans(index: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_get_xact_numscans(%s::regclass)", [index])
        return int(cursor.fetchone()[0])


def test_search_is_one_round_trip(alice, django_assert_num_queries):
    ended_conversation(alice, ["The kayak trip starts in Porto."])
    vector = embedding.embed(["kayak"])[0]

    with django_assert_num_queries(1):
        sentence_search.search(user=alice, text="kayak", vector=vector, limit=5)


# --- the extraction job, reembed, the backfill ------------------------------------------------


def _ended_with_turns(user, turns):
    conversation = Conversation.objects.create(user=user, started_at=T0)
    for i, (role, text) in enumerate(turns):
        Message.objects.create(
            user=user,
            conversation=conversation,
            role=role,
            text=text,
            created_at=T0 + timedelta(seconds=i),
        )
    Conversation.objects.filter(pk=conversation.pk).update(
        status=ConversationStatus.ENDED, ended_at=T0 + timedelta(minutes=5)
    )
    conversation.refresh_from_db()
    return conversation


def test_the_extraction_job_indexes_the_conversation_once_even_when_run_again(alice, settings):
    settings.ANTHROPIC_API_KEY = ""
    conversation = _ended_with_turns(
        alice,
        [
            (Role.USER, "My boss Joshua moved our team to Berlin."),
            (Role.ASSISTANT, "That sounds like a big change for the team."),
        ],
    )
    end = T0 + timedelta(minutes=5)
    episode = schedule_extraction(user=alice, conversation=conversation, now=end, enqueue=False)

    extract_episode(episode_id=episode.pk, now=end)
    first = texts(alice)
    retry_extraction(user=alice, episode=episode, now=end, force=True)
    extract_episode(episode_id=episode.pk, now=end + timedelta(minutes=1))

    assert (
        first
        == texts(alice)
        == [
            "My boss Joshua moved our team to Berlin.",
            "That sounds like a big change for the team.",
        ]
    )


def test_reembed_recomputes_every_sentence_vector_of_one_user(alice, bob):
    ended_conversation(alice, ["The kayak trip starts in Porto."])
    ended_conversation(bob, ["Bob rows a kayak."])
    Sentence.objects.for_user(alice).update(vector=[0.0] * 383 + [1.0])

    assert sentences.reembed_sentences(user_id=alice.pk) == 1

    row = Sentence.objects.for_user(alice).get()
    expected = embedding.embed([row.text])[0]
    assert float(sum(a * b for a, b in zip(row.vector, expected, strict=True))) > 0.999


def cosine_to(row, text: str) -> float:
    expected = embedding.embed([text])[0]
    return float(sum(a * b for a, b in zip(row.vector, expected, strict=True)))


def test_a_named_speakers_sentence_is_embedded_with_the_speaker_and_reembed_keeps_it(alice):
    ended_conversation(
        alice,
        [
            (Role.USER, "I painted a sunrise over the lake.", "Melanie", False),
            (Role.USER, "My own words carry no prefix."),
        ],
    )
    said = "Melanie: I painted a sunrise over the lake."

    melanie = Sentence.objects.for_user(alice).get(speaker="Melanie")
    mine = Sentence.objects.for_user(alice).get(speaker="")
    assert melanie.text == "I painted a sunrise over the lake."
    assert cosine_to(melanie, said) > 0.999 and cosine_to(melanie, melanie.text) < 0.99
    assert cosine_to(mine, "My own words carry no prefix.") > 0.999

    Sentence.objects.for_user(alice).update(vector=[0.0] * 383 + [1.0])
    sentences.reembed_sentences(user_id=alice.pk)

    assert cosine_to(Sentence.objects.for_user(alice).get(speaker="Melanie"), said) > 0.999


def test_the_migration_backfills_ended_conversations_honouring_what_was_forgotten(alice, bob):
    ended_conversation(alice, ["Priya hates the new office.", "We adopted a cat."], index=False)
    ended_conversation(alice, ["A secret about saffron."], incognito=True, index=False)
    ended_conversation(bob, ["Bob bought a red canoe."], index=False)
    already, _ = ended_conversation(bob, ["Bob already indexed this."])
    Sentence.objects.for_user(bob).filter(conversation=already).update(text="kept as is")
    Correction.objects.create(
        user=alice,
        action=CorrectionAction.FORGET_NODE,
        target_type="node",
        target_id=1,
        created_at=T0,
        before={"name": "Priya", "aliases": []},
    )
    migration = importlib.import_module("memory.migrations.0006_sentences")

    migration.backfill(global_apps, None)

    assert texts(alice) == ["We adopted a cat."]
    assert sorted(texts(bob)) == ["Bob bought a red canoe.", "kept as is"]
    assert find(alice, "cat")[0].text == "We adopted a cat."  # vectors and tsvector set


def test_a_job_that_fails_at_commit_leaves_no_sentences_and_its_retry_writes_them_once(
    alice, settings, monkeypatch
):
    import memory.services.jobs as jobs

    settings.ANTHROPIC_API_KEY = ""
    conversation = _ended_with_turns(alice, [(Role.USER, "We moved the piano to the attic.")])
    end = T0 + timedelta(minutes=5)
    episode = schedule_extraction(user=alice, conversation=conversation, now=end, enqueue=False)

    def boom(**kwargs):
        raise RuntimeError("injected crash")

    monkeypatch.setattr(jobs, "commit_batch", boom)
    with pytest.raises(RuntimeError):
        extract_episode(episode_id=episode.pk, now=end)
    assert texts(alice) == []

    monkeypatch.undo()
    extract_episode(episode_id=episode.pk, now=end + timedelta(minutes=6))
    assert texts(alice) == ["We moved the piano to the attic."]
