"""The leaderboard's per-aspect chart: grouped bars, one colour per selected entry, drawn with
matplotlib (a Figure for ``gr.Plot``)."""
from __future__ import annotations

import threading
from typing import Sequence

from gradio.components.plot import PlotData
from gradio.processing_utils import encode_plot_to_base64

from ui.tabs.tables import ASPECT_SHORT

_COLORS = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3",
           "#8C8C8C", "#CCB974", "#64B5CD")


def aspect_chart(series: Sequence[tuple[str, dict[str, float | None]]], title: str):
    """One group of bars per aspect, one bar per entry (percent); an entry without a value for
    an aspect (a reported figure the paper does not give) has no bar there, marked "n/a"."""
    import matplotlib

    matplotlib.use("Agg")  # no display on a server
    from matplotlib.figure import Figure

    aspects = list(ASPECT_SHORT)
    fig = Figure(figsize=(10, 4.2), dpi=100)
    ax = fig.add_subplot()
    n = max(1, len(series))
    width = 0.8 / n
    for k, (label, values) in enumerate(series):
        color = _COLORS[k % len(_COLORS)]
        labelled = False
        for a, aspect in enumerate(aspects):
            x = a - 0.4 + (k + 0.5) * width
            v = values.get(aspect)
            if v is None:
                ax.text(x, 1, "n/a", ha="center", va="bottom", fontsize=6, rotation=90,
                        color=color)
                continue
            ax.bar(x, 100 * v, width * 0.95, color=color, label=None if labelled else label)
            labelled = True
        if not labelled:  # a figure with no per-aspect number still gets its legend entry
            ax.bar(0, 0, 0, color=color, label=f"{label} (no per-aspect figures)")
    ax.set_xticks(range(len(aspects)), [ASPECT_SHORT[a] for a in aspects], fontsize=8)
    ax.set_ylim(0, 100)
    ax.set_ylabel("score (%)")
    ax.set_title(title, fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    if series:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    else:
        ax.text(len(aspects) / 2 - 0.5, 50, "choose entries to compare", ha="center",
                color="#666")
    fig.tight_layout()
    return fig


#: Charts drawn, by what they show (at most :data:`_KEPT`; the oldest go first).
_PLOTS: dict[tuple, PlotData] = {}
_KEPT = 64
_plots_lock = threading.Lock()


def aspect_plot(series: Sequence[tuple[str, dict[str, float | None]]], title: str) -> PlotData:
    """:func:`aspect_chart` as the PNG ``gr.Plot(format="png")`` sends, drawn once per set of
    bars and title: every page load shows the leaderboard's chart, mostly the same one, and
    drawing it cost about half a second of CPU each time."""
    key = (title, tuple((label, tuple(sorted(values.items()))) for label, values in series))
    with _plots_lock:
        hit = _PLOTS.get(key)
    if hit is None:
        hit = PlotData(type="matplotlib", plot=encode_plot_to_base64(aspect_chart(series, title),
                                                                     "png"))
        with _plots_lock:
            _PLOTS[key] = hit
            while len(_PLOTS) > _KEPT:
                _PLOTS.pop(next(iter(_PLOTS)))
    return hit
