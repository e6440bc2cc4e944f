"""The app in a real browser (Debian's Chromium driven by Playwright): sign in, upload bikes.mp4,
caption, open Review, fix a statement, save with the keyboard, see it in the history; the five
problems of issue 9 as an annotator met them, now correct (the review flow, keys, undo, a reload
keeping the draft, conflicts with two annotators, a forged session id, what a reviewer reads).

Screenshots land in test-artifacts/browser/ (look at them). Never `playwright install`: the
system Chromium is used (CINECAP_CHROMIUM, default /usr/bin/chromium).
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.support.app_captioners import CrashingCaptioner, FilmCaptioner, ScriptedCaptioner
from tests.support.app_server import ACCOUNTS, running_app
from tests.support.browser import choose, loaded, shot, signed_in, wait_text

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HOSTILE = "<img src=x onerror=\"window.__xss=1\"><script>window.__xss=2</script> wide"


class HostileCaptioner(ScriptedCaptioner):
    """Puts HTML and script into a statement's text, as a model or a user might."""

    def __init__(self):
        super().__init__(text=HOSTILE)


def test_upload_caption_review_fix_save_history(browser, tmp_path, bikes):
    with running_app(tmp_path / "data", default_captioner="scripted",
                     captioners={"scripted": HostileCaptioner,
                                 "crashing": CrashingCaptioner}) as (url, store):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(60_000)
        page.goto(url)
        # A visitor first (the demo stays public); the header's "Sign in" opens the sign-in page.
        wait_text(page, "#who", "Visitor (viewer)")
        page.locator("#sign-in").click()
        page.locator("#username").fill("ann")
        page.locator("#password").fill(ACCOUNTS["ann"][1])
        shot(page, "01-login")
        page.keyboard.press("Enter")
        page.locator("#caption-button").wait_for()
        wait_text(page, "#who", "Signed in as ann · annotator")
        expect(page.locator("#sign-out")).to_have_text("Sign out")

        page.locator("#upload input[type='file']").set_input_files(str(bikes))
        page.locator("#caption-button").click()
        wait_text(page, "#statements-table", "pan right")
        expect(page.locator("#timeline button.cc-tl-lane")).to_have_count(2)  # the timed ones
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
        click_row(page, 2)
        value = page.locator("#review-value input")
        value.fill("pan left")
        value.press("Enter")
        page.locator("#review-end input").fill("9.5")
        page.locator("#review-fix").click()
        wait_text(page, "#review-table", "fixed")
        # Save with the keyboard shortcut (focus outside any text field).
        key(page, "s")
        wait_text(page, "#review-status", "saved gold pair")
        hist = page.locator("#review-history")
        wait_text(page, "#review-history", "fixed")
        assert re.search(r"value pan right → pan left", hist.inner_text())
        shot(page, "04-saved-history")

        gold = store.review.gold_pairs(clip_id)[-1]
        assert gold.annotator == "ann" and gold.statements[1]["value"] == "pan left"
        assert gold.statements[1]["t_end"] == pytest.approx(9.5)
        assert gold.statements[1]["text"] == "The camera pans left."  # rewritten for the value
        assert [h.action for h in store.review.history(clip_id)] == ["fix"]
        assert page.evaluate("window.__xss") is None
        # The header's sign-out button ends the session: the page it loads (a new load of the
        # app, after /logout's redirect: not signed in any more) shows a visitor, offered
        # "Sign in" (loading the app once more would show the same).
        page.locator("#sign-out").click()
        wait_text(page, "#who", "Visitor (viewer)")
        page.locator("#sign-in").wait_for()
        page.close()


def test_public_demo_captions_bikes_with_anchors_and_shows_evidence(browser, tmp_path, bikes):
    """No accounts: a viewer uploads bikes.mp4 and gets the anchors caption, the statements, the
    timeline and the evidence overlays; the Review tab is not offered."""
    with running_app(tmp_path / "data", accounts=False, captioners="registry") as (url, store):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(120_000)
        page.goto(url)
        wait_text(page, "#who", "Visitor (viewer)")
        expect(page.get_by_role("tab", name="Review")).to_have_count(0)
        page.locator("#upload input[type='file']").set_input_files(str(bikes))
        page.locator("#caption-button").click()
        wait_text(page, "#statements-table", "Camera Movement")
        loaded(page, "#caption-shots")
        loaded(page, "#caption-moment")
        assert "Six shots" in page.locator("#caption-text textarea").input_value()
        assert page.locator("#caption-shots img").count() >= 6
        assert page.locator("#timeline button.cc-tl-lane").count() >= 3
        assert "not stored" in page.locator("#caption-status textarea").input_value()
        shot(page, "05-demo-anchors")
        assert store.counts()["clips"] == 0
        page.close()


