"""The page's timeline of statement intervals per aspect: HTML, clickable (both tabs) and, in the
Review tab, with bars that drag to change a statement's interval."""
from __future__ import annotations

from typing import Any, Sequence

from cinecap import taxonomy as tx

_COLORS = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3",
           "#8C8C8C", "#CCB974", "#64B5CD")


# --- the page's timeline: HTML we render, clickable, with labels that are never clipped ----------
TIMELINE_CSS = """
.cc-timeline { font-size: 13px; line-height: 1.25; width: 100%; }
.cc-tl-aspect, .cc-tl-axis-row { display: grid; grid-template-columns: 10.5rem minmax(0, 1fr);
  gap: 0 0.6rem; align-items: start; }
.cc-tl-aspect { border-top: 1px solid var(--border-color-primary); padding: 4px 0; }
.cc-tl-name { font-weight: 600; padding-top: 3px; overflow-wrap: break-word; }
.cc-tl-lanes { position: relative; min-width: 0; }
.cc-tl-lane { position: relative; display: block; width: 100%; box-sizing: border-box;
  margin: 2px 0; padding-top: 2px; padding-bottom: 2px; min-height: 22px; background: none;
  border: 0; font: inherit; color: inherit; text-align: left; cursor: default; }
button.cc-tl-lane { cursor: pointer; }
.cc-tl-lane.cc-end { text-align: right; }
.cc-tl-bar { position: absolute; top: 0; bottom: 0; border-radius: 3px; min-width: 3px;
  background: color-mix(in srgb, var(--cc-c) 30%, transparent); box-sizing: border-box;
  border: 1px solid var(--cc-c); }
.cc-tl-lane.cc-static .cc-tl-bar { border-style: dashed;
  background: color-mix(in srgb, var(--cc-c) 12%, transparent); }
.cc-tl-lane.cc-uncertain .cc-tl-bar { border-style: dotted; background: repeating-linear-gradient(
  135deg, color-mix(in srgb, var(--cc-c) 25%, transparent) 0 4px, transparent 4px 8px); }
.cc-tl-lane.cc-uncertain .cc-tl-label { font-style: italic; }
.cc-tl-label { position: relative; display: inline-block; max-width: 100%; padding: 1px 5px;
  white-space: normal; overflow-wrap: break-word; color: var(--body-text-color); }
.cc-tl-label small { opacity: 0.75; }
button.cc-tl-lane:hover .cc-tl-bar, button.cc-tl-lane:focus-visible .cc-tl-bar,
.cc-tl-lane.cc-now .cc-tl-bar { background: color-mix(in srgb, var(--cc-c) 60%, transparent);
  outline: 2px solid var(--cc-c); }
.cc-tl-axis { position: relative; height: 1.3em; font-size: 11px; opacity: 0.8;
  border-top: 1px solid var(--border-color-primary); }
.cc-tl-axis span { position: absolute; top: 2px; transform: translateX(-50%); }
.cc-tl-axis span.cc-first { transform: none; }
.cc-tl-axis span.cc-last { transform: translateX(-100%); }
.cc-playhead { position: absolute; top: 0; bottom: 0; width: 2px; margin-left: -1px;
  background: #d92d20; pointer-events: none; z-index: 2; }
@media (max-width: 640px) {
  .cc-tl-aspect, .cc-tl-axis-row { grid-template-columns: minmax(0, 1fr); }
  .cc-tl-axis-row .cc-tl-name { display: none; }
}
"""


def _pct(t: float, span: float) -> float:
    return round(100.0 * max(0.0, min(span, t)) / span, 3)


def _ticks(span: float, most: int = 6) -> list[float]:
    for step in (0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600):
        if span / step <= most:
            break
    n = int(span / step + 1e-9)
    return [round(i * step, 3) for i in range(n + 1)]


