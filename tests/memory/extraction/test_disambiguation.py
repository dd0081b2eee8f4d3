"""judge_candidates: one forced tool call rating each merge candidate (SPEC §5.6)."""

import pytest

from lib import llm
from memory.core.merge_rules import band_llm_confidence
from memory.extraction.disambiguation import judge_candidates
from tests.fakes.anthropic_server import Error, Reply, ToolCall, prompt_text

# Until tests/conftest.py registers it for the whole suite.
pytest_plugins = ["tests.fakes.conftest_plugin"]

ENTITY = {
    "ref": "a",
    "kind": "PERSON",
    "name": "Josh",
    "aliases": [],
    "properties": {},
    "hint": "Joshua",
}
CONVERSATION = "Josh from the Deloitte office wants the deck by Friday."
CANDIDATES = [
    {
        "id": 12,
        "name": "Joshua",
        "kind": "PERSON",
        "aliases": ["Josh H."],
        "neighbourhood": ["Trevor -[HAS_BOSS]-> Joshua", "Joshua -[WORKS_AT]-> Deloitte"],
    },
    {
        "id": 15,
        "name": "Joshua Reed",
        "kind": "PERSON",
        "aliases": [],
        "neighbourhood": ["Joshua Reed -[LIVES_IN]-> Lisbon"],
    },
]


def rating(*ratings, reason="Josh works at Deloitte like Joshua."):
    return Reply(
        tool_calls=[ToolCall("rate_candidates", {"ratings": list(ratings), "reason": reason})],
        usage=(321, 45),
    )


def judge():
    return judge_candidates(entity=ENTITY, conversation_text=CONVERSATION, candidates=CANDIDATES)


def test_scores_come_back_per_candidate_with_a_reason_and_usage(fake_anthropic):
    fake_anthropic.script(
        [
            rating(
                {"id": 12, "confidence": 0.93, "reason": "same employer"},
                {"id": 15, "confidence": 0.05, "reason": "lives abroad"},
            )
        ]
    )
    scores, reason, usage = judge()
    assert scores == {12: 0.93, 15: 0.05}
    assert "same employer" in reason and "Josh works at Deloitte" in reason
    assert usage == llm.Usage(321, 45)
    assert band_llm_confidence(scores[12]) != band_llm_confidence(scores[15])


def test_the_request_forces_the_tool_and_shows_every_candidates_neighbourhood(
    fake_anthropic,
    settings,
):
    settings.ANTHROPIC_MERGE_MODEL = "claude-merge-test"
    fake_anthropic.script([rating({"id": 12, "confidence": 0.5, "reason": "?"})])
    judge()
    request = fake_anthropic.requests[0]
    assert request["model"] == "claude-merge-test"
    assert request["tool_choice"] == {"type": "tool", "name": "rate_candidates"}
    prompt = prompt_text(request)
    for line in (
        "Trevor -[HAS_BOSS]-> Joshua",
        "Joshua Reed -[LIVES_IN]-> Lisbon",
        "Josh H.",
        CONVERSATION,
        "id 12",
        "id 15",
    ):
        assert line in prompt


def test_a_candidate_left_unrated_counts_as_kept_apart(fake_anthropic):
    fake_anthropic.script([rating({"id": 12, "confidence": 0.95, "reason": "same"})])
    scores, reason, _ = judge()
    assert scores == {12: 0.95, 15: 0.0}
    assert "#15 0.00: not rated" in reason


@pytest.mark.parametrize(
    "reply",
    [
        rating({"id": 12, "confidence": 1.5, "reason": "very sure"}),
        rating({"id": 99, "confidence": 0.9, "reason": "who?"}),
        rating({"id": 12, "confidence": "high", "reason": "words"}),
        rating(
            {"id": 12, "confidence": 0.9, "reason": "a"},
            {"id": 12, "confidence": 0.1, "reason": "b"},
        ),
        Reply(tool_calls=[ToolCall("rate_candidates", {"ratings": []})]),
        Reply(tool_calls=[ToolCall("rate_candidates", raw_json='"not an object"')]),
        Reply(text="I think it is Joshua."),
    ],
    ids=[
        "out-of-range",
        "unknown-id",
        "not-a-number",
        "rated-twice",
        "empty",
        "not-object",
        "no-tool-call",
    ],
)
def test_unusable_answers_raise_llm_error(fake_anthropic, reply):
    fake_anthropic.script([reply])
    with pytest.raises(llm.LLMError) as caught:
        judge()
    assert caught.value.detail and str(caught.value) == llm.LLMError.DEFAULT_MESSAGE


def test_an_api_failure_after_retries_raises_llm_error(fake_anthropic, settings):
    settings.ANTHROPIC_MAX_RETRIES = 1
    fake_anthropic.script([Error(529), Error(529)])
    with pytest.raises(llm.LLMError, match="busy"):
        judge()
    assert len(fake_anthropic.requests) == 2


def test_offline_judging_is_unavailable(settings):
    settings.ANTHROPIC_API_KEY = ""
    with pytest.raises(llm.LLMUnavailable):
        judge()
