"""What every correction shares: the error it raises, the node it locks, and the
``Correction`` row that records it."""

from __future__ import annotations

from datetime import datetime

from memory.models import Correction, Node, get_owned_or_404


class CorrectionError(ValueError):
    """A correction that cannot be made; ``str(exc)`` is the reason, ``field`` the input."""

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.field = field


def _locked_node(user, node) -> Node:
    node_id = node.pk if isinstance(node, Node) else node
    return get_owned_or_404(Node.objects.select_for_update(), user, pk=node_id)


def _node_state(node: Node) -> dict:
    return {"name": node.name, "kind": node.kind, "aliases": list(node.aliases)}


def _record(
    user, action: str, target_type: str, target_id: int, before: dict, after: dict, now: datetime
) -> Correction:
    return Correction.objects.create(
        user_id=user.pk,
        action=action,
        target_type=target_type,
        target_id=target_id,
        before=before,
        after=after,
        created_at=now,
    )
