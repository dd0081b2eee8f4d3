"""Screenshots of chat, explorer and account at 1366×860 and 390×844 (docs/screenshots/),
taken from the real stack with a small graph, and the layout checks that make them worth
looking at: nothing wider than the viewport, the composer in view, names on the graph."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.services import update_profile
from memory.models import Episode
from tests.browser.conftest import BASE, sign_in
from tests.memory.factories import make_edge, make_episode, make_node

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DOCS = BASE / "docs" / "screenshots"
SIZES = {"desktop": {"width": 1366, "height": 860}, "phone": {"width": 390, "height": 844}}


def _graph(user):
    recent = timezone.now() - timedelta(days=2)
    me = make_node(user, "Maya", is_self=True)
    kate = make_node(user, "Kate")
    people = {name: make_node(user, name) for name in ("Joshua", "Priya", "Tom", "Inês")}
    places = {name: make_node(user, name, "PLACE") for name in ("Lisbon", "Porto", "Berlin")}
    deloitte = make_node(user, "Deloitte", "ORG")
    climbing = make_node(user, "climbing", "PREFERENCE")
    make_edge(
        user,
        me,
        "HAS_SISTER",
        kate,
        touched=recent,
        snippet="My sister Kate moved to Lisbon last month.",
    )
    make_edge(
        user,
        kate,
        "LIVES_IN",
        places["Lisbon"],
        touched=recent,
        snippet="My sister Kate moved to Lisbon last month.",
    )
    make_edge(
        user,
        me,
        "HAS_BOSS",
        people["Joshua"],
        touched=recent,
        snippet="my boss Joshua keeps moving my deadlines",
    )
    make_edge(user, me, "WORKS_AT", deloitte, touched=recent, snippet="I work at Deloitte")
    make_edge(user, people["Joshua"], "WORKS_AT", deloitte, touched=recent)
    make_edge(user, me, "HAS_FRIEND", people["Priya"], touched=recent)
    make_edge(user, people["Priya"], "LIVES_IN", places["Berlin"], touched=recent)
    make_edge(user, kate, "HAS_PARTNER", people["Tom"], touched=recent)
    make_edge(user, people["Tom"], "WORKS_AT", deloitte, touched=recent)
    make_edge(user, me, "LIVES_IN", places["Porto"], touched=recent)
    make_edge(user, me, "LIKES", climbing, touched=recent, snippet="I love climbing")
    make_edge(user, kate, "HAS_FRIEND", people["Inês"], touched=recent)


def _no_horizontal_overflow(tab):
    width = tab.evaluate("() => document.documentElement.scrollWidth")
    assert width <= tab.viewport_size["width"] + 1, f"page is {width}px wide"


def test_screenshots_of_chat_explorer_and_account(live_stack, browser, alice, mod):
    _graph(alice)
    update_profile(user=alice, display_name="Maya", time_zone="Europe/Lisbon", memory_enabled=True)
    for i in range(3):  # episodes for the admin's job monitor
        episode = make_episode(alice, summary=f"Episode {i}", at=timezone.now())
        Episode.objects.filter(pk=episode.pk).update(status="done")
    DOCS.mkdir(parents=True, exist_ok=True)

    for size, viewport in SIZES.items():
        context = browser.new_context(viewport=viewport)
        tab = context.new_page()
        tab.set_default_timeout(30000)
        errors: list[str] = []
        tab.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
        sign_in(tab, live_stack.url, "alice", "alice-pass-123")

        tab.click("button:has-text('New conversation')")
        tab.wait_for_selector("#connection.ok")
        tab.fill("#message", "How is my sister Kate doing in Lisbon?")
        tab.keyboard.press("Enter")
        reply = tab.locator("li.message.assistant:not(.streaming)")
        reply.wait_for(timeout=90000)
        assert "Kate is your sister." in reply.inner_text()
        reply.locator("details.recall summary").click()
        tab.wait_for_timeout(300)
        expect(tab.locator("#message")).to_be_in_viewport()
        _no_horizontal_overflow(tab)
        tab.screenshot(path=str(DOCS / f"chat-{size}.png"))

        tab.goto(live_stack.url + "/memory/")
        tab.wait_for_selector('#explorer[data-drawn="1"]')
        tab.wait_for_timeout(1200)  # the layout settles and the camera fits
        labelled = tab.evaluate("() => window.PegasusExplorer.labelledNodes()")
        assert len(labelled) >= 5
        tab.screenshot(path=str(DOCS / f"explorer-{size}.png"))

        tab.goto(live_stack.url + "/account/")
        expect(tab.locator("#header-account")).to_have_text("Maya")
        _no_horizontal_overflow(tab)
        tab.screenshot(path=str(DOCS / f"account-{size}.png"))
        assert errors == []
        context.close()

    # The admin's extraction job monitor fits a laptop screen.
    context = browser.new_context(viewport=SIZES["desktop"])
    tab = context.new_page()
    tab.goto(live_stack.url + "/accounts/login/")
    tab.fill("input[name=login]", "mod")
    tab.fill("input[name=password]", "mod-pass-123")
    tab.click("button[type=submit]")
    tab.goto(live_stack.url + "/admin/memory/episode/")
    tab.wait_for_selector("#result_list")
    overflow = tab.evaluate(
        "() => { const r = document.querySelector('#changelist .results');"
        " return r.scrollWidth - r.clientWidth; }"
    )
    assert overflow <= 0, f"the episode list is cut off by {overflow}px"
    header = tab.locator("#result_list thead").inner_text().lower()
    assert "duration" in header and "created at" in header
    tab.screenshot(path=str(DOCS / "admin-episodes.png"))
    context.close()
