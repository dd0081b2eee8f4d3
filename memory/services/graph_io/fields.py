"""Reading one object of a graph document field by field, with one-line errors that name
the item (``edges[3] (id "x7"): ...``)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from memory.services.graph_io.document import GraphFormatError

_MISSING = object()


def _quoted(text: str) -> str:
    """``text`` in double quotes, with newlines and control characters escaped: a message
    quoting the input stays one line."""
    return json.dumps(text, ensure_ascii=False)


def _describe(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except RecursionError:
        return f"a {type(value).__name__} nested too deeply"
    # An unpaired surrogate would make the message itself unprintable.
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= 60 else text[:57] + "..."


def _is_number(value: Any) -> bool:
    # bool is an int subclass, but true is not a strength.
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class _Item:
    """One object of a section, read field by field with errors that name it."""

    def __init__(self, where: str, raw: Any, fields: frozenset[str]):
        self.where = where
        if not isinstance(raw, Mapping):
            raise GraphFormatError(f"{self.where}: must be an object, got {_describe(raw)}")
        label = raw.get("id")
        if isinstance(label, str) and label:
            self.where += f" (id {_quoted(label)})"
        unknown = raw.keys() - fields
        if unknown:
            unknown = sorted(unknown)
            raise GraphFormatError(
                f"{self.where}: unknown field{'s' if len(unknown) > 1 else ''} "
                + ", ".join(_quoted(name) for name in unknown)
            )
        self.raw = raw

    def fail(self, message: str) -> GraphFormatError:
        return GraphFormatError(f"{self.where}: {message}")

    def _get(self, key: str, default: Any) -> Any:
        value = self.raw.get(key, _MISSING)
        if value is _MISSING:
            if default is _MISSING:
                raise self.fail(f'"{key}" is required')
            return default
        return value

    def label(self) -> str:
        value = self._get("id", _MISSING)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(f'"id" must be a non-empty string, got {_describe(value)}')
        return value

    def text(
        self,
        key: str,
        *,
        default: Any = _MISSING,
        max_length: int | None = None,
        allow_empty: bool = True,
    ) -> str:
        value = self._get(key, default)
        if not isinstance(value, str):
            raise self.fail(f'"{key}" must be a string, got {_describe(value)}')
        if not allow_empty and not value.strip():
            raise self.fail(f'"{key}" must not be empty')
        if max_length is not None and len(value) > max_length:
            raise self.fail(f'"{key}" is longer than {max_length} characters')
        return value

    def number(self, key: str, low: float, high: float, *, default: Any = _MISSING) -> float:
        value = self._get(key, default)
        if not _is_number(value) or not math.isfinite(value) or not low <= value <= high:
            raise self.fail(
                f'"{key}" must be a number from {low:g} to {high:g}, got {_describe(value)}'
            )
        return float(value)

    def boolean(self, key: str, *, default: Any = _MISSING) -> bool:
        value = self._get(key, default)
        if not isinstance(value, bool):
            raise self.fail(f'"{key}" must be true or false, got {_describe(value)}')
        return value

    def choice(self, key: str, choices: frozenset[str], *, default: Any = _MISSING) -> str:
        value = self._get(key, default)
        if not isinstance(value, str) or value not in choices:
            raise self.fail(
                f'"{key}" must be one of {", ".join(sorted(choices))}, got {_describe(value)}'
            )
        return value

    def moment(self, key: str, *, default: Any = _MISSING, nullable: bool = False):
        value = self._get(key, default)
        if value is None and nullable:
            return None
        if isinstance(value, datetime):  # a default supplied by the caller
            return value
        if not isinstance(value, str):
            raise self.fail(f'"{key}" must be an ISO 8601 date-time, got {_describe(value)}')
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            raise self.fail(f'"{key}" is not an ISO 8601 date-time: {_describe(value)}') from None
        if parsed.tzinfo is None or parsed.utcoffset() is None:
            raise self.fail(f'"{key}" must include a UTC offset, got {_describe(value)}')
        return parsed

    def strings(self, key: str, *, max_length: int, default: Any = _MISSING) -> list[str]:
        value = self._get(key, default)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(f'"{key}" must be a list of strings, got {_describe(value)}')
        for v in value:
            if len(v) > max_length:
                raise self.fail(f'"{key}" has an entry longer than {max_length} characters')
        return list(value)

    def labels(self, key: str, known: Mapping[str, Any], what: str) -> list[str]:
        value = self.strings(key, max_length=10_000, default=[])
        for label in value:
            if label not in known:
                raise self.fail(
                    f'"{key}" names {_quoted(label)}, which is not {what} in this graph'
                )
        if len(set(value)) != len(value):
            raise self.fail(f'"{key}" lists the same id twice')
        return value
