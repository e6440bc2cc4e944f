"""The Review tab's components, panel by panel, each kept in ``c`` by name (the names of
``ui.tabs.review``'s output lists; buttons and inputs under their own names), for
``ui.tabs.review_events`` to wire. Layout only: no handler, no store."""
from __future__ import annotations

from typing import Any

import gradio as gr

from cinecap import taxonomy as tx
from ui.tabs import status as st
from ui.tabs.tables import (AGREEMENT_HEADERS, APPROVED_HEADERS, DRAFT_HEADERS, DRAFT_TYPES,
                            DRAFT_WIDTHS, GOLD_HEADERS, HISTORY_HEADERS, QUEUE_HEADERS)
from ui.usecases import review

#: Where the queue order chosen on this browser is kept (it outlives a reload).
ORDER_KEY = "cinecap-review-order"


def _hidden(elem_id: str | None = None) -> dict[str, Any]:
    """A component in the page but not shown: a script or an event writes into it."""
    return {"elem_id": elem_id, "elem_classes": ["cinecap-hidden"]}


def queue_panel(c: dict[str, Any], orders: list[tuple[str, str]], default: str) -> None:
    """The queue with its order, opening a clip, where it is in the queue, the edit and verdict
    counts, the banner and the status line."""
    c["ref"] = gr.State(None)  # the draft's id (the draft lives in the store)
    c["selected"] = gr.State(None)  # {"id": statement id, "form": what the form was filled with}
    c["deciding"] = gr.State(None)  # {"id", "version"} of the gold pair a reviewer reads
    c["order_kept"] = gr.BrowserState(default, storage_key=ORDER_KEY)
    with gr.Row(equal_height=False):
        c["queue"] = gr.Dataframe(headers=QUEUE_HEADERS, label="Queue (click a clip to open it)",
                                  interactive=False, elem_id="review-queue", max_height=200,
                                  scale=4)
        # Radio buttons: Tab reaches the group, the arrow keys choose (no pointer needed).
        c["order"] = gr.Radio(orders, value=default, label="Queue order", elem_id="review-order",
                              scale=1, min_width=200)
    with gr.Row(equal_height=False):
        c["refresh"] = gr.Button("Refresh queue", elem_id="review-refresh", size="sm", scale=0)
        c["clip_id"] = gr.Number(label="Clip", precision=0, elem_id="review-clip-id", scale=0,
                                 min_width=120)
        c["open"] = gr.Button("Open clip", variant="primary", elem_id="review-open", scale=0)
        with gr.Column():
            c["progress"] = gr.Markdown(elem_id="review-progress")
            c["edits"] = gr.Markdown(elem_id="review-edits")
            c["verdicts"] = gr.Markdown(elem_id="review-verdicts")
    c["banner"] = gr.HTML(elem_id="review-banner")
    c["status"] = st.status_line("review-status")
    c["shown"] = gr.Textbox(show_label=False, container=False, **_hidden("review-shown"))


def reviewer_panel(c: dict[str, Any]) -> None:
    """Reviewers decide here, at the top: the pair they read is the statements they judge (the
    annotator's editor below is for fixing them)."""
    with gr.Column(visible=False, elem_id="review-reviewer") as reviewer:
        c["reviewer"] = reviewer
        with gr.Row():
            with gr.Column(scale=3):
                c["gold_view"] = gr.HTML(elem_id="gold-view")
            with gr.Column(scale=2, min_width=300):
                gr.Markdown("**Decide on a gold pair**: the one shown is the one your decision "
                            "applies to (click another in the list to read it). The statements "
                            "the pixels contradict come first.")
                c["golds"] = gr.Dataframe(headers=GOLD_HEADERS, interactive=False, wrap=True,
                                          elem_id="gold-pairs", max_height=200,
                                          label="Gold pairs of this clip")
                c["against"] = gr.Radio([("the version I sent back", "sent back"),
                                         ("the model caption", "model")], value="sent back",
                                        label="Show changes against", elem_id="gold-against")
                c["gold_note"] = gr.Textbox(label="Note to the annotator (what to fix)",
                                            elem_id="gold-note", max_length=2000)
                with gr.Row():
                    c["approve"] = gr.Button("Approve gold pair", variant="primary",
                                             elem_id="gold-approve")
                    c["send_back"] = gr.Button("Send back to the annotator",
                                               elem_id="gold-send-back")


def editor_panel(c: dict[str, Any], goto: str, drag: str, undo: str, redo: str) -> None:
    """The clip beside its statements, the edit form and its buttons."""
    with gr.Row():
        with gr.Column(scale=2, min_width=320):
            c["video"] = gr.Video(label="Clip (click a statement to play its interval)",
                                  interactive=False, elem_id="review-video", autoplay=False)
            c["timeline"] = gr.HTML(elem_id="review-timeline", label="Timeline")
            gr.Markdown("Timeline: click a bar to play it, drag it to move its interval, pull an "
                        "edge for its start or end (Undo reverts).")
            c["source"] = gr.Textbox(label="Statements from", interactive=False,
                                     elem_id="review-source")
        with gr.Column(scale=3):
            c["table"] = gr.Dataframe(headers=DRAFT_HEADERS, datatype=DRAFT_TYPES,
                                      interactive=False, wrap=True,
                                      label="Statements (times in s; pixels: what the clip's "
                                            "measurements say of each; point at a cell for its "
                                            "full text, click a row to edit it, or press 1–9 / "
                                            "↑ ↓)",
                                      column_widths=DRAFT_WIDTHS, elem_id="review-table",
                                      max_height=640)
            c["editing"] = gr.Markdown(elem_id="review-editing")
            _form(c)
            _buttons(c, undo, redo)
            # The number keys' way in (hidden): the key goes in the box, the button selects.
            c["goto"] = gr.Textbox(show_label=False, container=False, **_hidden(goto))
            c["goto_btn"] = gr.Button("go", **_hidden(f"{goto}-button"))
            c["seek"] = gr.Textbox(visible=False)  # "t0 t1" for the player hook
            c["drag"] = gr.Textbox(show_label=False, container=False, **_hidden(drag))
            c["drag_btn"] = gr.Button("drag", **_hidden(f"{drag}-button"))


