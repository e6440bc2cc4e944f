"""Sign-in beside the public demo in a real browser (issue 26 item 2): an anonymous visitor of an
app with accounts keeps the Caption and Leaderboard tabs and finds a "Sign in" button; an account
added while the app runs signs in without a restart; a session survives an app restart; signing
out on plain http ends the session in the store, so its cookies replayed open nothing.

Debian's Chromium through Playwright (tests/support/browser.py); screenshots in
test-artifacts/browser/."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.app_server import ACCOUNTS, running_app
from tests.support.browser import shot, signed_in, wait_text
from ui.usecases import accounts

pytestmark = [pytest.mark.browser, pytest.mark.slow]

USER = "fetch('gradio_api/user').then((r) => r.json())"


def tab_names(page) -> list[str]:
    return [t.strip() for t in page.get_by_role("tab").all_inner_texts()]


def test_a_visitor_signs_in_and_out_an_added_account_signs_in_and_survives_a_restart(
        browser, tmp_path):
    """One page (a page load is ~5 s of CPU): no accounts, then accounts added while the app
    runs; a visitor signs in (a wrong password first) and out, the new account signs in without
    a restart, and its session survives one."""
    with running_app(tmp_path / "data", accounts=False, default_captioner="scripted") as (
            url, store):
        context = browser.new_context(viewport={"width": 1366, "height": 900})
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(url)
        wait_text(page, "#who", "Visitor (viewer)")
        expect(page.locator("#sign-in")).to_have_count(0)  # no accounts yet: the demo only
        accounts.add_user(store, accounts.CONSOLE, "nina", "reviewer", "nina-password")
        store.users.add("rita", *ACCOUNTS["rita"])
        page.reload()
        wait_text(page, "#who", "Sign in")  # the page's load asks the store again
        wait_text(page, "#who", "Visitor (viewer)")
        expect(page.locator("#sign-in")).to_have_text("Sign in")
        assert tab_names(page) == ["Caption", "Leaderboard"]
        page.locator("#caption-button").wait_for()  # the demo itself, no login wall
        shot(page, "sign-in-01-visitor")

        page.locator("#sign-in").click()
        page.locator("#username").fill("rita")
        page.locator("#password").fill("not her password")
        page.locator("#sign-in-submit").click()
        expect(page.locator("#sign-in-error")).to_have_text("Incorrect credentials.")
        page.locator("#password").fill(ACCOUNTS["rita"][1])
        shot(page, "sign-in-02-page")
        page.locator("#sign-in-submit").click()
        wait_text(page, "#who", "Signed in as rita · reviewer")
        expect(page.get_by_role("tab", name="Review")).to_be_visible()
        assert page.evaluate(USER) == "rita"

        kept = context.cookies()
        # (the Lax one at least: a browser may refuse the Secure twin on plain http)
        assert accounts.SESSION_COOKIES[1] in {c["name"] for c in kept}
        page.locator("#sign-out").click()
        wait_text(page, "#who", "Visitor (viewer)")
        expect(page.locator("#sign-in")).to_be_visible()
        assert page.evaluate(USER) == ""
        # The old cookies put back (a copy someone kept): the session is gone from the store.
        context.add_cookies(kept)
        page.reload()
        wait_text(page, "#who", "Visitor (viewer)")
        assert page.evaluate(USER) == ""
        expect(page.get_by_role("tab", name="Review")).to_have_count(0)

        # The account added while the app runs signs in (no restart in between).
        signed_in(page, url, "nina", "nina-password")
        wait_text(page, "#who", "Signed in as nina · reviewer")
        expect(page.get_by_role("tab", name="Review")).to_be_visible()
        shot(page, "sign-in-03-new-account")
    # A session survives an app restart: a new app process on the same store (and another
    # port: cookies do not depend on it).
    with running_app(tmp_path / "data", accounts=False, default_captioner="scripted") as (
            url, store):
        page.goto(url)
        wait_text(page, "#who", "Signed in as nina · reviewer")
        expect(page.get_by_role("tab", name="Review")).to_be_visible()
        assert page.evaluate(USER) == "nina"
    context.close()
