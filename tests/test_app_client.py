"""The app through its API: a launched server on loopback driven by gradio_client."""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from gradio_client import Client, handle_file

from cinecap.captioners.limits import ANCHORS_LIMITS_SHORT
from tests.support.app_server import ACCOUNTS, running_app
from ui.tabs.review import CLIP_OUT, DRAFT_OUT, SELECT_OUT

#: Outputs the API does not return: session states and layout blocks (and the rebase button).
NOT_IN_API = {"ref", "selected", "deciding", "conflict_panel", "decide_row", "rebase"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_app(tmp_path_factory.mktemp("app") / "data", default_captioner="scripted",
                     max_upload_mb=50) as (url, store):
        yield url, store


def client(url: str, name: str) -> Client:
    return Client(url, auth=(name, ACCOUNTS[name][1]), verbose=False, download_files=False)


def cells(table_html: str, column: str) -> list[str]:
    """The text of one column of the page's statements table (``ui/tabs/results.py``)."""
    return [html.unescape(v) for v in re.findall(
        rf"<td data-label='{column}'>([^<]*)</td>", table_html)]


def api(result, names, name):
    """One output of a review endpoint by name (``ui.tabs.review``'s output lists, without the
    session states and layout blocks, which the API does not return)."""
    shown = [n for n in names if n not in NOT_IN_API]
    return result[shown.index(name)]


def test_caption_review_save_through_the_api(server, bikes):
    url, store = server
    c = client(url, "ann")
    (video, caption, table, timeline, shots, scores, moment, download,
     status) = c.predict(handle_file(str(bikes)), "scripted", "", api_name="/caption")
    assert "static" in caption and "pans right" in caption
    assert cells(table, "value") == ["static", "pan right", "wide shot"]
    assert "data-seek='5.000 10.000'" in table  # the pan's row plays 5–10 s
    assert "cc-timeline" in timeline and download and "3 statements" in status
    clip_id = store.clips.list()[-1].id
    assert f"clip #{clip_id}" in status

    queue = c.predict(api_name="/review_queue")[0]
    assert clip_id in [row[0] for row in queue["data"]]
    opened = c.predict(clip_id, api_name="/review_open")
    assert api(opened, CLIP_OUT, "source").startswith("model caption")
    assert len(api(opened, CLIP_OUT, "table")["data"]) == 3
    assert "of" in api(opened, CLIP_OUT, "progress") and "in the queue" in api(
        opened, CLIP_OUT, "progress")
    # Select statement 2: the form gets all of its fields; then change the value and the
    # interval and fix. The API sends the form as the page does.
    sel = c.predict("2", api_name="/review_select")
    assert api(sel, SELECT_OUT, "value")["value"] == "pan right"
    assert api(sel, SELECT_OUT, "evidence") == "content slides left"
    fixed = c.predict("Camera Movement", "pans left", 5.0, 9.5, api(sel, SELECT_OUT, "text"),
                      "trees slide right", "", api_name="/review_fix")
    assert "value pan right → pan left" in api(fixed, DRAFT_OUT, "status")
    row = api(fixed, DRAFT_OUT, "table")["data"][1]
    assert row[1].startswith("fixed: value, sentence") and row[3] == "pan left"
    saved = c.predict(api_name="/review_save")
    assert "saved gold pair" in api(saved, CLIP_OUT, "status")
    assert api(saved, CLIP_OUT, "source").startswith("gold pair #")
    history = api(saved, CLIP_OUT, "history")["data"]
    assert [(h[1], h[2]) for h in history] == [("ann", "fixed")]
    assert "value pan right → pan left" in history[0][5]  # text, not JSON
    gold = store.review.gold_pairs(clip_id)[-1]
    assert gold.statements[1]["value"] == "pan left"
    assert gold.statements[1]["text"] == "The camera pans left."
    # A reviewer reads exactly that pair, then approves it: the clip leaves the queue.
    rita = client(url, "rita")
    view = rita.predict(gold.id, api_name="/gold_view")
    assert f"Gold pair #{gold.id}" in view[0] and "cc-diff" in view[0]
    # Under it, the model caption judged against the pair: the fixed pan is missed (gold) and
    # extra (model), per aspect, from the app's judge.
    judged = view[0].split("id='gold-aspects'", 1)[1]
    missed = judged.split("data-label='missed'", 1)[1].split("</td>", 1)[0]
    extra = judged.split("data-label='extra'", 1)[1].split("</td>", 1)[0]
    assert "pan left" in missed and "pan right" in extra
    done = rita.predict("ok", api_name="/gold_approve")
    assert f"gold pair #{gold.id} approved" in api(done, CLIP_OUT, "status")
    assert store.review.get_gold_pair(gold.id).status == "accepted"
    assert clip_id not in [row[0] for row in rita.predict(api_name="/review_queue")[0]["data"]]


def test_typed_gold_caption_is_scored_per_aspect(server, small_clip):
    url, store = server
    gold = "The camera is static, then pans right. It is a close-up."
    out = client(url, "ann").predict(handle_file(str(small_clip)), "scripted", gold,
                                     api_name="/caption")
    scores = out[5]
    assert "F1" in scores and "rules judge" in scores and "GRPO reward" in scores
    result = json.loads(Path(out[7]["path"]).read_text())  # the download
    by_aspect = result["judge"]["by_dim"]
    assert by_aspect["Camera Movement"]["gt_count"] == 2
    assert by_aspect["Camera Movement"]["matched_count"] >= 1
    shot = by_aspect["Shot Size"]  # close-up vs wide shot: no match
    assert (shot["gt_count"], shot["pred_count"], shot["matched_count"]) == (1, 1, 0)
    view = result["statement_view"]["Shot Size"]
    assert [m["statement"] for m in view["missed"]] == ["close-up"]
    assert [e["statement"] for e in view["extra"]] == ["wide shot"]
    assert "close-up" in scores and "wide shot" in scores  # the same words on the page
    clip_id = int(out[-1].split("clip #")[1].split(";")[0])
    cap = store.clips.latest_caption(clip_id)
    assert store.judge_results.for_caption(cap.id)[-1].gold_caption == gold


def test_second_annotator_gets_a_conflict_with_both_versions(server, small_clip):
    url, store = server
    ann, bea = client(url, "ann"), client(url, "bea")
    ann.predict(handle_file(str(small_clip)), "scripted", "", api_name="/caption")
    clip_id = store.clips.list()[-1].id
    ann.predict(clip_id, api_name="/review_open")
    bea.predict(clip_id, api_name="/review_open")
    ann.predict("3", api_name="/review_select")
    ann.predict("Shot Size", "wide shot", None, None, "", "", "", api_name="/review_reject")
    bea.predict("1", api_name="/review_select")
    bea.predict("Camera Movement", "static", None, None, "", "", "", api_name="/review_accept")
    assert "saved" in api(ann.predict(api_name="/review_save"), CLIP_OUT, "status")
    before = store.counts()
    out = bea.predict(api_name="/review_save")
    assert "was saved by ann" in api(out, CLIP_OUT, "status")
    assert "Nothing was overwritten" in api(out, CLIP_OUT, "status")
    compare = api(out, CLIP_OUT, "compare")
    assert "your version (not saved)" in compare and "wide shot" in compare
    assert store.counts() == before
    merged = bea.predict(api_name="/review_rebase")
    assert "1 of your edits re-applied: accept #1" in api(merged, DRAFT_OUT, "status")
    assert "nothing needs a decision" in api(merged, DRAFT_OUT, "status")
    assert "saved gold pair" in api(bea.predict(api_name="/review_save"), CLIP_OUT, "status")
    final = store.review.gold_pairs(clip_id)[-1]
    assert final.annotator == "bea" and [s["value"] for s in final.statements] == [
        "static", "pan right"]


def test_a_forged_session_id_cannot_save_another_annotators_draft(server, small_clip):
    """Bea's client sends Ann's session id: Gradio hands it Ann's page state (her draft's id),
    and the save still refuses, because the draft is checked against whoever signed in."""
    url, store = server
    ann, bea = client(url, "ann"), client(url, "bea")
    ann.predict(handle_file(str(small_clip)), "scripted", "", api_name="/caption")
    clip_id = store.clips.list()[-1].id
    ann.predict(clip_id, api_name="/review_open")
    ann.predict("2", api_name="/review_select")
    ann.predict("Camera Movement", "pan right", 1.0, 1.5, "", "", "", api_name="/review_fix")
    ann_user, bea_user = store.users.find("ann"), store.users.find("bea")
    draft = store.drafts.find(ann_user.id, clip_id)
    beas = store.drafts.find(bea_user.id, clip_id)  # from an earlier test on this clip, or None
    before = store.counts()
    bea.session_hash = ann.session_hash  # the forgery
    for endpoint in ("/review_save", "/review_undo", "/review_rebase"):
        out = bea.predict(api_name=endpoint)
        assert "belongs to another annotator" in out[-1] or "belongs to another annotator" in \
            api(out, CLIP_OUT, "status"), endpoint
    assert store.counts() == before
    assert store.drafts.find(bea_user.id, clip_id) == beas
    assert store.drafts.get(draft.id, ann_user.id).data == draft.data  # untouched
    # Ann saves her own draft as usual.
    assert "saved gold pair" in api(ann.predict(api_name="/review_save"), CLIP_OUT, "status")
    assert store.review.gold_pairs(clip_id)[-1].annotator == "ann"


def test_a_10_mb_statement_is_refused_with_a_clear_message(server, small_clip):
    url, store = server
    ann = client(url, "ann")
    ann.predict(handle_file(str(small_clip)), "scripted", "", api_name="/caption")
    clip_id = store.clips.list()[-1].id
    ann.predict(clip_id, api_name="/review_open")
    sel = ann.predict("1", api_name="/review_select")
    assert api(sel, SELECT_OUT, "status") == "editing #1"
    before = store.counts()
    out = ann.predict(api(sel, SELECT_OUT, "aspect"), api(sel, SELECT_OUT, "value")["value"],
                      api(sel, SELECT_OUT, "t_start"), api(sel, SELECT_OUT, "t_end"),
                      "x" * (10 * 2**20), "", "", api_name="/review_fix")
    assert api(out, DRAFT_OUT, "status") == (
        "⚠ the statement text is 10,485,760 characters long; the limit is 2,000. Shorten it "
        "(one fact per statement).")
    assert store.counts() == before


def test_roles_are_enforced_by_the_handlers(server, small_clip):
    url, store = server
    vic = client(url, "vic")
    vic.predict(handle_file(str(small_clip)), "scripted", "", api_name="/caption")
    before = store.counts()
    out = vic.predict(1, api_name="/review_open")
    assert "annotator role" in api(out, CLIP_OUT, "status")
    assert "annotator role" in api(vic.predict(api_name="/review_save"), CLIP_OUT, "status")
    ann = client(url, "ann")
    out = ann.predict("ok", api_name="/gold_approve")
    assert "no gold pair to decide on" in api(out, CLIP_OUT, "status")
    # Even with a reviewer's page state (her session id), an annotator cannot decide.
    gold = store.review.gold_pairs()[-1]
    rita = client(url, "rita")
    rita.predict(gold.id, api_name="/gold_view")
    ann.session_hash = rita.session_hash
    out = ann.predict("ok", api_name="/gold_approve")
    assert "needs the reviewer role" in api(out, CLIP_OUT, "status")
    assert store.counts() == before


def test_bad_upload_and_crashed_captioner_give_messages(server, small_clip, tmp_path):
    url, store = server
    c = client(url, "ann")
    before = store.counts()
    bad = tmp_path / "notes.txt"
    bad.write_text("hello")
    # The use case refuses it, in the status line (Gradio's own type check, which would have
    # answered with an error badge on every output and no line, is not used).
    status = c.predict(handle_file(str(bad)), "scripted", "", api_name="/caption")[-1]
    assert status.startswith("⚠ 'notes.txt' is not a video file") and str(tmp_path) not in status
    fake = tmp_path / "fake.mp4"  # passes the type check, fails the header check
    fake.write_text("<script>alert(1)</script>" * 20)
    status = c.predict(handle_file(str(fake)), "scripted", "", api_name="/caption")[-1]
    assert status.startswith("⚠ fake.mp4") and str(tmp_path) not in status  # no server path
    status = c.predict(handle_file(str(small_clip)), "scripted", "", api_name="/caption")[-1]
    assert not status.startswith("⚠")  # the next action replaces the error
    before = store.counts()
    status = c.predict(handle_file(str(small_clip)), "crashing", "", api_name="/caption")[-1]
    assert "crashing captioner failed" in status and status.startswith("⚠")
    assert store.counts() == before


def test_the_page_runs_its_early_script_before_gradios_own(server):
    """``ui.serving.EarlyScript``: the page (``GET /``) holds ``ui/static/app_frames.js`` ahead
    of Gradio's first script, with a Content-Length that fits; other responses pass as they
    were."""
    import httpx

    from ui.tabs.markup import static_text

    url, _ = server
    page = httpx.get(url)
    body = page.text
    assert page.status_code == 200 and int(page.headers["content-length"]) == len(page.content)
    assert static_text("app_frames.js") in body
    assert body.find("window.__cinecapFrames") < body.find("<script>window.gradio_config")
    config = httpx.get(url + "config")
    assert config.status_code == 200 and "__cinecapFrames" not in config.text


def test_wrong_password_is_refused(server):
    url, _ = server
    with pytest.raises(Exception):
        Client(url, auth=("ann", "nope"), verbose=False)


@pytest.mark.slow
def test_python_app_py_on_a_fresh_data_dir_captions_bikes_with_anchors(tmp_path, bikes):
    """The README's first command: SQLite and the anchors captioner, no account needed."""
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    from tests.support.app_server import free_port

    root = Path(__file__).resolve().parent.parent
    port = free_port()
    env = {**os.environ, "CINECAP_DATA_DIR": str(tmp_path / "data"), "GRADIO_ANALYTICS_ENABLED":
           "False"}
    env.pop("DATABASE_URL", None)
    proc = subprocess.Popen([sys.executable, "app.py", "--host", "127.0.0.1", "--port", str(port)],
                            cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        c = None
        for _ in range(120):
            if proc.poll() is not None:
                pytest.fail(f"app.py exited: {proc.stdout.read().decode()[-2000:]}")
            try:
                c = Client(f"http://127.0.0.1:{port}/", verbose=False, download_files=False)
                break
            except Exception:  # not listening yet
                time.sleep(0.5)
        assert c is not None, "app.py did not start serving within 60 s"
        (video, caption, table, timeline, shots, *_rest, status) = c.predict(
            handle_file(str(bikes)), "anchors", "", api_name="/caption")
        values = cells(table, "value")
        assert len(values) >= 3 and "static" in values
        assert "Six shots" in caption
        # One lane per statement, and one per stretch whose movement is uncertain (hatched).
        unsure = len(re.findall(r"class='cc-tl-lane[^']*cc-uncertain'", timeline))
        assert unsure >= 1 and "movement is uncertain" in caption
        assert len(re.findall(r"class='cc-tl-lane[ ']", timeline)) == len(values) + unsure
        assert shots.count("<img ") >= 6  # per shot: motion vectors, subject, sharpness, lines
        assert "not stored" in status  # the anonymous visitor is a viewer: a demo run
        assert ANCHORS_LIMITS_SHORT in status  # what an anchors caption is worth, said beside it
        assert (tmp_path / "data" / "cinecap.sqlite3").is_file()
        assert "annotator role" in api(c.predict(1, api_name="/review_open"), CLIP_OUT,
                                       "status")
        # Meanwhile app.py captions the three example clips in the background (the page was
        # served all along): their runs appear in the data dir's cache.
        runs = tmp_path / "data" / "examples" / "runs"
        for _ in range(240):
            if len(list(runs.glob("*/anchors-*/run.json"))) == 3:
                break
            time.sleep(0.5)
        assert len(list(runs.glob("*/anchors-*/run.json"))) == 3
        status = c.predict("bikes", "anchors", api_name="/caption_example")[-1]
        assert "cached result" in status, status
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stdout.close()


def test_gradio_refuses_an_upload_over_the_limit_before_the_handler(server, tmp_path):
    url, store = server
    big = tmp_path / "big.mp4"
    with open(big, "wb") as f:  # 51 MB against the 50 MB limit; sparse on disk
        f.truncate(51 * 1024**2)
    before = store.counts()
    with pytest.raises(Exception, match="(?i)too large|exceeds|maximum|size"):
        client(url, "ann").predict(handle_file(str(big)), "scripted", "", api_name="/caption")
    assert store.counts() == before


def test_the_app_makes_one_fastapi_app_the_one_it_serves(tmp_path, monkeypatch):
    """Gradio makes a FastAPI app in ``Blocks.__init__``, ``__exit__``, ``queue()`` and
    ``launch``; the page (``ui.app._Page``) leaves all but the launch's, which it serves with the
    queue's limits. Any other Blocks still gets Gradio's own."""
    import gradio as gr
    import httpx
    from gradio.routes import App

    from db.store import Store
    from tests.support.app_server import free_port
    from ui.app import IDLE_POLL_S, build_app, launch_options
    from ui.backends import Backends
    from ui.settings import Settings

    made: list[App] = []
    real_init = App.__init__

    def counted(self, *args, **kwargs):
        made.append(self)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(App, "__init__", counted)
    settings = Settings(data_dir=tmp_path / "data", examples=False)
    store = Store(settings.database_url, settings.data_dir)
    demo = build_app(settings, store, Backends(captioners={}))
    try:
        assert made == [] and demo.app is None
        port = free_port()
        demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True,
                    quiet=True, **launch_options(settings, store, demo=demo))
        assert made == [demo.server_app] and demo.app is demo.server_app
        assert demo._queue.default_concurrency_limit == 8  # build_app's demo.queue(...)
        assert demo._queue.sleep_when_free == IDLE_POLL_S > 0.001  # not Gradio's 1 ms poll
        page = httpx.get(f"http://127.0.0.1:{port}/")
        assert page.status_code == 200 and "CineCap Studio" in page.text
        assert httpx.get(f"http://127.0.0.1:{port}/config").json()["title"] == "CineCap Studio"
    finally:
        demo.close()
        store.close()
    with gr.Blocks() as other:
        gr.Markdown("another app")
    assert isinstance(other.app, App) and len(made) > 1
