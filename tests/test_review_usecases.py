"""The review use cases on a real store (SQLite file and PostgreSQL) and real clips: each of the five
problems of issue 9 as an annotator meets it, now correct; drafts per user that survive a reload
and that nobody else can save; conflicts per statement; undo/redo; length limits in the use case
and in the store; the history as text; what a reviewer reads.

The randomized test of the edit model is tests/test_review_random.py.
"""
from __future__ import annotations

import pytest

from cinecap.errors import InputError
from db import PermissionDenied, StoreConflict
from db.records import UserRecord
from tests.support.app_captioners import ScriptedCaptioner
from tests.support.stores import store  # noqa: F401 - the parametrised fixture
from ui.backends import Backends
from ui.settings import Settings
from ui.usecases import caption, review

VIEWER = UserRecord(0, "anonymous", "viewer", "none")
CM, SS, CA, DF = "Camera Movement", "Shot Size", "Camera Angle", "Depth of Field"


@pytest.fixture
def ann(store):
    return store.users.add("ann", "annotator", "password1")


@pytest.fixture
def bea(store):
    return store.users.add("bea", "annotator", "password2")


def film_clip(store, user, path, duration: float = 10.0, caption: str = "…") -> int:
    """A stored clip whose model caption has the statements of the issue's report."""
    clip = store.clips.add(path, path.name, {"duration": duration, "fps": 25.0}, user)
    sts = [
        {"aspect": DF, "value": "shallow depth of field", "text": "The background is soft.",
         "evidence": "subject 3.1x sharper than background"},
        {"aspect": CM, "value": "pan right", "t_start": 4.0, "t_end": 10.0,
         "text": "The camera pans right.", "evidence": "background slides left 40 px/s",
         "confidence": 0.7, "measurements": {"rate": 40.0}},
        {"aspect": CA, "value": "dutch angle", "text": "The frame is tilted in a dutch angle.",
         "evidence": "horizon tilted 12°"},
        {"aspect": CM, "value": "static", "t_start": 0.0, "t_end": 4.0,
         "text": "The camera is static.", "evidence": "103 tracked background points stay still",
         "confidence": 0.9, "measurements": {"still": 103}},
        {"aspect": CM, "value": "handheld shake", "t_start": 0.0, "t_end": 2.0,
         "text": "The camera is handheld with visible shake.", "evidence": "jitter 2.1 px"},
    ]
    full = [{"t_start": None, "t_end": None, "subject": None, "confidence": None,
             "measurements": {}, **s} for s in sts]
    store.clips.add_caption(clip.id, {"caption": caption, "statements": full}, "anchors", "t",
                            user)
    return clip.id


def select(store, user, draft_id, row):
    sel = review.select_statement(store, user, draft_id, row)
    return sel.item.id, sel.form


def fix(store, user, draft_id, row, **changes):
    sid, form = select(store, user, draft_id, row)
    return review.edit_review(store, user, draft_id, "fix", sid, {**form, **changes}, form)


def saved(store, clip_id):
    return store.review.gold_pairs(clip_id)[-1]


# --- the five problems ---------------------------------------------------------------------------
def test_1_fix_changes_only_the_field_touched(store, ann, small_clip):
    """Click a Depth of Field row, then a Camera Movement row, change only the end, fix: the row
    keeps its value, sentence and evidence."""
    clip = film_clip(store, ann, small_clip)
    d = review.open_review(store, ann, clip).draft.id
    select(store, ann, d, 1)  # Depth of Field first
    sid, form = select(store, ann, d, 2)
    assert form == {"aspect": CM, "value": "pan right", "t_start": 4.0, "t_end": 10.0,
                    "text": "The camera pans right.", "evidence": "background slides left 40 px/s",
                    "note": ""}
    out = review.edit_review(store, ann, d, "fix", sid, {**form, "t_end": 9.0}, form)
    assert "end 10.00 s → 9.00 s" in out.message
    review.save_review(store, ann, d)
    st = saved(store, clip).statements[1]
    assert (st["value"], st["t_end"], st["text"], st["evidence"], st["confidence"]) == (
        "pan right", 9.0, "The camera pans right.", "background slides left 40 px/s", 0.7)


