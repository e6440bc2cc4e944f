"""Caption tab: what the app does and example clips one click away; upload a clip, pick a
captioner, see the caption, the statements, the timeline and the evidence, linked to the player
both ways, and the scores in words; download the result as JSON.

The results are HTML we render (``ui/tabs/results.py``, ``ui/tabs/timeline.py``): a statement row
or a timeline bar plays its interval (``ui/tabs/player.py``, in the page, no round trip), and the
evidence of the shot at the player's current time is shown beside it. Every handler reports in the
tab's status line (``ui/tabs/status.py``): a bad upload's reason stays there, without a server
path, until the next action.
"""
from __future__ import annotations

import logging
from typing import Any

import gradio as gr

from cinecap import pretrained
from cinecap.captioners.limits import captioner_limits
from cinecap.errors import CinecapError
from ui.context import AppContext
from ui.settings import VIDEO_EXTENSIONS
from ui.tabs import player, status as st
from ui.tabs.base import Tab
from ui.tabs.markup import render, script, static_text
from ui.tabs.tables import escaped
from ui.tabs.results import (RESULTS_CSS, examples_html, intro_html, moment_html, scores_html,
                             shots_html, statements_html)
from ui.tabs.timeline import TIMELINE_CSS, timeline_html
from ui.usecases import caption, examples, preview

log = logging.getLogger(__name__)

#: The page's player, which statements, bars and evidence follow.
PLAYER = "#caption-video"

#: Captioners as a visitor reads them in the menu (the value sent is still the name).
CAPTIONER_WORDS = {
    "anchors": "anchors (evidence from the pixels)",
    "vlm": "vlm (a video language model)",
    "openai": "openai (a model on another server)",
}
#: What a captioner that is not set up here is, in plain words (the reason is in the log and in
#: docs/models.md, not on the page).
MISSING_WORDS = {"vlm": "a video language model", "openai": "a model on a separate server"}

#: Example cards, "Review this clip" and the file picker's accepted types
#: (``ui/static/caption.js``).
HEAD = script("caption.js", videoAccept=",".join(VIDEO_EXTENSIONS) + ",video/*")

#: On a phone the result is below the inputs: after an example, bring the player (or, after an
#: error, the status line) into view.
SHOW_RESULT_JS = static_text("caption_show_result.js")

CSS = static_text("caption.css")


def captioner_choices(ctx: AppContext) -> tuple[list[tuple[str, str]], str | None, str | None]:
    """(menu choices as (words, name), the default, a plain line on what is not available here).
    Why a captioner is missing is for the operator (logged; docs/models.md), not the visitor."""
    offered = caption.captioner_choices(ctx.store, ctx.backends, ctx.settings)
    missing = []
    for n, why in offered.missing.items():
        log.info("captioner %s not offered: %s", n, why)
        missing.append(f"{n} ({MISSING_WORDS.get(n, 'not set up')})")
    info = ("Not available here: " + ", ".join(missing) + ".") if missing else None
    # The detector files the anchors use: one line where any is missing (info is HTML).
    files = pretrained.status_line() if "anchors" in offered.names else None
    if files:
        info = " ".join(filter(None, [info, escaped(files)]))
    return [(CAPTIONER_WORDS.get(n, n), n) for n in offered.names], offered.default, info


class CaptionTab(Tab):
    id = "caption"
    title = "Caption"
    min_role = "viewer"
    head = HEAD + player.HEAD
    css = CSS + RESULTS_CSS + TIMELINE_CSS

    def on_show(self, ctx: AppContext, user) -> list:
        # The captioners that run now: vlm appears once a model version is promoted.
        choices, default, info = captioner_choices(ctx)
        # The default follows a promotion (vlm serving the promoted version).
        return [gr.Dropdown(choices=choices, value=default, info=info or "")]

    def build(self, ctx: AppContext) -> list:
        choices, default, missing = captioner_choices(ctx)
        _first_visit(ctx)
        c = _components(choices, default, missing)
        shown = _shown(ctx, c)
        _wire_caption(ctx, c, shown, default)
        _wire_example(ctx, c, shown, default)
        _wire_upload(ctx, c)
        return [c["captioner"]]


#: The components a result fills, in order (the caption and example events' outputs).
RESULTS = ("video", "caption_text", "statements", "timeline", "shots", "scores", "moment",
           "download", "download_box")


