"""Review tab: the queue, the clip (player, timeline, evidence overlays) beside its statements, an
edit form bound to one statement, undo/redo, save as a gold pair and open the next clip; conflicts
side by side; reviewers decide on exactly the gold pair they read.

The form is bound to the statement it was filled from (its id, kept in the page's session with
what the form was filled with): an action names that statement and sends only the fields you
changed, so the form can never carry another row's fields. The draft itself lives in the store
(``ui.usecases.review``); the page keeps only its id. Keyboard: see :data:`SHORTCUTS` and
docs/app.md.
"""
from __future__ import annotations

import logging
from typing import Any

import gradio as gr

from cinecap import taxonomy as tx
from cinecap.errors import CinecapError
from ui.usecases.accounts import has_role
from ui.context import AppContext
from ui.tabs import player, status as st
from ui.tabs.base import Tab
from ui.tabs.results import model_against_gold_html
from ui.tabs.tables import (AGREEMENT_HEADERS, APPROVED_HEADERS, DRAFT_HEADERS, DRAFT_WIDTHS,
                            GOLD_HEADERS, HISTORY_HEADERS, QUEUE_HEADERS, REVIEW_CSS,
                            agreement_rows, approved_rows, banner_html, compare_html,
                            conflicts_html, draft_rows, edits_line, gold_rows, gold_view_html,
                            history_rows, progress_line, queue_rows)
from ui.tabs.timeline import DRAG_CSS, DRAG_HEAD, TIMELINE_CSS, timeline_html
from ui.usecases import preview, review
from ui.usecases.limits import check_id

log = logging.getLogger(__name__)

#: Single keys → button ids (ignored while typing in a field).
SHORTCUTS = {"a": "review-accept", "f": "review-fix", "r": "review-reject", "n": "review-add",
             "d": "review-delete", "c": "review-clear", "s": "review-save",
             "ArrowDown": "review-next", "j": "review-next", "ArrowUp": "review-prev",
             "k": "review-prev"}
#: Ctrl+Z / Ctrl+Shift+Z (and Ctrl+Y) → undo / redo; 1–9 select that statement.
UNDO, REDO, GOTO = "review-undo", "review-redo", "review-goto"

#: What a draft-changing action updates (by name; see ``build``).
DRAFT_OUT = ("ref", "selected", "table", "edits", "timeline", "source", "editing", "aspect",
             "value", "t_start", "t_end", "text", "evidence", "note", "seek", "conflict_panel",
             "compare", "rebase", "conflicts", "decide_row", "status")
#: What opening a clip updates.
CLIP_OUT = DRAFT_OUT + ("video", "banner", "progress", "clip_id", "queue", "approved", "history",
                        "agreement", "golds", "gold_view", "deciding", "reviewer")
#: What a selection updates.
SELECT_OUT = ("selected", "editing", "aspect", "value", "t_start", "t_end", "text", "evidence",
              "note", "seek", "status")
#: What on_show fills (the app calls it on page load and when the tab is selected).
SHOW_OUT = CLIP_OUT
FORM = ("aspect", "value", "t_start", "t_end", "text", "evidence", "note")


