"""The user's self node: chosen once, then fixed (SPEC §5.6)."""

from __future__ import annotations

from django.utils import timezone

from memory.core.merge_rules import normalise_name
from memory.models import Node, NodeKind
from memory.services.keys import sync_node_keys
from memory.services.locks import user_lock


def name_self_node(*, user, name: str, now=None) -> Node:
    """Give the self node ``name``: create it if the user has none yet, else add ``name`` as an
    alias (the self node's identity never changes; its name does not either)."""
    now = now or timezone.now()
    name = " ".join(name.split())[:200]
    with user_lock(user.pk):
        node = Node.objects.for_user(user).filter(is_self=True).first()
        if node is None:
            node = Node.objects.create(
                user=user,
                kind=NodeKind.PERSON,
                name=name,
                normalised_name=normalise_name(name),
                is_self=True,
                confidence=1.0,
                created_at=now,
                updated_at=now,
            )
        else:
            known = {normalise_name(form) for form in [node.name, *node.aliases]}
            if normalise_name(name) in known:
                return node
            node.aliases = [*node.aliases, name]
            node.updated_at = now
            node.save(update_fields=["aliases", "updated_at"])
        sync_node_keys(user_id=user.pk, nodes=[node])
    return node
