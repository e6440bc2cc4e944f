"""Verdicts in the app's use cases (``ui.usecases.verification``): a stored caption keeps how many
of its statements the pixels contradict, the review queue can put the clips whose model caption
is contradicted most first (the acquisition row of active learning), and one analysis per clip
serves every caption of it — on a real store (SQLite and PostgreSQL) and real clips."""
from __future__ import annotations

import pytest

from cinecap.verify import CONTRADICTED, SUPPORTED
from tests.support.app_captioners import ScriptedCaptioner
from tests.support.clips import moving_pattern, write_clip
from tests.support.stores import store  # noqa: F401 - the parametrised fixture
from ui.backends import Backends
from ui.settings import Settings
from ui.usecases import caption, review, verification


@pytest.fixture
def settings(tmp_path):
    return Settings(data_dir=tmp_path / "data", max_upload_mb=50, page_dir=tmp_path / "page")


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    """A texture sliding right (the camera pans left), one sliding left (pans right), one still."""
    d = tmp_path_factory.mktemp("verdict-clips")
    return {"pans-left": write_clip(d / "pans-left.mp4", moving_pattern(n=60, size=(200, 140),
                                                                         dx=-3, seed=1)),
            "pans-right": write_clip(d / "pans-right.mp4", moving_pattern(n=60, size=(200, 140),
                                                                           dx=3, seed=2)),
            "still": write_clip(d / "still.mp4", moving_pattern(n=60, size=(200, 140), dx=0,
                                                                 seed=3))}


def test_the_queue_puts_the_most_contradicted_model_caption_first(store, settings,  # noqa: F811
                                                                  clips):
    """The scripted captioner says: static for the first half, a pan right for the second, a
    wide shot. On the left pan both moves are contradicted, on the right pan only the stillness,
    on the still clip only the pan. Certainty (all equal) would give upload order."""
    backends = Backends(captioners={"scripted": ScriptedCaptioner})
    ann = store.users.add("ann", "annotator", "password1")
    outs = {name: caption.caption_clip(store, backends, settings, ann, path, "scripted")
            for name, path in (("still", clips["still"]), ("pans-right", clips["pans-right"]),
                               ("pans-left", clips["pans-left"]))}
    verdicts = {n: [v.verdict for v in o.verdicts] for n, o in outs.items()}
    assert verdicts["pans-left"][:2] == [CONTRADICTED, CONTRADICTED]
    assert verdicts["pans-right"][:2] == [CONTRADICTED, SUPPORTED]
    assert verdicts["still"][:2] == [SUPPORTED, CONTRADICTED]
    assert all(v[2] != CONTRADICTED for v in verdicts.values())  # the wide shot: never opposed
    stored = store.clips.latest_caption(outs["pans-left"].clip_id)
    meta = store.review.queue(order="disagreement")[0]
    assert meta.clip_id == outs["pans-left"].clip_id and meta.contradicted == 2
    order = [q.clip_id for q in review.review_queue(store, ann, order="disagreement")]
    assert order == [outs["pans-left"].clip_id, outs["still"].clip_id,
                     outs["pans-right"].clip_id]
    assert [q.clip_id for q in review.review_queue(store, ann)] == [
        outs["still"].clip_id, outs["pans-right"].clip_id, outs["pans-left"].clip_id]
    assert stored.caption  # the caption itself is unchanged by its verdicts
    with pytest.raises(Exception, match="queue order must be one of certainty, disagreement"):
        store.review.queue(order="random")


def test_one_analysis_per_clip_serves_every_caption(settings, clips, monkeypatch):
    import cinecap.verify as cv

    verification._RECENT.clear()
    calls = []
    real = cv.analysis_of
    monkeypatch.setattr(cv, "analysis_of", lambda p, progress=None: calls.append(p) or real(p))
    sts = [{"aspect": "Camera Movement", "value": "pan right"}]
    first = verification.verdicts_for(settings, clips["pans-right"], sts)
    again = verification.verdicts_for(settings, clips["pans-right"], [
        {"aspect": "Camera Movement", "value": "pan left"}])
    assert [v.verdict for v in first + again] == [SUPPORTED, CONTRADICTED]
    assert len(calls) == 1
    cached = list((settings.data_dir / "analysis").glob("*.json"))
    assert len(cached) == 1 and cached[0].name.endswith(f"-{verification.analysis_version()}.json")
    # A new process (the memo empty) reads the file instead of analysing again.
    verification._RECENT.clear()
    verification.verdicts_for(settings, clips["pans-right"], sts)
    assert len(calls) == 1
    # A damaged cache file is analysed again, not trusted.
    verification._RECENT.clear()
    cached[0].write_text("{not json")
    assert verification.verdicts_for(settings, clips["pans-right"], sts)[0].verdict == SUPPORTED
    assert len(calls) == 2
    order = verification.contradicted_first(first + again, first + again)
    assert order == [1, 0]


def test_the_caption_tab_shows_each_verdict_with_what_was_measured(settings, clips):
    """The Caption tab's statements table: a "pixels" column, a mark and the verdict in words
    (not colour alone), what the analysis measured one click away (``<details>``), escaped."""
    from ui.tabs.results import statements_html, verdict_html
    from ui.usecases.accounts import CONSOLE

    from db.store import Store

    store = Store(f"sqlite:///{settings.data_dir / 'x.sqlite3'}", settings.data_dir)
    try:
        backends = Backends(captioners={"scripted": ScriptedCaptioner})
        out = caption.caption_clip(store, backends, settings, CONSOLE, clips["pans-left"],
                                   "scripted")
    finally:
        store.close()
    page = statements_html(out.result["statements"], "player", out.clip_id, "", out.verdicts)
    assert "<th>pixels</th>" in page
    assert page.count("✗ contradicted") == 2 and "<details class='cc-verdict" in page
    assert "the analysis measured pan left" in page
    # No verdicts (an example's cached run): no column, nothing invented.
    assert "pixels" not in statements_html(out.result["statements"], "player")
    hostile = {"verdict": "contradicted", "reason": "<img src=x onerror=alert(1)>"}
    assert "<img" not in verdict_html(hostile) and "&lt;img" in verdict_html(hostile)
    assert verdict_html({"verdict": "bogus"}) == "—"


def test_the_analysis_version_is_hashed_once_and_follows_the_detector_files(tmp_path,
                                                                            monkeypatch):
    """Hashing the library's code once per process, not per call; but a detector file fetched
    under a running app (``CINECAP_FETCH_MODELS=auto``) is a new analysis, not the old one's."""
    import shutil

    from cinecap import pretrained
    from tests.support.require import missing

    found = {n: pretrained.resolve(n) for n in pretrained.DEFAULT_NAMES}
    if None in found.values():
        missing("the detector files are not in ../shared/models/")
    with_files = verification.analysis_version()
    before = verification._version_for.cache_info()
    assert verification.analysis_version() == with_files
    after = verification._version_for.cache_info()
    assert (after.hits, after.misses) == (before.hits + 1, before.misses)
    # A fresh machine before the background fetch: no detector files anywhere.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("CINECAP_MODELS_SHARED", "0")
    monkeypatch.delenv("CINECAP_MODELS_DIR", raising=False)
    without = verification.analysis_version()
    assert without != with_files
    # The fetch puts the official files into the user's cache: the version with them again.
    pretrained.cache_dir().mkdir(parents=True)
    for name, path in found.items():
        shutil.copy(path, pretrained.cache_dir() / pretrained.model(name).filename)
    assert verification.analysis_version() == with_files
