"""The sentence store: every sentence of a user's earlier turns, searchable (SPEC §4, §5.7).

Writing (the extraction job, in the worker — never at read time):

* ``index_conversation(user=, conversation=, now=)`` splits every message of an ended,
  non-incognito conversation into sentences (``memory.core.passages.split_sentences``),
  embeds each as ``embedding_text(speaker, text)`` ("Caroline: I went to the LGBTQ support
  group", so "what did Caroline do?" finds what *she* said) through ``memory.embedding`` and
  replaces the conversation's rows. It is
  ``prepare_conversation`` (reads and embeds, no transaction) followed by
  ``store_conversation`` (one transaction: delete + bulk insert), so a caller holding a lock
  can embed before taking it. Re-running replaces, never duplicates.
* What is indexed: the user's turns always; the assistant's replies only when the model wrote
  them (``Message.offline`` False) — an offline reply only echoes what was recalled. A
  sentence without a content word ("Ok!") is not stored. A sentence matching something the
  user already forgot (a forgotten node's name or alias, a forgotten memory's sentence —
  kept as keyed digests in ``ForgottenText``, never as text) is not stored either, so a
  re-index or a backfill never brings it back.

Forgetting (called by ``memory.services.corrections`` inside its transaction):

* ``forget_edges(user=, edge_ids=)`` deletes the sentences the edges' snippets were cut from
  (before the snippets themselves are deleted);
* ``forget_names(user=, names=)`` deletes every sentence naming one of ``names`` as whole
  words, case-insensitively.
* A deleted message or conversation takes its sentences with it (``on_delete=CASCADE``).

Searching is the Read's (``memory.services.read.sentences``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from django.utils.crypto import salted_hmac

from memory import embedding, ports
from memory.core.passages import (
    ASSISTANT_SPEAKER,
    Forgotten,
    fold_text,
    forgotten_from_corrections,
    message_sentences,
    name_form,
    name_pattern,
)
from memory.models import Correction, CorrectionAction, ForgottenText, Sentence, Snippet

__all__ = [
    "ASSISTANT",
    "PreparedSentences",
    "embedding_text",
    "forget_edges",
    "forget_names",
    "forgotten",
    "index_conversation",
    "prepare_conversation",
    "reembed_sentences",
    "store_conversation",
]

ASSISTANT = ASSISTANT_SPEAKER
"""``Sentence.speaker`` of a reply the model wrote."""


EMBED_BATCH = 256  # sentences embedded (and inserted) per batch


# --- writing ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PreparedSentences:
    """A conversation's sentences, embedded, ready for ``store_conversation``.

    ``rows``: ``(message_id, speaker, role, said_at, position, text, terms)`` per sentence;
    ``vectors``: ``(len(rows), dim)`` float32, unit rows. ``eligible`` is False for a
    conversation that must have no sentences (open, incognito or gone): storing it deletes
    whatever it had."""

    conversation_id: int
    eligible: bool
    rows: tuple[tuple, ...] = ()
    vectors: np.ndarray | None = None


def _digest(text: str) -> str:
    # Keyed, so a digest of a short name cannot be matched against guesses without the key.
    return salted_hmac("pegasus.sentences.forgotten", text, algorithm="sha256").hexdigest()


def forgotten(user) -> Forgotten:
    """What ``user`` (instance or id) forgot (two queries): the digests ``forget_edges`` and
    ``forget_names`` recorded, and whatever text the user's forget corrections still hold."""
    user_id = user if isinstance(user, int) else user.pk
    legacy = forgotten_from_corrections(
        Correction.objects.for_user(user_id)
        .filter(action__in=[CorrectionAction.FORGET_NODE, CorrectionAction.FORGET_EDGE])
        .values_list("action", "before")
    )
    sentence_digests, name_digests, longest = set(), set(), 0
    for kind, digest, words in ForgottenText.objects.for_user(user_id).values_list(
        "kind", "digest", "words"
    ):
        if kind == ForgottenText.NAME:
            name_digests.add(digest)
            longest = max(longest, words)
        else:
            sentence_digests.add(digest)
    return Forgotten(
        names=legacy.names,
        snippets=legacy.snippets,
        sentence_digests=frozenset(sentence_digests),
        name_digests=frozenset(name_digests),
        name_words=longest,
        digest=_digest,
    )


def _remember(user_id: int, kind: str, forms: Iterable[str]) -> None:
    """Record the digests of ``forms`` (already folded) as forgotten ``kind``s of the user."""
    now = timezone.now()  # when it was recorded; no rule depends on it
    rows = {_digest(form): len(form.split()) for form in forms if form}
    ForgottenText.objects.bulk_create(
        [
            ForgottenText(
                user_id=user_id, kind=kind, digest=digest, words=min(words, 32767), created_at=now
            )
            for digest, words in rows.items()
        ],
        ignore_conflicts=True,
    )


def embedding_text(speaker: str, text: str) -> str:
    """What a sentence is embedded as: ``"Speaker: text"`` when it has a speaker (a named
    speaker of an imported conversation, or ``ASSISTANT``), the bare text for the account
    holder's own words. Measured on the LoCoMo dev file, the prefix lifts recall at 200 tokens
    by ~0.02: questions name the person ("What did Melanie paint?"), sentences rarely do."""
    return f"{speaker}: {text}" if speaker else text


