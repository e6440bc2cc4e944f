"""The cheaper ways the analysis measures things give the numbers of their definitions, to the
bit (tasks bikespeed and anchorspeed2, docs/anchors.md): the sharpness grid from integer Sobel
squares, the sky's flood, the letterbox rows, the nan-medians of the depth-of-field judgement,
the track medians, the keyframes' colour through one kept swscale context, lines measured when
first read, Lucas-Kanade without its residual pass, one kept LSD detector, the corners' ranks
per grid cell, and the tracker's fresh-corner retry skipped where it would repeat the top-up.

Real frames decoded by the real decoder (bikes.mp4, bigbuckbunny.mp4), each against the plain
numpy / OpenCV / PyAV definition written out here.
"""
from __future__ import annotations

import warnings

import cv2
import numpy as np
import pytest

from cinecap.anchors.angle import AngleConfig, keyframe_lines, picture_rows, sky_measurements
from cinecap.anchors.focus import (FocusConfig, _nanmedian0, _percentiles, block_focus,
                                   block_sharpness)
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
    return _focus_by_definition(gray, cfg)[0]


def _focus_by_definition(gray: np.ndarray, cfg: FocusConfig) -> tuple[np.ndarray, np.ndarray]:
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
    return out, hi - lo


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
            # The grey-level range the depth-of-field judgement reads beside it (the veil rule).
            (s, contrast), (_, ref_contrast) = block_focus(g, cfg), _focus_by_definition(g, cfg)
            assert np.array_equal(s, ours, equal_nan=True)
            assert contrast.dtype == ref_contrast.dtype and np.array_equal(contrast, ref_contrast)
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
    if sky.any() and grad[sky].mean() < cfg.sky_grain:  # no grain: a flat backdrop, no sky
        return (top, bot), {"sky_share": 0.0, "skyline": 0.0, "flat_backdrop": True}
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
    kinds = []
    for _ in range(40):
        smooth = rng.random((20, 20)) < rng.choice([0.5, 0.8])
        noise = rng.integers(0, 255, (200, 400)).astype(np.uint8)
        g = np.where(np.kron(smooth, np.ones((10, 20), bool)), np.uint8(220), noise)
        got = sky_measurements(g, cfg)
        assert got == _sky_by_definition(g, cfg)[1]
        kinds.append("flat" if got.get("flat_backdrop") else "sky" if got["sky_share"] else "none")
    # Both of the flood's outcomes are exercised: a sky, and a backdrop without grain.
    assert kinds.count("sky") >= 5 and kinds.count("flat") >= 5, kinds


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


@pytest.fixture(scope="module")
def sequences(bikes, bigbuckbunny):
    """Consecutive analysed frames (8 a second at 400 px, as the analysis reads them) of both
    clips: bikes' six shots give pairs across cuts, where every track is lost."""
    return [[f.gray.copy() for f in iter_frames(clip, max_side=400, step=3) if f.gray is not None]
            for clip in (bikes, bigbuckbunny)]


def test_lucas_kanade_without_its_residual_pass_tracks_the_same(sequences):
    """``motion._lk`` (LK with ``OPTFLOW_LK_GET_MIN_EIGENVALS``, no residual pass) gives the
    positions and the status of the plain call for every point, forward and backward; points
    that end outside the image's window margin lose their status as in the plain call."""
    from cinecap.anchors.motion import MotionConfig, _corners, _lk, _lk_params

    pairs = lost = outside = 0
    for cfg in (MotionConfig(), MotionConfig(lk_window=9)):
        for frames in sequences:
            for prev, cur in zip(frames, frames[1:]):
                p0 = _corners(prev, None, cfg).reshape(-1, 1, 2)
                if not len(p0):
                    continue
                for a, b in ((prev, cur), (cur, prev)):
                    p1, st = _lk(a, b, p0, cfg)
                    ref = cv2.calcOpticalFlowPyrLK(a, b, p0, None, **_lk_params(cfg))
                    assert np.array_equal(p1, ref[0]) and np.array_equal(st, ref[1].ravel() == 1)
                    lost += int((ref[1] == 0).sum())
                    x, y = ref[0][:, 0, 0], ref[0][:, 0, 1]
                    outside += int(((x < 0) | (y < 0) | (x >= a.shape[1]) | (y >= a.shape[0])).sum())
                pairs += 1
    # Lost points (cuts, edges) and points tracked out of the frame were compared too.
    assert pairs > 200 and lost > 100 and outside > 10


def test_kept_line_detector_finds_what_a_new_one_finds(frames):
    from cinecap.anchors.angle import detect_lines

    cfg = AngleConfig()
    # Frames of different content and size one after the other, twice: nothing carries over.
    order = frames[::2] + [g[10:150, 20:380] for g in frames[1::4]] + frames[::2]
    for g in order:
        ref = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD).detect(g)[0]
        ref = np.zeros((0, 4), np.float32) if ref is None else ref.reshape(-1, 4)
        diag = float(np.hypot(*g.shape[:2]))
        ref = ref[np.hypot(ref[:, 2] - ref[:, 0], ref[:, 3] - ref[:, 1]) >= cfg.min_length * diag]
        assert np.array_equal(detect_lines(g, cfg), ref)


