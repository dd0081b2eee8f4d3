"""Issue 18 item 6: deleting an account removes the admin log's entries about its data (the
probe found a canary node name in ``django_admin_log`` after the account was gone)."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import CHANGE, LogEntry

from accounts.services import delete_account
from memory.models import Edge, Node
from tests.memory.factories import make_edge, make_node

pytestmark = pytest.mark.django_db

CANARY = "Zanzibar-canary-7f3a"


def log(moderator, objects, message):
    return LogEntry.objects.log_actions(
        moderator.pk, objects, CHANGE, change_message=message, single_object=len(objects) == 1
    )


def test_deleting_an_account_removes_admin_log_entries_about_its_rows(alice, bob, mod):
    me = make_node(alice, "Alice", "PERSON", is_self=True)
    canary = make_node(alice, CANARY, "PLACE")
    edge = make_edge(alice, me, "LIVES_IN", canary, snippet=f"I live in {CANARY}")
    bobs = make_node(bob, "Bob's Place", "PLACE")
    log(mod, [canary], f"Reviewed {CANARY}")
    log(mod, [Edge.objects.get(pk=edge.pk)], "Reviewed an edge")
    log(mod, [alice], "Deactivated alice")
    log(mod, [bobs], "Reviewed Bob's Place")
    assert LogEntry.objects.filter(object_repr__contains=CANARY).exists()

    delete_account(user=alice)

    remaining = list(LogEntry.objects.values_list("object_repr", "change_message"))
    assert not any(CANARY in repr_ or CANARY in message for repr_, message in remaining)
    assert not any("alice" in repr_.lower() for repr_, _ in remaining)
    # Bob's history, and the moderator, are untouched.
    assert remaining == [(str(Node.objects.get(pk=bobs.pk)), "Reviewed Bob's Place")]
