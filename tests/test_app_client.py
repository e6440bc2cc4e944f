"""The app through its API: a launched server on loopback driven by gradio_client."""
from __future__ import annotations

import pytest
from gradio_client import Client, handle_file

from tests.support.app_server import ACCOUNTS, running_app


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_app(tmp_path_factory.mktemp("app") / "data", default_captioner="scripted",
                     max_upload_mb=50) as (url, store):
        yield url, store


def client(url: str, name: str) -> Client:
    return Client(url, auth=(name, ACCOUNTS[name][1]), verbose=False, download_files=False)


def test_caption_review_save_through_the_api(server, bikes):
    url, store = server
    c = client(url, "ann")
    (video, caption, table, timeline, overlays, scores, score_text, download,
     status) = c.predict(handle_file(str(bikes)), "scripted", "", api_name="/caption")
    assert "static" in caption and "pans right" in caption
    assert [row[1] for row in table["data"]] == ["static", "pan right", "wide shot"]
    assert timeline and download and "3 statements" in status
    clip_id = store.clips.list()[-1].id
    assert f"clip #{clip_id}" in status

    queue = c.predict(api_name="/review_queue")
    assert clip_id in [row[0] for row in queue["data"]]
    opened = c.predict(clip_id, api_name="/review_open")
    # State and layout outputs are not part of the API: video, source, table, history, …, status.
    assert opened[1].startswith("model caption") and len(opened[2]["data"]) == 3
    form = (2, "Camera Movement", "pan left", 5.0, 9.5, "", "trees slide right")
    fixed_table, msg = c.predict(*form, api_name="/review_fix")
    assert fixed_table["data"][1][1] == "fixed" and fixed_table["data"][1][3] == "pan left"
    saved = c.predict(api_name="/review_save")
    # table, source, history, agreement, gold pairs, status, yours, theirs
    assert "saved gold pair" in saved[5] and saved[1].startswith("gold pair #")
    history = saved[2]["data"]
    assert [(h[2], h[3]) for h in history] == [("ann", "fix")]
    gold = store.review.gold_pairs(clip_id)[-1]
    assert gold.statements[1]["value"] == "pan left"
    # A reviewer accepts it: the clip leaves the queue.
    rita = client(url, "rita")
    golds, hist, msg = rita.predict(gold.id, gold.version, "ok", api_name="/gold_accept")
    assert msg == f"gold pair #{gold.id}: accepted" and golds["data"][-1][2] == "accepted"
    assert clip_id not in [row[0] for row in rita.predict(api_name="/review_queue")["data"]]


def test_typed_gold_caption_is_scored_per_aspect(server, small_clip):
    url, store = server
    gold = "The camera is static, then pans right. It is a close-up."
    out = client(url, "ann").predict(handle_file(str(small_clip)), "scripted", gold,
                                     api_name="/caption")
    scores, summary = out[5]["data"], out[6]
    by_aspect = {row[0]: row[1:] for row in scores}
    assert by_aspect["Camera Movement"][0] == 2 and by_aspect["Camera Movement"][2] >= 1
    assert by_aspect["Shot Size"] == [1, 1, 0]  # close-up vs wide shot: no match
    assert "F1" in summary and "rules judge" in summary
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
    ann.predict(3, "Shot Size", "wide shot", None, None, "", "", api_name="/review_reject")
    bea.predict(1, "Camera Movement", "static", None, None, "", "", api_name="/review_accept")
    assert "saved" in ann.predict(api_name="/review_save")[5]
    before = store.counts()
    out = bea.predict(api_name="/review_save")
    assert "was saved by ann" in out[5] and "Nothing was overwritten" in out[5]
    yours, theirs = out[6]["data"], out[7]["data"]
    assert len(yours) == 3 and len(theirs) == 2  # bea kept all three, ann rejected one
    assert store.counts() == before


def test_roles_are_enforced_by_the_handlers(server, small_clip):
    url, store = server
    vic = client(url, "vic")
    vic.predict(handle_file(str(small_clip)), "scripted", "", api_name="/caption")
    with pytest.raises(Exception, match="annotator role"):
        vic.predict(1, api_name="/review_open")
    with pytest.raises(Exception, match="annotator role"):
        vic.predict(api_name="/review_save")
    with pytest.raises(Exception, match="reviewer role"):
        client(url, "ann").predict(1, 1, "", api_name="/gold_accept")


def test_bad_upload_and_crashed_captioner_give_messages(server, small_clip, tmp_path):
    url, store = server
    c = client(url, "ann")
    before = store.counts()
    bad = tmp_path / "notes.txt"
    bad.write_text("hello")
    # Gradio's own type check refuses it first; the use case would say "not a video file".
    with pytest.raises(Exception, match="not a video file|Invalid file type"):
        c.predict(handle_file(str(bad)), "scripted", "", api_name="/caption")
    fake = tmp_path / "fake.mp4"  # passes the type check, fails the header check
    fake.write_text("<script>alert(1)</script>" * 20)
    with pytest.raises(Exception, match="fake.mp4"):
        c.predict(handle_file(str(fake)), "scripted", "", api_name="/caption")
    with pytest.raises(Exception, match="crashing captioner failed"):
        c.predict(handle_file(str(small_clip)), "crashing", "", api_name="/caption")
    assert store.counts() == before


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
        (video, caption, table, timeline, overlays, *_rest, status) = c.predict(
            handle_file(str(bikes)), "anchors", "", api_name="/caption")
        values = [row[1] for row in table["data"]]
        assert len(values) >= 3 and "static" in values
        assert "Six shots" in caption
        assert Path(timeline["path"]).suffix == ".png"  # a file the server serves
        assert len(overlays) >= 6  # per shot: motion vectors, subject, sharpness, lines
        assert "not stored" in status  # the anonymous visitor is a viewer: a demo run
        assert (tmp_path / "data" / "cinecap.sqlite3").is_file()
        with pytest.raises(Exception, match="annotator role"):
            c.predict(1, api_name="/review_open")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_gradio_refuses_an_upload_over_the_limit_before_the_handler(server, tmp_path):
    url, store = server
    big = tmp_path / "big.mp4"
    with open(big, "wb") as f:  # 51 MB against the 50 MB limit; sparse on disk
        f.truncate(51 * 1024**2)
    before = store.counts()
    with pytest.raises(Exception, match="(?i)too large|exceeds|maximum|size"):
        client(url, "ann").predict(handle_file(str(big)), "scripted", "", api_name="/caption")
    assert store.counts() == before
