"""Limits on every input of the app (issue 10): the decoding cost of an upload, captions per user,
text the store cannot keep (refused before anything is written), ids a database cannot hold,
sign-in guessing, and messages that never show a server path. The use cases on a real SQLite file
and a real PostgreSQL server; then the same through a launched server over HTTP."""
from __future__ import annotations


from pathlib import Path

import httpx
import pytest
from gradio_client import Client, handle_file

from cinecap.errors import CaptionerError, InputError, VideoError
from db.records import UserRecord
from tests.support.app_captioners import ScriptedCaptioner
from tests.support.app_server import ACCOUNTS, running_app
from tests.support.clips import costly_clip
from tests.support.stores import store  # noqa: F401 - the parametrised fixture
from ui.backends import Backends
from ui.settings import Settings
from ui.usecases import caption, review
from ui.usecases.limits import MAX_ID, CaptionQuota, TooManyRequests, check_id

VIEWER = UserRecord(0, "anonymous", "viewer", "none")


class NulCaptioner(ScriptedCaptioner):
    """A backend whose output PostgreSQL cannot store (a NUL inside a statement)."""

    def __init__(self):
        super().__init__(text="a wide\x00shot")


@pytest.fixture
def backends():
    return Backends(captioners={"scripted": ScriptedCaptioner, "nul": NulCaptioner})


@pytest.fixture
def settings(tmp_path):
    return Settings(data_dir=tmp_path / "data", page_dir=tmp_path / "page")


def stored_files(settings: Settings) -> list[Path]:
    return sorted((settings.data_dir / "clips").rglob("*")) if (
        settings.data_dir / "clips").exists() else []


@pytest.mark.parametrize("gold", ["A close-up.\x00 DROP TABLE", "A close-up \ud800."])
def test_text_the_store_cannot_keep_is_refused_before_anything_is_written(store, backends,
                                                                          settings, small_clip,
                                                                          gold):
    ann = store.users.add("ann", "annotator", "password1")
    before = store.counts()
    with pytest.raises(InputError, match="gold caption contains"):
        caption.caption_clip(store, backends, settings, ann, small_clip, "scripted", gold)
    with pytest.raises(CaptionerError, match="output cannot be stored.*nothing was saved"):
        caption.caption_clip(store, backends, settings, ann, small_clip, "nul")
    assert store.counts() == before and stored_files(settings) == []
    # The same run with clean text stores the clip, the caption and the judgement.
    out = caption.caption_clip(store, backends, settings, ann, small_clip, "scripted",
                               "A close-up.")
    after = store.counts()
    assert (after["clips"], after["captions"], after["judge_results"]) == (1, 1, 1)
    assert out.judge is not None


def test_a_clip_that_would_hold_the_captioner_for_minutes_is_refused_up_front(
        store, backends, settings, tmp_path):
    ann = store.users.add("ann", "annotator", "password1")
    heavy = costly_clip(tmp_path / "heavy.mp4")  # the 10 s, 4096x4096, 240 fps clip
    with pytest.raises(VideoError, match=r"^heavy\.mp4: 4096x4096 at 240 fps is 4\.0 billion "
                                         r"pixels per second, over the limit"):
        caption.caption_clip(store, backends, settings, ann, heavy, "scripted")
    tight = Settings(data_dir=settings.data_dir, max_total_pixels=5e5)
    with pytest.raises(VideoError, match="pixels to decode, over the limit of 500,000"):
        caption.check_upload(costly_clip(tmp_path / "small.mp4", 160, 120, 25, 2), tight)
    assert store.counts()["clips"] == 0


