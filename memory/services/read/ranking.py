"""Read v2 (SPEC §5.7): precise seeds, one ranked list from the graph and the sentence store,
packed to ``MEMORY_BUDGET_TOKENS``. Strategies ``"graph"`` (graph candidates only) and
``"default"`` (graph + sentences); ``"spec"`` is ``memory.services.read.spec``.

Steps, each measured in ``timings_ms``:

1. **embed** — the content words and the whole message, in one batch.
2. **seed** — names and aliases matched lexically first, embedding only for words that name
   nothing (``memory.core.seeding.precise_seed_keys``); a seed starts at its similarity; a
   relation key seeds the ends of its ``relation_edges`` strongest live edges only; at most
   ``max_seeds`` seeds, strongest first.
3. **spread** — SPEC §5.2 from those activations (``spreading.spread_and_fire``).
4. **rank** — graph candidates: the snippets of the live edges at fired nodes, an edge scored
   by the activation of its fired ends × its current strength, a snippet by its edge's score
   and what it shares with the message — its words (idf-weighted) and its meaning (the
   cosine of its stored sentence, ``SIMILARITY_WEIGHT``); sentence candidates:
   ``sentences.search``.
   Fused and packed by ``memory.core.ranking``; a message naming a time ("last May") prefers
   what was said or dated then.
"""

from __future__ import annotations

import math
import re
import time
import weakref
from datetime import datetime

import numpy as np
from django.db import connection

from memory import embedding
from memory.core.dates import occurred_range, resolve_occurred
from memory.core.injection import memory_line
from memory.core.passages import Passage, format_with_passages, passage_line, said_on
from memory.core.ranking import Candidate, count_tokens, fuse, pack
from memory.core.seeding import KeyLexicon, precise_seed_keys
from memory.core.words import content_words
from memory.models import Snippet
from memory.models.sentences import Sentence
from memory.services.read import sentences
from memory.services.read.keys import score_keys
from memory.services.read.record import ReadOptions, ReadRecord, elapsed_ms
from memory.services.read.spreading import log_traversals, spread_and_fire
from memory.services.read.sql import id_array, vector_literal
from memory.services.snapshot import GraphSnapshot, load_snapshot

__all__ = ["ranked_recall"]

_WORD = re.compile(r"[^\W_]+")
RELATION_SEED_WEIGHT = 0.5
SIMILARITY_WEIGHT = 1.0
"""A graph snippet's relevance to the message: its words' share of the message's idf-weighted
content words, plus this × how far the cosine of its sentence and the message lies above
``SIMILARITY_FLOOR`` (docs/BENCHMARKS.md: graph only 0.326 → 0.345 at 200 tokens)."""
SIMILARITY_FLOOR = 0.2
_lexicons: dict[int, tuple[weakref.ref, KeyLexicon]] = {}


def _lexicon(snapshot: GraphSnapshot) -> KeyLexicon:
    """The snapshot's name keys by word, built once per snapshot (snapshots are cached per
    graph version, so this is rebuilt only when the graph changed)."""
    found = _lexicons.get(id(snapshot))
    if found is not None and found[0]() is snapshot:
        return found[1]
    lexicon = KeyLexicon(
        {
            key_id: text
            for key_id, (node_id, _, text) in snapshot.keys.items()
            if node_id is not None and node_id in snapshot.live_node_ids
        }
    )
    if len(_lexicons) > 256:
        _lexicons.clear()
    _lexicons[id(snapshot)] = (weakref.ref(snapshot), lexicon)
    return lexicon


def _seeds(
    snapshot: GraphSnapshot,
    strength: np.ndarray,
    live: np.ndarray,
    hits: list[tuple[str, int, float]],
    options: ReadOptions,
) -> dict[int, tuple[float, str, str]]:
    """Node index → (starting activation, word, key text), strongest ``max_seeds``."""
    codes = {label: i for i, label in enumerate(snapshot.relations)}
    best: dict[int, tuple[float, str, str]] = {}

    def offer(index: int, similarity: float, word: str, text: str) -> None:
        if index not in best or similarity > best[index][0]:
            best[index] = (similarity, word, text)

    for word, key_id, similarity in hits:
        found = snapshot.keys.get(key_id)
        if found is None:
            continue
        node_id, relation, text = found
        if node_id is not None:
            if node_id in snapshot.live_node_ids:
                offer(int(snapshot.indices([node_id])[0]), similarity, word, text)
        elif relation in codes:
            at = np.flatnonzero(live & (snapshot.relation == codes[relation]))
            strongest = at[np.lexsort((snapshot.edge_ids[at], -strength[at]))]
            for edge in strongest[: options.relation_edges].tolist():
                for index in (int(snapshot.source[edge]), int(snapshot.target[edge])):
                    # A label says less about who than a name does: half the activation.
                    offer(index, similarity * RELATION_SEED_WEIGHT, word, text)
    ranked = sorted(best.items(), key=lambda item: (-item[1][0], item[0]))
    return dict(ranked[: options.max_seeds])


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


