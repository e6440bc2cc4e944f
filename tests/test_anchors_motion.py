"""Camera motion on clips with known moves: real photographs filmed by the virtual camera of
cinecap.synthetic, written as MP4, decoded by the real decoder and analysed end to end."""
from __future__ import annotations

import math

import numpy as np
import pytest

from cinecap.testing import synthetic as syn
from cinecap.anchors import analyze
from cinecap.anchors.motion import (MotionConfig, PairMotion, PointTracker, estimate_pair,
                                    motion_from_tracks, segment_shot)

SIZE = (320, 180)


def _clip(tmp_path, segments, subject=False, photo="astronaut", seed=0, name="clip.mp4"):
    return syn.render_clip(tmp_path / name, segments, SIZE, 25.0, photo, subject, seed=seed)


def _moves(path):
    return [m for m in analyze(path).to_dict()["camera_motion"] if not m["abstained"]]


# --- sign conventions on one frame pair (docs/spec/taxonomy.md) -----------------------------

def _warp(img, dx=0.0, dy=0.0, scale=1.0, angle=0.0):
    import cv2

    h, w = img.shape
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    m[:, 2] += (dx, dy)
    return cv2.warpAffine(img, m, (w, h), borderMode=cv2.BORDER_REFLECT)


@pytest.fixture(scope="module")
def texture():
    import cv2

    return cv2.cvtColor(syn.load_photo("coffee"), cv2.COLOR_BGR2GRAY)[50:290, 80:480].copy()


@pytest.mark.parametrize("warp, field, sign", [
    (dict(dx=-4), "pan", +1),      # content moves left → the camera pans right
    (dict(dx=4), "pan", -1),
    (dict(dy=4), "tilt", +1),      # content moves down → the camera tilts up
    (dict(dy=-4), "tilt", -1),
    (dict(scale=1.03), "zoom", +1),  # content grows → zoom in
    (dict(scale=0.97), "zoom", -1),
    (dict(angle=2.0), "roll", +1),  # OpenCV's positive angle turns content counterclockwise
    (dict(angle=-2.0), "roll", -1),
])
def test_pair_motion_signs(texture, warp, field, sign):
    pm = estimate_pair(texture, _warp(texture, **warp), 0.0, 0.1, None, MotionConfig())
    assert pm.valid and pm.points >= 24
    value = getattr(pm, field)
    assert math.copysign(1, value) == sign
    others = {"pan", "tilt", "zoom", "roll"} - {field}
    limits = {"pan": 0.03, "tilt": 0.03, "zoom": 0.03, "roll": 1.0}
    assert all(abs(getattr(pm, o)) < limits[o] * 3 for o in others), pm


def test_tracker_follows_points_across_frames(texture):
    """Corners are followed from frame to frame; the pair motion equals estimate_pair's, and the
    tracks over two pairs carry the summed shift (the parallax test's baseline)."""
    cfg = MotionConfig()
    frames = [_warp(texture, dx=-3 * k) for k in range(4)]
    tr = PointTracker(cfg, history=2)
    assert tr.step(frames[0]) is None  # the first frame has nothing to pair with
    for k in range(1, 4):
        a, b = tr.step(frames[k])
        assert len(a) >= cfg.min_points
        assert np.allclose(np.median(b - a, axis=0), (-3, 0), atol=0.1)
        pm = motion_from_tracks(a, b, texture.shape, 0.0, 0.1, cfg)
        ref = estimate_pair(frames[k - 1], frames[k], 0.0, 0.1, None, cfg)
        assert pm.valid and pm.pan == pytest.approx(ref.pan, abs=0.005)
    a, b = tr.tracks_over(2)
    assert len(a) >= cfg.min_points
    assert np.allclose(np.median(b - a, axis=0), (-6, 0), atol=0.2)
    assert tr.tracks_over(3) is None  # only two pairs of history are kept
    tr.reset()  # a cut: no tracks over the baseline until two new pairs are made
    assert tr.tracks_over(1) is None
    a, b = tr.step(frames[0])
    assert len(a) >= cfg.min_points and tr.tracks_over(1) is not None


