"""What the Review tab reads besides the editor (issue 26 item 5), on a real store: a dragged
timeline bar as one fix of the interval, the queue's progress and the approved clips, a reviewer
reading a resubmitted pair against the version they sent back, and the table's words ("saved",
not "pending", after a save; the edit count after every action)."""
from __future__ import annotations

import pytest

from cinecap.errors import InputError
from tests.support.stores import store  # noqa: F401 - the parametrised fixture
from tests.test_review_usecases import CM, film_clip, fix
from ui.tabs.tables import approved_rows, draft_rows, edits_line, progress_line
from ui.usecases import review


@pytest.fixture
def ann(store):
    return store.users.add("ann", "annotator", "password1")


@pytest.fixture
def rita(store):
    return store.users.add("rita", "reviewer", "password3")


def test_a_dragged_bar_fixes_only_the_interval_and_undo_reverts_it(store, ann, small_clip):
    clip = film_clip(store, ann, small_clip)  # 10 s; #2 is the pan right 4.00–10.00
    d = review.open_review(store, ann, clip).draft
    pan = d.items()[1]
    done = review.retime_statement(store, ann, d.id, pan.id, "2.004", "8.0")
    moved = done.draft.find(pan.id)[1].current
    assert (moved["t_start"], moved["t_end"]) == (2.0, 8.0)
    assert {k: v for k, v in moved.items() if k not in ("t_start", "t_end")} == {
        k: v for k, v in pan.current.items() if k not in ("t_start", "t_end")}
    assert done.message.startswith("fixed #2") and "save to keep it" in done.message
    assert edits_line(done.draft).startswith("**1 unsaved edit** since version")
    # Past the clip's end: held at its end; an empty interval is refused, naming it.
    done = review.retime_statement(store, ann, d.id, pan.id, 7.5, 12.0)
    assert done.draft.find(pan.id)[1].current["t_end"] == 10.0
    assert edits_line(done.draft).startswith("**2 unsaved edits**")
    with pytest.raises(InputError, match=r"the interval 10.00–10.00 s is empty"):
        review.retime_statement(store, ann, d.id, pan.id, 11, 13)
    with pytest.raises(InputError, match="no longer in this draft"):
        review.retime_statement(store, ann, d.id, "nope", 1, 2)
    back = review.undo_review(store, ann, d.id, pan.id)
    assert back.draft.find(pan.id)[1].current["t_end"] == 8.0


def test_progress_counts_the_queue_and_lists_the_approved_clips(store, ann, rita, tmp_path):
    from tests.support.clips import moving_pattern, write_clip

    paths = [write_clip(tmp_path / f"c{i}.mp4", moving_pattern(n=10, dx=i + 1, seed=i), fps=25)
             for i in range(3)]
    clips = [film_clip(store, ann, p) for p in paths]
    for c in clips[:2]:
        gold = review.save_review(store, ann, review.open_review(store, ann, c).draft.id)
    review.decide_gold(store, rita, gold.id, "accepted", gold.version)
    queue = review.review_queue(store, ann)
    p = review.review_progress(store, ann, queue)
    assert (p.to_annotate, p.to_decide, len(p.approved), p.total) == (1, 1, 1, 3)
    assert [(c.id, g.id, g.reviewer) for c, g in p.approved] == [(clips[1], gold.id, "rita")]
    assert approved_rows(p)[0][:5] == [clips[1], "c1.mp4", gold.id, "ann", "rita"]
    line = progress_line(clips[1], review.queue_position(queue, clips[1]), p)
    assert "not in the queue (approved) · 1 of 3 clips approved · 1 waiting for a reviewer · " \
           "1 to annotate" in line
    # Just saved: the statements are in the gold pair, not "pending".
    opened = review.open_review(store, ann, clips[0]).draft
    assert {row[1] for row in draft_rows(opened)} == {"saved"}


def test_a_resubmitted_pair_reads_against_the_version_sent_back(store, ann, rita, small_clip):
    clip = film_clip(store, ann, small_clip)
    d = review.open_review(store, ann, clip).draft.id
    fix(store, ann, d, 2, t_end=9.0)
    first = review.save_review(store, ann, d)
    review.decide_gold(store, rita, first.id, "sent_back", first.version, "the pan ends at 8")
    d = review.open_review(store, ann, clip).draft.id
    fix(store, ann, d, 2, t_end=8.0)
    second = review.save_review(store, ann, d)
    assert second.id != first.id
    view = review.gold_view(store, rita, second.id)
    assert view.compared_with == f"gold pair #{first.id}, the version sent back by rita"
    changed = [(r.change, r.statement["value"], r.fields) for r in view.rows
               if r.change != "kept"]
    assert changed == [("changed", "pan right", ["t_end"])]  # only what changed since
    assert next(r for r in view.rows if r.change == "changed").model["t_end"] == 9.0
    # Against the model: every change since the model caption.
    model = review.gold_view(store, rita, second.id, against="model")
    assert model.compared_with.startswith("model caption #")
    assert next(r for r in model.rows if r.statement["aspect"] == CM).model["t_end"] == 10.0
    with pytest.raises(InputError, match="compare with sent back or model"):
        review.gold_view(store, rita, second.id, against="yesterday")
