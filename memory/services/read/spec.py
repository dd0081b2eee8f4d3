"""Strategy ``spec``: content words → seeds → spreading activation → injected text (SPEC §5.1–§5.3).

``spec_recall`` is the reference Read, SPEC §5.1–§5.3 to the letter (``recall`` with
``strategy="spec"``). It loads only the part of one user's graph the message touches, in
a fixed number of queries, calls the pure algorithms of ``memory.core`` and returns a
``ReadRecord`` (SPEC §6.4). A Read takes no lock and changes nothing except appending the
Traversal row of its conversation (SPEC §3).

Queries per Read (no conversation), whatever the size of the graph:

1. the user's keys: only the user's graph version when the in-process key cache is current,
   the key vectors when it is not; above ``EXACT_SCAN_MAX_KEYS`` keys, the HNSW candidates instead
   (the first Read of such a user in a process pays one more query to learn its size);
2. the user's graph version — and, only when it changed since this process last saw it, the
   whole snapshot the spreading walks (``memory.services.snapshot``): nodes, conducting
   edges, episode memberships, what each key points at;
3. names of the fired nodes, and the live edges among them with their snippets (+ 1 when a
   hot node's strongest snippets are all repeats).

Seeding resolution, spreading and the co-episode bonus then run in memory over the snapshot
(``memory.core.activation_arrays``, held equal to ``memory.core.activation``), so a Read that
seeds thousands of nodes costs milliseconds, not a query per hop. + 1 INSERT for the
Traversal rows when a conversation is given (Read v2 is in ``ranking``).
Every query filters on the user's id.
"""

from __future__ import annotations

import time
from datetime import datetime

import numpy as np
from django.db import connection

from memory import embedding
from memory.core.activation import Activation
from memory.core.injection import LineEdge, context_snippets, format_block, memory_lines
from memory.core.seeding import KeyTarget, SeedHit, resolve_seed_offers, select_seed_keys
from memory.core.words import content_words
from memory.models import Snippet
from memory.services.read.keys import gate_columns, score_keys
from memory.services.read.record import ReadOptions, ReadRecord, elapsed_ms
from memory.services.read.spreading import log_traversals, spread_and_fire
from memory.services.read.sql import id_array
from memory.services.snapshot import GraphSnapshot, load_snapshot

__all__ = ["spec_recall"]


def resolve_seeds(
    snapshot: GraphSnapshot, live: np.ndarray, hits: list[SeedHit], hit_key_ids: list[int]
):
    """SPEC §5.1 step 5 over the snapshot: ``(seeded, key_targets)`` where ``seeded`` is node id
    → the SeedHit that seeds it (``memory.core.seeding.resolve_seed_offers``, the array form of
    ``resolve_seed_nodes``), in the order nodes were first seeded, and ``key_targets`` key id →
    (KeyTarget, key text). A key missing from the snapshot (deleted since it was scored), a
    node key whose node is gone, or a label without live edges seeds nothing."""
    key_targets: dict[int, tuple[KeyTarget, str]] = {}
    for key_id in set(hit_key_ids):
        found = snapshot.keys.get(key_id)
        if found is not None:
            node_id, relation, text = found
            key_targets[key_id] = (KeyTarget(node_id, relation), text)
    codes = {label: i for i, label in enumerate(snapshot.relations)}
    ends: dict[str, np.ndarray] = {}
    nothing = np.zeros(0, dtype=np.int64)
    gone = (KeyTarget(None, None), "")
    targets = [key_targets.get(key_id, gone)[0] for key_id in hit_key_ids]
    # Node keys: every live node's index in one lookup, one single-element view per hit.
    node_hits = [
        t.node_id for t in targets if t.node_id is not None and t.node_id in snapshot.live_node_ids
    ]
    node_index = dict(zip(node_hits, snapshot.indices(node_hits)[:, None], strict=True))
    offers = []
    for target in targets:
        if target.node_id is not None:
            offers.append(node_index.get(target.node_id, nothing))
        elif target.relation in codes:
            if target.relation not in ends:
                # Both ends of every live edge with the label, in edge-id order.
                at = np.flatnonzero(live & (snapshot.relation == codes[target.relation]))
                pairs = np.empty(2 * len(at), dtype=np.int64)
                pairs[0::2], pairs[1::2] = snapshot.source[at], snapshot.target[at]
                ends[target.relation] = pairs
            offers.append(ends[target.relation])
        else:
            offers.append(nothing)
    nodes, chosen = resolve_seed_offers([hit.similarity for hit in hits], offers)
    seeded = {
        int(snapshot.node_ids[node]): SeedHit(hits[i].word, i, hits[i].similarity)
        for node, i in zip(nodes.tolist(), chosen.tolist(), strict=True)
    }
    return seeded, key_targets


