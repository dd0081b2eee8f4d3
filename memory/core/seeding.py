"""Seeding: which memory keys, and so which nodes, a message starts from (SPEC §5.1).

Steps 3–5 of §5.1 live here; step 1 is ``words.content_words`` and step 2 (the
sentence model) is the embedding boundary. Step 6 (every seed starts at 1.0) is
``activation.spread``: the similarity only decides *whether* a key seeds.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from memory.core.cleaning import normalise_ws

__all__ = [
    "MARGIN",
    "MARGIN_FLOOR",
    "THRESHOLD",
    "KeyTarget",
    "SeedHit",
    "centred_scores",
    "resolve_seed_nodes",
    "resolve_seed_offers",
    "select_seed_keys",
]

THRESHOLD = 0.30
"""A word seeds every key whose centred score is at least this (§5.1 step 4)."""

MARGIN_FLOOR = 0.15
"""Failing THRESHOLD, the top key may still seed if it scores at least this..."""

MARGIN = 0.15
"""...and beats the runner-up by at least this (§5.1 step 4)."""

# Vectors are unit length, so a centred vector shorter than this is float noise
# around the mean, not a direction: normalising it would invent a random score.
_ZERO_NORM = 1e-6


def _normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """Scale each row to unit length; rows with (near) zero norm become zero rows."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    safe = np.where(norms < _ZERO_NORM, 1.0, norms)
    out = matrix / safe
    out[(norms < _ZERO_NORM)[:, 0]] = 0.0
    return out


def centred_scores(
    queries: np.ndarray, keys: np.ndarray, mean: np.ndarray | None = None
) -> np.ndarray:
    """Score every query against every key after mean-centring (SPEC §5.1 step 3).

    Inputs:
        queries: (w × d) word embeddings, L2-normalised (float32 from the model).
        keys: (k × d) MemoryKey embeddings of one user, L2-normalised.
        mean: the centre μ (d,); defaults to ``keys.mean(axis=0)``. A caller that
            pre-selects candidates (HNSW at scale) passes the mean of *all* the
            user's keys so scores do not depend on which candidates were picked.

    Output: (w × k) float array, ``score[i, j] = normalise(M_j − μ) · normalise(q_i − μ)``,
    each in [−1, 1].

    Why centre: sentence-model embeddings share a large common component, so raw
    cosines are high for everything; removing the mean leaves the part that
    distinguishes one key from another.

    Invariants: a vector equal to the mean (zero after centring) scores 0 against
    everything. In particular, with a single key M − μ is the zero vector, so every
    score is 0 and only the margin gate with a 0.0 top can apply (it never passes).
    With no keys the result has shape (w × 0).
    """
    q = np.atleast_2d(np.asarray(queries, dtype=np.float32))
    m = np.atleast_2d(np.asarray(keys, dtype=np.float32))
    if m.shape[0] == 0 or q.shape[0] == 0:
        return np.zeros((q.shape[0], m.shape[0]), dtype=np.float32)
    if q.shape[1] != m.shape[1]:
        raise ValueError(f"dimension mismatch: queries {q.shape[1]}, keys {m.shape[1]}")
    mu = m.mean(axis=0) if mean is None else np.asarray(mean, dtype=np.float32)
    q_c = _normalise_rows(q - mu)
    m_c = _normalise_rows(m - mu)
    return q_c @ m_c.T


@dataclass(frozen=True)
class SeedHit:
    """One word seeding one key: ``similarity`` is the centred score (§5.1 step 4)."""

    word: str
    key_index: int
    similarity: float


