"""The moderator's review console in real Chromium against the real processes (Daphne +
worker): sign in at /admin/login/ (allauth's login), open the queue, open a flagged merge,
see both sides, revert it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memory.models import Edge, MergeDecision, Node
from tests.admin.conftest import build_two_bills, commit_bill, llm_rating
from tests.browser.conftest import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(autouse=True)
def _orm_beside_playwright(monkeypatch):
    # Playwright's sync API keeps an event loop on this thread; the ORM calls made here are
    # plain synchronous code and nothing else runs on it.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def test_moderator_reviews_and_reverts_a_flagged_merge(
    live_stack, page, alice, mod, fake_anthropic
):
    smith, jones = build_two_bills(alice)
    fake_anthropic.script([llm_rating(smith, jones, 0.8)])
    decision = commit_bill(alice)  # the Write path, with the LLM 0.8 sure: merged + flagged
    assert decision.status == "merged-flagged"
    csp_violations: list[str] = []
    page.on(
        "console", lambda m: "Content Security Policy" in m.text and csp_violations.append(m.text)
    )
    base = live_stack.url

    # Sign in at the admin's address: allauth's login form (rate limited) takes over.
    page.goto(base + "/admin/login/")
    expect(page).to_have_url(base + "/accounts/login/?next=%2Fadmin%2Flogin%2F")
    page.fill("input[name=login]", "mod")
    page.fill("input[name=password]", "mod-pass-123")
    page.click("button[type=submit]")
    page.wait_for_url(base + "/admin/")

    # The index counts what needs review; the link opens the filtered queue.
    expect(page.locator("#count-flagged")).to_have_text("1")
    page.click("#moderation-summary >> text=Flagged merges")
    expect(page.locator("#result_list")).to_contain_text("Bill")
    expect(page.locator("#result_list")).to_contain_text("William Smith")
    page.click("#result_list >> a:text-is('Bill')")

    # Both sides: the proposed entity and each candidate with its neighbourhood.
    sides = page.locator("#side-by-side")
    expect(sides.locator("th.side-proposed")).to_have_text("Proposed entity")
    expect(sides.locator("td.side-proposed")).to_contain_text("city: Leeds")
    expect(sides.locator("td.side-proposed")).to_contain_text("merged into William Smith")
    expect(sides.locator("td.side-candidate").nth(0)).to_contain_text(
        "William Smith -[WORKS_AT]-> Acme"
    )
    expect(sides.locator("td.side-candidate").nth(0)).to_contain_text("Bill works at Acme")
    expect(sides.locator("td.side-candidate").nth(1)).to_contain_text("Robert Jones")
    expect(page.locator("#review-conversation")).to_contain_text("my friend Bill from Leeds")
    expect(page.locator("#review-status")).to_have_text("merged-flagged")
    page.screenshot(path=str(SCREENSHOTS / "admin-review-flagged.png"), full_page=True)

    page.click("#review-revert")

    expect(page.locator("ul.messagelist")).to_contain_text("Reverted the merge of 'Bill'")
    expect(page.locator("#review-status")).to_have_text("reverted")
    expect(page.locator("#review-log")).to_contain_text("mod")
    expect(page.locator("#review-revert")).to_have_count(0)
    page.screenshot(path=str(SCREENSHOTS / "admin-review.png"), full_page=True)

    decision.refresh_from_db()
    assert decision.status == "reverted" and decision.decided_by_id == mod.pk
    bill = Node.objects.get(user=alice, name="Bill")
    assert Edge.objects.get(user=alice, relation="HAS_FRIEND").target_id == bill.pk
    assert MergeDecision.objects.for_user(alice).count() == 1
    assert page.js_errors == []
    assert csp_violations == []