def test_2_add_starts_empty_and_a_new_value_drops_the_old_evidence(store, ann, small_clip):
    clip = film_clip(store, ann, small_clip)
    d = review.open_review(store, ann, clip).draft.id
    sid, form = select(store, ann, d, 3)  # the dutch angle
    review.edit_review(store, ann, d, "delete", sid)
    # The form still shows the dutch angle; the annotator sets Shot Size / "wide" and adds.
    out = review.edit_review(store, ann, d, "add", sid, {**form, "aspect": SS, "value": "wide"},
                             form)
    assert "no evidence" in out.message
    # A fix static → "push in" (a word people type for dolly in) keeps nothing of the static.
    fix(store, ann, d, 4, value="push in")
    gold = review.save_review(store, ann, d)
    by_value = {s["value"]: s for s in gold.statements}
    assert "dutch angle" not in by_value
    assert by_value["wide shot"]["text"] == "It is a wide shot."
    assert by_value["wide shot"]["evidence"] == ""
    dolly = by_value["dolly in"]
    assert (dolly["text"], dolly["evidence"], dolly["confidence"], dolly["measurements"]) == (
        "The camera dollies in.", "", None, {})
    assert (dolly["t_start"], dolly["t_end"]) == (0.0, 4.0)  # untouched: kept
    hist = review.history(store, ann, clip)
    add = next(h for h in hist if h["action"] == "added")
    assert add["statement"] == "Shot Size: wide shot" and "evidence" not in add["change"]


def test_3_after_a_save_a_stale_form_reaches_no_other_row(store, ann, small_clip):
    clip = film_clip(store, ann, small_clip)
    d = review.open_review(store, ann, clip).draft.id
    stale_id, stale_form = select(store, ann, d, 2)
    review.edit_review(store, ann, d, "delete", stale_id)
    review.save_review(store, ann, d)
    d2 = review.open_review(store, ann, clip).draft.id
    before = review.current_draft(store, ann, d2).statements()
    # The page's form still holds the deleted "#2" and presses Fix: refused, nothing changes.
    with pytest.raises(InputError, match="no longer in this draft"):
        review.edit_review(store, ann, d2, "fix", stale_id, {**stale_form, "t_end": 9.0},
                           stale_form)
    with pytest.raises(InputError, match="draft #.* is gone"):  # the saved draft itself
        review.edit_review(store, ann, d, "accept", stale_id)
    assert review.current_draft(store, ann, d2).statements() == before
    # Renumbered rows keep their identity: the old #3 is the new #2, under the same id.
    sid, form = select(store, ann, d2, 2)
    assert form["value"] == "dutch angle" and sid == "r3"


def test_4_reapplying_never_undoes_someone_elses_fix(store, ann, bea, small_clip):
    clip = film_clip(store, ann, small_clip)
    a = review.open_review(store, ann, clip).draft.id
    b = review.open_review(store, bea, clip).draft.id
    sid, _ = select(store, ann, a, 2)
    review.edit_review(store, ann, a, "accept", sid)  # A accepts the pan
    fix(store, ann, a, 4, t_end=3.5)  # and fixes the static's end (B leaves it alone)
    fix(store, bea, b, 2, evidence="trees slide left")  # B fixes the pan's evidence
    review.save_review(store, bea, b)
    before = store.counts()
    with pytest.raises(StoreConflict, match="saved by bea.*re-apply"):
        review.save_review(store, ann, a)
    assert store.counts() == before
    out = review.rebase_review(store, ann, a)
    # The message names what was re-applied and what needs a decision.
    assert "1 of your edits re-applied: fix #4" in out.message
    assert "1 need your decision" in out.message
    assert "they: changed evidence; you: accepted it as it was" in out.message
    (c,) = out.draft.conflicts
    assert c.theirs["evidence"] == "trees slide left"
    assert c.yours["evidence"] == "background slides left 40 px/s"
    with pytest.raises(InputError, match="need your decision"):
        review.save_review(store, ann, a)
    with pytest.raises(InputError, match="has a conflict"):
        review.edit_review(store, ann, a, "reject", c.id)
    review.resolve_conflict(store, ann, a, 1, "theirs")
    gold = review.save_review(store, ann, a)
    assert gold.statements[1]["evidence"] == "trees slide left"  # B's fix stands
    assert gold.statements[3]["t_end"] == 3.5  # A's fix re-applied


