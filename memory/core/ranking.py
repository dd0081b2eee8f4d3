"""Read v2 (SPEC §5.7), pure: one ranked list from the graph and the sentence store, packed
to a token budget.

Candidates come from two ranked lists — fired edges with their snippets (the graph) and
sentences found by full text and vector (the store) — and are fused by reciprocal rank,
``Σ 1 / (k + rank)`` over the lists a candidate appears in. Two candidates citing the same
message are one (the graph's copy keeps its memory line). Then:

* **time** — a message that names a time ("last summer", "in May", "yesterday") multiplies
  the score of a candidate said or dated then by ``TIME_BOOST``;
* **questions** — a sentence that only asks ("Should I take the Spotify job?") is weaker
  evidence than a statement: × ``QUESTION_WEIGHT``;
* **updates** — of candidates about the same claim (same source and label in the graph), the
  latest said keeps its score and the earlier ones are damped by ``SUPERSEDED_WEIGHT``, so
  "I decided to turn down Spotify" makes the cut before the doubts that came before it.

Packing is greedy, best score first, skipping what does not fit, until the budget (tokens =
white-space words × 1.3, the count ``bench_locomo`` uses) is spent. Ties keep the earlier
candidate of the input lists (graph first), so a Read is deterministic.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date

from memory.core.dates import occurred_range

__all__ = [
    "QUESTION_WEIGHT",
    "RRF_K",
    "SUPERSEDED_WEIGHT",
    "TIME_BOOST",
    "Candidate",
    "count_tokens",
    "fuse",
    "pack",
]

RRF_K = 60
TIME_BOOST = 2.0
QUESTION_WEIGHT = 0.5
SUPERSEDED_WEIGHT = 0.7
WORDS_TO_TOKENS = 1.3


def count_tokens(text: str) -> float:
    """White-space words × 1.3 (the count ``bench_locomo`` uses)."""
    return len(text.split()) * WORDS_TO_TOKENS


@dataclass
class Candidate:
    """One thing a Read may inject.

    ``key``: what de-duplicates (``"m<message id>"``, or the text when no message is known);
    ``source`` ``"edge"`` or ``"sentence"`` and ``source_id`` its row id; ``text`` the verbatim
    sentence; ``lines`` the memory lines of the edges it backs (none for a sentence); ``speaker``
    (``""``: the account holder), ``said_on`` the day it was said and ``occurred`` when it
    happened (SPEC §5.5 format, ``""`` unknown); ``claim`` groups candidates about the same
    claim (source node and label) for the update rule; ``tokens`` what it costs to inject.
    """

    key: str
    source: str
    source_id: int
    text: str
    speaker: str = ""
    said_on: date | None = None
    occurred: str = ""
    lines: tuple[str, ...] = ()
    message_id: int | None = None
    claim: tuple | None = None
    tokens: float = 0.0
    score: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)

    @property
    def question(self) -> bool:
        return self.text.rstrip().endswith("?")

    def when(self) -> tuple[date, date] | None:
        span = occurred_range(self.occurred) if self.occurred else None
        if span is None and self.said_on is not None:
            return self.said_on, self.said_on
        return span


def _overlaps(a: tuple[date, date], b: tuple[date, date]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def fuse(
    lists: dict[str, Sequence[Candidate]],
    *,
    window: tuple[date, date] | None = None,
    k: int = RRF_K,
    weights: dict[str, float] | None = None,
) -> list[Candidate]:
    """Fuse ranked candidate lists (name → best first) into one list, best first.

    Every candidate gets ``Σ weight / (k + rank)`` over the lists it appears in (``weights``:
    list name → weight, default 1; 1-based ranks,
    merged by ``key``; the first copy seen keeps its fields and gathers every copy's memory
    lines), then the time, question and update rules of the module docstring.
    """
    merged: dict[str, Candidate] = {}
    order: list[str] = []
    for name, ranked in lists.items():
        for rank, candidate in enumerate(ranked, start=1):
            kept = merged.get(candidate.key)
            if kept is None:
                kept = merged[candidate.key] = candidate
                kept.score = 0.0
                order.append(candidate.key)
            else:
                # One sentence often justifies several edges: keep every memory line it backs.
                kept.lines += tuple(line for line in candidate.lines if line not in kept.lines)
                if kept.claim is None and candidate.claim is not None:
                    kept.claim, kept.occurred = (
                        candidate.claim,
                        (candidate.occurred or kept.occurred),
                    )
            if name not in kept.ranks:
                kept.ranks[name] = rank
                kept.score += (weights or {}).get(name, 1.0) / (k + rank)
    fused = [merged[key] for key in order]
    for candidate in fused:
        if window is not None:
            when = candidate.when()
            if when is not None and _overlaps(when, window):
                candidate.score *= TIME_BOOST
        if candidate.question:
            candidate.score *= QUESTION_WEIGHT
    latest: dict[tuple, Candidate] = {}
    for candidate in fused:
        if candidate.claim is None or candidate.said_on is None:
            continue
        best = latest.get(candidate.claim)
        if best is None or candidate.said_on > best.said_on:
            latest[candidate.claim] = candidate
    for candidate in fused:
        if candidate.claim is not None and latest.get(candidate.claim) not in (None, candidate):
            candidate.score *= SUPERSEDED_WEIGHT
    position = {key: i for i, key in enumerate(order)}
    return sorted(fused, key=lambda c: (-c.score, position[c.key]))


def pack(candidates: Iterable[Candidate], budget: float) -> list[Candidate]:
    """The best candidates whose ``tokens`` fit in ``budget``, greedily in the given order
    (best first); a candidate that does not fit is skipped, smaller later ones may still fit.
    """
    packed: list[Candidate] = []
    spent = 0.0
    for candidate in candidates:
        if spent + candidate.tokens <= budget:
            packed.append(candidate)
            spent += candidate.tokens
    return packed
