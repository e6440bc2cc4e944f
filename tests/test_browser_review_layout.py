"""The Review tab as a new user met it (issue 26 item 5), in Debian's Chromium at 1366x900: the
statements table shows four statements without scrolling, its headers are whole words, and a
timeline bar dragged with the mouse changes the statement's interval in the draft (moved by its
middle, its end pulled by the edge; Undo reverts).

Screenshots land in test-artifacts/browser/ (look at them)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.support.app_captioners import FilmCaptioner
from tests.support.app_server import running_app
from tests.support.browser import kept_page, own_copy, shot, signed_in, wait_text
from tests.test_browser import caption_with, draft_of, status

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def shared(tmp_path_factory, bikes):
    """One app and one page signed in as ann for the file's tests (a page load and a sign-in
    cost ~5 s of CPU, an app ~2 s); each test works on a copy of bikes.mp4 of its own."""
    data = tmp_path_factory.mktemp("review-layout") / "data"
    with running_app(data, default_captioner="scripted") as (url, store), \
            kept_page({"width": 1366, "height": 900}) as page:
        signed_in(page, url, "ann", "ann-password")  # the app's own sign-in page (ui/signin.py)
        yield SimpleNamespace(url=url, store=store, data=data, page=page,
                              bikes=lambda n: own_copy(bikes, data.parent / f"bikes-{n}.mp4", n))


def _open_as_ann(shared, clip: int):
    page = shared.page
    page.mouse.move(0, 0)
    page.evaluate("window.scrollTo(0, 0)")
    page.get_by_role("tab", name="Review").click()
    page.locator("#review-clip-id input").fill(str(clip))
    page.locator("#review-open").click()
    wait_text(page, "#review-status", f"opened clip #{clip}")
    wait_text(page, "#review-table", "handheld shake")
    return page


#: The short columns: every value must sit whole in its cell ("pending", not "pendin / g";
#: "10.00", not "10.0 / 0"; the pixels cell's "✗ no was ✓ yes" shown pieces).
SHORT_COLUMNS = ("#", "status", "aspect", "value", "start", "end", "pixels")


def broken_words(page) -> dict:
    """The words of the review table's short columns that wrap inside themselves (a word's
    range with line boxes on more than one line) or overflow their cell, and the columns'
    widths (px) for the message."""
    return page.evaluate("""(names) => {
      const grid = document.querySelector('#review-table');
      const heads = [...grid.querySelectorAll('[role=columnheader] span.header')]
        .map((s) => s.innerText.trim());
      const broken = [], widths = {};
      for (const name of names) {
        const col = heads.indexOf(name);
        const cells = [...grid.querySelectorAll(`[data-col='${col}'][role=gridcell]`)];
        if (cells.length) widths[name] = Math.round(cells[0].getBoundingClientRect().width);
        for (const cell of cells) {
          const box = cell.getBoundingClientRect();
          // What shows: the pixels cell's short pieces, else the cell's text.
          const shown = [...cell.querySelectorAll('.cc-pixels-short, .cc-verdict-was')];
          const roots = shown.length ? shown : [cell.querySelector('span.text') || cell];
          for (const root of roots) {
            const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
              for (const m of node.data.matchAll(/\\S+/g)) {
                const range = document.createRange();
                range.setStart(node, m.index);
                range.setEnd(node, m.index + m[0].length);
                const rects = [...range.getClientRects()].filter((r) => r.width > 0);
                const tops = new Set(rects.map((r) => Math.round(r.top)));
                const right = Math.max(...rects.map((r) => r.right));
                if (tops.size > 1 || right > box.right + 0.5)
                  broken.push({column: name, word: m[0], lines: tops.size,
                               over: Math.round(right - box.right)});
              }
            }
          }
        }
      }
      return {broken, widths}; }""", list(SHORT_COLUMNS))


def test_four_statements_fit_without_scrolling_at_1366x900(browser, shared):
    clip = caption_with(shared.store, shared.data, FilmCaptioner, shared.bikes(1))
    page = _open_as_ann(shared, clip)
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "review-1366x900")
    boxes = page.evaluate("""() => {
      const grid = document.querySelector('#review-table');
      const out = [];
      for (let r = 0; r < 4; r++) {
        const cells = [...grid.querySelectorAll(`[data-row='${r}'][role=gridcell]`)];
        const rect = (el) => el.getBoundingClientRect();
        const scroller = cells[0].closest('[style*=overflow], .table-wrap') || grid;
        out.push({row: r, top: Math.min(...cells.map((c) => rect(c).top)),
                  bottom: Math.max(...cells.map((c) => rect(c).bottom)),
                  boxBottom: rect(scroller).bottom, hidden: cells.some((c) =>
                    c.offsetParent === null)});
      }
      return {rows: out, scrollY: window.scrollY, height: window.innerHeight};
    }""")
    assert boxes["scrollY"] == 0
    for row in boxes["rows"]:
        assert not row["hidden"], row
        assert row["bottom"] <= boxes["height"], f"statement {row['row'] + 1} is below the " \
                                                f"fold: {row}"
        assert row["bottom"] <= row["boxBottom"] + 1, f"cut off by its scroll box: {row}"
    # Headers are whole words on one line inside their column ("start", not "star" or
    # "st / art"); times are never cut ("10.00", not "10.0").
    seen = page.evaluate("""() => {
      // Gradio clips a cell's text in its box: what does not fit overflows the span.
      const inside = (s, box) => s.scrollWidth <= s.clientWidth + 1
        && s.getBoundingClientRect().right <= box.getBoundingClientRect().right + 0.5;
      const headers = [...document.querySelectorAll(
        '#review-table [role=columnheader] span.header')].map((s) => ({text: s.innerText,
        lines: Math.round(s.getBoundingClientRect().height /
                          parseFloat(getComputedStyle(s).lineHeight || '20')),
        inside: inside(s, s.closest('[role=columnheader]'))}));
      const times = [...document.querySelectorAll(
        "#review-table [role=gridcell][data-col='4'] span.text,"
        + " #review-table [role=gridcell][data-col='5'] span.text")].map((s) => ({
        text: s.innerText, inside: inside(s, s.closest('[role=gridcell]'))}));
      return {headers, times}; }""")
    headers = seen["headers"]
    assert [h["text"] for h in headers][:6] == ["#", "status", "aspect", "value", "start",
                                                 "end"]
    assert all(h["lines"] <= 1 and h["inside"] for h in headers), headers
    assert any(t["text"] == "10.00" for t in seen["times"])
    assert all(t["inside"] for t in seen["times"]), seen["times"]
    # No short column breaks a word ("pendin / g", "10.0 / 0" at 1366 px was the defect).
    words = broken_words(page)
    assert set(words["widths"]) == set(SHORT_COLUMNS), words
    assert words["broken"] == [], words


def _bar(page, value: str):
    lane = page.locator("#review-timeline button.cc-tl-lane[data-id]", has_text=value).first
    return lane, lane.locator(".cc-tl-bar").bounding_box(), lane.bounding_box()


def _drag(page, x0: float, y: float, x1: float) -> None:
    page.mouse.move(x0, y)
    page.mouse.down()
    for k in range(1, 6):
        page.mouse.move(x0 + (x1 - x0) * k / 5, y)
    page.mouse.up()


def test_dragging_a_timeline_bar_changes_the_statements_interval(browser, shared):
    store = shared.store
    clip = caption_with(store, shared.data, FilmCaptioner, shared.bikes(2))
    page = _open_as_ann(shared, clip)
    lane, bar, box = _bar(page, "pan right")  # 4.00–10.00 s of the 10 s clip
    lane.scroll_into_view_if_needed()
    lane, bar, box = _bar(page, "pan right")
    per_s = box["width"] / 10.0
    y = bar["y"] + bar["height"] / 2
    # Its middle, 2 s to the left: the interval moves, its length kept.
    _drag(page, bar["x"] + bar["width"] / 2, y, bar["x"] + bar["width"] / 2 - 2 * per_s)
    wait_text(page, "#review-status", "fixed #2")
    pan = draft_of(store, "ann", clip).items()[1].current
    assert pan["value"] == "pan right"
    assert pan["t_start"] == pytest.approx(2.0, abs=0.15)
    assert pan["t_end"] - pan["t_start"] == pytest.approx(6.0, abs=0.02)
    assert "interval" in status(page) or "start" in status(page)
    wait_text(page, "#review-edits", "1 unsaved edit")
    # Its end edge, 1 s to the left: only the end changes.
    lane, bar, box = _bar(page, "pan right")
    start = pan["t_start"]
    right = bar["x"] + bar["width"] - 2
    _drag(page, right, bar["y"] + bar["height"] / 2, right - per_s)
    page.wait_for_function("() => document.querySelector('#review-edits').innerText"
                           ".includes('2 unsaved edits')")
    pan = draft_of(store, "ann", clip).items()[1].current
    assert pan["t_start"] == start
    assert pan["t_end"] == pytest.approx(start + 5.0, abs=0.15)
    wait_text(page, "#review-table", f"{pan['t_end']:.2f}")
    shot(page, "review-dragged-bar")
    wait_text(page, "#review-table", "fixed: start, end")
    words = broken_words(page)  # the longer status a fix leaves, whole words too
    assert words["broken"] == [], words
    # The other statements are untouched, and Undo takes the last drag back.
    others = [it.current for it in draft_of(store, "ann", clip).items()]
    assert others[0]["value"] == "shallow depth of field" and others[3]["t_end"] == 4.0
    page.locator("#review-undo").click()
    page.wait_for_function("() => document.querySelector('#review-edits').innerText"
                           ".includes('1 unsaved edit')")
    assert draft_of(store, "ann", clip).items()[1].current["t_end"] == pytest.approx(
        start + 6.0, abs=0.02)


def test_review_this_clip_from_the_caption_tab(browser, shared):
    store = shared.store
    page = shared.page
    page.get_by_role("tab", name="Caption").click()
    page.locator("#upload input[type='file']").set_input_files(str(shared.bikes(3)))
    wait_text(page, "#caption-status", "press Caption")
    page.locator("#caption-button").click()
    wait_text(page, "#caption-status", "3 statements")
    clip = max(c.id for c in store.clips.list())  # the upload's (the others are older)
    button = page.locator("#caption-review")
    assert button.inner_text() == f"Review this clip (#{clip})"
    button.click()
    wait_text(page, "#review-status", f"opened clip #{clip}")
    wait_text(page, "#review-table", "pan right")
    assert page.locator("#review-table").is_visible()
