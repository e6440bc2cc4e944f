"""The page's timeline of statement intervals per aspect: HTML, clickable (both tabs) and, in the
Review tab, with bars that drag to change a statement's interval. The markup is
``ui/templates/timeline_bars.html`` (autoescaped), its styles and the drag script in
``ui/static/timeline*.css`` / ``timeline_drag.js``."""
from __future__ import annotations

from typing import Any, Sequence

from cinecap import taxonomy as tx
from ui.tabs.markup import render, script, static_text

_COLORS = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3",
           "#8C8C8C", "#CCB974", "#64B5CD")


#: The timeline's styles (``ui/static/timeline.css``); labels are in the page's text, never clipped.
TIMELINE_CSS = static_text("timeline.css")


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
    is escaped (the template's autoescaping).

    ``drag``: the element id of a hidden text box; statements with an ``id`` then have bars that
    can be dragged (move) or pulled at an edge (start, end), :data:`DRAG_HEAD` writing
    "id t0 t1" into that box and clicking the button ``<drag>-button`` on release.
    """
    if not statements and not uncertain:
        return render("timeline_bars.html", rows=[], ticks=[], player=player, span="", drag="")
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
        rows.append({"aspect": aspect, "lanes": [
            _lane(st, span, colors, drag) for st in statements if st["aspect"] == aspect]})
    ticks = [{"cls": "cc-first" if i == 0 else "cc-last" if _pct(t, span) > 92 else "",
              "left": f"{_pct(t, span):.3f}", "label": f"{t:g}"}
             for i, t in enumerate(_ticks(span))]
    return render("timeline_bars.html", rows=rows, ticks=ticks, player=player,
                  span=f"{span:.3f}", drag=drag)


def _lane(st: dict[str, Any], span: float, colors: dict[str, str], drag: str) -> dict[str, Any]:
    """One statement's lane of ``timeline_bars.html``: a colour per value, the bar and where its
    label starts (at the bar in the clip's first half, ending at it in the second)."""
    from ui.tabs.tables import seconds

    value = str(st.get("value") or "")
    color = colors.setdefault(value, _COLORS[len(colors) % len(_COLORS)])
    t0, t1 = st.get("t_start"), st.get("t_end")
    text = str(st.get("text") or value)
    kind = ""
    if st.get("uncertain"):
        color, kind = "#98a2b3", " cc-uncertain"
        text = "nothing stated here: " + str(st.get("reason") or "uncertain")
    if t0 is None or t1 is None:
        return {"whole": True, "color": color, "text": text, "value": value}
    a, b = _pct(t0, span), _pct(max(t1, t0), span)
    at_end = (a + b) / 2 > 50.0
    sid = str(st["id"]) if drag and st.get("id") else ""
    return {"whole": False, "color": color, "text": text, "value": value, "id": sid,
            "classes": f"cc-tl-lane{' cc-end' if at_end else ''}{kind}",
            "pad": f"padding-right:{100 - b:.3f}%" if at_end else f"padding-left:{a:.3f}%",
            "t0": f"{t0:.3f}", "t1": f"{t1:.3f}", "left": f"{a:.3f}",
            "width": f"{max(b - a, 0.0):.3f}", "interval": f"{seconds(t0)}–{seconds(t1)} s",
            "hint": "click to play; drag to move, pull an edge to change" if sid else
                    "click to play"}


#: The drag handles of a ``drag`` timeline (``ui/static/timeline_drag.css``).
DRAG_CSS = static_text("timeline_drag.css")

#: Dragging a bar of a ``drag`` timeline (:func:`timeline_html`): the bar follows the pointer
#: (its middle moves it, within 8 px of an edge pulls that edge), on release "id t0 t1" goes to
#: the server, which redraws the timeline from the draft. A drag does not also play the clip.
DRAG_HEAD = script("timeline_drag.js")