def injection(
    cursor,
    user_id: int,
    snapshot: GraphSnapshot,
    strength: np.ndarray,
    live: np.ndarray,
    fired: list[Activation],
    options: ReadOptions,
):
    """What SPEC §5.3 injects, from the snapshot: ``(names, edges)`` — name and kind of each
    fired node, and as ``LineEdge`` rows (current strength) the live edges among the fired
    nodes (memory lines) and, per hot node (score ≥ context threshold), its strongest live
    edges with a snippet, carrying the snippet's text. The texts are the only thing read from
    the database (one query, by snippet id).

    Each hot node ships its ``2 × snippets_per_node × (hot nodes + 1)`` strongest candidates
    (at least 32): ``context_snippets`` takes at most ``snippets_per_node`` per node and only
    skips texts already used — by an earlier node (at most ``snippets_per_node`` each) or by
    the node itself (one sentence often justifies several edges). Should a node still run out
    of candidates, the texts of all of its snippet edges are read in one more query, so the
    result is always exactly the core's over every incident edge.
    """
    fired_at = snapshot.indices([act.node_id for act in fired])
    names = {
        int(snapshot.node_ids[i]): (snapshot.names[i], snapshot.kinds[i]) for i in fired_at.tolist()
    }
    is_fired = np.zeros(len(snapshot.node_ids), dtype=bool)
    is_fired[fired_at] = True

    def rows(at: np.ndarray, texts: dict[int, str] | None) -> list[LineEdge]:
        ids, sources, targets = (
            snapshot.edge_ids[at].tolist(),
            snapshot.node_ids[snapshot.source[at]].tolist(),
            snapshot.node_ids[snapshot.target[at]].tolist(),
        )
        labels = [snapshot.relations[code] for code in snapshot.relation[at].tolist()]
        snippet_ids = snapshot.snippet[at].tolist()
        return [
            LineEdge(
                edge_id,
                source,
                target,
                label,
                float(value),
                None if texts is None else texts.get(snippet_id),
                snapshot.occurred[index],
            )
            for edge_id, source, target, label, value, snippet_id, index in zip(
                ids,
                sources,
                targets,
                labels,
                strength[at].tolist(),
                snippet_ids,
                at.tolist(),
                strict=True,
            )
        ]

    lines_only = rows(
        np.flatnonzero(live & is_fired[snapshot.source] & is_fired[snapshot.target]), None
    )

    hot = [
        i
        for act, i in zip(fired, fired_at.tolist(), strict=True)
        if act.score >= options.context_threshold
    ]
    per_node = max(options.snippets_per_node, 0)
    limit = max(32, 2 * per_node * (len(hot) + 1))
    is_hot = np.zeros(len(snapshot.node_ids), dtype=bool)
    is_hot[hot] = True
    near = np.flatnonzero(
        live & (snapshot.snippet > 0) & (is_hot[snapshot.source] | is_hot[snapshot.target])
    )
    # Per hot node: its snippet edges, strongest first (ties: lower edge id).
    ranked: dict[int, np.ndarray] = {}
    for i in hot:
        at = near[(snapshot.source[near] == i) | (snapshot.target[near] == i)]
        ranked[i] = at[np.lexsort((snapshot.edge_ids[at], -strength[at]))]

    def with_texts(picks: dict[int, np.ndarray]) -> list[LineEdge]:
        chosen = [at for at in picks.values() if len(at)]
        if not chosen:
            return []
        wanted = np.unique(snapshot.snippet[np.concatenate(chosen)])
        cursor.execute(
            f"SELECT id, text FROM {Snippet._meta.db_table}"
            " WHERE user_id = %s AND id = ANY(%s::bigint[])",
            [user_id, id_array(wanted.tolist())],
        )
        texts = dict(cursor.fetchall())
        return [edge for i in picks for edge in rows(picks[i], texts)]

    first = {i: at[:limit] for i, at in ranked.items()}
    # The core keeps the first copy of an edge id: the one carrying its snippet comes first.
    edges = with_texts(first) + lines_only
    # A node with more candidates than shipped can only run short when its own shipped
    # candidates hold fewer distinct texts than the hot nodes can take in all (earlier nodes
    # use at most ``per_node`` each); only then is the core asked.
    text_of = {edge.id: " ".join(edge.snippet.split()) for edge in edges if edge.snippet}
    truncated = [
        i
        for i in hot
        if len(ranked[i]) > limit
        and len({text_of.get(edge_id) for edge_id in snapshot.edge_ids[first[i]].tolist()})
        < per_node * len(hot)
    ]
    if truncated:
        display = {node: name for node, (name, _) in names.items()}
        taken = context_snippets(
            fired, edges, display, threshold=options.context_threshold, per_node=per_node
        )
        by_id = {edge.id: edge for edge in edges if edge.snippet is not None}
        short = []
        for i in truncated:
            node = int(snapshot.node_ids[i])
            used = sum(
                1
                for s in taken
                if s["node"] == display[node]
                and node in (by_id[s["edge"]].source, by_id[s["edge"]].target)
            )
            if used < per_node:
                short.append(i)
        if short:
            edges = with_texts({i: ranked[i][limit:] for i in short}) + edges
    return names, edges


