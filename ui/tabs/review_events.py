"""The Review tab's handlers, wired to the components ``ui.tabs.review_layout`` made: the queue
and its order, opening a clip, selecting a statement, edits (each re-checked against the
pixels), undo/redo and dragged bars, saving and conflicts, overlays, the reviewer's decisions.

Every handler resolves the user, calls one use case (which checks the role) and goes through the
status line (``ui.tabs.status.reported``)."""
from __future__ import annotations

import itertools
import threading
from typing import Any

import gradio as gr

from cinecap.errors import CinecapError
from ui.context import AppContext
from ui.tabs import status as st
from ui.tabs.review import (CLIP_OUT, DEFAULT_ORDER, DRAFT_OUT, FORM, ORDERS, SEEK_JS,
                            SELECT_OUT, check_order, clip_values, decision_values, draft_values,
                            page_files, queue_values, selected_values, selection_values,
                            verdict_values)
from ui.tabs.tables import compare_html, queue_rows
from ui.usecases import review, verification
from ui.usecases.limits import check_id

#: The last clip opening per user (a number from ``_OPENINGS``): the verdicts of a clip measured
#: after it opened are shown only while no other opening (another clip, the same one again, the
#: next clip after a save) came in between, so they never land on another clip's table.
_OPENED: dict[int, int] = {}
_OPENINGS = itertools.count(1)
_OPENED_LOCK = threading.Lock()


class Wiring:
    """What every group of handlers shares: the context, the components by name, the status
    line's error edge, and opening a clip."""

    def __init__(self, ctx: AppContext, c: dict[str, Any]):
        self.ctx, self.c = ctx, c
        self.reported = st.reported(c["status"])

    def out(self, names: tuple[str, ...]) -> list:
        return [self.c[n] for n in names]

    def by_name(self, values: dict[str, Any]) -> dict:
        return {self.c[k]: v for k, v in values.items() if k in self.c}

    def queue(self, user: Any, order: Any) -> list:
        """The queue in ``order`` (the selector's; an unknown one is the store's clear error)."""
        return review.review_queue(self.ctx.store, user, order=order or DEFAULT_ORDER)

    def open_clip(self, user: Any, clip: Any, order: Any, message: str | None = None,
                  queue: list | None = None, opened: review.Opened | None = None,
                  measured: bool = True, opening: int | None = None) -> dict:
        """A clip's values (``opened``: opened already, as ``opening``); ``measured=False``: its
        verdicts not yet (``on_open`` measures the clip after)."""
        if opening is None:
            self.opening(user)
        opened = opened or review.open_review(self.ctx.store, user, clip)
        queue = queue if queue is not None else self.queue(user, order)
        values = clip_values(self.ctx, user, opened, queue, measured)
        values["status"] = st.ok(message or (
            f"resumed your unsaved draft of clip #{opened.draft.clip_id}" if opened.resumed
            else f"opened clip #{opened.draft.clip_id} at version {opened.draft.version}"))
        return self.by_name(values)

    @staticmethod
    def opening(user: Any) -> int:
        """A new clip opening of ``user``'s: its number (see ``_OPENED``)."""
        with _OPENED_LOCK:
            _OPENED[user.id] = n = next(_OPENINGS)
        return n

    @staticmethod
    def still_open(user: Any, n: int) -> bool:
        with _OPENED_LOCK:
            return _OPENED.get(user.id) == n

    def measured_later(self, user: Any, opened: review.Opened, n: int) -> dict | None:
        """After a clip opened unmeasured: its analysis made (or waited for: never twice), then
        only the table and the verdict line (and a reviewer's pair, now with its verdicts) from
        the draft as stored now, so edits made meanwhile stay. None when another opening came
        in between or the draft is gone (saved, opened again)."""
        ctx = self.ctx
        failed = verification.measure_clip(ctx.store, ctx.settings, user, opened.draft.clip_id)
        if not self.still_open(user, n):
            return None
        try:
            draft = review.current_draft(ctx.store, user, opened.draft.id)
        except CinecapError:
            return None
        values = verdict_values(ctx, user, draft, failed)
        golds = review.gold_pairs(ctx.store, user, draft.clip_id)
        if golds and not failed:  # the pair clip_values showed, now with its verdicts
            values.update(decision_values(ctx, user, golds[-1].id))
        return self.by_name(values)

    def after_edit(self, user: Any, result: review.Edited) -> dict:
        values = draft_values(self.ctx, user, result.draft,
                              review.reselect(result.draft, result.selected),
                              page_files(self.ctx))
        values["status"] = st.ok(result.message)
        return self.by_name(values)


