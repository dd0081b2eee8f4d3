"""The two candidate lists of Read v2 (SPEC §5.7): the graph's — the snippets of live edges at
fired nodes, an edge scored by the activation of its ends × its current strength, a snippet by
its edge's score and what it shares with the message in words (idf-weighted) and in meaning
(the cosine of its stored sentence) — and the sentence store's (``sentences.search``, gated by
similarity or BM25). ``memory.services.read.ranking`` fuses and packs them."""

from __future__ import annotations

import math
import re

import numpy as np

from memory.core.injection import memory_line
from memory.core.ranking import Candidate
from memory.models import Snippet
from memory.models.sentences import Sentence
from memory.services.read import sentences
from memory.services.read.record import ReadOptions
from memory.services.read.sql import id_array, vector_literal
from memory.services.snapshot import GraphSnapshot

__all__ = ["graph_candidates", "sentence_candidates", "sentence_limit"]

_WORD = re.compile(r"[^\W_]+")
SIMILARITY_WEIGHT = 1.0
"""A graph snippet's relevance to the message: its words' share of the message's idf-weighted
content words, plus this × how far the cosine of its sentence and the message lies above
``SIMILARITY_FLOOR`` (docs/BENCHMARKS.md: graph only 0.326 → 0.345 at 200 tokens)."""
SIMILARITY_FLOOR = 0.2


_SNIPPETS_SQL = """
    SELECT s.id, s.edge_id, s.text, s.occurred, s.message_id, s.created_at,
           sen.speaker, sen.said_at, sen.similarity
    FROM {snippets} s
    LEFT JOIN LATERAL (
        SELECT x.speaker, x.said_at, 1 - (x.vector <=> %s::vector) AS similarity
        FROM {sentences} x
        WHERE x.user_id = s.user_id AND x.message_id = s.message_id
        ORDER BY similarity DESC LIMIT 1
    ) sen ON true
    WHERE s.user_id = %s AND s.edge_id = ANY(%s::bigint[])
    ORDER BY s.id
    LIMIT %s
"""


def _pool(options: ReadOptions) -> tuple[float, int, int]:
    """Which edges at fired nodes compete, as (end mix, edges, snippet rows).

    With sentences beside it (strategy ``default``) an edge counts by its *weaker* end: a hub
    (the speaker, seeded by name) lights every edge it has, and the sentence search already
    finds what one node's own snippets say, so the graph's part is the edges whose other end
    the message also reached — what connects. Alone (strategy ``graph``) the graph must also
    answer what a hub said: an edge counts by ``graph_only_end_mix`` of its stronger end
    (plus the rest of its weaker), a pool of ``graph_only_edges``, and the snippets' relevance
    to the message decides among them. On the LoCoMo dev file (docs/BENCHMARKS.md) the
    graph-only Read at 200 tokens went 0.345 → 0.470 with it, while the default Read with the
    same pool fell 0.658 → 0.641 (its graph list then repeats the sentence list)."""
    if options.strategy == "graph":
        return options.graph_only_end_mix, options.graph_only_edges, options.graph_only_edges
    return 0.0, options.graph_edges, options.graph_snippets


