"""JSON safety: what PostgreSQL text and jsonb cannot store (NUL, unpaired surrogates,
Infinity/NaN, runaway nesting), found and named by path before anything is written."""

from __future__ import annotations

import json
import math
from typing import Any

from memory.services.graph_io.document import MAX_DEPTH


def _text_problem(text: str) -> str | None:
    if "\x00" in text:
        return "contains a NUL character, which cannot be stored"
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return "contains an unpaired surrogate (invalid Unicode), which cannot be stored"
    return None


def _value_problem(value: Any, depth: int, finite: bool, max_depth: int | None) -> str | None:
    if isinstance(value, str):
        return _text_problem(value)
    if finite and isinstance(value, float) and not math.isfinite(value):
        return "is not a finite number"
    if max_depth is not None and isinstance(value, (dict, list)) and depth >= max_depth:
        return f"is nested more than {max_depth} levels deep"
    return None


def _children(value: Any):
    if isinstance(value, dict):
        return value.items()
    if isinstance(value, list):
        return enumerate(value)
    return ()


def _storable_at_a_glance(value: Any, finite: bool) -> bool:
    """True when encoding ``value`` (in C) shows no NUL, no unpaired surrogate and, with
    ``finite``, no Infinity/NaN. False means "look closer", not "bad": a literal
    backslash-u0000 in a string also lands here."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=not finite)
        text.encode("utf-8")
    except (ValueError, TypeError, RecursionError):  # UnicodeEncodeError is a ValueError
        return False
    return "\\u0000" not in text


def _short(path: str, limit: int = 80) -> str:
    return path if len(path) <= limit else f"{path[:50]}…{path[-25:]}"


def find_unstorable(
    value: Any, *, root: str = "", finite: bool = True, max_depth: int | None = MAX_DEPTH
) -> str | None:
    """The first thing in decoded JSON ``value`` that PostgreSQL cannot store, as a phrase
    naming where it is (``nodes[0].properties.city contains a NUL character, …``), or None.

    PostgreSQL text and jsonb refuse NUL characters, UTF-8 has no unpaired surrogates (JSON's
    ``"\\ud800"`` decodes to one), and jsonb has no Infinity or NaN (``1e400`` decodes to
    Infinity); nesting deeper than ``max_depth`` is refused too, so that encoding the value
    again can never exhaust the stack. Keys are checked like values. Iterative: a deep value
    cannot exhaust the stack here either. ``root`` names ``value`` in the phrase (default
    "the document"); ``finite=False`` leaves numbers to a caller that checks their range;
    ``max_depth=None`` checks no depth, and then a valid value costs one ``json.dumps``
    (about 0.3 s for 100 000 edges) instead of a walk in Python.
    """
    if max_depth is None and _storable_at_a_glance(value, finite):
        return None
    paths: list[tuple[str, Any, int]] = [(root, value, 0)]
    while paths:
        path, item, depth = paths.pop()
        problem = _value_problem(item, depth, finite, max_depth)
        if problem:
            return f"{_short(path) or 'the document'} {problem}"
        for key, inner in _children(item):
            if isinstance(key, str):
                problem = _text_problem(key)
                shown = json.dumps(key)[1:-1]  # escaped: the key itself may be the problem
                if problem:
                    return (
                        f'{_short(path) or "the document"} has a key "{_short(shown)}" '
                        f"that {problem}"
                    )
                paths.append((f"{path}.{shown}" if path else shown, inner, depth + 1))
            else:
                paths.append((f"{path}[{key}]", inner, depth + 1))
    return None
