"""Caption tab: upload a clip, pick a captioner, see the caption, statements, timeline, evidence
and judge scores; download the result as JSON."""
from __future__ import annotations

from typing import Any

import gradio as gr

from ui import usecases
from ui.context import AppContext, shown_errors
from ui.settings import VIDEO_EXTENSIONS
from ui.timeline import timeline_png

STATEMENT_HEADERS = ["aspect", "value", "start (s)", "end (s)", "statement", "evidence"]
SCORE_HEADERS = ["aspect", "gold", "predicted", "matched"]


def statement_rows(statements: list[dict[str, Any]]) -> list[list[Any]]:
    return [[st["aspect"], st["value"], _t(st.get("t_start")), _t(st.get("t_end")),
             st.get("text") or "", st.get("evidence") or ""] for st in statements]


def _t(v: float | None) -> str:
    return "" if v is None else f"{v:.2f}"


def score_rows(judge: dict[str, Any] | None) -> list[list[Any]]:
    if not judge:
        return []
    rows = [[a, d["gt_count"], d["pred_count"], d["matched_count"]]
            for a, d in judge["by_dim"].items()]
    rows.append(["total", judge["total_gt_count"], judge["total_pred_count"],
                 judge["total_matched_count"]])
    return rows


def score_summary(judge: dict[str, Any] | None) -> str:
    if not judge:
        return "no gold caption: type one above (or save a review) to score this caption"
    if judge.get("failed"):
        return f"the judge failed: {judge.get('error')}"
    return (f"comprehensiveness {judge['comprehensiveness']:.2f} · accuracy "
            f"{judge['accuracy']:.2f} · F1 {judge['f1']:.2f} ({judge['judge']} judge)")


def overlay_images(outcome: usecases.CaptionOutcome) -> list[tuple[str, str]]:
    """Evidence overlays from the anchors captioner, where it made them (label, image path)."""
    return usecases.overlays(outcome)


def build(ctx: AppContext) -> None:
    names = ctx.backends.available_captioners()
    missing = {n: ctx.backends.check_captioner(n).reason for n in ctx.backends.captioner_names()
               if n not in names}
    default = ctx.settings.default_captioner if ctx.settings.default_captioner in names else (
        names[0] if names else None)
    with gr.Row():
        with gr.Column(scale=1):
            upload = gr.File(label="Clip (mp4, mov, mkv, webm, avi)", type="filepath",
                             file_types=list(VIDEO_EXTENSIONS), elem_id="upload")
            captioner = gr.Dropdown(names, value=default, label="Captioner", elem_id="captioner",
                                    info="; ".join(f"{n}: {why}" for n, why in missing.items())
                                    or None)
            gold = gr.Textbox(label="Gold caption (optional: scores the result)", lines=3,
                              elem_id="gold-caption")
            run = gr.Button("Caption", variant="primary", elem_id="caption-button")
            status = gr.Textbox(label="Status", interactive=False, elem_id="caption-status")
        with gr.Column(scale=2):
            video = gr.Video(label="Clip", interactive=False, elem_id="caption-video")
            caption = gr.Textbox(label="Caption", lines=4, interactive=False,
                                 elem_id="caption-text")
    statements = gr.Dataframe(headers=STATEMENT_HEADERS, label="Statements", interactive=False,
                              wrap=True, elem_id="statements-table")
    timeline = gr.Image(label="Timeline (intervals per aspect)", type="filepath",
                        interactive=False, elem_id="timeline")
    overlays = gr.Gallery(label="Evidence overlays", columns=4, height="auto",
                          object_fit="contain", elem_id="overlays")
    with gr.Row():
        scores = gr.Dataframe(headers=SCORE_HEADERS, label="Judge counts per aspect",
                              interactive=False, elem_id="scores")
        with gr.Column():
            score_text = gr.Textbox(label="Scores", interactive=False, elem_id="score-summary")
            download = gr.File(label="Result (JSON)", interactive=False, elem_id="download")

    @shown_errors
    def on_caption(path, name, gold_text, request: gr.Request,
                   progress=gr.Progress(track_tqdm=True)):
        user = ctx.require(request, "viewer", "captioning a clip")
        out = usecases.caption_clip(ctx.store, ctx.backends, ctx.settings, user, path,
                                    name or default, gold_text or "",
                                    progress=lambda f, msg: progress(f, desc=msg))
        sts = out.result["statements"]
        note = "; ".join(filter(None, [f"{len(sts)} statements in {out.result['seconds']:.1f} s",
                                       f"clip #{out.clip_id}" if out.clip_id else "",
                                       *out.notes, *out.result.get("warnings", [])]))
        video_file = usecases.video_for_page(ctx.settings, out.video_path, out.info.get("codec"),
                                             stored=out.clip_id is not None)
        return (video_file, out.result["caption"], statement_rows(sts),
                timeline_png(sts, out.info.get("duration")), overlay_images(out),
                score_rows(out.judge), score_summary(out.judge), usecases.export_json(out),
                note)

    run.click(on_caption, [upload, captioner, gold],
              [video, caption, statements, timeline, overlays, scores, score_text, download,
               status], api_name="caption", concurrency_limit=ctx.settings.caption_concurrency)