def shortcut_script() -> str:
    """The page's keyboard map (the player hook, ``cinecapSeek``, is ``ui.tabs.player``'s)."""
    keys = ", ".join(f'"{k}": "{v}"' for k, v in SHORTCUTS.items())
    return ("<script>(() => {"
            "const click = (id) => { const el = document.getElementById(id);"
            " if (el) { el.click(); return true; } return false; };"
            "const shown = () => { const t = document.getElementById('review-table');"
            " return !!t && t.offsetParent !== null; };"
            "document.addEventListener('keydown', (e) => {"
            "const t = e.target; const tag = (t && t.tagName || '').toLowerCase();"
            "if (tag === 'input' || tag === 'textarea' || tag === 'select' ||"
            " (t && t.isContentEditable) || !shown()) return;"
            "if ((e.ctrlKey || e.metaKey) && !e.altKey && (e.key === 'z' || e.key === 'Z'"
            " || e.key === 'y')) {"
            f" e.preventDefault(); click(e.shiftKey || e.key === 'y' ? '{REDO}' : '{UNDO}');"
            " return; }"
            "if (e.ctrlKey || e.metaKey || e.altKey) return;"
            "if (/^[1-9]$/.test(e.key)) { const box = document.querySelector("
            f"'#{GOTO} textarea'); if (!box) return; e.preventDefault(); box.value = e.key;"
            " box.dispatchEvent(new Event('input', {bubbles: true}));"
            f" click('{GOTO}-button'); return; }}"
            "if (e.key.startsWith('Arrow') && t && t.closest && t.closest('[role=grid]')) return;"
            f"const ids = {{{keys}}}; const id = ids[e.key];"
            "if (id && click(id)) e.preventDefault();"
            "});"
            "})();</script>")


SEEK_JS = player.seek_js("#review-video")
#: The hidden box a dragged timeline bar writes "id t0 t1" into (``ui/tabs/timeline.py``).
DRAG = "review-drag"


# --- values for the components, by name ----------------------------------------------------------
def _seek(sel: review.Selection | None) -> str:
    if sel is None or sel.item is None or sel.item.shown.get("t_start") is None:
        return ""
    s = sel.item.shown
    return f"{s['t_start']:.3f} {s['t_end']:.3f}"


def _editing(sel: review.Selection | None) -> str:
    if sel is None or sel.item is None:
        return ("**New statement** — choose an aspect and a value (type a word: “push in” finds "
                "dolly in), then **Add [n]**. Click a row (or press its number) to edit it.")
    s = sel.item.shown
    extra = f" · {sel.item.status}" if sel.item.status != "pending" else ""
    return (f"**Editing #{sel.row}** · {s['aspect']}: {s['value']}{extra} — change fields, then "
            "**Fix [f]**; or Accept [a], Reject [r], Delete [d]")


def selection_values(sel: review.Selection | None) -> dict[str, Any]:
    form = sel.form if sel is not None else review.form_values(None)
    aspect = form["aspect"]
    return {"selected": ({"id": sel.item.id, "form": form}
                         if sel is not None and sel.item is not None else None),
            "editing": _editing(sel), "aspect": aspect,
            # Choices and value in one update: the value is never set before its choices.
            "value": gr.Dropdown(choices=review.value_choices(aspect), value=form["value"]),
            "t_start": form["t_start"], "t_end": form["t_end"], "text": form["text"],
            "evidence": form["evidence"], "note": form["note"], "seek": _seek(sel)}


def page_files(ctx: AppContext):
    """A page folder for the review's pictures (timeline, overlays): any annotator may see them,
    as they may see every stored clip's statements (docs/security.md)."""
    return preview.page_folder(ctx.settings, "annotator", preview.SHARED)


def draft_values(draft: review.Draft, sel: review.Selection | None,
                 timeline: Any = None) -> dict[str, Any]:
    """The draft's part of the page; ``timeline``: the tab's page folder (None: the timeline is
    left as it is; it is HTML, drawn with its bars draggable)."""
    out = {"ref": draft.id, "table": draft_rows(draft), "source": draft.source,
           "edits": edits_line(draft), **selection_values(sel)}
    if timeline is not None:
        out["timeline"] = timeline_html([dict(it.current, id=it.id) for it in draft.items()
                                         if it.kept], draft.duration, "#review-video", drag=DRAG)
    has_conflicts = bool(draft.conflicts)
    out.update({"conflict_panel": gr.Column(visible=has_conflicts),
                "compare": "", "rebase": gr.Button(visible=False),
                "conflicts": conflicts_html(draft),
                "decide_row": gr.Row(visible=bool(draft.open_conflicts()))})
    return out