def _first_visit(ctx: AppContext) -> None:
    """What the app does, and the example cards (or why there are none)."""
    offered = examples.offered(ctx.settings)
    gr.HTML(intro_html(), elem_id="caption-intro")
    if offered:
        gr.HTML(examples_html([(ex, examples.poster(ctx.settings, ex)) for ex in offered]),
                elem_id="caption-examples")
    elif ctx.settings.examples:
        gr.HTML(render("caption_no_examples.html", why=examples.NO_EXAMPLES),
                elem_id="caption-examples")


def _components(choices: list, default: str | None, missing: str | None) -> dict[str, Any]:
    """The tab's inputs and result views, by name."""
    c: dict[str, Any] = {}
    c["example_key"] = gr.Textbox(elem_id="example-key", elem_classes=["cinecap-hidden"],
                                  show_label=False, container=False)
    c["example_run"] = gr.Button("example", elem_id="example-run",
                                 elem_classes=["cinecap-hidden"])
    c["shown_example"] = gr.State(None)  # the example on show (Caption scores it again)
    with gr.Row(equal_height=False):
        with gr.Column(scale=1, min_width=280):
            c["upload"] = gr.File(label="Your clip (mp4, mov, mkv, webm, avi)", type="filepath",
                                  elem_id="upload", height=170)
            c["captioner"] = gr.Dropdown(choices, value=default, label="Captioner",
                                         elem_id="captioner", info=missing)
            c["gold"] = gr.Textbox(label="Gold caption (optional: scores the result)", lines=3,
                                   max_lines=8, elem_id="gold-caption")
            c["run"] = gr.Button("Caption", variant="primary", elem_id="caption-button")
            c["status"] = st.status_line("caption-status")
        with gr.Column(scale=1, min_width=300):
            c["video"] = gr.Video(label="Clip (click a statement to play it)",
                                  interactive=False, elem_id="caption-video", autoplay=False)
            c["caption_text"] = gr.Textbox(label="Caption", lines=4, interactive=False,
                                           elem_id="caption-text")
        with gr.Column(scale=1, min_width=280):
            c["moment"] = gr.HTML(moment_html([], [], None, PLAYER), elem_id="caption-moment")
    gr.Markdown("#### Statements — click one to play its interval")
    c["statements"] = gr.HTML(statements_html([], PLAYER), elem_id="statements-table")
    gr.Markdown("#### Timeline — one row per aspect; click a bar to play it")
    c["timeline"] = gr.HTML(timeline_html([], None, PLAYER), elem_id="timeline")
    gr.Markdown("#### Scores against the gold caption")
    c["scores"] = gr.HTML(scores_html(None, None, None, caption.COVERAGE_HELP),
                          elem_id="scores")
    # Shown with the first result (an empty file box is a large blank on the page); a layout
    # block, so the API's outputs do not change.
    with gr.Column(visible=False) as c["download_box"]:
        c["download"] = gr.File(label="Result (JSON: caption, statements, judge, reward, "
                                "statement view)", interactive=False, elem_id="download")
    c["shots"] = gr.HTML("", elem_id="caption-shots")
    return c


def _shown(ctx: AppContext, c: dict[str, Any]):
    """The result views' values for a caption outcome."""

    def shown(out: caption.CaptionOutcome, name: str, request: gr.Request) -> dict:
        # Everything the page gets is in a page folder (ui.serving): the requester's own,
        # or a shared one for the public example clips.
        owner = ctx.owner(request)
        folder = preview.page_folder(ctx.settings, "viewer", owner)
        video_file = preview.video_for_page(ctx.settings, out.video_path,
                                            out.info.get("codec"),
                                            stored=out.clip_id is not None, owner=owner,
                                            public=out.example is not None)
        images = caption.overlays(out, directory=folder, settings=ctx.settings)
        sts, spans = out.result["statements"], out.shots()
        duration = out.info.get("duration")
        return {c["video"]: video_file, c["caption_text"]: out.result["caption"],
                c["statements"]: statements_html(sts, PLAYER, out.clip_id, out.failure,
                                                 out.verdicts),
                c["timeline"]: timeline_html(sts, duration, PLAYER,
                                             out.result.get("meta", {}).get("uncertain") or ()),
                c["shots"]: shots_html(images, spans, PLAYER),
                c["scores"]: scores_html(out.judge, caption.statement_views(out.judge),
                                         caption.rewards(out.judge), caption.COVERAGE_HELP),
                c["moment"]: moment_html(images, spans, duration, PLAYER, name),
                c["download"]: caption.export_json(out, folder),
                c["download_box"]: gr.Column(visible=True)}
    return shown


