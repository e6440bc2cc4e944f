"""The Leaderboard and Data tabs in a real browser (Debian's Chromium through Playwright): an
annotator reads the board (groups, reported figures), sorts, filters, compares entries on the
per-aspect chart (its image really loads), opens an entry's per-clip results, adds a results file
and sees a bad one refused, and downloads the view as CSV (served to them, not to others); a
viewer sees the board without the upload; an admin exports the gold pairs as a datasets zip and
imports it back (nothing added twice).

Screenshots land in test-artifacts/browser/ (look at them)."""
from __future__ import annotations

import copy
import io
import zipfile

import pytest

from tests.support.app_server import ACCOUNTS, running_app
from tests.support.bench_results import (FAIR, GOOD, POOR, PROTOCOL, bench_file, known, results,
                                         write)
from tests.support.clips import moving_pattern, write_clip
from tests.support.browser import choose, loaded, shot, signed_in, wait_text
from ui.tabs.tables import LEADERBOARD_HEADERS
from ui.usecases import bench as ub
from ui.usecases.accounts import CONSOLE

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ADMIN = ("ada", "ada-password")
#: Columns of the leaderboard table, by header.
KIND, MODEL, F1 = (LEADERBOARD_HEADERS.index(h) for h in ("kind", "model", "F1"))

#: The rows of a Gradio table as lists of cell texts (Gradio keeps hidden copies of cells for
#: measuring; the data-testid cells are the ones shown).
ROWS = """sel => { const out = {};
  document.querySelectorAll(sel + ' [data-testid^="cell-"]').forEach(td => {
    const m = td.dataset.testid.match(/^cell-(\\d+)-(\\d+)$/); if (!m) return;
    (out[m[1]] ||= [])[+m[2]] = td.innerText.trim(); });
  return Object.keys(out).sort((a, b) => a - b).map(k => out[k]); }"""


def rows(page, sel: str = "#lb-table") -> list[list[str]]:
    return page.evaluate(ROWS, sel)


def sign_in(browser, url: str, name: str, password: str):
    page = browser.new_context(viewport={"width": 1500, "height": 1000}).new_page()
    page.set_default_timeout(60_000)
    signed_in(page, url, name, password)
    return page


def wait_rows(page, predicate: str) -> None:
    """Wait until the leaderboard's rows satisfy ``predicate`` (JS, over ``rows``)."""
    page.wait_for_function(f"() => {{ const rows = ({ROWS})('#lb-table'); return {predicate}; }}")


def status(page) -> str:
    return page.locator("#lb-status textarea").input_value()


