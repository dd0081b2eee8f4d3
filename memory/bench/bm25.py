"""Okapi BM25 over a small in-memory corpus: the lexical baseline of ``bench_locomo``.

For a query q with terms t and a document D of length |D| (in terms) in a corpus of N documents
whose mean length is avgdl::

    score(D, q) = Σ_{t ∈ q} idf(t) · f(t, D) · (k1 + 1) / (f(t, D) + k1 · norm(D))
    norm(D)     = 1 − b + b · |D| / avgdl
    idf(t)      = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))

with f(t, D) the count of t in D and n(t) the number of documents containing t; k1 = 1.5,
b = 0.75 (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond",
2009). The idf is the non-negative form Lucene uses, so a term present in every document still
counts a little instead of subtracting. Each distinct query term counts once.

Terms come from ``tokens``: lowercase runs of letters and digits minus the function words of
``memory.core.words.STOP_WORDS`` and single characters, duplicates kept (BM25 needs the term
frequencies), no stemming. The Read path's content words use the same tokenisation, so the
baseline and Pegasus see the same vocabulary.

Pure Python, no Django: a corpus of a few thousand turns scores in well under a millisecond
per query term.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from memory.core.passages import BM25_B as B
from memory.core.passages import BM25_K1 as K1
from memory.core.words import STOP_WORDS

__all__ = ["BM25", "K1", "B", "tokens"]

_TOKEN = re.compile(r"[^\W_]+")  # as memory.core.words: apostrophes and punctuation split


def tokens(text: str) -> list[str]:
    """Lowercase content tokens of ``text`` in order, duplicates kept (see the module doc)."""
    return [
        token
        for token in _TOKEN.findall(text.lower())
        if len(token) >= 2 and token not in STOP_WORDS
    ]


class BM25:
    """An Okapi BM25 index over ``documents`` (already tokenised, e.g. by ``tokens``).

    ``scores(query_terms)`` gives one score per document, in corpus order; ``top(query_terms,
    k)`` the indexes of the k best documents, best first (ties: earlier document first).
    """

    def __init__(self, documents: Sequence[Sequence[str]], *, k1: float = K1, b: float = B):
        self.k1, self.b = k1, b
        self.frequencies = [Counter(document) for document in documents]
        self.lengths = [len(document) for document in documents]
        self.n = len(documents)
        self.avgdl = (sum(self.lengths) / self.n) if self.n else 0.0
        document_frequency: Counter[str] = Counter()
        for counts in self.frequencies:
            document_frequency.update(counts.keys())
        self.idf = {
            term: math.log(1.0 + (self.n - df + 0.5) / (df + 0.5))
            for term, df in document_frequency.items()
        }

    def scores(self, query_terms: Iterable[str]) -> list[float]:
        out = [0.0] * self.n
        if not self.n or self.avgdl == 0:
            return out
        norms = [self.k1 * (1.0 - self.b + self.b * length / self.avgdl) for length in self.lengths]
        for term in dict.fromkeys(query_terms):  # distinct, in order
            idf = self.idf.get(term)
            if idf is None:
                continue
            for i, counts in enumerate(self.frequencies):
                f = counts.get(term)
                if f:
                    out[i] += idf * f * (self.k1 + 1.0) / (f + norms[i])
        return out

    def top(self, query_terms: Iterable[str], k: int) -> list[int]:
        scores = self.scores(query_terms)
        order = sorted(range(self.n), key=lambda i: (-scores[i], i))
        return order[: max(k, 0)]
