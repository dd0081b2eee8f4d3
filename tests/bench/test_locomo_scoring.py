"""The LoCoMo format, the scoring rules and the BM25 baseline (bench; no database)."""

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench import locomo
from bench.bm25 import BM25, tokens

SAMPLE = Path(__file__).resolve().parents[2] / "bench" / "fixtures" / "locomo_sample.json"


def turn(dia_id: str, text: str, speaker: str = "Ana") -> locomo.Turn:
    return locomo.Turn(dia_id, speaker, text, int(dia_id[1:].split(":")[0]))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("10:37 am on 27 May, 2023", datetime(2023, 5, 27, 10, 37, tzinfo=UTC)),
        ("12:05 am on 1 January, 2024", datetime(2024, 1, 1, 0, 5, tzinfo=UTC)),
        ("12:30 pm on 3 Sept 2023", datetime(2023, 9, 3, 12, 30, tzinfo=UTC)),
        ("7:02 P.M. on 9 jun, 2023", datetime(2023, 6, 9, 19, 2, tzinfo=UTC)),
    ],
)
def test_session_dates_parse_to_aware_utc(text, expected):
    assert locomo.parse_session_date(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "8 May 2023",
        "13:56 pm on 8 May, 2023",
        "1:56 pm on 8 Maybe, 2023",
        "1:56 pm on 31 June, 2023",
    ],
)
def test_unreadable_dates_are_refused(text):
    with pytest.raises(locomo.LocomoFormatError):
        locomo.parse_session_date(text)


def test_malformed_and_unknown_evidence_ids_are_skipped_and_counted():
    known = {"D1:3", "D2:1", "D8:6", "D9:17"}

    valid, skipped = locomo.parse_evidence(
        ["D1:3", "D2-1", "D30:05", "D8:6; D9:17", "D1:3", 7, "d2:1", "D:1:3"], known
    )

    assert valid == ["D1:3", "D8:6", "D9:17"]  # a repeat is listed once
    assert skipped == ["D2-1", "D30:05", "7", "d2:1", "D:1:3"]


def test_the_sample_loads_with_its_sessions_dates_and_skips():
    samples = locomo.load_file(SAMPLE)

    assert [s.sample_id for s in samples] == ["pegasus-sample-1", "pegasus-sample-2"]
    first = samples[0]
    assert [s.number for s in first.sessions] == [1, 2, 3, 4]
    assert first.sessions[0].date == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert all(8 <= len(s.turns) <= 15 for sample in samples for s in sample.sessions)
    assert {t.speaker for t in first.turns} == {"Priya", "Tom"}
    scored = [q for s in samples for q in s.questions if q.scored]
    assert {q.category for q in scored} == {1, 2, 3, 4}
    assert sum(1 for s in samples for q in s.questions if q.category == 5) == 4
    skipped = [part for s in samples for q in s.questions for part in q.skipped]
    assert skipped == ["D2-8", "D4:2"]  # malformed; names no turn of sample 2
    multi_hop = [q for q in scored if q.category == 1]
    assert all(len({e.split(":")[0] for e in q.evidence}) > 1 for q in multi_hop)


def test_sessions_are_counted_from_their_keys_not_assumed_contiguous():
    data = [
        {
            "conversation": {
                "speaker_a": "A",
                "speaker_b": "B",
                "session_2": [{"speaker": "A", "dia_id": "D2:1", "text": "hi"}],
                "session_2_date_time": "1:00 pm on 2 May, 2023",
                "session_10": [{"speaker": "B", "dia_id": "D10:1", "text": "yo"}],
                "session_10_date_time": "1:00 pm on 9 May, 2023",
            },
            "qa": [],
        }
    ]

    (sample,) = locomo.load_samples(data)

    assert [s.number for s in sample.sessions] == [2, 10]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"conversation": {}}, "a JSON list"),
        ([{"qa": []}], "conversation"),
        (
            [{"conversation": {"session_1": "x", "session_1_date_time": "1:00 pm on 2 May, 2023"}}],
            "not a list",
        ),
        (
            [
                {
                    "conversation": {
                        "session_1": [{"speaker": "A", "text": "t"}],
                        "session_1_date_time": "1:00 pm on 2 May, 2023",
                    }
                }
            ],
            "dia_id",
        ),
        (
            [
                {
                    "conversation": {
                        "session_1": [],
                        "session_1_date_time": "1:00 pm on 2 May, 2023",
                    },
                    "qa": [{"question": "q", "category": 9}],
                }
            ],
            "category",
        ),
    ],
)
def test_shapes_that_are_not_locomo_are_refused_with_where(data, message):
    with pytest.raises(locomo.LocomoFormatError, match=message):
        locomo.load_samples(data)


