"""Train tab (admins): the gold pairs there are to train on, a launch form generated from the
training config dataclasses, the round's live progress (polled from the store), the new version
beside the serving one on the held-out clips, promote / discard / roll back, and the lists of
rounds and model versions. Everything goes through ``ui.usecases.rounds`` and ``versions``."""
from __future__ import annotations

import json
from typing import Any

import gradio as gr
import pandas as pd

from cinecap.errors import InputError
from ui.context import AppContext
from ui.tabs import status as st
from ui.tabs.base import Tab, shown_errors
from ui.tabs.markup import static_text
from ui.tabs.tables import (BAR_ORDER, PAIR_HEADERS, ROUND_HEADERS, VERSION_HEADERS,
                            compare_bars, compare_table, pair_rows, round_rows, round_summary,
                            version_rows)
from ui.usecases import rounds, versions

POLL_S = 2.0  # how often the page asks the store how the round is doing
SERIES_COLORS = {"loss": "#2563eb", "reward": "#f97316", "reward/s_cmp": "#16a34a",
                 "reward/s_acc": "#9333ea"}


def _component(f: rounds.FormField, stage: str):
    """The input for one config field, from its type, default, help and choices."""
    kw = {"label": f.name, "info": f.help, "elem_id": f"train-{stage}-{f.name}"}
    if f.choices:
        return gr.Dropdown(list(f.choices), value=f.default, **kw)
    if f.type == "bool":
        return gr.Checkbox(value=bool(f.default), **kw)
    if f.optional:  # empty: the default (a number box would show, and send, 0)
        return gr.Textbox(value="" if f.default is None else str(f.default),
                          placeholder="empty: the default", **kw)
    if f.type in ("int", "float"):
        return gr.Number(value=f.default, precision=0 if f.type == "int" else None, **kw)
    return gr.Textbox(value="" if f.default is None else str(f.default), **kw)


def _frame(rows: list[tuple], types: dict[str, str]) -> pd.DataFrame | None:
    """The rows as a typed frame for a plot; None when there are none. (Gradio 6.31's plots
    keep what they made of their first value: an empty frame would make every later number a
    category and its colours unknown, and nothing would be drawn.)"""
    return pd.DataFrame(rows, columns=list(types)).astype(types) if rows else None


def _plot_frame(points: list[tuple[int, str, float]]) -> pd.DataFrame | None:
    return _frame(points, {"step": "int64", "series": "str", "value": "float64"})


def _bars_frame(bars: list[tuple[str, str, float]]) -> pd.DataFrame | None:
    return _frame(bars, {"bar": "str", "version": "str", "score": "float64"})


