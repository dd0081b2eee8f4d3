"""Read v2 (SPEC §5.7): precise seeds, one ranked list from the graph and the sentence store,
packed to ``MEMORY_BUDGET_TOKENS``. Strategies ``"graph"`` (graph candidates only) and
``"default"`` (graph + sentences); ``"spec"`` is ``memory.services.read.spec``.

Steps, each measured in ``timings_ms``:

1. **embed** — the whole message and the content words that name no key lexically, in
   one batch.
2. **seed** — names and aliases matched lexically first, embedding only for words that name
   nothing (``memory.core.seeding.precise_seed_keys``); a seed starts at its similarity; a
   relation key seeds the ends of its ``relation_edges`` strongest live edges only; at most
   ``max_seeds`` seeds, strongest first.
3. **spread** — SPEC §5.2 from those activations (``spreading.spread_and_fire``).
4. **rank** — the graph's candidates and the sentence store's
   (``memory.services.read.candidates``), fused and packed by ``memory.core.ranking``; a
   message naming a time ("last May") prefers what was said or dated then.
"""

from __future__ import annotations

import time
import weakref
from datetime import datetime

import numpy as np
from django.db import connection

from memory import embedding
from memory.core.dates import occurred_range, resolve_occurred
from memory.core.passages import Passage, format_with_passages, passage_line, said_on
from memory.core.ranking import Candidate, count_tokens, fuse, pack
from memory.core.seeding import KeyLexicon, precise_seed_keys
from memory.core.words import content_words
from memory.services.read.candidates import graph_candidates, sentence_candidates
from memory.services.read.keys import score_keys
from memory.services.read.record import ReadOptions, ReadRecord, elapsed_ms
from memory.services.read.spreading import log_traversals, spread_and_fire
from memory.services.snapshot import GraphSnapshot, load_snapshot

__all__ = ["ranked_recall"]

RELATION_SEED_WEIGHT = 0.5
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

    fired, crossed, seeds = [], [], {}
    graph: list[Candidate] = []
    with connection.cursor() as cursor:
        started = time.perf_counter()
        snapshot = load_snapshot(cursor, user_id)
        has_graph = len(snapshot.node_ids) > 0
        # Words that name a key lexically seed without their vector: only the others are
        # embedded, in one batch with the whole message (the sentence search and the graph
        # snippets' meaning need it).
        matches, unnamed_rows = {}, []
        if has_graph:
            lexicon = _lexicon(snapshot)
            matches = {word: lexicon.match(word) for word in words}
            unnamed_rows = [i for i, word in enumerate(words) if not matches[word]]
        unnamed = [words[i] for i in unnamed_rows]
        timings["seed"] = elapsed_ms(started)

        started = time.perf_counter()
        embedded = embedding.embed([*unnamed, message])
        message_vector = embedded[len(unnamed)]
        timings["embed"] = elapsed_ms(started)

        started = time.perf_counter()
        if has_graph:
            strength, live = snapshot.live_strengths(now)
            scores, key_ids = np.zeros((len(words), 0), dtype=np.float32), []
            if unnamed:
                scored = score_keys(cursor, user_id, embedded[: len(unnamed)])
                key_ids = scored.key_ids.tolist()
                scores = np.zeros((len(words), len(key_ids)), dtype=np.float32)
                scores[unnamed_rows] = scored.scores
            hits = precise_seed_keys(
                words,
                scores,
                key_ids,
                lexicon,
                threshold=options.seed_threshold,
                per_word=options.seeds_per_word,
                matches=matches,
            )
            seeds = _seeds(snapshot, strength, live, hits, options)
        timings["seed"] = round(timings["seed"] + elapsed_ms(started), 2)
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
            graph = graph_candidates(
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
        lists["sentences"] = sentence_candidates(
            user_id, message, message_vector, conversation, options, version=snapshot.version
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