def _corners_by_definition(gray, mask, cfg, max_corners=None):
    """``motion._corners`` with its rank loop written out: each corner's place among the corners
    of its grid cell, in quality order."""
    n = max_corners or cfg.max_corners
    rows, cols = cfg.grid
    p0 = cv2.goodFeaturesToTrack(gray, n * 3, cfg.quality, cfg.min_distance, mask=mask, blockSize=7)
    if p0 is None:
        return np.zeros((0, 2), np.float32)
    p0 = p0.reshape(-1, 2)
    if len(p0) <= n:
        return p0[:n]
    h, w = gray.shape[:2]
    cell = (np.minimum(p0[:, 1] * rows // h, rows - 1) * cols
            + np.minimum(p0[:, 0] * cols // w, cols - 1)).astype(int)
    rank, seen = np.zeros(len(p0), int), np.zeros(rows * cols, int)
    for i, c in enumerate(cell):
        rank[i] = seen[c]
        seen[c] += 1
    keep = rank < max(1, -(-n // (rows * cols)))
    chosen = p0[keep]
    if len(chosen) < n:
        chosen = np.vstack([chosen, p0[~keep][: n - len(chosen)]])
    return chosen[:n].astype(np.float32)


def test_corners_per_cell_are_the_ranked_definition(sequences):
    from cinecap.anchors.motion import MotionConfig, _corners

    rng = np.random.default_rng(10)
    for frames in sequences:
        for g in frames[::4]:
            for cfg, n in ((MotionConfig(), None), (MotionConfig(), 37), (MotionConfig(grid=(5, 7)), 90)):
                mask = None
                if rng.random() < 0.5:  # holes, as the top-up draws around tracked points
                    mask = np.full(g.shape, 255, np.uint8)
                    for x, y in rng.integers(0, 400, (40, 2)):
                        cv2.circle(mask, (int(x), int(y) % g.shape[0]), 10, 0, -1)
                ours, ref = _corners(g, mask, cfg, n), _corners_by_definition(g, mask, cfg, n)
                assert ours.dtype == ref.dtype and np.array_equal(ours, ref)


class _AlwaysRetry:
    """A PointTracker whose fresh-corner retry is never skipped: the tracker as it was."""

    def __init__(self, cfg):
        from cinecap.anchors.motion import PointTracker

        class Tracker(PointTracker):
            def _top_up(self, gray, mask):
                super()._top_up(gray, mask)
                self._all_fresh = False

        self.tracker = Tracker(cfg, history=4)


def test_tracker_skips_only_the_retry_that_repeats_its_top_up(sequences):
    """Where every point of a pair is a fresh corner on the caller's mask (after a reset, or
    once all tracks are lost), the retry with fresh corners would track the same points again:
    skipping it leaves every pair's tracks, ids and history as they were."""
    from cinecap.anchors.motion import MotionConfig, PointTracker

    cfg = MotionConfig()
    skipped = 0
    for frames in sequences:
        ours, ref = PointTracker(cfg, history=4), _AlwaysRetry(cfg).tracker
        mask = np.full(frames[0].shape, 255, np.uint8)
        mask[40:120, 150:260] = 0  # a subject's box, as the detectors give the tracker
        for i, g in enumerate(frames):
            m = mask if i % 10 < 5 else None
            if i % 17 == 0:
                ours.reset()
                ref.reset()
            a, b = ours.step(g, m), ref.step(g, m)
            if ours._all_fresh and a is not None and len(ours._hist) > 1:
                skipped += 1
            assert (a is None) == (b is None)
            if a is not None:
                assert all(np.array_equal(x, y) for x, y in zip(a, b))
                assert np.array_equal(ours._ids, ref._ids) and ours._next_id == ref._next_id
                for lag in (1, 2, 4):
                    t1, t2 = ours.tracks_over(lag), ref.tracks_over(lag)
                    assert (t1 is None) == (t2 is None)
                    assert t1 is None or all(np.array_equal(x, y) for x, y in zip(t1, t2))
    assert skipped >= 5


def test_per_pair_numbers_are_numpys(sequences):
    """The tracker's and the pair fit's small helpers give numpy's numbers, in numpy's dtypes, on
    real tracks: lengths (np.linalg.norm), shares (.mean()), medians, ranges (np.ptp) and the
    inliers' span (np.percentile)."""
    from cinecap.anchors.motion import (MotionConfig, _corners, _lengths, _lk_forward_backward,
                                        _median, _ptp, _share, _span)

    cfg = MotionConfig()
    rng = np.random.default_rng(11)
    checked = 0
    for frames in sequences:
        for prev, cur in zip(frames[::3], frames[1::3]):
            a = _corners(prev, None, cfg)
            if len(a) < 3:
                continue
            b, ok = _lk_forward_backward(prev, cur, a, cfg)
            m = np.array([[1.01, -0.02, 3.5], [0.02, 1.01, -1.25]])
            for d in (b - a, (b - a)[ok], a @ m[:, :2].T + m[:, 2] - b):
                if not len(d):
                    continue
                ref = np.linalg.norm(d, axis=1)
                assert _lengths(d).dtype == ref.dtype and np.array_equal(_lengths(d), ref)
                for x in (ref, ref[: len(ref) - 1], ref[:1], ref[:2], np.round(ref, 1)):  # odd, even, ties
                    if len(x):
                        ours, theirs = _median(x), np.median(x)
                        assert type(ours) is type(theirs) and ours == theirs
                        assert _ptp(x) == np.ptp(x)
                still = ref < cfg.still_px
                assert _share(still) == float(still.mean()) and type(_share(still)) is float
                if np.count_nonzero(ok) >= 3:
                    lo, hi = np.percentile(a[ok, 0], [10, 90])
                    assert _span(a[ok, 0], 400.0) == float((hi - lo) / 400.0)
                checked += 1
    assert checked > 50
    with_nan = rng.random(9).astype(np.float32)
    with_nan[4] = np.nan
    assert np.isnan(_median(with_nan)) and np.isnan(np.median(with_nan))


def test_tracks_over_are_numpys_intersection(sequences):
    """The tracker's ids ascend in every point set it keeps, so one binary search gives
    np.intersect1d's indices: the same points over every lag, across resets and lost tracks."""
    from cinecap.anchors.motion import MotionConfig, PointTracker

    compared = 0
    for frames in sequences:
        tracker = PointTracker(MotionConfig(), history=6)
        for i, g in enumerate(frames):
            if i % 23 == 0:
                tracker.reset()
            tracker.step(g)
            assert all(np.all(np.diff(ids) > 0) for ids, _ in tracker._hist)
            for lag in range(1, 7):
                got = tracker.tracks_over(lag)
                if got is None:
                    continue
                (ids0, p0), (ids1, p1) = tracker._hist[-lag - 1], tracker._hist[-1]
                _, i0, i1 = np.intersect1d(ids0, ids1, assume_unique=True, return_indices=True)
                assert np.array_equal(got[0], p0[i0]) and np.array_equal(got[1], p1[i1])
                compared += len(i0)
    assert compared > 10_000


def test_yolox_boxes_only_for_the_kept_anchors_are_the_same(bikes, bigbuckbunny):
    """YOLOX's grid decode on the anchors over the threshold only gives the boxes, scores and
    person peak of decoding all of them (the plain decode of the network's rows written out)."""
    from tests.support import require

    require.model_files()
    from cinecap.anchors.detectors import COCO, DetectorConfig, Detection, load_detectors

    det = load_detectors().objects
    assert det is not None
    cfg, found = DetectorConfig(), 0
    for clip in (bikes, bigbuckbunny):
        for f in iter_frames(clip, max_side=400, step=30):
            if f.gray is None:
                continue
            bgr = f.to_bgr()
            h, w = bgr.shape[:2]
            out, r, grid, stride = det.raw(bgr)
            xy = (out[:, :2] + grid) * stride
            wh = np.exp(np.minimum(out[:, 2:4], 10.0)) * stride
            cls = np.argmax(out[:, 5:], 1)
            score = out[:, 4] * out[np.arange(len(out)), 5 + cls]
            person = float((out[:, 4] * out[:, 5]).max())
            keep = score >= cfg.min_score
            ref = []
            if keep.any():
                xy, wh, cls, score = xy[keep] / r, wh[keep] / r, cls[keep], score[keep]
                boxes = np.concatenate([xy - wh / 2, wh], 1)
                idx = cv2.dnn.NMSBoxesBatched(boxes.tolist(), score.tolist(), cls.tolist(),
                                              cfg.min_score, cfg.nms)
                for i in np.ravel(idx).tolist() if len(idx) else []:
                    x, y, bw, bh = (float(v) for v in boxes[i])
                    x0, y0, x1, y1 = max(0.0, x), max(0.0, y), min(float(w), x + bw), min(float(h), y + bh)
                    if x1 - x0 >= 2 and y1 - y0 >= 2:
                        ref.append(Detection(COCO[int(cls[i])], x0 / w, y0 / h, (x1 - x0) / w,
                                             (y1 - y0) / h, float(score[i])))
                ref.sort(key=lambda d: -d.score)
            assert det.detect_with_peak(bgr, cfg) == (ref, person)
            found += len(ref)
    assert found >= 5