def test_4b_keeping_yours_is_a_decision_you_take_and_see(store, ann, bea, small_clip):
    clip = film_clip(store, ann, small_clip)
    a = review.open_review(store, ann, clip).draft.id
    b = review.open_review(store, bea, clip).draft.id
    fix(store, ann, a, 2, value="pan left")
    sid, _ = select(store, bea, b, 2)
    review.edit_review(store, bea, b, "reject", sid)
    review.save_review(store, bea, b)
    with pytest.raises(StoreConflict):
        review.save_review(store, ann, a)
    out = review.rebase_review(store, ann, a)
    assert "they: removed it; you: changed value, sentence, evidence" in out.message
    review.resolve_conflict(store, ann, a, "all", "yours")
    gold = review.save_review(store, ann, a)
    assert "pan left" in [s["value"] for s in gold.statements]
    assert [(h["user"], h["action"]) for h in review.history(store, ann, clip)][-1] == (
        "ann", "added")  # back as an addition: B had removed it


def test_5_a_draft_belongs_to_its_annotator(store, ann, bea, small_clip):
    clip = film_clip(store, ann, small_clip)
    a = review.open_review(store, ann, clip).draft.id
    fix(store, ann, a, 2, t_end=9.0)
    before = store.counts()
    for call in (lambda: review.save_review(store, bea, a),
                 lambda: review.current_draft(store, bea, a),
                 lambda: review.edit_review(store, bea, a, "accept", "r1"),
                 lambda: review.undo_review(store, bea, a),
                 lambda: review.rebase_review(store, bea, a)):
        with pytest.raises(PermissionDenied, match="belongs to another annotator"):
            call()
    assert store.counts() == before
    # The store refuses too, whatever the caller: another user's draft is neither read nor
    # discarded by a save.
    with pytest.raises(PermissionDenied):
        store.drafts.get(a, bea.id)
    snap = store.review.load(clip)
    with pytest.raises(PermissionDenied):
        store.review.save(clip, snap.version, bea, snap.statements, [], "c", discard_draft=a)
    assert store.counts() == before
    # Her draft is still hers, intact.
    assert review.current_draft(store, ann, a).items()[1].current["t_end"] == 9.0


# --- drafts, undo and redo -----------------------------------------------------------------------
def test_a_reload_resumes_the_draft_with_its_undo_history(store, ann, small_clip, tmp_path):
    from tests.support.clips import moving_pattern, write_clip

    clip = film_clip(store, ann, small_clip)
    other = film_clip(store, ann, write_clip(tmp_path / "b.mp4", moving_pattern(n=8, seed=5)))
    d = review.open_review(store, ann, clip).draft.id
    fix(store, ann, d, 2, t_end=9.0)
    review.edit_review(store, ann, d, "reject", "r3")
    review.undo_review(store, ann, d)
    review.open_review(store, ann, other)  # then another clip, untouched
    review.open_review(store, ann, clip)  # back: the unsaved draft of the first one
    again = review.resume_review(store, ann)  # a page reload
    assert again.resumed and again.draft.id == d and again.draft.clip_id == clip
    assert [it.status for it in again.draft.items()][:3] == ["pending", "fixed", "pending"]
    assert review.redo_review(store, ann, d).message.startswith("redid the reject of #3")
    assert review.undo_review(store, ann, d).draft.items()[2].status == "pending"
    review.undo_review(store, ann, d)
    with pytest.raises(InputError, match="nothing to undo"):
        review.undo_review(store, ann, d)
    assert review.resume_review(store, VIEWER) is None


def test_undo_and_redo_walk_the_actions_back_and_forth(store, ann, small_clip):
    clip = film_clip(store, ann, small_clip)
    d = review.open_review(store, ann, clip).draft.id
    start = review.current_draft(store, ann, d).statements()
    fix(store, ann, d, 1, value="deep focus")
    sid, form = select(store, ann, d, 5)
    review.edit_review(store, ann, d, "add", None, {**form, "aspect": SS, "value": "close-up"},
                       form)
    states = [review.current_draft(store, ann, d).statements()]
    review.undo_review(store, ann, d)
    review.undo_review(store, ann, d)
    assert review.current_draft(store, ann, d).statements() == start
    review.redo_review(store, ann, d)
    review.redo_review(store, ann, d)
    assert review.current_draft(store, ann, d).statements() == states[0]
    with pytest.raises(InputError, match="nothing to redo"):
        review.redo_review(store, ann, d)


