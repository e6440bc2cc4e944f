"""How a caption result reads on the Caption tab, as HTML the page renders itself: the opening
explanation and the example cards, the statements (a table that stacks into cards on a phone), the
evidence of the shot at the player's current time and of every shot, and the scores in words.

Gradio-free: strings only. Every piece of text from a caption, a judge, a file name or a person
goes through :func:`ui.tabs.tables.escaped`; attributes carry only numbers and fixed words. Page
files are linked by their URL on Gradio's file route, which ``ui.serving`` guards
(docs/security.md): only files already in a page folder are linked here.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence
from urllib.parse import quote

from cinecap import taxonomy as tx
from cinecap.judge.limits import judge_limits
from ui.tabs.tables import escaped, seconds

RESULTS_CSS = """
.cc-intro p { margin: 0 0 6px; }
.cc-intro .cc-aspects { font-weight: 600; }
.cc-howto { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 6px 14px;
  margin: 6px 0 0; font-size: 0.92em; }
.cc-howto div { border-left: 3px solid var(--color-accent); padding: 2px 8px; }
.cc-howto b { display: block; }
.cc-examples { display: grid; grid-template-columns: repeat(auto-fill, minmax(230px, 1fr));
  gap: 10px; }
.cc-example { display: flex; flex-direction: column; gap: 4px; }
.cc-example-pick { display: flex; gap: 8px; align-items: center; width: 100%; text-align: left;
  font: inherit; color: inherit; background: var(--block-background-fill); cursor: pointer;
  border: 1px solid var(--border-color-primary); border-radius: 8px; padding: 6px; }
.cc-example-pick:hover, .cc-example-pick:focus-visible { border-color: var(--color-accent);
  outline: 2px solid var(--color-accent); }
