"""Passages: the best-matching sentences of past conversations (the ``default`` Read strategy).

Extraction keeps only what its patterns or the model turned into edges; the rest of a
conversation stays in its messages (an episode keeps its conversation). The ``default`` Read
therefore also scores every sentence of the user's earlier, ended conversations against the
message and injects the best few, verbatim, after the graph's own snippets. Measured on
LoCoMo-format conversations (docs/BENCHMARKS.md, "LoCoMo evidence recall").

Everything here is pure: sentence splitting, the hybrid score over a BM25 index of sentences
(``memory.core.bm25``, re-exported here) and the ``[CONTEXT]`` lines. The service loads the
rows and the vectors.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from memory.core.bm25 import BM25_B, BM25_K1, LexicalIndex, lexical_terms
from memory.core.cleaning import normalise_ws
from memory.core.injection import format_block, neutralise_tags, quote_text

__all__ = [
    "ASSISTANT_SPEAKER",
    "BM25_B",
    "BM25_K1",
    "Forgotten",
    "LexicalIndex",
    "Passage",
    "fold_text",
    "forgotten_from_corrections",
    "format_with_passages",
    "hybrid_scores",
    "lexical_terms",
    "message_sentences",
    "name_form",
    "name_pattern",
    "overlaps_snippet",
    "passage_line",
    "said_on",
    "select_passages",
    "split_sentences",
    "word_ngrams",
]

# A sentence ends at a run of . ! ? … (with closing quotes or brackets) followed by white space
# and an upper-case letter or a digit (optionally behind an opening quote); a line break always
# ends one. A lone dot after a short title ("Mrs. Okafor") is not an end.
_BOUNDARY = re.compile(r"""[.!?…]+["'”’)\]]*(?=\s+["'“‘(\[]?[A-Z0-9])""")
_TITLES = {"mr", "mrs", "ms", "dr", "prof", "st", "mt", "jr", "sr", "vs", "no", "fig"}


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped, in order; each is a verbatim slice of ``text``.

    Rule-based (no model, microseconds per message): see ``_BOUNDARY`` above.
    """
    out: list[str] = []
    for line in text.splitlines():
        start = 0
        for match in _BOUNDARY.finditer(line):
            words = line[start : match.end()].split()
            if match.group(0) == "." and words and words[-1][:-1].lower() in _TITLES:
                continue
            piece = line[start : match.end()].strip()
            if piece:
                out.append(piece)
            start = match.end()
        tail = line[start:].strip()
        if tail:
            out.append(tail)
    return out


def hybrid_scores(
    dense: np.ndarray,
    lexical: np.ndarray,
    *,
    lexical_weight: float,
    scale: float | None = None,
    boost: np.ndarray | None = None,
) -> np.ndarray:
    """``dense + lexical_weight · lexical / scale (+ boost)`` per passage.

    ``dense``: cosine of the message and each passage (unit vectors), in [−1, 1]; ``lexical``:
    BM25 scores (≥ 0) divided by ``scale`` — ``LexicalIndex.ceiling`` of the message's words,
    so a passage sharing only a word found everywhere gains little (default: the best score of
    this Read); ``boost``: optional additive evidence per passage.
    """
    dense = np.asarray(dense, dtype=np.float64)
    lexical = np.asarray(lexical, dtype=np.float64)
    top = scale if scale is not None else (float(lexical.max()) if lexical.size else 0.0)
    out = dense + (lexical_weight * lexical / top if top > 0 else 0.0)
    if boost is not None:
        out = out + boost
    return out


def select_passages(
    scores: np.ndarray,
    texts: Sequence[str],
    *,
    limit: int,
    threshold: float,
    exclude: Sequence[str] = (),
    allowed: np.ndarray | None = None,
    groups: Sequence[int] | None = None,
    per_group: int = 0,
    instead: Sequence[int] | None = None,
) -> list[int]:
    """Indexes of the best passages: score ≥ ``threshold``, at most ``limit``, best first
    (ties: lower index first), white-space-normalised text not already in ``exclude`` (the
    graph's snippets) nor taken; ``allowed`` masks out passages (e.g. the current
    conversation's); with ``groups`` (e.g. the source message of each passage) and
    ``per_group`` > 0, at most that many passages per group, so the budget spreads over turns.
    ``instead[i]`` ≥ 0 names the passage to take in place of passage i when i qualifies (a
    question answered by the next turn: the answer holds the information).
    """
    if limit <= 0 or not len(scores):
        return []
    seen = {normalise_ws(text) for text in exclude}
    taken: Counter = Counter()
    order = np.lexsort((np.arange(len(scores)), -np.asarray(scores)))
    out: list[int] = []
    for i in order:
        i = int(i)
        if scores[i] < threshold:
            break
        if allowed is not None and not allowed[i]:
            continue
        if instead is not None and instead[i] >= 0:
            i = int(instead[i])
            if allowed is not None and not allowed[i]:
                continue
        if groups is not None and per_group > 0 and taken[groups[i]] >= per_group:
            continue
        key = normalise_ws(texts[i])
        if key in seen:
            continue
        seen.add(key)
        if groups is not None:
            taken[groups[i]] += 1
        out.append(i)
        if len(out) >= limit:
            break
    return out


@dataclass(frozen=True)
class Passage:
    """A sentence surfaced from a past turn: who said it (``""``: the user), when, verbatim."""

    message_id: int
    speaker: str
    said_on: str  # the turn's date, e.g. "27 May 2023"
    text: str


def said_on(day) -> str:
    """How a recalled sentence dates itself: ``"8 May 2023"`` (``""`` for no date). Read v2
    and the benchmark's sentence baselines render the same way."""
    return f"{day.day} {day:%B %Y}" if day else ""


def passage_line(passage: Passage) -> str:
    """``- Priya, 27 May 2023: "<sentence as a JSON string>"`` (``- you, …`` for the user).

    The attribution is folded to one line and tag-neutralised like every stored text, and the
    sentence is JSON-quoted, so neither can break the block's structure."""
    who = normalise_ws(neutralise_tags(passage.speaker)) or "you"
    text = quote_text(passage.text)
    return f"- {who}, {passage.said_on}: {text}"


def format_with_passages(
    lines: Sequence[str], snippets: Sequence[str], passages: Sequence[Passage]
) -> str:
    """``memory.core.injection.format_block`` with one ``passage_line`` per passage appended
    inside ``[CONTEXT]``, after the graph's snippets; ``""`` when all three are empty."""
    block = format_block(lines, snippets)
    if not passages:
        return block
    extra = [passage_line(passage) for passage in passages]
    if not block:
        return "\n".join(["[MEMORY]", "[/MEMORY]", "[CONTEXT]", *extra, "[/CONTEXT]"])
    head, _, _ = block.rpartition("\n[/CONTEXT]")
    return "\n".join([head, *extra, "[/CONTEXT]"])


# --- forgetting (issue: a forgotten memory is never recalled again) ---------------------------


def name_pattern(name: str, *, postgres: bool = False) -> str | None:
    """A case-insensitive-ready regular expression matching ``name`` as whole words: white
    space between its words matches any run of white space, and it must neither follow nor
    precede a letter, digit or underscore ("Al" matches "Al's" and "(Al)", not "Alice").

    ``postgres=True`` gives the same pattern in PostgreSQL's ARE dialect (for ``~*``);
    otherwise Python's ``re``. Every character but letters and digits is backslash-escaped,
    which both dialects read as the literal character. ``None`` for a name with no word.
    """
    words = name.split()
    if not words:
        return None
    body = r"\s+".join("".join(c if c.isalnum() else "\\" + c for c in word) for word in words)
    if postgres:
        return rf"(^|[^[:alnum:]_]){body}([^[:alnum:]_]|$)"
    return rf"(?<!\w){body}(?!\w)"


def _folded(text: str) -> str:
    return normalise_ws(text).casefold()


def overlaps_snippet(sentence: str, snippet: str) -> bool:
    """True when ``sentence`` was cut from the same words as ``snippet``: one contains the
    other, compared case- and white-space-insensitively (a snippet may be a clause of one
    sentence or span several). Empty texts overlap nothing."""
    a, b = _folded(sentence), _folded(snippet)
    return bool(a and b) and (a in b or b in a)


def fold_text(text: str) -> str:
    """``text`` case-folded with its white space runs made single spaces (what a forgotten
    sentence's digest is taken of)."""
    return normalise_ws(text).casefold()


def name_form(text: str) -> str:
    """A name as its case-folded words (letters, digits, underscores) joined by one space:
    "Big  Al!" → "big al" (what a forgotten name's digest is taken of)."""
    return " ".join(_WORD.findall(text.casefold()))


def word_ngrams(text: str, longest: int) -> set[str]:
    """Every run of 1 to ``longest`` consecutive words of ``text`` in ``name_form``."""
    words = _WORD.findall(text.casefold())
    return {
        " ".join(words[i : i + n])
        for n in range(1, max(longest, 0) + 1)
        for i in range(len(words) - n + 1)
    }


_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Forgotten:
    """What a user forgot. ``matches(sentence)`` says whether a sentence must never be stored
    or recalled:

    * it names one of ``names`` as whole words (case-insensitive), or overlaps one of
      ``snippets`` (``overlaps_snippet``) — from records that still hold the text;
    * with ``digest`` (text → hex digest): ``digest(fold_text(sentence))`` is one of
      ``sentence_digests``, or the digest of one of its runs of up to ``name_words`` words
      (``word_ngrams``) is one of ``name_digests`` — from records that keep no text.
    """

    names: tuple[str, ...] = ()
    snippets: tuple[str, ...] = ()
    sentence_digests: frozenset[str] = frozenset()
    name_digests: frozenset[str] = frozenset()
    name_words: int = 0
    digest: Callable[[str], str] | None = field(default=None, compare=False)
    _pattern: re.Pattern | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        patterns = [p for p in (name_pattern(n) for n in self.names) if p]
        if patterns:
            object.__setattr__(self, "_pattern", re.compile("|".join(patterns), re.IGNORECASE))

    def matches(self, sentence: str) -> bool:
        if self._pattern is not None and self._pattern.search(sentence):
            return True
        if any(overlaps_snippet(sentence, snippet) for snippet in self.snippets):
            return True
        if self.digest is None:
            return False
        if self.sentence_digests and self.digest(fold_text(sentence)) in self.sentence_digests:
            return True
        return bool(self.name_digests) and any(
            self.digest(gram) in self.name_digests
            for gram in word_ngrams(sentence, self.name_words)
        )


def forgotten_from_corrections(rows: Iterable[tuple[str, dict]]) -> Forgotten:
    """``Forgotten`` from ``(action, before)`` pairs of a user's Correction rows: a
    ``forget_node`` contributes its ``name`` and ``aliases``, a ``forget_edge`` its
    ``snippet``; other actions and malformed values are ignored."""
    names: list[str] = []
    snippets: list[str] = []
    for action, before in rows:
        before = before if isinstance(before, dict) else {}
        if action == "forget_node":
            aliases = before.get("aliases") if isinstance(before.get("aliases"), list) else []
            names += [n for n in [before.get("name"), *aliases] if isinstance(n, str) and n]
        elif action == "forget_edge" and isinstance(before.get("snippet"), str):
            snippets.append(before["snippet"])
    return Forgotten(tuple(names), tuple(snippets))


ASSISTANT_SPEAKER = "assistant"
"""The speaker recorded for a reply the model wrote."""


def message_sentences(messages: Iterable[tuple], forgotten: Forgotten | None = None) -> list[tuple]:
    """The sentences to store for ``messages``: ``(message_id, role, speaker, offline, text,
    said_at)`` tuples in conversation order → ``(message_id, speaker, role, said_at,
    position, sentence, terms)`` tuples.

    A user turn's sentences keep its speaker (``""``: the account holder, white space
    folded); a reply the model wrote (``role == "assistant"``, not ``offline``) is spoken by
    ``ASSISTANT_SPEAKER``; an offline reply yields nothing (it only repeats what was
    recalled). ``position`` is the sentence's index in its message; ``terms`` its count of
    ``lexical_terms`` — sentences without one ("Ok!") and sentences ``forgotten`` matches are
    left out.
    """
    out = []
    for message_id, role, speaker, offline, text, said_at in messages:
        if role == "assistant":
            if offline:
                continue
            speaker = ASSISTANT_SPEAKER
        speaker = normalise_ws(speaker or "")[:100]
        for position, sentence in enumerate(split_sentences(text or "")):
            terms = len(lexical_terms(sentence))
            if not terms or (forgotten is not None and forgotten.matches(sentence)):
                continue
            out.append(
                (
                    message_id,
                    speaker,
                    role,
                    said_at,
                    min(position, 32767),
                    sentence,
                    min(terms, 32767),
                )
            )
    return out
