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


def test_the_review_tables_pixels_cell_is_a_mark_and_a_short_word():
    """The Review table's narrow column (1366 px): "✗ no", the whole verdict and what was
    measured in the title and for a screen reader, escaped; an edit's earlier verdict short too."""
    from ui.tabs.tables import pixels_cell

    cell = pixels_cell("contradicted", "supported", "measured <b>pan</b> left")
    assert "✗ no</span>" in cell and "was ✓ yes</small>" in cell
    assert "title='contradicted: measured &lt;b&gt;pan&lt;/b&gt; left (was supported)'" in cell
    assert "<b>" not in cell and "pixels: contradicted: measured &lt;b&gt;" in cell
    plain = pixels_cell("not measurable", "", "no subject")
    assert "· n/a</span>" in plain and "cc-verdict-was" not in plain
    assert pixels_cell("bogus") == "—"


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


# --- the Review tab's verdicts: a draft as it is edited, a gold pair as a reviewer reads it -----
def _scripted_clip(store, settings, ann, path) -> int:
    backends = Backends(captioners={"scripted": ScriptedCaptioner})
    return caption.caption_clip(store, backends, settings, ann, path, "scripted").clip_id


def _fix(store, user, draft_id, row, **changes):
    sel = review.select_statement(store, user, draft_id, row)
    return review.edit_review(store, user, draft_id, "fix", sel.item.id,
                              {**sel.form, **changes}, sel.form)


def test_a_drafts_verdicts_follow_its_edits_before_it_is_saved(store, settings,  # noqa: F811
                                                                clips):
    """On the clip that pans right: the model's stillness is contradicted, its pan supported.
    The annotator turns the pan left: contradicted now, supported as the model had it; undo
    brings the model's verdict back. Nothing is saved meanwhile."""
    from db import PermissionDenied
    from db.records import UserRecord

    ann = store.users.add("ann", "annotator", "password1")
    clip = _scripted_clip(store, settings, ann, clips["pans-right"])
    draft = review.open_review(store, ann, clip).draft
    checked = verification.draft_verdicts(store, settings, ann, draft)
    assert [v.verdict for v in checked.current][:2] == [CONTRADICTED, SUPPORTED]
    assert [v.verdict for v in checked.base] == [v.verdict for v in checked.current]
    assert checked.counts(draft.items()) == (1, 3, 1, 3)
    edited = _fix(store, ann, draft.id, 2, value="pan left").draft
    checked = verification.draft_verdicts(store, settings, ann, edited)
    assert (checked.current[1].verdict, checked.base[1].verdict) == (CONTRADICTED, SUPPORTED)
    assert "pan right" in checked.current[1].reason  # what was measured, in words
    assert checked.counts(edited.items()) == (1, 3, 2, 3)
    assert store.review.gold_pairs(clip) == []
    back = review.undo_review(store, ann, draft.id).draft
    assert verification.draft_verdicts(store, settings, ann, back).current[1].verdict == SUPPORTED
    # An added statement has no verdict "as the source had it"; a rejected one is not counted.
    added = review.edit_review(store, ann, draft.id, "add", None,
                               {**review.form_values(None), "value": "pan left",
                                "t_start": 0.0, "t_end": 2.4}, review.form_values(None)).draft
    sel = review.select_statement(store, ann, draft.id, 1)
    rejected = review.edit_review(store, ann, draft.id, "reject", sel.item.id).draft
    checked = verification.draft_verdicts(store, settings, ann, rejected)
    assert checked.base[-1] is None and checked.current[-1].verdict == CONTRADICTED
    assert checked.counts(rejected.items()) == (1, 3, 1, 3)  # the stillness out, the pan left in
    assert len(added.items()) == 4
    viewer = UserRecord(0, "anonymous", "viewer", "none")
    with pytest.raises(PermissionDenied):
        verification.draft_verdicts(store, settings, viewer, draft)
    with pytest.raises(PermissionDenied):
        review.review_queue(store, viewer, order="disagreement")


def test_a_reviewer_reads_the_contradicted_statements_first(store, settings, clips):  # noqa: F811
    """The annotator makes the stillness a pan right (supported) and adds a pan left (which the
    pixels contradict): the reviewer's panel lists the pan left first, with the count."""
    from ui.tabs.tables import gold_view_html

    ann = store.users.add("ann", "annotator", "password1")
    rita = store.users.add("rita", "reviewer", "password2")
    clip = _scripted_clip(store, settings, ann, clips["pans-right"])
    d = review.open_review(store, ann, clip).draft.id
    _fix(store, ann, d, 1, value="pan right")
    review.edit_review(store, ann, d, "add", None,
                       {**review.form_values(None), "value": "pan left", "t_start": 0.0,
                        "t_end": 2.4}, review.form_values(None))
    gold = review.save_review(store, ann, d)
    view = review.gold_view(store, rita, gold.id, against="model")
    assert [r.statement["value"] for r in view.rows] == ["pan right", "pan right", "wide shot",
                                                         "pan left"]
    checked = verification.gold_verdicts(store, settings, rita, view)
    assert [r.statement["value"] for r in checked.rows][0] == "pan left"
    assert [r.change for r in checked.rows][0] == "added"
    assert checked.verdicts[0].verdict == CONTRADICTED
    assert all(v.verdict != CONTRADICTED for v in checked.verdicts[1:])
    assert (checked.contradicted, checked.statements) == (1, 4)
    page = gold_view_html(view, checked)
    assert "1 of 4 statements contradicted by the pixels" in page
    assert page.index("pan left") < page.index("pan right")
    assert "<th>pixels</th>" in page and "✗ contradicted" in page
    # Without verdicts (a clip that cannot be verified) the panel is as before.
    plain = gold_view_html(view)
    assert "contradicted by the pixels" not in plain and plain.index("pan right") < plain.index(
        "pan left")
