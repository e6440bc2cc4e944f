"""Review tab: the queue (in the order you choose), the clip (player, timeline, evidence overlays)
beside its statements with the pixels' verdict on each, an edit form bound to one statement,
undo/redo, save as a gold pair and open the next clip; conflicts side by side; reviewers decide on
exactly the gold pair they read, its contradicted statements first.

The form is bound to the statement it was filled from (its id, kept in the page's session with
what the form was filled with): an action names that statement and sends only the fields you
changed, so the form can never carry another row's fields. The draft itself lives in the store
(``ui.usecases.review``); the page keeps only its id. Every action that changes the draft checks
its statements against the clip's pixels again (``ui.usecases.verification``: the analysis is
cached, a check costs well under a millisecond), so a fix the picture contradicts shows before
it is saved. Keyboard: see :data:`SHORTCUTS` and docs/app.md. The markup is in
``ui/templates/review_*.html`` (through ``ui/tabs/tables.py``), ``ui/static/review.css`` and
``ui/static/review.js``.
"""
from __future__ import annotations

import json
import logging
import time
from typing import Any

import gradio as gr

from cinecap.errors import CinecapError
from ui.usecases.accounts import has_role
from ui.context import AppContext
from ui.tabs import markup, player, status as st
from ui.tabs.base import Tab
from ui.tabs.results import VERDICT_MARKS, model_against_gold_html
from ui.tabs.review_layout import (editor_panel, lower_panels, queue_panel,
                                   reviewer_panel)
from ui.tabs.tables import (agreement_rows, approved_rows, banner_html, conflicts_html,
                            draft_rows, edits_line, escaped,
                            gold_rows, gold_view_html, history_rows, pixels_cell, progress_line,
                            queue_rows, verdict_count_line)
from ui.tabs.timeline import DRAG_CSS, DRAG_HEAD, TIMELINE_CSS, timeline_html
from ui.usecases import preview, review, verification

log = logging.getLogger(__name__)

#: Single keys → button ids (ignored while typing in a field).
SHORTCUTS = {"a": "review-accept", "f": "review-fix", "r": "review-reject", "n": "review-add",
             "d": "review-delete", "c": "review-clear", "s": "review-save",
             "ArrowDown": "review-next", "j": "review-next", "ArrowUp": "review-prev",
             "k": "review-prev"}
#: Ctrl+Z / Ctrl+Shift+Z (and Ctrl+Y) → undo / redo; 1–9 select that statement.
UNDO, REDO, GOTO = "review-undo", "review-redo", "review-goto"
#: The queue's orders, as the selector beside it offers them (``ReviewRepository.queue``).
ORDERS = [("least certain first", "certainty"), ("pixels disagree most first", "disagreement")]
DEFAULT_ORDER = ORDERS[0][1]

#: What a draft-changing action updates (by name; see ``review_layout``).
DRAFT_OUT = ("ref", "selected", "table", "edits", "verdicts", "timeline", "source", "editing",
             "aspect", "value", "t_start", "t_end", "text", "evidence", "note", "seek",
             "conflict_panel", "compare", "rebase", "conflicts", "decide_row", "status")
#: What opening a clip updates.
CLIP_OUT = DRAFT_OUT + ("video", "banner", "progress", "clip_id", "queue", "approved", "history",
                        "agreement", "golds", "gold_view", "deciding", "reviewer")
#: What a selection updates.
SELECT_OUT = ("selected", "editing", "aspect", "value", "t_start", "t_end", "text", "evidence",
              "note", "seek", "status")
#: What on_show fills (the app calls it on page load and when the tab is selected): a clip's
#: values, and ``shown`` (a new value each time), whose change puts the queue in the order this
#: page chose (on_show knows only the user).
SHOW_OUT = CLIP_OUT + ("shown",)
FORM = ("aspect", "value", "t_start", "t_end", "text", "evidence", "note")


def shortcut_script() -> str:
    """The page's keyboard map: the keys declared here, the script ``ui/static/review.js``."""
    keys = {"shortcuts": SHORTCUTS, "undo": UNDO, "redo": REDO, "goto": GOTO}
    return (f"<script>window.cinecapReviewKeys = {json.dumps(keys)};</script>\n"
            + markup.script("review.js"))


SEEK_JS = player.seek_js("#review-video")
#: The hidden box a dragged timeline bar writes "id t0 t1" into (``ui/tabs/timeline.py``).
DRAG = "review-drag"


# --- values for the components, by name ----------------------------------------------------------
def _seek(sel: review.Selection | None) -> str:
    if sel is None or sel.item is None or sel.item.shown.get("t_start") is None:
        return ""
    s = sel.item.shown
    return f"{s['t_start']:.3f} {s['t_end']:.3f}"


