"""Leaderboard tab (everyone): benchmark entries with per-aspect and overall scores; filter by
bench, judge and model family, search, sort; a per-aspect chart of the entries you pick; an
entry's per-clip results, its captions beside the gold ones; add a results file (annotators and
up); the view as CSV. Ranks compare rows of one group only (same bench, clips, aspects and judge
protocol); the paper's figures are marked reported (``ui.usecases.leaderboard``)."""
from __future__ import annotations

from typing import Any

import gradio as gr

from cinecap import taxonomy as tx
from ui.context import AppContext
from ui.tabs import status as st
from ui.tabs.base import Tab
from ui.tabs.markup import static_text
from ui.tabs.charts import aspect_plot
from ui.tabs.tables import (CLIP_RESULT_HEADERS, LEADERBOARD_HEADERS, LEADERBOARD_WIDTHS,
                            clip_result_rows, escaped, leaderboard_notice, leaderboard_rows)
from ui.usecases import bench, leaderboard, preview
from ui.usecases.accounts import has_role

ALL = "all"
ORDERS = ("high first", "low first")
CONVENTIONS = [(label, key) for key, label in leaderboard.CONVENTIONS.items()]
#: What a view (on show, a filter change, an upload) updates, in order.
VIEW_OUT = ("bench", "judge", "family", "table", "notice", "pick", "chart")
#: What on_show fills.
SHOW_OUT = VIEW_OUT + ("upload_box",)
#: How many entries the chart shows before you pick.
CHART_DEFAULT = 4


def _filters(bench_name, judge, family, search, sort, order, convention, reported
             ) -> leaderboard.Filters:
    return leaderboard.Filters(bench="" if bench_name in (None, ALL) else bench_name,
                               judge="" if judge in (None, ALL) else judge,
                               family="" if family in (None, ALL) else family,
                               search=search or "", sort=sort or "rank",
                               descending=order != ORDERS[1], convention=convention or "all",
                               reported=bool(reported))


def _chart(entries: list[leaderboard.Entry], convention: str):
    title = ("Per aspect: mean of s_cmp and s_acc, "
             + leaderboard.CONVENTIONS.get(convention, convention))
    if not leaderboard.comparable(entries):
        title += "\nentries of different groups (another bench, judge or protocol): not comparable"
    return aspect_plot(leaderboard.chart_series(entries, convention), title)


def view_values(ctx: AppContext, user: Any, f: leaderboard.Filters,
                picked: list[str] | None = None) -> dict[str, Any]:
    """The board for ``f``: filter choices, table, notice, the chart's picker and chart."""
    b = leaderboard.board(ctx.store, user, f)
    labels = [e.label for e in b.entries]
    picked = [p for p in (picked or []) if p in labels] or labels[:CHART_DEFAULT]
    chosen = [e for e in b.entries if e.label in picked]
    return {
        "bench": gr.Dropdown(choices=[ALL, *b.benches], value=f.bench or ALL),
        "judge": gr.Dropdown(choices=[ALL, *b.judges], value=f.judge or ALL),
        "family": gr.Dropdown(choices=[ALL, *b.families], value=f.family or ALL),
        "table": gr.Dataframe(value=leaderboard_rows(b.entries, f.convention),
                              headers=LEADERBOARD_HEADERS,
                              label=f"Entries — per aspect: mean of s_cmp and s_acc, "
                                    f"{leaderboard.CONVENTIONS[f.convention]}; F1 as each "
                                    "run computed it (reported rows: as the paper reports it)"),
        "notice": leaderboard_notice(b, leaderboard.PAPER),
        # multiselect again: an update made of a bare Dropdown would check the list as one value.
        "pick": gr.Dropdown(choices=labels, value=picked, multiselect=True),
        "chart": _chart(chosen, f.convention),
    }


class LeaderboardTab(Tab):
    id = "leaderboard"
    title = "Leaderboard"
    min_role = "viewer"
    css = static_text("leaderboard.css")

    def on_show(self, ctx: AppContext, user: Any) -> list:
        values = view_values(ctx, user, leaderboard.Filters())
        values["upload_box"] = gr.Accordion(visible=has_role(user.role, "annotator"))
        return [values[name] for name in SHOW_OUT]

    def build(self, ctx: AppContext) -> list:
        c: dict[str, Any] = {}
        gr.Markdown("Benchmark runs and the paper's published figures. Rows are **ranked only "
                    "against rows of their group**: the same bench file and clips, the same "
                    "aspects and the same judge protocol. Figures the paper reports are marked "
                    "*reported* and ranked among themselves (R1, R2).")
        _filter_controls(c)
        _board(c)
        _per_clip(c)
        _upload_box(c)
        c["status"] = st.status_line("lb-status")
        filters = [c[k] for k in FILTERS]
        _wire_view(ctx, c, filters)
        _wire_clips(ctx, c)
        _wire_export(ctx, c, filters)
        _wire_add(ctx, c, filters)
        return [c[name] for name in SHOW_OUT]


