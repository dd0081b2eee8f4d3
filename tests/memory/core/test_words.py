"""Content words (SPEC §5.1 step 1)."""

import pytest

from memory.core.words import STOP_WORDS, content_words


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "what/did/my/about/the" are function words; "joshua's" splits into
        # "joshua" + "s" and the second "joshua" is a repeat.
        (
            "What did my boss Joshua say about the Denver trip? Joshua's great!",
            ["boss", "joshua", "say", "denver", "trip", "great"],
        ),
        # Contractions split at the apostrophe; their pieces are stop words.
        ("I'm sure you'll love it, don't you think?", ["sure", "love", "think"]),
        # Single characters go, digits stay.
        ("a b c x 2024 plans", ["2024", "plans"]),
        # Lowercased, accented letters are letters.
        ("Café with ZOË", ["café", "zoë"]),
        ("", []),
        ("the of and very just", []),
    ],
)
def test_content_words_drop_function_words_and_keep_first_seen_order(text, expected):
    assert content_words(text) == expected


def test_underscores_and_punctuation_separate_words():
    # "has" is an auxiliary, so only the three nouns remain.
    assert content_words("has_partner; tennis—golf") == ["partner", "tennis", "golf"]


@pytest.mark.parametrize(
    "word",
    [
        "i",
        "me",
        "my",
        "we",
        "you",
        "the",
        "is",
        "very",
        "just",
        "what",
        "who",
        "when",
        "where",
        "why",
        "how",
        "s",
        "t",
        "ll",
        "re",
        "ve",
        "d",
        "m",
    ],
)
def test_stop_word_list_holds_the_function_words_the_spec_names(word):
    assert word in STOP_WORDS


def test_stop_words_are_lowercase_tokens():
    assert all(w == w.lower() and w.isalnum() for w in STOP_WORDS)
