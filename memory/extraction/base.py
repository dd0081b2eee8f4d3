"""The extractor interface (SPEC §5.5): user turns in, a ``pegasus-batch/1`` out (§6.2).

Both extractors (Claude with tools, offline spaCy) implement ``Extractor``. The batch
they return is raw: the write service cleans it with ``memory.core.cleaning.clean_batch``
(passing ``{turn.message_id: turn.text}`` as ``messages``) before merging.

Speakers. A turn's first person means its speaker: ``speaker=None`` is the account
holder, written as the self placeholder ``"user"``; a named speaker (replays of
multi-party dialogues) is a PERSON entity of that name, and "I"/"my" in that turn
resolve to it.

Optional top-level keys beyond §6.2 (``clean_batch`` ignores them; the write service
reads them from the raw batch):

* ``"self_name"`` — the name the account holder gave for themself ("I'm Trevor"), so the
  write service can name or alias the self node;
* ``"self_aliases"`` — other names they asked to be called ("call me Trev");
* ``"self_properties"`` — stable facts about the account holder (LLM path only).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memory.core.cleaning import BATCH_FORMAT

__all__ = [
    "BATCH_FORMAT",
    "SELF_REF",
    "ExtractionResult",
    "Extractor",
    "Transcript",
    "Turn",
    "empty_batch",
    "resolve_zone",
]

SELF_REF = "user"
"""The self placeholder extractors write for the account holder (§5.6)."""


@dataclass(frozen=True)
class Turn:
    """One user turn: its chat message id (snippets cite it), its text, and its speaker
    (``None`` = the account holder)."""

    message_id: str
    text: str
    speaker: str | None = None


@dataclass
class ExtractionResult:
    """What an extractor produced.

    batch: the raw ``pegasus-batch/1`` dict (to be cleaned).
    input_tokens / output_tokens: summed over every model call (0 offline).
    partial: the extractor stopped early (timeout, API error, round limit); ``batch``
        holds what it had committed by then — the job decides whether to keep it.
    notes: human-readable remarks (skipped sentences, rejected tool calls, errors).
    """

    batch: dict
    input_tokens: int = 0
    output_tokens: int = 0
    partial: bool = False
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Transcript:
    """One ended conversation as an extractor reads it: the arguments of
    ``Extractor.extract``."""

    turns: list[Turn]
    started_at: datetime
    ended_at: datetime
    time_zone: str = "UTC"
    neighbourhood: str = ""
    self_name: str | None = None


class Extractor(ABC):
    """The interface: ``extract`` takes the conversation, ``_extract`` (each extractor's own)
    reads it as a ``Transcript``."""

    name: str

    def extract(
        self,
        *,
        turns: list[Turn],
        started_at: datetime,
        ended_at: datetime,
        time_zone: str = "UTC",
        neighbourhood: str = "",
        self_name: str | None = None,
    ) -> ExtractionResult:
        """Extract one ended conversation.

        turns: the user turns only, in order. started_at / ended_at: aware datetimes of
        the conversation (relative dates resolve from ``started_at`` in ``time_zone``).
        neighbourhood: text of the existing graph around the conversation (data, never
        instructions). self_name: the account holder's known name, if any.
        """
        return self._extract(
            Transcript(
                turns=turns,
                started_at=started_at,
                ended_at=ended_at,
                time_zone=time_zone,
                neighbourhood=neighbourhood,
                self_name=self_name,
            )
        )

    @abstractmethod
    def _extract(self, transcript: Transcript) -> ExtractionResult: ...


def resolve_zone(name: str) -> ZoneInfo:
    """The zone of a ``time_zone`` argument; an empty or unknown name is UTC."""
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def empty_batch(started_at: datetime, ended_at: datetime) -> dict:
    """A valid batch with an empty episode and no entities or relations."""
    return {
        "format": BATCH_FORMAT,
        "episode": {
            "started_at": started_at.isoformat(),
            "ended_at": ended_at.isoformat(),
            "summary": "",
            "importance": 0.3,
            "tags": [],
        },
        "entities": [],
        "relations": [],
    }
