"""Extraction (SPEC §5.5): Claude with tools when a key is set, else offline spaCy.

Both return an ``ExtractionResult`` whose ``batch`` is a raw ``pegasus-batch/1``
(§6.2), cleaned afterwards by the write service.
"""

from __future__ import annotations

from memory.extraction.base import ExtractionResult, Extractor, Turn

__all__ = ["ExtractionResult", "Extractor", "Turn", "get_extractor"]


def get_extractor() -> Extractor:
    """The extractor for the current settings: ``AnthropicExtractor`` when
    ``ANTHROPIC_API_KEY`` is set, else ``OfflineExtractor``. Decided per call, so a
    key set at run time (or by a test) takes effect without a restart."""
    from lib import llm

    if llm.llm_enabled():
        from memory.extraction.anthropic import AnthropicExtractor

        return AnthropicExtractor()
    from memory.extraction.offline import OfflineExtractor

    return OfflineExtractor()
