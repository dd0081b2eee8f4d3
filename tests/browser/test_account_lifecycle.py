"""In real Chromium: sign up → chat → export everything → delete the account for good."""

import json

import pytest
from django.contrib.auth import get_user_model

from chat.models import Message
from tests.browser.conftest import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_sign_up_chat_export_and_delete(live_stack, page):
    base = live_stack.url
    page.goto(base + "/accounts/signup/")
    page.fill("input[name=email]", "carol@example.com")
    page.fill("input[name=username]", "carol")
    page.fill("input[name=password1]", "a-long-passphrase-42")
    page.fill("input[name=password2]", "a-long-passphrase-42")
    page.click("form button[type=submit]")
    page.wait_for_url(base + "/chat/")
    carol = get_user_model().objects.get(username="carol")

    page.click("text=New conversation")
    page.wait_for_selector("#connection.ok")
    page.fill("#message", "My sister Dana lives in Lisbon.")
    page.keyboard.press("Enter")
    page.wait_for_selector("li.message.assistant:not(.streaming)")
    assert Message.objects.filter(user=carol).count() == 2

    page.goto(base + "/account/")
    with page.expect_download() as download_info:
        page.click("text=Export my data")
    exported = json.loads(open(download_info.value.path()).read())
    assert exported["format"] == "pegasus-account/1"
    assert exported["account"]["username"] == "carol"
    texts = [m["text"] for c in exported["conversations"] for m in c["messages"]]
    assert "My sister Dana lives in Lisbon." in texts

    page.goto(base + "/account/delete/")
    page.fill("input[name=password]", "a-long-passphrase-42")
    page.check("input[name=confirm]")
    page.screenshot(path=str(SCREENSHOTS / "account-delete.png"), full_page=True)
    page.click("button.danger-button")
    page.wait_for_url(base + "/")
    assert page.is_visible("text=everything Pegasus knew about you are gone")
    assert not get_user_model().objects.filter(username="carol").exists()
    assert not Message.objects.filter(user_id=carol.pk).exists()
    assert page.js_errors == []