# --- the form ------------------------------------------------------------------------------------
def test_the_form_reads_the_words_people_type_and_names_bad_input(store, ann, small_clip):
    labels = dict((v, label) for label, v in review.value_choices(CM))
    assert "push in" in labels["dolly in"] and "pans left" in labels["pan left"]
    read = review.read_form({"aspect": CM, "value": "Push In", "t_start": 1, "t_end": 2})
    assert read["value"] == "dolly in"
    assert review.read_form({"aspect": SS, "value": "close-up", "t_start": 0,
                             "t_end": 0})["t_start"] is None  # untouched number fields
    with pytest.raises(InputError, match="unknown Shot Size value 'huge'; known: "):
        review.read_form({"aspect": SS, "value": "huge"})
    with pytest.raises(InputError, match="not a number"):
        review.read_form({"aspect": CM, "value": "pan left", "t_start": "soon", "t_end": 2})
    clip = film_clip(store, ann, small_clip)
    d = review.open_review(store, ann, clip).draft.id
    for changes, message in (({"t_start": None, "t_end": None}, "give a start and an end"),
                             ({"t_start": 5.0, "t_end": 2.0}, "the end after the start"),
                             ({"t_end": 30.0}, "after the clip's end"),
                             ({}, "nothing to fix")):
        with pytest.raises(InputError, match=message):
            fix(store, ann, d, 2, **changes)
    sid, form = select(store, ann, d, 5)
    with pytest.raises(InputError, match="Add takes only the fields you typed"):
        review.edit_review(store, ann, d, "add", sid, {**form, "value": "tilt up"}, form)


def test_length_limits_in_the_use_case_and_in_the_store(store, ann, small_clip):
    clip = film_clip(store, ann, small_clip)
    d = review.open_review(store, ann, clip).draft.id
    huge = "x" * (10 * 2**20)  # the 10 MB statement of the report
    with pytest.raises(InputError, match="text is 10,485,760 characters long; the limit is 2,000"):
        fix(store, ann, d, 2, text=huge)
    with pytest.raises(InputError, match="evidence .* the limit is 2,000"):
        fix(store, ann, d, 2, evidence="y" * 2001)
    with pytest.raises(InputError, match="note .* the limit is 2,000"):
        fix(store, ann, d, 2, note="z" * 2001)
    assert fix(store, ann, d, 2, text="w" * 2000)  # at the limit: fine
    # A client that skips the use case meets the store's own check.
    snap = store.review.load(clip)
    before = store.counts()
    big = [dict(snap.statements[0], text=huge)]
    with pytest.raises(InputError, match="statement text of statement #1 is 10,485,760"):
        store.review.save(clip, snap.version, ann, big, [], "c")
    with pytest.raises(InputError, match="gold caption is 20,001"):
        store.review.save(clip, snap.version, ann, snap.statements[:1], [], "c" * 20_001)
    with pytest.raises(InputError, match="draft is .* the limit is 4,000,000"):
        store.drafts.put(ann.id, clip, snap.version, {"format": 1, "blob": "b" * 4_000_001})
    assert store.counts() == before


def test_the_anonymous_demo_annotator_and_roles(store, ann, small_clip):
    clip = film_clip(store, ann, small_clip)
    with pytest.raises(PermissionDenied, match="annotator role"):
        review.open_review(store, VIEWER, clip)
    for call in (lambda: review.history(store, VIEWER, clip),
                 lambda: review.review_queue(store, VIEWER),
                 lambda: review.gold_pairs(store, VIEWER, clip),
                 lambda: review.agreement(store, VIEWER, clip),
                 lambda: review.save_review(store, VIEWER, 1),
                 lambda: review.rebase_review(store, VIEWER, 1),
                 lambda: review.edit_review(store, VIEWER, 1, "accept", "r1"),
                 lambda: review.decide_gold(store, ann, 1, "accepted", 1)):
        with pytest.raises(PermissionDenied):
            call()
    with pytest.raises(InputError, match="open a clip first"):
        review.save_review(store, ann, None)
    with pytest.raises(InputError, match="type a clip number"):
        review.open_review(store, ann, None)
    with pytest.raises(InputError, match="clip number .* is not a number"):
        review.open_review(store, ann, "1; drop table")