def graph_candidates(
    cursor,
    user_id: int,
    snapshot: GraphSnapshot,
    strength: np.ndarray,
    live: np.ndarray,
    fired,
    words: set[str],
    message_vector: np.ndarray,
    options: ReadOptions,
) -> list[Candidate]:
    """Snippets of the live edges at fired nodes, best first (see the module docstring)."""
    if not fired:
        return []
    activation = np.zeros(len(snapshot.node_ids))
    activation[snapshot.indices([act.node_id for act in fired])] = [act.score for act in fired]
    end_mix, edges, snippets = _pool(options)
    reach = np.minimum(activation[snapshot.source], activation[snapshot.target])
    if end_mix:
        stronger = np.maximum(activation[snapshot.source], activation[snapshot.target])
        reach = (1.0 - end_mix) * reach + end_mix * stronger
    at = np.flatnonzero(live & (snapshot.snippet > 0) & (reach >= options.graph_floor))
    if not len(at):
        return []
    edge_score = reach[at] * np.sqrt(np.clip(strength[at], 0.0, 100.0) / 100.0)
    order = np.lexsort((snapshot.edge_ids[at], -edge_score))[:edges]
    chosen = at[order]
    score_of = dict(
        zip(snapshot.edge_ids[chosen].tolist(), edge_score[order].tolist(), strict=True)
    )
    index_of = dict(zip(snapshot.edge_ids[chosen].tolist(), chosen.tolist(), strict=True))
    cursor.execute(
        _SNIPPETS_SQL.format(snippets=Snippet._meta.db_table, sentences=Sentence._meta.db_table),
        [
            vector_literal(message_vector),
            user_id,
            id_array(score_of),
            snippets,
        ],
    )
    names = snapshot.names
    rows = [row for row in cursor.fetchall() if row[2] and row[2].strip()]
    # The message's words weighted by how rare they are among these snippets: a name every
    # snippet holds ("Caroline") says little about which one answers.
    held = [set(_WORD.findall(row[2].lower())) & words for row in rows]
    weight = {
        word: math.log((len(rows) + 1) / (sum(word in h for h in held) + 0.5)) for word in words
    }
    total = sum(max(w, 0.0) for w in weight.values()) or 1.0
    candidates = []
    for (
        _snippet_id,
        edge_id,
        text,
        occurred,
        message_id,
        created_at,
        speaker,
        said_at,
        similarity,
    ), found in zip(rows, held, strict=True):
        index = index_of[edge_id]
        label = snapshot.relations[int(snapshot.relation[index])]
        source, target = int(snapshot.source[index]), int(snapshot.target[index])
        when = occurred or snapshot.occurred[index]
        line = memory_line(names[source], label, names[target], when)
        overlap = sum(max(weight[word], 0.0) for word in found) / total
        meaning = max((similarity or 0.0) - SIMILARITY_FLOOR, 0.0)
        candidates.append(
            Candidate(
                key=f"m{message_id}" if message_id else f"t{' '.join(text.split()).lower()}",
                source="edge",
                source_id=edge_id,
                text=text,
                speaker=speaker or "",
                said_on=(said_at or created_at).date(),
                occurred=occurred or "",
                lines=(line,),
                message_id=message_id,
                claim=(source, label),
                score=score_of[edge_id] * (0.1 + overlap + SIMILARITY_WEIGHT * meaning),
            )
        )
    candidates.sort(key=lambda c: (-c.score, c.source_id, c.key))
    return candidates


def sentence_limit(options: ReadOptions) -> int:
    """How many stored sentences compete: one per ``sentence_tokens`` of the budget, about as
    many as would fill it alone (a sentence line is ~20 tokens). The graph's candidates then
    compete with the best sentences, not with their long tail: on the LoCoMo dev file, 10
    sentences at 200 tokens recall 0.659, 40 recall 0.614 (docs/BENCHMARKS.md)."""
    return max(math.ceil(options.budget_tokens / max(options.sentence_tokens, 1)), 1)


def sentence_candidates(
    user_id: int,
    message: str,
    vector: np.ndarray,
    conversation,
    options: ReadOptions,
    *,
    version: int | None = None,
) -> list[Candidate]:
    """The sentence store's candidates (``version``: the graph version the Read loaded its
    snapshot at, so the vector side can use the process's cached copy)."""
    hits = sentences.search(
        user=user_id,
        text=message,
        vector=vector,
        limit=sentence_limit(options),
        exclude_conversation=conversation.pk if conversation else None,
        min_terms=max(options.passage_min_words, 1),
        version=version,
    )
    return [
        Candidate(
            key=f"m{hit.message_id}",
            source="sentence",
            source_id=hit.id,
            text=hit.text,
            speaker=hit.speaker,
            said_on=hit.said_at.date(),
            message_id=hit.message_id,
        )
        for hit in hits
        # Close in meaning, or sharing a rare enough word: an unrelated message injects
        # nothing, a message naming "pottery" finds the one sentence about it.
        if hit.similarity >= options.passage_threshold
        or (hit.lexical or 0.0) >= options.passage_min_bm25
    ]
