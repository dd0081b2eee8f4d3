"""The merge review console: the queue, the review page side by side, and every review action
going through the merge service (SPEC §5.6, issue 9)."""

from datetime import timedelta

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.messages import get_messages
from django.urls import reverse

from memory.models import Edge, MergeDecision, Node
from memory.services.graph_io import export_graph
from memory.services.merge import merge_nodes
from memory.services.merge.review_page import review_context
from tests.admin.conftest import (
    NOW,
    change_url,
    commit_bill,
    flag_for,
    llm_rating,
    make_node,
    review_url,
)

pytestmark = pytest.mark.django_db

QUEUE = reverse("admin:memory_mergedecision_changelist")


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def bulk(client, action, decisions, **extra):
    return client.post(
        QUEUE,
        {"action": action, "_selected_action": [d.pk for d in decisions], **extra},
        follow=True,
    )


# --- the queue --------------------------------------------------------------------------------


def test_queue_lists_decisions_with_their_columns(mod_client, flagged):
    page = mod_client.get(QUEUE)
    html = page.content.decode()
    assert page.status_code == 200
    for text in ("Bill", "alice", "PERSON", "Flagged", "llm", "0.8", "William Smith"):
        assert text in html
    assert 'value="revert_merges"' in html
    assert 'value="confirm_merges"' in html and 'value="keep_apart"' in html


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        ("status=review", {"flagged", "held"}),
        ("status=merged-flagged", {"flagged"}),
        ("status=held", {"held"}),
        ("status=merged", {"manual"}),
        ("status=reverted", set()),
        ("score_band=mid", {"flagged"}),
        ("score_band=high", {"held"}),
        ("score_band=none", {"manual"}),
        ("score_band=low", set()),
        ("kind=PERSON", {"flagged", "held", "manual"}),
        ("kind=ORG", set()),
        ("q=Billy", {"manual"}),
    ],
)
def test_queue_filters(mod_client, alice, bob, two_bills, fake_anthropic, query, shown):
    smith, jones = two_bills
    fake_anthropic.script([llm_rating(smith, jones, 0.8)])
    decisions = {"flagged": commit_bill(alice)}
    # bob's Bill is held: no model judged it (the fake has nothing scripted → error → held)
    make_node(bob, "Bill Bobson", aliases=["Bill"])
    make_node(bob, "Billy Bobbins", aliases=["Bill"])
    from django.test import override_settings

    with override_settings(ANTHROPIC_API_KEY=""):
        decisions["held"] = commit_bill(bob)
    william = make_node(alice, "William")
    billy = make_node(alice, "Billy")
    decisions["manual"] = merge_nodes(
        user=alice, keep=william, absorb=billy, reason="same", now=NOW
    )

    page = mod_client.get(f"{QUEUE}?{query}")
    assert page.status_code == 200
    listed = {obj.pk for obj in page.context["cl"].result_list}
    assert listed == {decisions[name].pk for name in shown}


def test_queue_filters_by_user(mod_client, alice, bob, held):
    page = mod_client.get(f"{QUEUE}?user__id__exact={alice.pk}")
    assert [d.pk for d in page.context["cl"].result_list] == [held.pk]
    page = mod_client.get(f"{QUEUE}?user__id__exact={bob.pk}")
    assert list(page.context["cl"].result_list) == []


def test_index_shows_held_and_flagged_counts(mod_client, held):
    page = mod_client.get(reverse("admin:index"))
    html = page.content.decode()
    assert page.context["review_queue"] == {"held": 1, "flagged": 0}
    assert '<td id="count-held">1</td>' in html
    assert '<td id="count-flagged">0</td>' in html
    assert "?status=held" in html
    # The default index is still there: the app list with django-q2's job pages.
    assert reverse("admin:django_q_failure_changelist") in html


# --- the review page --------------------------------------------------------------------------


