"""Edges as records and their deletion, shared by the user's forgets
(``memory.services.corrections``) and the merges that drop a self-relation
(``memory.services.merge``)."""

from __future__ import annotations

from datetime import datetime

from django.db import connection, models

from memory.models import Edge

__all__ = ["delete_edge_rows", "edge_row"]


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def edge_row(edge: Edge) -> dict:
    """The edge's own columns as JSON (ids, label, strength, touch, dates as ISO strings):
    what a forget or a merge records about an edge it deletes."""
    return {
        "id": edge.pk,
        "source": edge.source_id,
        "relation": edge.relation,
        "target": edge.target_id,
        "strength_at_touch": edge.strength_at_touch,
        "last_touched_at": _iso(edge.last_touched_at),
        "confidence": edge.confidence,
        "stability": edge.stability,
        "cardinality": edge.cardinality,
        "expires_at": _iso(edge.expires_at),
        "dormant": edge.dormant,
        "superseded_by": edge.superseded_by_id,
    }


def _delete_dependents(user, edge_ids: list[int]) -> None:
    """What hangs off the edges (snippets, episode links, traversals — whatever points at an
    edge), handled as its ``on_delete`` says; ``superseded_by`` is the caller's job."""
    for relation in Edge._meta.related_objects:
        model, field = relation.related_model, relation.field
        if model is Edge:
            continue
        rows = model._base_manager.filter(**{f"{field.name}__in": edge_ids})
        if any(f.name == "user" for f in model._meta.fields):
            rows = rows.filter(user_id=user.pk)
        if relation.on_delete is models.CASCADE:
            rows.delete()
        elif relation.on_delete is models.SET_NULL:
            rows.update(**{field.name: None})
        else:
            raise NotImplementedError(
                f"forgetting an edge does not know how to handle {model.__name__}.{field.name}"
            )


def delete_edge_rows(user, edge_ids: list[int]) -> None:
    """Delete ``user``'s edges ``edge_ids`` and what hangs off them, in a transaction (the
    caller's ``user_lock``). Edges outside the set that they supersede are the caller's to
    re-point, before or after.

    One statement for the edges themselves: the foreign keys between them (and from edges
    they superseded) are checked at commit, so no edge is revived halfway — Django's own
    cascade would null ``superseded_by`` edge by edge and could clash with "one live edge
    per claim"."""
    if not edge_ids:
        return
    _delete_dependents(user, edge_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {Edge._meta.db_table} WHERE user_id = %s AND id = ANY(%s)",
            [user.pk, list(edge_ids)],
        )
