"""The explorer as a person meets it (issue 19): names on the graph at the default zoom, the
recall preview colouring exactly the memories it lists, a side panel that is not left busy
after a correction, and a merge message that points at its Undo button."""

import pytest
from django.utils import timezone

from memory.models import MergeDecision
from tests.browser.conftest import sign_in
from tests.browser.test_explorer import _fixture_graph, _open_by_search
from tests.memory.factories import make_edge, make_node

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _labelled(page) -> set[str]:
    return set(page.evaluate("() => window.PegasusExplorer.labelledNodes()"))


def test_explorer_labels_recall_colours_and_panel_state(live_stack, page, alice, bob):
    graph = _fixture_graph(alice, bob)
    for i in range(30):  # minor things hanging off "you": the important names must still show
        make_edge(
            alice,
            graph["me"],
            "MENTIONED",
            make_node(alice, f"Gadget {i:02d}", "THING"),
            touched=timezone.now(),
        )
    sign_in(page, live_stack.url, "alice", "alice-pass-123")
    page.goto(live_stack.url + "/memory/")
    page.wait_for_selector('#explorer[data-drawn="1"]')
    page.wait_for_timeout(300)

    # Labels at the default zoom: you and the best-connected names, not anonymous dots.
    labelled = _labelled(page)
    me, joshua, deloitte = (str(graph[k].pk) for k in ("me", "joshua", "deloitte"))
    assert {me, joshua, deloitte} <= labelled, labelled
    # Zoomed far out, the most important names still show.
    page.click("#zoom-out")
    page.click("#zoom-out")
    page.wait_for_timeout(600)
    assert {me, joshua, deloitte} <= _labelled(page)
    page.click("#zoom-reset")

    # The recall preview colours exactly the memories it lists.
    page.fill("#recall-input", "Should I talk to Joshua about the deadline?")
    page.click("#recall-submit")
    page.wait_for_selector(".recall-summary", timeout=90000)
    listed = page.locator(".recall-cols .memory-lines li").count()
    coloured = page.evaluate("() => window.PegasusExplorer.recallEdges()")
    assert listed >= 1
    assert len(coloured) == listed
    assert int(page.get_attribute("#explorer", "data-recall-crossed")) == listed
    assert str(graph["edges"]["boss"].pk) in coloured
    page.click("#recall-clear")

    # After a correction the panel is usable again: not dimmed, not busy.
    panel = page.locator("#panel")
    _open_by_search(page, "Deloitte", "Deloitte")
    panel.locator("#fix-alias").fill("Deloitte Digital")
    panel.locator("#fix-alias").press("Enter")
    page.wait_for_selector("#panel .msg.ok >> text=Added the alias")
    assert page.get_attribute("#panel", "aria-busy") is None
    assert page.evaluate("() => getComputedStyle(document.getElementById('panel')).opacity") == "1"

    # The merge message sits above the Undo button it mentions ("Undo it below").
    _open_by_search(page, "Joshua Smith", "Joshua Smith")
    panel.locator("#fix-merge").select_option(label="Joshua")
    panel.locator(".merge-form button").click()
    page.wait_for_selector("#confirm-dialog[open]")
    page.click("#confirm-ok")
    message = page.locator("#panel .msg.ok", has_text="Merged “Joshua Smith” into “Joshua”")
    message.wait_for(timeout=90000)
    decision = MergeDecision.objects.get(user=alice, kept=graph["joshua"])
    undo = panel.locator(f'.merge-row[data-merge="{decision.pk}"] button.undo')
    assert "Undo it below" in message.inner_text()
    assert message.bounding_box()["y"] < undo.bounding_box()["y"]
    assert page.get_attribute("#panel", "aria-busy") is None
    assert page.js_errors == []