# --- flow, reviewers, history ----------------------------------------------------------------------
def test_queue_position_and_next_clip(store, ann, small_clip, tmp_path):
    from tests.support.clips import moving_pattern, write_clip

    first = film_clip(store, ann, small_clip)
    second = film_clip(store, ann, write_clip(tmp_path / "b.mp4", moving_pattern(n=8, seed=5)))
    queue = review.review_queue(store, ann)
    assert review.queue_position(queue, first) == (1, 2)
    assert review.next_clip(queue, first) == second
    d = review.open_review(store, ann, first).draft.id
    review.edit_review(store, ann, d, "accept", "r1")
    review.save_review(store, ann, d)
    queue = review.review_queue(store, ann)
    assert [q.status for q in queue] == ["submitted", "to review"]
    assert review.next_clip(queue, second) is None  # nothing else to annotate
    assert review.next_clip(queue, first) == second  # the submitted one is not annotator work
    assert review.next_clip(queue, second, review.DECIDE) == first  # but a reviewer's


def test_reviewer_reads_the_pair_against_the_model_and_decides(store, ann, small_clip):
    rita = store.users.add("rita", "reviewer", "password3")
    clip = film_clip(store, ann, small_clip)
    d = review.open_review(store, ann, clip).draft.id
    fix(store, ann, d, 2, t_end=9.0, note="the pan stops before the cut")
    review.edit_review(store, ann, d, "reject", "r3")
    review.edit_review(store, ann, d, "add", None, {"aspect": SS, "value": "close-up"})
    gold = review.save_review(store, ann, d)
    view = review.gold_view(store, rita, gold.id)
    rows = [(r.change, r.statement["value"], r.fields, r.note) for r in view.rows]
    assert rows == [("kept", "shallow depth of field", [], ""),
                    ("changed", "pan right", ["t_end"], "the pan stops before the cut"),
                    ("kept", "static", [], ""), ("kept", "handheld shake", [], ""),
                    ("added", "close-up", [], ""), ("removed", "dutch angle", [], "")]
    with pytest.raises(InputError, match="their own gold pair"):
        review.decide_gold(store, UserRecord(ann.id, "ann", "reviewer"), gold.id, "accepted",
                           gold.version)
    back = review.decide_gold(store, rita, gold.id, "sent_back", gold.version, "tilt, not pan")
    opened = review.open_review(store, ann, clip)
    assert opened.gold.status == "sent_back" and opened.gold.review_note == "tilt, not pan"
    assert opened.gold.reviewer == "rita" and opened.gold.reviewed_at is not None
    # The notes travel with the statements into the annotator's next draft.
    assert opened.draft.items()[1].note == "the pan stops before the cut"
    hist = review.history(store, ann, clip)
    assert hist[-1]["action"] == "sent back" and hist[-1]["change"] == "note: tilt, not pan"
    fixed = next(h for h in hist if h["action"] == "fixed")
    assert fixed["statement"] == "Camera Movement: pan right [4.00–10.00]"
    assert fixed["change"] == "end 10.00 s → 9.00 s"
    assert all("{" not in h["change"] for h in hist)  # text, not JSON
    assert back.version == gold.version + 1