def spec_recall(
    *, user_id: int, message: str, now: datetime, conversation, options: ReadOptions
) -> ReadRecord:
    """SPEC §5.1–§5.3 for ``user_id`` (see the module docstring); arguments as ``recall``,
    already checked there."""
    timings = {"embed": 0.0, "seed": 0.0, "spread": 0.0, "format": 0.0}

    words = content_words(message)
    if not words or user_id is None:
        return ReadRecord(words=words, timings_ms=timings)

    started = time.perf_counter()
    vectors = embedding.embed(words)
    timings["embed"] = elapsed_ms(started)

    fired: list[Activation] = []
    crossed: list[int] = []
    names: dict[int, tuple[str, str]] = {}
    line_edges: list[LineEdge] = []
    with connection.cursor() as cursor:
        # --- seeding (SPEC §5.1) ---
        started = time.perf_counter()
        scored = score_keys(cursor, user_id, vectors)
        columns = gate_columns(scored.scores, options.seed_threshold)
        hits = select_seed_keys(
            words,
            scored.scores[:, columns],
            threshold=options.seed_threshold,
            margin_floor=options.margin_floor,
            margin=options.margin,
        )
        hit_key_ids = [int(scored.key_ids[columns[hit.key_index]]) for hit in hits]
        seeded: dict[int, SeedHit] = {}
        key_targets: dict[int, tuple[KeyTarget, str]] = {}
        snapshot = None
        if hits:
            snapshot = load_snapshot(cursor, user_id)
            strength, live = snapshot.live_strengths(now)
            seeded, key_targets = resolve_seeds(snapshot, live, hits, hit_key_ids)
        seed_ids = list(seeded)
        timings["seed"] = elapsed_ms(started)
        if not seed_ids:
            return ReadRecord(words=words, timings_ms=timings)

        if seed_ids:
            # --- spreading activation (SPEC §5.2) ---
            started = time.perf_counter()
            fired, crossed = spread_and_fire(snapshot, strength, live, seed_ids, options)
            timings["spread"] = elapsed_ms(started)

            # --- injection (SPEC §5.3) ---
            started = time.perf_counter()
            names, line_edges = injection(cursor, user_id, snapshot, strength, live, fired, options)
        else:
            started = time.perf_counter()
        # Reads take no lock: a node deleted by a concurrent merge after it was reached has no
        # name row, and is dropped rather than shown nameless.
        fired = [act for act in fired if act.node_id in names]
        fired_ids = [act.node_id for act in fired]
        display = {node_id: name for node_id, (name, _) in names.items()}
        lines = [
            line
            for _, line in memory_lines(
                fired_ids, line_edges, display, dated=options.strategy != "spec"
            )
        ]
        snippets = context_snippets(
            fired,
            line_edges,
            display,
            threshold=options.context_threshold,
            per_node=options.snippets_per_node,
        )
        timings["format"] = elapsed_ms(started)

    started = time.perf_counter()
    text = format_block(lines, [snippet["text"] for snippet in snippets])
    timings["format"] = round(timings["format"] + elapsed_ms(started), 2)

    if conversation is not None and not conversation.incognito and crossed:
        log_traversals(user_id, conversation.pk, crossed, now)

    seed_index = snapshot.indices(list(seeded)).tolist() if seeded else []
    return ReadRecord(
        words=words,
        seeds=[
            {
                "name": snapshot.names[i],
                "kind": snapshot.kinds[i],
                "key": key_targets[hit_key_ids[hit.key_index]][1],
                "similarity": round(hit.similarity, 4),
            }
            for (node_id, hit), i in zip(seeded.items(), seed_index, strict=True)
        ],
        fired=[
            {
                "id": act.node_id,
                "name": names[act.node_id][0],
                "kind": names[act.node_id][1],
                "score": round(act.score, 4),
                "direction": act.direction,
                "hop": act.hop,
            }
            for act in fired
        ],
        memory_lines=lines,
        context_snippets=snippets,
        crossed_edges=crossed,
        text=text,
        timings_ms=timings,
    )
