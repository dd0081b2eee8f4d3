"""The reply, streamed: the offline reply a paragraph at a time, or Claude's stream through the one
LLM client (``lib.llm``), its token usage recorded."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

from django.conf import settings

from lib import llm


async def offline_stream(text: str) -> AsyncIterator[str]:
    """The offline reply, a paragraph per ``delta``. It is composed whole from what was
    recalled, so cutting it into four-word chunks only multiplied the frames: ~28 per turn,
    each a trip through Channels, Daphne and the websocket framing (docs/BENCHMARKS.md)."""
    paragraphs = text.split("\n\n")
    for i, paragraph in enumerate(paragraphs):
        yield paragraph if i == len(paragraphs) - 1 else paragraph + "\n\n"
        await asyncio.sleep(0)


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0


async def claude_stream(system: str, turns: list[dict], usage: Usage) -> AsyncIterator[str]:
    async with llm.async_client(timeout=settings.ANTHROPIC_CHAT_TIMEOUT) as client:
        async with client.messages.stream(
            model=settings.ANTHROPIC_CHAT_MODEL,
            max_tokens=settings.ANTHROPIC_CHAT_MAX_TOKENS,
            system=system,
            messages=turns,
        ) as stream:
            async for text in stream.text_stream:
                yield text
            final = await stream.get_final_message()
            usage.input_tokens = final.usage.input_tokens
            usage.output_tokens = final.usage.output_tokens