def clip_values(ctx: AppContext, user: Any, opened: review.Opened,
                queue: list) -> dict[str, Any]:
    draft = opened.draft
    out = draft_values(draft, None, page_files(ctx))
    position = review.queue_position(queue, draft.clip_id)
    done = review.review_progress(ctx.store, user, queue)
    progress = progress_line(draft.clip_id, position, done)
    golds = review.gold_pairs(ctx.store, user, draft.clip_id)
    out.update({
        "video": preview.video_for_page(ctx.settings, opened.clip.path,
                                        opened.clip.meta.get("codec"), stored=True),
        "progress": progress, "clip_id": draft.clip_id,
        "banner": banner_html(opened.gold, opened.resumed, opened.stale, draft),
        "queue": queue_rows(queue), "approved": approved_rows(done),
        "history": history_rows(review.history(ctx.store, user, draft.clip_id)),
        "agreement": agreement_rows(review.agreement(ctx.store, user, draft.clip_id)),
        "golds": gold_rows(golds)})
    out.update(decision_values(ctx, user, golds[-1].id if golds else None))
    # Shown to reviewers while there is a pair to decide on (else it only pushes the table down).
    out["reviewer"] = gr.Column(visible=bool(golds) and has_role(user.role, "reviewer"))
    return out


def decision_values(ctx: AppContext, user: Any, gold_id: int | None,
                    against: str = "sent back") -> dict[str, Any]:
    """The gold pair a reviewer decides on (against the version sent back, or the model
    caption): shown, and remembered (id + version) for the decision buttons."""
    if gold_id is None or not has_role(user.role, "reviewer"):
        return {"gold_view": gold_view_html(None), "deciding": None}
    view = review.gold_view(ctx.store, user, gold_id, judge=_judge(ctx), against=against)
    return {"gold_view": gold_view_html(view) + model_against_gold_html(view),
            "deciding": {"id": view.gold.id, "version": view.gold.version}}


def _judge(ctx: AppContext) -> Any:
    """The app's judge, or None when it cannot be built (the gold pair is shown without it)."""
    try:
        return ctx.backends.judge(ctx.settings.judge)
    except CinecapError as e:
        log.warning("the review panel shows no judgement: %s", e)
        return None