def _editing(sel: review.Selection | None, verdict: Any = None) -> str:
    if sel is None or sel.item is None:
        return ("**New statement** — choose an aspect and a value (type a word: “push in” finds "
                "dolly in), then **Add [n]**. Click a row (or press its number) to edit it.")
    s = sel.item.shown
    extra = f" · {sel.item.status}" if sel.item.status != "pending" else ""
    line = (f"**Editing #{sel.row}** · {s['aspect']}: {s['value']}{extra} — change fields, then "
            "**Fix [f]**; or Accept [a], Reject [r], Delete [d]")
    if verdict is not None:  # the pixels' reason in full (the table's cell shows the verdict)
        line += (f"\n\n**Pixels: {VERDICT_MARKS[verdict.verdict]} {verdict.verdict}** — "
                 f"{escaped(verdict.reason)}")
    return line


def selection_values(sel: review.Selection | None, verdict: Any = None) -> dict[str, Any]:
    """The form and the editing line for a selection; ``verdict``: the selected statement's
    (``cinecap.verify.Verdict``), its reason shown under the line."""
    form = sel.form if sel is not None else review.form_values(None)
    aspect = form["aspect"]
    return {"selected": ({"id": sel.item.id, "form": form}
                         if sel is not None and sel.item is not None else None),
            "editing": _editing(sel, verdict), "aspect": aspect,
            # Choices and value in one update: the value is never set before its choices.
            "value": gr.Dropdown(choices=review.value_choices(aspect), value=form["value"]),
            "t_start": form["t_start"], "t_end": form["t_end"], "text": form["text"],
            "evidence": form["evidence"], "note": form["note"], "seek": _seek(sel)}


def page_files(ctx: AppContext):
    """A page folder for the review's pictures (timeline, overlays): any annotator may see them,
    as they may see every stored clip's statements (docs/security.md)."""
    return preview.page_folder(ctx.settings, "annotator", preview.SHARED)


def pixels_values(draft: review.Draft,
                  checked: verification.DraftVerdicts) -> tuple[list[str], str]:
    """The "pixels" cell of each row (the verdict now; the source's too where an edit changed
    it) and the count line above the table (Markdown)."""
    items = draft.items()
    if not checked.current:
        return [], ""
    cells = []
    for it, now, was in zip(items, checked.current, checked.base):
        before = was.verdict if was is not None and was.verdict != now.verdict else ""
        cells.append(pixels_cell(now.verdict, before, now.reason))
    n_base, of_base, n_now, of_now = checked.counts(items)
    line = (f"**Pixels** · {escaped(draft.source or 'the statements')}: "
            + verdict_count_line(n_base, of_base))
    if draft.actions:
        line += f" · **your draft**: {verdict_count_line(n_now, of_now)}"
    return cells, line


#: The verdict line while a clip's first analysis is being made (``on_open`` measures it after
#: showing the draft), and the pixels cell meanwhile.
MEASURING = ("**Pixels** · measuring the pixels… (this clip's first analysis, a few seconds: the "
             "verdicts fill in when it is done; the draft can be edited meanwhile)")
MEASURING_CELL = "…"


def verdict_values(ctx: AppContext, user: Any, draft: review.Draft,
                   failed: str = "") -> dict[str, Any]:
    """Only the table and the verdict line, checked against the pixels (after a clip's first
    analysis; nothing else of the page changes). ``failed``: why the clip could not be
    measured, said in the verdict line."""
    checked = verification.draft_verdicts(ctx.store, ctx.settings, user, draft)
    cells, line = pixels_values(draft, checked)
    if failed:
        line = f"**Pixels** · not measured: {escaped(failed)}"
    return {"table": draft_rows(draft, cells), "verdicts": line}


def draft_values(ctx: AppContext, user: Any, draft: review.Draft,
                 sel: review.Selection | None, timeline: Any = None,
                 measured: bool = True) -> dict[str, Any]:
    """The draft's part of the page, its statements checked against the pixels; ``timeline``:
    the tab's page folder (None: the timeline is left as it is; it is HTML, drawn with its bars
    draggable). ``measured=False``: no verdicts yet (the clip's analysis is still to be made:
    :data:`MEASURING` instead, and nothing waits for it)."""
    if measured:
        checked = verification.draft_verdicts(ctx.store, ctx.settings, user, draft)
        cells, line = pixels_values(draft, checked)
    else:
        checked = verification.DraftVerdicts([], [])
        cells, line = [MEASURING_CELL] * len(draft.items()), MEASURING
    verdict = (checked.current[sel.row - 1] if checked.current and sel is not None
               and sel.row is not None else None)
    out = {"ref": draft.id, "table": draft_rows(draft, cells), "source": draft.source,
           "edits": edits_line(draft), "verdicts": line, **selection_values(sel, verdict)}
    if timeline is not None:
        out["timeline"] = timeline_html([dict(it.current, id=it.id) for it in draft.items()
                                         if it.kept], draft.duration, "#review-video", drag=DRAG)
    has_conflicts = bool(draft.conflicts)
    out.update({"conflict_panel": gr.Column(visible=has_conflicts),
                "compare": "", "rebase": gr.Button(visible=False),
                "conflicts": conflicts_html(draft),
                "decide_row": gr.Row(visible=bool(draft.open_conflicts()))})
    return out


