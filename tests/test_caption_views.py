"""The Caption tab's HTML, as a reader checks it: statements, the timeline, the evidence by shot,
the scores in words and the header — every piece of text escaped, every number the one the
library computes (the browser tests, tests/test_demo_browser.py, check the same HTML rendered)."""
from __future__ import annotations

import re

import pytest

from cinecap.judge import get_judge
from cinecap.reward import RewardConfig, reward
from ui.tabs.results import file_url, moment_html, scores_html, shots_html, statements_html
from ui.tabs.tables import escaped
from ui.tabs.timeline import timeline_html
from ui.usecases import caption

HOSTILE = "<img src=x onerror=alert(1)><script>alert(2)</script>"
STATEMENTS = [
    {"aspect": "Camera Movement", "value": "static", "t_start": 0.0, "t_end": 1.2,
     "text": "The camera is static.", "evidence": "72 points stay still"},
    {"aspect": "Camera Movement", "value": "pan right", "t_start": 2.42, "t_end": 3.04,
     "text": HOSTILE, "evidence": HOSTILE},
    {"aspect": "Depth of Field", "value": "shallow depth of field", "t_start": 7.5,
     "t_end": 9.68, "text": "Shallow.", "evidence": ""},
    {"aspect": "Shot Size", "value": "close-up", "t_start": None, "t_end": None,
     "text": "A close-up.", "evidence": "face 42%"},
]


def test_statements_play_their_interval_and_show_hostile_text_as_text():
    html = statements_html(STATEMENTS, "#caption-video")
    assert "<script>" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in html
    seeks = re.findall(r"<tr data-seek='([\d.]+) ([\d.]+)'", html)
    assert seeks == [("0.000", "1.200"), ("2.420", "3.040"), ("7.500", "9.680")]
    assert "whole clip" in html  # the close-up holds for the whole clip: no seek
    assert "data-player='#caption-video'" in html


def test_timeline_lanes_labels_and_sides():
    html = timeline_html(STATEMENTS, 10.0, "#caption-video")
    assert "<script>" not in html
    lanes = re.findall(r"<button type='button' class='cc-tl-lane( cc-end)?' style='[^']*;"
                       r"padding-(left|right):([\d.]+)%' data-seek='([\d.]+) ([\d.]+)'", html)
    # A bar in the first half has its label start at the bar; otherwise end at it: either way at
    # least half the width is the label's.
    assert lanes == [("", "left", "0.000", "0.000", "1.200"),
                     ("", "left", "24.200", "2.420", "3.040"),
                     (" cc-end", "right", "3.200", "7.500", "9.680")]
    bars = re.findall(r"class='cc-tl-bar' style='left:([\d.]+)%;width:([\d.]+)%'", html)
    assert ("24.200", "6.200") in bars and ("0%", "100%") not in bars
    assert "shallow depth of field <small>7.50–9.68 s</small>" in html
    assert html.count("class='cc-tl-aspect'") == 3  # Camera Movement, Shot Size, Depth of Field
    names = re.findall(r"class='cc-tl-name'>([^<]+)<", html)
    assert names == ["Camera Movement", "Shot Size", "Depth of Field", "time (s)"]
    ticks = re.findall(r"style='left:[\d.]+%'>([\d.]+)</span>", html)
    assert ticks == ["0", "2", "4", "6", "8", "10"]


def test_timeline_escapes_values_and_survives_no_statements():
    odd = [{"aspect": "Camera Movement", "value": "<b>pan</b>", "t_start": 0.0, "t_end": 1.0,
            "text": "x"}]
    assert "&lt;b&gt;pan&lt;/b&gt;" in timeline_html(odd, None, "#v")
    assert "No statements" in timeline_html([], None, "#v")


def test_evidence_by_shot_and_at_the_current_moment():
    overlays = [(f"/page/viewer/u/t/overlay-{i:02d}.webp", f"shot {i // 2 + 1} @ 1.0s: {kind}")
                for i, kind in enumerate(["tracked background", "subject"] * 2)]
    shots = [{"t_start": 0.0, "t_end": 1.2}, {"t_start": 1.2, "t_end": 3.04}]
    html = moment_html(overlays, shots, 3.04, "#caption-video")
    figures = re.findall(r"<figure data-shot='(\d)' data-t0='([\d.]+)' data-t1='([\d.]+)'"
                         r"( hidden)?>", html)
    assert figures == [("0", "0.000", "1.200", ""), ("1", "1.200", "3.040", " hidden")]
    assert html.count("<img ") == 4 and file_url(overlays[3][0]) in html
    assert "Shot 2 · 1.20–3.04 s" in html
    every = shots_html(overlays, shots, "#caption-video")
    assert "data-seek='1.200 3.040'" in every and " hidden" not in every
    assert "no pixel evidence" in moment_html([], [], None, "#v", "vlm")