def timeline_html(statements: Sequence[dict[str, Any]], duration: float | None,
                  player: str, uncertain: Sequence[dict[str, Any]] = (), drag: str = "") -> str:
    """The statements on a time axis, one row per aspect and one lane per statement, as HTML.

    Each timed statement is a button (``data-seek``: ``ui/tabs/player.py`` seeks ``player`` to its
    interval and plays it) with its value as a label in the page's own text: it starts at the bar
    when the bar lies in the first half of the clip and ends at it otherwise, so it always has at
    least half the width and wraps rather than being cut. Statements without an interval hold for
    the whole clip (a dashed bar). The ``uncertain`` stretches (``{"aspect", "t_start", "t_end",
    "reason"}``: the captioner said nothing there) are hatched bars labelled "uncertain" in their
    aspect's row, playable like the others, so a gap on the timeline is never silent. Every label
    is HTML-escaped.

    ``drag``: the element id of a hidden text box; statements with an ``id`` then have bars that
    can be dragged (move) or pulled at an edge (start, end), :data:`DRAG_HEAD` writing
    "id t0 t1" into that box and clicking the button ``<drag>-button`` on release.
    """
    from ui.tabs.tables import escaped, seconds

    if not statements and not uncertain:
        return "<p class='cc-empty'>No statements to place on the timeline.</p>"
    if uncertain:  # in time order among the statements of their aspect
        statements = sorted(
            [*statements, *(dict(u, value="uncertain", uncertain=True) for u in uncertain)],
            key=lambda st: (st.get("t_start") is not None, st.get("t_start") or 0.0))
    ends = [st["t_end"] for st in statements if st.get("t_end") is not None]
    span = max([duration or 0.0, *ends, 0.001])
    colors: dict[str, str] = {}
    rows = []
    for aspect in [a for a in tx.ASPECTS if any(st["aspect"] == a for st in statements)] + sorted(
            {st["aspect"] for st in statements} - set(tx.ASPECTS)):
        lanes = []
        for st in (s for s in statements if s["aspect"] == aspect):
            value = str(st.get("value") or "")
            color = colors.setdefault(value, _COLORS[len(colors) % len(_COLORS)])
            t0, t1 = st.get("t_start"), st.get("t_end")
            text = escaped(str(st.get("text") or value))
            kind = ""
            if st.get("uncertain"):
                color, kind = "#98a2b3", " cc-uncertain"
                text = escaped("nothing stated here: " + str(st.get("reason") or "uncertain"))
            if t0 is None or t1 is None:
                lanes.append(
                    f"<div class='cc-tl-lane cc-static' style='--cc-c:{color}' "
                    f"title='{text} (no interval: the whole clip)'>"
                    f"<span class='cc-tl-bar' style='left:0%;width:100%'></span>"
                    f"<span class='cc-tl-label'>{escaped(value)} <small>whole clip</small>"
                    f"</span></div>")
                continue
            a, b = _pct(t0, span), _pct(max(t1, t0), span)
            width = max(b - a, 0.0)
            at_end = (a + b) / 2 > 50.0
            pad = f"padding-right:{100 - b:.3f}%" if at_end else f"padding-left:{a:.3f}%"
            interval = f"{seconds(t0)}–{seconds(t1)} s"
            sid = f" data-id='{escaped(str(st['id']))}'" if drag and st.get("id") else ""
            hint = "click to play; drag to move, pull an edge to change" if sid else \
                "click to play"
            lanes.append(
                f"<button type='button' class='cc-tl-lane{' cc-end' if at_end else ''}{kind}' "
                f"style='--cc-c:{color};{pad}' data-seek='{t0:.3f} {t1:.3f}'{sid} "
                f"data-t0='{t0:.3f}' data-t1='{t1:.3f}' "
                f"title='{escaped(value)} {interval}: {text} ({hint})'>"
                f"<span class='cc-tl-bar' style='left:{a:.3f}%;width:{width:.3f}%'></span>"
                f"<span class='cc-tl-label'>{escaped(value)} <small>{interval}</small></span>"
                f"</button>")
        rows.append(f"<div class='cc-tl-aspect'><div class='cc-tl-name'>{escaped(aspect)}</div>"
                    f"<div class='cc-tl-lanes'><div class='cc-playhead' hidden></div>"
                    f"{''.join(lanes)}</div></div>")
    ticks = _ticks(span)
    marks = "".join(
        f"<span class='{'cc-first' if i == 0 else 'cc-last' if _pct(t, span) > 92 else ''}' "
        f"style='left:{_pct(t, span):.3f}%'>{t:g}</span>" for i, t in enumerate(ticks))
    axis = (f"<div class='cc-tl-axis-row'><div class='cc-tl-name'>time (s)</div>"
            f"<div class='cc-tl-axis'>{marks}</div></div>")
    dragged = f" data-drag='{escaped(drag)}'" if drag else ""
    return (f"<div class='cc-timeline' data-player='{escaped(player)}' data-span='{span:.3f}'"
            f"{dragged}>{''.join(rows)}{axis}</div>")


