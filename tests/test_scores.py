"""Pair scores and the benchmark aggregation (docs/spec/judge.md "Scores"), with worked numbers."""
from __future__ import annotations

import json

import pytest

from cinecap import taxonomy as tx
from cinecap.judge.base import AspectCounts, Judgement
from cinecap.judge.rules import RulesJudge
from cinecap.judge.scores import aggregate, aspect_scores, pair_scores


def judgement(**dims: tuple[int, int, int]) -> Judgement:
    names = {"CM": tx.CAMERA_MOVEMENT, "SS": tx.SHOT_SIZE, "SP": tx.SPECIAL_SHOTS}
    by_dim = {a: AspectCounts() for a in tx.ASPECTS}
    for k, (g, p, m) in dims.items():
        by_dim[names[k]] = AspectCounts(gt_count=g, pred_count=p, matched_count=m)
    return Judgement(by_dim, "test", "1")


def test_pair_scores():
    s = pair_scores(judgement(CM=(3, 2, 2), SS=(1, 2, 1)))   # N_gt 4, N_pred 4, M 3
    assert (s.comprehensiveness, s.accuracy, s.f1) == (0.75, 0.75, 0.75)


def test_pair_scores_conventions_for_empty_sides():
    assert pair_scores(judgement(SP=(0, 2, 0))).comprehensiveness == 1.0       # benchmark
    assert pair_scores(judgement(SP=(0, 2, 0)), empty_gt=0.0).comprehensiveness == 0.0
    s = pair_scores(judgement(CM=(2, 0, 0)))
    assert (s.comprehensiveness, s.accuracy, s.f1) == (0.0, 0.0, 0.0)


def test_aspect_scores():
    s = aspect_scores(AspectCounts(gt_count=4, pred_count=2, matched_count=1))
    assert (s.comprehensiveness, s.accuracy) == (0.25, 0.5)


def test_released_aggregation_and_present_only_averages():
    a = judgement(CM=(2, 2, 2), SS=(2, 2, 0))           # cmp .5, acc .5
    b = judgement(CM=(1, 4, 1))                         # cmp 1, acc .25
    c = Judgement.failure("test", "1", "timeout")       # excluded, counted
    agg = aggregate([a, b, c])
    assert (agg.judged, agg.failed) == (2, 1)
    assert agg.comprehensiveness == pytest.approx(0.75)
    assert agg.accuracy == pytest.approx(0.375)
    # F1 from the two averages (0.5), not the mean of per-clip F1s ((0.5 + 0.4) / 2 = 0.45).
    assert agg.f1 == pytest.approx(2 * 0.75 * 0.375 / 1.125)
    cm, ss, sp = (agg.by_aspect[x] for x in (tx.CAMERA_MOVEMENT, tx.SHOT_SIZE, tx.SPECIAL_SHOTS))
    assert (cm.cmp_all_clips, cm.acc_all_clips) == (1.0, pytest.approx(0.625))
    # Shot Size is absent from clip b: released averaging counts 0 there, present-only skips it.
    assert (ss.cmp_all_clips, ss.cmp_present_only, ss.clips_with_gt) == (0.0, 0.0, 1)
    a2 = judgement(CM=(2, 2, 2), SS=(2, 2, 2))
    ss2 = aggregate([a2, b]).by_aspect[tx.SHOT_SIZE]
    assert (ss2.cmp_all_clips, ss2.cmp_present_only) == (0.5, 1.0)
    assert ss2.mean_all_clips == 0.5
    assert (sp.cmp_present_only, sp.acc_present_only, sp.clips_with_gt) == (None, None, 0)


def test_aggregate_of_nothing_or_only_failures():
    agg = aggregate([Judgement.failure("t", "1", "x")])
    assert (agg.judged, agg.failed, agg.f1) == (0, 1, 0.0)


def test_aggregate_is_json_and_has_a_labelled_table():
    js = [RulesJudge().judge("The camera pans left. A close-up.", "The camera pans left.")]
    agg = aggregate(js)
    d = json.loads(json.dumps(agg.to_dict()))
    assert d["by_aspect"][tx.CAMERA_MOVEMENT]["mean_all_clips"] == 1.0
    assert "released" in d["averaging"] and "present_only" in d["averaging"]
    table = agg.table()
    assert "cmp(all)" in table and "cmp(present)" in table and "failed 0" in table