def test_tracker_drops_points_under_the_subject_mask(texture):
    cfg = MotionConfig()
    h, w = texture.shape
    mask = np.full((h, w), 255, np.uint8)
    mask[:, : w // 2] = 0  # the subject covers the left half
    tr = PointTracker(cfg)
    tr.step(texture)
    a, _ = tr.step(_warp(texture, dx=2))  # unmasked: corners everywhere
    assert (a[:, 0] < w // 2 - 8).any()
    a, _ = tr.step(_warp(texture, dx=4), mask)  # the mask now hides the left half
    assert len(a) >= cfg.min_points and (a[:, 0] >= w // 2 - 1).all()


# --- whole clips -------------------------------------------------------------------------------

@pytest.mark.parametrize("labels", [("pan left",), ("pan right",), ("tilt up",), ("tilt down",),
                                    ("zoom in",), ("zoom out",), ("roll clockwise",),
                                    ("roll counterclockwise",), ("static",)])
def test_single_move_is_named(tmp_path, labels):
    clip = _clip(tmp_path, [syn.Segment(0.0, 2.0, labels)])
    moves = _moves(clip.path)
    assert len(moves) == 1, moves
    assert moves[0]["movement"] == list(labels)
    assert moves[0]["t_start"] == 0.0 and moves[0]["t_end"] == pytest.approx(2.0, abs=0.05)
    assert 0.0 < moves[0]["confidence"] <= 1.0


def test_compound_move_is_two_labels_at_once(tmp_path):
    clip = _clip(tmp_path, [syn.Segment(0.0, 2.4, ("pan right", "tilt up"))], photo="rocket")
    moves = _moves(clip.path)
    assert [sorted(m["movement"]) for m in moves] == [["pan right", "tilt up"]]


def test_sequence_boundary_within_0_3_s(tmp_path):
    segs = [syn.Segment(0.0, 1.8, ("pan left",)), syn.Segment(1.8, 3.6, ("zoom in",)),
            syn.Segment(3.6, 5.2, ("static",))]
    clip = _clip(tmp_path, segs, photo="coffee")
    moves = _moves(clip.path)
    assert [m["movement"] for m in moves] == [["pan left"], ["zoom in"], ["static"]]
    assert abs(moves[1]["t_start"] - 1.8) <= 0.3
    assert abs(moves[2]["t_start"] - 3.6) <= 0.3
    score = syn.score_motion(clip.segments, moves)
    assert score.f1 == 1.0 and score.frame_accuracy > 0.9


@pytest.mark.parametrize("seed", [1, 3])
def test_moving_subject_is_not_camera_motion(tmp_path, seed):
    """A locked-off camera while a textured subject crosses the frame stays static."""
    clip = _clip(tmp_path, [syn.Segment(0.0, 2.5, ("static",))], subject=True, seed=seed,
                 photo="hubble_deep_field")
    assert clip.subject_track[0][0] != clip.subject_track[-1][0]  # the subject did move
    moves = _moves(clip.path)
    assert [m["movement"] for m in moves] == [["static"]]


def test_frame_filling_subject_needs_the_static_first_test(tmp_path):
    """A subject 85 % of the frame height crossing a locked-off shot: the plain global fit follows
    the subject; the static-first test keeps the camera static."""
    import dataclasses

    from cinecap.anchors import AnchorsConfig

    clip = syn.render_clip(tmp_path / "big.mp4", [syn.Segment(0.0, 3.0, ("static",))], (480, 270),
                           25.0, "coffee", subject=True, seed=3, subject_size=0.85)
    d = analyze(clip.path).to_dict()
    assert [m["movement"] for m in d["camera_motion"] if not m["abstained"]] == [["static"]]
    assert d["camera_motion"][0]["evidence"]["static_first_share"] > 0.5
    # The plain global fit: no static-first test, corners wherever the texture is, the background
    # re-chosen on every pair.
    naive = dataclasses.replace(AnchorsConfig(), motion=MotionConfig(
        still_fraction=0.999, grid=(1, 1), background_memory=0.0))
    fooled = analyze(clip.path, config=naive).to_dict()["camera_motion"]
    assert any(m["movement"] != ["static"] for m in fooled)


def test_pan_with_a_moving_subject_is_still_the_pan(tmp_path):
    clip = _clip(tmp_path, [syn.Segment(0.0, 2.5, ("pan left",))], subject=True, seed=5,
                 photo="retina")
    assert [m["movement"] for m in _moves(clip.path)] == [["pan left"]]


def test_handheld_shake_and_steadiness(tmp_path):
    shaky = _clip(tmp_path, [syn.Segment(0.0, 2.5, ("handheld shake",))], name="shaky.mp4")
    still = _clip(tmp_path, [syn.Segment(0.0, 2.5, ("static",))], name="still.mp4")
    a, b = _moves(shaky.path), _moves(still.path)
    assert [m["movement"] for m in a] == [["handheld shake"]]
    assert a[0]["steadiness"] < 0.3 < 0.8 < b[0]["steadiness"]
    assert a[0]["evidence"]["jitter"] > 5 * b[0]["evidence"]["jitter"]


def test_textureless_clip_abstains(tmp_path):
    """A flat grey clip has nothing to track: no movement is claimed."""
    from tests.support.clips import write_clip

    frames = [np.full((120, 160, 3), 128, np.uint8) for _ in range(40)]
    path = write_clip(tmp_path / "flat.mp4", frames, fps=20)
    d = analyze(path).to_dict()
    assert d["camera_motion"] and all(m["abstained"] and not m["movement"]
                                      for m in d["camera_motion"])


@pytest.mark.slow
def test_random_plans_meet_the_targets(tmp_path):
    """Eight random 1–4 segment clips (compound moves, a subject in half): segment F1 ≥ 0.9 and
    boundary error ≤ 0.3 s, as in benchmarks/motion_quality.py."""
    scores = []
    for seed in range(8):
        clip = syn.random_clip(tmp_path / f"r{seed}.mp4", seed, size=SIZE)
        scores.append(syn.score_motion(clip.segments, analyze(clip.path).to_dict()["camera_motion"]))
    matched = sum(s.segments_matched for s in scores)
    f1 = 2 * matched / (sum(s.segments_true for s in scores) + sum(s.segments_pred for s in scores))
    errors = [e for s in scores for e in s.boundary_errors]
    assert f1 >= 0.9
    assert np.mean(errors) <= 0.3
    assert sum(s.false_motion_s for s in scores) <= 0.1 * max(1e-9, sum(s.static_s for s in scores)) + 0.2


def _two_layer_clip(path, v_far: float, v_near: float, n: int = 50):
    """A far layer (top) and a near layer (bottom strip) sliding left at their own speeds: one
    speed for both is a pan; a faster near layer is the parallax of a sideways camera move."""
    import cv2

    from tests.support.clips import write_clip

    far = cv2.resize(syn.load_photo("astronaut"), (1400, 270))
    near = cv2.resize(syn.load_photo("hubble_deep_field"), (2400, 270))
    frames = []
    for i in range(n):
        f = far[:, int(i * v_far):int(i * v_far) + 480].copy()
        f[160:] = near[160:, int(i * v_near):int(i * v_near) + 480]
        frames.append(f)
    return write_clip(path, frames, fps=25)


def test_parallax_separates_truck_from_pan(tmp_path):
    pan = analyze(_two_layer_clip(tmp_path / "pan.mp4", 3, 3)).to_dict()["camera_motion"]
    truck = analyze(_two_layer_clip(tmp_path / "truck.mp4", 2, 6)).to_dict()["camera_motion"]
    assert [m["movement"] for m in pan] == [["pan right"]]
    assert pan[0]["evidence"]["parallax_px"] < 0.5
    assert [m["movement"] for m in truck] == [["truck right"]]
    assert truck[0]["evidence"]["parallax_px"] > 5


def test_textured_non_face_subject_is_not_camera_motion(tmp_path):
    """A highly textured blob that is not a face (6–25 % of the frame, turning, changing speed and
    heading on its own) over a smooth photo while the camera zooms in, then pans right: both moves
    are read, with their boundary, and nothing from the subject. (The plain global fit — corners
    wherever the texture is, the background re-chosen on every pair — follows the blob here and
    matches neither segment.)"""
    clip = syn.random_clip(tmp_path / "blob.mp4", 1, size=SIZE, subject_area=(0.06, 0.25))
    assert [s.labels for s in clip.segments] == [("zoom in",), ("pan right",)] and clip.has_subject
    moves = _moves(clip.path)
    assert [m["movement"] for m in moves] == [["zoom in"], ["pan right"]]
    assert abs(moves[1]["t_start"] - clip.segments[1].t_start) <= 0.3


def test_whip_pan_is_not_a_cut(tmp_path):
    """A very fast pan (1.5 frame widths per second) changes the picture as much as a cut; the
    content detector fires inside it, but a sweep on one side of the 'cut' with the same sweep
    (or lost tracking) on the other is a whip pan: one shot, panning right."""
    clip = syn.render_clip(tmp_path / "whip.mp4", [syn.Segment(0.0, 3.0, ("pan right",))], SIZE,
                           25.0, "astronaut", rates=syn.MoveRates(pan=1.5))
    d = analyze(clip.path).to_dict()
    assert d["cuts"] == [] and len(d["shots"]) == 1
    assert [m["movement"] for m in d["camera_motion"] if not m["abstained"]] == [["pan right"]]


def test_inlier_span_is_the_width_the_fit_follows():
    """The fit's inliers cover the frame when the whole scene moves; a strip when only points in
    one narrow object moved together (and the rest of the frame disagrees)."""
    rng = np.random.default_rng(1)
    w, h = SIZE
    wide = np.column_stack([rng.uniform(10, w - 10, 80), rng.uniform(10, h - 10, 80)]).astype(np.float32)
    pm = motion_from_tracks(wide, wide + (-3.0, 0.0), (h, w), 0.0, 0.1, MotionConfig())
    assert pm.valid and pm.span > 0.7 and pm.pan > 0
    strip = np.column_stack([rng.uniform(150, 170, 50), rng.uniform(10, h - 10, 50)])
    rest = np.column_stack([rng.uniform(10, w - 10, 30), rng.uniform(10, h - 10, 30)])
    a = np.vstack([strip, rest]).astype(np.float32)
    b = a + np.vstack([np.tile((-3.0, 0.0), (50, 1)), rng.normal(0, 4, (30, 2))]).astype(np.float32)
    pm = motion_from_tracks(a, b, (h, w), 0.0, 0.1, MotionConfig())
    assert pm.valid and pm.span < 0.15


@pytest.mark.parametrize("span, abstained", [(0.9, False), (0.1, True)])
def test_a_move_followed_in_a_narrow_strip_is_abstained(span, abstained):
    """A clear pan (clean fit, many points, every pair agreeing) is stated when its inliers cover
    the frame, abstained when they sit in a strip under min_span of the width (one object)."""
    pairs = [PairMotion(i * 0.1, (i + 1) * 0.1, pan=0.2, points=80, inliers=0.8, span=span)
             for i in range(20)]
    out = segment_shot(pairs, 0.0, 2.0, MotionConfig())
    assert len(out) == 1 and out[0].movement == ["pan right"]
    assert out[0].abstained is abstained
    assert out[0].evidence["inlier_span"] == pytest.approx(span)
    assert ("strip" in out[0].evidence.get("reason", "")) is abstained