DRAG_CSS = """
.cc-timeline[data-drag] [data-id] .cc-tl-bar { cursor: grab; touch-action: none; }
.cc-timeline[data-drag] [data-id] .cc-tl-bar::before,
.cc-timeline[data-drag] [data-id] .cc-tl-bar::after { content: ''; position: absolute;
  top: 0; bottom: 0; width: 6px; cursor: ew-resize; }
.cc-timeline[data-drag] [data-id] .cc-tl-bar::before { left: -3px; }
.cc-timeline[data-drag] [data-id] .cc-tl-bar::after { right: -3px; }
.cc-timeline .cc-dragging .cc-tl-bar { outline: 2px dashed var(--cc-c); cursor: grabbing; }
"""

#: Dragging a bar of a ``drag`` timeline (:func:`timeline_html`): the bar follows the pointer
#: (its middle moves it, within 8 px of an edge pulls that edge), on release "id t0 t1" goes to
#: the server, which redraws the timeline from the draft. A drag does not also play the clip.
DRAG_HEAD = """<script>(() => {
if (window.__cinecapDrag) return; window.__cinecapDrag = true;
let drag = null;
document.addEventListener('pointerdown', (e) => {
  const lane = e.target.closest
    ? e.target.closest('.cc-timeline[data-drag] button.cc-tl-lane[data-id]') : null;
  if (!lane || e.button !== 0) return;
  const bar = lane.querySelector('.cc-tl-bar'), br = bar.getBoundingClientRect();
  const x = e.clientX, edge = 8;
  const mode = Math.abs(x - br.left) <= edge ? 'start' : Math.abs(x - br.right) <= edge ? 'end'
    : (x > br.left && x < br.right ? 'move' : null);
  if (!mode) return;
  const tl = lane.closest('.cc-timeline');
  drag = {lane, bar, tl, mode, x0: x, width: lane.getBoundingClientRect().width,
          span: Number(tl.dataset.span), t0: Number(lane.dataset.t0), t1: Number(lane.dataset.t1),
          a: Number(lane.dataset.t0), b: Number(lane.dataset.t1), moved: false};
  e.preventDefault();
});
document.addEventListener('pointermove', (e) => {
  if (!drag) return;
  const d = drag, dt = (e.clientX - d.x0) / d.width * d.span, least = Math.min(0.1, d.span / 100);
  if (Math.abs(e.clientX - d.x0) > 3) { d.moved = true; d.lane.classList.add('cc-dragging'); }
  let a = d.t0, b = d.t1;
  if (d.mode === 'move') {
    const len = b - a; a = Math.min(Math.max(0, a + dt), d.span - len); b = a + len; }
  else if (d.mode === 'start') a = Math.min(Math.max(0, a + dt), b - least);
  else b = Math.max(Math.min(d.span, b + dt), a + least);
  d.a = a; d.b = b;
  d.bar.style.left = (100 * a / d.span) + '%'; d.bar.style.width = (100 * (b - a) / d.span) + '%';
  const at = d.lane.querySelector('.cc-tl-label small');
  if (at) at.textContent = a.toFixed(2) + '–' + b.toFixed(2) + ' s';
});
document.addEventListener('pointerup', () => {
  if (!drag) return;
  const d = drag; drag = null;
  if (!d.moved) return;
  d.lane.dataset.dragged = '1';
  const box = document.querySelector('#' + d.tl.dataset.drag + ' textarea');
  const go = document.getElementById(d.tl.dataset.drag + '-button');
  if (!box || !go) return;
  box.value = d.lane.dataset.id + ' ' + d.a.toFixed(2) + ' ' + d.b.toFixed(2);
  box.dispatchEvent(new Event('input', {bubbles: true}));
  go.click();
});
document.addEventListener('click', (e) => {
  const lane = e.target.closest ? e.target.closest('button.cc-tl-lane[data-dragged]') : null;
  if (!lane) return;
  delete lane.dataset.dragged; e.preventDefault(); e.stopImmediatePropagation();
}, true);
})();</script>"""