def test_the_reviewer_sees_the_model_caption_judged_against_the_gold_pair(store, ann, small_clip):
    """Per aspect, which of the model's statements the gold pair keeps (matched), which gold
    statements the model did not say (missed) and what it said that the gold pair drops
    (extra), from the app's judge; a judge that fails leaves the gold pair readable."""
    from cinecap.errors import JudgeError
    from cinecap.judge import get_judge

    rita = store.users.add("rita", "reviewer", "password3")
    model = ("The background is soft. From 4 to 10 s the camera pans right. The frame is tilted "
             "in a dutch angle. From 0 to 4 s the camera is static. The camera is handheld with "
             "visible shake.")
    clip = film_clip(store, ann, small_clip, caption=model)
    d = review.open_review(store, ann, clip).draft.id
    review.edit_review(store, ann, d, "reject", "r3")  # no dutch angle
    review.edit_review(store, ann, d, "add", None, {"aspect": SS, "value": "close-up"})
    gold = review.save_review(store, ann, d)
    view = review.gold_view(store, rita, gold.id, judge=get_judge("rules"))
    assert view.judge["judge"] == "rules" and not view.judge.get("failed")
    said = {a: ([p["gt"]["statement"] for p in v["matched"]],
                [x["statement"] for x in v["missed"]], [x["statement"] for x in v["extra"]])
            for a, v in view.views.items()}
    assert said[SS] == ([], ["close-up"], [])  # the annotator's addition: the model missed it
    assert said[CA] == ([], [], ["dutch angle"])  # rejected: the model said it, gold drops it
    assert said[CM] == (["handheld shake [0.0–2.0 s]", "static [0.0–4.0 s]",
                         "pan right [4.0–10.0 s]"], [], [])
    assert said[DF] == (["shallow depth of field"], [], [])
    assert view.judge["by_dim"][SS]["gt_count"] == 1
    assert review.gold_view(store, rita, gold.id).judge is None  # no judge asked, none run

    class Down:
        name, version = "llm", "x"

        def judge(self, gt, pred, aspects=None):
            raise JudgeError("the judge endpoint is unreachable")

    down = review.gold_view(store, rita, gold.id, judge=Down())
    assert down.judge["failed"] and "unreachable" in down.judge["error"] and down.views is None
    assert [r.change for r in down.rows] == [r.change for r in view.rows]


def test_two_annotators_agreement_per_aspect(store, ann, bea, small_clip):
    clip = film_clip(store, ann, small_clip)
    d = review.open_review(store, ann, clip).draft.id
    review.save_review(store, ann, d)
    d = review.open_review(store, bea, clip).draft.id
    review.edit_review(store, bea, d, "reject", "r3")
    review.save_review(store, bea, d)
    agree = review.agreement(store, ann, clip)
    assert agree[CM] == 1.0 and agree[CA] == 0.0 and agree[SS] == 1.0


def test_a_caption_run_then_review_through_the_real_captioner_path(store, ann, bikes, tmp_path):
    """The use cases end to end on bikes.mp4: caption, open, fix, save."""
    out = caption.caption_clip(store, Backends(captioners={"scripted": ScriptedCaptioner}),
                                Settings(data_dir=tmp_path / "data"), ann, bikes, "scripted")
    d = review.open_review(store, ann, out.clip_id).draft.id
    fix(store, ann, d, 2, value="pan left", evidence="trees slide right")
    gold = review.save_review(store, ann, d)
    assert gold.statements[1]["text"] == "The camera pans left."
    assert "pans left" in gold.caption
    assert store.review.load(out.clip_id).source.startswith("gold pair")


def test_evidence_overlays_of_a_stored_clip(store, ann, small_clip):
    clip = film_clip(store, ann, small_clip, duration=2.0)
    images = review.evidence_overlays(store, ann, clip)
    assert images and all(img.ndim == 3 and img.shape[2] == 3 for img, _ in images)
    assert any("shot" in title.lower() for _, title in images)
    with pytest.raises(PermissionDenied):
        review.evidence_overlays(store, VIEWER, clip)


def test_the_status_line_shows_errors_without_raising_or_server_paths():
    """Errors go to the status line only (a raised error would put "Error" over the table), and
    a message never shows a server path."""
    import gradio as gr

    from cinecap.errors import VideoError
    from ui.tabs import status

    assert status.public_message("cannot read /srv/data/clips/ab/abc.mp4: truncated") == (
        "cannot read abc.mp4: truncated")
    assert status.public_message(r"see C:\data\clips\x.mp4") == "see x.mp4"
    assert status.public_message("pan 1/2 of the frame, 5.0 s/10") == (
        "pan 1/2 of the frame, 5.0 s/10")
    line = gr.Textbox()

    @status.reported(line)
    def bad_upload():
        raise VideoError("'/tmp/up/<img src=x onerror=alert(1)>.mp4' is not a video")

    @status.reported(line)
    def bug():
        raise KeyError("internal detail")

    with pytest.warns(UserWarning, match="&lt;img src=x"):  # the toast, HTML-escaped
        out = bad_upload()
    assert list(out) == [line]  # only the status line changes
    assert out[line] == "⚠ '<img src=x onerror=alert(1)>.mp4' is not a video"
    with pytest.warns(UserWarning, match="internal error"):
        assert bug()[line] == "⚠ internal error (KeyError); see the server log"