def test_review_page_shows_both_sides_the_conversation_and_the_log(mod_client, flagged, two_bills):
    page = mod_client.get(change_url(flagged))
    html = page.content.decode()
    assert page.status_code == 200
    review = page.context["review"]
    assert review["extracted"]["name"] == "Bill"
    assert review["extracted"]["properties"] == [("city", "Leeds")]
    assert [(c.name, c.role, c.llm) for c in review["candidates"]] == [
        ("William Smith", "kept", 0.8),
        ("Robert Jones", "candidate", 0.05),
    ]
    smith_side = review["candidates"][0]
    lines = {e.line: e for e in smith_side.edges}
    assert lines["William Smith -[WORKS_AT]-> Acme"].snippet == "Bill works at Acme"
    assert lines["alice -[HAS_FRIEND]-> William Smith"].moved  # came with the merge
    assert [e.line for e in review["proposed"].edges] == ["alice -[HAS_FRIEND]-> William Smith"]
    assert review["excerpt"]["messages"][0]["text"].startswith("Had drinks with my friend Bill")
    assert review["excerpt"]["messages"][0]["mentions"] is True
    assert review["actions"] == {"confirm", "revert", "keep_apart"}
    for text in (
        'id="side-by-side"',
        "Proposed entity",
        "Robert Jones",
        "judged on the",
        'id="review-confirm"',
        'id="review-revert"',
        'id="review-keep-apart"',
        "Had drinks with my friend Bill",
        "merged-flagged",
    ):
        assert text in html
    assert "csrfmiddlewaretoken" in html


def test_review_page_shows_two_hop_neighbourhoods_in_bounded_queries(
    alice,
    two_bills,
    held,
    django_assert_num_queries,
):
    smith, _jones = two_bills
    acme = Node.objects.get(user=alice, name="Acme")
    leeds = make_node(alice, "Leeds", kind="PLACE")
    Edge.objects.create(
        user=alice,
        source=acme,
        relation="BASED_IN",
        target=leeds,
        last_touched_at=NOW,
        created_at=NOW,
    )
    # nodes, hop-1 edges, hop-2 edges, the episode's conversation, its user turns
    with django_assert_num_queries(5):
        context = review_context(held)
    smith_side = next(c for c in context["candidates"] if c.node_id == smith.pk)
    assert {e.line for e in smith_side.edges if e.hop == 1} == {
        "William Smith -[WORKS_AT]-> Acme",
        "alice -[HAS_COLLEAGUE]-> William Smith",
    }
    assert {e.line for e in smith_side.edges if e.hop == 2} == {
        "Acme -[BASED_IN]-> Leeds",
        "alice -[HAS_FRIEND]-> Bill",
    }

    # More candidates cost no more queries.
    extra = [make_node(alice, f"Bill {i}", aliases=["Bill"]) for i in range(4)]
    held.candidates = [
        *held.candidates,
        *({"id": n.pk, "name": n.name, "score": 1.0} for n in extra),
    ]
    held.save()
    with django_assert_num_queries(5):
        context = review_context(held)
    assert len(context["candidates"]) == 6


def test_held_review_offers_a_merge_button_per_candidate(mod_client, held, two_bills):
    smith, jones = two_bills
    html = mod_client.get(change_url(held)).content.decode()
    assert f'id="review-merge-{smith.pk}"' in html
    assert f'id="review-merge-{jones.pk}"' in html
    assert 'id="review-revert"' not in html and 'id="review-confirm"' not in html
    bill = Node.objects.get(pk=held.moved["node"])
    assert f'id="review-merge-{bill.pk}"' not in html  # not into itself


# --- actions from the review page -------------------------------------------------------------


def test_revert_button_restores_the_exported_graph_exactly(mod_client, alice, mod, people):
    before = export_graph(user=alice)
    decision = merge_nodes(
        user=alice,
        keep=people["william"],
        absorb=people["billy"],
        reason="same person",
        by=mod,
        now=NOW,
    )
    assert export_graph(user=alice) != before

    response = mod_client.post(review_url(decision, "revert"), follow=True)

    assert response.redirect_chain[-1][0] == change_url(decision)
    assert export_graph(user=alice) == before
    decision.refresh_from_db()
    assert decision.status == "reverted" and decision.decided_by == mod
    assert decision.log[-1]["by"] == "mod" and decision.log[-1]["action"] == "reverted"
    assert any("Reverted the merge of 'Billy'" in m for m in messages_of(response))
    assert LogEntry.objects.filter(object_id=str(decision.pk), user=mod).exists()


