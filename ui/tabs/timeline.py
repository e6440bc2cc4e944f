"""A timeline of statement intervals per aspect, drawn with matplotlib into a PNG."""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Sequence

from cinecap import taxonomy as tx

_COLORS = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3",
           "#8C8C8C", "#CCB974", "#64B5CD")


def timeline_png(statements: Sequence[dict[str, Any]], duration: float | None,
                 path: str | Path | None = None) -> str:
    """One row per aspect; timed statements as labelled bars, static ones as a faint full bar."""
    import matplotlib

    matplotlib.use("Agg")  # no display on a server
    from matplotlib.figure import Figure

    ends = [st["t_end"] for st in statements if st.get("t_end") is not None]
    span = max([duration or 0.0, *ends, 1.0])
    aspects = [a for a in tx.ASPECTS if any(st["aspect"] == a for st in statements)] or [
        tx.CAMERA_MOVEMENT]
    fig = Figure(figsize=(9, 0.55 * len(aspects) + 1.0), dpi=100)
    ax = fig.add_subplot()
    colors: dict[str, str] = {}
    for row, aspect in enumerate(reversed(aspects)):
        group = [s for s in statements if s["aspect"] == aspect]
        lanes = _lanes(group)
        n = max(lanes, default=0) + 1
        h = 0.8 / n
        for st, lane in zip(group, lanes):
            color = colors.setdefault(st["value"], _COLORS[len(colors) % len(_COLORS)])
            y = row - 0.4 + (n - 1 - lane) * h
            if st.get("t_start") is None:
                ax.broken_barh([(0, span)], (y, h * 0.9), facecolors=color, alpha=0.25)
                ax.text(span / 2, y + h * 0.45, st["value"], ha="center", va="center", fontsize=7)
            else:
                w = max(st["t_end"] - st["t_start"], span / 200)
                ax.broken_barh([(st["t_start"], w)], (y, h * 0.9), facecolors=color,
                               edgecolor="white")
                ax.text(st["t_start"] + w / 2, y + h * 0.45, st["value"], ha="center",
                        va="center", fontsize=7, color="white", clip_on=True)
    ax.set_yticks(range(len(aspects)), list(reversed(aspects)), fontsize=8)
    ax.set_xlim(0, span)
    ax.set_xlabel("time (s)")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    path = Path(path) if path else Path(tempfile.mkstemp(prefix="timeline-", suffix=".png")[1])
    fig.savefig(path)
    return str(path)


def _lanes(group: Sequence[dict[str, Any]]) -> list[int]:
    """A lane per statement so overlapping intervals of one aspect sit one above the other."""
    ends: list[float] = []  # the end time of the last bar in each lane
    out = []
    for st in group:
        t0 = 0.0 if st.get("t_start") is None else st["t_start"]
        t1 = float("inf") if st.get("t_end") is None else st["t_end"]
        for lane, end in enumerate(ends):
            if t0 >= end - 1e-6:
                ends[lane] = t1
                out.append(lane)
                break
        else:
            ends.append(t1)
            out.append(len(ends) - 1)
    return out
