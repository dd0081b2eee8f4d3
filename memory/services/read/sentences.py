"""Searching the sentence store (SPEC §5.7; the store itself is ``memory.services.sentences``).

``search(user=, text=, vector=, limit=)`` fuses PostgreSQL full text (any of the message's
content words, ranked by Okapi BM25 with the user's own document frequencies) and cosine
similarity by reciprocal rank (k = ``RRF_K``), both restricted to the user, in one round
trip. The vector side is an exact per-user scan while the user has at most
``settings.EXACT_SCAN_MAX_KEYS`` sentences — in the process, from the cached vectors of
``sentence_vectors``, when the caller passes the graph version — and the shared HNSW index with
``hnsw.iterative_scan = relaxed_order`` above (SPEC §2: an HNSW scan filtered on one user
returns too few rows without it). No cap on history.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.conf import settings
from django.db import connection

from memory.core.passages import BM25_B, BM25_K1, lexical_terms
from memory.models import Sentence
from memory.models.sentences import SENTENCE_CONFIG
from memory.services.read import sentence_vectors
from memory.services.read.sql import id_array, vector_literal

__all__ = ["RRF_K", "SentenceHit", "search"]

RRF_K = 60
"""Reciprocal rank fusion: ``score = Σ 1 / (RRF_K + rank)`` over the lists a sentence is in."""


@dataclass(frozen=True)
class SentenceHit:
    """One sentence found by ``search``.

    ``lexical_rank`` / ``dense_rank``: 1-based rank in the full-text and the vector list (None
    when not in that list); ``score``: Σ 1 / (RRF_K + rank) over both; ``similarity``: cosine
    of the sentence and the query vector (always set); ``lexical``: its BM25 score, ≥ 0 and
    unbounded, the sum of the idf-weighted matches of the message's words (None outside the
    full-text list). ``speaker`` is ``""``
    for the account holder, ``ASSISTANT`` for a reply the model wrote.
    """

    id: int
    message_id: int
    conversation_id: int
    speaker: str
    role: str
    said_at: datetime
    text: str
    lexical_rank: int | None
    dense_rank: int | None
    score: float
    similarity: float = 0.0
    lexical: float | None = None


# One round trip: the full-text list, the vector list ({dense}: ranked in SQL or listed by the
# process) and their fusion.
_SEARCH_SQL = """
    SET LOCAL hnsw.ef_search = {ef};
    SET LOCAL hnsw.iterative_scan = relaxed_order;
    WITH {terms}
    lex AS ({lexical}),
    {dense},
    fused AS (
        SELECT coalesce(l.id, v.id) AS id, l.rank AS lrank, l.r, v.rank AS drank, v.d,
               coalesce(1.0 / ({rrf} + l.rank), 0) + coalesce(1.0 / ({rrf} + v.rank), 0) AS score
        FROM lex l FULL JOIN dense v ON l.id = v.id
    )
    SELECT f.id, s.message_id, s.conversation_id, s.speaker, s.role, s.said_at, s.text,
           f.lrank, f.drank, f.score, 1 - (s.vector <=> %(q)s::vector), f.r
    FROM fused f JOIN {table} s ON s.id = f.id AND s.user_id = %(user)s
    ORDER BY f.score DESC, f.lrank NULLS LAST, f.drank NULLS LAST, f.id LIMIT %(limit)s;
    SET LOCAL hnsw.ef_search TO DEFAULT;
    SET LOCAL hnsw.iterative_scan TO DEFAULT
"""

# The vector side in SQL. ``big`` decides, once, whether the user is past the exact-scan
# threshold: it reads at most max+1 index entries, so it costs the same for a user of a
# million rows. Only the matching branch runs (the other's one-time filter is false). The
# exact branch orders by an expression the HNSW index cannot serve, so it scans the user's
# rows through the B-tree on user_id; the HNSW branch scans the shared index, continuing past
# ef_search until enough of this user's rows are found (relaxed order: the ranks below come
# from the distances themselves).
_SQL_DENSE = """
    big AS (
        SELECT EXISTS (SELECT 1 FROM {table} WHERE user_id = %(user)s OFFSET %(max)s) AS b
    ),
    exact AS (
        SELECT s.id, s.vector <=> %(q)s::vector AS d FROM {table} s
        WHERE s.user_id = %(user)s AND NOT (SELECT b FROM big) {filters}
        ORDER BY (s.vector <=> %(q)s::vector) + 0, s.id LIMIT %(k)s
    ),
    approx AS (
        SELECT s.id, s.vector <=> %(q)s::vector AS d FROM {table} s
        WHERE s.user_id = %(user)s AND (SELECT b FROM big) {filters}
        ORDER BY s.vector <=> %(q)s::vector LIMIT %(k)s
    ),
    dense AS (
        SELECT id, d, row_number() OVER (ORDER BY d, id) AS rank
        FROM (SELECT * FROM exact UNION ALL SELECT * FROM approx) x
    )"""

# The vector side ranked in the process (``sentence_vectors``): its ids and distances, in
# order.
_LISTED_DENSE = """
    dense AS (
        SELECT id, d, rank FROM unnest(%(dense_ids)s::bigint[], %(dense_d)s::float8[])
            WITH ORDINALITY AS x(id, d, rank)
    )"""

# Full text ranked by Okapi BM25 (``BM25_K1``, ``BM25_B``, the Lucene idf) over the user's own
# sentences: any of the message's content words (a question's words rarely all occur in one
# sentence), each weighted by how rare it is among this user's sentences — ``ts_rank_cd`` has
# no idf, so "Caroline" (in every sentence she said) would weigh as much as "pottery". A
# sentence rarely repeats a word, so the term frequency is taken as 1; its length is its
# ``terms``. plainto_tsquery applies the same configuration (stemming, stop words) as the
# generated column and parses any input safely; each distinct lexeme counts once. Each word's
# matching rows are read once (``hits``): its document frequency counts all of them, the
# ranking only those passing the filters (``ok``) — counting them in a second scan of the
# same rows was a third of the statement.
_LEXICAL_SQL = """
    SELECT id, r, row_number() OVER (ORDER BY r DESC, id) AS rank FROM (
        SELECT h.id, sum(t.idf * ({k1} + 1) / (1 + {k1} * (1 - {b} + {b} * h.terms / st.avgdl)))
               AS r
        FROM hits h JOIN terms t ON t.i = h.i CROSS JOIN st
        WHERE h.ok
        GROUP BY h.id
        ORDER BY r DESC, h.id LIMIT %(k)s
    ) l
