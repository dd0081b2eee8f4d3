"""BM25 for the lexical baselines of ``bench_locomo``: the product's index
(``memory.core.bm25.LexicalIndex``, the Read's own) with plain-list scores and a top-k, so the
baselines and Pegasus rank with the same code and see the same vocabulary (``tokens`` is
``memory.core.bm25.lexical_terms``)."""

from __future__ import annotations

from collections.abc import Iterable

from memory.core.bm25 import BM25_B as B
from memory.core.bm25 import BM25_K1 as K1
from memory.core.bm25 import LexicalIndex
from memory.core.bm25 import lexical_terms as tokens

__all__ = ["BM25", "K1", "B", "tokens"]


class BM25(LexicalIndex):
    """``scores(query_terms)`` gives one score per document, in corpus order, as a list;
    ``top(query_terms, k)`` the indexes of the k best documents, best first (ties: earlier
    document first)."""

    def scores(self, query_terms: Iterable[str]) -> list[float]:
        return super().scores(list(query_terms)).tolist()

    def top(self, query_terms: Iterable[str], k: int) -> list[int]:
        scores = self.scores(query_terms)
        order = sorted(range(self.n), key=lambda i: (-scores[i], i))
        return order[: max(k, 0)]