def test_actions_from_two_windows_at_once_are_each_applied_whole(store, ann, small_clip):
    """Each action reads the draft, changes it and writes it back in one transaction: four
    windows adding statements to one draft at once all succeed, none overwrites another's (with a
    read and a write in two transactions, a window that read before another wrote was refused
    with "changed in another window meanwhile")."""
    import threading

    clip_id = film_clip(store, ann, small_clip, duration=2.0)
    draft_id = review.open_review(store, ann, clip_id).draft.id
    windows, adds = 4, 5
    start, errors = threading.Barrier(windows), []

    def window(w: int) -> None:
        try:
            start.wait()
            for k in range(adds):
                review.edit_review(store, ann, draft_id, "add", form={
                    "aspect": "Camera Movement", "value": "tilt up", "t_start": 0.1,
                    "t_end": 0.4, "evidence": f"window {w} #{k}"})
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=window, args=(w,)) for w in range(windows)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    draft = review.current_draft(store, ann, draft_id)
    added = [it.current["evidence"] for it in draft.items() if it.added]
    assert sorted(added) == sorted(f"window {w} #{k}" for w in range(windows)
                                   for k in range(adds))
    assert len(draft.actions) == windows * adds


def test_a_refused_action_inside_the_transaction_writes_nothing(store, ann, small_clip):
    """The store calls a use case makes join its transaction: an error after one of them
    rolls it back with the rest (here a draft written, then the action refused)."""
    clip_id = film_clip(store, ann, small_clip, duration=2.0)
    draft = review.open_review(store, ann, clip_id).draft
    before = store.drafts.get(draft.id, ann.id)
    with pytest.raises(InputError, match="refused"):
        with store.sessions.writing():
            store.drafts.update(draft.id, ann.id, {**before.data, "summary": "changed"},
                                before.clip_version, before.version)
            raise InputError("refused")
    assert store.drafts.get(draft.id, ann.id) == before
    with pytest.raises(RuntimeError, match="read-only"):
        with store.sessions.reading():
            store.drafts.delete(draft.id, ann.id)
    assert store.drafts.get(draft.id, ann.id) == before


def test_a_viewer_is_refused_every_review_action_before_a_write_transaction_opens(store, ann,
                                                                                   small_clip,
                                                                                   monkeypatch):
    """A viewer's click on a review action is refused in its own words and takes no write
    lock: the transaction a review action is (``one_transaction``) opens only for an annotator."""
    clip = film_clip(store, ann, small_clip)
    a = review.open_review(store, ann, clip).draft.id
    opened = []
    real = store.sessions.writing

    def counted():
        opened.append(True)
        return real()

    monkeypatch.setattr(store.sessions, "writing", counted)
    before = store.counts()
    for call in (lambda: review.open_review(store, VIEWER, clip),
                 lambda: review.edit_review(store, VIEWER, a, "accept", "r1"),
                 lambda: review.retime_statement(store, VIEWER, a, "r1", 0.0, 1.0),
                 lambda: review.undo_review(store, VIEWER, a),
                 lambda: review.redo_review(store, VIEWER, a),
                 lambda: review.resolve_conflict(store, VIEWER, a, "all", "yours"),
                 lambda: review.save_review(store, VIEWER, a),
                 lambda: review.rebase_review(store, VIEWER, a)):
        with pytest.raises(PermissionDenied, match="needs the annotator role"):
            call()
    assert opened == [] and store.counts() == before
    review.open_review(store, ann, clip)  # an annotator's action is still one transaction
    assert opened  # (the store calls inside it go through writing() too, and join it)
