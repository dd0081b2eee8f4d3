"""MemoryKey rows kept in step with node names, aliases and relation labels (SPEC §4, §5.1).

Call ``sync_node_keys`` whenever a node's name or aliases change and ``sync_relation_keys``
whenever edges with new relation labels appear; both are idempotent and only embed what is
missing. ``reembed`` recomputes every key with the current model.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from django.db import transaction

from memory import embedding
from memory.models import Edge, MemoryKey, Node


def relation_phrase(relation: str) -> str:
    """``HAS_PARTNER`` → ``has partner``."""
    return relation.replace("_", " ").lower()


def _surface_forms(node: Node) -> list[str]:
    forms: list[str] = []
    for text in [node.name, *node.aliases]:
        text = text.strip()
        if text and text not in forms:
            forms.append(text[:200])
    return forms


def _model_name() -> str:
    return embedding.model_name()


def sync_node_keys(*, user_id: int, nodes: Iterable[Node]) -> int:
    """Make the keys of ``nodes`` exactly their name and aliases; return rows created."""
    nodes = list(nodes)
    if not nodes:
        return 0
    wanted = {(node.pk, text) for node in nodes for text in _surface_forms(node)}
    existing = set(
        MemoryKey.objects.for_user(user_id)
        .filter(node_id__in=[n.pk for n in nodes])
        .values_list("node_id", "text")
    )
    stale = existing - wanted
    if stale:
        for node_id, text in stale:
            MemoryKey.objects.for_user(user_id).filter(node_id=node_id, text=text).delete()
    missing = sorted(wanted - existing)
    if not missing:
        return 0
    vectors = embedding.embed([text for _, text in missing])
    model = _model_name()
    MemoryKey.objects.bulk_create(
        [
            MemoryKey(user_id=user_id, node_id=node_id, text=text, embedding=vector, model=model)
            for (node_id, text), vector in zip(missing, vectors, strict=True)
        ],
        ignore_conflicts=True,
    )
    return len(missing)


def sync_relation_keys(*, user_id: int, relations: Iterable[str] | None = None) -> int:
    """Ensure a key for each relation label (default: every label on the user's edges) and
    drop keys of labels no edge carries any more; return rows created."""
    in_use = set(Edge.objects.for_user(user_id).values_list("relation", flat=True).distinct())
    labels = set(relations) & in_use if relations is not None else in_use
    existing = set(
        MemoryKey.objects.for_user(user_id)
        .filter(node__isnull=True)
        .values_list("relation", flat=True)
    )
    gone = existing - in_use
    if gone:
        MemoryKey.objects.for_user(user_id).filter(node__isnull=True, relation__in=gone).delete()
    missing = sorted(labels - existing)
    if not missing:
        return 0
    vectors = embedding.embed([relation_phrase(label) for label in missing])
    model = _model_name()
    MemoryKey.objects.bulk_create(
        [
            MemoryKey(
                user_id=user_id,
                relation=label,
                text=relation_phrase(label),
                embedding=vector,
                model=model,
            )
            for label, vector in zip(missing, vectors, strict=True)
        ],
        ignore_conflicts=True,
    )
    return len(missing)


def reembed(
    *,
    user_id: int | None = None,
    batch_size: int = 512,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Recompute every key's embedding (of one user, or all) with the current model.

    Works in committed batches ordered by id, so an interrupted run keeps what it did and a
    re-run simply recomputes again. Returns the number of keys updated.
    """
    queryset = MemoryKey.objects.all() if user_id is None else MemoryKey.objects.for_user(user_id)
    total = queryset.count()
    done, last_id = 0, 0
    model = _model_name()
    while True:
        batch = list(queryset.filter(id__gt=last_id).order_by("id")[:batch_size])
        if not batch:
            break
        vectors = embedding.embed([key.text for key in batch])
        for key, vector in zip(batch, vectors, strict=True):
            key.embedding = vector
            key.model = model
        with transaction.atomic():
            MemoryKey.objects.bulk_update(batch, ["embedding", "model"])
        done += len(batch)
        last_id = batch[-1].id
        if progress:
            progress(done, total)
    return done


class Progress:
    """``done/total (pct) · rate/s · ETA`` lines for long commands, at most every second."""

    def __init__(self, write: Callable[[str], None], label: str):
        self.write, self.label = write, label
        self.start = time.monotonic()
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last < 1.0 and done < total:
            return
        self.last = now
        elapsed = max(now - self.start, 1e-9)
        rate = done / elapsed
        eta = (total - done) / rate if rate > 0 else float("inf")
        pct = 100.0 * done / total if total else 100.0
        self.write(f"{self.label}: {done}/{total} ({pct:.0f}%) · {rate:.0f}/s · ETA {eta:.0f}s")
