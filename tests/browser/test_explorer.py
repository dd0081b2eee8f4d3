"""The memory explorer in real Chromium against the real processes (Daphne + worker).

A fixture graph is written to the test database first (``tests/memory/factories.py``), then
the page is driven like a person would: search, open a node, forget a memory, merge two
nodes and undo it, and check that a hostile name stays text. A second test times the first
draw of a 5 000-node / 20 000-edge graph (reported, not asserted beyond a sanity bound).
"""

from __future__ import annotations

import json
import random
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from memory.core.cleaning import normalise_name
from memory.models import Edge, MergeDecision, Node
from tests.browser.conftest import SCREENSHOTS, sign_in
from tests.memory.factories import make_edge, make_node

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(autouse=True)
def _orm_beside_playwright(monkeypatch):
    # Playwright's sync API keeps an event loop on this thread, so Django refuses ORM calls
    # made from the test body unless told that this is safe (it is: nothing else runs here).
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


XSS_NAME = "<img src=x onerror=alert(1)>"
XSS_SNIPPET = "my friend <script>alert(2)</script> said hi"


def _fixture_graph(alice, bob):
    now = timezone.now()
    recent = now - timedelta(days=3)
    me = make_node(alice, "Trevor", is_self=True)
    joshua = make_node(alice, "Joshua", aliases=["Josh"])
    duplicate = make_node(alice, "Joshua Smith")
    hostile = make_node(alice, XSS_NAME)
    deloitte = make_node(alice, "Deloitte", "ORG")
    lisbon = make_node(alice, "Lisbon", "PLACE")
    porto = make_node(alice, "Porto", "PLACE")
    edges = {
        "boss": make_edge(
            alice,
            me,
            "HAS_BOSS",
            joshua,
            touched=recent,
            stability="mutable",
            snippet="my boss Joshua keeps moving my deadlines",
        ),
        "works": make_edge(
            alice, me, "WORKS_AT", deloitte, touched=recent, snippet="I work at Deloitte"
        ),
        "joshua_works": make_edge(
            alice,
            joshua,
            "WORKS_AT",
            deloitte,
            touched=recent,
            strength=60.0,
            snippet="Joshua has been at Deloitte for years",
        ),
        "lives": make_edge(alice, me, "LIVES_IN", lisbon, touched=recent),
        "friend": make_edge(alice, me, "HAS_FRIEND", hostile, touched=recent, snippet=XSS_SNIPPET),
        "colleague": make_edge(alice, me, "HAS_COLLEAGUE", duplicate, touched=recent),
        "old_home": make_edge(alice, me, "LIVED_IN", porto, touched=recent, dormant=True),
    }
    make_node(bob, "Bob's secret")
    return {
        "me": me,
        "joshua": joshua,
        "duplicate": duplicate,
        "hostile": hostile,
        "deloitte": deloitte,
        "edges": edges,
    }


def _count(page, attribute):
    return int(page.get_attribute("#explorer", f"data-{attribute}"))


def _open_by_search(page, query, expected_title):
    page.fill("#explorer-search", query)
    page.keyboard.press("Enter")
    expect(page.locator("#panel-title")).to_have_text(expected_title)


