"""The cheaper ways the analysis measures things give the numbers of their definitions, to the
bit (task bikespeed, docs/anchors.md): the sharpness grid from integer Sobel squares, the sky's
flood, the letterbox rows, the nan-medians of the depth-of-field judgement, the track medians,
the keyframes' colour through one kept swscale context, and lines measured when first read.

Real frames decoded by the real decoder (bikes.mp4, bigbuckbunny.mp4), each against the plain
numpy / OpenCV / PyAV definition written out here.
"""
from __future__ import annotations

import warnings

import cv2
import numpy as np
import pytest

from cinecap.anchors.angle import AngleConfig, keyframe_lines, picture_rows, sky_measurements
from cinecap.anchors.focus import FocusConfig, _nanmedian0, _percentiles, block_sharpness
from cinecap.anchors.subjects import _median
from cinecap.video import iter_frames


@pytest.fixture(scope="module")
def frames(bikes, bigbuckbunny):
    out = []
    for clip in (bikes, bigbuckbunny):
        out += [f.gray.copy() for f in iter_frames(clip, max_side=400, step=12) if f.gray is not None]
    # Darker (letterbox-like rows, flat blocks) and brighter (more sky) versions of each.
    return out + [g // 5 for g in out[::3]] + [cv2.add(g, 90) for g in out[::3]]


def _sharpness_by_definition(gray: np.ndarray, cfg: FocusConfig) -> np.ndarray:
    g = gray.astype(np.float32)
    mag = np.hypot(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)) / 8
    rows, cols = cfg.grid
    hh, ww = g.shape[0] // rows * rows, g.shape[1] // cols * cols

    def blocks(a):
        return a[:hh, :ww].reshape(rows, hh // rows, cols, ww // cols).transpose(0, 2, 1, 3).reshape(
            rows, cols, -1)

    lo, hi = np.percentile(blocks(g), [3, 97], axis=2)
    steep = np.percentile(blocks(mag), 97, axis=2)
    out = steep / np.maximum(hi - lo, 1e-6)
    out[hi - lo < cfg.min_contrast] = np.nan
    return out


def test_float32_hypot_of_sobel_derivatives_is_the_rounded_double_root():
    """Every pair of 3x3 Sobel derivatives of a grey image (whole numbers up to 1020): np.hypot
    in float32 is float32(sqrt(float64(dx² + dy²))), so a function of dx² + dy² alone."""
    v = np.arange(0, 1021, dtype=np.float32)
    x, y = np.meshgrid(v, v)
    sq = x.astype(np.float64) ** 2 + y.astype(np.float64) ** 2
    assert np.array_equal(np.hypot(x, y), np.sqrt(sq).astype(np.float32))
    assert np.array_equal(np.hypot(-x, y), np.hypot(x, y))


def test_sharpness_grid_is_its_definition(frames):
    for g in frames:
        for cfg in (FocusConfig(), FocusConfig(grid=(12, 16)), FocusConfig(grid=(5, 7))):
            ours, ref = block_sharpness(g, cfg), _sharpness_by_definition(g, cfg)
            assert ours.dtype == ref.dtype and np.array_equal(ours, ref, equal_nan=True)
    # A float image takes the definition's own path.
    g = frames[0].astype(np.float32) * 0.5
    assert np.array_equal(block_sharpness(g, FocusConfig()),
                          _sharpness_by_definition(g, FocusConfig()), equal_nan=True)


def test_percentiles_stay_numpys(frames):
    blocks = frames[1].astype(np.float32)[:160, :400].reshape(8, 20, 8, 50).transpose(0, 2, 1, 3)
    blocks = blocks.reshape(8, 8, -1)
    for qs in ((3, 97), (97,), (50,)):
        ref = np.percentile(blocks, list(qs) if len(qs) > 1 else qs[0], axis=2)
        for a, b in zip(_percentiles(blocks, qs), list(ref) if len(qs) > 1 else [ref]):
            assert a.dtype == b.dtype and np.array_equal(a, b)


def test_nanmedian_over_keyframes_is_numpys():
    rng = np.random.default_rng(7)
    for k in range(1, 10):
        for _ in range(300):
            a = rng.random((k, 6, 8)) * rng.choice([0.4, 1.0, 3.0])
            a[rng.random(a.shape) < rng.choice([0.0, 0.3, 0.8])] = np.nan
            if rng.random() < 0.3:
                a = np.round(a, 1)  # ties
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                ref = np.nanmedian(a, axis=0)
            ours = _nanmedian0(a)
            assert ours.dtype == ref.dtype and np.array_equal(ours, ref, equal_nan=True)


