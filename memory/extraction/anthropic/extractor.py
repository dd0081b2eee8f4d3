"""The streamed tool-use loop of ``AnthropicExtractor`` and its failure policy.

The loop streams each round and executes every ``tool_use`` block as soon as the block
is complete: a timeout in the middle of a round keeps the blocks already finished.
Malformed tool input never raises; it goes back to the model as a ``tool_result`` with
``is_error: true`` (and into ``notes``), so the model can correct itself. The loop ends
on ``finish``, on a reply that calls no tool (``end_turn``), after ``MAX_ROUNDS`` rounds,
or when the overall budget ``ANTHROPIC_EXTRACTION_TIMEOUT`` (seconds) is spent; each HTTP
attempt of a round gets ``remaining / (ANTHROPIC_MAX_RETRIES + 1)`` of it, so the SDK's
retries of a hanging API end within the budget too.

Failure policy: an API or transport error (after the SDK's own retries) or the budget
running out, once something has been recorded, returns what was recorded with
``partial=True`` and a note; the extraction job decides whether to commit a partial batch
(committing is safe: items are independent and re-observation only reinforces). The same
failure before anything was recorded raises ``LLMError`` so the job can retry.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings

from lib import llm
from memory.extraction.anthropic.prompt import SYSTEM_PROMPT, build_prompt
from memory.extraction.anthropic.session import _Session
from memory.extraction.anthropic.tools import TOOLS
from memory.extraction.base import ExtractionResult, Extractor, Transcript

__all__ = ["MAX_ROUNDS", "AnthropicExtractor"]

MAX_ROUNDS = 12
"""Model round trips per extraction; a conversation needing more is returned partial."""


def _assistant_content(message: Any) -> list[dict]:
    """The reply's blocks as request params, for the next round."""
    content: list[dict] = []
    for block in message.content:
        if block.type == "text":
            if block.text:
                content.append({"type": "text", "text": block.text})
        elif block.type == "tool_use":
            content.append(
                {
                    "type": "tool_use",
                    "id": block.id,
                    "name": block.name,
                    "input": block.input if isinstance(block.input, dict) else {},
                }
            )
        else:
            content.append(block.to_dict())
    return content


class _BudgetSpent(Exception):
    """The overall extraction budget ran out in the middle of a round."""


class AnthropicExtractor(Extractor):
    """Claude with tools; see the module docstring for the loop and its failure policy."""

    name = "anthropic"

    def __init__(self, *, max_rounds: int = MAX_ROUNDS):
        self.max_rounds = max_rounds

    def _extract(self, transcript: Transcript) -> ExtractionResult:
        """Raises ``LLMUnavailable`` without a key and ``LLMError`` when the model fails
        before anything was recorded."""
        if not llm.llm_enabled():
            raise llm.LLMUnavailable()
        session = _Session(transcript)
        result = ExtractionResult(batch=session.batch, notes=session.notes)
        if not transcript.turns:
            return result
        messages: list[dict] = [
            {
                "role": "user",
                "content": build_prompt(transcript),
            }
        ]
        budget = float(settings.ANTHROPIC_EXTRACTION_TIMEOUT)
        deadline = time.monotonic() + budget
        usage = llm.Usage()
        done = False
        try:
            with llm.client(timeout=budget) as client:
                for _ in range(self.max_rounds):
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise _BudgetSpent()
                    stop_reason, content, results, round_usage = self._round(
                        client, messages, session, deadline, remaining
                    )
                    usage += round_usage
                    if session.finished or stop_reason in {"end_turn", "stop_sequence", "refusal"}:
                        done = True
                        if stop_reason == "refusal":
                            session.notes.append("the model refused to continue")
                        break
                    messages.append({"role": "assistant", "content": content})
                    if results:
                        messages.append({"role": "user", "content": results})
                    elif stop_reason != "pause_turn":
                        # max_tokens (or anything unexpected) without a tool call to answer
                        session.notes.append(f"the model stopped with {stop_reason!r}")
                        break
                else:
                    session.notes.append(f"stopped after {self.max_rounds} rounds")
        except _BudgetSpent as exc:
            usage += exc.args[0] if exc.args else llm.Usage()
            if session.recorded == 0:
                raise llm.LLMError(
                    "The memory extraction took too long.",
                    detail=f"the {budget:g} s extraction budget ran out before any tool call",
                    usage=usage,
                ) from exc
            session.notes.append(f"stopped: the {budget:g} s extraction budget ran out")
        except _RoundFailed as exc:
            usage += exc.usage
            if session.recorded == 0:
                error = llm.as_llm_error(exc.cause)
                error.usage = usage
                raise error from exc.cause
            session.notes.append(f"stopped early: {type(exc.cause).__name__}: {exc.cause}")
        result.input_tokens, result.output_tokens = usage.input_tokens, usage.output_tokens
        result.partial = not done
        return result

    def _round(
        self,
        client: Any,
        messages: list[dict],
        session: _Session,
        deadline: float,
        remaining: float,
    ) -> tuple[str | None, list[dict], list[dict], llm.Usage]:
        """One streamed model call; each tool_use block runs as soon as it is complete.
        Returns (stop reason, assistant content, tool results, usage)."""
        results: list[dict] = []
        stream = None
        try:
            with client.messages.stream(
                model=settings.ANTHROPIC_EXTRACTION_MODEL,
                max_tokens=settings.ANTHROPIC_EXTRACTION_MAX_TOKENS,
                system=SYSTEM_PROMPT,
                tools=TOOLS,
                tool_choice={"type": "auto"},
                messages=messages,
                # Each HTTP attempt gets its share of what is left: the SDK retries a timed-out
                # attempt with the same timeout, so a whole budget per attempt let a hanging
                # API hold the job for (retries + 1) budgets, past the queue's task timeout.
                timeout=max(1.0, remaining / (int(settings.ANTHROPIC_MAX_RETRIES) + 1)),
            ) as stream:
                for event in stream:
                    if (
                        event.type == "content_block_stop"
                        and event.content_block.type == "tool_use"
                    ):
                        block = event.content_block
                        text, is_error = session.execute(block.name, block.input)
                        result = {"type": "tool_result", "tool_use_id": block.id, "content": text}
                        if is_error:
                            result["is_error"] = True
                        results.append(result)
                    if time.monotonic() > deadline:
                        raise _BudgetSpent(_usage_so_far(stream))
                final = stream.get_final_message()
        except (_BudgetSpent, _RoundFailed):
            raise
        except (*llm.TRANSIENT_ERRORS, ValueError) as exc:
            # ValueError: the SDK could not parse a streamed tool input.
            raise _RoundFailed(exc, _usage_so_far(stream)) from exc
        return (final.stop_reason, _assistant_content(final), results, llm.Usage.of(final.usage))


class _RoundFailed(Exception):
    def __init__(self, cause: BaseException, usage: llm.Usage):
        super().__init__(str(cause))
        self.cause = cause
        self.usage = usage


def _usage_so_far(stream: Any) -> llm.Usage:
    """Tokens of an interrupted round (the input is billed once the reply has started)."""
    if stream is None:
        return llm.Usage()
    try:
        return llm.Usage.of(stream.current_message_snapshot.usage)
    except (AssertionError, AttributeError):
        return llm.Usage()
