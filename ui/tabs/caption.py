"""Caption tab: upload a clip, pick a captioner, see the caption, statements, timeline, evidence
and judge scores; download the result as JSON."""
from __future__ import annotations

import gradio as gr

from ui.context import AppContext
from ui.settings import VIDEO_EXTENSIONS
from ui.tabs.base import Tab, shown_errors
from ui.tabs.tables import (SCORE_HEADERS, STATEMENT_HEADERS, score_rows, score_summary,
                            statement_rows)
from ui.tabs.timeline import timeline_png
from ui.usecases import caption, preview


class CaptionTab(Tab):
    id = "caption"
    title = "Caption"
    min_role = "viewer"
    css = "#caption-text textarea { white-space: pre-wrap; }"

    def on_show(self, ctx: AppContext, user) -> list:
        # The captioners that run now: vlm appears once a model version is promoted.
        choices = caption.captioner_choices(ctx.store, ctx.backends, ctx.settings)
        return [gr.Dropdown(choices=choices.names, info=_missing_info(choices.missing) or "")]

    def build(self, ctx: AppContext) -> list:
        choices = caption.captioner_choices(ctx.store, ctx.backends, ctx.settings)
        names, missing, default = choices.names, choices.missing, choices.default
        with gr.Row():
            with gr.Column(scale=1):
                upload = gr.File(label="Clip (mp4, mov, mkv, webm, avi)", type="filepath",
                                 file_types=list(VIDEO_EXTENSIONS), elem_id="upload")
                captioner = gr.Dropdown(names, value=default, label="Captioner",
                                        elem_id="captioner", info=_missing_info(missing))
                gold = gr.Textbox(label="Gold caption (optional: scores the result)", lines=3,
                                  elem_id="gold-caption")
                run = gr.Button("Caption", variant="primary", elem_id="caption-button")
                status = gr.Textbox(label="Status", interactive=False, elem_id="caption-status")
            with gr.Column(scale=2):
                video = gr.Video(label="Clip", interactive=False, elem_id="caption-video")
                caption_text = gr.Textbox(label="Caption", lines=4, interactive=False,
                                          elem_id="caption-text")
        statements = gr.Dataframe(headers=STATEMENT_HEADERS, label="Statements",
                                  interactive=False, wrap=True, elem_id="statements-table")
        timeline = gr.Image(label="Timeline (intervals per aspect)", type="filepath",
                            interactive=False, elem_id="timeline")
        overlays = gr.Gallery(label="Evidence overlays", columns=4, height="auto",
                              object_fit="contain", elem_id="overlays")
        with gr.Row():
            scores = gr.Dataframe(headers=SCORE_HEADERS, label="Judge counts per aspect",
                                  interactive=False, elem_id="scores")
            with gr.Column():
                score_text = gr.Textbox(label="Scores", interactive=False,
                                        elem_id="score-summary")
                download = gr.File(label="Result (JSON)", interactive=False, elem_id="download")

        @shown_errors
        def on_caption(path, name, gold_text, request: gr.Request,
                       progress=gr.Progress(track_tqdm=True)):
            out = caption.caption_clip(ctx.store, ctx.backends, ctx.settings, ctx.user(request),
                                       path, name or default, gold_text or "",
                                       progress=lambda f, msg: progress(f, desc=msg),
                                       limiter=ctx.captions, requester=ctx.requester(request))
            sts = out.result["statements"]
            note = "; ".join(filter(None, [
                f"{len(sts)} statements in {out.result['seconds']:.1f} s",
                f"clip #{out.clip_id}" if out.clip_id else "", *out.notes,
                *out.result.get("warnings", [])]))
            # Everything the page gets is in a page folder for this requester (ui.serving).
            owner = ctx.owner(request)
            folder = preview.page_folder(ctx.settings, "viewer", owner)
            video_file = preview.video_for_page(ctx.settings, out.video_path,
                                                out.info.get("codec"),
                                                stored=out.clip_id is not None, owner=owner)
            return (video_file, out.result["caption"], statement_rows(sts),
                    timeline_png(sts, out.info.get("duration"), folder / "timeline.png"),
                    caption.overlays(out, directory=folder), score_rows(out.judge),
                    score_summary(out.judge), caption.export_json(out, folder), note)

        run.click(on_caption, [upload, captioner, gold],
                  [video, caption_text, statements, timeline, overlays, scores, score_text,
                   download, status], api_name="caption",
                  concurrency_limit=ctx.settings.caption_concurrency)
        return [captioner]


def _missing_info(missing: dict[str, str]) -> str | None:
    return "; ".join(f"{n}: {why}" for n, why in missing.items()) or None
