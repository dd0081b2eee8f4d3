"""Issue 18 item 7: "forget" keeps no text, and the text an undo needs is kept only for the
undo window (``MEMORY_UNDO_WINDOW_DAYS``, default 30), then erased in place by a daily job.
The account export lists these records."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from accounts.services import export_account
from memory.models import Correction, MergeDecision, MergeStatus
from memory.services import corrections
from memory.services.merge import merge_nodes, revert_merge
from ops import tasks
from ops.schedules import SCHEDULES
from tests.memory.factories import T0, make_edge, make_node

pytestmark = pytest.mark.django_db

CANARY = "Zanzibar-canary-7f3a"
SNIPPET = f"my secret diary says {CANARY} every night"


def stored_text(user) -> str:
    """Every correction and merge record of ``user`` as one string (what a moderator can
    read in the admin)."""
    rows = [
        *Correction.objects.for_user(user).values("before", "after"),
        *MergeDecision.objects.for_user(user).values(
            "reason", "proposed", "candidates", "absorbed", "moved", "log"
        ),
    ]
    return json.dumps(rows, default=str)


def story(user):
    me = make_node(user, "Alice", is_self=True)
    canary = make_node(user, CANARY, "PLACE", aliases=[f"{CANARY} town"])
    edge = make_edge(user, me, "VISITS", canary, snippet=SNIPPET)
    return me, canary, edge


def test_forgetting_an_edge_records_no_words(alice):
    _, _, edge = story(alice)
    corrections.forget_edge(user=alice, edge=edge, now=T0)
    record = Correction.objects.for_user(alice).get(action="forget_edge")
    assert record.before["relation"] == "VISITS" and record.before["id"] == edge.pk
    assert record.before["snippet"] == "[erased]"
    assert record.before["source_name"] == record.before["target_name"] == "[erased]"
    assert CANARY not in stored_text(alice) and "diary" not in stored_text(alice)
    exported = json.dumps(export_account(user=alice, now=T0)["corrections"])
    assert CANARY not in exported and "diary" not in exported


def test_forgetting_a_node_erases_its_earlier_records_and_the_merges_that_kept_it(alice, bob):
    _, canary, _ = story(alice)
    corrections.rename_node(user=alice, node=canary, name=f"{CANARY} city", now=T0)
    twin = make_node(alice, f"{CANARY} twin", "PLACE")
    decision = merge_nodes(user=alice, keep=canary, absorb=twin, reason=f"{CANARY} same", now=T0)
    held = MergeDecision.objects.create(
        user=alice,
        status=MergeStatus.HELD,
        kind="PLACE",
        rule="llm",
        reason="unsure",
        proposed={"name": "Someplace"},
        created_at=T0,
        candidates=[{"id": canary.pk, "name": CANARY, "score": 0.8}],
    )
    bobs = story(bob)[1]
    corrections.rename_node(user=bob, node=bobs, name=f"{CANARY} bob", now=T0)
    assert CANARY in stored_text(alice)

    corrections.forget_node(user=alice, node=canary, now=T0)

    forget = Correction.objects.for_user(alice).get(action="forget_node")
    assert CANARY not in stored_text(alice), stored_text(alice)
    assert forget.before["edges"][0]["target_name"] == "[erased]"
    assert forget.before["properties"] == {}
    assert CANARY not in json.dumps(export_account(user=alice, now=T0)["corrections"])
    held.refresh_from_db()
    assert held.proposed == {"name": "Someplace"}  # still open work for a moderator
    assert held.candidates == [{"id": canary.pk, "name": "[erased]", "score": 0.8}]
    with pytest.raises(ValueError, match="can no longer be undone"):
        revert_merge(user=alice, decision=decision.pk, now=T0)
    # Bob's records are his own business.
    assert CANARY in stored_text(bob)


def test_undo_text_is_kept_inside_the_window_and_erased_after_it(alice, bob, settings):
    settings.MEMORY_UNDO_WINDOW_DAYS = 30
    _, canary, _ = story(alice)
    twin = make_node(alice, f"{CANARY} twin", "PLACE")
    decision = merge_nodes(user=alice, keep=canary, absorb=twin, reason="same place", now=T0)
    corrections.add_alias(user=alice, node=canary, alias=f"{CANARY} alias", now=T0)
    later = T0 + timedelta(days=20)
    corrections.add_alias(user=alice, node=canary, alias="Late alias", now=later)
    bobs = story(bob)[1]
    bob_twin = make_node(bob, "Bob twin", "PLACE")
    merge_nodes(user=bob, keep=bobs, absorb=bob_twin, reason="bob's", now=T0)

    # Day 29: everything still there, and the merge can be reverted.
    assert corrections.erase_expired_history(now=T0 + timedelta(days=29)) == {
        "corrections": 0,
        "merge_decisions": 0,
    }
    assert CANARY in stored_text(alice)

    # Day 31, as the daily job for one user: the old records lose their text, not the new.
    counts = corrections.erase_expired_history(now=T0 + timedelta(days=31), user=alice)
    assert counts == {"corrections": 1, "merge_decisions": 1}
    old_alias, late_alias = Correction.objects.for_user(alice).order_by("created_at")
    decision.refresh_from_db()
    erased = json.dumps(
        [
            old_alias.before,
            old_alias.after,
            decision.reason,
            decision.proposed,
            decision.candidates,
            decision.absorbed,
            decision.moved,
            decision.log,
        ]
    )
    assert CANARY not in erased and "same place" not in erased and "twin" not in erased
    assert old_alias.before["erased"] is True
    assert "Late alias" in late_alias.after["aliases"]  # inside its own window still
    assert "Bob twin" in stored_text(bob)  # only alice's were asked for
    with pytest.raises(ValueError, match="can no longer be undone"):
        revert_merge(user=alice, decision=decision.pk, now=T0 + timedelta(days=31))
    # Idempotent.
    assert corrections.erase_expired_history(now=T0 + timedelta(days=31), user=alice) == {
        "corrections": 0,
        "merge_decisions": 0,
    }


def test_the_daily_job_is_scheduled_and_erases_every_users_expired_text(alice, bob):
    assert any(
        s.func == "ops.tasks.erase_expired_history" and s.minutes == 24 * 60 for s in SCHEDULES
    )
    for user in (alice, bob):
        _, canary, _ = story(user)
        corrections.rename_node(user=user, node=canary, name=f"{CANARY} renamed", now=T0)
    counts = tasks.erase_expired_history()  # now is far past T0 + 30 days
    assert counts["corrections"] == 2
    assert CANARY not in stored_text(alice) and CANARY not in stored_text(bob)


def test_the_export_lists_the_records(alice, bob):
    _, canary, edge = story(alice)
    corrections.rename_node(user=alice, node=canary, name="Renamed", now=T0)
    corrections.forget_edge(user=alice, edge=edge, now=T0)
    story(bob)
    data = export_account(user=alice, now=T0)
    assert [c["action"] for c in data["corrections"]] == ["rename", "forget_edge"]
    assert data["corrections"][0]["before"]["name"] == CANARY  # inside the undo window
    assert "diary" not in json.dumps(data["corrections"])
    assert data["merge_decisions"] == []