def test_evidence_recall_of_a_known_context():
    turns = [
        turn("D1:1", "I adopted a beagle named Biscuit."),
        turn("D1:2", "My sister lives in Toronto."),
        turn("D2:1", "Yes."),
    ]
    # One snippet cut from D1:1 (its source is known); D1:2 is covered because its whole text
    # occurs in an injected snippet; D2:1 is nowhere.
    injected = [
        ("D1:1", "I adopted a beagle"),
        (None, "she said: My sister lives in   Toronto. Then left"),
    ]

    covered = locomo.covered_turns(injected, turns)

    assert covered == {"D1:1", "D1:2"}
    assert locomo.evidence_recall(["D1:1", "D1:2", "D2:1"], covered) == pytest.approx(2 / 3)
    assert locomo.evidence_recall(["D2:1"], covered) == 0.0
    assert locomo.evidence_recall(["D1:2"], covered) == 1.0


def test_tokens_are_words_times_1_3():
    assert locomo.count_tokens("") == 0.0
    assert locomo.count_tokens("one two  three\nfour") == pytest.approx(5.2)
    rendered = locomo.render_turns(
        [turn("D1:1", "Hello   there", "Ana"), turn("D1:2", "Hi", "Ben")]
    )
    assert rendered == "Ana: Hello there\nBen: Hi"


def test_match_k_picks_the_k_whose_mean_tokens_is_closest():
    # Cumulative tokens of the top-k turns for two questions.
    rows = [[10.0, 20.0, 30.0, 40.0], [20.0, 40.0, 60.0]]
    assert locomo.match_k(rows, 30.0) == 2  # means: 15, 30, 45, 50
    assert locomo.match_k(rows, 48.0) == 4  # 45 vs 50: 50 is 2 away, 45 is 3
    assert locomo.match_k(rows, 0.0) == 1
    assert locomo.match_k(rows, 47.5) == 4  # a tie goes to the larger k


def test_the_report_scores_every_system_on_known_rankings():
    sample = locomo.Sample(
        "s",
        "Ana",
        "Ben",
        (
            locomo.Session(
                1,
                datetime(2023, 5, 8, tzinfo=UTC),
                tuple(turn(f"D1:{i}", f"word{i} " * 3) for i in range(1, 13)),
            ),
        ),
        (),
    )
    question = locomo.Question("q", "a", 1, ("D1:2", "D1:11"))
    order = [f"D1:{i}" for i in range(1, 13)]
    asked = locomo.Asked(
        "s",
        question,
        {"D1:2"},
        pegasus_tokens=15.6,
        pegasus_ms=4.0,
        rankings={"bm25": order, "dense": order[::-1]},
        ranking_ms={"bm25": 0.1, "dense": 2.0},
        full_tokens=62.4,
    )

    result = locomo.report([asked], [sample], skipped_evidence=3)

    systems = result["systems"]
    assert systems["pegasus"] == {"recall": 0.5, "tokens": 15.6, "p50_ms": 4.0, "p95_ms": 4.0}
    # Each turn renders as "Ana: wordN wordN wordN" = 4 words = 5.2 tokens.
    assert systems["bm25@5"]["recall"] == 0.5 and systems["bm25@5"]["tokens"] == 26.0
    assert systems["bm25@10"]["recall"] == 0.5
    assert systems["dense@5"]["recall"] == 0.5  # D1:11 is 2nd from the end
    assert systems["dense@10"]["recall"] == 0.5 and systems["dense@10"]["tokens"] == 52.0
    assert systems["bm25@match"]["tokens"] == 15.6  # k = 3
    assert systems["full_context"] == {"tokens": 62.4}
    assert list(result["by_category"]) == ["1"]
    assert (result["questions"], result["skipped_evidence"]) == (1, 3)


def test_bm25_ranks_the_document_with_the_rare_query_term_first():
    corpus = [
        "the cat sat on the mat",
        "the dog chased the cat",
        "a beagle named biscuit",
        "cats and dogs and cats",
        "nothing to see here",
    ]
    index = BM25([tokens(text) for text in corpus])

    assert index.top(tokens("biscuit the beagle"), 2)[0] == 2
    scores = index.scores(tokens("cat"))
    assert scores[4] == 0.0 and scores[2] == 0.0
    # Same term frequency, shorter document scores higher (length normalisation, b = 0.75).
    assert scores[0] > 0 and scores[1] > 0
    assert index.scores(["unknown"]) == [0.0] * 5
    # Repeating a query term does not count it twice.
    assert index.scores(["cat", "cat"]) == scores
    assert index.top(tokens("dog"), 10) == [1, 0, 2, 3, 4]  # ties keep corpus order


def test_the_sample_file_is_valid_json_list():
    assert isinstance(json.loads(SAMPLE.read_text()), list)
