"""Extraction v2, offline: the general reader on hand-labelled conversations of our own —
expected edges and dates, the sentences that must yield nothing, clean PERSON nodes."""

from datetime import UTC, date, datetime

import pytest

from memory.core.cleaning import clean_batch
from memory.core.dates import occurred_range, resolve_occurred
from memory.extraction.base import Turn
from memory.extraction.offline import OfflineExtractor
from memory.extraction.offline.general import MAX_EDGES
from memory.extraction.offline.lexicon import common_word, plausible_person_name

SAID = datetime(2023, 5, 8, 12, 0, tzinfo=UTC)  # a Monday


def extract(turns):
    """``turns``: (speaker, text) pairs, or texts of the account holder."""
    turns = [
        Turn(f"m{i}", *((t[1], t[0]) if isinstance(t, tuple) else (t, None)))
        for i, t in enumerate(turns, start=1)
    ]
    result = OfflineExtractor().extract(turns=turns, started_at=SAID, ended_at=SAID)
    cleaned = clean_batch(
        result.batch, messages={t.message_id: t.text for t in turns}, known_names={}
    )
    assert cleaned.drops == []  # every snippet is verbatim in the message it cites
    return cleaned.batch


def claims(batch):
    names = {e["ref"]: e["name"] for e in batch["entities"]}
    return {
        (
            names.get(r["source"], r["source"]),
            r["relation"],
            names.get(r["target"], r["target"]),
            r["occurred"],
            r["message"],
        )
        for r in batch["relations"]
    }


DIALOGUE = [
    ("Dana", "Hey Sam! Good to see you!"),
    ("Sam", "Hi Dana! How have you been?"),
    ("Dana", "I went to a pottery class yesterday and I loved it."),
    ("Sam", "So cool you found a class you like."),
    ("Dana", "We adopted a puppy two years ago."),
    ("Dana", "My neighbour Priya Shah invited us to her barbecue. She works at Stripe."),
    ("Sam", "I'm signing up for a marathon in May."),
    ("Sam", "Do you like hiking?"),
    ("Dana", "Thanks so much!"),
    ("Dana", "I didn't finish the book."),
]


def test_a_dialogue_files_what_was_said_with_its_dates():
    batch = extract(DIALOGUE)
    found = claims(batch)

    assert found >= {
        ("Dana", "WENT_TO", "pottery class", "2023-05-07", "m3"),
        ("Dana", "FOUND", "class", "", "m4"),  # "you" is the other speaker
        ("Dana", "ADOPTED", "puppy", "2021", "m5"),  # "we" includes the speaker
        ("Dana", "HAS_NEIGHBOUR", "Priya Shah", "", "m6"),
        ("Priya Shah", "INVITED_TO", "barbecue", "", "m6"),
        ("Priya Shah", "WORK_AT", "Stripe", "", "m6"),  # "she": the one person named
        ("Sam", "SIGN_UP_FOR", "marathon", "2023-05", "m7"),
        ("Dana", "NOT_FINISH", "book", "", "m10"),  # negation kept
    }
    # Greetings, thanks and pure questions file nothing.
    assert not {c for c in found if c[4] in {"m1", "m2", "m8", "m9"}}
    kinds = {e["name"]: e["kind"] for e in batch["entities"]}
    assert kinds["pottery class"] == "EVENT" and kinds["Stripe"] == "ORG"
    assert {e["name"] for e in batch["entities"] if e["kind"] == "PERSON"} == {
        "Dana",
        "Sam",
        "Priya Shah",
    }


def test_the_same_thing_said_three_ways_is_one_node():
    batch = extract(
        [
            "My kids love the zoo.",
            "The kids went to the zoo on Saturday.",
            "I took kids to the zoo again.",
        ]
    )
    assert [e["name"] for e in batch["entities"] if e["name"].endswith("kids")] == ["kids"]
    assert [e["name"] for e in batch["entities"] if "zoo" in e["name"]] == ["zoo"]


@pytest.mark.parametrize(
    "text",
    [
        "Hey there!",
        "Thanks, that helps.",
        "What do you think about Lisbon?",
        "Wow!",
        "They work at Google.",
        "You could be a great counselor.",
    ],
)
def test_sentences_that_state_nothing_file_nothing(text):
    assert extract([text])["relations"] == []


def test_at_most_three_edges_per_sentence_and_no_long_fragments():
    batch = extract(
        [
            "I bought apples, pears, plums, cherries, grapes and melons at the "
            "farmers market with my sister and my aunt last Sunday."
        ]
    )
    assert 1 <= len(batch["relations"]) <= MAX_EDGES
    assert all(len(e["name"].split()) <= 6 for e in batch["entities"])


def test_common_words_never_become_people():
    batch = extract(
        [
            ("Mel", "Ya know, Nature is Super! Wanna come? Life is good, y'all."),
            ("Caro", "Brave is a great song by Sara Bareilles."),
        ]
    )
    people = {e["name"] for e in batch["entities"] if e["kind"] == "PERSON"}
    assert people <= {"Mel", "Caro", "Sara Bareilles"}


@pytest.mark.parametrize(
    ("name", "plausible"),
    [
        ("Caroline", True),
        ("Matt Patterson", True),
        ("Priya", True),
        ("Mr. Patterson", True),
        ("Nature", False),
        ("Super", False),
        ("Wanna", False),
        ("Ya", False),
        ("Life", False),
        ("Will", False),
        ("Cucumber", False),
        ("Kickboxing", False),
        ("Summer Sounds", False),
    ],
)
def test_plausible_person_names(name, plausible):
    assert plausible_person_name(name) is plausible


def test_the_suspect_measure_flags_common_words_but_not_given_names():
    assert common_word("Nature") and common_word("Super")
    assert not common_word("Caroline") and not common_word("Matt Patterson")


@pytest.mark.parametrize(
    ("text", "future", "expected"),
    [
        ("I went yesterday", False, "2023-05-07"),
        ("we met last Tues", False, "2023-05-02"),
        ("last week was busy", False, "2023-05-01/2023-05-07"),
        ("last weekend we hiked", False, "2023-05-06/2023-05-07"),
        ("two years ago", False, "2021"),
        ("a few days ago", False, "2023-05-05"),
        ("in May", False, "2023-05"),
        ("in December", False, "2022-12"),
        ("in December", True, "2023-12"),
        ("next month", True, "2023-06"),
        ("last summer", False, "2022-06-01/2022-08-31"),
        ("on Friday", False, "2023-05-05"),
        ("on May 3, 2022", False, "2022-05-03"),
        ("back in 2019", False, "2019"),
        ("I like tea", False, ""),
    ],
)
def test_relative_time_resolves_against_the_conversation_date(text, future, expected):
    assert resolve_occurred(text, date(2023, 5, 8), future=future) == expected


def test_an_occurred_value_covers_its_days():
    assert occurred_range("2023-05") == (date(2023, 5, 1), date(2023, 5, 31))
    assert occurred_range("2021") == (date(2021, 1, 1), date(2021, 12, 31))
    assert occurred_range("2023-05-01/2023-05-07") == (date(2023, 5, 1), date(2023, 5, 7))
    assert occurred_range("") is None and occurred_range("May") is None


def test_the_same_input_gives_the_same_batch():
    assert extract(DIALOGUE) == extract(DIALOGUE)
