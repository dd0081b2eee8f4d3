"""The chat page as a person meets it (issue 19, items 2, 5, 6 and the paste limit of 7):
phone width, the end of a conversation, two tabs on one conversation, a long paste."""

import pytest
from playwright.sync_api import expect

from chat.models import Conversation
from tests.browser.conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DESKTOP = {"width": 1366, "height": 860}
PHONE = {"width": 390, "height": 844}


def _tab(browser, viewport):
    context = browser.new_context(viewport=viewport)
    tab = context.new_page()
    tab.set_default_timeout(20000)
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.js_errors = errors
    return context, tab


def _inside_viewport(tab, selector, viewport) -> bool:
    box = tab.locator(selector).bounding_box()
    return (
        box is not None
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= viewport["width"]
        and box["y"] + box["height"] <= viewport["height"]
    )


def test_phone_can_start_and_switch_conversations_and_sees_the_message_box(
    live_stack, browser, alice
):
    context, tab = _tab(browser, PHONE)
    sign_in(tab, live_stack.url, "alice", "alice-pass-123")
    tab.click("text=New conversation")
    tab.wait_for_selector("#connection.ok")
    first = tab.url
    assert _inside_viewport(tab, "#message", PHONE), "the message box starts below the fold"
    assert _inside_viewport(tab, "#send", PHONE)
    assert tab.locator("#title").bounding_box()["width"] >= 250, "the title field is too narrow"
    tab.fill("#message", "Hello from my phone")
    tab.keyboard.press("Enter")
    tab.wait_for_selector("li.message.assistant:not(.streaming)")
    assert _inside_viewport(tab, "#message", PHONE)

    # Start a second conversation, then switch back to the first through the folded list.
    tab.click("button:has-text('New conversation')")
    tab.wait_for_selector("#connection.ok")
    assert tab.url != first
    toggle = tab.locator("#conversations-toggle")
    expect(toggle).to_be_visible()
    expect(tab.locator("#conversation-list")).to_be_hidden()
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    tab.click("#conversation-list a:has-text('Hello from my phone')")
    tab.wait_for_url(first)
    expect(tab.locator("li.message.user .body")).to_have_text("Hello from my phone")
    assert tab.js_errors == []
    context.close()


def test_desktop_fresh_conversation_shows_send(live_stack, browser, alice):
    context, tab = _tab(browser, DESKTOP)
    sign_in(tab, live_stack.url, "alice", "alice-pass-123")
    expect(tab.locator("#conversations-toggle")).to_be_hidden()
    expect(tab.locator("#conversation-list")).to_be_visible()
    tab.click("text=New conversation")
    tab.wait_for_selector("#connection.ok")
    assert _inside_viewport(tab, "#send", DESKTOP), "Send is cut off at 1366×860"
    assert _inside_viewport(tab, "#message", DESKTOP)
    context.close()


def test_ended_conversation_says_so_and_offers_a_new_one(live_stack, browser, alice):
    context, tab = _tab(browser, DESKTOP)
    sign_in(tab, live_stack.url, "alice", "alice-pass-123")
    tab.click("text=New conversation")
    tab.wait_for_selector("#connection.ok")
    tab.fill("#message", "My sister Kate lives in Lisbon.")
    tab.keyboard.press("Enter")
    tab.wait_for_selector("li.message.assistant:not(.streaming)")
    current = tab.locator(".conversation-list li.current .status")
    expect(current).to_have_text("open")
    tab.click("#end-button")
    expect(tab.locator("#ended-note")).to_be_visible()
    expect(tab.locator("#composer")).to_be_hidden()
    expect(tab.locator("#message")).to_be_hidden()
    expect(current).to_have_text("ended")  # without a reload
    tab.reload()
    expect(tab.locator("#composer")).to_be_hidden()
    expect(tab.locator("#ended-note")).to_contain_text("This conversation has ended")
    ended_url = tab.url
    tab.click("#continue-button")
    tab.wait_for_selector("#connection.ok")
    assert tab.url != ended_url
    expect(tab.locator("#message")).to_be_visible()
    assert Conversation.objects.filter(user=alice).count() == 2
    assert tab.js_errors == []
    context.close()


def test_a_long_paste_is_refused_with_a_message_not_cut(live_stack, browser, alice):
    context, tab = _tab(browser, DESKTOP)
    sign_in(tab, live_stack.url, "alice", "alice-pass-123")
    tab.click("text=New conversation")
    tab.wait_for_selector("#connection.ok")
    pasted = ("word " * 4000).strip()  # 19 999 characters
    tab.fill("#message", pasted)
    assert len(tab.input_value("#message")) == len(pasted)  # not silently cut to 8 000
    expect(tab.locator("#chat-error")).to_contain_text("messages are limited to 8000")
    tab.click("#send")
    expect(tab.locator("#chat-error")).to_contain_text("nothing was sent")
    assert tab.locator("li.message.user").count() == 0
    tab.fill("#message", "short")
    expect(tab.locator("#chat-error")).to_be_hidden()
    context.close()


def test_two_tabs_on_one_conversation_see_each_others_messages_and_the_end(
    live_stack, browser, alice, bob
):
    context, first = _tab(browser, DESKTOP)
    sign_in(first, live_stack.url, "alice", "alice-pass-123")
    first.click("text=New conversation")
    first.wait_for_selector("#connection.ok")
    second = context.new_page()  # same session, a second tab
    second.goto(first.url)
    second.wait_for_selector("#connection.ok")

    # Bob, signed in elsewhere on his own conversation, must see none of it.
    bob_context, bob_tab = _tab(browser, DESKTOP)
    sign_in(bob_tab, live_stack.url, "bob", "bob-pass-123")
    bob_tab.click("text=New conversation")
    bob_tab.wait_for_selector("#connection.ok")
    bob_tab.goto(first.url)  # alice's conversation: not found for bob
    assert bob_tab.locator("#chat").count() == 0
    bob_tab.go_back()
    bob_tab.wait_for_selector("#connection.ok")

    first.fill("#message", "Written in the first tab")
    first.keyboard.press("Enter")
    first.wait_for_selector("li.message.assistant:not(.streaming)")
    expect(second.locator("li.message.user .body")).to_have_text("Written in the first tab")
    expect(second.locator("li.message.assistant")).to_have_count(1)
    expect(second.locator("#title")).to_have_value("Written in the first tab")

    second.fill("#message", "And this in the second")
    second.keyboard.press("Enter")
    expect(first.locator("li.message.user")).to_have_count(2)
    expect(first.locator("li.message.assistant")).to_have_count(2)

    second.click("#end-button")
    expect(first.locator("#ended-note")).to_be_visible()
    expect(first.locator("#composer")).to_be_hidden()
    expect(first.locator(".conversation-list li.current .status")).to_have_text("ended")
    assert bob_tab.locator("li.message").count() == 0
    assert first.js_errors == []
    context.close()
    bob_context.close()
