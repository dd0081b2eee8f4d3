"""The offline reply reads as sentences, not as the recalled panel (issue 19, item 4)."""

import pytest

from chat.offline import compose

RECORD = {
    "memory_lines": [
        "Maya -[HAS_SISTER]-> Kate",
        "Kate -[MOVED_TO]-> Lisbon (2026-11)",
        "Maya -[WORKS_AT]-> Deloitte (2023-05-07)",
        "Kate -[HAS_BOSS]-> Joshua",
    ],
    "context_snippets": [
        {"node": "Kate", "edge": 3, "text": "My sister Kate moved to Lisbon last month."},
        {
            "node": "you, 1 December 2026",
            "edge": None,
            "text": "Kate loves the tiles there",
            "message": 4,
        },
    ],
    "fired": [{"name": "Kate"}, {"name": "Lisbon"}, {"name": "Deloitte"}, {"name": "Tom"}],
}


def test_memory_lines_become_sentences_about_you():
    reply = compose(RECORD, message="How is Kate doing?", self_names=["Maya"])
    assert reply.startswith("*Offline mode*")
    assert "Kate is your sister." in reply
    assert "Kate moved to Lisbon in November 2026." in reply
    assert "You work at Deloitte (as of 7 May 2023)." in reply
    assert "Joshua is Kate’s boss." in reply
    assert "On 1 December 2026 you said “Kate loves the tiles there”." in reply


def test_reply_never_dumps_the_panel():
    reply = compose(RECORD, message="How is Kate doing?", self_names=["Maya"])
    assert "-[" not in reply and "]->" not in reply
    for line in RECORD["memory_lines"]:
        assert line not in reply
    assert "(2026-11)" not in reply and "2023-05-07" not in reply


def test_says_what_it_does_not_know():
    reply = compose(RECORD, message="Did Kate meet Priya and Tom?", self_names=["Maya"])
    assert "I don't know anything about Priya yet." in reply
    assert "I know of Tom, but nothing more." in reply
    assert "Kate" not in reply.split("I don't know anything about")[1]


def test_nothing_recalled_says_so_and_names_the_unknown():
    reply = compose({}, message="Tell me about my manager Priya")
    assert reply.startswith("*Offline mode*")
    assert "nothing I remember seems related" in reply
    assert "I don't know anything about Priya yet." in reply


@pytest.mark.parametrize(
    "line, sentence",
    [
        ("Maya -[LIVES_IN]-> Porto", "You live in Porto."),
        ("Tom -[LIVES_IN]-> Porto", "Tom lives in Porto."),
        ("Maya -[STUDIES_AT]-> MIT", "You study at MIT."),
        ("Tom -[VISIT]-> Rome (2024)", "Tom visits Rome (as of 2024)."),
        (
            "Tom -[TRAVELLED_TO]-> Rome (2024-03-01–2024-03-09)",
            "Tom travelled to Rome between 1 March 2024 and 9 March 2024.",
        ),
        ("Tom -[HAS_FRIEND]-> Maya", "You are Tom’s friend."),
        ("Odd line without arrows", None),
    ],
)
def test_line_shapes_parse_tolerantly(line, sentence):
    reply = compose({"memory_lines": [line]}, self_names=["Maya"])
    if sentence is None:
        assert "nothing I remember seems related" in reply
    else:
        assert sentence in reply
