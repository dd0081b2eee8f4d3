"""The merge inbox in the explorer, in real Chromium against Daphne: the badge counts alice's
questions, a question shows both sides in her own words, "same" merges (the graph redraws
without a reload) and Undo splits it back, "none of them" keeps apart and is undone from the
settled list, a failed request says so, and everything works from the keyboard."""

from __future__ import annotations

from datetime import timedelta

import pytest
from playwright.sync_api import expect

from memory.models import MergeDecision, Node
from tests.browser.conftest import BASE, sign_in
from tests.memory.factories import make_node
from tests.memory.test_inbox_service import NOW, held_bill, say

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DOCS = BASE / "docs" / "screenshots"


def test_alice_answers_a_question_then_undoes_it(live_stack, page, alice, bob, settings):
    settings.ANTHROPIC_API_KEY = ""
    decision, _smith, jones = held_bill(alice)  # the newest: first in the list
    make_node(alice, "Springfield, Illinois", kind="PLACE", aliases=["Springfield"])
    make_node(alice, "Springfield, Oregon", kind="PLACE", aliases=["Springfield"])
    springfield = say(
        alice,
        "I love Springfield.",
        {"name": "Springfield", "kind": "PLACE"},
        "LOVES",
        "I love Springfield",
        at=NOW - timedelta(hours=1),
    )
    bill_id = decision.moved["node"]
    held_bill(bob)  # bob's own question never shows in alice's inbox
    csp: list[str] = []
    page.on("console", lambda m: "Content Security Policy" in m.text and csp.append(m.text))

    sign_in(page, live_stack.url, "alice", "alice-pass-123")
    page.goto(live_stack.url + "/memory/")
    page.wait_for_selector('#explorer[data-drawn="1"]')
    nodes_before = int(page.get_attribute("#explorer", "data-node-count"))
    expect(page.locator("#inbox-badge")).to_have_text("2")
    assert page.get_attribute("#inbox-toggle", "aria-expanded") == "false"

    # Open it from the keyboard; the first question opens with both sides.
    page.focus("#inbox-toggle")
    page.keyboard.press("Enter")
    assert page.get_attribute("#inbox-toggle", "aria-expanded") == "true"
    first = page.locator(f'.inbox-item[data-id="{decision.pk}"]')
    first.locator(".inbox-side.entity").wait_for()
    assert page.locator(".inbox-item").count() == 2
    assert first.locator(".inbox-question").inner_text() == (
        "Is Bill the same person as William Smith or Robert Jones?"
    )
    entity = first.locator(".inbox-side.entity")
    assert "my friend Bill from Leeds" in entity.inner_text()
    assert "has friend" in entity.inner_text()
    smith_side = first.locator(".inbox-side.candidate").nth(0)
    assert "William Smith" in smith_side.inner_text()
    assert "Bill works at Acme" in smith_side.inner_text()
    page.locator(f'.inbox-item[data-id="{springfield.pk}"] .inbox-question').wait_for()
    assert (
        "the same place as"
        in page.locator(f'.inbox-item[data-id="{springfield.pk}"] .inbox-question').inner_text()
    )
    page.screenshot(path=str(DOCS / "explorer-inbox.png"))

    # A failed request says so and changes nothing.
    page.route("**/inbox/*/answer/", lambda route: route.abort())
    first.locator(".inbox-unsure").click()
    first.locator(".msg.err").wait_for()
    assert "Could not reach Pegasus" in first.locator(".msg.err").inner_text()
    page.unroute("**/inbox/*/answer/")
    assert MergeDecision.objects.get(pk=decision.pk).answer == ""

    # "Same as Robert Jones", from the keyboard: merged, the graph redrawn without a reload.
    first.locator(f'.inbox-same[data-into="{jones.pk}"]').focus()
    page.keyboard.press("Enter")
    message = first.locator(".msg.ok")
    message.wait_for()
    assert "merged into “Robert Jones”" in message.inner_text()
    expect(page.locator("#inbox-badge")).to_have_text("1")
    expect(page.locator("#explorer")).to_have_attribute("data-node-count", str(nodes_before - 1))
    decision.refresh_from_db()
    assert (decision.status, decision.answer, decision.kept_id) == ("merged", "same", jones.pk)
    assert not Node.objects.filter(pk=bill_id).exists()
    assert page.evaluate("document.activeElement.classList.contains('msg')")
    page.screenshot(path=str(DOCS / "explorer-inbox-answered.png"))

    # Undo: the merge is split back, the question is open again with its answers.
    first.locator(".inbox-undo").click()
    first.locator(".msg >> text=Undone: the question is open again.").wait_for()
    first.locator(".inbox-actions").wait_for()
    expect(page.locator("#inbox-badge")).to_have_text("2")
    expect(page.locator("#explorer")).to_have_attribute("data-node-count", str(nodes_before))
    decision.refresh_from_db()
    assert (decision.status, decision.answer, decision.kept_id) == ("held", "", None)
    assert Node.objects.filter(pk=bill_id).exists()

    # "None of them" keeps apart; the settled list offers Undo too.
    first = page.locator(f'.inbox-item[data-id="{decision.pk}"]')
    first.locator(".inbox-different").click()
    first.locator(".msg.ok >> text=kept apart").wait_for()
    assert MergeDecision.objects.get(pk=decision.pk).status == "kept-apart"
    page.click("#inbox-show-settled")
    settled = page.locator(f'.inbox-item[data-id="{decision.pk}"][data-state="different"]')
    settled.wait_for()
    page.locator("#inbox-status >> text=1 answered question").wait_for()
    assert page.locator(".inbox-item").count() == 1
    settled.locator(".inbox-undo").click()
    page.locator("#inbox-status >> text=is open again").wait_for()
    assert page.locator(".inbox-item").count() == 0
    assert MergeDecision.objects.get(pk=decision.pk).status == "held"

    # Escape closes the inbox and returns to its button.
    page.keyboard.press("Escape")
    assert page.locator("#inbox").is_hidden()
    assert page.evaluate("document.activeElement.id") == "inbox-toggle"
    assert page.js_errors == []
    assert csp == []
