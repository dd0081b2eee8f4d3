"""What one Read is asked to do and what it returns: ``ReadOptions`` (thresholds, strategy and
token budget, defaulting to the settings at construction) and ``ReadRecord`` (SPEC §6.4)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from django.conf import settings

__all__ = ["STRATEGIES", "ReadOptions", "ReadRecord", "elapsed_ms"]


def _setting(name: str, fallback=None):
    # Bound late so that ``ReadOptions()`` reads the settings when it is built (tests and
    # operators change them at run time), never at import time.
    return field(default_factory=lambda: getattr(settings, name, fallback))


STRATEGIES = ("spec", "graph", "default")
"""``spec``: SPEC §5.1–§5.3 exactly (the reference). ``graph`` and ``default``: Read v2 (SPEC
§5.7, ``memory.services.read.ranking``): precise seeds, ranked candidates packed to
``MEMORY_BUDGET_TOKENS`` — from the graph only, or from the graph and the sentence store."""


@dataclass(frozen=True)
class ReadOptions:
    """Thresholds and budget of one Read (SPEC §5.1–§5.3; defaults are the settings).

    ``ReadOptions()`` and ``ReadOptions.from_settings(**overrides)`` both take every value not
    overridden from ``settings.MEMORY_*`` at construction time. The Write path's broad
    neighbourhood (SPEC §5.5) passes e.g. a lower ``seed_threshold`` and a larger ``budget``.
    """

    seed_threshold: float = _setting("MEMORY_SEED_THRESHOLD")
    margin_floor: float = _setting("MEMORY_SEED_MARGIN_FLOOR")
    margin: float = _setting("MEMORY_SEED_MARGIN")
    hops: int = _setting("MEMORY_HOPS")
    spread_factor: float = _setting("MEMORY_SPREAD_FACTOR")
    co_episode_bonus: float = _setting("MEMORY_CO_EPISODE_BONUS")
    fire_threshold: float = _setting("MEMORY_FIRE_THRESHOLD")
    budget: int = _setting("MEMORY_BUDGET")
    forward_share: float = _setting("MEMORY_FORWARD_SHARE")
    context_threshold: float = _setting("MEMORY_CONTEXT_THRESHOLD")
    snippets_per_node: int = _setting("MEMORY_SNIPPETS_PER_NODE")
    strategy: str = _setting("MEMORY_READ_STRATEGY", "default")
    # Strategy "default": which stored sentences may be injected (SPEC §5.7).
    passage_threshold: float = _setting("MEMORY_PASSAGE_THRESHOLD", 0.30)
    passage_min_bm25: float = _setting("MEMORY_PASSAGE_MIN_BM25", 3.0)
    passage_min_words: int = _setting("MEMORY_PASSAGE_MIN_WORDS", 3)
    # Read v2, strategies "graph" and "default" (SPEC §5.7):
    budget_tokens: int = _setting("MEMORY_BUDGET_TOKENS", 200)
    seeds_per_word: int = _setting("MEMORY_SEEDS_PER_WORD", 3)
    relation_edges: int = _setting("MEMORY_RELATION_EDGES", 3)
    max_seeds: int = _setting("MEMORY_MAX_SEEDS", 32)
    graph_edges: int = _setting("MEMORY_GRAPH_EDGES", 40)
    graph_floor: float = _setting("MEMORY_GRAPH_FLOOR", 0.05)
    graph_weight: float = _setting("MEMORY_GRAPH_WEIGHT", 0.5)
    graph_lines: int = _setting("MEMORY_GRAPH_LINES", 3)
    graph_snippets: int = _setting("MEMORY_GRAPH_SNIPPETS", 400)
    # Strategy "graph" alone (memory.services.read.candidates._pool): how much of an edge's
    # stronger end counts, and how many edges (and snippet rows) compete.
    graph_only_end_mix: float = _setting("MEMORY_GRAPH_ONLY_END_MIX", 0.7)
    graph_only_edges: int = _setting("MEMORY_GRAPH_ONLY_EDGES", 1000)
    sentence_tokens: int = _setting("MEMORY_SENTENCE_TOKENS", 20)

    @classmethod
    def from_settings(cls, **overrides) -> ReadOptions:
        """The current settings, with ``overrides`` (field name → value) on top."""
        return cls(**overrides)


@dataclass(frozen=True)
class ReadRecord:
    """What a Read recalled (SPEC §6.4).

    * ``words``: the content words, in message order.
    * ``seeds``: ``{"name", "kind", "key", "similarity"}`` per seeded node (its best key hit,
      similarity = centred score rounded to 4 places), in the order nodes were seeded.
    * ``fired``: ``{"id", "name", "kind", "score", "direction", "hop"}`` per fired node,
      highest score first (score rounded to 4 places).
    * ``memory_lines``: ``"Source -[RELATION]-> Target"``, strongest edge first.
    * ``context_snippets``: ``{"node", "edge", "text"}``, the user's own words, verbatim.
    * ``crossed_edges``: ids of the edges activation crossed, ascending (reinforced at Write).
    * ``text``: the ``[MEMORY]``/``[CONTEXT]`` block (``""`` when nothing is injected); the
      chat layer prepends ``memory.core.injection.RECOLLECTION_PREAMBLE``.
    * ``timings_ms``: ``{"embed", "seed", "spread", "format"}`` wall-clock milliseconds.
    """

    words: list[str] = field(default_factory=list)
    seeds: list[dict] = field(default_factory=list)
    fired: list[dict] = field(default_factory=list)
    memory_lines: list[str] = field(default_factory=list)
    context_snippets: list[dict] = field(default_factory=list)
    crossed_edges: list[int] = field(default_factory=list)
    text: str = ""
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        """True when nothing is injected into the prompt (no memory line and no snippet)."""
        return not self.text

    def to_dict(self, *, limit: int | None = None) -> dict:
        """The SPEC §6.4 JSON object: exactly its eight keys, as fresh (mutable) copies.

        With ``limit``, ``seeds`` keeps only the ``limit`` most similar seeds (in seeding
        order) and ``crossed_edges`` its first ``limit`` ids, and a ninth key ``"omitted"``
        counts what was left out (``{"seeds": n, "crossed_edges": m}``) — for the chat's
        recalled panel and stored messages, where a Read seeding thousands of nodes on a large
        graph would otherwise ship hundreds of kilobytes per turn. Without ``limit`` (the
        API's recall endpoint, ``manage.py recall --json``) nothing is left out."""
        seeds, crossed = self.seeds, self.crossed_edges
        if limit is not None and (len(seeds) > limit or len(crossed) > limit):
            keep = sorted(range(len(seeds)), key=lambda i: -seeds[i]["similarity"])[:limit]
            seeds = [seeds[i] for i in sorted(keep)]
            crossed = crossed[:limit]
        out = {
            "words": list(self.words),
            "seeds": [dict(seed) for seed in seeds],
            "fired": [dict(node) for node in self.fired],
            "memory_lines": list(self.memory_lines),
            "context_snippets": [dict(snippet) for snippet in self.context_snippets],
            "crossed_edges": list(crossed),
            "text": self.text,
            "timings_ms": dict(self.timings_ms),
        }
        if seeds is not self.seeds:
            out["omitted"] = {
                "seeds": len(self.seeds) - len(seeds),
                "crossed_edges": len(self.crossed_edges) - len(crossed),
            }
        return out


# --- the per-process key cache ----------------------------------------------------------------
#
# Scoring every key exactly (SPEC §5.1 step 3) needs the user's whole key matrix, centred on
# its mean. Fetching and centring 10 000 vectors costs far more than a Read may take, so each
# process keeps the centred matrix per user, tagged with the user's graph version
# (``memory.models.GraphVersion``: bumped by database triggers on every statement that touches
# the user's keys, nodes, edges, memberships or snippets, never reusing a value). Each Read
# reads the version, and the vectors only when it moved, in one query. So a stale matrix is
# never used; a write that did not touch the keys only costs a reload.
# Only vectors and ids are cached here: what a key points at (node, relation) comes from the


def elapsed_ms(start: float) -> float:
    """Wall-clock milliseconds since ``start`` (a ``time.perf_counter()`` value), 2 places."""
    return round((time.perf_counter() - start) * 1000.0, 2)