def _note(out: caption.CaptionOutcome) -> str:
    n = len(out.result["statements"])
    return "; ".join(filter(None, [
        f"{n} statement{'' if n == 1 else 's'}" + ("" if out.example else
                                                   f" in {out.result['seconds']:.1f} s"),
        f"clip #{out.clip_id}" if out.clip_id else "", *out.notes,
        *out.result.get("warnings", []),
        captioner_limits(out.result.get("captioner"), short=True) or ""]))


def _wire_caption(ctx: AppContext, c: dict[str, Any], shown, default: str | None) -> None:
    status, cache = c["status"], ctx.examples

    # Errors stay in the status line until the next action; the outputs keep what they showed.
    @st.reported(status)
    def on_caption(path, name, gold_text, example, request: gr.Request,
                   progress=gr.Progress(track_tqdm=True)):
        name = name or default
        report = (lambda f, msg: progress(f, desc=msg))
        if not path and example:  # the example on show, scored against the typed caption
            out = examples.caption_example(ctx.backends, ctx.settings, ctx.user(request),
                                           example, name, gold_text or "", cache, report,
                                           limiter=ctx.captions,
                                           address=ctx.address(request))
        else:
            out = caption.caption_clip(ctx.store, ctx.backends, ctx.settings,
                                       ctx.user(request), path, name, gold_text or "",
                                       progress=report, limiter=ctx.captions,
                                       address=ctx.address(request))
        # A run that returned but failed (cut off before any statement) reads red.
        line = (st.error(f"{out.failure}; {_note(out)}") if out.failure
                else st.ok(_note(out)))
        return {**shown(out, name, request), status: line}

    c["run"].click(on_caption, [c["upload"], c["captioner"], c["gold"], c["shown_example"]],
                   [*(c[k] for k in RESULTS), status], api_name="caption",
                   concurrency_limit=ctx.settings.caption_concurrency)


def _wire_example(ctx: AppContext, c: dict[str, Any], shown, default: str | None) -> None:
    status = c["status"]

    @st.reported(status)
    def on_example(key, name, request: gr.Request, progress=gr.Progress()):
        name = name or default
        out = examples.caption_example(ctx.backends, ctx.settings, ctx.user(request),
                                       key, name, None, ctx.examples,
                                       lambda f, msg: progress(f, desc=msg),
                                       limiter=ctx.captions, address=ctx.address(request))
        return {**shown(out, name, request), c["gold"]: out.gold_caption, c["upload"]: None,
                c["shown_example"]: out.example,
                status: st.ok(_note(out) + "; scored against the example's reference "
                              "caption (edit it and press Caption to score again)")}

    c["example_run"].click(on_example, [c["example_key"], c["captioner"]],
                           [*(c[k] for k in RESULTS), c["gold"], c["upload"],
                            c["shown_example"], status],
                           api_name="caption_example", concurrency_limit=4
                           ).then(None, None, None, js=SHOW_RESULT_JS)


def _wire_upload(ctx: AppContext, c: dict[str, Any]) -> None:
    status = c["status"]
    cleared = {c["video"]: None, c["caption_text"]: "",
               c["statements"]: statements_html([], PLAYER),
               c["timeline"]: timeline_html([], None, PLAYER), c["shots"]: "",
               c["scores"]: scores_html(None, None, None, caption.COVERAGE_HELP),
               c["moment"]: moment_html([], [], None, PLAYER),
               c["download_box"]: gr.Column(visible=False)}

    @st.reported(status)
    def on_upload(path, gold, shown, request: gr.Request):
        # The example's reference caption would score this clip against the example.
        gold, kept = examples.gold_for_new_clip(shown, gold)
        try:
            line = caption.describe_upload(ctx.user(request), path, ctx.settings)
        except CinecapError as e:
            # The result on screen is another clip's: cleared, so nothing reads as this
            # file's (the status line says why it was refused).
            message = st.public_message(e.message)
            gr.Warning(escaped(message))
            return {**cleared, c["gold"]: gold, c["shown_example"]: None,
                    status: st.error(message + " (the previous result was cleared)")}
        note = (" (the gold caption box still holds what you wrote for the example)"
                if kept else "")
        return {c["gold"]: gold, c["shown_example"]: None,
                status: st.ok(line + " — press Caption" + note)}

    # Not the download: the event hides its box, and an output hidden by its own event leaves
    # Gradio's progress timer running in the page (ui/static/app_frames.js); hidden, the old
    # file is out of reach, and the next result replaces it.
    c["upload"].upload(on_upload, [c["upload"], c["gold"], c["shown_example"]],
                       [*(c[k] for k in RESULTS if k != "download"), c["gold"],
                        c["shown_example"], status],
                       api_visibility="private")