def wire(ctx: AppContext, c: dict[str, Any]) -> None:
    w = Wiring(ctx, c)
    _queue(w)
    _selection(w)
    _edits(w)
    _saving(w)
    _overlays(w)
    _reviewer(w)


def _queue(w: Wiring) -> None:
    """The queue, its order (kept on this browser), opening a clip from it or by number."""
    c, ctx, reported = w.c, w.ctx, w.reported
    progress_out = [c["queue"], c["approved"], c["progress"]]

    @reported
    def on_open(clip, order, request: gr.Request):
        """The clip at once; a clip not yet analysed shows "measuring the pixels…", and its
        verdicts follow in a second step (the analysis takes seconds)."""
        user = ctx.user(request)
        n = w.opening(user)
        opened = review.open_review(ctx.store, user, clip)
        measured = verification.clip_analysed(ctx.store, ctx.settings, user,
                                              opened.draft.clip_id)
        yield w.open_clip(user, clip, order, opened=opened, measured=measured, opening=n)
        if not measured:
            later = w.measured_later(user, opened, n)
            if later:
                yield later

    @reported
    def on_queue(order, request: gr.Request):
        return {c["queue"]: queue_rows(w.queue(ctx.user(request), order)),
                c["status"]: st.ok("queue refreshed")}

    @reported
    def on_order(order, clip, request: gr.Request):
        """A person chose an order: kept for this browser, the queue in it at once."""
        order, user = order or DEFAULT_ORDER, ctx.user(request)
        values = queue_values(ctx, user, clip, w.queue(user, order))
        values["status"] = st.ok("queue order: " + dict((v, k) for k, v in ORDERS)[order])
        return {c["order_kept"]: order, **w.by_name(values)}

    def on_shown(kept, clip, request: gr.Request):
        """After on_show (which knows only the user): the queue in the order this browser chose,
        and the selector saying so."""
        order = check_order(kept)  # kept by an older page, it may name an order no more
        if order == DEFAULT_ORDER:  # what on_show filled it with
            return {c["order"]: order}
        user = ctx.user(request)
        return {c["order"]: order, **w.by_name(queue_values(ctx, user, clip, w.queue(user, order)))}

    # The progress shows on the verdict line only: the rest of the clip is there at once.
    c["open"].click(on_open, [c["clip_id"], c["order"]], w.out(CLIP_OUT), api_name="review_open",
                    show_progress_on=[c["verdicts"]])
    c["refresh"].click(on_queue, [c["order"]], [c["queue"], c["status"]],
                       api_name="review_queue")
    c["order"].input(on_order, [c["order"], c["clip_id"]],
                     [c["order_kept"], *progress_out, c["status"]], api_visibility="private")
    c["shown"].change(reported(on_shown), [c["order_kept"], c["clip_id"]],
                      [c["order"], *progress_out], api_visibility="private")

    def on_queue_select(evt: gr.SelectData):
        return evt.row_value[0] if evt.row_value else gr.skip()

    for listed in (c["queue"], c["approved"]):
        listed.select(on_queue_select, None, [c["clip_id"]], api_visibility="private").then(
            on_open, [c["clip_id"], c["order"]], w.out(CLIP_OUT), api_visibility="private",
            show_progress_on=[c["verdicts"]])


def _selection(w: Wiring) -> None:
    """Selecting a statement: a row, its number, the previous or next one; a new statement."""
    c, ctx, reported = w.c, w.ctx, w.reported

    def select_values(user: Any, sel: review.Selection, message: str) -> dict:
        values = selected_values(ctx, user, sel)
        values["status"] = st.ok(message)
        return w.by_name(values)

    @reported
    def on_select(draft_id, row, request: gr.Request):
        user = ctx.user(request)
        sel = review.select_statement(ctx.store, user, draft_id, row)
        return select_values(user, sel, f"editing #{sel.row}")

    def on_row_click(draft_id, evt: gr.SelectData, request: gr.Request):
        if not evt.row_value:
            return {}
        return on_select(draft_id, evt.row_value[0], request)

    c["table"].select(on_row_click, [c["ref"]], w.out(SELECT_OUT),
                      api_visibility="private").then(None, [c["seek"]], None, js=SEEK_JS)
    c["goto_btn"].click(on_select, [c["ref"], c["goto"]], w.out(SELECT_OUT),
                        api_name="review_select").then(None, [c["seek"]], None, js=SEEK_JS)

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
            sel = review.select_statement(ctx.store, user, draft_id, min(max(row, 1), n))
            return select_values(user, sel, f"editing #{sel.row}")
        return on_step

    for name, delta, api in (("prev", -1, "review_previous"), ("next", 1, "review_next")):
        c[name].click(make_step(delta), [c["ref"], c["selected"]], w.out(SELECT_OUT),
                      api_name=api).then(None, [c["seek"]], None, js=SEEK_JS)

    def on_aspect(aspect):
        # A person changed the aspect: its values, none chosen yet.
        return gr.Dropdown(choices=review.value_choices(aspect), value=None)

    c["aspect"].input(on_aspect, [c["aspect"]], [c["value"]], api_visibility="private")

    def on_clear():
        return w.by_name({**selection_values(None), "status": st.ok(
            "new statement: choose an aspect and a value, then Add [n]")})

    c["clear"].click(on_clear, None, w.out(SELECT_OUT), api_name="review_new_statement")


