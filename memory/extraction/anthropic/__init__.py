"""Extraction with Claude and tools (SPEC §5.5, LLM path).

The model sees only the user's turns (each with its message id), the conversation's
date and the user's time zone, and the existing graph's neighbourhood as quoted data.
It writes the batch through tools — ``add_node``, ``add_edge``, ``update_node``,
``record_episode``, ``finish`` — and is told to call one the moment it decides an item,
so work done before a timeout survives (the write-up's "Everything that broke").

The package: ``prompt`` (the system prompt and the first user message), ``tools`` (the
tools' schemas), ``session`` (the batch under construction and the tools that write it),
``extractor`` (the streamed tool-use loop and its failure policy).
"""

from __future__ import annotations

from memory.extraction.anthropic.extractor import MAX_ROUNDS, AnthropicExtractor
from memory.extraction.anthropic.prompt import SYSTEM_PROMPT, build_prompt
from memory.extraction.anthropic.tools import TOOLS

__all__ = ["MAX_ROUNDS", "SYSTEM_PROMPT", "TOOLS", "AnthropicExtractor", "build_prompt"]