.cc-example-pick img { width: 96px; height: 54px; object-fit: cover; border-radius: 4px;
  flex: none; background: #222; }
.cc-example-pick b { display: block; }
.cc-credit { font-size: 0.8em; opacity: 0.85; margin: 0; overflow-wrap: anywhere; }
.cc-table { border-collapse: collapse; width: 100%; font-size: 0.92em; }
.cc-table th, .cc-table td { border: 1px solid var(--border-color-primary); padding: 4px 6px;
  vertical-align: top; text-align: left; overflow-wrap: anywhere; }
.cc-statements tr[data-seek] { cursor: pointer; }
.cc-statements tr[data-seek]:hover, .cc-statements tr[data-seek]:focus-visible,
.cc-statements tr.cc-now { background: color-mix(in srgb, var(--color-accent) 14%, transparent); }
.cc-play { white-space: nowrap; }
.cc-moment figure, .cc-shots figure { margin: 0; }
.cc-moment figcaption, .cc-shots figcaption { font-weight: 600; margin: 2px 0 4px; }
.cc-grid { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 6px; }
.cc-shots .cc-grid { grid-template-columns: repeat(4, minmax(0, 1fr)); }
/* Beside the player: one picture a row, the column's whole width (two a row were ~160 px, too
   small to read the legends drawn into them). */
.cc-moment .cc-grid { grid-template-columns: minmax(0, 1fr); }
.cc-grid a { overflow-wrap: anywhere; }
.cc-grid a { display: block; color: inherit; text-decoration: none; font-size: 0.8em; }
.cc-grid img { width: 100%; height: auto; display: block; border-radius: 3px; }
.cc-shots figure { border-top: 1px solid var(--border-color-primary); padding: 6px 0; }
.cc-shots figure.cc-now figcaption { color: var(--color-accent); }
.cc-shot-play { font: inherit; font-weight: 600; background: none; border: 0; padding: 0;
  color: var(--link-text-color, inherit); cursor: pointer; text-decoration: underline; }
.cc-score-head { font-size: 1.05em; }
.cc-score-head b { white-space: nowrap; }
.cc-scores ul { margin: 0; padding-left: 1.1em; }
.cc-scores li { margin: 0; }
.cc-said { opacity: 0.8; font-style: italic; }
.cc-missed { color: #b42318; }
.cc-verdict summary { cursor: pointer; white-space: nowrap; }
.cc-verdict-supported summary { color: #067647; }
.cc-verdict-contradicted summary { color: #b42318; font-weight: 600; }
.cc-verdict-not-measurable summary { color: #667085; }
.cc-extra { color: #93370d; }
.cc-matched { color: #067647; }
.cc-help { font-size: 0.9em; }
.cc-empty { opacity: 0.8; }
@media (max-width: 640px) {
  .cc-howto { grid-template-columns: minmax(0, 1fr); }
  .cc-stack thead { display: none; }
  .cc-stack, .cc-stack tbody, .cc-stack tr, .cc-stack td { display: block; width: 100%;
    box-sizing: border-box; }
  .cc-stack tr { border: 1px solid var(--border-color-primary); border-radius: 6px;
    margin: 0 0 8px; padding: 4px 0; }
  .cc-table.cc-stack, .cc-table.cc-stack td { border: 0 !important; }
  .cc-stack td { display: grid; grid-template-columns: 6.2rem minmax(0, 1fr); gap: 6px;
    padding: 3px 8px !important; }
  .cc-stack td + td { border-top: 1px dotted var(--border-color-primary) !important; }
  .cc-stack td::before { content: attr(data-label); font-weight: 600; }
  .cc-shots .cc-grid { grid-template-columns: repeat(2, minmax(0, 1fr)); }
}
"""


def file_url(path: str | Path) -> str:
    """The URL the page fetches a page file by (Gradio's file route, relative to the page)."""
    return "gradio_api/file=" + quote(str(path))


# --- the first visit ------------------------------------------------------------------------
def intro_html() -> str:
    """What the app does and how to read its results, in a few lines."""
    aspects = ", ".join(a.lower() for a in tx.ASPECTS)
    return (
        "<div class='cc-intro'>"
        "<p><b>CineCap Studio describes how a clip is filmed</b>, in film language, over seven "
        f"aspects: <span class='cc-aspects'>{escaped(aspects)}</span>. Every claim it makes is "
        "a short statement you can check against the picture.</p>"
        "<div class='cc-howto'>"
        "<div><b>Statement</b>one fact about one aspect: <i>Camera Movement · pan right</i>."
        "</div>"
        "<div><b>Interval</b>when it holds, in seconds (2.42–3.04 s). Click a statement or its "
        "bar on the timeline to play it.</div>"
        "<div><b>Evidence</b>what in the pixels supports it: tracked background points, face "
        "boxes, sharpness, lines. The pictures beside the player show it for the moment you "
        "watch.</div>"
        "<div><b>Scores</b>against a gold caption: which statements matched, which were "
        "missed, which are extra, and the reward a training run would get.</div>"
        "</div></div>")


def examples_html(cards: Sequence[tuple[Any, str | None]]) -> str:
    """The example cards: (``ui.usecases.examples.Example``, thumbnail data URI or None). Each
    card's button carries ``data-example`` (the tab's script runs that example)."""
    if not cards:
        return ""
    out = []
    for ex, poster in cards:
        img = (f"<img src='{escaped(poster)}' alt=''>" if poster and poster.startswith(
            "data:image/") else "")
        credit = escaped(ex.credit)
        if ex.link:
            credit += f" · <a href='{escaped(ex.link)}' target='_blank' rel='noopener'>source</a>"
        out.append(
            f"<div class='cc-example'><button type='button' class='cc-example-pick' "
            f"data-example='{escaped(ex.key)}' id='example-{escaped(ex.key)}'>{img}<span>"
            f"<b>{escaped(ex.title)}</b>{escaped(ex.about)}</span></button>"
            f"<p class='cc-credit'>{credit}</p></div>")
    return ("<div class='cc-examples-box'><p><b>Try an example</b> (one click; real footage, "
            "captioned ahead of time):</p><div class='cc-examples'>" + "".join(out)
            + "</div></div>")


# --- the result -----------------------------------------------------------------------------
def verdict_html(verdict: Any) -> str:
    """A statement's verdict against the pixels (``cinecap.verify.Verdict`` or its dict): a
    badge, and what was measured a click away."""
    d = verdict.to_dict() if hasattr(verdict, "to_dict") else dict(verdict or {})
    kind = str(d.get("verdict") or "")
    mark = VERDICT_MARKS.get(kind)
    if mark is None:
        return "—"
    css = "cc-verdict-" + kind.replace(" ", "-")
    return (f"<details class='cc-verdict {css}'><summary>{mark} {escaped(kind)}</summary>"
            f"<span>{escaped(str(d.get('reason') or ''))}</span></details>")


#: The verdicts' marks (supported / contradicted / not measurable): not colour alone.
VERDICT_MARKS = {"supported": "✓", "contradicted": "✗", "not measurable": "·"}


def statements_html(statements: Sequence[Mapping[str, Any]], player: str,
                    review_clip: int | None = None, failure: str = "",
                    verdicts: Sequence[Any] = ()) -> str:
    """The statements as a table; a row with an interval plays it when clicked (or on Enter).
    ``review_clip``: the stored clip's id, for a "Review this clip" button (the Caption tab's
    page script opens it in the Review tab). ``verdicts``: one per statement, what the pixels
    say of it (``ui.usecases.verification``), shown in a "pixels" column."""
    review = (f"<p><button type='button' class='cc-review-clip' id='caption-review' "
              f"data-review-clip='{int(review_clip)}'>Review this clip (#{int(review_clip)})"
              f"</button></p>" if review_clip is not None else "")
    if failure:  # a run that returned but failed: said in place of "No statements yet"
        review = f"<p class='cc-missed'>⚠ {escaped(failure)}</p>" + review
    if not statements:
        return review + ("" if failure else "<p class='cc-empty'>No statements yet: caption a "
                                            "clip or pick an example.</p>")
    checked = len(verdicts) == len(statements)
    head = "".join(f"<th>{h}</th>" for h in ("aspect", "value", "interval", "statement",
                                                "evidence", *(("pixels",) if checked else ())))
    rows = []
    for i, st in enumerate(statements):
        t0, t1 = st.get("t_start"), st.get("t_end")
        timed = t0 is not None and t1 is not None
        attrs = (f" data-seek='{t0:.3f} {t1:.3f}' data-t0='{t0:.3f}' data-t1='{t1:.3f}' "
                 f"tabindex='0' title='play {seconds(t0)}–{seconds(t1)} s'" if timed else "")
        interval = (f"<span class='cc-play'>▶ {seconds(t0)}–{seconds(t1)} s</span>" if timed
                    else "whole clip")
        cells = (("aspect", escaped(str(st.get("aspect") or ""))),
                 ("value", escaped(str(st.get("value") or ""))),
                 ("interval", interval),
                 ("statement", escaped(str(st.get("text") or ""))),
                 ("evidence", escaped(str(st.get("evidence") or "")) or "—"),
                 *((("pixels", verdict_html(verdicts[i])),) if checked else ()))
        rows.append(f"<tr{attrs}>" + "".join(f"<td data-label='{k}'>{v}</td>" for k, v in cells)
                    + "</tr>")
    return (review + f"<div class='cc-statements' data-player='{escaped(player)}'>"
            f"<table class='cc-table cc-stack'><thead><tr>{head}</tr></thead><tbody>"
            + "".join(rows) + "</tbody></table></div>")


def _by_shot(overlays: Sequence[tuple[str, str]], shots: Sequence[Mapping[str, float]]
             ) -> list[tuple[int, Mapping[str, float] | None, list[tuple[str, str]]]]:
    from ui.usecases.caption import overlay_shot

    groups: dict[int, list[tuple[str, str]]] = {}
    for path, title in overlays:
        shot, what = overlay_shot(title)
        groups.setdefault(-1 if shot is None else shot, []).append((path, what))
    return [(i, shots[i] if 0 <= i < len(shots) else None, items)
            for i, items in sorted(groups.items())]


def _figure(i: int, shot: Mapping[str, float] | None, items: Sequence[tuple[str, str]],
            hidden: bool, heading: str) -> str:
    attrs = ""
    if shot is not None:
        attrs = f" data-t0='{shot['t_start']:.3f}' data-t1='{shot['t_end']:.3f}'"
    imgs = "".join(
        f"<a href='{escaped(file_url(p))}' target='_blank' rel='noopener' "
        f"title='{escaped(what)}'><img src='{escaped(file_url(p))}' alt='{escaped(what)}'"
        f"><span>{escaped(what)}</span></a>"
        for p, what in items)
    return (f"<figure data-shot='{i}'{attrs}{' hidden' if hidden else ''}>"
            f"<figcaption>{heading}</figcaption><div class='cc-grid'>{imgs}</div></figure>")


def _shot_name(i: int, shot: Mapping[str, float] | None) -> str:
    if shot is None:
        return "Evidence" if i < 0 else f"Shot {i + 1}"
    return f"Shot {i + 1} · {seconds(shot['t_start'])}–{seconds(shot['t_end'])} s"


def moment_html(overlays: Sequence[tuple[str, str]], shots: Sequence[Mapping[str, float]],
                duration: float | None, player: str, captioner: str = "") -> str:
    """Beside the player: the evidence overlays of the shot at the player's current time (the
    page's script shows the figure whose interval holds it; the first one at the start)."""
    if not overlays:
        why = (f"The {escaped(captioner)} captioner gives no pixel evidence to draw; the anchors "
               "captioner draws what it measured." if captioner else
               "Caption a clip or pick an example: the evidence of the shot you are watching "
               "shows here.")
        return f"<div class='cc-moment'><p class='cc-empty'>{why}</p></div>"
    figures = [_figure(i, shot, items, hidden=k > 0, heading=escaped(_shot_name(i, shot)))
               for k, (i, shot, items) in enumerate(_by_shot(overlays, shots))]
    span = f" data-span='{duration:.3f}'" if duration else ""
    return (f"<div class='cc-moment' data-player='{escaped(player)}'{span}><div data-moment>"
            "<p class='cc-moment-head'>Evidence at <span class='cc-moment-time'>0.00 s</span> "
            "(follows the player)</p>" + "".join(figures) + "</div></div>")


def shots_html(overlays: Sequence[tuple[str, str]], shots: Sequence[Mapping[str, float]],
               player: str) -> str:
    """Every shot's evidence overlays in the page's flow (no inner scroll box); a shot's heading
    plays that shot."""
    if not overlays:
        return ""
    figures = []
    for i, shot, items in _by_shot(overlays, shots):
        name = escaped(_shot_name(i, shot))
        heading = (f"<button type='button' class='cc-shot-play' data-seek='{shot['t_start']:.3f} "
                   f"{shot['t_end']:.3f}'>▶ {name}</button>" if shot is not None else name)
        figures.append(_figure(i, shot, items, hidden=False, heading=heading))
    return (f"<h4>Evidence overlays, shot by shot</h4><div class='cc-shots' "
            f"data-player='{escaped(player)}'>" + "".join(figures) + "</div>")


# --- scores in words ------------------------------------------------------------------------
def _said(item: Mapping[str, Any] | None) -> str:
    if not item:
        return ""
    text = escaped(str(item.get("statement") or ""))
    phrase = item.get("phrase")
    said = f" <span class='cc-said'>(“{escaped(str(phrase))}”)</span>" if phrase else ""
    return text + said


def _items(items: Sequence[str], cls: str) -> str:
    if not items:
        return "—"
    return f"<ul class='{cls}'>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>"


def scores_html(judge: Mapping[str, Any] | None, views: Mapping[str, Any] | None,
                rewards: Mapping[str, Any] | None, coverage_help: Mapping[str, str],
                table_id: str = "cc-aspects") -> str:
    """The scores against the gold caption as people read them: comprehensiveness, accuracy and
    F1 with their counts, the GRPO reward with its coverage term (both modes explained), and per
    aspect the matched, missed and extra statements in words (the table's HTML id
    ``table_id``: one per tab that shows it)."""
    if not judge:
        return ("<p class='cc-empty' id='cc-no-gold'>No gold caption, so no scores: type one "
                "in “Gold caption” and press Caption, or pick an example (it comes with a "
                "reference caption).</p>")
    if judge.get("failed"):
        return (f"<p class='cc-missed'>The judge failed: {escaped(str(judge.get('error')))}. "
                "A failed judgement has no score; try again.</p>")
    n_gt, n_pred, m = (judge["total_gt_count"], judge["total_pred_count"],
                       judge["total_matched_count"])
    head = (
        f"<p class='cc-score-head'><b>Comprehensiveness {judge['comprehensiveness']:.2f}</b> "
        f"({m} of {n_gt} gold statements were said) · <b>Accuracy {judge['accuracy']:.2f}</b> "
        f"({m} of {n_pred} statements said match the gold caption) · "
        f"<b>F1 {judge['f1']:.2f}</b> <span class='cc-help'>(all seven aspects; "
        f"{escaped(str(judge.get('judge')))} judge {escaped(str(judge.get('judge_version')))}"
        ")</span></p>")
    if judge_limits(judge):  # what a rules score is worth, beside it (issue 23)
        head += f"<p class='cc-help' id='{table_id}-limits'>{escaped(judge_limits(judge))}</p>"
    reward = ""
    if rewards:
        from cinecap.reward import RewardConfig

        c = RewardConfig()
        r, u = rewards["symmetric"], rewards["under"]
        gate = (f"the accuracy is above the gate τ = {c.tau:g}, so coverage counts"
                if r["gate_open"] else
                f"the accuracy is not above the gate τ = {c.tau:g}, so coverage does not count")
        reward = (
            f"<p id='cc-reward'><b>GRPO reward {r['total']:.3f}</b> = {c.w_cmp:g} × "
            f"{r['s_cmp']:.2f} (comprehensiveness) + {c.w_acc:g} × {r['s_acc']:.2f} (accuracy) "
            f"+ {c.w_cov:g} × {r['r_cov']:.2f} (coverage) — over the six training aspects "
            f"({r['matched']} of {r['n_gt']} gold, {r['n_pred']} said); {gate}. With the "
            f"released script's “under” coverage: <b>{u['total']:.3f}</b> (coverage "
            f"{u['r_cov']:.2f}).</p>"
            "<details class='cc-help'><summary>How the reward is computed</summary>"
            f"<p>The reward a GRPO training round gives this caption: R = {c.w_cmp:g}·"
            f"comprehensiveness + {c.w_acc:g}·accuracy + {c.w_cov:g}·coverage, counted over "
            "six aspects (Special Shots are left out in training; the scores above count all "
            f"seven). The coverage term applies only when accuracy is above τ = {c.tau:g}, so a "
            "model cannot gain by padding a caption with statements. Coverage is counted in "
            "one of two ways:</p><ul>"
            + "".join(f"<li>{escaped(t)}</li>" for t in coverage_help.values())
            + "</ul><p>The download holds both (<code>rewards</code>) and the default as "
            "<code>reward</code>.</p></details>")
    rows = []
    for aspect, v in (views or {}).items():
        matched = [f"{_said(p['gt'])} ↔ {_said(p['pred'])}" if p.get("pred") else _said(p["gt"])
                   for p in v["matched"]]
        missed = [_said(x) for x in v["missed"]]
        if v["extra"] is None:
            extra = [f"{v['n_extra']} statement(s) (this judge gives only their number)"] \
                if v["n_extra"] else []
        else:
            extra = [_said(x) for x in v["extra"]]
        if not (matched or missed or extra):
            continue
        counts = judge["by_dim"].get(aspect, {})
        rows.append(
            f"<tr><td data-label='aspect'><b>{escaped(aspect)}</b><br><span class='cc-help'>"
            f"{counts.get('matched_count', 0)} of {counts.get('gt_count', 0)} gold, "
            f"{counts.get('pred_count', 0)} said</span></td>"
            f"<td data-label='matched'>{_items(matched, 'cc-matched')}</td>"
            f"<td data-label='missed'>{_items(missed, 'cc-missed')}</td>"
            f"<td data-label='extra'>{_items(extra, 'cc-extra')}</td></tr>")
    table = (f"<table class='cc-table cc-stack' id='{table_id}'><thead><tr><th>aspect</th>"
             "<th>matched (gold ↔ said)</th><th>missed (in the gold caption, not said)</th>"
             "<th>extra (said, not in the gold caption)</th></tr></thead><tbody>"
             + "".join(rows) + "</tbody></table>") if rows else (
        "<p class='cc-empty'>Neither caption states anything the judge reads.</p>")
    return f"<div class='cc-scores'>{head}{reward}{table}</div>"


def model_against_gold_html(view: Any) -> str:
    """The Review tab's reviewer panel, under the gold pair: the model caption it corrects judged
    against it, per aspect matched, missed and extra (``ui.usecases.gold.GoldView``)."""
    if view is None or view.judge is None:
        return ""
    return ("<h4 id='gold-judge-head'>The model caption against this gold pair</h4>"
            "<p class='cc-help'>Matched: what the model said that the gold pair keeps; missed: "
            "gold statements the model did not say; extra: what the model said that the gold "
            "pair does not hold.</p>"
            + scores_html(view.judge, view.views, None, {}, table_id="gold-aspects"))