def _edits(w: Wiring) -> None:
    """The statement actions, undo and redo, a dragged timeline bar: each stores the draft and
    checks its statements against the pixels again (``review.draft_values``)."""
    c, ctx, reported = w.c, w.ctx, w.reported
    form_in = [c["ref"], c["selected"], *w.out(FORM)]

    def make_action(action: str):
        @reported
        def on_action(draft_id, selected, a, v, t0, t1, txt, ev, nt, request: gr.Request):
            sel_id = selected["id"] if selected else None
            loaded = selected["form"] if selected else None
            if action == "add" and not selected:
                loaded = review.form_values(None)
            form = {"aspect": a, "value": v, "t_start": t0, "t_end": t1, "text": txt,
                    "evidence": ev, "note": nt}
            user = ctx.user(request)
            return w.after_edit(user, review.edit_review(ctx.store, user, draft_id, action,
                                                         sel_id, form, loaded))
        return on_action

    for action in ("accept", "fix", "reject", "add", "delete"):
        c[action].click(make_action(action), form_in, w.out(DRAFT_OUT),
                        api_name=f"review_{action}")

    def make_history(fn):
        @reported
        def on_history(draft_id, selected, request: gr.Request):
            user = ctx.user(request)
            return w.after_edit(user, fn(ctx.store, user, draft_id,
                                         selected["id"] if selected else None))
        return on_history

    @reported
    def on_drag(draft_id, spec, request: gr.Request):
        parts = str(spec or "").split()
        if len(parts) != 3:
            return {c["status"]: st.error("drag a bar of the timeline to change its interval")}
        user = ctx.user(request)
        return w.after_edit(user, review.retime_statement(ctx.store, user, draft_id, *parts))

    c["drag_btn"].click(on_drag, [c["ref"], c["drag"]], w.out(DRAFT_OUT),
                        api_name="review_retime")
    c["undo"].click(make_history(review.undo_review), [c["ref"], c["selected"]],
                    w.out(DRAFT_OUT), api_name="review_undo")
    c["redo"].click(make_history(review.redo_review), [c["ref"], c["selected"]],
                    w.out(DRAFT_OUT), api_name="review_redo")


def _saving(w: Wiring) -> None:
    """Saving (a conflict shows both versions), re-applying, deciding conflicts."""
    c, ctx, reported = w.c, w.ctx, w.reported

    @reported
    def on_save(draft_id, order, request: gr.Request):
        user = ctx.user(request)
        try:
            gold = review.save_review(ctx.store, user, draft_id)
        except review.StoreConflict as e:
            draft = review.current_draft(ctx.store, user, draft_id)
            theirs = e.theirs
            gr.Warning("someone saved this clip meanwhile: compare both versions below")
            return w.by_name({
                "conflict_panel": gr.Column(visible=True),
                "compare": compare_html(
                    [(it.id, it.current, it.note) for it in draft.items() if it.kept],
                    [(i, s, theirs.notes.get(i, "")) for i, s in
                     zip(theirs.statement_ids, theirs.statements)] if theirs else [],
                    f"gold pair #{theirs.id} by {theirs.annotator}" if theirs else "saved"),
                "rebase": gr.Button(visible=True), "conflicts": "",
                "decide_row": gr.Row(visible=False), "status": st.error(e.message)})
        queue = w.queue(user, order)
        nxt = review.next_clip(queue, gold.clip_id, review.ANNOTATE)
        message = (f"saved gold pair #{gold.id} (clip #{gold.clip_id} is now version "
                   f"{gold.clip_version})")
        message += ("; nothing else in the queue to annotate" if nxt is None
                    else f"; next: clip #{nxt}")
        return w.open_clip(user, nxt or gold.clip_id, order, message, queue)

    c["save"].click(on_save, [c["ref"], c["order"]], w.out(CLIP_OUT), api_name="review_save")

    @reported
    def on_rebase(draft_id, request: gr.Request):
        user = ctx.user(request)
        return w.after_edit(user, review.rebase_review(ctx.store, user, draft_id))

    c["rebase"].click(on_rebase, [c["ref"]], w.out(DRAFT_OUT), api_name="review_rebase")

    def make_resolve(choice: str, every: bool):
        @reported
        def on_resolve(draft_id, k, request: gr.Request):
            user = ctx.user(request)
            return w.after_edit(user, review.resolve_conflict(
                ctx.store, user, draft_id, "all" if every else k, choice))
        return on_resolve

    for name, choice, every, api in (("theirs", "theirs", False, "review_keep_theirs"),
                                     ("yours", "yours", False, "review_keep_yours"),
                                     ("all_theirs", "theirs", True, "review_keep_all_theirs"),
                                     ("all_yours", "yours", True, "review_keep_all_yours")):
        c[name].click(make_resolve(choice, every), [c["ref"], c["which"]], w.out(DRAFT_OUT),
                      api_name=api)