class TrainTab(Tab):
    id = "train"
    title = "Train"
    min_role = "admin"
    css = static_text("train.css")

    def build(self, ctx: AppContext) -> list:
        forms = {stage: rounds.form_fields(stage, ctx.settings) for stage in rounds.STAGES}
        c = self._components(forms)
        self._wire_round(ctx, forms, c)
        self._wire_versions(ctx, c)
        return [*c["top_outputs"], *c["view_outputs"], c["timer"]]

    def _components(self, forms: dict) -> dict[str, Any]:
        """The tab's components by name, and the lists the handlers fill."""
        selected = gr.State(None)  # the round shown (None: the newest)
        hardware = gr.Markdown(elem_id="train-hardware")
        with gr.Row():
            pairs = gr.Dataframe(headers=PAIR_HEADERS, label="Gold statements per aspect",
                                 interactive=False, elem_id="train-pairs")
            with gr.Column():
                pairs_note = gr.Markdown(elem_id="train-pairs-note")
                include = gr.Checkbox(False, label="Also gold pairs not reviewed yet",
                                      info="default: each clip's newest accepted gold pair",
                                      elem_id="train-include-submitted")
        with gr.Accordion("Launch a round", open=True):
            with gr.Row():
                stage = gr.Radio(list(rounds.STAGES), value="sft", label="Stage",
                                 info="sft: atomic chain-of-thought targets; grpo: the judge "
                                      "and the gated coverage reward (docs/training.md)",
                                 elem_id="train-stage")
                start = gr.Dropdown([("the serving version", "serving"),
                                     ("the base model", "base")], value="serving",
                                    label="Start from", elem_id="train-start")
            groups, inputs = {}, {}
            for name, fields in forms.items():
                with gr.Group(visible=name == "sft") as groups[name]:
                    with gr.Row():
                        inputs[name] = [_component(f, name) for f in fields]
            more = gr.Textbox(label="More settings (a JSON object of other training settings)",
                              placeholder='{"lora_r": 8, "judge_options": {"model": "…"}}',
                              elem_id="train-more")
            launch = gr.Button("Launch round", variant="primary", elem_id="train-launch")
            # Next to the form and kept until the next action: why a launch was refused (a
            # toast alone vanishes, and a raised error would mark every output "Error").
            message = st.status_line("train-message", "Result")
        status = gr.Markdown(elem_id="train-status")
        # Fixed colours named in the labels: Gradio 6.31 draws no legend entries for a plot
        # whose data came in an update.
        plot = gr.LinePlot(None, x="step", y="value", color="series", color_map=SERIES_COLORS,
                           colors_in_legend=[], x_axis_format="d", height=260,
                           label="Progress per step — SFT: loss (blue) · GRPO: reward (orange), "
                                 "reward/s_cmp (green), reward/s_acc (purple)",
                           elem_id="train-plot")
        cancel = gr.Button("Cancel the round", interactive=False, elem_id="train-cancel",
                           size="sm")
        with gr.Accordion("Log", open=False):
            log_box = gr.Textbox(label="Training log (tail)", lines=12, max_lines=20,
                                 interactive=False, elem_id="train-log")
        compare_note = gr.Markdown(elem_id="train-compare-note")
        compare = gr.Dataframe(label="Held-out scores per aspect", interactive=False,
                               elem_id="train-compare")
        bars = gr.BarPlot(None, x="bar", y="score", color="version", x_title="aspect · version",
                          color_map={"serving": "#9ca3af", "new": "#f97316"}, colors_in_legend=[],
                          sort=BAR_ORDER, label="Held-out scores: serving (grey) vs new (orange)",
                          x_label_angle=-40, y_lim=[0, 1], height=360, elem_id="train-bars")
        with gr.Row():
            promote = gr.Button("Promote the new version", variant="primary", interactive=False,
                                elem_id="train-promote")
            discard = gr.Button("Discard it", interactive=False, elem_id="train-discard")
        version_list = gr.Dataframe(headers=VERSION_HEADERS, label="Model versions",
                                    interactive=False, elem_id="train-versions")
        rollback = gr.Button("Roll back to the previous version", elem_id="train-rollback",
                             size="sm")
        round_list = gr.Dataframe(headers=ROUND_HEADERS, label="Rounds (click one to show it)",
                                  interactive=False, elem_id="train-rounds")
        timer = gr.Timer(POLL_S, active=False)

        view_outputs = [status, plot, cancel, log_box, compare_note, compare, bars, promote,
                        discard, version_list, round_list]
        top_outputs = [hardware, pairs, pairs_note, start]
        launch_out = [message, selected, *view_outputs, *top_outputs]
        decide_out = [message, *view_outputs, *top_outputs]
        return {"selected": selected, "hardware": hardware, "pairs": pairs,
                "pairs_note": pairs_note, "include": include, "stage": stage, "start": start,
                "groups": groups, "inputs": inputs, "more": more, "launch": launch,
                "message": message, "status": status, "plot": plot, "cancel": cancel,
                "log_box": log_box, "compare_note": compare_note, "compare": compare,
                "bars": bars, "promote": promote, "discard": discard,
                "version_list": version_list, "rollback": rollback, "round_list": round_list,
                "timer": timer, "view_outputs": view_outputs, "top_outputs": top_outputs,
                "launch_out": launch_out, "decide_out": decide_out}

    def _wire_round(self, ctx: AppContext, forms: dict, c: dict[str, Any]) -> None:
        """Following a round: the poll while one runs, the form, launch and cancel."""
        (selected, include, stage, start, groups, inputs, more, launch, message, cancel, timer,
         view_outputs, top_outputs, launch_out) = (c[k] for k in (
            "selected", "include", "stage", "start", "groups", "inputs", "more", "launch",
            "message", "cancel", "timer", "view_outputs", "top_outputs", "launch_out"))

        @shown_errors
        def on_tick(round_id, request: gr.Request):
            return _polled(ctx, ctx.user(request), round_id)

        @shown_errors
        def on_include(include_submitted, request: gr.Request):
            return _top(ctx, ctx.user(request), include_submitted)

        def on_stage(name):
            return [gr.Group(visible=name == s) for s in rounds.STAGES]

        reported = st.reported(message)

        @reported
        def on_launch(data: dict, request: gr.Request):
            # ``data``: component → value (the inputs are given as a set).
            user = ctx.user(request)
            name = data[stage]
            given = _more(data[more])
            given.update({f.name: data[c] for f, c in zip(forms[name], inputs[name])})
            r = rounds.launch_round(ctx.store, ctx.settings, ctx.jobs, user, name, data[start],
                                    given, data[include])
            msg = (f"Round #{r.id} queued: {r.data.get('pairs')} gold pairs, "
                   f"{r.data.get('heldout_clips')} held-out clips.")
            return {**_values(launch_out, [st.ok(msg), r.id, *_view(ctx, user, r.id),
                                           *_top(ctx, user, data[include])]),
                    timer: gr.Timer(active=True)}  # polled until the round ends

        @reported
        def on_cancel(round_id, request: gr.Request):
            user = ctx.user(request)
            shown = rounds.round_view(ctx.store, ctx.settings, user, round_id).round
            if shown is None:
                raise InputError("no round to cancel")
            r = rounds.cancel_round(ctx.store, user, shown.id)
            return _values([message, *view_outputs], [
                st.ok(f"Round #{r.id}: "
                      f"{'cancelled' if r.status == 'cancelled' else 'cancelling…'}"),
                *_view(ctx, user, round_id)])

        private = {"api_visibility": "private"}
        timer.tick(on_tick, [selected], [*view_outputs, timer], show_progress="hidden", **private)
        include.change(on_include, [include], top_outputs, **private)
        stage.change(on_stage, [stage], [groups[s] for s in rounds.STAGES], **private)
        launch.click(on_launch, {stage, start, include, more, *inputs["sft"], *inputs["grpo"]},
                     [*launch_out, timer], **private)
        cancel.click(on_cancel, [selected], [message, *view_outputs], **private)

    def _wire_versions(self, ctx: AppContext, c: dict[str, Any]) -> None:
        """Promote, discard, roll back, and picking a round in the list."""
        (selected, include, message, promote, discard, rollback, round_list, timer,
         view_outputs, decide_out) = (c[k] for k in (
            "selected", "include", "message", "promote", "discard", "rollback", "round_list",
            "timer", "view_outputs", "decide_out"))
        reported = st.reported(message)

        def decide(action):
            @reported
            def on_decide(round_id, include_submitted, request: gr.Request):
                user = ctx.user(request)
                v = rounds.round_view(ctx.store, ctx.settings, user, round_id)
                if v.version is None:
                    raise InputError("no new version to " + action)
                if action == "promote":
                    done = versions.promote(ctx.store, ctx.backends, user, v.version.id)
                    msg = (f"Version {done.label} is serving: the Caption tab's vlm captioner "
                           f"uses it from the next caption on, and offers it first.")
                    if v.undecided:
                        msg += " " + v.undecided
                else:
                    done = versions.discard(ctx.store, user, v.version.id)
                    msg = f"Version {done.label} discarded (retired; its files are kept)."
                return _values(decide_out, [st.ok(msg), *_view(ctx, user, round_id),
                                           *_top(ctx, user, include_submitted)])
            return on_decide

        @reported
        def on_rollback(round_id, include_submitted, request: gr.Request):
            user = ctx.user(request)
            done = versions.rollback(ctx.store, ctx.backends, user)
            return _values(decide_out, [
                st.ok(f"Rolled back: version {done.label} is serving again."),
                *_view(ctx, user, round_id), *_top(ctx, user, include_submitted)])

        @shown_errors
        def on_pick(evt: gr.SelectData, request: gr.Request):
            user = ctx.user(request)
            row = evt.row_value or []
            try:
                round_id = int(row[0])
            except (IndexError, TypeError, ValueError):
                raise InputError("pick a round in the list") from None
            return [round_id, *_polled(ctx, user, round_id)]

        private = {"api_visibility": "private"}
        promote.click(decide("promote"), [selected, include], decide_out, **private)
        discard.click(decide("discard"), [selected, include], decide_out, **private)
        rollback.click(on_rollback, [selected, include], decide_out, **private)
        round_list.select(on_pick, None, [selected, *view_outputs, timer], **private)

    def on_show(self, ctx: AppContext, user: Any) -> list:
        return [*_top(ctx, user, False), *_polled(ctx, user, None)]


