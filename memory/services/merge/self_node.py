"""The user's self node (SPEC §5.6): created lazily by a Write (``ensure_self_node``) or by
the profile form (``name_self_node``), then fixed — it keeps its identity forever."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from django.utils import timezone

from memory import ports
from memory.core.cleaning import normalise_ws
from memory.core.merge_rules import is_self_placeholder, normalise_name
from memory.models import Node, NodeKind
from memory.services import keys
from memory.services.locks import user_lock
from memory.services.merge.common import _add_aliases, _fill_properties, _known_forms


def display_name(user) -> str:
    """The account's name for its self node: the profile's display name when set, else the
    full name, else the username."""
    profile_name = ports.profiles().display_name(user.pk)
    name = profile_name or user.get_full_name() or user.get_username()
    return normalise_ws(name)[:200]


def _clean_name(value: Any) -> str:
    name = normalise_ws(value)[:200] if isinstance(value, str) else ""
    return "" if not normalise_name(name) or is_self_placeholder(name) else name


def _new_self_node(user, name: str, now: datetime, *, pk: int | None = None) -> Node:
    """The self node named ``name``, unsaved: a PERSON of full confidence."""
    return Node(
        pk=pk,
        user_id=user.pk,
        kind=NodeKind.PERSON,
        name=name,
        normalised_name=normalise_name(name),
        is_self=True,
        confidence=1.0,
        created_at=now,
        updated_at=now,
    )


def ensure_self_node(
    *,
    user,
    now: datetime,
    self_name: str | None = None,
    self_aliases: Sequence[str] = (),
    self_properties: Mapping | None = None,
    needed: bool = True,
    save: bool = True,
    new_id: int | None = None,
) -> tuple[Node | None, list[str]]:
    """The user's self node (SPEC §5.6), created lazily; call under ``user_lock``.

    With none yet, it is created when ``needed`` (the batch refers to the user) or when the
    batch says who the user is (``self_name``, ``self_aliases``, ``self_properties`` — the
    optional top-level keys of a batch), named ``self_name`` (the user introduced themself)
    else ``display_name(user)``; a name already taken by another PERSON node falls back to the
    next of (self name, display name, username, "Me"). Once created it keeps its identity
    forever. A later ``self_name`` it does not know becomes an alias — except that a self
    node still named after the username (a login, not a name) is renamed to it, the username
    kept as an alias. ``self_aliases`` become aliases; ``self_properties`` fill missing keys.
    A node created takes the primary key ``new_id`` when given (reserved by
    ``write.judge_batch``, so judgements made before the lock name it). With ``save=False``
    nothing is written: the node is returned as it would be (unsaved when new), which is how
    ``write.judge_batch`` sees it before the lock.
    Returns the node (None when not needed and absent) and notes for the write summary.
    """
    notes: list[str] = []
    node = Node.objects.for_user(user).filter(is_self=True).first()
    name = _clean_name(self_name)
    aliases = [a for a in (_clean_name(a) for a in self_aliases or ()) if a]
    properties = dict(self_properties) if isinstance(self_properties, Mapping) else {}
    if node is None:
        if not (needed or name or aliases or properties):
            return None, notes
        taken = set(
            Node.objects.for_user(user)
            .filter(kind=NodeKind.PERSON)
            .values_list("normalised_name", flat=True)
        )
        options = [name, display_name(user), user.get_username(), "Me"]
        chosen = next((o for o in options if o and normalise_name(o) not in taken), "Me (self)")
        node = _new_self_node(user, chosen, now, pk=new_id)
        notes.append(f"self node created as {chosen!r}")
        if name and normalise_name(name) != node.normalised_name:
            _add_aliases(node, [name])
    elif name and normalise_name(name) not in _known_forms(node):
        named_after_login = node.normalised_name == normalise_name(user.get_username())
        clash = (
            Node.objects.for_user(user)
            .filter(kind=node.kind, normalised_name=normalise_name(name))
            .exists()
        )
        if named_after_login and not clash:
            old = node.name
            node.name, node.normalised_name = name, normalise_name(name)
            _add_aliases(node, [old])
            notes.append(f"self node renamed {old!r} → {name!r} ({old!r} kept as an alias)")
        else:
            _add_aliases(node, [name])
            notes.append(f"{name!r} added as an alias of the self node {node.name!r}")
    added = _add_aliases(node, aliases)
    if added:
        notes.append(f"self node aliases added: {', '.join(added)}")
    filled = _fill_properties(node, properties)
    if filled:
        notes.append(f"self node properties added: {', '.join(filled)}")
    if save and (node._state.adding or notes):
        node.updated_at = now
        node.save(force_insert=node._state.adding)
        keys.sync_node_keys(user_id=user.pk, nodes=[node])
    return node, notes


def name_self_node(*, user, name: str, now: datetime | None = None) -> Node:
    """Give the self node ``name`` (the profile form's display name): create it if the user
    has none yet, else add ``name`` as an alias unless the node already has that form (the
    self node's identity never changes; its name does not either). Takes ``user_lock``."""
    now = now or timezone.now()
    name = normalise_ws(name)[:200]
    with user_lock(user.pk):
        node = Node.objects.for_user(user).filter(is_self=True).first()
        if node is None:
            node = _new_self_node(user, name, now)
            node.save(force_insert=True)
        else:
            if not _add_aliases(node, [name]):
                return node
            node.updated_at = now
            node.save(update_fields=["aliases", "updated_at"])
        keys.sync_node_keys(user_id=user.pk, nodes=[node])
    return node