def test_revert_merges_action_restores_the_exported_graph_exactly(mod_client, alice, mod, people):
    before = export_graph(user=alice)
    decision = merge_nodes(
        user=alice,
        keep=people["william"],
        absorb=people["billy"],
        reason="same person",
        by=mod,
        now=NOW,
    )

    response = bulk(mod_client, "revert_merges", [decision])

    assert export_graph(user=alice) == before
    assert "Reverted 1 of 1 selected; skipped 0." in messages_of(response)


def test_revert_of_a_flagged_batch_merge_splits_the_entity_back_out(
    mod_client, alice, flagged, two_bills
):
    smith, _ = two_bills
    response = mod_client.post(review_url(flagged, "revert"), follow=True)
    assert response.status_code == 200
    flagged.refresh_from_db()
    assert flagged.status == "reverted"
    bill = Node.objects.get(user=alice, name="Bill")
    assert Edge.objects.get(user=alice, relation="HAS_FRIEND").target == bill
    smith.refresh_from_db()
    assert smith.aliases == ["Bill"] and smith.properties == {}
    # The page after the revert shows the split node on the proposed side; no more buttons.
    review = response.context["review"]
    assert review["proposed"].node_id == bill.pk and review["actions"] == set()


def test_service_refusals_are_error_messages_not_tracebacks(mod_client, alice, mod, people):
    first = merge_nodes(
        user=alice, keep=people["william"], absorb=people["billy"], reason="same", by=mod, now=NOW
    )
    other = make_node(alice, "Bill")
    later = merge_nodes(
        user=alice,
        keep=other,
        absorb=people["william"],
        reason="again",
        by=mod,
        now=NOW + timedelta(hours=1),
    )

    response = mod_client.post(review_url(first, "revert"), follow=True)

    assert response.status_code == 200
    assert any("revert the later merge first" in m for m in messages_of(response))
    first.refresh_from_db()
    assert first.status == "merged"
    # A decision in the wrong status for the action: refused with the service's reason.
    response = mod_client.post(review_url(later, "confirm"), follow=True)
    assert any("only a flagged merge can be confirmed" in m for m in messages_of(response))


def test_confirm_button(mod_client, mod, flagged):
    response = mod_client.post(review_url(flagged, "confirm"), follow=True)
    flagged.refresh_from_db()
    assert flagged.status == "merged" and flagged.decided_by == mod
    assert flagged.log[-1]["action"] == "confirmed" and flagged.log[-1]["by"] == "mod"
    assert any("Confirmed the merge of 'Bill'" in m for m in messages_of(response))


def test_merge_held_into_a_chosen_candidate(mod_client, alice, mod, held, two_bills):
    _smith, jones = two_bills
    bill_id = held.moved["node"]

    response = mod_client.post(review_url(held, "merge"), {"into": jones.pk}, follow=True)

    held.refresh_from_db()
    assert held.status == "merged" and held.kept_id == jones.pk
    assert not Node.objects.filter(pk=bill_id).exists()
    jones.refresh_from_db()
    assert "Bill" in jones.aliases and jones.properties == {"city": "Leeds"}
    assert Edge.objects.get(user=alice, relation="HAS_FRIEND").target_id == jones.pk
    assert any("into 'Robert Jones'" in m for m in messages_of(response))
    inner = held.moved["merge_decision"]
    assert reverse("admin:memory_mergedecision_change", args=[inner]) in (response.content.decode())
    # ... and it can be reverted from the console like any merge.
    mod_client.post(review_url(held, "revert"))
    held.refresh_from_db()
    assert held.status == "reverted"
    assert Node.objects.filter(pk=bill_id).exists()


def test_merge_held_into_a_node_of_another_user_is_refused(mod_client, bob, held):
    bobs = make_node(bob, "Bill Bobson")
    response = mod_client.post(review_url(held, "merge"), {"into": bobs.pk}, follow=True)
    held.refresh_from_db()
    assert held.status == "held"
    assert any("node not found" in m for m in messages_of(response))


