"""lib.llm, the one boundary to the Anthropic SDK, against the local fake server."""

import anthropic
import httpx2
import pytest

from lib import llm
from memory.extraction import get_extractor
from memory.extraction.anthropic import AnthropicExtractor
from memory.extraction.offline import OfflineExtractor
from tests.fakes.anthropic_server import Error

# Until tests/conftest.py registers it for the whole suite.
pytest_plugins = ["tests.fakes.conftest_plugin"]


def test_without_a_key_llm_is_disabled_and_clients_refuse(settings):
    settings.ANTHROPIC_API_KEY = ""
    assert llm.llm_enabled() is False
    with pytest.raises(llm.LLMUnavailable):
        llm.client(timeout=5)
    with pytest.raises(llm.LLMUnavailable):
        llm.async_client(timeout=5)
    assert isinstance(get_extractor(), OfflineExtractor)


def test_with_a_key_the_anthropic_extractor_is_chosen(settings):
    settings.ANTHROPIC_API_KEY = "sk-test"
    assert llm.llm_enabled() is True
    assert isinstance(get_extractor(), AnthropicExtractor)


def test_the_client_takes_key_base_url_timeout_and_retries_from_settings(
    fake_anthropic,
    settings,
):
    settings.ANTHROPIC_MAX_RETRIES = 1
    fake_anthropic.script([Error(529), Error(529)])
    with llm.client(timeout=7.5) as client:
        assert client.max_retries == 1
        assert str(client.base_url).startswith(fake_anthropic.url)
        with pytest.raises(anthropic.OverloadedError):
            client.messages.create(
                model="m", max_tokens=5, messages=[{"role": "user", "content": "hi"}]
            )
    assert len(fake_anthropic.requests) == 2  # one try plus one retry, then it gives up
    assert fake_anthropic.headers[0]["x-stainless-read-timeout"] == "7.5"
    assert "test-key" in fake_anthropic.headers[0]["authorization"]


async def test_the_async_client_streams_through_the_boundary(fake_anthropic):
    fake_anthropic.script([["Hello ", "Trevor."]])
    async with (
        llm.async_client(timeout=5) as client,
        client.messages.stream(
            model="m", max_tokens=20, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        text = "".join([chunk async for chunk in stream.text_stream])
        final = await stream.get_final_message()
    assert text == "Hello Trevor."
    assert llm.Usage.of(final.usage).output_tokens > 0


def test_usage_adds_up_and_counts_cache_tokens_as_input():
    class ApiUsage:
        input_tokens = 10
        cache_read_input_tokens = 5
        cache_creation_input_tokens = None
        output_tokens = 3

    total = llm.Usage(1, 2) + llm.Usage.of(ApiUsage()) + llm.Usage.of(None)
    assert total == llm.Usage(16, 5)


@pytest.mark.parametrize(
    ("error", "phrase"),
    [
        (httpx2.ReadTimeout("read timed out"), "took too long"),
        (anthropic.APITimeoutError(request=httpx2.Request("POST", "http://x")), "took too long"),
        (
            anthropic.APIConnectionError(request=httpx2.Request("POST", "http://x")),
            "could not be reached",
        ),
    ],
)
def test_failures_become_user_safe_errors_with_the_detail_kept_for_logs(error, phrase):
    converted = llm.as_llm_error(error)
    assert phrase in str(converted)
    assert type(error).__name__ in converted.detail
    assert "http://x" not in str(converted)
