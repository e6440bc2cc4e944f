"""Review tab: a queue (least certain first), the clip beside its statements, an edit form with the
taxonomy's values, accept / fix / reject / add / delete (keyboard: a f r n d, s saves), save as a
gold pair with history; reviewers accept or send back gold pairs; annotator agreement."""
from __future__ import annotations

from typing import Any

import gradio as gr

from cinecap import taxonomy as tx
from ui.context import AppContext
from ui.tabs.base import Tab, shown_errors
from ui.tabs.tables import (AGREEMENT_HEADERS, DRAFT_HEADERS, GOLD_HEADERS, HISTORY_HEADERS,
                            QUEUE_HEADERS, STATEMENT_HEADERS, agreement_rows, draft_rows,
                            gold_rows, history_rows, queue_rows, statement_rows)
from ui.usecases import preview, review

#: Keyboard shortcuts → button ids (the tab's ``head`` script).
SHORTCUTS = {"a": "review-accept", "f": "review-fix", "r": "review-reject", "n": "review-add",
             "d": "review-delete", "s": "review-save"}


def _values(aspect: str) -> list[str]:
    return [v.canonical for v in tx.values_for(aspect)]


def shortcut_script() -> str:
    """Keys a f r n d s click the review buttons, unless the focus is in a text field."""
    pairs = ", ".join(f'"{k}": "{v}"' for k, v in SHORTCUTS.items())
    return ("<script>document.addEventListener('keydown', (e) => {"
            "const t = e.target; const tag = (t && t.tagName || '').toLowerCase();"
            "if (e.ctrlKey || e.metaKey || e.altKey || tag === 'input' || tag === 'textarea' ||"
            " tag === 'select' || (t && t.isContentEditable)) return;"
            f"const ids = {{{pairs}}}; const id = ids[e.key];"
            "if (!id) return; const el = document.getElementById(id);"
            "if (el && el.offsetParent !== null) { e.preventDefault(); el.click(); }"
            "});</script>")