def test_search_inspect_forget_merge_and_undo(live_stack, page, alice, bob):
    graph = _fixture_graph(alice, bob)
    dialogs, csp_violations = [], []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on(
        "console", lambda m: "Content Security Policy" in m.text and csp_violations.append(m.text)
    )
    sign_in(page, live_stack.url, "alice", "alice-pass-123")
    page.click("nav >> text=Memory")
    page.wait_for_selector('#explorer[data-drawn="1"]')
    print(
        f"explorer first draw, 7-node graph: {page.get_attribute('#explorer', 'data-draw-ms')}"
        f" ms since navigation start; {page.get_attribute('#explorer', 'data-timings')}"
    )

    # Alice's 7 nodes and her 6 live edges (the dormant one is hidden); nothing of Bob's.
    assert _count(page, "node-count") == 7
    assert _count(page, "edge-count") == 6
    status = page.inner_text("#graph-status")
    assert "7 things" in status and "6 memories" in status
    page.check("#show-dormant")
    page.wait_for_selector('#explorer[data-edge-count="7"]')
    page.uncheck("#show-dormant")
    page.wait_for_selector('#explorer[data-edge-count="6"]')

    # "As of" 200 days from now: the mutable HAS_BOSS memory (λ 0.02) has faded below 2.0
    # and drops out; the stable ones are still there. "Today" brings it back.
    later = (timezone.now() + timedelta(days=200)).date().isoformat()
    page.fill("#as-of", later)
    page.wait_for_selector('#explorer[data-edge-count="5"]')
    assert "strengths as of" in page.inner_text("#graph-status")
    page.click("#as-of-now")
    page.wait_for_selector('#explorer[data-edge-count="6"]')

    # Search: the alias finds Joshua, Enter opens him, the camera centres on him.
    page.fill("#explorer-search", "jos")
    page.wait_for_selector("#search-results:not([hidden]) .search-hit")
    hits = page.locator("#search-results .hit-name").all_inner_texts()
    assert hits[:2] == ["Joshua", "Joshua Smith"]
    page.keyboard.press("Enter")
    expect(page.locator("#panel-title")).to_have_text("Joshua")
    assert page.get_attribute("#explorer", "data-selected") == str(graph["joshua"].pk)
    page.wait_for_timeout(700)  # let the camera settle: edges are hidden while it moves
    page.screenshot(path=str(SCREENSHOTS / "explorer.png"))

    panel = page.locator("#panel")
    assert "Josh" in panel.locator(".aliases").inner_text()
    assert panel.locator(".badge.kind").inner_text() == "PERSON"
    boss_row = panel.locator(f'.edge-row[data-edge="{graph["edges"]["boss"].pk}"]')
    assert "HAS_BOSS" in boss_row.inner_text() and "Trevor" in boss_row.inner_text()
    assert "my boss Joshua keeps moving my deadlines" in boss_row.locator(".snippet").inner_text()
    assert "mutable" in boss_row.inner_text()

    # Clicking the row shows the strength sparkline, computed in the page.
    boss_row.locator(".edge-meta").click()
    sparkline = boss_row.locator(".sparkline svg")
    sparkline.wait_for()
    assert sparkline.locator("path.spark-line").count() == 1
    assert sparkline.locator("line.spark-threshold").count() == 1
    assert sparkline.locator("line.spark-today").count() == 1
    assert "Goes dormant in about" in boss_row.locator("figcaption").inner_text()
    page.screenshot(path=str(SCREENSHOTS / "explorer-panel.png"))

    # Forget one of Joshua's memories: confirm in the page's own dialog, see it gone.
    works = graph["edges"]["joshua_works"]
    row = panel.locator(f'.edge-row[data-edge="{works.pk}"]')
    row.locator(".forget-edge").click()
    page.wait_for_selector("#confirm-dialog[open]")
    assert "Joshua WORKS_AT Deloitte" in page.inner_text("#confirm-text")
    page.click("#confirm-ok")
    page.wait_for_selector("#panel .msg.ok >> text=Forgotten: Joshua WORKS_AT Deloitte")
    assert panel.locator(f'.edge-row[data-edge="{works.pk}"]').count() == 0
    assert _count(page, "edge-count") == 5
    assert str(works.pk) not in page.evaluate("() => window.PegasusExplorer.drawnEdges()")
    assert not Edge.objects.filter(pk=works.pk).exists()

    # Cancelling a confirmation changes nothing.
    boss = graph["edges"]["boss"]
    panel.locator(f'.edge-row[data-edge="{boss.pk}"] .forget-edge').click()
    page.wait_for_selector("#confirm-dialog[open]")
    page.keyboard.press("Escape")
    expect(page.locator("#confirm-dialog")).not_to_be_visible()
    assert Edge.objects.filter(pk=boss.pk).exists()
    assert _count(page, "edge-count") == 5

    # Merge "Joshua Smith" into "Joshua" (the picker lists only people), then undo it.
    _open_by_search(page, "Joshua Smith", "Joshua Smith")
    options = panel.locator("#fix-merge option").all_inner_texts()[1:]
    assert options == sorted(["Joshua", "Trevor", XSS_NAME])
    panel.locator("#fix-merge").select_option(label="Joshua")
    panel.locator(".merge-form button").click()
    page.wait_for_selector("#confirm-dialog[open]")
    page.click("#confirm-ok")
    # The first merge in a fresh server loads the sentence model to re-key the names.
    page.wait_for_selector(
        "#panel .msg.ok >> text=Merged “Joshua Smith” into “Joshua”", timeout=90000
    )
    assert page.inner_text("#panel-title") == "Joshua"
    assert _count(page, "node-count") == 6
    decision = MergeDecision.objects.get(user=alice, kept=graph["joshua"])
    assert decision.status == "merged"
    merge_row = panel.locator(f'.merge-row[data-merge="{decision.pk}"]')
    assert "Joshua Smith" in merge_row.inner_text()
    # The colleague edge moved over to Joshua.
    assert "HAS_COLLEAGUE" in panel.locator(".edge-list").inner_text()

    merge_row.locator("button.undo").click()
    page.wait_for_selector("#panel .msg.ok >> text=Undone", timeout=60000)
    decision.refresh_from_db()
    assert decision.status == "reverted"
    assert _count(page, "node-count") == 7
    assert "HAS_COLLEAGUE" not in panel.locator(".edge-list").inner_text()
    assert panel.locator(f'.merge-row[data-merge="{decision.pk}"] button.undo').count() == 0

    # A hostile name and snippet are shown as the characters they are; nothing runs.
    _open_by_search(page, "<img", XSS_NAME)
    assert page.locator("#panel img, #search-results img").count() == 0
    assert page.inner_text("#panel-title") == XSS_NAME
    page.screenshot(path=str(SCREENSHOTS / "explorer-xss.png"))
    _open_by_search(page, "Trevor", "Trevor")
    friend = panel.locator(f'.edge-row[data-edge="{graph["edges"]["friend"].pk}"]')
    assert XSS_NAME in friend.inner_text()
    assert XSS_SNIPPET in friend.locator(".snippet").inner_text()
    assert page.locator("#panel script").count() == 0

    # Rename and alias corrections go through the API and update the drawing's data.
    _open_by_search(page, "Deloitte", "Deloitte")
    panel.locator("#fix-alias").fill("Deloitte Digital")
    panel.locator("#fix-alias").press("Enter")
    page.wait_for_selector("#panel .msg.ok >> text=Added the alias")
    assert "Deloitte Digital" in Node.objects.get(pk=graph["deloitte"].pk).aliases
    page.fill("#explorer-search", "digital")
    page.wait_for_selector("#search-results .hit-name >> text=Deloitte")

    # Keyboard only: "/" jumps to the search, arrows reach a result, Enter opens it and puts
    # focus on the panel, Escape closes the panel and returns to the search.
    page.locator("#zoom-reset").focus()
    page.keyboard.press("/")
    expect(page.locator("#explorer-search")).to_be_focused()
    page.keyboard.type("lisb")
    page.locator("#search-results .hit-name", has_text="Lisbon").wait_for()
    page.keyboard.press("ArrowDown")
    expect(page.locator("#search-results .search-hit").first).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#panel-title")).to_have_text("Lisbon")
    expect(page.locator("#panel-title")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#panel .panel-empty")).to_be_visible()
    expect(page.locator("#explorer-search")).to_be_focused()

    assert dialogs == []
    assert csp_violations == []
    assert page.js_errors == []


def test_recall_preview_highlights_fired_nodes(live_stack, page, alice, bob):
    graph = _fixture_graph(alice, bob)
    sign_in(page, live_stack.url, "alice", "alice-pass-123")
    page.goto(live_stack.url + "/memory/")
    page.wait_for_selector('#explorer[data-drawn="1"]')
    page.fill("#recall-input", "Should I talk to Joshua about the deadline?")
    page.click("#recall-submit")
    page.wait_for_selector(".recall-summary", timeout=90000)
    assert int(page.get_attribute("#explorer", "data-recall-fired")) >= 1
    fired = page.locator(".recall-cols .fired").inner_text()
    assert "Joshua" in fired
    assert "Trevor -[HAS_BOSS]-> Joshua" in page.inner_text(".recall-cols .memory-lines")
    # The crossed edges are the ones drawn highlighted; the boss edge is among them.
    assert int(page.get_attribute("#explorer", "data-recall-crossed")) >= 1
    crossed = page.evaluate("() => window.PegasusExplorer.recallEdges()")
    assert str(graph["edges"]["boss"].pk) in crossed
    page.wait_for_timeout(600)  # the camera frames the fired nodes
    page.screenshot(path=str(SCREENSHOTS / "explorer-recall.png"), full_page=True)
    page.click("#recall-clear")
    assert page.get_attribute("#explorer", "data-recall-fired") is None
    assert page.js_errors == []


def _big_graph(user, nodes=5000, edges=20000, seed=7):
    """``nodes`` nodes and ``edges`` live edges, bulk-inserted (no memory keys: not needed to
    draw)."""
    rng = random.Random(seed)
    now = timezone.now()
    kinds = ["PERSON", "ORG", "PLACE", "EVENT", "THING", "TOPIC", "PREFERENCE", "OTHER"]
    rows = []
    for i in range(nodes):
        name = f"Node {i:05d}"
        rows.append(
            Node(
                user=user,
                kind=kinds[i % len(kinds)],
                name=name,
                normalised_name=normalise_name(name),
                confidence=0.9,
                created_at=now,
                updated_at=now,
            )
        )
    created = Node.objects.bulk_create(rows, batch_size=2000)
    ids = [n.pk for n in created]
    relations = ["KNOWS", "WORKS_WITH", "LIKES", "VISITED", "MENTIONED"]
    stabilities = ["stable", "mutable", "immutable"]  # all still live after 60 days
    seen, edge_rows = set(), []
    while len(edge_rows) < edges:
        # Preferential endpoints so some nodes are hubs, as in a real memory.
        a = ids[int(rng.random() ** 2 * nodes)]
        b = ids[rng.randrange(nodes)]
        relation = rng.choice(relations)
        if a == b or (a, relation, b) in seen:
            continue
        seen.add((a, relation, b))
        edge_rows.append(
            Edge(
                user=user,
                source_id=a,
                target_id=b,
                relation=relation,
                strength_at_touch=rng.uniform(20, 100),
                last_touched_at=now - timedelta(days=rng.uniform(0, 60)),
                confidence=0.8,
                stability=rng.choice(stabilities),
                created_at=now,
            )
        )
    Edge.objects.bulk_create(edge_rows, batch_size=5000)


def test_time_to_first_draw_of_a_large_graph(live_stack, page, alice):
    _big_graph(alice)
    sign_in(page, live_stack.url, "alice", "alice-pass-123")
    started = time.monotonic()
    page.goto(live_stack.url + "/memory/")
    page.wait_for_selector('#explorer[data-drawn="1"]', timeout=60000)
    elapsed = time.monotonic() - started
    in_page = int(page.get_attribute("#explorer", "data-draw-ms")) / 1000
    timings = json.loads(page.get_attribute("#explorer", "data-timings"))
    assert _count(page, "node-count") == 5000
    assert _count(page, "edge-count") == 20000
    # The graph endpoint alone, warm, for the record (it is most of the fetch phase).
    api_started = time.monotonic()
    response = page.request.get(live_stack.url + "/api/v1/memory/graph/")
    api_seconds = time.monotonic() - api_started
    assert response.ok and len(response.json()["edges"]) == 20000
    report = (
        f"explorer first draw, 5000 nodes / 20000 edges: {elapsed:.2f} s from navigation "
        f"(in-page {in_page:.2f} s since navigation start; phases ms: "
        f"{json.dumps(timings, sort_keys=True)}; GET /graph/ again, warm: "
        f"{api_seconds:.2f} s, {len(response.body()) // 1024} KiB)"
    )
    print(report)
    (SCREENSHOTS / "explorer-timing.txt").write_text(report + "\n")

    # The drawing stays usable: search, select and centre on a node.
    page.fill("#explorer-search", "Node 04321")
    page.keyboard.press("Enter")
    expect(page.locator("#panel-title")).to_have_text("Node 04321", timeout=30000)
    page.screenshot(path=str(SCREENSHOTS / "explorer-5000.png"))
    assert elapsed < 30, report
    assert page.js_errors == []
