"""Strict JSON parsing: what JSON allows, nothing Python's ``json`` adds (RFC 8259).

Python's parser accepts ``NaN``, ``Infinity`` and ``-Infinity``, and turns ``1e400`` into
infinity; neither the JSON renderer nor PostgreSQL's jsonb accept those. ``loads`` refuses
them. Used by the API's body parser, the memory commands' ``--file`` reader and the chat
websocket; each caller words its own error.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["loads", "reason"]


def loads(text: str) -> Any:
    """``json.loads(text)``, refusing the constants and overflowing numbers JSON has no
    value for. Raises ``json.JSONDecodeError`` (invalid syntax), ``RecursionError``
    (nesting deeper than the parser's recursion limit) or ``ValueError`` (a constant, a
    number too large for a float, an integer too long to convert): all three are
    ``ValueError`` but the recursion one."""
    return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)


def reason(exc: ValueError) -> str:
    """A one-line reason for a ``ValueError`` from ``loads`` that is not a decode error: the
    first clause only (Python's integer-length limit goes on to advise a developer)."""
    return str(exc).split(":")[0]


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON value")


def _finite_float(text: str) -> float:
    # 1e400 is valid JSON syntax but no float: it would decode to Infinity.
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value