def selected_values(ctx: AppContext, user: Any, sel: review.Selection) -> dict[str, Any]:
    """A statement selected: the form, and what the pixels say of it."""
    verdicts = (verification.clip_verdicts(ctx.store, ctx.settings, user, sel.draft.clip_id,
                                           [sel.item.shown]) if sel.item is not None else [])
    return selection_values(sel, verdicts[0] if verdicts else None)


def queue_values(ctx: AppContext, user: Any, clip_id: Any, queue: list) -> dict[str, Any]:
    """The queue, the approved clips and where the open clip (if any) is among them."""
    done = review.review_progress(ctx.store, user, queue)
    out: dict[str, Any] = {"queue": queue_rows(queue), "approved": approved_rows(done)}
    if clip_id is not None:
        out["progress"] = progress_line(int(clip_id), review.queue_position(queue, int(clip_id)),
                                        done)
    return out


def clip_values(ctx: AppContext, user: Any, opened: review.Opened,
                queue: list, measured: bool = True) -> dict[str, Any]:
    """A clip opened; ``measured=False``: its verdicts not yet (:func:`draft_values`), the
    reviewer's pair shown without them."""
    draft = opened.draft
    out = draft_values(ctx, user, draft, None, page_files(ctx), measured)
    golds = review.gold_pairs(ctx.store, user, draft.clip_id)
    out.update(queue_values(ctx, user, draft.clip_id, queue))
    out.update({
        "video": preview.video_for_page(ctx.settings, opened.clip.path,
                                        opened.clip.meta.get("codec"), stored=True),
        "clip_id": draft.clip_id,
        "banner": banner_html(opened.gold, opened.resumed, opened.stale, draft),
        "history": history_rows(review.history(ctx.store, user, draft.clip_id)),
        "agreement": agreement_rows(review.agreement(ctx.store, user, draft.clip_id)),
        "golds": gold_rows(golds)})
    out.update(decision_values(ctx, user, golds[-1].id if golds else None,
                               measured=measured))
    # Shown to reviewers while there is a pair to decide on (else it only pushes the table down).
    out["reviewer"] = gr.Column(visible=bool(golds) and has_role(user.role, "reviewer"))
    return out


def decision_values(ctx: AppContext, user: Any, gold_id: int | None,
                    against: str = "sent back", measured: bool = True) -> dict[str, Any]:
    """The gold pair a reviewer decides on (against the version sent back, or the model
    caption), its statements the pixels contradict first: shown, and remembered (id +
    version) for the decision buttons (``measured=False``: in the pair's order, no verdicts)."""
    if gold_id is None or not has_role(user.role, "reviewer"):
        return {"gold_view": gold_view_html(None), "deciding": None}
    view = review.gold_view(ctx.store, user, gold_id, judge=_judge(ctx), against=against)
    checked = (verification.gold_verdicts(ctx.store, ctx.settings, user, view) if measured
               else None)
    return {"gold_view": gold_view_html(view, checked) + model_against_gold_html(view),
            "deciding": {"id": view.gold.id, "version": view.gold.version}}


def _judge(ctx: AppContext) -> Any:
    """The app's judge, or None when it cannot be built (the gold pair is shown without it)."""
    try:
        return ctx.backends.judge(ctx.settings.judge)
    except CinecapError as e:
        log.warning("the review panel shows no judgement: %s", e)
        return None


def check_order(order: Any) -> str:
    """A queue order kept on the browser, as the selector offers it (anything else, e.g. an
    older page's: the default)."""
    return order if order in {v for _, v in ORDERS} else DEFAULT_ORDER


class ReviewTab(Tab):
    id = "review"
    title = "Review"
    min_role = "annotator"
    head = shortcut_script() + player.HEAD + st.HEAD + DRAG_HEAD
    css = st.CSS + markup.static_text("review.css") + TIMELINE_CSS + DRAG_CSS

    def on_show(self, ctx: AppContext, user: Any) -> list:
        """The queue, the approved clips, and the draft you were working on (a page reload
        resumes it; the reviewer panel shows with its pair)."""
        queue = review.review_queue(ctx.store, user)
        values: dict[str, Any] = {**queue_values(ctx, user, None, queue),
                                  "reviewer": gr.Column(visible=False),
                                  "shown": f"{time.time_ns()}"}
        opened = review.resume_review(ctx.store, user)
        if opened is not None:
            values.update(clip_values(ctx, user, opened, queue))
            values["status"] = st.ok(f"resumed your draft of clip #{opened.draft.clip_id}"
                                     if opened.resumed else
                                     f"opened clip #{opened.draft.clip_id}")
        return [values.get(name, gr.skip()) for name in SHOW_OUT]

    def build(self, ctx: AppContext) -> list:
        from ui.tabs.review_events import wire  # it imports this module's values

        c: dict[str, Any] = {}
        queue_panel(c, ORDERS, DEFAULT_ORDER)
        reviewer_panel(c)
        editor_panel(c, GOTO, DRAG, UNDO, REDO)
        lower_panels(c)
        wire(ctx, c)
        return [c[n] for n in SHOW_OUT]