def _overlays(w: Wiring) -> None:
    c, ctx = w.c, w.ctx

    @w.reported
    def on_draw(clip, request: gr.Request):
        images = review.evidence_overlays(ctx.store, ctx.user(request), clip,
                                          directory=page_files(ctx))
        return {c["overlays"]: images,
                c["status"]: st.ok(f"{len(images)} evidence overlays of clip #{int(clip)}")}

    c["draw"].click(on_draw, [c["clip_id"]], [c["overlays"], c["status"]],
                    api_name="review_overlays")


def _reviewer(w: Wiring) -> None:
    """Reading a gold pair (from the list, against the version sent back or the model caption,
    or by id through the API) and deciding on it."""
    c, ctx, reported = w.c, w.ctx, w.reported
    view_out = w.out(("gold_view", "deciding", "status"))

    @reported
    def on_gold_select(how, evt: gr.SelectData, request: gr.Request):
        if not evt.row_value:
            return {}
        values = decision_values(ctx, ctx.user(request), evt.row_value[0], how)
        values["status"] = st.ok(f"reading gold pair #{evt.row_value[0]}")
        return w.by_name(values)

    c["golds"].select(on_gold_select, [c["against"]], view_out, api_visibility="private")

    @reported
    def on_against(deciding, how, request: gr.Request):
        if not deciding:
            return {}
        values = decision_values(ctx, ctx.user(request), deciding["id"], how)
        values["status"] = st.ok(f"gold pair #{deciding['id']} against the "
                                 + ("version sent back" if how == "sent back" else "model"))
        return w.by_name(values)

    c["against"].change(on_against, [c["deciding"], c["against"]], view_out,
                        api_visibility="private")

    @reported
    def on_gold_view(gold_id, request: gr.Request):
        gold_id = check_id(gold_id, "gold pair")  # no id: a clear line, not a TypeError
        values = decision_values(ctx, ctx.user(request), gold_id)
        values["status"] = st.ok(f"reading gold pair #{gold_id}")
        return w.by_name(values)

    c["gold_pick_btn"].click(on_gold_view, [c["gold_pick"]], view_out, api_name="gold_view")

    def make_decision(decision: str):
        @reported
        def on_decide(deciding, note_text, order, request: gr.Request):
            user = ctx.user(request)
            if not deciding:
                return {c["status"]: st.error("no gold pair to decide on: open a clip that "
                                              "has one, or click one in the list")}
            g = review.decide_gold(ctx.store, user, deciding["id"], decision,
                                   deciding["version"], note_text or "")
            queue = w.queue(user, order)
            nxt = review.next_clip(queue, g.clip_id, review.DECIDE)
            word = "approved" if decision == "accepted" else "sent back"
            message = f"gold pair #{g.id} {word}" + (
                f"; next: clip #{nxt}" if nxt else "; no other gold pair waits for a decision")
            return w.open_clip(user, nxt or g.clip_id, order, message, queue)
        return on_decide

    for name, decision, api in (("approve", "accepted", "gold_approve"),
                                ("send_back", "sent_back", "gold_send_back")):
        c[name].click(make_decision(decision), [c["deciding"], c["gold_note"], c["order"]],
                      w.out(CLIP_OUT), api_name=api)