#: The filter controls, in the order the handlers take them.
FILTERS = ("bench", "judge", "family", "search", "sort", "order", "convention", "reported")


def _filter_controls(c: dict[str, Any]) -> None:
    with gr.Row():
        c["bench"] = gr.Dropdown([ALL], value=ALL, label="Bench", elem_id="lb-bench")
        c["judge"] = gr.Dropdown([ALL], value=ALL, label="Judge", elem_id="lb-judge")
        c["family"] = gr.Dropdown([ALL], value=ALL, label="Model family",
                                  elem_id="lb-family")
        c["search"] = gr.Textbox(label="Search", placeholder="model, version, judge, bench…",
                                 elem_id="lb-search")
    with gr.Row():
        c["sort"] = gr.Dropdown([*leaderboard.SORTS, *tx.ASPECTS], value="rank",
                                label="Sort by", elem_id="lb-sort")
        c["order"] = gr.Radio(list(ORDERS), value=ORDERS[0], label="Order",
                              elem_id="lb-order")
        c["convention"] = gr.Radio(CONVENTIONS, value="all",
                                   label="Per-aspect averaging", elem_id="lb-convention")
        c["reported"] = gr.Checkbox(value=True, label="Show the paper's reported figures",
                                    elem_id="lb-reported")


def _board(c: dict[str, Any]) -> None:
    """The notice, the table, its CSV and the per-aspect chart."""
    c["notice"] = gr.Markdown(elem_id="lb-notice")
    c["table"] = gr.Dataframe(headers=LEADERBOARD_HEADERS, interactive=False, wrap=True,
                              column_widths=LEADERBOARD_WIDTHS,
                              elem_id="lb-table", max_height=520,
                              label="Entries (click a row for its per-clip results)")
    with gr.Row():
        c["export"] = gr.Button("Export CSV", elem_id="lb-export", size="sm", scale=0,
                                min_width=140)
        c["csv_file"] = gr.File(label="CSV of the rows shown", interactive=False,
                                elem_id="lb-csv", scale=1, visible=False)
    gr.Markdown("### Per aspect")
    c["pick"] = gr.Dropdown([], value=[], multiselect=True, label="Entries to compare",
                            elem_id="lb-pick")
    c["chart"] = gr.Plot(label="Per-aspect scores", elem_id="lb-chart", format="png")


def _per_clip(c: dict[str, Any]) -> None:
    gr.Markdown("### Per clip")
    with gr.Row(equal_height=True):
        c["entry"] = gr.Textbox(label="Entry", placeholder="12 or R1", elem_id="lb-entry",
                                scale=0, min_width=140)
        c["show"] = gr.Button("Show per-clip results", elem_id="lb-show", scale=0)
        c["entry_info"] = gr.Markdown(elem_id="lb-entry-info")
    c["clips"] = gr.Dataframe(headers=CLIP_RESULT_HEADERS, interactive=False, wrap=True,
                              elem_id="lb-clips", max_height=520,
                              label="The entry's captions beside the gold ones")


def _upload_box(c: dict[str, Any]) -> None:
    with gr.Accordion("Add a results file", open=False, visible=False,
                      elem_id="lb-upload-box") as c["upload_box"]:
        gr.Markdown("A results file written by `cinecap bench … --out RESULTS.json` (or "
                    "`python -m ui bench run … --out`). It is checked: its schema, its "
                    "aspects, its scores against its per-clip judgements, and its bench, "
                    "which this app must know (a bench run or imported here) or you declare "
                    f"by name. At most {bench.MAX_RESULTS_BYTES // 2**20} MB.")
        with gr.Row():
            c["upload"] = gr.File(label="Results file (.json)", type="filepath",
                                  file_types=[bench.RESULTS_SUFFIX], elem_id="lb-upload")
            with gr.Column():
                c["bench_name"] = gr.Textbox(label="Bench name (only for a bench this app "
                                                   "does not know yet)",
                                             elem_id="lb-bench-name")
                c["label"] = gr.Textbox(label="Model name (default: from the file)",
                                        elem_id="lb-label")
                c["version"] = gr.Textbox(label="Model version (default: from the file)",
                                          elem_id="lb-version")
                c["round"] = gr.Textbox(label="Training round (optional)",
                                        elem_id="lb-round")
        c["add"] = gr.Button("Add to the leaderboard", variant="primary", elem_id="lb-add")


