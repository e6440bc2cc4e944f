"""The Leaderboard and Data tabs through the app's API (a launched server, gradio_client): anyone
signed in reads the board; adding a results file needs the reviewer role, whatever the page
shows; a file of the wrong type is refused before it is read (by Gradio, and by the use case:
tests/test_leaderboard.py); the dataset endpoints are the
admin's only. Errors come back in the status output (⚠ …), without server paths."""
from __future__ import annotations

import pytest
from gradio_client import Client, handle_file
from gradio_client.exceptions import AppError

from tests.support.app_server import ACCOUNTS, running_app
from tests.support.bench_results import FAIR, bench_file, results, write
from ui.tabs.leaderboard import VIEW_OUT
from ui.tabs.tables import LEADERBOARD_HEADERS

pytestmark = pytest.mark.slow  # a launched server and six API clients (~20 s here)

FILTERS = ("all", "all", "all", "", "rank", "high first", "all", True)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_app(tmp_path_factory.mktemp("app") / "data") as (url, store):
        yield url, store


def client(url: str, name: str) -> Client:
    return Client(url, auth=(name, ACCOUNTS[name][1]), verbose=False, download_files=False)


def test_roles_and_checks_hold_at_the_api(server, tmp_path):
    url, store = server
    bench = bench_file(tmp_path / "b")
    good = write(tmp_path / "fair.json", results(bench, FAIR, "Qwen3-VL-8B"))

    vic = client(url, "vic")
    view = vic.predict(*FILTERS, [], api_name="/leaderboard")
    table = view[VIEW_OUT.index("table")]["value"]  # an update: the value and the label
    assert [r[LEADERBOARD_HEADERS.index("model")] for r in table["data"]] == [
        "CineCap-GRPO-8B", "Gemini-3.1-Pro"]  # only the paper's figures so far
    out = vic.predict(handle_file(str(good)), "mini", "", "", "", *FILTERS, [],
                      api_name="/leaderboard_add")
    assert out[-1].startswith("⚠") and "needs the reviewer role" in out[-1]
    out = client(url, "ann").predict(handle_file(str(good)), "mini", "", "", "", *FILTERS, [],
                                     api_name="/leaderboard_add")
    assert "needs the reviewer role" in out[-1]  # Settings.leaderboard_add_role
    assert store.counts()["bench_runs"] == 0

    ann = client(url, "rita")
    txt = write(tmp_path / "fair.txt", {"not": "read"})
    with pytest.raises(AppError, match="Invalid file type"):  # Gradio's own check, first
        ann.predict(handle_file(str(txt)), "mini", "", "", "", *FILTERS, [],
                    api_name="/leaderboard_add")
    out = ann.predict(handle_file(str(good)), "mini", "", "", "round 2", *FILTERS, [],
                      api_name="/leaderboard_add")
    assert "training round must be a whole number" in out[-1]
    out = ann.predict(handle_file(str(good)), "mini", "", "v3", "2", *FILTERS, [],
                      api_name="/leaderboard_add")
    assert out[-1].startswith("added entry #1: Qwen3-VL-8B on mini")
    [run] = store.bench_runs.list()
    assert (run.model_version, run.round, run.source) == ("v3", 2, "upload")
    clips = vic.predict("1", api_name="/leaderboard_clips")
    assert [r[1] for r in clips[2]["data"]] == ["a.mp4", "b.mp4", "c.mp4"]

    for name in ("ann", "rita"):  # the admin's Data tab, called by number or name
        out = client(url, name).predict("hf", False, api_name="/data_export")
        assert out[-1].startswith("⚠") and "needs the admin role" in out[-1]


def test_the_chart_is_the_png_gradio_would_send_drawn_once_per_set_of_bars():
    """The leaderboard's chart is drawn once for the same bars and title (each page load shows
    it): the same PNG that ``gr.Plot(format="png")`` makes of the figure, and other bars draw
    anew."""
    import gradio as gr

    from ui.tabs.charts import aspect_chart, aspect_plot

    series = [("run A", {"Camera Movement": 0.5, "Shot Size": None}), ("run B", {})]
    plot = aspect_plot(series, "per aspect")
    assert plot.type == "matplotlib" and plot.plot.startswith("data:image/png;base64,")
    drawn = gr.Plot(format="png").postprocess(aspect_chart(series, "per aspect"))
    assert plot.plot == drawn.plot
    assert aspect_plot([(label, dict(v)) for label, v in series], "per aspect") is plot
    other = aspect_plot([("run A", {"Camera Movement": 0.25})], "per aspect")
    assert other is not plot and other.plot != plot.plot
