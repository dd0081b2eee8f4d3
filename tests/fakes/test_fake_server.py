"""The fake Messages API, driven by the real anthropic SDK (sync and async)."""

import time

import anthropic
import pytest

from tests.fakes.anthropic_server import Error, FakeAnthropic, Hang, Reply, ToolCall, prompt_text

TOOLS = [
    {
        "name": "lookup",
        "description": "Look a word up.",
        "input_schema": {"type": "object", "properties": {"word": {"type": "string"}}},
    }
]


@pytest.fixture
def fake():
    with FakeAnthropic() as server:
        yield server


def sdk(fake, *, timeout=5.0, max_retries=2):
    return anthropic.Anthropic(
        api_key="k", base_url=fake.url, timeout=timeout, max_retries=max_retries
    )


def ask(client, **extra):
    extra.setdefault("messages", [{"role": "user", "content": "hello"}])
    return client.messages.create(model="claude-test", max_tokens=100, **extra)


def test_streamed_text_arrives_in_the_scripted_chunks_with_usage(fake):
    fake.script([Reply(text=["Joshua ", "again? ", "Tell me."], usage=(42, 7))])
    with (
        sdk(fake) as client,
        client.messages.stream(
            model="claude-test", max_tokens=100, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        chunks = list(stream.text_stream)
        final = stream.get_final_message()
    assert chunks == ["Joshua ", "again? ", "Tell me."]
    assert final.content[0].text == "Joshua again? Tell me."
    assert final.stop_reason == "end_turn"
    assert (final.usage.input_tokens, final.usage.output_tokens) == (42, 7)
    assert fake.requests[0]["stream"] is True


def test_a_plain_string_streams_word_by_word(fake):
    fake.script(["one two three"])
    with (
        sdk(fake) as client,
        client.messages.stream(
            model="claude-test", max_tokens=100, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        assert list(stream.text_stream) == ["one ", "two ", "three"]


def test_tool_use_round_trip_streams_reassembled_input_and_accepts_the_result(fake):
    fake.script(
        [
            ["Let me check.", ToolCall("lookup", {"word": "skin in the game"}, id="t1")],
            "It means having a personal stake.",
        ]
    )
    with sdk(fake) as client:
        with client.messages.stream(
            model="claude-test",
            max_tokens=100,
            tools=TOOLS,
            messages=[{"role": "user", "content": "what is skin in the game?"}],
        ) as stream:
            first = stream.get_final_message()
        assert first.stop_reason == "tool_use"
        use = first.content[1]
        assert (use.type, use.id, use.name, use.input) == (
            "tool_use",
            "t1",
            "lookup",
            {"word": "skin in the game"},
        )
        second = ask(
            client,
            tools=TOOLS,
            messages=[
                {"role": "user", "content": "what is skin in the game?"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Let me check."},
                        {"type": "tool_use", "id": "t1", "name": "lookup", "input": use.input},
                    ],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a stake"}],
                },
            ],
        )
    assert second.content[0].text == "It means having a personal stake."
    assert "a stake" in prompt_text(fake.requests[1])


def test_an_unanswered_tool_use_is_rejected_like_the_real_api(fake):
    fake.script(["never sent"])
    with sdk(fake) as client, pytest.raises(anthropic.BadRequestError, match="tool_result"):
        ask(
            client,
            tools=TOOLS,
            messages=[
                {"role": "user", "content": "hi"},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t9", "name": "lookup", "input": {}}],
                },
                {"role": "user", "content": "and?"},
            ],
        )
    assert fake.pending == 1  # a rejected request takes no scripted response


def test_a_forced_tool_choice_must_name_a_defined_tool(fake):
    with sdk(fake) as client, pytest.raises(anthropic.BadRequestError, match="not defined"):
        ask(client, tools=TOOLS, tool_choice={"type": "tool", "name": "nope"})


def test_the_sdk_retries_an_overloaded_529_and_then_succeeds(fake):
    fake.script([Error(529), "Back again."])
    with sdk(fake) as client:
        reply = ask(client)
    assert reply.content[0].text == "Back again."
    assert len(fake.requests) == 2
    assert [h["x-stainless-retry-count"] for h in fake.headers] == ["0", "1"]


def test_errors_carry_anthropics_error_body(fake):
    fake.script([{"status": 429}])
    with sdk(fake, max_retries=0) as client, pytest.raises(anthropic.RateLimitError) as caught:
        ask(client)
    assert caught.value.body["error"]["type"] == "rate_limit_error"


def test_a_hang_makes_the_sdk_time_out(fake):
    fake.script([Hang(10)])
    started = time.monotonic()
    with sdk(fake, timeout=0.3, max_retries=0) as client, pytest.raises(anthropic.APITimeoutError):
        ask(client)
    assert time.monotonic() - started < 5


def test_a_hang_then_answers_when_the_client_waits_long_enough(fake):
    fake.script([Hang(0.2, then="late but here")])
    with sdk(fake, timeout=5) as client:
        assert ask(client).content[0].text == "late but here"


def test_an_error_event_mid_stream_raises_after_the_first_deltas(fake):
    fake.script([Reply(text=["partial ", "answer"], stream_error="overloaded_error")])
    received = []
    with sdk(fake) as client, pytest.raises(anthropic.APIStatusError, match="overloaded"):
        with client.messages.stream(
            model="claude-test", max_tokens=100, messages=[{"role": "user", "content": "hi"}]
        ) as stream:
            received.extend(stream.text_stream)
    assert received == ["partial ", "answer"]


def test_the_default_responder_sees_the_request(fake):
    fake.default = lambda request: f"echo {request['messages'][-1]['content']}"
    with sdk(fake) as client:
        assert ask(client).content[0].text == "echo hello"


def test_prompt_text_flattens_system_messages_and_tool_traffic():
    request = {
        "system": [{"type": "text", "text": "SYSTEM-CANARY"}],
        "messages": [
            {"role": "user", "content": "USER-CANARY"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "a", "name": "x", "input": {"q": "INPUT-CANARY"}}
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "a",
                        "content": [{"type": "text", "text": "RESULT"}],
                    }
                ],
            },
        ],
    }
    text = prompt_text(request)
    for canary in ("SYSTEM-CANARY", "USER-CANARY", "INPUT-CANARY", "RESULT"):
        assert text.count(canary) == 1


async def test_the_async_client_streams_from_the_fake(fake):
    fake.script([Reply(text=["async ", "works"])])
    client = anthropic.AsyncAnthropic(api_key="k", base_url=fake.url, timeout=5, max_retries=0)
    async with (
        client,
        client.messages.stream(
            model="claude-test", max_tokens=50, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        chunks = [text async for text in stream.text_stream]
    assert chunks == ["async ", "works"]