def sign_in(browser, url: str, name: str):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    signed_in(page, url, name, ACCOUNTS[name][1])
    return page


def open_clip(page, clip_id: int) -> None:
    page.get_by_role("tab", name="Review").click()
    page.locator("#review-clip-id input").fill(str(clip_id))
    page.locator("#review-open").click()
    wait_text(page, "#review-status", f"clip #{clip_id}")


def click_row(page, row: int) -> None:
    """Click statement ``row`` (from 1) in the table and wait until the form is bound to it."""
    page.locator(f"#review-table [data-testid='cell-{row - 1}-3']").click()
    wait_text(page, "#review-editing", f"Editing #{row}")


def key(page, k: str) -> None:
    """Press a shortcut with the focus outside any field (as a person would after a click)."""
    page.locator("#review-progress").click()
    page.keyboard.press(k)


def status(page) -> str:
    return page.locator("#review-status textarea").input_value()


def caption_with(store, data_dir, captioner, clip) -> int:
    from ui.backends import Backends
    from ui.settings import Settings
    from ui.usecases import caption

    out = caption.caption_clip(store, Backends(captioners={"c": captioner}),
                               Settings(data_dir=data_dir), store.users.find("ann"), clip, "c")
    return out.clip_id


def draft_of(store, name: str, clip_id: int):
    from ui.usecases import review

    user = store.users.find(name)
    rec = store.drafts.find(user.id, clip_id)
    return review.current_draft(store, user, rec.id)


