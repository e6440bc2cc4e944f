"""The app and the detector files: fetched in the background on start where missing
(``CINECAP_FETCH_MODELS``; from a loopback mirror here), never blocking it, then the examples'
warm-up; the Caption tab's one line on what is missing."""
from __future__ import annotations

import html
import threading
from types import SimpleNamespace

import pytest

from cinecap.errors import InputError

from cinecap import pretrained
from cinecap.captioners.anchors import AnchorsCaptioner
from cinecap.files import sha256_file
from tests.support.model_files import (MODEL_VARIABLES, FolderServer, copy_model_files,
                                       no_model_files)
from ui import model_files
from ui.settings import Settings


@pytest.fixture
def env(tmp_path, monkeypatch):
    for k in MODEL_VARIABLES:
        monkeypatch.delenv(k, raising=False)
    for k, v in no_model_files(tmp_path).items():
        monkeypatch.setenv(k, v)


def test_missing_files_are_fetched_in_the_background_then_the_warm_up_runs(
        env, tmp_path, monkeypatch, caplog):
    served = copy_model_files(tmp_path / "served", "yolox_nano", "yunet")
    gate, after = threading.Event(), []
    with FolderServer(served) as srv:
        monkeypatch.setenv("CINECAP_MODELS_URL_BASE", srv.url)
        real_fetch = pretrained.fetch

        def held_fetch(name, *a, **kw):  # the start must not wait for the network
            assert gate.wait(30)
            return real_fetch(name, *a, **kw)

        monkeypatch.setattr(pretrained, "fetch", held_fetch)
        with caplog.at_level("INFO", logger="ui.model_files"):
            t = model_files.fetch_on_start(Settings(data_dir=tmp_path / "data"),
                                           then=lambda: after.append(pretrained.missing()))
            assert t is not None and t.daemon and t.is_alive() and after == []
            gate.set()
            t.join(30)
    assert not t.is_alive() and after == [[]]  # the warm-up ran once, with the files there
    cache = pretrained.cache_dir()
    assert sha256_file(cache / "yolox_nano.onnx") == pretrained.MODELS["yolox_nano"].sha256
    assert "yunet: fetched, SHA-256 verified" in caplog.text


def test_never_fetches_nothing_and_a_failed_fetch_is_logged_not_raised(
        env, tmp_path, monkeypatch, caplog):
    (tmp_path / "empty-mirror").mkdir()
    after = []
    with FolderServer(tmp_path / "empty-mirror") as srv:
        monkeypatch.setenv("CINECAP_MODELS_URL_BASE", srv.url)
        never = Settings(data_dir=tmp_path / "data", fetch_models="never")
        assert model_files.fetch_on_start(never, then=lambda: after.append("now")) is None
        assert after == ["now"] and srv.requests == []
        with caplog.at_level("INFO", logger="ui.model_files"):
            t = model_files.fetch_on_start(Settings(data_dir=tmp_path / "data"),
                                           then=lambda: after.append("later"))
            t.join(30)
        assert len(srv.requests) == 2
    assert after == ["now", "later"]
    assert "yolox_nano: not fetched: could not download model file yolox_nano.onnx" in caplog.text
    assert "HTTP 404" in caplog.text and pretrained.missing() == ["yolox_nano", "yunet"]


def test_nothing_missing_nothing_fetched(env, tmp_path):
    copy_model_files(tmp_path / "no-models", "yolox_nano", "yunet")
    after = []
    assert model_files.fetch_on_start(Settings(data_dir=tmp_path / "data"),
                                      then=lambda: after.append(1)) is None
    assert after == [1]


def test_the_setting_is_read_and_checked(monkeypatch, tmp_path):
    monkeypatch.setenv("CINECAP_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("CINECAP_FETCH_MODELS", raising=False)
    assert Settings.from_env().fetch_models == "auto"
    monkeypatch.setenv("CINECAP_FETCH_MODELS", "Never")
    assert Settings.from_env().fetch_models == "never"
    monkeypatch.setenv("CINECAP_FETCH_MODELS", "sometimes")
    with pytest.raises(InputError, match="CINECAP_FETCH_MODELS.*auto, never.*'sometimes'"):
        Settings.from_env()


def test_the_caption_tab_says_which_detector_files_are_missing(env, tmp_path):
    import gradio as gr

    from db.store import Store
    from ui.app import build_app
    from ui.backends import Backends
    from ui.tabs.caption import CaptionTab

    store = Store(f"sqlite:///{tmp_path / 'tab.sqlite3'}", tmp_path / "data")
    settings = Settings(data_dir=tmp_path / "data", examples=False, fetch_models="never")
    demo = build_app(settings, store, Backends(captioners={"anchors": AnchorsCaptioner}),
                     tabs=(CaptionTab(),))
    menu = next(b for b in demo.blocks.values()
                if isinstance(b, gr.Dropdown) and b.elem_id == "captioner")
    line = pretrained.status_line()
    assert "yolox_nano.onnx" in line and menu.info == html.escape(line)
    load = next(f for f in demo.fns.values() if (demo._id, "load") in f.targets)
    copy_model_files(tmp_path / "no-models", "yolox_nano", "yunet")  # fetched since
    _, shown = load.fn(SimpleNamespace(username=None))
    assert shown.info == ""  # the next page load no longer says so
    store.close()


@pytest.mark.browser
@pytest.mark.slow
def test_a_visitor_reads_the_line_under_the_captioner_menu(env, tmp_path, browser):
    from tests.support.app_server import running_app
    from tests.support.browser import wait_text

    with running_app(tmp_path / "data", accounts=False, examples=False,
                                      captioners={"anchors": AnchorsCaptioner},
                                      fetch_models="never") as (url, _):
        page = browser.new_page()
        page.goto(url)
        wait_text(page, "#captioner", "are missing; the analysis runs without them", 60_000)
        text = page.locator("#captioner").inner_text()
        assert ("Detector files: yolox_nano.onnx and face_detection_yunet_2023mar.onnx are "
                "missing") in text and str(tmp_path) not in text
        assert page.locator("#captioner code").inner_text() == "cinecap models fetch"