def test_leaderboard_and_data_tabs_in_the_browser(browser, tmp_path):  # noqa: F811
    bench = bench_file(tmp_path / "b")
    # Annotators may add results here (the default is reviewers: Settings.leaderboard_add_role).
    with running_app(tmp_path / "data", leaderboard_add_role="annotator") as (url, store):
        store.users.add(*ADMIN[:1], "admin", ADMIN[1])
        known(store, bench, "CineCap-Bench mini")  # its gold captions: files are judged here
        for name, answers, model, protocol in (
                ("good", GOOD, "CineCap-SFT-8B", PROTOCOL), ("fair", FAIR, "Qwen3-VL-8B", PROTOCOL),
                ("poor", POOR, "InternVL3-8B", PROTOCOL),
                ("released", FAIR, "Qwen3-VL-8B", {**PROTOCOL, "sampling": "frames:8"}),
                ("old", FAIR, "Qwen3-VL-8B", None)):
            ub.record_results(
                store, CONSOLE, write(tmp_path / f"{name}.json",
                                      results(bench, answers, model, protocol)))

        page = sign_in(browser, url, "ann", ACCOUNTS["ann"][1])
        page.get_by_role("tab", name="Leaderboard").click()
        wait_rows(page, "rows.length === 7")
        shown = rows(page)
        # Ranks name their group; the paper's figures are marked reported, ranked R1, R2 only.
        assert [(r[0], r[KIND], r[MODEL]) for r in shown] == [
            ("A1", "measured", "CineCap-SFT-8B"), ("A2", "measured", "Qwen3-VL-8B"),
            ("A3", "measured", "InternVL3-8B"), ("B1", "measured", "Qwen3-VL-8B"),
            ("R1", "reported", "CineCap-GRPO-8B"), ("R2", "reported", "Gemini-3.1-Pro"),
            ("—", "measured", "Qwen3-VL-8B")]
        assert shown[4][F1] == "73.57" and shown[5][F1] == "52.45"
        notice = page.locator("#lb-notice").inner_text()
        assert "not comparable" in notice and "not ranked" in notice and "reported" in notice
        shot(page, "10-leaderboard")

        # Sort by F1, low first: the poor model first, the best last; marks stay on their rows.
        choose(page, "lb-sort", "F1", "#lb-notice")
        page.get_by_label("low first").check()
        wait_rows(page, f"rows.length === 7 && rows[0][{MODEL}] === 'InternVL3-8B'")
        f1s = [float(r[F1]) for r in rows(page)]
        assert f1s == sorted(f1s) and rows(page)[-1][MODEL] == "CineCap-SFT-8B"
        assert [r[0] for r in rows(page) if r[KIND] == "reported"] == ["R2", "R1"]
        shot(page, "11-sorted-by-f1")

        # Filter by model family, then search.
        choose(page, "lb-family", "Qwen", "#lb-notice")
        wait_rows(page, f"rows.length === 3 && rows.every(r => r[{MODEL}] === 'Qwen3-VL-8B')")
        page.locator("#lb-search input, #lb-search textarea").first.fill("frames:8")
        page.locator("#lb-search input, #lb-search textarea").first.press("Enter")
        # Search words match the model, version, judge, bench and the protocol's values.
        wait_rows(page, "rows.length === 1 && rows[0][0] === 'B1'")
        page.locator("#lb-search input, #lb-search textarea").first.fill("")
        page.locator("#lb-search input, #lb-search textarea").first.press("Enter")
        wait_rows(page, "rows.length === 3")
        shot(page, "12-filtered-qwen")
        choose(page, "lb-family", "all", "#lb-notice")
        wait_rows(page, "rows.length === 7")

        # The chart compares the picked entries; add the paper's CineCap-GRPO-8B to it.
        loaded(page, "#lb-chart")
        before = page.locator("#lb-chart img").first.get_attribute("src")
        choose(page, "lb-pick", "R1 CineCap", "#lb-notice")
        page.wait_for_function("(b) => { const i = document.querySelector('#lb-chart img');"
                               " return !!i && i.getAttribute('src') !== b; }", arg=before)
        loaded(page, "#lb-chart")
        picked = page.evaluate("() => [...document.querySelectorAll('#lb-pick .token')]"
                               ".map(t => t.innerText.trim())")
        # The search left one Qwen entry picked; each pick says its rank (or that it is reported).
        assert [p.split(" · ")[0] for p in picked] == ["#4 Qwen3-VL-8B (B1)",
                                                      "R1 CineCap-GRPO-8B (reported)"]
        page.locator("#lb-chart").scroll_into_view_if_needed()
        shot(page, "13-chart")

        # An entry's per-clip results: its captions beside the gold ones.
        page.locator(f"#lb-table [data-testid='cell-0-{MODEL}']").click()  # the poor model (sorted)
        wait_text(page, "#lb-entry-info", "InternVL3-8B")
        clips = rows(page, "#lb-clips")
        assert [c[1] for c in clips] == ["a.mp4", "b.mp4", "c.mp4"]
        assert clips[1][2] == "A static wide shot from a high angle."
        assert clips[1][3] == POOR["b.mp4"] and clips[1][4] == "0.00"
        page.locator("#lb-clips").scroll_into_view_if_needed()
        shot(page, "14-per-clip")

        # Add a results file; a file with a wrong aspect is refused with a clear line.
        page.locator("#lb-upload-box").click()
        page.locator("#lb-upload input[type='file']").set_input_files(
            str(write(tmp_path / "molmo.json", results(bench, FAIR, "Molmo-7B"))))
        page.locator("#lb-add").click()
        wait_text(page, "#lb-status", "added entry #6: Molmo-7B")
        wait_rows(page, f"rows.some(r => r[{MODEL}] === 'Molmo-7B')")
        shot(page, "15-uploaded")
        bad = copy.deepcopy(results(bench, GOOD, "Bad-1B"))
        bad["meta"]["aspects"][-1] = "Lighting"
        page.locator("#lb-upload input[type='file']").set_input_files(
            str(write(tmp_path / "bad.json", bad)))
        page.locator("#lb-add").click()
        wait_text(page, "#lb-status", "unknown aspect(s) 'Lighting'")
        assert status(page).startswith("⚠") and str(tmp_path) not in status(page)
        page.wait_for_function("() => document.querySelector('#lb-status')"
                               ".classList.contains('status-error')")
        assert store.counts()["bench_runs"] == 6
        page.locator("#lb-status").scroll_into_view_if_needed()
        shot(page, "16-upload-refused")

        # The view as CSV, served to its owner only.
        page.locator("#lb-export").click()
        link = page.locator("#lb-csv a").first
        link.wait_for()
        # The next action that works clears the red (the line's own change event, no poller).
        wait_text(page, "#lb-status", "rows as CSV")
        page.wait_for_function("() => !document.querySelector('#lb-status')"
                               ".classList.contains('status-error')")
        href = link.get_attribute("href")
        got = page.request.get(href)
        assert got.status == 200 and "CineCap-GRPO-8B" in got.text() and "Molmo-7B" in got.text()
        other = browser.new_context().request.get(href)
        assert other.status == 404

        # A viewer reads the board but gets no upload (signed in on the same page: a page load in
        # a context that has the app's files cached is ~1.5 s of CPU cheaper than in a new one).
        viewer = page
        signed_in(viewer, url, "vic", ACCOUNTS["vic"][1])
        wait_text(viewer, "#who", "Signed in as vic · viewer")
        viewer.get_by_role("tab", name="Leaderboard").click()
        wait_rows(viewer, "rows.length === 8")
        assert not viewer.locator("#lb-upload-box").is_visible()
        assert viewer.get_by_role("tab", name="Data").count() == 0

        # An admin exports the gold pairs as a datasets zip and imports it back: nothing twice.
        clip_path = write_clip(tmp_path / "clip.mp4", moving_pattern(n=16, dx=2))
        ann = store.users.find("ann")
        clip = store.clips.add(clip_path, "clip.mp4", {"duration": 0.64}, ann)
        gold = store.review.save(clip.id, clip.version, ann, [
            {"aspect": "Camera Movement", "value": "pan right", "text": "The camera pans right.",
             "t_start": 0.0, "t_end": 0.64, "evidence": "content slides left"}], [],
            "The camera pans right.")
        store.review.decide(gold.id, store.users.find("rita"), "accepted", gold.version)
        admin = viewer
        signed_in(admin, url, *ADMIN)
        wait_text(admin, "#who", "Signed in as ada · admin")
        admin.get_by_role("tab", name="Data").click()
        admin.locator("#data-export").click()
        wait_text(admin, "#data-status", "exported 1 gold pairs as hf")
        archive = admin.locator("#data-archive a").first
        archive.wait_for()
        data = admin.request.get(archive.get_attribute("href"))
        assert data.status == 200
        names = zipfile.ZipFile(io.BytesIO(data.body())).namelist()
        assert "cinecap-hf/README.md" in names and any(n.endswith(".parquet") for n in names)
        (tmp_path / "cinecap-hf.zip").write_bytes(data.body())
        admin.locator("#data-upload input[type='file']").set_input_files(
            str(tmp_path / "cinecap-hf.zip"))
        admin.locator("#data-import").click()
        wait_text(admin, "#data-status", "imported 0 gold pairs, 1 skipped")
        assert "already in the store (gold pair #" in admin.locator(
            "#data-report textarea").input_value()
        assert len(store.review.gold_pairs()) == 1
        shot(admin, "17-data-tab")
        admin.close()
