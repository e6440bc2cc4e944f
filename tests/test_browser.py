"""The app in a real browser (Debian's Chromium driven by Playwright): sign in, upload bikes.mp4,
caption, open Review, fix a statement, save with the keyboard, see it in the history.

Screenshots land in test-artifacts/browser/ (look at them). Never `playwright install`: the
system Chromium is used (CINECAP_CHROMIUM, default /usr/bin/chromium).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.support.app_captioners import CrashingCaptioner, ScriptedCaptioner
from tests.support.app_server import ACCOUNTS, running_app
from tests.support.require import missing

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "browser"
CHROMIUM = os.environ.get("CINECAP_CHROMIUM", "/usr/bin/chromium")
HOSTILE = "<img src=x onerror=\"window.__xss=1\"><script>window.__xss=2</script> wide"


class HostileCaptioner(ScriptedCaptioner):
    """Puts HTML and script into a statement's text, as a model or a user might."""

    def __init__(self):
        super().__init__(text=HOSTILE)


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        missing(f"no Chromium at {CHROMIUM} (apt-get install chromium; set CINECAP_CHROMIUM)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield b
        b.close()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def wait_text(page, selector: str, text: str) -> None:
    """Wait until the element's visible text contains ``text`` (Gradio tables keep hidden copies
    of their cells for measuring, so a plain locator on the text finds a hidden one first)."""
    page.wait_for_function("([sel, t]) => { const el = document.querySelector(sel);"
                           " return !!el && (el.innerText.includes(t) || [...el.querySelectorAll("
                           "'textarea, input')].some((x) => x.value.includes(t))); }",
                           arg=[selector, text])


def test_upload_caption_review_fix_save_history(browser, tmp_path, bikes):
    with running_app(tmp_path / "data", default_captioner="scripted",
                     captioners={"scripted": HostileCaptioner,
                                 "crashing": CrashingCaptioner}) as (url, store):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(60_000)
        page.goto(url)
        # Gradio's login form.
        page.locator("input[name='username'], input[type='text']").first.fill("ann")
        page.locator("input[type='password']").first.fill(ACCOUNTS["ann"][1])
        shot(page, "01-login")
        page.keyboard.press("Enter")
        page.locator("#caption-button").wait_for()
        page.wait_for_function("() => (document.querySelector('#who textarea') || {}).value"
                               " === 'ann (annotator)'")

        page.locator("#upload input[type='file']").set_input_files(str(bikes))
        page.locator("#caption-button").click()
        wait_text(page, "#statements-table", "pan right")
        page.locator("#timeline img").wait_for()
        caption = page.locator("#caption-text textarea").input_value()
        assert "pans right" in caption
        # Hostile statement text is shown as text and never runs.
        wait_text(page, "#statements-table", "<script>window.__xss=2</script>")
        assert page.evaluate("window.__xss") is None
        shot(page, "02-captioned")

        clip_id = store.clips.list()[-1].id
        page.get_by_role("tab", name="Review").click()
        page.locator("#review-clip-id input").fill(str(clip_id))
        page.locator("#review-open").click()
        wait_text(page, "#review-table", "pan right")
        shot(page, "03-review-opened")

        # Select the "pan right" row, change its value and interval in the form, fix it.
        page.locator("#review-table span.text:visible").filter(has_text="pan right").first.click()
        page.wait_for_function(
            "() => document.querySelector('#review-row input').value === '2'")
        value = page.locator("#review-value input")
        value.fill("pan left")
        value.press("Enter")
        page.locator("#review-end input").fill("9.5")
        page.locator("#review-fix").click()
        wait_text(page, "#review-table", "fixed")
        # Save with the keyboard shortcut (focus outside any text field).
        page.locator("#review-source").click()
        page.locator("body").press("s")
        page.wait_for_function(
            "() => /saved gold pair/.test(document.querySelector('#review-status textarea').value)")
        hist = page.locator("#review-history")
        wait_text(page, "#review-history", "fix")
        assert re.search(r"pan right.*", hist.inner_text())
        assert "pan left" in hist.inner_text()
        shot(page, "04-saved-history")

        gold = store.review.gold_pairs(clip_id)[-1]
        assert gold.annotator == "ann" and gold.statements[1]["value"] == "pan left"
        assert gold.statements[1]["t_end"] == pytest.approx(9.5)
        assert gold.statements[1]["text"] == "The camera pans left."  # rewritten for the value
        assert [h.action for h in store.review.history(clip_id)] == ["fix"]
        assert page.evaluate("window.__xss") is None
        page.close()


def test_public_demo_captions_bikes_with_anchors_and_shows_evidence(browser, tmp_path, bikes):
    """No accounts: a viewer uploads bikes.mp4 and gets the anchors caption, the statements, the
    timeline and the evidence overlays; the Review tab is not offered."""
    with running_app(tmp_path / "data", accounts=False, captioners="registry") as (url, store):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(120_000)
        page.goto(url)
        page.wait_for_function("() => (document.querySelector('#who textarea') || {}).value"
                               " === 'anonymous (viewer)'")
        expect(page.get_by_role("tab", name="Review")).to_have_count(0)
        page.locator("#upload input[type='file']").set_input_files(str(bikes))
        page.locator("#caption-button").click()
        wait_text(page, "#statements-table", "Camera Movement")
        page.locator("#timeline img").wait_for()
        page.locator("#overlays img").first.wait_for()
        assert "Six shots" in page.locator("#caption-text textarea").input_value()
        assert page.locator("#overlays img").count() >= 6
        assert "not stored" in page.locator("#caption-status textarea").input_value()
        shot(page, "05-demo-anchors")
        assert store.counts()["clips"] == 0
        page.close()


def sign_in(browser, url: str, name: str):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(url)
    page.locator("input[name='username'], input[type='text']").first.fill(name)
    page.locator("input[type='password']").first.fill(ACCOUNTS[name][1])
    page.keyboard.press("Enter")
    page.wait_for_function("(n) => ((document.querySelector('#who textarea') || {}).value || '')"
                           ".startsWith(n + ' (')", arg=name)
    return page


def open_clip(page, clip_id: int) -> None:
    page.get_by_role("tab", name="Review").click()
    page.locator("#review-clip-id input").fill(str(clip_id))
    page.locator("#review-open").click()
    wait_text(page, "#review-status", f"opened clip #{clip_id}")


def test_two_annotators_on_one_clip_see_both_versions(browser, tmp_path, small_clip):
    from ui.usecases import caption
    from ui.backends import Backends
    from ui.settings import Settings

    with running_app(tmp_path / "data") as (url, store):
        ann_user = store.users.find("ann")
        caption.caption_clip(store, Backends(captioners={"scripted": ScriptedCaptioner}),
                              Settings(data_dir=tmp_path / "data"), ann_user, small_clip,
                              "scripted")
        clip_id = store.clips.list()[-1].id
        ann, bea = sign_in(browser, url, "ann"), sign_in(browser, url, "bea")
        open_clip(ann, clip_id)
        open_clip(bea, clip_id)
        # ann rejects the shot size and saves first.
        ann.locator("#review-row input").fill("3")
        ann.locator("#review-reject").click()
        wait_text(ann, "#review-table", "rejected")
        ann.locator("#review-save").click()
        wait_text(ann, "#review-status", "saved gold pair")
        # bea, still on the old version, fixes the pan's end time and saves: refused, both shown.
        bea.locator("#review-row input").fill("2")
        bea.locator("#review-value input").fill("pan right")
        bea.locator("#review-value input").press("Enter")
        bea.locator("#review-start input").fill("1.0")
        bea.locator("#review-end input").fill("1.9")
        bea.locator("#review-fix").click()
        wait_text(bea, "#review-table", "fixed")
        before = store.counts()
        bea.locator("#review-save").click()
        wait_text(bea, "#review-status", "was saved by ann")
        wait_text(bea, "#conflict-yours", "1.90")
        wait_text(bea, "#conflict-theirs", "pan right")
        assert "wide shot" in bea.locator("#conflict-yours").inner_text()
        assert "wide shot" not in bea.locator("#conflict-theirs").inner_text()
        # The mp4v test clip plays: the page got an H.264 preview the browser decodes.
        bea.wait_for_function("() => { const v = document.querySelector('#review-video video');"
                              " return !!v && v.readyState >= 2 && v.videoWidth === 160; }")
        shot(bea, "06-conflict-both-versions")
        assert store.counts() == before
        # bea's edit is still in her table; one click re-applies it on ann's version.
        assert "fixed" in bea.locator("#review-table").inner_text()
        bea.locator("#review-rebase").click()
        wait_text(bea, "#review-status", "1 of your edits re-applied on version 2")
        bea.locator("#review-save").click()
        wait_text(bea, "#review-status", "saved gold pair")
        final = store.review.gold_pairs(clip_id)[-1]
        assert final.annotator == "bea"
        assert [(s["value"], s["t_end"]) for s in final.statements] == [
            ("static", 1.0), ("pan right", 1.9)]  # ann's rejection and bea's fix, both kept
        ann.context.close()
        bea.context.close()
