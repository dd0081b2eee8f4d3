"""Moved to ``lib.llm`` (chat and memory share the LLM client); kept importable as
``memory.llm`` for the memory services that still name it."""

from lib.llm import (  # noqa: F401
    TRANSIENT_ERRORS,
    LLMError,
    LLMUnavailable,
    Usage,
    as_llm_error,
    async_client,
    client,
    llm_enabled,
    llm_mode,
)
