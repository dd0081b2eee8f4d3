"""Field-level checks shared by the entity and relation cleaners: numbers, confidences, refs,
ISO 8601 times."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from memory.core.cleaning.schema import DEFAULT_CONFIDENCE


def _is_number(value: Any) -> bool:
    # bool is an int subclass, but True is not a confidence.
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _confidence(value: Any, label: str, fixes: list[str]) -> float:
    if not _is_number(value) or math.isnan(value):
        if value is not None:
            fixes.append(f"{label}: confidence {value!r} is not a number, set to 0.5")
        return DEFAULT_CONFIDENCE
    clamped = min(1.0, max(0.0, float(value)))
    if clamped != value:
        fixes.append(f"{label}: confidence {value!r} clamped to {clamped}")
    return clamped


def _ref_of(value: Any) -> str | None:
    # Extractors sometimes emit numeric refs; they are labels either way.
    if isinstance(value, str) and value.strip():
        return value.strip()
    if _is_number(value) and not isinstance(value, float):
        return str(value)
    return None


def _valid_iso(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value.strip())
    except ValueError:
        return False
    return True