def test_a_title_that_names_no_shot_still_shows():
    html = moment_html([("/p/a.webp", "<odd title>")], [], None, "#v")
    assert "&lt;odd title&gt;" in html and "<figure data-shot='-1'>" in html


@pytest.fixture(scope="module")
def judged():
    gold = ("The camera is static, then pans right. It is a close-up in shallow depth of field. "
            "A slow motion shot.")
    pred = "The camera pans right. A wide shot, in deep focus."
    return get_judge("rules").judge(gold, pred).to_dict()


def test_scores_in_words_match_the_library(judged):
    views, rewards = caption.statement_views(judged), caption.rewards(judged)
    html = scores_html(judged, views, rewards, caption.COVERAGE_HELP)
    sym = reward(judged)
    under = reward(judged, RewardConfig(coverage="under"))
    assert rewards["symmetric"]["total"] == pytest.approx(sym.total)
    assert f"GRPO reward {sym.total:.3f}" in html and f"<b>{under.total:.3f}</b>" in html
    assert f"Comprehensiveness {judged['comprehensiveness']:.2f}" in html
    assert f"F1 {judged['f1']:.2f}" in html
    rows = dict(re.findall(r"<tr><td data-label='aspect'><b>([^<]+)</b>(.*?)</tr>", html))
    assert "pan right" in rows["Camera Movement"] and "cc-matched" in rows["Camera Movement"]
    assert "static" in rows["Camera Movement"].split("cc-missed")[1]  # missed: not said
    size = rows["Shot Size"]
    assert "close-up" in size.split("cc-missed")[1] and "wide shot" in size.split("cc-extra")[1]
    for words in caption.COVERAGE_HELP.values():
        assert escaped(words) in html  # both coverage modes explained
    assert "gate" in html


def test_scores_without_a_gold_caption_a_failed_judge_and_an_llm_judgement(judged):
    assert "No gold caption" in scores_html(None, None, None, caption.COVERAGE_HELP)
    failed = {**judged, "failed": True, "error": "<server down>"}
    assert caption.rewards(failed) is None
    assert "&lt;server down&gt;" in scores_html(failed, None, None, caption.COVERAGE_HELP)
    # An llm-style judgement: only the GT side of a match, extras only counted.
    llm = {"by_dim": {"Camera Movement": {
        "gt_statements": ["pan left", "tilt up"], "pred_statements": ["pan left", "zoom in"],
        "matched_statements": ["pan left"], "gt_count": 2, "pred_count": 2, "matched_count": 1}},
        "total_gt_count": 2, "total_pred_count": 2, "total_matched_count": 1,
        "comprehensiveness": 0.5, "accuracy": 0.5, "f1": 0.5, "judge": "llm",
        "judge_version": "x", "failed": False, "error": None}
    html = scores_html(llm, caption.statement_views(llm), caption.rewards(llm),
                       caption.COVERAGE_HELP)
    assert "1 statement(s) (this judge gives only their number)" in html
    assert "tilt up" in html.split("cc-missed")[1]


def test_the_export_holds_the_reward_and_the_statement_view(judged, tmp_path):
    import json
    from pathlib import Path

    out = caption.CaptionOutcome({"caption": "c", "statements": []}, "/x/clip.mp4", {},
                                 judge=judged, gold_caption="g")
    data = json.loads(Path(caption.export_json(out, tmp_path)).read_text())
    sym = reward(judged)
    assert data["reward"] == pytest.approx(sym.total)
    assert data["reward_breakdown"]["r_cov"] == pytest.approx(sym.r_cov)
    assert data["reward_config"] == json.loads(json.dumps(RewardConfig().to_dict()))
    assert set(data["rewards"]) == {"symmetric", "under"}
    assert data["statement_view"]["Shot Size"]["missed"][0]["statement"] == "close-up"
    assert data["video"] == "clip.mp4"  # a name, never a server path


def test_timeline_shows_uncertain_stretches_hatched_and_playable():
    unsure = [{"aspect": "Camera Movement", "t_start": 1.2, "t_end": 2.42, "shot": 1,
               "reason": "too few <trackable> background points"}]
    html = timeline_html(STATEMENTS, 10.0, "#caption-video", unsure)
    lane = re.search(r"<button type='button' class='cc-tl-lane cc-uncertain'[^>]*>", html)
    assert lane and "data-seek='1.200 2.420'" in lane.group(0)
    assert "nothing stated here: too few &lt;trackable&gt; background points" in lane.group(0)
    assert "uncertain <small>1.20–2.42 s</small>" in html
    # In time order within its row: after the static 0–1.2 s, before the pan from 2.42 s.
    seeks = re.findall(r"data-seek='([\d.]+) ", html)
    assert seeks[:3] == ["0.000", "1.200", "2.420"]
    only = timeline_html([], 4.0, "#v", [dict(unsure[0], t_start=0.0, t_end=4.0)])
    assert "No statements" not in only and "cc-uncertain" in only
