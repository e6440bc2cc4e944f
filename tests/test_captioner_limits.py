"""Wherever an ``anchors`` caption is shown, what it is worth is said beside it: one text,
``cinecap.captioners.limits.ANCHORS_LIMITS``, with the first-run figures of the fresh held-out
sets in docs/anchors.md — checked against that table here — in ``cinecap captioners`` (human and
``--json``), ``cinecap caption`` (a note after the caption, and the JSON's meta), and the Caption
tab's status line (its short form; tests/test_app_client.py checks it through ``python app.py``);
never for another captioner."""
from __future__ import annotations

import json
import re
from pathlib import Path

from cinecap.captioners.limits import (ANCHORS_LIMITS, ANCHORS_LIMITS_SHORT, FRESH_CLIPS,
                                       FRESH_SETS, PRECISION_HIGH, PRECISION_LOW, RECALL_HIGH,
                                       RECALL_LOW, captioner_limits)
from tests.support.cli import cli

DOCS = Path(__file__).resolve().parents[1] / "docs" / "anchors.md"
SPLIT = Path(__file__).resolve().parents[1] / "benchmarks" / "footage" / "split.json"


def test_the_figures_are_the_fresh_sets_first_runs_in_docs_anchors_md():
    # | held-out, run once after development: P ≥ 0.75 at R ≥ 0.45 | … heldout2 **0.63 / 0.28**, …
    row = next(line for line in DOCS.read_text().splitlines()
               if line.startswith("| held-out, run once after development"))
    runs = {name: (float(p), float(r)) for name, p, r in
            re.findall(r"(heldout\d) \*\*([\d.]+) / ([\d.]+)\*\*", row)}
    assert set(runs) == set(FRESH_SETS), "a newer fresh set: update cinecap/captioners/limits.py"
    assert (round(100 * min(p for p, _ in runs.values())),
            round(100 * max(p for p, _ in runs.values()))) == (PRECISION_LOW, PRECISION_HIGH)
    assert (round(100 * min(r for _, r in runs.values())),
            round(100 * max(r for _, r in runs.values()))) == (RECALL_LOW, RECALL_HIGH)

    split = json.loads(SPLIT.read_text())
    assert sum(len(split[name]) for name in FRESH_SETS) == FRESH_CLIPS
    for figure in (f"{PRECISION_LOW}–{PRECISION_HIGH} %", f"{RECALL_LOW}–{RECALL_HIGH} %",
                   f"{FRESH_CLIPS} clips", "docs/anchors.md", "vlm"):
        assert figure in ANCHORS_LIMITS
    assert f"{PRECISION_LOW}–{PRECISION_HIGH} %" in ANCHORS_LIMITS_SHORT


def test_only_the_anchors_captioner_states_limits():
    assert captioner_limits("anchors") == ANCHORS_LIMITS
    assert captioner_limits("anchors", short=True) == ANCHORS_LIMITS_SHORT
    for other in ("vlm", "openai", None, ""):
        assert captioner_limits(other) is None and captioner_limits(other, short=True) is None


def test_cinecap_captioners_says_it_under_the_anchors_line():
    r = cli("captioners")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    at = lines.index(next(x for x in lines if x.startswith("anchors")))
    assert lines[at + 2].strip() == ANCHORS_LIMITS
    assert sum(ANCHORS_LIMITS in x for x in lines) == 1  # not under vlm or openai
    rows = {x["name"]: x for x in cli("captioners", "--json").json()}
    assert rows["anchors"]["limits"] == ANCHORS_LIMITS
    assert rows["vlm"]["limits"] is None and rows["openai"]["limits"] is None


def test_cinecap_caption_notes_it_after_the_caption_and_keeps_it_in_the_json(small_clip):
    human = cli("caption", str(small_clip))
    assert human.returncode == 0, human.stderr
    assert f"note: {ANCHORS_LIMITS}" in human.stderr and ANCHORS_LIMITS not in human.stdout
    d = cli("caption", str(small_clip), "--json").json()
    assert d["meta"]["limits"] == ANCHORS_LIMITS


def test_the_readme_states_the_same_figures():
    readme = (DOCS.parents[1] / "README.md").read_text()
    assert (f"{PRECISION_LOW}–{PRECISION_HIGH} % of its statements were right" in readme
            and f"{RECALL_LOW}–{RECALL_HIGH} % of what annotators wrote" in readme)
