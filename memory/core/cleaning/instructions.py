"""Injection safety: text that reads like an order to a model (``instruction_like``), and the
helpers that leave it out of properties and summaries."""

from __future__ import annotations

import re
from typing import Any

from memory.core.cleaning.text import fold_lookalikes

# Applied to ``fold_lookalikes(text)``. Each branch is a way of addressing a model rather
# than saying something about one's life; see ``instruction_like``.
_INSTRUCTION = re.compile(
    r"""
    \b(?:ignore|disregard|forget|override|bypass)\b[^.!?\n]{0,40}?
        \b(?:instructions?|prompts?|rules|guidelines|directives?|messages?|context|above)\b
    | \bsystem\s+(?:prompt|message|instructions?)\b
    | \b(?:initial|original|hidden|secret|developer)\s+(?:prompt|instructions?)\b
    | \byou\s+(?:must|are\s+now|will\s+now|should\s+now|have\s+to\s+now)\b
    | \b(?:new|updated|real)\s+instructions?\b
    | \b(?:act|behave|respond)\s+as\s+(?:if|an?|the)\b
    | \bpretend\s+(?:to\s+be|you)\b
    | \b(?:jailbreak|developer\s+mode|prompt\s+injection|do\s+anything\s+now)\b
    | [\[<]\s*/?\s*(?:memory|context|system|inst|sys|assistant|human|developer)\s*[\]>]
    | <\|?/?(?:system|im_start|im_end|assistant|endoftext)\b
    | (?:^|[\n.!?;])\s*(?:system|assistant|developer|human)\s*:
    | \bfrom\s+now\s+on\b[^.!?\n]{0,40}?\b(?:you|always|never)\b
    | \b(?:reveal|print|show|repeat|output|dump|leak|list|tell\s+me|give\s+me)\b[^.!?\n]{0,40}?
        (?:\b(?:your|the)\s+(?:instructions|prompt)\b
          | \b(?:other|another|all|every)\s+(?:users?|accounts?)\b|\beveryone\s+else)
    | \b(?:other|another)\s+(?:users?|accounts?)(?:'s?)?\s+
        (?:memor\w*|data|conversations?|secrets?|graphs?|messages?|chats?)\b
    | \b(?:memor(?:y|ies)|data|conversations?|secrets?)\s+(?:of|from|belonging\s+to)\s+
        (?:other|another|all|every)\s+(?:users?|accounts?)\b
    """,
    re.VERBOSE,
)


def instruction_like(text: str) -> bool:
    """Whether ``text`` reads like an order to a model rather than something about the
    user's life: an "ignore/disregard/forget … instructions/prompt/rules/above" phrase,
    "system prompt", "you must" / "you are now", "new instructions", "act as a …",
    "pretend to be", "jailbreak" / "developer mode", memory, context or chat-template tags
    (``[SYSTEM]``, ``</memory>``, ``<|im_start|>``), a line or sentence opening with
    "assistant:", "system:" or "human:", "from now on … you/always/never", or asking to
    reveal the prompt or other users' memories. Matched on ``fold_lookalikes(text)``, so
    full-width letters, zero-width characters and Cyrillic look-alikes do not hide a phrase.

    Deliberately broad: a missed fact costs little, a stored instruction is re-injected
    into later prompts. Used by the offline extractor (it skips such sentences) and by
    ``clean_batch`` (it drops such items, whatever the extractor)."""
    return bool(_INSTRUCTION.search(fold_lookalikes(text)))


def _instruction_in(value: Any) -> bool:
    """Whether any string inside ``value`` (a JSON value: keys included) is instruction-like."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if instruction_like(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


def _clean_properties(properties: dict, item: str, fixes: list[str]) -> dict:
    kept = {}
    for key, value in properties.items():
        if _instruction_in(key) or _instruction_in(value):
            fixes.append(f"{item}: property {key!r} dropped (instruction-like)")
            continue
        kept[key] = value
    return kept


_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


def _clean_summary(summary: str, fixes: list[str]) -> str:
    if not instruction_like(summary):
        return summary
    kept = [s for s in _SENTENCE_END.split(summary) if not instruction_like(s)]
    fixes.append("episode: instruction-like sentence(s) dropped from the summary")
    cleaned = " ".join(kept)
    # A sentence can hide an instruction only together with its neighbour.
    return "" if instruction_like(cleaned) else cleaned