def _form(c: dict[str, Any]) -> None:
    with gr.Row():
        # The dropdowns get the room: "Camera Movement" ran under the arrow at 1366 px when the
        # four fields shared the row equally, and a time needs only a few digits.
        c["aspect"] = gr.Dropdown(list(tx.ASPECTS), value=tx.CAMERA_MOVEMENT, label="Aspect",
                                  elem_id="review-aspect", scale=2, min_width=190)
        # Custom values pass the widget; the use case finds them among the values and their
        # synonyms ("push in" → dolly in) or names the known ones.
        c["value"] = gr.Dropdown(review.value_choices(tx.CAMERA_MOVEMENT), value=None,
                                 label="Value (type a word)", allow_custom_value=True,
                                 elem_id="review-value", scale=2, min_width=190)
        c["t_start"] = gr.Number(label="Start (s)", elem_id="review-start", scale=1, min_width=90)
        c["t_end"] = gr.Number(label="End (s)", elem_id="review-end", scale=1, min_width=90)
    with gr.Row():
        c["text"] = gr.Textbox(label="Statement (empty: written from the value)",
                               elem_id="review-text", max_length=2000)
        c["evidence"] = gr.Textbox(label="Evidence", elem_id="review-evidence", max_length=2000)
    c["note"] = gr.Textbox(label="Note to the reviewer (optional)", elem_id="review-note",
                           max_length=2000)


def _buttons(c: dict[str, Any], undo: str, redo: str) -> None:
    with gr.Row():
        for name, label in (("accept", "Accept [a]"), ("fix", "Fix [f]"),
                            ("reject", "Reject [r]"), ("add", "Add [n]"),
                            ("delete", "Delete [d]"), ("clear", "New statement [c]")):
            c[name] = gr.Button(label, elem_id=f"review-{name}", size="sm")
    with gr.Row():
        c["prev"] = gr.Button("↑ Previous", elem_id="review-prev", size="sm")
        c["next"] = gr.Button("↓ Next", elem_id="review-next", size="sm")
        c["undo"] = gr.Button("Undo [Ctrl+Z]", elem_id=undo, size="sm")
        c["redo"] = gr.Button("Redo [Ctrl+Shift+Z]", elem_id=redo, size="sm")
        c["save"] = gr.Button("Save gold pair [s]", variant="primary", elem_id="review-save",
                              size="sm")


def lower_panels(c: dict[str, Any]) -> None:
    """Conflicts side by side, the evidence overlays, the approved clips, the history, the
    agreement; the API's hidden way to read a gold pair."""
    with gr.Column(visible=False, elem_id="review-conflict-panel") as panel:
        c["conflict_panel"] = panel
        c["compare"] = gr.HTML(elem_id="review-compare")
        c["rebase"] = gr.Button("Re-apply my edits on the saved version", visible=False,
                                elem_id="review-rebase", variant="primary")
        c["conflicts"] = gr.HTML(elem_id="review-conflicts")
        with gr.Row(visible=False) as decide_row:
            c["decide_row"] = decide_row
            c["which"] = gr.Number(label="Conflict #", precision=0, value=1,
                                   elem_id="conflict-number", scale=0, min_width=100)
            for name, label, elem in (("theirs", "Keep theirs", "conflict-theirs"),
                                      ("yours", "Keep yours", "conflict-yours"),
                                      ("all_theirs", "Keep theirs for all", "conflict-all-theirs"),
                                      ("all_yours", "Keep yours for all", "conflict-all-yours")):
                c[name] = gr.Button(label, elem_id=elem)
    with gr.Accordion("Evidence overlays (the anchors' analysis of this clip)", open=False):
        c["draw"] = gr.Button("Draw the evidence overlays (a few seconds)",
                              elem_id="review-draw-overlays", size="sm")
        c["overlays"] = gr.Gallery(columns=4, height="auto", object_fit="contain",
                                   elem_id="review-overlays", label="Evidence overlays")
    with gr.Accordion("Approved clips (they leave the queue; click one to open it)", open=False):
        c["approved"] = gr.Dataframe(headers=APPROVED_HEADERS, interactive=False,
                                     elem_id="review-approved", max_height=240)
    with gr.Accordion("History of this clip", open=True):
        c["history"] = gr.Dataframe(headers=HISTORY_HEADERS, interactive=False, wrap=True,
                                    elem_id="review-history")
    with gr.Accordion("Annotator agreement per aspect", open=False):
        c["agreement"] = gr.Dataframe(headers=AGREEMENT_HEADERS, interactive=False,
                                      elem_id="review-agreement")
    # The API's way to pick a pair to read (the page clicks it in the list).
    c["gold_pick"] = gr.Number(precision=0, container=False, **_hidden())
    c["gold_pick_btn"] = gr.Button("read", **_hidden())
