"""The ``pegasus-batch/1`` vocabulary (SPEC §4, §6.2): the format tag, the allowed kinds,
stabilities and cardinalities, the relation label and ``occurred`` patterns, the self
placeholders, and the result and error types of ``clean_batch``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

BATCH_FORMAT = "pegasus-batch/1"
KINDS = frozenset({"PERSON", "ORG", "PLACE", "EVENT", "THING", "TOPIC", "PREFERENCE", "OTHER"})
STABILITIES = frozenset({"immutable", "stable", "mutable", "time_bound", "ephemeral"})
TEMPORARY = frozenset({"time_bound", "ephemeral"})
CARDINALITIES = frozenset({"one_to_one", "one_to_many"})
RELATION_LABEL = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+){0,3}$")
OCCURRED_PATTERN = r"^([0-9]{4}(-[0-9]{2}(-[0-9]{2}(/[0-9]{4}-[0-9]{2}-[0-9]{2})?)?)?)?$"
"""When a claim happened (SPEC §5.5): ``""`` (unknown), ``YYYY``, ``YYYY-MM``, ``YYYY-MM-DD``
or a day range ``YYYY-MM-DD/YYYY-MM-DD`` (the database checks the same pattern)."""

SELF_PLACEHOLDERS: frozenset[str] = frozenset(
    {"user", "the user", "me", "i", "myself", "my", "mine", "self"}
)
"""Normalised relation ends that mean the user (§5.6). "you" is deliberately absent:
in the user's turns it is the assistant, and extractors quote it in that sense."""

PROVISIONAL_CONFIDENCE = 0.3
DEFAULT_CONFIDENCE = 0.5


class BatchError(ValueError):
    """The batch as a whole is unusable (wrong format tag or top-level shape)."""


@dataclass(frozen=True)
class Drop:
    """One dropped item: ``item`` describes it (``"relation a -[X]-> b"``,
    ``"entity 'x'"``), ``reason`` says why."""

    item: str
    reason: str


@dataclass
class CleanResult:
    """Output of ``clean_batch``.

    batch: a new ``pegasus-batch/1`` dict holding only clean items; every entity
        carries ``"provisional"`` (true only for those created here).
    drops: every dropped item with its reason.
    provisional: refs of the provisional entities created for unknown ends.
    fixes: human-readable notes of every repair made.
    """

    batch: dict
    drops: list[Drop] = field(default_factory=list)
    provisional: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
