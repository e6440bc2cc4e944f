"""A clip's first analysis for the Review tab (``ui.usecases.verification``): whether it is at
hand is answered without analysing, two opens at once analyse once (the second waits for the
first), and a clip that cannot be analysed gives one clear line — on a real store (SQLite and
PostgreSQL) and real clips decoded by the real decoder."""
from __future__ import annotations

import threading

import pytest

from db.errors import PermissionDenied
from tests.support.app_captioners import ScriptedCaptioner
from tests.support.clips import moving_pattern, write_clip
from tests.support.stores import store  # noqa: F401 - the parametrised fixture
from ui.backends import Backends
from ui.settings import Settings
from ui.usecases import caption, verification


def _stored_unanalysed(store, tmp_path, seed: int) -> tuple[int, Settings, object]:
    """A clip captioned (which analyses it into one data dir) and the settings of another data
    dir, the process memo emptied: there the clip has no analysis yet."""
    clip = write_clip(tmp_path / f"pans-{seed}.mp4", moving_pattern(n=60, size=(200, 140), dx=3,
                                                                    seed=seed))
    ann = store.users.add("ann", "annotator", "password1")
    first = Settings(data_dir=tmp_path / "captioned", max_upload_mb=50, page_dir=tmp_path / "p")
    out = caption.caption_clip(store, Backends(captioners={"scripted": ScriptedCaptioner}), first,
                               ann, clip, "scripted")
    verification._RECENT.clear()
    return out.clip_id, Settings(data_dir=tmp_path / "fresh", max_upload_mb=50,
                                 page_dir=tmp_path / "p"), ann


def test_two_opens_at_once_analyse_the_clip_once(store, tmp_path):  # noqa: F811
    clip_id, settings, ann = _stored_unanalysed(store, tmp_path, seed=11)
    assert verification.clip_analysed(store, settings, ann, clip_id) is False
    before = verification.ANALYSES
    start, results = threading.Barrier(2), []

    def measure():
        start.wait()
        results.append(verification.measure_clip(store, settings, ann, clip_id))

    threads = [threading.Thread(target=measure) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert results == ["", ""]
    assert verification.ANALYSES - before == 1
    assert len(list((settings.data_dir / "analysis").glob("*.json"))) == 1
    assert verification.clip_analysed(store, settings, ann, clip_id) is True
    # The verdicts now cost no analysis either.
    sts = [{"aspect": "Camera Movement", "value": "pan right"}]
    assert [v.verdict for v in verification.clip_verdicts(store, settings, ann, clip_id, sts)] \
        == ["supported"]
    assert verification.ANALYSES - before == 1


def test_a_clip_that_cannot_be_analysed_says_why(store, tmp_path):  # noqa: F811
    clip_id, settings, ann = _stored_unanalysed(store, tmp_path, seed=12)
    path = store.clips.get(clip_id).path
    with open(path, "wb") as f:  # the stored file corrupted after it was captioned
        f.write(b"not a video at all" * 100)
    line = verification.measure_clip(store, settings, ann, clip_id)
    assert line and "Traceback" not in line, line
    assert verification.clip_analysed(store, settings, ann, clip_id) is False
    assert verification.clip_verdicts(store, settings, ann, clip_id, [
        {"aspect": "Camera Movement", "value": "pan right"}]) == []


def test_a_viewer_may_not_ask_or_measure(store, tmp_path):  # noqa: F811
    clip_id, settings, _ = _stored_unanalysed(store, tmp_path, seed=13)
    viewer = store.users.add("vic", "viewer", "password1")
    before = verification.ANALYSES
    with pytest.raises(PermissionDenied):
        verification.clip_analysed(store, settings, viewer, clip_id)
    with pytest.raises(PermissionDenied):
        verification.measure_clip(store, settings, viewer, clip_id)
    assert verification.ANALYSES == before