def _wire_view(ctx: AppContext, c: dict[str, Any], filters: list) -> None:
    status = c["status"]
    view_out = [c[name] for name in VIEW_OUT]

    @st.reported(status)
    def on_view(bench_name_, judge, family, search, sort, order, convention, reported,
                picked, request: gr.Request):
        f = _filters(bench_name_, judge, family, search, sort, order, convention, reported)
        values = view_values(ctx, ctx.user(request), f, picked)
        return {**{c[k]: v for k, v in values.items()}, status: ""}

    for comp in filters:
        event = comp.submit if comp is c["search"] else comp.change
        event(on_view, [*filters, c["pick"]], [*view_out, status],
              api_visibility="private")
    # The same view as one call (everyone may read the leaderboard): for API clients and
    # benchmarks/app_load.py.
    api = gr.Button(visible=False, elem_id="lb-refresh")
    api.click(on_view, [*filters, c["pick"]], [*view_out, status], api_name="leaderboard")

    @st.reported(status)
    def on_pick(picked, bench_name_, judge, family, search, sort, order, convention,
                reported, request: gr.Request):
        f = _filters(bench_name_, judge, family, search, sort, order, convention, reported)
        b = leaderboard.board(ctx.store, ctx.user(request), f)
        chosen = [e for e in b.entries if e.label in (picked or [])]
        return {c["chart"]: _chart(chosen, f.convention), status: ""}

    c["pick"].input(on_pick, [c["pick"], *filters], [c["chart"], status],
                    api_visibility="private")


def _wire_clips(ctx: AppContext, c: dict[str, Any]) -> None:
    status, entry, entry_info, clips = c["status"], c["entry"], c["entry_info"], c["clips"]

    @st.reported(status)
    def on_clips(key, request: gr.Request):
        e, items = leaderboard.clip_results(ctx.store, ctx.user(request), key)
        done = sum(1 for i in items if i.f1 is not None)
        info = (f"**{escaped(e.label)}** — {len(items)} clips, {done} judged; F1 "
                f"{e.f1 * 100:.2f}" if e.f1 is not None else f"**{escaped(e.label)}**")
        return {entry: e.key, entry_info: info, clips: clip_result_rows(items),
                status: st.ok(f"per-clip results of entry {e.key}")}

    c["show"].click(on_clips, [entry], [entry, entry_info, clips, status],
                    api_name="leaderboard_clips")
    entry.submit(on_clips, [entry], [entry, entry_info, clips, status],
                 api_visibility="private")

    def on_row(evt: gr.SelectData, request: gr.Request):
        if not evt.row_value:
            return gr.skip(), gr.skip(), gr.skip(), gr.skip()
        key = str(evt.row_value[LEADERBOARD_HEADERS.index("entry")])
        out = on_clips(key, request)
        return tuple(out.get(x, gr.skip()) for x in (entry, entry_info, clips, status))

    c["table"].select(on_row, None, [entry, entry_info, clips, status],
                      api_visibility="private")


def _wire_export(ctx: AppContext, c: dict[str, Any], filters: list) -> None:
    status = c["status"]

    @st.reported(status)
    def on_export(bench_name_, judge, family, search, sort, order, convention, reported,
                  request: gr.Request):
        f = _filters(bench_name_, judge, family, search, sort, order, convention, reported)
        b = leaderboard.board(ctx.store, ctx.user(request), f)
        folder = preview.page_folder(ctx.settings, "viewer", ctx.owner(request))
        path = leaderboard.write_csv(b.entries, folder)
        return {c["csv_file"]: gr.File(value=str(path), visible=True),
                status: st.ok(f"{len(b.entries)} rows as CSV")}

    c["export"].click(on_export, filters, [c["csv_file"], status],
                      api_name="leaderboard_csv")


def _wire_add(ctx: AppContext, c: dict[str, Any], filters: list) -> None:
    status = c["status"]

    @st.reported(status)
    def on_add(path, bench_name_, label_, version_, round_value, bench_filter, judge,
               family, search, sort, order, convention, reported, picked,
               request: gr.Request):
        values = (bench_filter, judge, family, search, sort, order, convention, reported)
        user = ctx.user(request)
        labels = bench.Labels(label_ or "", "", version_ or "",
                              bench.parse_round(round_value))
        run = bench.record_results(ctx.store, user, path, bench_name_ or "", labels,
                                   judge=ctx.backends.judge(ctx.settings.judge),
                                   min_role=ctx.settings.leaderboard_add_role)
        out = view_values(ctx, user, _filters(*values), picked)
        return {**{c[k]: v for k, v in out.items()}, c["upload"]: None,
                status: st.ok("added " + bench.added_line(run))}

    c["add"].click(on_add, [c["upload"], c["bench_name"], c["label"], c["version"],
                            c["round"], *filters, c["pick"]],
                   [*(c[name] for name in VIEW_OUT), c["upload"], status],
                   api_name="leaderboard_add")