"""
_TERMS_SQL = """
    st AS (
        SELECT count(*)::float8 AS n, greatest(coalesce(avg(terms), 1), 1)::float8 AS avgdl
        FROM {table} WHERE user_id = %(user)s
    ),
    words AS (
        SELECT min(i) AS i, q FROM (
            SELECT x.i, plainto_tsquery('{config}', x.w) AS q
            FROM unnest(%(words)s::text[]) WITH ORDINALITY AS x(w, i)
        ) x WHERE numnode(q) > 0 GROUP BY q
    ),
    hits AS MATERIALIZED (
        SELECT w.i, s.id, s.terms, (TRUE {filters}) AS ok
        FROM words w JOIN {table} s ON s.user_id = %(user)s AND s.search @@ w.q
    ),
    terms AS (
        SELECT h.i, ln(1 + (st.n - count(*) + 0.5) / (count(*) + 0.5)) AS idf
        FROM hits h CROSS JOIN st GROUP BY h.i, st.n
    ),
"""
_NO_LEXICAL_SQL = "SELECT NULL::bigint AS id, NULL::real AS r, NULL::bigint AS rank WHERE false"


def search(
    *,
    user,
    text: str,
    vector: np.ndarray,
    limit: int,
    exclude_conversation: int | None = None,
    min_terms: int = 1,
    candidates: int = 50,
    version: int | None = None,
) -> list[SentenceHit]:
    """``user``'s sentences best matching ``text`` (its content words, full text) and
    ``vector`` (its unit embedding, cosine), fused by reciprocal rank; best first (ties: the
    better full-text rank, then the better vector rank, then the lower id), at most ``limit``.

    Each side ranks its ``candidates`` best rows (at least ``limit``). Sentences of
    ``exclude_conversation`` (an id; e.g. the current one) and with fewer than ``min_terms``
    content words are left out. Every row read is ``user``'s.

    ``version``: the user's graph version as the caller read it (a Read has it from its
    snapshot). With it, the vector side is ranked in the process from a cached copy of the
    user's sentence vectors (``sentence_vectors``; reloaded when the version moved, one more
    query); without it, or past ``EXACT_SCAN_MAX_KEYS`` sentences, in SQL. One round trip
    otherwise.
    """
    user_id = user if isinstance(user, int) else user.pk
    if user_id is None or limit <= 0:
        return []
    k = max(int(candidates), int(limit))
    table = Sentence._meta.db_table
    filters = "AND s.terms >= %(min_terms)s"
    if exclude_conversation is not None:
        filters += " AND s.conversation_id <> %(exclude)s"
    words = list(dict.fromkeys(lexical_terms(text)))
    lexical = _LEXICAL_SQL.format(k1=float(BM25_K1), b=float(BM25_B)) if words else _NO_LEXICAL_SQL
    terms = _TERMS_SQL.format(table=table, config=SENTENCE_CONFIG, filters=filters) if words else ""
    params = {
        "user": user_id,
        "max": int(settings.EXACT_SCAN_MAX_KEYS),
        "k": k,
        "limit": int(limit),
        "q": vector_literal(vector),
        "words": words,
        "min_terms": int(min_terms),
        "exclude": exclude_conversation,
    }
    with connection.cursor() as cursor:
        listed = sentence_vectors.dense_list(
            cursor,
            user_id,
            version,
            vector,
            k,
            exclude_conversation=exclude_conversation,
            min_terms=int(min_terms),
        )
        if listed is not None:
            dense = _LISTED_DENSE
            params["dense_ids"], params["dense_d"] = id_array(listed.ids), listed.distances
        else:
            dense = _SQL_DENSE.format(table=table, filters=filters)
        sql = _SEARCH_SQL.format(
            ef=max(2 * k, 100),
            table=table,
            lexical=lexical,
            dense=dense,
            filters=filters,
            rrf=RRF_K,
            terms=terms,
        )
        cursor.execute(sql, params)
        while cursor.description is None and cursor.nextset():
            pass
        rows = cursor.fetchall()
    return [
        SentenceHit(
            id=int(r[0]),
            message_id=int(r[1]),
            conversation_id=int(r[2]),
            speaker=r[3],
            role=r[4],
            said_at=r[5],
            text=r[6],
            lexical_rank=None if r[7] is None else int(r[7]),
            dense_rank=None if r[8] is None else int(r[8]),
            score=float(r[9]),
            similarity=float(r[10]),
            lexical=None if r[11] is None else float(r[11]),
        )
        for r in rows
    ]