def test_an_annotator_meets_the_three_form_problems_now_correct(browser, tmp_path, bikes,
                                                                small_clip):
    """Problems 1–3 of issue 9 on bikes.mp4, and the flow around them: the player seeks to a
    clicked statement, number keys and arrows move between rows, Ctrl+Z / Ctrl+Shift+Z, an error
    stays in the status line and leaves the table alone, a reload keeps the draft, a save opens
    the next clip with a cleared form."""
    with running_app(tmp_path / "data") as (url, store):
        clip = caption_with(store, tmp_path / "data", FilmCaptioner, bikes)
        second = caption_with(store, tmp_path / "data", ScriptedCaptioner, small_clip)
        page = sign_in(browser, url, "ann")
        page.get_by_role("tab", name="Review").click()
        page.locator("#review-queue [data-testid='cell-0-0']").click()  # the least certain
        wait_text(page, "#review-status", f"opened clip #{clip}")
        wait_text(page, "#review-progress", "1 of 2 in the queue")
        wait_text(page, "#review-table", "dutch angle")
        page.locator("#review-timeline .cc-timeline button.cc-tl-lane[data-id]").first.wait_for()

        # 1. A Depth of Field row, then the pan: the form shows the pan, value included.
        click_row(page, 1)
        click_row(page, 2)
        assert page.locator("#review-value input").input_value().startswith("pan right")
        assert page.locator("#review-evidence textarea").input_value() == (
            "background slides left 40 px/s")
        # Clicking the statement seeks the player to its interval (4.0–10.0 s) and plays it.
        page.wait_for_function("() => { const v = document.querySelector('#review-video video');"
                               " return !!v && v.currentTime >= 3.9 && v.currentTime <= 10.1; }")
        t = page.evaluate("document.querySelector('#review-video video').currentTime")
        page.locator("#review-end input").fill("9")
        key(page, "f")
        wait_text(page, "#review-status", "fixed #2")
        shot(page, "10-fix-changes-only-the-end")
        pan = draft_of(store, "ann", clip).items()[1].current
        assert (pan["value"], pan["t_end"], pan["text"], pan["evidence"]) == (
            "pan right", 9.0, "The camera pans right.", "background slides left 40 px/s")
        assert 3.9 <= t <= 10.1

        # 2. Delete the dutch angle, add Shot Size "wide": nothing of the dutch angle comes along.
        click_row(page, 3)
        key(page, "d")
        wait_text(page, "#review-status", "deleted #3")
        choose(page, "review-aspect", "Shot Size", "#review-progress")
        choose(page, "review-value", "wide", "#review-progress")
        key(page, "n")
        wait_text(page, "#review-status", "added #6")
        assert "no evidence" in status(page)
        # And static → "push in" (what people type for dolly in) drops the static's evidence.
        click_row(page, 4)
        box = page.locator("#review-value input")
        box.fill("push in")
        box.press("Enter")
        key(page, "f")
        wait_text(page, "#review-status", "fixed #4")
        assert "value static → dolly in" in status(page)
        assert "evidence “103 tracked background points stay still” removed" in status(page)
        shot(page, "11-add-and-push-in")
        items = draft_of(store, "ann", clip).items()
        assert (items[5].current["text"], items[5].current["evidence"]) == (
            "It is a wide shot.", "")
        assert (items[3].current["value"], items[3].current["evidence"]) == ("dolly in", "")

        # Number keys and arrows move between rows; Ctrl+Z / Ctrl+Shift+Z undo and redo.
        key(page, "5")
        wait_text(page, "#review-editing", "Editing #5")
        key(page, "ArrowUp")
        wait_text(page, "#review-editing", "Editing #4")
        key(page, "Control+z")
        wait_text(page, "#review-status", "undid the fix of #4")
        wait_text(page, "#review-table", "103 tracked background points")
        key(page, "Control+Shift+z")
        wait_text(page, "#review-status", "redid the fix of #4")

        # An error stays in the status line; the table keeps its rows (no "Error" badge).
        page.locator("#review-start input").fill("6")
        page.locator("#review-end input").fill("2")
        key(page, "f")
        wait_text(page, "#review-status", "⚠")
        page.wait_for_timeout(1500)
        assert "the end after the start" in status(page)
        table = page.locator("#review-table").inner_text()
        assert "dolly in" in table and "Error" not in table
        shot(page, "12-error-stays-in-the-status-line")

        # A reload keeps the draft (server-side, this user's).
        page.reload()
        page.get_by_role("tab", name="Review").click()
        wait_text(page, "#review-status", f"resumed your draft of clip #{clip}")
        wait_text(page, "#review-table", "dolly in")
        assert "It is a wide shot." in page.locator("#review-table").inner_text()
        shot(page, "13-reload-keeps-the-draft")

        # 3. Delete row 2 and save: the next clip opens with an empty form; "f" reaches nothing.
        click_row(page, 2)
        key(page, "d")
        wait_text(page, "#review-status", "deleted #2")
        key(page, "s")
        wait_text(page, "#review-status", "saved gold pair")
        wait_text(page, "#review-progress", f"Clip #{second}")
        wait_text(page, "#review-progress", "2 of 2 in the queue")
        wait_text(page, "#review-editing", "New statement")
        key(page, "f")
        wait_text(page, "#review-status", "⚠ select a statement first")
        shot(page, "14-saved-next-clip-form-cleared")
        gold = store.review.gold_pairs(clip)[-1]
        assert [(s["value"], s["evidence"]) for s in gold.statements] == [
            ("shallow depth of field", "subject 3.1x sharper than background"),
            ("dolly in", ""), ("handheld shake", "jitter 2.1 px"), ("wide shot", "")]
        assert store.review.gold_pairs(second) == []
        assert not draft_of(store, "ann", second).actions
        page.context.close()


