"""The LLM client: the one boundary to the Anthropic SDK (SPEC §2; chat replies, extraction,
merge judging), shared by chat and memory.

* ``llm_enabled()`` — whether a key is configured (otherwise Pegasus runs offline); the one
  place that decides it, at call time. ``llm_mode()`` names it (``"anthropic"`` or
  ``"offline"``) for /healthz, page templates and ``serve``.
* ``client(timeout=...)`` / ``async_client(timeout=...)`` — a configured SDK client: the
  key, ``ANTHROPIC_BASE_URL`` when set (tests point it at a local fake), the caller's
  timeout (the SDK's default is 10 minutes) and ``ANTHROPIC_MAX_RETRIES``. The SDK itself
  retries connection errors, timeouts, 408, 409, 429 and every 5xx — including 529
  "overloaded" — with exponential backoff (0.5 s doubling, at most 8 s, jittered) or the
  server's ``retry-after``/``retry-after-ms`` (``anthropic._base_client._should_retry``).
  Use the client as a context manager so its connection pool closes.
* ``LLMUnavailable`` (offline: no key) and ``LLMError`` (the call failed; ``str()`` is safe
  to show a user, ``detail`` is for logs); ``as_llm_error`` maps SDK/transport failures.
* ``Usage`` — token counts, added up over rounds.

Settings are read at call time, never at import time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anthropic
import httpx2
from django.conf import settings

__all__ = [
    "TRANSIENT_ERRORS",
    "LLMError",
    "LLMUnavailable",
    "Usage",
    "as_llm_error",
    "async_client",
    "client",
    "llm_enabled",
    "llm_mode",
]

TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (anthropic.APIError, httpx2.TransportError)
"""What a call can raise once the SDK has given up: API errors after its retries, and
transport errors raised while reading a stream (a stalled or cut SSE body surfaces as
``httpx2`` read errors, which the SDK does not wrap or retry)."""


class LLMUnavailable(Exception):
    """No Anthropic key is configured: the caller must take its offline path."""

    def __init__(self, message: str = "The language model is not configured (offline mode)."):
        super().__init__(message)


class LLMError(Exception):
    """A model call failed. ``str(exc)`` is a short message fit for an end user (no
    internals); ``detail`` says what happened, for logs and the admin; ``usage`` counts
    the tokens spent before it failed."""

    DEFAULT_MESSAGE = "The assistant's language model could not be reached. Please try again."

    def __init__(
        self, message: str = DEFAULT_MESSAGE, *, detail: str = "", usage: Usage | None = None
    ):
        super().__init__(message)
        self.user_message = message
        self.detail = detail or message
        self.usage = usage or Usage()  # tokens billed before the failure


@dataclass(frozen=True)
class Usage:
    """Tokens billed for one or more calls. ``input_tokens`` includes prompt-cache reads
    and writes (the API reports those separately)."""

    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens
        )

    @classmethod
    def of(cls, usage: Any) -> Usage:
        """From an SDK ``Usage``/``MessageDeltaUsage`` (None → zero)."""
        if usage is None:
            return cls()
        inputs = sum(
            getattr(usage, name, None) or 0
            for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        return cls(int(inputs), int(getattr(usage, "output_tokens", None) or 0))


def llm_enabled() -> bool:
    """Whether an Anthropic key is configured (else extraction, replies and merge
    judging take their offline paths)."""
    return bool(settings.ANTHROPIC_API_KEY)


def llm_mode() -> str:
    """``"anthropic"`` when ``llm_enabled()``, else ``"offline"``."""
    return "anthropic" if llm_enabled() else "offline"


def _options(timeout: float) -> dict[str, Any]:
    if not llm_enabled():
        raise LLMUnavailable()
    options: dict[str, Any] = {
        "api_key": settings.ANTHROPIC_API_KEY,
        "timeout": float(timeout),
        "max_retries": int(settings.ANTHROPIC_MAX_RETRIES),
    }
    if settings.ANTHROPIC_BASE_URL:
        options["base_url"] = settings.ANTHROPIC_BASE_URL
    return options


def client(*, timeout: float) -> anthropic.Anthropic:
    """A synchronous SDK client; ``timeout`` in seconds applies to each HTTP attempt
    (for a stream: connecting and each read). Raises ``LLMUnavailable`` without a key."""
    return anthropic.Anthropic(**_options(timeout))


def async_client(*, timeout: float) -> anthropic.AsyncAnthropic:
    """The asyncio SDK client (chat streaming), configured like ``client``."""
    return anthropic.AsyncAnthropic(**_options(timeout))


def as_llm_error(exc: BaseException) -> LLMError:
    """A user-safe ``LLMError`` for an SDK or transport failure (chain it with ``from``)."""
    if isinstance(exc, LLMError):
        return exc
    detail = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, anthropic.APITimeoutError | httpx2.TimeoutException):
        message = "The assistant's language model took too long to answer. Please try again."
    elif isinstance(exc, anthropic.RateLimitError | anthropic.OverloadedError):
        message = "The assistant's language model is busy right now. Please try again shortly."
    elif isinstance(exc, anthropic.AuthenticationError | anthropic.PermissionDeniedError):
        message = "The assistant's language model is misconfigured. An operator has to fix it."
    else:
        message = LLMError.DEFAULT_MESSAGE
    return LLMError(message, detail=detail)