def test_keep_apart_button_needs_a_reason_and_logs_it(mod_client, mod, held):
    response = mod_client.post(review_url(held, "keep_apart"), {"why": "  "}, follow=True)
    held.refresh_from_db()
    assert held.status == "held"
    assert any("say why" in m for m in messages_of(response))

    mod_client.post(review_url(held, "keep_apart"), {"why": "a colleague, not the friend"})
    held.refresh_from_db()
    assert held.status == "kept-apart" and held.decided_by == mod
    assert held.log[-1] == {
        **held.log[-1],
        "by": "mod",
        "action": "kept-apart",
        "why": "a colleague, not the friend",
    }


def test_keep_apart_of_a_flagged_merge_splits_it(mod_client, alice, flagged):
    mod_client.post(review_url(flagged, "keep_apart"), {"why": "different Bill"})
    flagged.refresh_from_db()
    assert flagged.status == "kept-apart"
    bill = Node.objects.get(user=alice, name="Bill")
    assert flagged.moved["node"] == bill.pk


def test_review_actions_are_post_only(mod_client, flagged):
    assert mod_client.get(review_url(flagged, "revert")).status_code == 405
    flagged.refresh_from_db()
    assert flagged.status == "merged-flagged"


def test_unknown_action_or_decision_is_404(mod_client, flagged):
    assert mod_client.post(review_url(flagged, "delete")).status_code == 404
    url = reverse("admin:memory_mergedecision_review", args=[flagged.pk + 999, "revert"])
    assert mod_client.post(url).status_code == 404
    url = reverse("admin:memory_mergedecision_review", args=["abc", "revert"])
    assert mod_client.post(url).status_code == 404


# --- bulk actions -----------------------------------------------------------------------------


def test_confirm_merges_reports_done_and_skipped(mod_client, alice, mod, flagged):
    manual = merge_nodes(
        user=alice,
        keep=make_node(alice, "William"),
        absorb=make_node(alice, "Billy"),
        reason="same",
        by=mod,
        now=NOW,
    )

    response = bulk(mod_client, "confirm_merges", [flagged, manual])

    shown = messages_of(response)
    assert "Confirmed 1 of 2 selected; skipped 1." in shown
    assert any(f"#{manual.pk} Billy: only a flagged merge can be confirmed" in m for m in shown)
    flagged.refresh_from_db(), manual.refresh_from_db()
    assert (flagged.status, manual.status) == ("merged", "merged")


def test_revert_merges_reverts_later_merges_first(mod_client, alice, mod, people):
    before = export_graph(user=alice)
    bill = make_node(alice, "Bill")
    before_bill = export_graph(user=alice)
    first = merge_nodes(
        user=alice, keep=people["william"], absorb=people["billy"], reason="same", by=mod, now=NOW
    )
    second = merge_nodes(
        user=alice,
        keep=bill,
        absorb=people["william"],
        reason="again",
        by=mod,
        now=NOW + timedelta(hours=1),
    )

    response = bulk(mod_client, "revert_merges", [first, second])

    assert "Reverted 2 of 2 selected; skipped 0." in messages_of(response)
    assert export_graph(user=alice) == before_bill
    assert before != before_bill  # Bill was added in between, and stays


def test_keep_apart_action_asks_for_a_reason_then_applies(mod_client, bob, held, fake_anthropic):
    flagged = flag_for(bob, fake_anthropic)
    merged = MergeDecision.objects.filter(pk=flagged.pk)
    first = mod_client.post(
        QUEUE, {"action": "keep_apart", "_selected_action": [held.pk, flagged.pk]}
    )
    assert first.status_code == 200
    assert first.templates[0].name == "admin/memory/mergedecision/keep_apart.html"
    assert 'name="why"' in first.content.decode()
    held.refresh_from_db()
    assert held.status == "held"  # nothing happens before the reason is given

    response = bulk(mod_client, "keep_apart", [held, flagged], post="yes", why="different people")

    assert "Kept apart 2 of 2 selected; skipped 0." in messages_of(response)
    held.refresh_from_db()
    assert held.status == "kept-apart" and held.log[-1]["why"] == "different people"
    assert merged.get().status == "kept-apart"


def test_keep_apart_action_without_a_reason_changes_nothing(mod_client, held):
    response = bulk(mod_client, "keep_apart", [held], post="yes", why="")
    assert response.status_code == 200
    assert any("Say why" in m for m in messages_of(response))
    held.refresh_from_db()
    assert held.status == "held"