def test_track_median_is_numpys():
    rng = np.random.default_rng(8)
    for n in range(1, 25):
        for _ in range(200):
            v = [float(x) for x in rng.random(n) * rng.choice([1e-3, 1.0, 7.3])]
            assert _median(v) == float(np.median(v))


def _sky_by_definition(gray, cfg, blocks=20):
    rows, sd = gray.mean(1), gray.std(1)
    bar = (rows < 24) & (sd < 10)
    n = len(bar)
    top = 0
    while top < n // 3 and bar[top]:
        top += 1
    bot = n
    while bot > 2 * n // 3 and bar[bot - 1]:
        bot -= 1
    top, bot = (top + 4 if top else 0), (bot - 4 if bot < n else n)
    p = gray[top:bot].astype(np.float32)
    bh, bw = p.shape[0] // blocks, p.shape[1] // blocks
    mag = cv2.magnitude(cv2.Sobel(p, cv2.CV_32F, 1, 0), cv2.Sobel(p, cv2.CV_32F, 0, 1))
    grad = mag[:bh * blocks, :bw * blocks].reshape(blocks, bh, blocks, bw).mean((1, 3))
    bright = p[:bh * blocks, :bw * blocks].reshape(blocks, bh, blocks, bw).mean((1, 3))
    smooth = (grad < cfg.sky_gradient) & (bright > cfg.sky_brightness)
    sky = np.zeros_like(smooth)
    sky[0] = smooth[0]
    for r in range(1, blocks):
        sky[r] = smooth[r] & (sky[r - 1] | np.roll(sky[r - 1], 1) | np.roll(sky[r - 1], -1))
    return (top, bot), {"sky_share": round(float(sky.mean()), 3),
                        "skyline": round(float(np.median(sky.sum(0))) / blocks, 3)}


def test_sky_and_letterbox_rows_are_their_definition(frames):
    cfg = AngleConfig()
    skies = 0
    for g in frames:
        rows, sky = _sky_by_definition(g, cfg)
        assert picture_rows(g) == rows
        assert sky_measurements(g, cfg) == sky
        skies += sky["sky_share"] > 0
    assert skies >= 5  # the flood itself was exercised
    # Random sky masks, wrapping around the row's ends included: bright flat blocks on texture.
    rng = np.random.default_rng(9)
    for _ in range(40):
        smooth = rng.random((20, 20)) < rng.choice([0.5, 0.8])
        noise = rng.integers(0, 255, (200, 400)).astype(np.uint8)
        g = np.where(np.kron(smooth, np.ones((10, 20), bool)), np.uint8(220), noise)
        assert sky_measurements(g, cfg) == _sky_by_definition(g, cfg)[1]


def test_keyframe_colour_is_pyavs_conversion(bikes):
    """The detectors' colour frame, converted through one kept swscale context, has PyAV's
    per-frame ``to_ndarray`` pixels."""
    import av

    with av.open(str(bikes)) as c:
        ref = [fr.to_ndarray(format="bgr24", width=400, height=170)
               for i, fr in zip(range(12 * 9 + 1), c.decode(video=0)) if i % 9 == 0]
    ours = [f.to_bgr() for f in iter_frames(bikes, max_side=400, step=9)
            if f.gray is not None and f.index <= 12 * 9]
    assert len(ours) == len(ref) and all(np.array_equal(a, b) for a, b in zip(ours, ref))


def test_lines_are_measured_when_read(bikes):
    """A keyframe of the clip's last, too-short shot is never framed, so its lines are not
    measured during the analysis; reading them measures the same numbers as any keyframe's."""
    from cinecap.anchors import analyze

    an = analyze(bikes)
    last = [k for k in an.keyframes if k.t >= an.shots[-1][0]]
    framed = [k for k in an.keyframes if k.t < an.shots[-1][0]]
    assert an.shots[-1][1] - an.shots[-1][0] < an.config.min_shot_s and last
    assert all(k.measured_lines is None for k in last)
    assert all(k.measured_lines is not None for k in framed)
    for k in last + framed[:2]:
        assert k.lines == keyframe_lines(k.gray, AngleConfig())
    assert last[0].measured_lines is not None