def test_captions_per_user_are_limited_with_a_clear_message(store, backends, settings,
                                                            tmp_path):
    ann = store.users.add("ann", "annotator", "password1")
    bea = store.users.add("bea", "annotator", "password2")
    limiter = CaptionQuota(2, 0)
    clips = [costly_clip(tmp_path / f"c{i}.mp4", 32 + 16 * i, 32, 25, 1) for i in range(5)]
    for clip in clips[:2]:
        caption.caption_clip(store, backends, settings, ann, clip, "scripted", limiter=limiter)
    with pytest.raises(TooManyRequests, match=r"you have started 2 captions in the last hour, "
                                              r"the most this app allows per user; try again in "
                                              r"\d+ min"):
        caption.caption_clip(store, backends, settings, ann, clips[2], "scripted",
                             limiter=limiter)
    caption.caption_clip(store, backends, settings, bea, clips[2], "scripted", limiter=limiter)
    # Anonymous visitors are counted per client address (what the server sees, not a cookie).
    for address, clip in (("10.0.0.1", clips[3]), ("10.0.0.1", clips[4]), ("10.0.0.2", clips[3])):
        caption.caption_clip(store, backends, settings, VIEWER, clip, "scripted",
                             limiter=limiter, address=address)
    with pytest.raises(TooManyRequests, match="2 captions were started from this address"):
        caption.caption_clip(store, backends, settings, VIEWER, clips[1], "scripted",
                             limiter=limiter, address="10.0.0.1")
    # And per clip, whoever asks: clips[3] was captioned twice.
    with pytest.raises(TooManyRequests, match="this clip has been captioned 2 times"):
        caption.caption_clip(store, backends, settings, VIEWER, clips[3], "scripted",
                             limiter=limiter, address="10.0.0.9")


@pytest.mark.parametrize("typed, message", [
    (10**30, r"there is no clip #100000000000… \(31 digits\)"),
    (-3, "there is no clip #-3"), (0, "there is no clip #0"),
    (float("nan"), "whole number"), (2.5, "whole number, not 2.5"), ("7; DROP", "not a number"),
    (None, "type a clip number"), (True, "type a clip number"),
])
def test_ids_a_database_cannot_hold_are_input_errors(store, typed, message):
    ann = store.users.add("ann", "annotator", "password1")
    with pytest.raises(InputError, match=message):
        review.open_review(store, ann, typed)
    assert check_id(MAX_ID, "clip") == MAX_ID and check_id(12.0, "clip") == 12
    with pytest.raises(InputError, match="no clip #2147483648"):
        check_id(MAX_ID + 1, "clip")


# --- the same through a launched server ----------------------------------------------------------

@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_app(tmp_path_factory.mktemp("limits") / "data", default_captioner="scripted",
                     captions_per_hour=3, login_max_failures=3,
                     login_max_failures_per_address=1000) as (url, store):
        yield url, store


def error_line(out) -> str:
    """The status line of an endpoint's answer when it is an error (starts with ⚠): handlers
    report errors there, not as exceptions (ui/tabs/status.py)."""
    lines = [x for x in (out if isinstance(out, (list, tuple)) else [out])
             if isinstance(x, str) and x.startswith("⚠")]
    assert lines, f"no error in the status line: {out!r}"[:500]
    return lines[0]


def test_api_refuses_bad_input_with_a_message_and_no_server_path(server, tmp_path, small_clip):
    url, store = server
    ann = Client(url, auth=("ann", ACCOUNTS["ann"][1]), verbose=False, download_files=False)
    before = store.counts()
    assert "there is no clip #100000000000… (31 digits)" in error_line(
        ann.predict(10**30, api_name="/review_open"))
    assert "gold caption contains a NUL character" in error_line(
        ann.predict(handle_file(str(small_clip)), "scripted", "A close-up.\x00",
                    api_name="/caption"))
    tiny = costly_clip(tmp_path / "dot.mp4", 2, 2, 25, 1)
    message = error_line(ann.predict(handle_file(str(tiny)), "scripted", "",
                                     api_name="/caption"))
    assert "dot.mp4: the frame size 2x2 is too small to analyse" in message
    assert "/tmp" not in message and "gradio" not in message  # no server path
    assert store.counts() == before
    # The caption quota (3 per hour here): the third run is the last one.
    for _ in range(3):
        assert not ann.predict(handle_file(str(small_clip)), "scripted", "",
                               api_name="/caption")[-1].startswith("⚠")
    assert "you have started 3 captions in the last hour" in error_line(
        ann.predict(handle_file(str(small_clip)), "scripted", "", api_name="/caption"))


def test_password_guessing_over_http_is_stopped(server):
    url, _ = server
    statuses = [httpx.post(f"{url}login", data={"username": "rita", "password": f"guess{i}"}
                           ).status_code for i in range(5)]
    assert statuses[:3] == [400, 400, 400] and statuses[3:] == [429, 429]
    right = httpx.post(f"{url}login", data={"username": "rita",
                                            "password": ACCOUNTS["rita"][1]})
    assert right.status_code == 429 and "try again in" in right.json()["detail"]
    assert int(right.headers["retry-after"]) > 0
    # Another account is not locked by rita's failures.
    ok = httpx.post(f"{url}login", data={"username": "vic", "password": ACCOUNTS["vic"][1]})
    assert ok.status_code == 200


