"""Shared by the pure tests of the naming rules (tests/memory/core/test_merge_round*.py):
a stored node, and the verdict for a name said with roles and properties."""

from memory.core.merge_rules import Mention, StoredNode, decide_merge


def node(node_id, name, *roles, kind="PERSON", **properties):
    return StoredNode(node_id, kind, name, roles=frozenset(roles), properties=properties)


def decide(name, stored, kind="PERSON", roles=(), **properties):
    """(action, target id, rule) for ``name`` said with ``roles`` and ``properties``."""
    mention = Mention(roles=frozenset(roles), properties=properties)
    verdict = decide_merge(name, kind, stored, mention=mention)
    return verdict.action, verdict.target, verdict.rule
