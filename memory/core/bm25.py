"""Okapi BM25 over a small in-memory corpus: the one implementation, for the ``default``
Read's passages (``memory.core.passages``) and the benchmark's lexical baselines
(``bench.bm25``); the sentence store's SQL ranking uses the same parameters.

For a query q with terms t and a document D of length |D| (in terms) in a corpus of N documents
whose mean length is avgdl::

    score(D, q) = Σ_{t ∈ q} idf(t) · f(t, D) · (k1 + 1) / (f(t, D) + k1 · norm(D))
    norm(D)     = 1 − b + b · |D| / avgdl
    idf(t)      = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))

with f(t, D) the count of t in D and n(t) the number of documents containing t; k1 = 1.5,
b = 0.75 (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond",
2009). The idf is the non-negative form Lucene uses, so a term present in every document still
counts a little instead of subtracting. Each distinct query term counts once.

Terms come from ``lexical_terms``: lowercase runs of letters and digits minus the function
words of ``memory.core.words.STOP_WORDS`` and single characters, duplicates kept (BM25 needs
the term frequencies), no stemming.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from memory.core.words import STOP_WORDS

__all__ = ["BM25_B", "BM25_K1", "LexicalIndex", "lexical_terms"]

_TOKEN = re.compile(r"[^\W_]+")  # as memory.core.words: apostrophes and punctuation split

BM25_K1 = 1.5
BM25_B = 0.75
"""Okapi BM25's parameters, for ``LexicalIndex`` and the sentence store's SQL ranking."""


def lexical_terms(text: str) -> list[str]:
    """Lowercase content tokens with repeats (``memory.core.words`` without de-duplication)."""
    return [t for t in _TOKEN.findall(text.lower()) if len(t) >= 2 and t not in STOP_WORDS]


def _idf(n: int, df: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


class LexicalIndex:
    """Okapi BM25 (k1 = ``BM25_K1``, b = ``BM25_B``, the idf above) over documents already
    split into terms (``lexical_terms``).

    Built once per cached passage set; ``scores`` is one sparse pass over the postings of the
    query's distinct terms, so a Read costs O(postings of its words), not O(passages).
    """

    def __init__(
        self, documents: Sequence[Sequence[str]], *, k1: float = BM25_K1, b: float = BM25_B
    ):
        self.n = len(documents)
        lengths = np.fromiter((len(d) for d in documents), dtype=np.float64, count=self.n)
        avgdl = float(lengths.mean()) if self.n and lengths.sum() else 1.0
        norms = k1 * (1.0 - b + b * lengths / avgdl)
        postings: dict[str, tuple[list[int], list[float]]] = {}
        for i, document in enumerate(documents):
            for term, f in Counter(document).items():
                ids, weights = postings.setdefault(term, ([], []))
                ids.append(i)
                weights.append(f * (k1 + 1.0) / (f + norms[i]))
        self._k1 = k1
        self._idf = {term: _idf(self.n, len(ids)) for term, (ids, _) in postings.items()}
        self._postings = {
            term: (np.asarray(ids, dtype=np.int64), np.asarray(weights) * self._idf[term])
            for term, (ids, weights) in postings.items()
        }

    def ceiling(self, terms: Sequence[str]) -> float:
        """An upper bound of any passage's score for ``terms``: Σ idf · (k1 + 1) over the
        distinct terms the index knows (a term's weight tends to idf · (k1 + 1) as its count
        grows)."""
        return sum(self._idf.get(term, 0.0) for term in dict.fromkeys(terms)) * (self._k1 + 1)

    def scores(self, terms: Sequence[str]) -> np.ndarray:
        """One score per document, in corpus order (0 for a document sharing no term)."""
        out = np.zeros(self.n, dtype=np.float64)
        for term in dict.fromkeys(terms):
            posting = self._postings.get(term)
            if posting is not None:
                out[posting[0]] += posting[1]
        return out