def _values(outputs: list, vals: list) -> dict:
    return dict(zip(outputs, vals))


def _polled(ctx: AppContext, user: Any, round_id: int | None) -> list:
    """The round view's values and the poll's: the timer runs only while the round shown is
    queued, running or benchmarking (a finished round's page asks the store nothing)."""
    v = rounds.round_view(ctx.store, ctx.settings, user, round_id)
    return [*_view_of(ctx, user, v), gr.Timer(active=v.round is not None and v.round.active)]


def _view(ctx: AppContext, user: Any, round_id: int | None) -> list:
    """The values of the round view's components for ``round_id`` (None: the newest round)."""
    return _view_of(ctx, user, rounds.round_view(ctx.store, ctx.settings, user, round_id))


def _view_of(ctx: AppContext, user: Any, v: rounds.RoundView) -> list:
    r = v.round
    comparison = r.comparison if r is not None else {}
    headers, rows = compare_table(comparison)
    note = ""
    if r is not None and comparison.get("new"):
        note = (f"Round #{r.id}'s version #{v.version.id} beside the serving version on "
                f"{comparison.get('heldout_clips')} held-out clips "
                f"({comparison.get('judge')} judge; per aspect: mean of "
                f"comprehensiveness and accuracy over the clips).")
        if v.version.status != "ready":
            note += f" Version #{v.version.id} is **{v.version.status}**."
        elif v.undecided:
            note += f"\n\n**{v.undecided}**"
    return [st.public_message(round_summary(v)), _plot_frame(v.points),
            gr.Button(interactive=v.can_cancel),
            st.public_message(r.log) if r is not None else "", note,
            pd.DataFrame(rows, columns=headers), _bars_frame(compare_bars(comparison)),
            gr.Button(interactive=v.can_promote), gr.Button(interactive=v.can_promote),
            version_rows(versions.list_versions(ctx.store, user)),
            round_rows(rounds.list_rounds(ctx.store, ctx.settings, user))]


def _top(ctx: AppContext, user: Any, include_submitted: bool) -> list:
    """The values of the top: what runs here, the gold pairs per aspect, "start from"."""
    o = rounds.overview(ctx.store, ctx.settings, user, include_submitted, ctx.jobs)
    serving = o.serving.label if o.serving else "none yet (a round registers the base)"
    note = (f"**{o.pairs} gold pairs** on {o.clips} clips, **{o.new_pairs} new** since "
            f"the last finished round. Serving: version {serving}. Worker: {o.worker}.")
    choices = rounds.base_choices(ctx.store, user)
    return [st.public_message(o.hardware.note), pair_rows(o.per_aspect), note,
            gr.Dropdown(choices=[(label, value) for label, value in choices])]


def _more(text: str) -> dict[str, Any]:
    """The "More settings" box: a JSON object, or nothing."""
    if not (text or "").strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"More settings is not valid JSON: {e.msg} (line {e.lineno})") from None
    if not isinstance(value, dict):
        raise InputError('More settings must be a JSON object, e.g. {"lora_r": 8}')
    return value