def _graph_candidates(
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


def _sentence_candidates(
    user_id: int, message: str, vector: np.ndarray, conversation, options: ReadOptions
) -> list[Candidate]:
    hits = sentences.search(
        user=user_id,
        text=message,
        vector=vector,
        limit=sentence_limit(options),
        exclude_conversation=conversation.pk if conversation else None,
        min_terms=max(options.passage_min_words, 1),
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


def _cost(candidate: Candidate) -> float:
    passage = Passage(
        candidate.message_id or 0, candidate.speaker, said_on(candidate.said_on), candidate.text
    )
    return count_tokens(passage_line(passage)) + sum(count_tokens(line) for line in candidate.lines)


def ranked_recall(
    *, user_id: int, message: str, now: datetime, conversation, options: ReadOptions
) -> ReadRecord:
    """Read v2 for ``user_id`` (see the module docstring); arguments as ``recall``, already
    checked there."""
    timings = {"embed": 0.0, "seed": 0.0, "spread": 0.0, "format": 0.0}
    words = content_words(message)
    if not words:
        return ReadRecord(words=words, timings_ms=timings)
    with_sentences = options.strategy == "default"

    started = time.perf_counter()
    # One batch: the content words and, for the sentence search, the whole message.
    embedded = embedding.embed([*words, message])
    vectors = embedded[: len(words)]
    message_vector = embedded[len(words)]
    timings["embed"] = elapsed_ms(started)

    fired, crossed, seeds = [], [], {}
    graph: list[Candidate] = []
    snapshot = None
    with connection.cursor() as cursor:
        started = time.perf_counter()
        snapshot = load_snapshot(cursor, user_id)
        if len(snapshot.node_ids):
            strength, live = snapshot.live_strengths(now)
            scored = score_keys(cursor, user_id, vectors)
            hits = precise_seed_keys(
                words,
                scored.scores,
                scored.key_ids.tolist(),
                _lexicon(snapshot),
                threshold=options.seed_threshold,
                per_word=options.seeds_per_word,
            )
            seeds = _seeds(snapshot, strength, live, hits, options)
        timings["seed"] = elapsed_ms(started)
        if seeds:
            started = time.perf_counter()
            seed_ids = snapshot.node_ids[list(seeds)].tolist()
            fired, crossed = spread_and_fire(
                snapshot,
                strength,
                live,
                seed_ids,
                options,
                initial=np.array([value[0] for value in seeds.values()]),
            )
            graph = _graph_candidates(
                cursor,
                user_id,
                snapshot,
                strength,
                live,
                fired,
                set(words),
                message_vector,
                options,
            )
            timings["spread"] = elapsed_ms(started)

    started = time.perf_counter()
    lists = {"graph": graph}
    if with_sentences:
        lists["sentences"] = _sentence_candidates(
            user_id, message, message_vector, conversation, options
        )
    timings["seed"] = round(timings["seed"] + elapsed_ms(started), 2)

    started = time.perf_counter()
    named = resolve_occurred(message, now.date())
    ranked = fuse(
        lists,
        window=occurred_range(named) if named else None,
        weights={"graph": options.graph_weight},
    )
    lined = 0
    for candidate in ranked:
        # Only the best few graph candidates keep their memory line: the line gives the
        # claim's shape and date, the snippet the words, and lines cost tokens.
        kept = max(options.graph_lines - lined, 0)
        candidate.lines = candidate.lines[:kept]
        lined += len(candidate.lines)
        candidate.tokens = _cost(candidate)
    packed = pack(ranked, options.budget_tokens)
    lines = list(dict.fromkeys(line for c in packed for line in c.lines))
    passages = [Passage(c.message_id or 0, c.speaker, said_on(c.said_on), c.text) for c in packed]
    text = format_with_passages(lines, [], passages)
    snippets = [
        {
            "node": f"{c.speaker or 'you'}, {said_on(c.said_on)}",
            "edge": c.source_id if c.source == "edge" else None,
            "text": c.text,
            "message": c.message_id,
            "source": c.source,
            "id": c.source_id,
            "score": round(c.score, 5),
            "tokens": round(c.tokens, 1),
        }
        for c in packed
    ]
    timings["format"] = elapsed_ms(started)

    if conversation is not None and not conversation.incognito and crossed:
        log_traversals(user_id, conversation.pk, crossed, now)
    fired_at = snapshot.indices([act.node_id for act in fired]).tolist() if fired else []
    return ReadRecord(
        words=words,
        seeds=[
            {
                "name": snapshot.names[i],
                "kind": snapshot.kinds[i],
                "key": key,
                "similarity": round(similarity, 4),
            }
            for i, (similarity, _, key) in seeds.items()
        ],
        fired=[
            {
                "id": act.node_id,
                "name": snapshot.names[i],
                "kind": snapshot.kinds[i],
                "score": round(act.score, 4),
                "direction": act.direction,
                "hop": act.hop,
            }
            for act, i in zip(fired, fired_at, strict=True)
        ],
        memory_lines=lines,
        context_snippets=snippets,
        crossed_edges=crossed,
        text=text,
        timings_ms=timings,
    )