class ReviewTab(Tab):
    id = "review"
    title = "Review"
    min_role = "annotator"
    head = shortcut_script()
    css = "#review-table td { white-space: pre-wrap; }"

    def on_show(self, ctx: AppContext, user: Any) -> list:
        return [queue_rows(review.review_queue(ctx.store, user))]

    def build(self, ctx: AppContext) -> list:
        draft_state = gr.State(None)
        with gr.Row():
            queue = gr.Dataframe(headers=QUEUE_HEADERS, label="Queue (least certain first)",
                                 interactive=False, elem_id="review-queue")
        with gr.Row():
            refresh = gr.Button("Refresh queue", elem_id="review-refresh", size="sm")
            clip_id = gr.Number(label="Clip", precision=0, elem_id="review-clip-id")
            open_btn = gr.Button("Open clip", variant="primary", elem_id="review-open")
        with gr.Row():
            with gr.Column(scale=1):
                video = gr.Video(label="Clip", interactive=False, elem_id="review-video")
                source = gr.Textbox(label="Statements from", interactive=False,
                                    elem_id="review-source")
            with gr.Column(scale=2):
                table = gr.Dataframe(headers=DRAFT_HEADERS,
                                     label="Statements (click a row to edit)",
                                     interactive=False, wrap=True, elem_id="review-table")
                with gr.Row():
                    row = gr.Number(label="Statement #", precision=0, elem_id="review-row")
                    aspect = gr.Dropdown(list(tx.ASPECTS), value=tx.CAMERA_MOVEMENT,
                                         label="Aspect", elem_id="review-aspect")
                    # Custom values pass the widget; the use case checks them against the
                    # taxonomy (an API client sets aspect and value in one call).
                    value = gr.Dropdown(_values(tx.CAMERA_MOVEMENT), label="Value",
                                        allow_custom_value=True, elem_id="review-value")
                    t_start = gr.Number(label="Start (s)", elem_id="review-start")
                    t_end = gr.Number(label="End (s)", elem_id="review-end")
                with gr.Row():
                    text = gr.Textbox(label="Statement (empty: written from the value)",
                                      elem_id="review-text")
                    evidence = gr.Textbox(label="Evidence", elem_id="review-evidence")
                with gr.Row():
                    accept = gr.Button("Accept [a]", elem_id="review-accept")
                    fix = gr.Button("Fix [f]", elem_id="review-fix")
                    reject = gr.Button("Reject [r]", elem_id="review-reject")
                    add = gr.Button("Add [n]", elem_id="review-add")
                    delete = gr.Button("Delete [d]", elem_id="review-delete")
                    save = gr.Button("Save gold pair [s]", variant="primary",
                                     elem_id="review-save")
        status = gr.Textbox(label="Status", interactive=False, elem_id="review-status")
        with gr.Column(visible=False) as conflict_row:
            with gr.Row():
                yours = gr.Dataframe(headers=STATEMENT_HEADERS, label="Your version (not saved)",
                                     interactive=False, elem_id="conflict-yours")
                theirs = gr.Dataframe(headers=STATEMENT_HEADERS,
                                      label="Saved version (theirs)", interactive=False,
                                      elem_id="conflict-theirs")
            rebase = gr.Button("Re-apply my edits on the saved version",
                               elem_id="review-rebase")
        with gr.Accordion("History of this clip", open=True):
            hist = gr.Dataframe(headers=HISTORY_HEADERS, interactive=False, wrap=True,
                                elem_id="review-history")
        with gr.Accordion("Annotator agreement per aspect", open=False):
            agree = gr.Dataframe(headers=AGREEMENT_HEADERS, interactive=False,
                                 elem_id="review-agreement")
        with gr.Accordion("Gold pairs (reviewers accept or send back)", open=False):
            golds = gr.Dataframe(headers=GOLD_HEADERS, interactive=False, wrap=True,
                                 elem_id="gold-pairs")
            with gr.Row():
                gold_id = gr.Number(label="Gold pair", precision=0, elem_id="gold-id")
                gold_version = gr.Number(label="Version", precision=0, elem_id="gold-version")
                note = gr.Textbox(label="Note to the annotator", elem_id="gold-note")
                accept_gold = gr.Button("Accept gold pair", elem_id="gold-accept")
                send_back = gr.Button("Send back", elem_id="gold-send-back")

        def clip_view(user, clip):
            """History, agreement and gold pairs of the clip, as table rows."""
            return (history_rows(review.history(ctx.store, user, clip)),
                    agreement_rows(review.agreement(ctx.store, user, clip)),
                    gold_rows(review.gold_pairs(ctx.store, user, clip)))

        @shown_errors
        def on_queue(request: gr.Request):
            return queue_rows(review.review_queue(ctx.store, ctx.user(request)))

        @shown_errors
        def on_open(cid, request: gr.Request):
            user = ctx.user(request)
            draft, snap = review.open_review(ctx.store, user, cid)
            video_file = preview.video_for_page(ctx.settings, snap.clip.path,
                                                snap.clip.meta.get("codec"), stored=True)
            return (draft, video_file, snap.source, draft_rows(draft),
                    *clip_view(user, draft.clip_id),
                    f"opened clip #{draft.clip_id} at version {draft.version}",
                    gr.Column(visible=False))

        open_outputs = [draft_state, video, source, table, hist, agree, golds, status,
                        conflict_row]
        open_btn.click(on_open, [clip_id], open_outputs, api_name="review_open")
        refresh.click(on_queue, None, [queue], api_name="review_queue")

        def on_queue_select(evt: gr.SelectData):
            return evt.row_value[0] if evt.row_value else None

        queue.select(on_queue_select, None, [clip_id], api_visibility="private").then(
            on_open, [clip_id], open_outputs, api_visibility="private")

        @shown_errors
        def on_row_select(draft, evt: gr.SelectData):
            if draft is None or not evt.row_value:
                return [gr.skip()] * 7
            i = int(evt.row_value[0]) - 1
            st = draft.item(i).current or draft.item(i).original
            return (i + 1, st["aspect"],
                    gr.Dropdown(choices=_values(st["aspect"]), value=st["value"]),
                    st.get("t_start"), st.get("t_end"), st.get("text") or "",
                    st.get("evidence") or "")

        table.select(on_row_select, [draft_state],
                     [row, aspect, value, t_start, t_end, text, evidence],
                     api_visibility="private")
        aspect.change(lambda a: gr.Dropdown(choices=_values(a), value=_values(a)[0]), [aspect],
                      [value], api_visibility="private")

        def make_action(action: str):
            @shown_errors
            def on_action(draft, index, a, v, t0, t1, txt, ev, request: gr.Request):
                draft = review.edit_draft(ctx.user(request), draft, action, index, a, v, t0, t1,
                                          txt, ev)
                return draft, draft_rows(draft), f"{action}: done; save to keep it"
            return on_action

        form = [draft_state, row, aspect, value, t_start, t_end, text, evidence]
        for button, action in ((accept, "accept"), (fix, "fix"), (reject, "reject"),
                               (add, "add"), (delete, "delete")):
            button.click(make_action(action), form, [draft_state, table, status],
                         api_name=f"review_{action}")

        @shown_errors
        def on_save(draft, request: gr.Request):
            user = ctx.user(request)
            try:
                gold = review.save_review(ctx.store, user, draft)
            except review.StoreConflict as e:
                gr.Warning("someone saved this clip meanwhile: compare both versions below")
                theirs_sts = e.theirs.statements if e.theirs else []
                return (draft, gr.skip(), gr.skip(), *clip_view(user, draft.clip_id), e.message,
                        gr.Column(visible=True), statement_rows(draft.statements()),
                        statement_rows(theirs_sts))
            fresh, _ = review.open_review(ctx.store, user, draft.clip_id)
            return (fresh, draft_rows(fresh), fresh.source, *clip_view(user, fresh.clip_id),
                    f"saved gold pair #{gold.id} (clip #{gold.clip_id} is now version "
                    f"{fresh.version})", gr.Column(visible=False), [], [])

        save.click(on_save, [draft_state],
                   [draft_state, table, source, hist, agree, golds, status, conflict_row, yours,
                    theirs], api_name="review_save")

        @shown_errors
        def on_rebase(draft, request: gr.Request):
            user = ctx.user(request)
            merged, summary = review.rebase_review(ctx.store, user, draft)
            return (merged, draft_rows(merged), merged.source, *clip_view(user, merged.clip_id),
                    summary, gr.Column(visible=False))

        rebase.click(on_rebase, [draft_state],
                     [draft_state, table, source, hist, agree, golds, status, conflict_row],
                     api_name="review_rebase")

        def make_decision(decision: str):
            @shown_errors
            def on_decide(gid, version, note_text, draft, request: gr.Request):
                user = ctx.user(request)
                g = review.decide_gold(ctx.store, user, gid, decision, version, note_text or "")
                return (gold_rows(review.gold_pairs(ctx.store, user, g.clip_id)),
                        history_rows(review.history(ctx.store, user, g.clip_id)),
                        f"gold pair #{g.id}: {g.status.replace('_', ' ')}")
            return on_decide

        accept_gold.click(make_decision("accepted"), [gold_id, gold_version, note, draft_state],
                          [golds, hist, status], api_name="gold_accept")
        send_back.click(make_decision("sent_back"), [gold_id, gold_version, note, draft_state],
                        [golds, hist, status], api_name="gold_send_back")

        def on_gold_select(evt: gr.SelectData):
            if not evt.row_value:
                return gr.skip(), gr.skip()
            return evt.row_value[0], evt.row_value[3]

        golds.select(on_gold_select, None, [gold_id, gold_version], api_visibility="private")
        return [queue]
