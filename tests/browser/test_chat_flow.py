"""In real Chromium: chat, end the conversation, let the worker file it into memory, and see
it recalled in the next conversation."""

import time

import pytest

from memory.models import Episode
from tests.browser.conftest import SCREENSHOTS, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _wait_for_extraction(timeout=90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        episode = Episode.objects.first()
        if episode and episode.status in {"done", "failed"}:
            return episode
        time.sleep(0.5)
    raise AssertionError("the worker did not extract the conversation in time")


def test_two_conversations_show_recall_working_end_to_end(live_stack, page, alice):
    sign_in(page, live_stack.url, "alice", "alice-pass-123")
    page.click("text=New conversation")
    page.wait_for_selector("#connection.ok")
    assert page.is_visible("text=Offline mode: no Anthropic API key is set")

    page.fill("#message", "My boss Joshua keeps moving my deadlines at Deloitte.")
    page.keyboard.press("Enter")
    page.wait_for_selector("li.message.assistant:not(.streaming) >> text=Offline mode")
    page.click("#end-button")
    page.wait_for_selector("#ended-note", state="visible")

    episode = _wait_for_extraction()
    assert episode.status == "done", episode.last_error

    page.click("text=New conversation")
    page.wait_for_selector("#connection.ok")
    page.fill("#message", "Should I talk to Joshua about it?")
    page.click("#send")
    reply = page.wait_for_selector("li.message.assistant:not(.streaming)")
    reply.query_selector("details.recall summary").click()
    panel_text = reply.query_selector("details.recall").inner_text()
    assert "HAS_BOSS" in panel_text and "Joshua" in panel_text
    assert "My boss Joshua keeps moving my deadlines" in panel_text
    page.screenshot(path=str(SCREENSHOTS / "chat-recall.png"), full_page=True)
    assert page.js_errors == []


def test_a_dropped_socket_reconnects_without_losing_or_duplicating(live_stack, page, alice):
    sign_in(page, live_stack.url, "alice", "alice-pass-123")
    page.click("text=New conversation")
    page.wait_for_selector("#connection.ok")
    live_stack.stop_web()  # the server goes away: the socket drops
    page.wait_for_selector("#connection.err")
    page.fill("#message", "Sent while the server was down")
    page.keyboard.press("Enter")
    assert page.locator("li.message.user.pending").count() == 1
    live_stack.start_web()
    page.wait_for_selector("li.message.assistant:not(.streaming)", timeout=40000)
    page.wait_for_selector("#connection.ok")
    assert page.locator("li.message.user").count() == 1
    assert page.locator("li.message.user.pending").count() == 0
    assert page.locator("li.message.assistant").count() == 1
    page.reload()
    page.wait_for_selector("li.message.assistant")
    assert page.locator("li.message.user").count() == 1
    assert page.js_errors == []