def test_the_gold_caption_limit_holds_in_the_store_for_every_path(store, backends, settings,
                                                                   small_clip):
    """Issue 27 item 7: a gold caption typed in the Caption tab was stored whatever its length
    (1, 5 and 30 MB, 30 MB of database per call). The use case refuses it before the captioner
    runs, and the store refuses it on its own for a client that skips the use case."""
    from db.limits import MAX_CAPTION_CHARS

    ann = store.users.add("ann", "annotator", "password1")
    before = store.counts()
    for size in (MAX_CAPTION_CHARS + 1, 1_000_000):
        with pytest.raises(InputError, match=f"the gold caption is {size:,} characters long; "
                                             f"the limit is {MAX_CAPTION_CHARS:,}"):
            caption.caption_clip(store, backends, settings, ann, small_clip, "scripted",
                                 "A close-up. " * (size // 12) + "x" * (size % 12))
    assert store.counts() == before and stored_files(settings) == []
    out = caption.caption_clip(store, backends, settings, ann, small_clip, "scripted", "A wide shot.")
    with pytest.raises(InputError, match="gold caption is 20,001 characters"):
        store.judge_results.add(out.caption_id, "x" * (MAX_CAPTION_CHARS + 1), out.judge)
    assert store.counts()["judge_results"] == 1
    from ui.usecases import examples

    with pytest.raises(InputError, match="gold caption is 1,000,000 characters"):
        examples.caption_example(backends, settings, VIEWER, examples.EXAMPLES[0].key,
                                 "scripted", "x" * 1_000_000)


def test_robustness_items_answer_one_clear_line_over_http(server, tmp_path):
    """Issue 27 item 10: ``gold_view`` with no id answered "internal error (TypeError)"; deeply
    nested or huge-number results JSON answered "internal error (RecursionError / ValueError)"."""
    url, store = server
    store.users.add("rhea", "reviewer", "rhea-password")  # rita's sign-in is throttled above
    rita = Client(url, auth=("rhea", "rhea-password"), verbose=False, download_files=False)
    assert "type a gold pair number" in error_line(rita.predict(None, api_name="/gold_view"))
    filters = ("all", "all", "all", "", "rank", "high first", "all", True)
    cases = {"deep.json": ("[" * 5000 + "]" * 5000, "nests more than 32 levels deep"),
             "nested.json": ('{"meta": ' + "[" * 40 + "]" * 40 + "}",
                             "nests more than 32 levels deep"),
             "digits.json": ('{"meta": {}, "scores": {"f1": ' + "9" * 5000 + "}, \"items\": []}",
                             "holds a 5,000-digit number"),
             "huge.json": ('{"meta": {}, "scores": {"f1": 1e999}, "items": []}',
                           "holds the number 1e999")}
    before = store.counts()["bench_runs"]
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text)
        out = rita.predict(handle_file(str(tmp_path / name)), "b", "", "", "", *filters, [],
                           api_name="/leaderboard_add")
        line = error_line(out)
        assert message in line and "internal error" not in line, (name, line)
    assert store.counts()["bench_runs"] == before


def test_a_page_session_that_ends_takes_its_own_uploads_along(tmp_path):
    """``VisitorUploads.forget`` (the app's unload event): the files of that browser go, those of
    another browser behind the same address stay; the cap counts the address's files."""
    from ui.uploads import VisitorUploads

    uploads = VisitorUploads(max_files=3, max_bytes=0, idle_s=1800)
    files = []
    for i, who in enumerate(("one", "one", "two")):
        (tmp_path / f"u{i}").mkdir()
        files.append(tmp_path / f"u{i}" / "clip.mp4")
        files[-1].write_bytes(b"x" * 10)
        uploads.add("10.0.0.1", who, [str(files[-1])], 10)
    assert uploads.refusal("10.0.0.1", 10).startswith("this address keeps 3 uploaded clips")
    assert uploads.refusal("10.0.0.2", 10) is None
    assert uploads.forget("10.0.0.1", "one") == 2
    assert [f.exists() for f in files] == [False, False, True]
    assert not (tmp_path / "u0").exists()  # Gradio's folder for the file, empty, goes too
    assert uploads.kept("10.0.0.1") == (1, 10) and uploads.refusal("10.0.0.1", 10) is None