def test_two_annotators_a_forged_session_and_a_reviewer(browser, tmp_path, bikes):
    """Problem 4 (re-applying must not undo someone else's fix: a conflict, side by side,
    decided), problem 5 in the browser (Bea's page sends Ann's session id: refused), and what a
    reviewer reads and decides; the annotator then sees the pair sent back, with the note."""
    import json

    with running_app(tmp_path / "data") as (url, store):
        clip = caption_with(store, tmp_path / "data", FilmCaptioner, bikes)
        ann, bea = sign_in(browser, url, "ann"), sign_in(browser, url, "bea")
        sessions = []
        ann.on("request", lambda r: sessions.append(json.loads(r.post_data)["session_hash"])
               if r.url.split("?")[0].endswith("/queue/join") else None)
        open_clip(ann, clip)
        open_clip(bea, clip)
        # Ann accepts the pan and notes the static; Bea fixes the pan's evidence and saves.
        click_row(ann, 2)
        key(ann, "a")
        wait_text(ann, "#review-status", "accepted #2")
        click_row(ann, 4)
        ann.locator("#review-note textarea").fill("locked off on a tripod")
        key(ann, "f")
        wait_text(ann, "#review-status", "note set")
        click_row(bea, 2)
        bea.locator("#review-evidence textarea").fill("trees slide left")
        key(bea, "f")
        wait_text(bea, "#review-status", "fixed #2")
        key(bea, "s")
        wait_text(bea, "#review-status", "saved gold pair")

        # 5. Bea's page sends Ann's session id with its save: Ann's draft is not saved.
        before, ann_draft = store.counts(), draft_of(store, "ann", clip).to_data()

        def forge_join(route):  # the event, sent under Ann's session id
            body = json.loads(route.request.post_data)
            body["session_hash"] = sessions[-1]
            route.continue_(post_data=json.dumps(body))

        def forge_stream(route):  # and its result, read from Ann's session's stream
            route.continue_(url=route.request.url.split("session_hash=")[0]
                            + f"session_hash={sessions[-1]}")

        bea.route("**/gradio_api/queue/join*", forge_join)
        bea.route("**/gradio_api/queue/data*", forge_stream)
        bea.locator("#review-save").click()
        wait_text(bea, "#review-status", "belongs to another annotator")
        bea.unroute("**/gradio_api/queue/join*")
        bea.unroute("**/gradio_api/queue/data*")
        shot(bea, "20-forged-session-refused")
        assert store.counts() == before
        assert draft_of(store, "ann", clip).to_data() == ann_draft

        # 4. Ann saves: refused, both versions side by side; re-applying leaves the pan to her.
        key(ann, "s")
        wait_text(ann, "#review-status", "was saved by bea")
        assert ann.locator("#review-compare .cc-diff").count() >= 2
        wait_text(ann, "#review-compare", "trees slide left")
        shot(ann, "21-conflict-both-versions")
        ann.locator("#review-rebase").click()
        wait_text(ann, "#review-status", "need your decision")
        assert "they: changed evidence; you: accepted it as it was" in status(ann)
        assert "1 of your edits re-applied: note #4" in status(ann)
        wait_text(ann, "#review-conflicts", "trees slide left")
        assert ann.locator("#review-conflicts .cc-diff").count() >= 1
        shot(ann, "22-conflict-to-decide")
        ann.locator("#conflict-theirs").click()
        wait_text(ann, "#review-status", "all decided")
        key(ann, "s")
        wait_text(ann, "#review-status", "saved gold pair")
        gold = store.review.gold_pairs(clip)[-1]
        assert gold.annotator == "ann" and gold.statements[1]["evidence"] == "trees slide left"
        assert gold.notes == {gold.statement_ids[3]: "locked off on a tripod"}
        assert not ann.locator("#gold-approve").is_visible()  # no reviewer buttons for her

        # The reviewer reads exactly that pair against the model, Ann's note inline (signed in
        # on Bea's page, done with: a context with the app's files cached loads it cheaper).
        rita = bea
        signed_in(rita, url, "rita", ACCOUNTS["rita"][1])
        open_clip(rita, clip)
        wait_text(rita, "#gold-view", f"Gold pair #{gold.id}")
        view = rita.locator("#gold-view").inner_text()
        assert "locked off on a tripod" in view and "trees slide left" in view
        assert rita.locator("#gold-view .cc-diff").count() >= 1  # the changed evidence
        assert rita.locator("#gold-view #gold-aspects").count() == 1  # the model, judged
        assert rita.get_by_role("button", name="Accept gold pair").count() == 0
        rita.locator("#gold-note textarea").fill("tilt, not pan")
        rita.locator("#gold-send-back").click()
        wait_text(rita, "#review-status", f"gold pair #{gold.id} sent back")
        shot(rita, "23-reviewer-sends-back")
        # Where Ann works, the pair shows as sent back, with the note.
        ann.locator("#review-open").click()
        wait_text(ann, "#review-banner", "tilt, not pan")
        assert "Sent back by rita" in ann.locator("#review-banner").inner_text()
        shot(ann, "24-annotator-sees-sent-back")
        for p in (ann, rita):
            p.context.close()