def select_seed_keys(
    words: Sequence[str],
    scores: np.ndarray,
    *,
    threshold: float = THRESHOLD,
    margin_floor: float = MARGIN_FLOOR,
    margin: float = MARGIN,
) -> list[SeedHit]:
    """Apply the seed gate of SPEC §5.1 step 4 to a (w × k) score matrix.

    Inputs: ``words`` (length w) and ``scores`` from ``centred_scores``; row i belongs
    to ``words[i]``, column j to key j.

    Per word: every key with score ≥ ``threshold``; if there is none, the single top
    key when top ≥ ``margin_floor`` and top − runner-up ≥ ``margin``. With only one
    key there is no runner-up and it counts as 0.0 (a lone key must clear the margin
    against "nothing"), which keeps the gate defined for tiny graphs.

    Output order: by word order, then score descending, then key index ascending.
    """
    matrix = np.asarray(scores, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != len(words):
        raise ValueError(f"scores shape {matrix.shape} does not match {len(words)} words")
    hits: list[SeedHit] = []
    n_keys = matrix.shape[1]
    if n_keys == 0:
        return hits
    for i, word in enumerate(words):
        row = matrix[i]
        above = [j for j in range(n_keys) if row[j] >= threshold]
        if above:
            above.sort(key=lambda j: (-row[j], j))
            hits.extend(SeedHit(word, j, float(row[j])) for j in above)
            continue
        # Stable sort on -score so equal scores keep the lower key index first.
        order = np.argsort(-row, kind="stable")
        top = float(row[order[0]])
        runner_up = float(row[order[1]]) if n_keys > 1 else 0.0
        if top >= margin_floor and top - runner_up >= margin:
            hits.append(SeedHit(word, int(order[0]), top))
    return hits


@dataclass(frozen=True)
class KeyTarget:
    """What a MemoryKey points at: a node (``node_id``) or a relation label (``relation``).

    Exactly one of the two is set for a well-formed key; a key with neither seeds
    nothing.
    """

    node_id: int | None
    relation: str | None


def resolve_seed_nodes(
    hits: Iterable[SeedHit],
    key_targets: Sequence[KeyTarget],
    relation_ends: Mapping[str, Iterable[tuple[int, int]]],
    live_node_ids: Container[int],
) -> dict[int, SeedHit]:
    """Turn seeding keys into seed nodes (SPEC §5.1 step 5).

    Inputs:
        hits: from ``select_seed_keys``; ``hit.key_index`` indexes ``key_targets``.
        key_targets: the target of each key, in the same order as the score columns.
        relation_ends: relation label → (source_id, target_id) of every *live* edge
            with that label.
        live_node_ids: the user's existing node ids (relation ends outside it are
            skipped too).

    A node key seeds its node; a relation key seeds both ends of every live edge
    with its label. A key whose node is not in ``live_node_ids`` or whose label has
    no live edge is stale (the key table lags behind merges and deletions) and is
    ignored.

    Output: node id → the hit with the highest similarity that seeded it (on a tie,
    the first such hit), in the order nodes were first seeded.
    """
    best: dict[int, SeedHit] = {}

    def offer(node_id: int, hit: SeedHit) -> None:
        current = best.get(node_id)
        if current is None or hit.similarity > current.similarity:
            best[node_id] = hit

    # Materialise each label's ends once: the mapping may hold one-shot iterators.
    ends_cache: dict[str, list[tuple[int, int]]] = {}
    for hit in hits:
        if not 0 <= hit.key_index < len(key_targets):
            raise IndexError(f"hit key_index {hit.key_index} outside {len(key_targets)} keys")
        target = key_targets[hit.key_index]
        if target.node_id is not None:
            if target.node_id in live_node_ids:
                offer(target.node_id, hit)
            continue
        if target.relation is None:
            continue
        if target.relation not in ends_cache:
            ends_cache[target.relation] = list(relation_ends.get(target.relation, ()))
        for source_id, target_id in ends_cache[target.relation]:
            for node_id in (source_id, target_id):
                # A live edge implies live ends; the check guards a lagging caller.
                if node_id in live_node_ids:
                    offer(node_id, hit)
    return best


def resolve_seed_offers(
    similarities: Sequence[float], offers: Sequence[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """``resolve_seed_nodes`` over arrays, for hits that offer thousands of nodes.

    Inputs: per hit (in hit order) its similarity and ``offers[i]``, the node indices it
    seeds in order — its node, or both ends of each live edge with its relation label,
    already restricted to the user's live nodes.

    Output: ``(nodes, hits)`` — each seeded node once, in the order it was first offered,
    with the index of the hit that seeds it: the highest similarity, the first such hit on a
    tie. The same answer as ``resolve_seed_nodes`` (a test holds them equal).
    """
    sizes = [len(offer) for offer in offers]
    if not sum(sizes):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    node = np.concatenate([np.asarray(offer, dtype=np.int64) for offer in offers])
    hit = np.repeat(np.arange(len(offers)), sizes)
    similarity = np.asarray(similarities, dtype=np.float64)[hit]
    position = np.arange(len(node))
    # Per node: highest similarity first, then the earliest offer.
    order = np.lexsort((position, -similarity, node))
    grouped = node[order]
    first_of_group = np.ones(len(order), dtype=bool)
    first_of_group[1:] = grouped[1:] != grouped[:-1]
    best = order[first_of_group]  # one offer per node, ascending node
    _, first_offer = np.unique(node, return_index=True)  # ascending node, like ``best``
    by_first = np.argsort(first_offer, kind="stable")
    return node[best][by_first], hit[best][by_first]


# --- precise seeds (SPEC §5.7, strategies "graph" and "default") ------------------------------

LEXICAL_EXACT = 1.0  # the word is a whole name or alias
LEXICAL_TOKEN = 0.9  # the word is one word of a name ("patterson" → "Matt Patterson")
FUZZY_CUTOFF = 88.0  # rapidfuzz ratio for a misspelt name word ("caroline" / "carolin")
FUZZY_MIN_CHARS = 5


class KeyLexicon:
    """Name and alias keys by their words, for lexical seeding. ``texts``: key id → text of
    the node keys (relation keys are matched by embedding only)."""

    def __init__(self, texts: Mapping[int, str]):
        self.exact: dict[str, list[int]] = {}
        self.tokens: dict[str, list[int]] = {}
        for key_id in sorted(texts):
            text = normalise_ws(texts[key_id].lower())
            self.exact.setdefault(text, []).append(key_id)
            for token in dict.fromkeys(text.replace("-", " ").split()):
                if len(token) > 1:
                    self.tokens.setdefault(token, []).append(key_id)
        self.vocabulary = sorted(token for token in self.tokens if len(token) >= FUZZY_MIN_CHARS)

    def match(self, word: str) -> list[tuple[int, float]]:
        """(key id, similarity) of the keys ``word`` names: exactly, as one of their words,
        or — for words of five letters or more — as a close misspelling of one of their
        words; the best kind of match only."""
        if word in self.exact:
            return [(key_id, LEXICAL_EXACT) for key_id in self.exact[word]]
        if word in self.tokens:
            return [(key_id, LEXICAL_TOKEN) for key_id in self.tokens[word]]
        if len(word) < FUZZY_MIN_CHARS or not self.vocabulary:
            return []
        from rapidfuzz import fuzz, process

        found = process.extractOne(
            word, self.vocabulary, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF
        )
        if found is None:
            return []
        similarity = LEXICAL_TOKEN * found[1] / 100.0
        return [(key_id, similarity) for key_id in self.tokens[found[0]]]


def precise_seed_keys(
    words: Sequence[str],
    scores: np.ndarray,
    key_ids: Sequence[int],
    lexicon: KeyLexicon,
    *,
    threshold: float = THRESHOLD,
    per_word: int = 3,
    near: float = 0.05,
    matches: Mapping[str, list[tuple[int, float]]] | None = None,
) -> list[tuple[str, int, float]]:
    """SPEC §5.7 seeding: ``(word, key id, similarity)`` per seeding key.

    A word that names keys lexically (``KeyLexicon.match``, or ``matches`` when the caller
    already matched the words: it then embeds only the others) seeds those keys, and its row
    of ``scores`` is never read; otherwise it seeds, by centred embedding score (``scores``:
    words × ``key_ids``), only its ``per_word`` best keys that clear ``threshold`` and lie
    within ``near`` of its best score. A word naming more than ``per_word`` keys lexically
    keeps the ``per_word`` first (by key id): a first name shared by many people seeds a few,
    never all.
    """
    hits: list[tuple[str, int, float]] = []
    for row, word in enumerate(words):
        lexical = matches[word] if matches is not None else lexicon.match(word)
        if lexical:
            hits.extend((word, key_id, sim) for key_id, sim in lexical[:per_word])
            continue
        if scores.shape[1] == 0:
            continue
        line = scores[row]
        best = float(line.max())
        if best < threshold:
            continue
        # The keys that pass are those at or above both bars, a prefix of the ranking: sort
        # only them (best first, ties by column), not every key.
        passing = np.flatnonzero((line >= threshold) & (line >= best - near))
        order = passing[np.argsort(-line[passing], kind="stable")[:per_word]]
        hits.extend((word, int(key_ids[c]), float(line[c])) for c in order.tolist())
    return hits