def prepare_conversation(*, user, conversation) -> PreparedSentences:
    """Read and embed ``conversation``'s sentences (no transaction, no lock held).

    ``user``: instance or id; ``conversation``: instance or id of ``user``'s (another user's
    or a missing one prepares as not eligible: nothing is ever written for it)."""
    user_id = user if isinstance(user, int) else user.pk
    pk = conversation if isinstance(conversation, int) else conversation.pk
    chats = ports.conversations()
    row = chats.get(user=user_id, conversation_id=pk)
    if row is None or not row.ended or row.incognito:
        return PreparedSentences(conversation_id=pk, eligible=False)
    messages = chats.messages(user=user_id, conversation_id=pk)
    rows = message_sentences(messages, forgotten(user_id))
    texts = [embedding_text(r[1], r[5]) for r in rows]
    parts = [embedding.embed(texts[i : i + EMBED_BATCH]) for i in range(0, len(texts), EMBED_BATCH)]
    vectors = (
        np.concatenate(parts) if parts else np.zeros((0, settings.EMBEDDING_DIM), dtype=np.float32)
    )
    return PreparedSentences(conversation_id=pk, eligible=True, rows=tuple(rows), vectors=vectors)


def store_conversation(*, user, prepared: PreparedSentences, now: datetime) -> int:
    """Replace the conversation's sentences with ``prepared``'s, in one transaction (a savepoint
    inside the caller's). Returns how many rows were written. ``now`` (aware) is their
    ``created_at``."""
    user_id = user if isinstance(user, int) else user.pk
    with transaction.atomic():
        Sentence.objects.for_user(user_id).filter(conversation_id=prepared.conversation_id).delete()
        if not prepared.eligible or not prepared.rows:
            return 0
        Sentence.objects.bulk_create(
            [
                Sentence(
                    user_id=user_id,
                    conversation_id=prepared.conversation_id,
                    message_id=message_id,
                    speaker=speaker,
                    role=role,
                    said_at=said_at,
                    position=position,
                    text=text,
                    terms=terms,
                    vector=vector,
                    created_at=now,
                )
                for (message_id, speaker, role, said_at, position, text, terms), vector in zip(
                    prepared.rows, prepared.vectors, strict=True
                )
            ],
            batch_size=EMBED_BATCH,
        )
    return len(prepared.rows)


def index_conversation(*, user, conversation, now: datetime) -> int:
    """Index ``conversation`` (instance or id of ``user``'s): ``prepare_conversation`` then
    ``store_conversation``. Idempotent: re-running replaces the conversation's rows. A
    conversation that is open, incognito or not ``user``'s gets none. Returns the row count."""
    prepared = prepare_conversation(user=user, conversation=conversation)
    return store_conversation(user=user, prepared=prepared, now=now)


def reembed_sentences(
    *, user_id: int | None = None, batch_size: int = EMBED_BATCH, progress=None
) -> int:
    """Recompute every Sentence vector (of one user, or everyone's) with the current model, in
    committed batches ordered by id (an interrupted run can simply be started again). Returns
    the number of rows updated; ``progress(done, total)`` is called after each batch."""
    queryset = Sentence.objects.all() if user_id is None else Sentence.objects.for_user(user_id)
    total = queryset.count()
    done, last_id = 0, 0
    while True:
        batch = list(
            queryset.filter(id__gt=last_id)
            .order_by("id")
            .only("id", "speaker", "text")[:batch_size]
        )
        if not batch:
            break
        texts = [embedding_text(r.speaker, r.text) for r in batch]
        for row, vector in zip(batch, embedding.embed(texts), strict=True):
            row.vector = vector
        with transaction.atomic():
            Sentence.objects.bulk_update(batch, ["vector"])
        done += len(batch)
        last_id = batch[-1].id
        if progress:
            progress(done, total)
    return done


# --- forgetting -------------------------------------------------------------------------------

_NORMALISED = r"lower(btrim(regexp_replace({}, '\s+', ' ', 'g')))"


def forget_edges(*, user, edge_ids: Sequence[int]) -> int:
    """Delete the sentences that the snippets of ``edge_ids`` (``user``'s) were cut from: every
    sentence of the user containing one of the snippets, and the sentences of a snippet's own
    message that it contains (a snippet spanning several sentences); compared case- and
    white-space-insensitively. Their digests are kept (``ForgottenText``) so indexing never
    stores them again. Call it before the snippets are deleted. Returns the count."""
    user_id = user if isinstance(user, int) else user.pk
    if not edge_ids:
        return 0
    s, p = _NORMALISED.format("s.text"), _NORMALISED.format("sn.text")
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            DELETE FROM {Sentence._meta.db_table} s
            USING {Snippet._meta.db_table} sn
            WHERE s.user_id = %(user)s AND sn.user_id = %(user)s
              AND sn.edge_id = ANY(%(edges)s::bigint[]) AND {p} <> ''
              AND (strpos({s}, {p}) > 0
                   OR (sn.message_id = s.message_id AND strpos({p}, {s}) > 0))
            RETURNING s.text
            """,
            {"user": user_id, "edges": [int(e) for e in edge_ids]},
        )
        deleted = [text for (text,) in cursor.fetchall()]
    _remember(user_id, ForgottenText.SENTENCE, (fold_text(text) for text in deleted))
    return len(deleted)


def forget_names(*, user, names: Iterable[str]) -> int:
    """Delete every sentence of ``user`` naming one of ``names`` (a node's name and aliases)
    as whole words, case-insensitively (``memory.core.passages.name_pattern``); the names'
    digests are kept (``ForgottenText``) so indexing never stores such a sentence again.
    Returns the count."""
    user_id = user if isinstance(user, int) else user.pk
    names = [n for n in names if n]
    patterns = [p for p in (name_pattern(n, postgres=True) for n in names) if p]
    if not patterns:
        return 0
    _remember(user_id, ForgottenText.NAME, (name_form(n) for n in names))
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {Sentence._meta.db_table} WHERE user_id = %s AND text ~* ANY(%s::text[])",
            [user_id, patterns],
        )
        return cursor.rowcount
