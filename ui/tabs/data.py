"""Data tab (admins): gold pairs out of the store as a dataset (a zip of a CineCap-Bench folder, a
training JSONL folder or a Hugging Face ``datasets`` folder) and a dataset in — the same use cases
as ``python -m ui export`` / ``import`` (``ui.usecases.datasets``)."""
from __future__ import annotations

from typing import Any

import gradio as gr

from ui.context import AppContext
from ui.tabs import status as st
from ui.tabs.base import Tab
from ui.usecases import datasets, preview

FORMATS = [("CineCap-Bench: bench.json and the clips", "bench"),
           ("training: gold_pairs.jsonl (cinecap-gold-pairs/1) and the clips", "training"),
           ("Hugging Face datasets folder: Parquet, the clips, a dataset card", "hf")]


class DataTab(Tab):
    id = "data"
    title = "Data"
    min_role = "admin"

    def build(self, ctx: AppContext) -> list:
        gr.Markdown("Each clip's newest **approved** gold pair goes out (or its newest pair not "
                    "sent back, with the box ticked), as a zip of a folder holding the data file "
                    "and the clips. A zip of such a folder comes back in: importing the same "
                    "data twice adds nothing, and every skipped item is listed with the reason.")
        with gr.Row():
            with gr.Column():
                gr.Markdown("### Export")
                fmt = gr.Radio(FORMATS, value="hf", label="Format", elem_id="data-format")
                submitted = gr.Checkbox(label="Also pairs not reviewed yet", value=False,
                                        elem_id="data-submitted")
                export = gr.Button("Export", variant="primary", elem_id="data-export")
                archive = gr.File(label="Dataset (zip)", interactive=False,
                                  elem_id="data-archive")
            with gr.Column():
                gr.Markdown("### Import")
                upload = gr.File(label="A zip of a dataset folder", type="filepath",
                                 file_types=[".zip"], elem_id="data-upload")
                accept = gr.Checkbox(label="Approve the imported pairs (a published bench's "
                                           "captions are gold)", value=True,
                                     elem_id="data-accept")
                run = gr.Button("Import", variant="primary", elem_id="data-import")
        report = gr.Textbox(label="Report", lines=6, max_lines=30, interactive=False,
                            elem_id="data-report")
        status = st.status_line("data-status")

        @st.reported(status)
        def on_export(fmt_, submitted_, request: gr.Request):
            folder = preview.page_folder(ctx.settings, "admin", ctx.owner(request))
            out, path = datasets.export_archive(ctx.store, ctx.user(request), fmt_, folder,
                                                include_submitted=bool(submitted_))
            return {archive: str(path), report: out.summary(), status: st.ok(
                f"exported {out.pairs} gold pairs as {fmt_}")}

        export.click(on_export, [fmt, submitted], [archive, report, status],
                     api_name="data_export")

        @st.reported(status)
        def on_import(path, accept_, request: gr.Request,
                      progress=gr.Progress(track_tqdm=False)):
            out = datasets.import_upload(ctx.store, ctx.user(request), path, ctx.settings,
                                         accept=bool(accept_),
                                         progress=lambda f, m: progress(f, desc=m))
            return {report: out.summary(), upload: None, status: st.ok(
                f"imported {len(out.added)} gold pairs, {len(out.skipped)} skipped")}

        run.click(on_import, [upload, accept], [report, upload, status], api_name="data_import")
        return []

    def on_show(self, ctx: AppContext, user: Any) -> list:
        return []