class ReviewTab(Tab):
    id = "review"
    title = "Review"
    min_role = "annotator"
    head = shortcut_script() + player.HEAD + st.HEAD + DRAG_HEAD
    css = st.CSS + REVIEW_CSS + TIMELINE_CSS + DRAG_CSS

    def on_show(self, ctx: AppContext, user: Any) -> list:
        """The queue, the approved clips, and the draft you were working on (a page reload
        resumes it; the reviewer panel shows with its pair)."""
        queue = review.review_queue(ctx.store, user)
        done = review.review_progress(ctx.store, user, queue)
        values: dict[str, Any] = {"queue": queue_rows(queue), "approved": approved_rows(done),
                                  "reviewer": gr.Column(visible=False)}
        opened = review.resume_review(ctx.store, user)
        if opened is not None:
            values.update(clip_values(ctx, user, opened, queue))
            values["status"] = st.ok(f"resumed your draft of clip #{opened.draft.clip_id}"
                                     if opened.resumed else
                                     f"opened clip #{opened.draft.clip_id}")
        return [values.get(name, gr.skip()) for name in SHOW_OUT]

    def build(self, ctx: AppContext) -> list:
        c: dict[str, Any] = {}
        c["ref"] = gr.State(None)  # the draft's id (the draft lives in the store)
        c["selected"] = gr.State(None)  # {"id": statement id, "form": what the form was filled with}
        c["deciding"] = gr.State(None)  # {"id", "version"} of the gold pair a reviewer reads
        with gr.Row():
            c["queue"] = gr.Dataframe(headers=QUEUE_HEADERS, label="Queue (least certain first; "
                                      "click a clip to open it)", interactive=False,
                                      elem_id="review-queue", max_height=200)
        with gr.Row(equal_height=False):
            refresh = gr.Button("Refresh queue", elem_id="review-refresh", size="sm", scale=0)
            c["clip_id"] = gr.Number(label="Clip", precision=0, elem_id="review-clip-id",
                                     scale=0, min_width=120)
            open_btn = gr.Button("Open clip", variant="primary", elem_id="review-open", scale=0)
            with gr.Column():
                c["progress"] = gr.Markdown(elem_id="review-progress")
                c["edits"] = gr.Markdown(elem_id="review-edits")
        c["banner"] = gr.HTML(elem_id="review-banner")
        c["status"] = st.status_line("review-status")
        # Reviewers decide here, at the top: the pair they read is the statements they judge
        # (the annotator's editor below is for fixing them).
        with gr.Column(visible=False, elem_id="review-reviewer") as reviewer:
            c["reviewer"] = reviewer
            with gr.Row():
                with gr.Column(scale=3):
                    c["gold_view"] = gr.HTML(elem_id="gold-view")
                with gr.Column(scale=2, min_width=300):
                    gr.Markdown("**Decide on a gold pair**: the one shown is the one your "
                                "decision applies to (click another in the list to read it).")
                    c["golds"] = gr.Dataframe(headers=GOLD_HEADERS, interactive=False,
                                              wrap=True, elem_id="gold-pairs", max_height=200,
                                              label="Gold pairs of this clip")
                    against = gr.Radio([("the version I sent back", "sent back"),
                                        ("the model caption", "model")], value="sent back",
                                       label="Show changes against", elem_id="gold-against")
                    note = gr.Textbox(label="Note to the annotator (what to fix)",
                                      elem_id="gold-note", max_length=2000)
                    with gr.Row():
                        approve = gr.Button("Approve gold pair", variant="primary",
                                            elem_id="gold-approve")
                        send_back = gr.Button("Send back to the annotator",
                                              elem_id="gold-send-back")
        with gr.Row():
            with gr.Column(scale=2, min_width=320):
                c["video"] = gr.Video(label="Clip (click a statement to play its interval)",
                                      interactive=False, elem_id="review-video", autoplay=False)
                c["timeline"] = gr.HTML(elem_id="review-timeline", label="Timeline")
                gr.Markdown("Timeline: click a bar to play it, drag it to move its interval, "
                            "pull an edge for its start or end (Undo reverts).")
                c["source"] = gr.Textbox(label="Statements from", interactive=False,
                                         elem_id="review-source")
            with gr.Column(scale=3):
                c["table"] = gr.Dataframe(headers=DRAFT_HEADERS, interactive=False, wrap=True,
                                          label="Statements (times in s; click a row for its "
                                                "full text, or press 1–9 / ↑ ↓)",
                                          column_widths=DRAFT_WIDTHS,
                                          elem_id="review-table", max_height=640)
                c["editing"] = gr.Markdown(elem_id="review-editing")
                with gr.Row():
                    c["aspect"] = gr.Dropdown(list(tx.ASPECTS), value=tx.CAMERA_MOVEMENT,
                                              label="Aspect", elem_id="review-aspect")
                    # Custom values pass the widget; the use case finds them among the values
                    # and their synonyms ("push in" → dolly in) or names the known ones.
                    c["value"] = gr.Dropdown(review.value_choices(tx.CAMERA_MOVEMENT), value=None,
                                             label="Value (type a word)", allow_custom_value=True,
                                             elem_id="review-value")
                    c["t_start"] = gr.Number(label="Start (s)", elem_id="review-start")
                    c["t_end"] = gr.Number(label="End (s)", elem_id="review-end")
                with gr.Row():
                    c["text"] = gr.Textbox(label="Statement (empty: written from the value)",
                                           elem_id="review-text", max_length=2000)
                    c["evidence"] = gr.Textbox(label="Evidence", elem_id="review-evidence",
                                               max_length=2000)
                c["note"] = gr.Textbox(label="Note to the reviewer (optional)",
                                       elem_id="review-note", max_length=2000)
                with gr.Row():
                    accept = gr.Button("Accept [a]", elem_id="review-accept", size="sm")
                    fix = gr.Button("Fix [f]", elem_id="review-fix", size="sm")
                    reject = gr.Button("Reject [r]", elem_id="review-reject", size="sm")
                    add = gr.Button("Add [n]", elem_id="review-add", size="sm")
                    delete = gr.Button("Delete [d]", elem_id="review-delete", size="sm")
                    clear = gr.Button("New statement [c]", elem_id="review-clear", size="sm")
                with gr.Row():
                    prev_btn = gr.Button("↑ Previous", elem_id="review-prev", size="sm")
                    next_btn = gr.Button("↓ Next", elem_id="review-next", size="sm")
                    undo = gr.Button("Undo [Ctrl+Z]", elem_id=UNDO, size="sm")
                    redo = gr.Button("Redo [Ctrl+Shift+Z]", elem_id=REDO, size="sm")
                    save = gr.Button("Save gold pair [s]", variant="primary",
                                     elem_id="review-save", size="sm")
                # The number keys' way in (hidden): the key goes in the box, the button selects.
                goto = gr.Textbox(elem_id=GOTO, elem_classes=["cinecap-hidden"], show_label=False,
                                  container=False)
                goto_btn = gr.Button("go", elem_id=f"{GOTO}-button",
                                     elem_classes=["cinecap-hidden"])
                c["seek"] = gr.Textbox(visible=False)  # "t0 t1" for the player hook
                drag = gr.Textbox(elem_id=DRAG, elem_classes=["cinecap-hidden"],
                                  show_label=False, container=False)
                drag_btn = gr.Button("drag", elem_id=f"{DRAG}-button",
                                     elem_classes=["cinecap-hidden"])
        with gr.Column(visible=False, elem_id="review-conflict-panel") as panel:
            c["conflict_panel"] = panel
            c["compare"] = gr.HTML(elem_id="review-compare")
            c["rebase"] = gr.Button("Re-apply my edits on the saved version", visible=False,
                                    elem_id="review-rebase", variant="primary")
            c["conflicts"] = gr.HTML(elem_id="review-conflicts")
            with gr.Row(visible=False) as decide_row:
                c["decide_row"] = decide_row
                which = gr.Number(label="Conflict #", precision=0, value=1,
                                  elem_id="conflict-number", scale=0, min_width=100)
                theirs_btn = gr.Button("Keep theirs", elem_id="conflict-theirs")
                yours_btn = gr.Button("Keep yours", elem_id="conflict-yours")
                all_theirs = gr.Button("Keep theirs for all", elem_id="conflict-all-theirs")
                all_yours = gr.Button("Keep yours for all", elem_id="conflict-all-yours")
        with gr.Accordion("Evidence overlays (the anchors' analysis of this clip)", open=False):
            draw = gr.Button("Draw the evidence overlays (a few seconds)",
                             elem_id="review-draw-overlays", size="sm")
            overlays = gr.Gallery(columns=4, height="auto", object_fit="contain",
                                  elem_id="review-overlays", label="Evidence overlays")
        with gr.Accordion("Approved clips (they leave the queue; click one to open it)",
                          open=False):
            c["approved"] = gr.Dataframe(headers=APPROVED_HEADERS, interactive=False,
                                         elem_id="review-approved", max_height=240)
        with gr.Accordion("History of this clip", open=True):
            c["history"] = gr.Dataframe(headers=HISTORY_HEADERS, interactive=False, wrap=True,
                                        elem_id="review-history")
        with gr.Accordion("Annotator agreement per aspect", open=False):
            c["agreement"] = gr.Dataframe(headers=AGREEMENT_HEADERS, interactive=False,
                                          elem_id="review-agreement")
        def out(names: tuple[str, ...]) -> list:
            return [c[n] for n in names]

        def by_name(values: dict[str, Any]) -> dict:
            return {c[k]: v for k, v in values.items() if k in c}

        reported = st.reported(c["status"])
        form_in = [c["ref"], c["selected"], *out(FORM)]

        def form_of(a, v, t0, t1, txt, ev, nt) -> dict[str, Any]:
            return {"aspect": a, "value": v, "t_start": t0, "t_end": t1, "text": txt,
                    "evidence": ev, "note": nt}

        def open_clip(user, clip, message: str | None = None, queue=None) -> dict:
            opened = review.open_review(ctx.store, user, clip)
            queue = queue if queue is not None else review.review_queue(ctx.store, user)
            values = clip_values(ctx, user, opened, queue)
            values["status"] = st.ok(message or (
                f"resumed your unsaved draft of clip #{opened.draft.clip_id}" if opened.resumed
                else f"opened clip #{opened.draft.clip_id} at version {opened.draft.version}"))
            return by_name(values)

        # --- the queue and opening a clip -----------------------------------------------------
        @reported
        def on_open(clip, request: gr.Request):
            return open_clip(ctx.user(request), clip)

        @reported
        def on_queue(request: gr.Request):
            return {c["queue"]: queue_rows(review.review_queue(ctx.store, ctx.user(request))),
                    c["status"]: st.ok("queue refreshed")}

        open_btn.click(on_open, [c["clip_id"]], out(CLIP_OUT), api_name="review_open")
        refresh.click(on_queue, None, [c["queue"], c["status"]], api_name="review_queue")

        def on_queue_select(evt: gr.SelectData):
            return evt.row_value[0] if evt.row_value else gr.skip()

        for listed in (c["queue"], c["approved"]):
            listed.select(on_queue_select, None, [c["clip_id"]], api_visibility="private").then(
                on_open, [c["clip_id"]], out(CLIP_OUT), api_visibility="private")

        # --- selecting a statement ------------------------------------------------------------
        def select_values(sel: review.Selection, message: str) -> dict:
            values = selection_values(sel)
            values["status"] = st.ok(message)
            return by_name(values)

        @reported
        def on_select(draft_id, row, request: gr.Request):
            sel = review.select_statement(ctx.store, ctx.user(request), draft_id, row)
            return select_values(sel, f"editing #{sel.row}")

        def on_row_click(draft_id, evt: gr.SelectData, request: gr.Request):
            if not evt.row_value:
                return {}
            return on_select(draft_id, evt.row_value[0], request)

        c["table"].select(on_row_click, [c["ref"]], out(SELECT_OUT),
                          api_visibility="private").then(None, [c["seek"]], None, js=SEEK_JS)
        select_event = goto_btn.click(on_select, [c["ref"], goto], out(SELECT_OUT),
                                      api_name="review_select")
        select_event.then(None, [c["seek"]], None, js=SEEK_JS)

        def make_step(delta: int):
            @reported
            def on_step(draft_id, selected, request: gr.Request):
                user = ctx.user(request)
                draft = review.current_draft(ctx.store, user, draft_id)
                found = draft.find(selected["id"]) if selected else None
                n = len(draft.items())
                if not n:
                    return {c["status"]: st.error("this draft has no statements")}
                row = (found[0] + delta if found else (1 if delta > 0 else n))
                row = min(max(row, 1), n)
                sel = review.select_statement(ctx.store, user, draft_id, row)
                return select_values(sel, f"editing #{sel.row}")
            return on_step

        for button, delta, name in ((prev_btn, -1, "review_previous"),
                                    (next_btn, 1, "review_next")):
            button.click(make_step(delta), [c["ref"], c["selected"]], out(SELECT_OUT),
                         api_name=name).then(None, [c["seek"]], None, js=SEEK_JS)

        def on_aspect(aspect):
            # A person changed the aspect: its values, none chosen yet.
            return gr.Dropdown(choices=review.value_choices(aspect), value=None)

        c["aspect"].input(on_aspect, [c["aspect"]], [c["value"]], api_visibility="private")

        def on_clear():
            return by_name({**selection_values(None), "status": st.ok(
                "new statement: choose an aspect and a value, then Add [n]")})

        clear.click(on_clear, None, out(SELECT_OUT), api_name="review_new_statement")

        # --- edits, undo, redo ----------------------------------------------------------------
        def after_edit(result: review.Edited) -> dict:
            values = draft_values(result.draft, review.reselect(result.draft, result.selected),
                                  page_files(ctx))
            values["status"] = st.ok(result.message)
            return by_name(values)

        def make_action(action: str):
            @reported
            def on_action(draft_id, selected, a, v, t0, t1, txt, ev, nt, request: gr.Request):
                sel_id = selected["id"] if selected else None
                loaded = selected["form"] if selected else None
                if action == "add" and not selected:
                    loaded = review.form_values(None)
                result = review.edit_review(ctx.store, ctx.user(request), draft_id, action,
                                            sel_id, form_of(a, v, t0, t1, txt, ev, nt), loaded)
                return after_edit(result)
            return on_action

        for button, action in ((accept, "accept"), (fix, "fix"), (reject, "reject"),
                               (add, "add"), (delete, "delete")):
            button.click(make_action(action), form_in, out(DRAFT_OUT),
                         api_name=f"review_{action}")

        def make_history(fn):
            @reported
            def on_history(draft_id, selected, request: gr.Request):
                result = fn(ctx.store, ctx.user(request), draft_id,
                            selected["id"] if selected else None)
                return after_edit(result)
            return on_history

        @reported
        def on_drag(draft_id, spec, request: gr.Request):
            parts = str(spec or "").split()
            if len(parts) != 3:
                return {c["status"]: st.error("drag a bar of the timeline to change its interval")}
            return after_edit(review.retime_statement(ctx.store, ctx.user(request), draft_id,
                                                      *parts))

        drag_btn.click(on_drag, [c["ref"], drag], out(DRAFT_OUT), api_name="review_retime")

        undo.click(make_history(review.undo_review), [c["ref"], c["selected"]], out(DRAFT_OUT),
                   api_name="review_undo")
        redo.click(make_history(review.redo_review), [c["ref"], c["selected"]], out(DRAFT_OUT),
                   api_name="review_redo")

        # --- saving, conflicts, the next clip -------------------------------------------------
        @reported
        def on_save(draft_id, request: gr.Request):
            user = ctx.user(request)
            try:
                gold = review.save_review(ctx.store, user, draft_id)
            except review.StoreConflict as e:
                draft = review.current_draft(ctx.store, user, draft_id)
                theirs = e.theirs
                gr.Warning("someone saved this clip meanwhile: compare both versions below")
                return by_name({
                    "conflict_panel": gr.Column(visible=True),
                    "compare": compare_html(
                        [(it.id, it.current, it.note) for it in draft.items() if it.kept],
                        [(i, s, theirs.notes.get(i, "")) for i, s in
                         zip(theirs.statement_ids, theirs.statements)] if theirs else [],
                        f"gold pair #{theirs.id} by {theirs.annotator}" if theirs else "saved"),
                    "rebase": gr.Button(visible=True), "conflicts": "",
                    "decide_row": gr.Row(visible=False), "status": st.error(e.message)})
            queue = review.review_queue(ctx.store, user)
            nxt = review.next_clip(queue, gold.clip_id, review.ANNOTATE)
            message = f"saved gold pair #{gold.id} (clip #{gold.clip_id} is now version " \
                      f"{gold.clip_version})"
            if nxt is None:
                message += "; nothing else in the queue to annotate"
            else:
                message += f"; next: clip #{nxt}"
            return open_clip(user, nxt or gold.clip_id, message, queue)

        save.click(on_save, [c["ref"]], out(CLIP_OUT), api_name="review_save")

        @reported
        def on_rebase(draft_id, request: gr.Request):
            result = review.rebase_review(ctx.store, ctx.user(request), draft_id)
            return after_edit(result)

        c["rebase"].click(on_rebase, [c["ref"]], out(DRAFT_OUT), api_name="review_rebase")

        def make_resolve(choice: str, every: bool):
            @reported
            def on_resolve(draft_id, k, request: gr.Request):
                result = review.resolve_conflict(ctx.store, ctx.user(request), draft_id,
                                                 "all" if every else k, choice)
                return after_edit(result)
            return on_resolve

        for button, choice, every, name in ((theirs_btn, "theirs", False, "review_keep_theirs"),
                                            (yours_btn, "yours", False, "review_keep_yours"),
                                            (all_theirs, "theirs", True, "review_keep_all_theirs"),
                                            (all_yours, "yours", True, "review_keep_all_yours")):
            button.click(make_resolve(choice, every), [c["ref"], which], out(DRAFT_OUT),
                         api_name=name)

        # --- overlays ---------------------------------------------------------------------------
        @reported
        def on_draw(clip, request: gr.Request):
            images = review.evidence_overlays(ctx.store, ctx.user(request), clip,
                                              directory=page_files(ctx))
            return {overlays: images,
                    c["status"]: st.ok(f"{len(images)} evidence overlays of clip #{int(clip)}")}

        draw.click(on_draw, [c["clip_id"]], [overlays, c["status"]], api_name="review_overlays")

        # --- reviewers ----------------------------------------------------------------------------
        @reported
        def on_gold_select(how, evt: gr.SelectData, request: gr.Request):
            if not evt.row_value:
                return {}
            values = decision_values(ctx, ctx.user(request), evt.row_value[0], how)
            values["status"] = st.ok(f"reading gold pair #{evt.row_value[0]}")
            return by_name(values)

        c["golds"].select(on_gold_select, [against], out(("gold_view", "deciding", "status")),
                          api_visibility="private")

        @reported
        def on_against(deciding, how, request: gr.Request):
            if not deciding:
                return {}
            values = decision_values(ctx, ctx.user(request), deciding["id"], how)
            values["status"] = st.ok(f"gold pair #{deciding['id']} against the "
                                     + ("version sent back" if how == "sent back" else "model"))
            return by_name(values)

        against.change(on_against, [c["deciding"], against],
                       out(("gold_view", "deciding", "status")), api_visibility="private")

        @reported
        def on_gold_view(gold_id, request: gr.Request):
            gold_id = check_id(gold_id, "gold pair")  # no id: a clear line, not a TypeError
            values = decision_values(ctx, ctx.user(request), gold_id)
            values["status"] = st.ok(f"reading gold pair #{gold_id}")
            return by_name(values)

        # The API's way to pick a pair to read (the page clicks it in the list).
        gold_pick = gr.Number(elem_classes=["cinecap-hidden"], precision=0, container=False)
        gold_pick_btn = gr.Button("read", elem_classes=["cinecap-hidden"])
        gold_pick_btn.click(on_gold_view, [gold_pick], out(("gold_view", "deciding", "status")),
                            api_name="gold_view")

        def make_decision(decision: str):
            @reported
            def on_decide(deciding, note_text, request: gr.Request):
                user = ctx.user(request)
                if not deciding:
                    return {c["status"]: st.error("no gold pair to decide on: open a clip that "
                                                  "has one, or click one in the list")}
                g = review.decide_gold(ctx.store, user, deciding["id"], decision,
                                       deciding["version"], note_text or "")
                queue = review.review_queue(ctx.store, user)
                nxt = review.next_clip(queue, g.clip_id, review.DECIDE)
                word = "approved" if decision == "accepted" else "sent back"
                message = f"gold pair #{g.id} {word}" + (
                    f"; next: clip #{nxt}" if nxt else "; no other gold pair waits for a decision")
                return open_clip(user, nxt or g.clip_id, message, queue)
            return on_decide

        approve.click(make_decision("accepted"), [c["deciding"], note], out(CLIP_OUT),
                      api_name="gold_approve")
        send_back.click(make_decision("sent_back"), [c["deciding"], note], out(CLIP_OUT),
                        api_name="gold_send_back")
        return out(SHOW_OUT)
