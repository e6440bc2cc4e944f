"""Camera motion from background motion: per frame pair, then labelled intervals per shot.

Per pair of analysed frames: corners tracked with pyramidal Lucas–Kanade and a forward–backward
check (in the dense analysis, :class:`PointTracker` follows them from frame to frame rather than
finding new ones on every frame), subject regions (faces, bodies) masked out, a RANSAC similarity
fit (scale, rotation, translation) → pan / tilt / zoom / roll rates in frame units per second,
measured at the frame centre. A "static first" test keeps a locked-off camera static when a large
subject moves: many still, spread-out points that the fit cannot explain mean the camera did not
move.

Per shot: the rates are median-then-mean smoothed, thresholded into label sets (compound moves are
several labels at once), short runs are merged, and each boundary is moved to the point that best
splits the raw rates into two constant pieces. Jitter (the part of the motion the smoothing
removes) gives handheld shake and steadiness. A parallax cue (homography vs fundamental-matrix
fit over ~0.25 s, on the tracks followed over that time) turns pan into truck and zoom into dolly
where the scene shows real depth.

Sign conventions (docs/spec/taxonomy.md): pan right → content moves left; tilt up → content moves down;
zoom in → content grows; roll clockwise (operator's view) → content turns counterclockwise.
"""
from __future__ import annotations

import logging
import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from cinecap.anchors.focus import _percentiles
from cinecap.errors import InputError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MotionConfig:
    """Thresholds of the motion analysis. Rates are per second in frame widths (pan, tilt), log
    magnification (zoom) and degrees (roll); calibrated on the synthetic clips (docs/anchors.md)."""

    max_corners: int = field(default=120, metadata={"help": "corners tracked per frame at most"})
    quality: float = field(default=0.005, metadata={
        "help": "corner quality level, relative to the frame's best corner (goodFeaturesToTrack)"})
    min_distance: int = field(default=10, metadata={
        "help": "least distance between two tracked corners, in analysis pixels"})
    lk_window: int = field(default=15, metadata={
        "help": "Lucas-Kanade search window, in analysis pixels"})
    fb_max_px: float = field(default=0.8, metadata={
        "help": "forward-backward disagreement (pixels) that rejects a track"})
    ransac_px: float = field(default=0.8, metadata={
        "help": "RANSAC inlier distance of the similarity fit, in analysis pixels"})
    min_points: int = field(default=24, metadata={
        "help": "fewer tracked background points than this: abstain for that pair"})
    smooth_s: float = field(default=0.6, metadata={"help": "smoothing window of the rates, seconds"})
    min_segment_s: float = field(default=0.6, metadata={
        "help": "shorter runs of one label are merged into their neighbours, seconds"})
    edge_static_s: float = field(default=0.35, metadata={
        "help": "a still run at a shot's start or end this long (seconds; three pairs at 8 a "
                "second) stays its own interval even under min_segment_s: a move that comes to rest "
                "before a cut (or starts after one) has no move on its other side for the run to be "
                "a pause inside (docs/anchors.md, task cm2)"})
    pan_threshold: float = field(default=0.035, metadata={
        "help": "pan rate (frame widths/s) above which the camera pans"})
    tilt_threshold: float = field(default=0.035, metadata={
        "help": "tilt rate (frame widths/s) above which the camera tilts"})
    zoom_threshold: float = field(default=0.08, metadata={
        "help": "zoom rate (log magnification/s) above which the camera zooms"})
    roll_threshold: float = field(default=6.0, metadata={
        "help": "roll rate (degrees/s) above which the camera rolls"})
    shake_threshold: float = field(default=0.0012, metadata={
        "help": "RMS jitter of the frame position (frame widths per pair) above which it shakes"})
    shake_per_speed: float = field(default=0.03, metadata={
        "help": "added to the shake threshold per frame width/s of camera motion: tracking noise "
                "grows with the motion, so a steady move on real footage is not read as shake "
                "(learned from steady real footage: docs/anchors.md)"})
    still_px: float = field(default=0.25, metadata={
        "help": "a point that moved less than this (analysis pixels) is still"})
    still_fraction: float = field(default=0.35, metadata={
        "help": "this share of spread-out still points means the camera is static"})
    parallax_px: float = field(default=1.2, metadata={
        "help": "median homography error over fundamental inliers (pixels) that means real depth"})
    min_confidence: float = field(default=0.5, metadata={
        "help": "below this an interval is kept, marked abstained, and states nothing"})
    min_inliers: float = field(default=0.45, metadata={
        "help": "a segment whose fit explains fewer of its points (share) is abstained"})
    min_span: float = field(default=0.25, metadata={
        "help": "a segment whose fit's inliers (10th to 90th percentile) span less than this share "
                "of the frame width is abstained: points in one narrow strip are one object (a "
                "character, a pole), not the scene the camera moves over"})
    sure_inliers: float = field(default=0.6, metadata={
        "help": "roll and shake need a fit this clean (share of inliers): fit noise looks like both"})
    handheld_share: float = field(default=0.5, metadata={
        "help": "a stretch of a shot where this share of the frame pairs shakes (over the shake "
                "threshold, on a fit of handheld_inliers or more spanning min_span) is handheld as "
                "a whole: shake is the operator's hand, there all through the shot"})
    handheld_inliers: float = field(default=0.5, metadata={
        "help": "the fit a frame pair's shake counts on towards a handheld stretch (share of "
                "inliers, smoothed): a shaking camera blurs its frames, so fewer points fit"})
    handheld_coverage: float = field(default=0.67, metadata={
        "help": "share of a stretch's frame pairs that must have been measured for it to be "
                "judged handheld as a whole"})
    handheld_move_s: float = field(default=1.5, metadata={
        "help": "in a handheld stretch the moves are read over this long (seconds: the rates' "
                "smoothing and the shortest move): a hand's wander swings the frame one way for "
                "about a second and back, which a shorter reading takes for pans and tilts"})
    grid: tuple[int, int] = field(default=(3, 4), metadata={
        "help": "corners are balanced over rows x cols cells of the frame"})
    background_memory: float = field(default=0.7, metadata={
        "help": "weight of a track's past in its background score (0: the background is re-chosen "
                "on every pair, as a plain RANSAC fit does)"})
    drift_s: float = field(default=1.0, metadata={
        "help": "baseline of the accumulated-change windows, seconds (cinecap.anchors.drift)"})
    drift_move_px: float = field(default=1.0, metadata={
        "help": "a point that moved more than this over a drift window (analysis pixels) moved"})
    roll_total: float = field(default=12.0, metadata={
        "help": "degrees a still-looking stretch must turn in all (at a quarter of roll_threshold "
                "or more) to be a roll"})
    zoom_total: float = field(default=0.15, metadata={
        "help": "log scale a still-looking stretch must change in all (at a quarter of "
                "zoom_threshold or more) to be a zoom"})
    shift_total: float = field(default=0.05, metadata={
        "help": "frame widths a still-looking stretch must shift in all (at a quarter of "
                "pan_threshold / tilt_threshold or more) to be a pan or a tilt (truck, pedestal)"})
    shift_depth: float = field(default=1.6, metadata={
        "help": "a shift whose points move this many times faster at the 90th than at the 10th "
                "percentile is depth (near points faster): the camera travels (truck, pedestal)"})
    expansion_share: float = field(default=0.6, metadata={
        "help": "share of the moved points flowing out of (into) one point, around it and across "
                "the frame, that makes a push-in (pull-out)"})
    depth_spread: float = field(default=2.5, metadata={
        "help": "a flow from a point whose outward rates (relative to the distance from it, on "
                "points that moved clearly) vary this many times over the frame (90th / 10th "
                "percentile) is depth: a dolly, not a zoom"})
    drift_agreement: float = field(default=0.75, metadata={
        "help": "share of a stretch's drift windows that must agree on its accumulated move"})

    def __post_init__(self) -> None:
        for name in ("pan_threshold", "tilt_threshold", "zoom_threshold", "roll_threshold",
                     "shake_threshold", "smooth_s", "min_segment_s", "edge_static_s", "ransac_px",
                     "still_px"):
            if getattr(self, name) <= 0:
                raise InputError(f"motion {name} must be positive")
        if not 0 < self.still_fraction < 1 or not 0 <= self.min_confidence <= 1:
            raise InputError("motion still_fraction must be in (0, 1) and min_confidence in [0, 1]")
        if self.min_points < 8:
            raise InputError("motion min_points must be at least 8 (a RANSAC fit needs points)")
        if not (0 <= self.min_inliers <= 1 and 0 <= self.sure_inliers <= 1 and 0 <= self.min_span <= 1
                and 0 < self.handheld_share <= 1 and 0 <= self.handheld_inliers <= 1
                and 0 <= self.handheld_coverage <= 1
                and 0 <= self.background_memory < 1 and self.shake_per_speed >= 0):
            raise InputError("motion min_inliers, sure_inliers, handheld_inliers and "
                             "handheld_coverage must be in [0, 1], handheld_share in (0, 1], "
                             "background_memory in [0, 1) and shake_per_speed at least 0")
        if min(self.drift_s, self.drift_move_px, self.roll_total, self.zoom_total,
               self.shift_total) <= 0 or not (self.depth_spread >= 1 and self.shift_depth >= 1) or not (
                0 < self.expansion_share <= 1 and 0 < self.drift_agreement <= 1):
            raise InputError("motion drift_s, drift_move_px, roll_total, zoom_total and shift_total "
                             "must be positive, depth_spread and shift_depth at least 1, "
                             "expansion_share and drift_agreement in (0, 1]")
        if len(self.grid) != 2 or any(int(n) != n or n < 1 for n in self.grid):
            raise InputError("motion grid must be two whole numbers of cells (rows, cols), each "
                             "at least 1")


@dataclass
class PairMotion:
    """The camera's motion between two analysed frames, as rates per second (camera-oriented:
    positive pan = right, tilt = up, zoom = in, roll = clockwise)."""

    t0: float
    t1: float
    pan: float = 0.0
    tilt: float = 0.0
    zoom: float = 0.0
    roll: float = 0.0
    dx: float = 0.0  # displacement of the frame centre over the pair, frame widths (for jitter)
    dy: float = 0.0
    points: int = 0
    inliers: float = 0.0  # inlier fraction of the similarity fit
    span: float = 1.0  # width the inliers cover (10th to 90th percentile of x), frame widths
    still: float = 0.0  # fraction of still points
    static_override: bool = False  # the static-first test fired
    valid: bool = True
    vectors: np.ndarray | None = field(default=None, repr=False)  # [k, 4] x0 y0 x1 y1, for overlays
    inlier_mask: np.ndarray | None = field(default=None, repr=False)  # [k] bool: moved with the camera

    @property
    def t(self) -> float:
        return 0.5 * (self.t0 + self.t1)


# Per-pair numbers without numpy's per-call overhead (np.linalg.norm, np.percentile, np.median,
# np.clip, .mean() run several Python calls each; on ~100 points that was most of their cost,
# a tenth of the tracking's CPU). Each gives numpy's result to the bit, in its dtype
# (tests/test_anchors_same_numbers.py).

def _lengths(d: np.ndarray) -> np.ndarray:
    """``np.linalg.norm(d, axis=1)`` of an [n, 2] float array: sqrt(x² + y²) in its dtype."""
    x, y = d[:, 0], d[:, 1]
    return np.sqrt(x * x + y * y)


def _share(flags: np.ndarray) -> float:
    """``float(flags.mean())`` of a non-empty bool array: the count over the length, in double."""
    return int(np.count_nonzero(flags)) / len(flags)


def _median(x: np.ndarray) -> np.floating:
    """``np.median(x)`` of a non-empty 1-D float array: the middle value, or the two middle
    values' sum halved in its dtype; numpy's own answer where a NaN is among them."""
    n = len(x)
    k = n // 2
    part = np.partition(x, (k - 1, k, n - 1) if n % 2 == 0 else (k, n - 1))
    if np.isnan(part[-1]):
        return np.median(x)
    return part[k] if n % 2 else (part[k - 1] + part[k]) / 2


def _ptp(x: np.ndarray) -> np.floating:
    """``np.ptp(x)`` of a non-empty 1-D array."""
    return x.max() - x.min()


def _lk_params(cfg: MotionConfig) -> dict:
    import cv2

    return dict(winSize=(cfg.lk_window, cfg.lk_window), maxLevel=3,
                criteria=(cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 20, 0.03))


def _lk(prev, cur, pts: np.ndarray, cfg: MotionConfig) -> tuple[np.ndarray, np.ndarray]:
    """``cv2.calcOpticalFlowPyrLK(prev, cur, pts, None, **_lk_params(cfg))``'s positions and
    status, without its residual: OpenCV's residual is one more pass over every point's window,
    which the tracker never reads. With OPTFLOW_LK_GET_MIN_EIGENVALS the third output is the
    window's minimum eigenvalue instead (computed anyway), and the residual pass's one other
    effect, a point that ends outside the image's window margin losing its status, is applied
    here as OpenCV does it (tests/test_anchors_same_numbers.py: the same tracks and status)."""
    import cv2

    p1, st, _ = cv2.calcOpticalFlowPyrLK(prev, cur, pts, None, flags=cv2.OPTFLOW_LK_GET_MIN_EIGENVALS,
                                         **_lk_params(cfg))
    st = st.ravel() == 1
    half = np.float32((cfg.lk_window - 1) * 0.5)
    corner = np.floor(p1.reshape(-1, 2) - half)  # float32, as OpenCV's cvFloor(next - halfWin)
    h, w = cur.shape[:2]
    x, y = corner[:, 0], corner[:, 1]
    st &= (x >= -cfg.lk_window) & (x < w) & (y >= -cfg.lk_window) & (y < h)
    return p1, st


def _corners(gray, mask, cfg: MotionConfig, max_corners: int | None = None):
    """Corners spread over the frame: at most an equal share per cell of ``cfg.grid`` (the
    strongest ones of each cell), so a highly textured object cannot take most of them."""
    import cv2

    n = max_corners or cfg.max_corners
    rows, cols = cfg.grid
    cells = rows * cols
    p0 = cv2.goodFeaturesToTrack(gray, n * (3 if cells > 1 else 1), cfg.quality, cfg.min_distance,
                                 mask=mask, blockSize=7)
    if p0 is None:
        return np.zeros((0, 2), np.float32)
    p0 = p0.reshape(-1, 2)
    if cells <= 1 or len(p0) <= n:
        return p0[:n]
    h, w = gray.shape[:2]
    cell = (np.minimum(p0[:, 1] * rows // h, rows - 1) * cols
            + np.minimum(p0[:, 0] * cols // w, cols - 1)).astype(int)
    # Rank of each corner within its cell (quality order): its place in its cell's run of a
    # stable sort by cell.
    order = np.argsort(cell, kind="stable")
    by_cell = cell[order]
    rank = np.empty(len(p0), int)
    rank[order] = np.arange(len(p0)) - np.searchsorted(by_cell, by_cell)
    quota = max(1, -(-n // cells))
    keep = rank < quota
    chosen = p0[keep]
    if len(chosen) < n:  # cells without texture leave room: fill with the next best anywhere
        chosen = np.vstack([chosen, p0[~keep][: n - len(chosen)]])
    return chosen[:n].astype(np.float32)


def _lk_forward_backward(prev, cur, p0: np.ndarray, cfg: MotionConfig) -> tuple[np.ndarray, np.ndarray]:
    """LK of ``p0`` (on ``prev``) into ``cur`` → (positions on ``cur``, ok mask): tracks whose
    forward–backward disagreement is under ``fb_max_px``."""
    if not len(p0):
        return np.zeros((0, 2), np.float32), np.zeros(0, bool)
    p0 = np.ascontiguousarray(p0, np.float32).reshape(-1, 1, 2)
    p1, ok = _lk(prev, cur, p0, cfg)
    # Back only the points the forward pass found (about 9 in 10): LK tracks each point on its
    # own, so the others would change nothing but the cost.
    back = np.flatnonzero(ok)
    if len(back):
        p0r, st2 = _lk(cur, prev, p1[back], cfg)
        fb = _lengths((p0[back] - p0r).reshape(-1, 2))
        ok[back] = st2 & (fb < cfg.fb_max_px)
    return p1.reshape(-1, 2), ok


def track_points(prev, cur, mask, cfg: MotionConfig):
    """Corners of ``prev`` tracked into ``cur`` (LK with a forward–backward check)."""
    p0 = _corners(prev, mask, cfg)
    if len(p0) < 8:
        return np.zeros((0, 2), np.float32), np.zeros((0, 2), np.float32)
    p1, ok = _lk_forward_backward(prev, cur, p0, cfg)
    return p0[ok], p1[ok]


class PointTracker:
    """Corners followed from frame to frame (KLT) for the dense analysis.

    Each pair reuses the points tracked into the previous frame instead of detecting corners on
    every frame; new corners (away from the tracked ones, outside the subject mask) are added
    only when fewer than ``refill`` × ``max_corners`` remain. Every pair still gets its own
    forward–backward check. Tracks that survive several pairs give the parallax test its longer baseline
    without tracking again (:meth:`tracks_over`). :meth:`reset` after a cut.

    The background layer is followed over time, not re-chosen on every pair: each track keeps a
    score of how often it moved with the camera (:meth:`feedback`, from the pair's fit); the next
    fit starts from the tracks with a good score (:attr:`prior`). Tracks that keep moving on their
    own (a moving subject of any kind) are dropped, and no new corners are taken where they were
    for a while (``moving_hold`` frames)."""

    def __init__(self, cfg: MotionConfig, history: int = 1, refill: float = 0.7,
                 moving_hold: int = 8) -> None:
        self.cfg, self.refill, self.moving_hold = cfg, refill, moving_hold
        self._hist: deque = deque(maxlen=max(2, history + 1))  # (ids, points) per recent frame
        self._prev = None  # the previous grey frame
        self._pts = np.zeros((0, 2), np.float32)
        self._ids = np.zeros(0, np.int64)
        self._next_id = 0
        # Indexed by track id (ids only grow): background score in [0, 1] (0.5 before any
        # judgement) and the pairs it was judged on. Arrays, not dicts: a clip judges ~10^4 points.
        self._bg = np.full(0, 0.5)
        self._seen = np.zeros(0, np.int64)
        self._moving: list[list] = []  # [x0, y0, x1, y1, frames left] where a subject moved
        self.prior: np.ndarray | None = None  # background scores of the last pair's points
        self._all_fresh = False  # the last top-up's points are all fresh corners on the given mask

    def reset(self) -> None:
        """Forget the tracks (a cut): the next pair starts from fresh corners."""
        self._pts, self._ids = np.zeros((0, 2), np.float32), np.zeros(0, np.int64)
        self._hist.clear()
        self._bg[:] = 0.5
        self._seen[:] = 0
        self._moving = []

    def feedback(self, inliers: np.ndarray | None) -> None:
        """Which of the last pair's points moved with the camera (the fit's inliers): updates the
        background scores, drops tracks that keep moving on their own and remembers where."""
        if inliers is None or len(inliers) != len(self._ids) or self.cfg.background_memory <= 0:
            return
        mem = self.cfg.background_memory
        ids = self._ids
        self._grow()
        bg = mem * self._bg[ids] + (1 - mem) * inliers.astype(np.float64)
        self._bg[ids] = bg
        self._seen[ids] += 1
        drop = (self._seen[ids] >= 3) & (bg < 0.25)
        for box in self._moving:
            box[4] -= 1
        self._moving = [b for b in self._moving if b[4] > 0]
        if np.count_nonzero(drop) >= 3 and self._prev is not None:
            # A compact group moving on its own is a subject: drop it and take no corners there
            # for a while. A group spanning the frame is a nearer layer of the scene (parallax):
            # its low scores keep it out of the fit, and the parallax test still sees it.
            h, w = self._prev.shape[:2]
            p = self._pts[drop]
            x0, y0 = p.min(0)
            x1, y1 = p.max(0)
            if x1 - x0 < 0.5 * w and (x1 - x0) * (y1 - y0) < 0.3 * w * h:
                pad = 0.15 * max(x1 - x0, y1 - y0) + self.cfg.min_distance
                self._moving.append([x0 - pad, y0 - pad, x1 + pad, y1 + pad, self.moving_hold])
            else:
                drop[:] = False
        else:
            drop[:] = False
        if drop.any():
            gone = self._ids[drop]
            self._bg[gone], self._seen[gone] = 0.5, 0
            self._pts, self._ids = self._pts[~drop], self._ids[~drop]
            self._hist[-1] = (self._ids, self._pts)

    def _grow(self) -> None:
        """Room in the per-id arrays for every id handed out so far."""
        if len(self._bg) < self._next_id:
            extra = max(self._next_id - len(self._bg), 1024)
            self._bg = np.concatenate([self._bg, np.full(extra, 0.5)])
            self._seen = np.concatenate([self._seen, np.zeros(extra, np.int64)])

    def moving_mask(self, shape, mask=None) -> np.ndarray | None:
        """``mask`` (255 = use) with the regions where subjects were seen moving hidden."""
        if not self._moving:
            return mask
        h, w = shape[:2]
        m = np.full((h, w), 255, np.uint8) if mask is None else mask.copy()
        for x0, y0, x1, y1, _ in self._moving:
            m[max(0, int(y0)):max(0, int(y1)), max(0, int(x0)):max(0, int(x1))] = 0
        if (m.size - np.count_nonzero(m)) / m.size > 0.6:  # never hide most of the frame
            return mask
        return m

    def _top_up(self, gray, mask) -> None:
        import cv2

        cfg = self.cfg
        given, mask = mask, self.moving_mask(gray.shape, mask)
        pts, ids = self._pts, self._ids
        if mask is not None and len(pts):  # points the subject mask now hides are dropped
            h, w = gray.shape[:2]
            xi = np.minimum(np.maximum(np.round(pts[:, 0]).astype(int), 0), w - 1)
            yi = np.minimum(np.maximum(np.round(pts[:, 1]).astype(int), 0), h - 1)
            keep = mask[yi, xi] > 0
            pts, ids = pts[keep], ids[keep]
        # No point kept and no region hidden beyond the caller's mask: the corners taken now are
        # exactly the fresh corners step() would try when too few tracks survive.
        self._all_fresh = not len(pts) and mask is given
        if len(pts) < self.refill * cfg.max_corners:
            m = np.full(gray.shape[:2], 255, np.uint8) if mask is None else mask.copy()
            for x, y in np.rint(pts).astype(int).tolist():  # rint: round()'s half-to-even, at once
                cv2.circle(m, (x, y), cfg.min_distance, 0, -1)
            new = _corners(gray, m, cfg, cfg.max_corners - len(pts)) if len(pts) < cfg.max_corners \
                else np.zeros((0, 2), np.float32)
            pts = np.vstack([pts, new]).astype(np.float32)
            ids = np.concatenate([ids, np.arange(self._next_id, self._next_id + len(new))])
            self._next_id += len(new)
        self._pts, self._ids = pts, ids

    def step(self, gray, mask=None) -> tuple[np.ndarray, np.ndarray] | None:
        """Points of the previous frame tracked into ``gray``: (a, b), or None on the first frame.
        ``mask`` (255 = use) hides the subject from the tracker."""
        prev, self._prev = self._prev, gray
        if prev is None:
            return None
        self._top_up(prev, mask)
        a, ids = self._pts, self._ids
        if self._hist:
            self._hist.pop()  # the previous frame's entry, replaced by its topped-up point set
        self._hist.append((ids, a))
        if len(a) < 8:
            self._pts, self._ids = np.zeros((0, 2), np.float32), np.zeros(0, np.int64)
            self._hist.append((self._ids, self._pts))
            return np.zeros((0, 2), np.float32), np.zeros((0, 2), np.float32)
        b, ok = _lk_forward_backward(prev, gray, a, self.cfg)
        if np.count_nonzero(ok) < self.cfg.min_points and not self._all_fresh:
            # Too few tracks survived (blur, a sudden move): fresh corners, as an untracked pair
            # would get, when they do better (where ``a`` already is those corners, tracking them
            # again would give the same tracks).
            fresh = _corners(prev, mask, self.cfg)
            b2, ok2 = _lk_forward_backward(prev, gray, fresh, self.cfg)
            if np.count_nonzero(ok2) > np.count_nonzero(ok):
                a, b, ok = fresh, b2, ok2
                ids = np.arange(self._next_id, self._next_id + len(fresh))
                self._next_id += len(fresh)
                self._hist[-1] = (ids, a)
        self._pts, self._ids = b[ok], ids[ok]
        self._hist.append((self._ids, self._pts))
        self._grow()
        self.prior = self._bg[self._ids].astype(np.float32)
        return a[ok], b[ok]

    def tracks_over(self, lag: int) -> tuple[np.ndarray, np.ndarray] | None:
        """Points tracked without a break from ``lag`` frames back to the latest one: (a, b);
        None when the history (since the start or the last reset) is shorter than ``lag``."""
        if lag < 1 or len(self._hist) < lag + 1:
            return None
        (ids0, p0), (ids1, p1) = self._hist[-lag - 1], self._hist[-1]
        # np.intersect1d(ids0, ids1, assume_unique=True, return_indices=True)'s indices, by one
        # binary search: a point set's ids always ascend (kept tracks keep their order, new ones
        # get the next ids), so each id's place in the other set is where it would be inserted.
        if not len(ids0) or not len(ids1):
            return p0[:0], p1[:0]
        at = np.searchsorted(ids1, ids0)
        i0 = np.flatnonzero(ids1[np.minimum(at, len(ids1) - 1)] == ids0)
        return p0[i0], p1[at[i0]]


def estimate_pair(prev, cur, t0: float, t1: float, mask, cfg: MotionConfig) -> PairMotion:
    """Global (camera) motion between two grey frames of one shot."""
    a, b = track_points(prev, cur, mask, cfg)
    return motion_from_tracks(a, b, prev.shape, t0, t1, cfg)


def motion_from_tracks(a: np.ndarray, b: np.ndarray, shape, t0: float, t1: float,
                       cfg: MotionConfig, prior: np.ndarray | None = None) -> PairMotion:
    """Global (camera) motion from background points ``a`` (at t0) tracked to ``b`` (at t1) on
    frames of ``shape``: the static-first test, then a RANSAC similarity fit.

    ``prior`` (per point, in [0, 1]) is how reliably each track moved with the camera before:
    when enough well-scored tracks spread over the frame, the fit is made on them and then
    checked on every point, so the background layer is followed rather than re-chosen."""
    import cv2

    h, w = shape[:2]
    dt = max(t1 - t0, 1e-6)
    pm = PairMotion(t0, t1, points=len(a))
    if len(a) < cfg.min_points:
        pm.valid = False
        return pm
    d = b - a
    mag = _lengths(d)
    still = mag < cfg.still_px
    pm.still = _share(still)
    pm.vectors = np.concatenate((a, b), 1).astype(np.float32)
    # Still points must span the frame: a static logo or caption is a small patch.
    spread = (np.count_nonzero(still) >= 8 and _ptp(a[still, 0]) > 0.3 * w
              and _ptp(a[still, 1]) > 0.3 * h
              and a[still, 0].std() + a[still, 1].std() > 0.15 * (w + h) / 2)
    if pm.still >= cfg.still_fraction and spread:
        pm.static_override, pm.inliers = True, pm.still
        pm.inlier_mask = still
        pm.span = _span(a[still, 0], w)
        return pm
    m = None
    if prior is not None and len(prior) == len(a):
        trusted = prior >= 0.6
        if np.count_nonzero(trusted) >= cfg.min_points and _ptp(a[trusted, 0]) > 0.4 * w:
            m, tin = cv2.estimateAffinePartial2D(a[trusted], b[trusted], method=cv2.RANSAC,
                                                 ransacReprojThreshold=cfg.ransac_px, maxIters=300,
                                                 confidence=0.99)
            if m is not None and _share(tin.ravel()) < 0.6:  # the layer changed: start over
                m = None
    if m is None:
        m, _ = cv2.estimateAffinePartial2D(a, b, method=cv2.RANSAC,
                                           ransacReprojThreshold=cfg.ransac_px, maxIters=500,
                                           confidence=0.99)
    if m is None:
        pm.valid = False
        return pm
    resid = _lengths(a @ m[:, :2].T + m[:, 2] - b)
    pm.inlier_mask = resid < cfg.ransac_px * 1.5
    pm.inliers = _share(pm.inlier_mask)
    pm.span = _span(a[pm.inlier_mask, 0], w)
    scale = math.hypot(m[0, 0], m[1, 0])
    angle = math.degrees(math.atan2(m[1, 0], m[0, 0]))  # y-down: positive = clockwise on screen
    c = np.array([w / 2, h / 2])
    centre_shift = m[:, :2] @ c + m[:, 2] - c  # where the frame centre's content went
    pm.dx, pm.dy = float(centre_shift[0] / w), float(centre_shift[1] / w)
    pm.pan = -pm.dx / dt  # content moving left = the camera panning right
    pm.tilt = pm.dy / dt  # content moving down = the camera tilting up
    pm.zoom = math.log(max(scale, 1e-6)) / dt
    pm.roll = -angle / dt  # content counterclockwise (negative on screen) = camera clockwise
    return pm


def _span(x: np.ndarray, w: float) -> float:
    """Share of the frame width that points at ``x`` cover (10th to 90th percentile)."""
    if len(x) < 3:
        return 0.0
    lo, hi = _percentiles(x, (10, 90))  # np.percentile(x, [10, 90]), to the bit
    return float((hi - lo) / max(w, 1e-6))


def parallax_error(prev, cur, mask, cfg: MotionConfig) -> tuple[float, int] | None:
    """Parallax between two frames ~0.5 s apart, in px, and the point count; None when unsure.

    A rotating or zooming camera sees one homography; a translating one over a scene with depth
    does not. Among the fundamental-matrix inliers, a homography is fitted robustly (it follows
    the dominant depth layer); the points it leaves out are the evidence. They count only when
    they are many (≥ 20 %) and span most of the frame width, as a nearer layer of the scene does,
    not a compact blob, as a moving car does. The value is then their median error; otherwise
    the median error over all inliers (≈ 0 for a pan or a zoom)."""
    a, b = track_points(prev, cur, mask, cfg)
    return parallax_from_tracks(a, b, prev.shape, cfg)


def parallax_from_tracks(a: np.ndarray, b: np.ndarray, shape,
                         cfg: MotionConfig) -> tuple[float, int] | None:
    """:func:`parallax_error` from points ``a`` already tracked to ``b`` (frames of ``shape``)."""
    import cv2

    if len(a) < 40 or _median(_lengths(b - a)) < 2.0:
        return None
    f, fin = cv2.findFundamentalMat(a, b, cv2.FM_RANSAC, 1.0, 0.99)
    if f is None or fin is None or np.count_nonzero(fin) < 30:
        return None
    keep = fin.ravel() == 1
    a, b = a[keep], b[keep]
    hm, _ = cv2.findHomography(a, b, cv2.RANSAC, 1.0)
    if hm is None:
        return None
    err = _lengths(cv2.perspectiveTransform(a.reshape(-1, 1, 2), hm).reshape(-1, 2) - b)
    off = err > cfg.parallax_px
    w = shape[1]
    if (_share(off) >= 0.2 and np.count_nonzero(off) >= 10 and _ptp(a[off, 0]) > 0.6 * w
            and _same_move_other_depth(a[~off], b[~off], a[off], b[off], shape)):
        return float(_median(err[off])), int(len(a))
    return float(_median(err)), int(len(a))


def _same_move_other_depth(a1, b1, a2, b2, shape) -> bool:
    """Whether two point sets moved the same way at different rates, as two depth layers do
    under one camera translation (not as traffic crossing the frame): same direction of shift
    (truck) or of expansion (dolly), magnitudes at least 1.3x apart."""
    import cv2

    if len(a1) < 6 or len(a2) < 6:
        return False
    h, w = shape[:2]
    c = np.array([w / 2, h / 2])
    fits = []
    for a, b in ((a1, b1), (a2, b2)):
        m, _ = cv2.estimateAffinePartial2D(a, b, method=cv2.RANSAC, ransacReprojThreshold=1.0)
        if m is None:
            return False
        fits.append((math.log(max(math.hypot(m[0, 0], m[1, 0]), 1e-6)), m[:, :2] @ c + m[:, 2] - c))
    (z1, t1), (z2, t2) = fits

    def layered(x: float, y: float, floor: float) -> bool:
        if abs(x) < floor and abs(y) < floor:
            return False
        return x * y > 0 and max(abs(x), abs(y)) >= 1.3 * min(abs(x), abs(y))

    n1, n2 = float(np.linalg.norm(t1)), float(np.linalg.norm(t2))
    if n1 > 1.0 and n2 > 1.0:
        cos = float(np.dot(t1, t2) / (n1 * n2))
        return cos > 0.9 and layered(n1, n2, 1.0)
    return layered(z1, z2, 0.01)


# --- from pair rates to labelled intervals -----------------------------------------------------

@dataclass
class MotionInterval:
    t_start: float
    t_end: float
    movement: list[str]
    steadiness: float
    confidence: float
    evidence: dict
    abstained: bool = False

    def to_dict(self) -> dict:
        return {"t_start": round(self.t_start, 3), "t_end": round(self.t_end, 3),
                "movement": list(self.movement), "steadiness": round(self.steadiness, 3),
                "confidence": round(self.confidence, 3), "abstained": self.abstained,
                "evidence": self.evidence}


def _running_mean(x: np.ndarray, k: int) -> np.ndarray:
    if k <= 1 or len(x) < 2:
        return x.astype(float).copy()
    pad = np.pad(x.astype(float), (k // 2, k - 1 - k // 2), mode="edge")
    return np.convolve(pad, np.ones(k) / k, mode="valid")


def _running_median(x: np.ndarray, k: int) -> np.ndarray:
    if k <= 1 or len(x) < 3:
        return x.astype(float).copy()
    pad = np.pad(x.astype(float), (k // 2, k - 1 - k // 2), mode="edge")
    return np.median(np.lib.stride_tricks.sliding_window_view(pad, k), axis=1)


def _smooth(x: np.ndarray, k: int) -> np.ndarray:
    """A short running median (kills single-pair outliers), then a running mean over ``k``."""
    return _running_mean(_running_median(x, min(k, 5)), k)


def _labels(pan, tilt, zoom, roll, shake, cfg: MotionConfig, inliers: float = 1.0) -> tuple[str, ...]:
    out = []
    if inliers < cfg.sure_inliers:  # a loose fit: its residual and its rotation are noise
        roll, shake = 0.0, False
    if abs(pan) > cfg.pan_threshold:
        out.append("pan right" if pan > 0 else "pan left")
    if abs(tilt) > cfg.tilt_threshold:
        out.append("tilt up" if tilt > 0 else "tilt down")
    if abs(zoom) > cfg.zoom_threshold:
        out.append("zoom in" if zoom > 0 else "zoom out")
    if abs(roll) > cfg.roll_threshold:
        out.append("roll clockwise" if roll > 0 else "roll counterclockwise")
    if shake:
        out.append("handheld shake")
    return tuple(out) or ("static",)


def _runs(labels: list[tuple[str, ...]]) -> list[list[int]]:
    runs: list[list[int]] = []
    for i, lab in enumerate(labels):
        if runs and labels[runs[-1][0]] == lab:
            runs[-1][1] = i + 1
        else:
            runs.append([i, i + 1])
    return runs


def _best_split(x: np.ndarray, lo: int, hi: int) -> int:
    """Index in (lo, hi) that best splits rows of ``x`` into two constant pieces."""
    best, best_cost = (lo + hi) // 2, math.inf
    for k in range(lo + 1, hi):
        left, right = x[lo:k], x[k:hi]
        cost = ((left - left.mean(0)) ** 2).sum() + ((right - right.mean(0)) ** 2).sum()
        if cost < best_cost:
            best, best_cost = k, cost
    return best


def segment_shot(pairs: list[PairMotion], t_start: float, t_end: float, cfg: MotionConfig,
                 parallax: list[tuple[float, float]] | None = None,
                 drift: list | None = None) -> list[MotionInterval]:
    """Labelled camera-motion intervals covering one shot [t_start, t_end]; ``drift`` (the shot's
    :class:`~cinecap.anchors.drift.DriftWindow` list) keeps a slow move from reading as static."""
    good = [p for p in pairs if p.valid]
    if len(good) < 3:
        why = "too few trackable background points" if pairs else "shot too short to measure"
        return [MotionInterval(t_start, t_end, [], 0.0, 0.0, {"reason": why}, abstained=True)]
    dts = np.array([p.t1 - p.t0 for p in good])
    rate = np.array([[p.pan, p.tilt, p.zoom, p.roll] for p in good])
    disp = np.array([[p.dx, p.dy] for p in good])
    step = float(np.median(dts))
    k = max(1, int(round(cfg.smooth_s / step)))
    smooth = np.stack([_smooth(rate[:, j], k) for j in range(4)], 1)
    # Jitter: how far the frame's displacement strays from its running median, RMS over the
    # window. A median follows a clean change of move exactly, so a boundary is not read as shake.
    disp_smooth = np.stack([_running_median(disp[:, j], k | 1) for j in range(2)], 1)
    resid = np.linalg.norm(disp - disp_smooth, axis=1)
    # A pair beside a tracking loss (motion blur in a whip pan) measured only part of a move the
    # tracker could not follow: its jump against its neighbours is not shake.
    lost = [not p.valid for p in pairs]
    pos = [i for i, p in enumerate(pairs) if p.valid]
    beside = np.array([(i > 0 and lost[i - 1]) or (i + 1 < len(pairs) and lost[i + 1]) for i in pos])
    resid[beside] = 0.0
    jitter = np.sqrt(_running_mean(resid ** 2, max(3, k)))
    def shake_limit(r: np.ndarray) -> np.ndarray | float:
        r = np.asarray(r, float)
        speed = np.abs(r[..., 0]) + np.abs(r[..., 1]) + 0.5 * np.abs(r[..., 2])
        return cfg.shake_threshold + cfg.shake_per_speed * speed

    shaky = jitter > shake_limit(smooth)
    inl_s = _running_mean(np.array([p.inliers for p in good]), k)
    # Shake is the operator's hand: where most of the stretch shakes on fits that measure the
    # frame (not a strip, not noise), the whole stretch is handheld, said once, and the moves are
    # read without it (a shake flickering on and off would cut them into pieces).
    span_s = _running_mean(np.array([p.span for p in good]), k)
    shaking = shaky & (inl_s >= cfg.handheld_inliers) & (span_s >= cfg.min_span)
    handheld = (len(good) >= cfg.handheld_coverage * len(pairs)
                and float(np.mean(shaking)) >= cfg.handheld_share)
    if handheld:
        shaky = np.zeros(len(good), bool)
        k = max(k, int(round(cfg.handheld_move_s / step)))
        smooth = np.stack([_smooth(rate[:, j], k) for j in range(4)], 1)
    labels = [_labels(*smooth[i], shaky[i], cfg, inl_s[i]) for i in range(len(good))]
    own = list(labels)  # each pair's own reading (``labels`` is merged below)

    # Merge runs shorter than min_segment_s into a neighbour, shortest first. A still run at
    # the shot's edge may be shorter: between two stretches of one move a short run is a
    # disturbance (a car passing a locked-off camera), but a move that stops before the cut has
    # nothing after it to be disturbed.
    min_n = max(1, int(round((cfg.handheld_move_s if handheld else cfg.min_segment_s) / step)))
    # (Handheld, a still edge is not kept apart: a still but shaking camera is the shake's.)
    edge_n = min_n if handheld else min(min_n, max(1, int(round(cfg.edge_static_s / step))))
    still = [lab == ("static",) for lab in labels]  # each pair's own reading, before merging

    def too_short(j: int, n_runs: int, i0: int, i1: int) -> bool:
        # Still over edge_static_s of its own pairs: a run grown to that length by merging
        # slivers of other readings into it is no evidence that the camera stopped.
        edge = j in (0, n_runs - 1) and n_runs > 1 and sum(still[i0:i1]) >= edge_n
        return i1 - i0 < (edge_n if edge else min_n)

    while True:
        runs = _runs(labels)
        short = [r for j, r in enumerate(runs) if too_short(j, len(runs), r[0], r[1])]
        if not short or len(runs) == 1:
            break
        r = min(short, key=lambda r: r[1] - r[0])
        i = runs.index(r)
        nb = runs[i - 1] if i > 0 else runs[i + 1]
        if 0 < i < len(runs) - 1 and runs[i + 1][1] - runs[i + 1][0] > nb[1] - nb[0]:
            nb = runs[i + 1]
        for j in range(r[0], r[1]):
            labels[j] = labels[nb[0]]
    runs = _runs(labels)
    # Refine each boundary on the raw rates (median-filtered against outliers).
    feats = np.column_stack([_smooth(rate[:, j], 3) / s for j, s in enumerate(
        (cfg.pan_threshold, cfg.tilt_threshold, cfg.zoom_threshold, cfg.roll_threshold))])
    if not handheld:  # (a handheld stretch's shake is not a boundary: it shakes throughout)
        feats = np.column_stack([feats, jitter / cfg.shake_threshold])
    bounds = [0] + [r[1] for r in runs[:-1]] + [len(good)]
    for b in range(1, len(bounds) - 1):
        lo = max(bounds[b - 1] + 1, bounds[b] - k)
        hi = min(bounds[b + 1] - 1, bounds[b] + k)
        if hi - lo >= 3:
            bounds[b] = _best_split(feats, lo, hi)

    def _seg_labels(i0: int, i1: int) -> tuple[str, ...]:
        mean = smooth[i0:i1].mean(axis=0)
        shakes = not handheld and float(np.sqrt(np.mean(jitter[i0:i1] ** 2))) > shake_limit(mean)
        return _labels(*mean, shakes, cfg,
                       float(np.mean([p.inliers for p in good[i0:i1]])))

    # Each final segment takes the labels its own mean rates support, so the labels and the
    # evidence reported with them always agree; equal neighbours are then joined.
    segs: list[tuple[int, int, tuple[str, ...]]] = []
    for b in range(len(bounds) - 1):
        i0, i1 = bounds[b], bounds[b + 1]
        if i1 <= i0:
            continue
        lab = _seg_labels(i0, i1)
        if segs and segs[-1][2] == lab:
            segs[-1] = (segs[-1][0], i1, lab)
        else:
            segs.append((i0, i1, lab))
    # A relabelled sliver at a boundary (a change of move caught mid-way) joins its longer
    # neighbour.
    while len(segs) > 1:
        short = [j for j, (a, b, _) in enumerate(segs) if too_short(j, len(segs), a, b)]
        if not short:
            break
        j = min(short, key=lambda j: segs[j][1] - segs[j][0])
        nb = j - 1 if j > 0 else j + 1
        if 0 < j < len(segs) - 1 and segs[j + 1][1] - segs[j + 1][0] > segs[j - 1][1] - segs[j - 1][0]:
            nb = j + 1
        a, b = min(segs[j][0], segs[nb][0]), max(segs[j][1], segs[nb][1])
        segs[min(j, nb)] = (a, b, _seg_labels(a, b))  # relabelled: labels follow the evidence
        del segs[max(j, nb)]
        joined: list[tuple[int, int, tuple[str, ...]]] = []
        for seg in segs:
            if joined and joined[-1][2] == seg[2]:
                joined[-1] = (joined[-1][0], seg[1], seg[2])
            else:
                joined.append(seg)
        segs = joined

    out: list[MotionInterval] = []
    for n, (i0, i1, lab) in enumerate(segs):
        seg_t0 = t_start if n == 0 else float(good[i0].t0)
        seg_t1 = t_end if n == len(segs) - 1 else float(good[i1].t0)
        med = smooth[i0:i1].mean(axis=0)
        jit = float(np.sqrt(np.mean(jitter[i0:i1] ** 2)))
        inl = float(np.mean([p.inliers for p in good[i0:i1]]))
        span = float(np.median([p.span for p in good[i0:i1]]))
        pts = float(np.mean([p.points for p in good[i0:i1]]))
        overrides = float(np.mean([p.static_override for p in good[i0:i1]]))
        ratios = np.abs(med) / np.array([cfg.pan_threshold, cfg.tilt_threshold,
                                         cfg.zoom_threshold, cfg.roll_threshold])
        if handheld:
            # Under shake a label stands on its own pairs: one most of them read alone (a zoom
            # they all see) is kept, one the shake lends to a few of them (a tilt that comes and
            # goes with the jolts) is dropped and weighs nothing in the confidence.
            said = {x: float(np.mean([x in own[i] for i in range(i0, i1)])) for x in lab}
            lab = tuple(x for x in lab if x != "static" and said[x] >= 0.5) or ("static",)
            agree_hh = min((said[x] for x in lab if x != "static"), default=1.0)
            ratios = np.where([any(_AXIS[x.split()[0]] == j for x in lab if x != "static")
                               for j in range(4)], ratios, 0.0)
        if lab == ("static",) or lab == ("handheld shake",):
            margin = 1.0 - float(ratios.max()) / 1.5
        else:
            margin = float(min(1.0, ratios[ratios > 1].min() - 1.0)) if (ratios > 1).any() else 0.3
        # Few pairs (a short segment) are weak evidence too.
        confidence = float(np.clip(0.4 + 0.6 * min(1.0, margin + 0.2), 0, 1) * min(1.0, inl + 0.25)
                           * min(1.0, pts / 60) * min(1.0, (i1 - i0) / 4))
        # How many of the segment's pairs, labelled alone (smoothed), say the same: a label that
        # flickers under the segment's mean is weak evidence.
        agree = agree_hh if handheld else float(np.mean([labels[i] == lab for i in range(i0, i1)]))
        movement = list(lab)
        par = None
        if parallax:
            vals = [e for (t, e) in parallax if seg_t0 <= t <= seg_t1]
            if vals:
                par = float(np.median(vals))
                # Clear evidence only: at least two windows, most of them showing parallax.
                strong = sum(v > cfg.parallax_px for v in vals)
                if len(vals) >= 2 and strong >= 0.6 * len(vals) and par > cfg.parallax_px:
                    movement = [_with_parallax(m) for m in movement]
        steadiness = float(np.clip(1.0 - jit / (2 * cfg.shake_threshold), 0.0, 1.0))
        evidence = {
            "pan_rate": round(float(med[0]), 4), "tilt_rate": round(float(med[1]), 4),
            "zoom_rate": round(float(med[2]), 4), "roll_rate": round(float(med[3]), 3),
            "jitter": round(jit, 5), "inlier_fraction": round(inl, 3),
            "tracked_points": int(round(pts)), "static_first_share": round(overrides, 3),
            "pairs": i1 - i0, "agreement": round(agree, 3), "inlier_span": round(span, 3), "units": "pan/tilt: frame widths per s; zoom: log scale per s; "
                                       "roll: degrees per s; jitter: frame widths",
        }
        if par is not None:
            evidence["parallax_px"] = round(par, 3)
        if inl < cfg.min_inliers and lab != ("static",):
            confidence = min(confidence, 0.45)  # the fit explains too little of the frame
        confidence *= min(1.0, agree / 0.5)
        if span < cfg.min_span:
            # The fit follows points in one narrow strip of the frame (a character, a pole): its
            # motion is that object's, or ill-conditioned (rotation and scale from a strip).
            confidence = min(confidence, 0.45)
        if span < cfg.min_span and confidence < cfg.min_confidence:
            evidence["reason"] = (f"the motion fit follows points on a strip {span:.0%} of the "
                                  f"frame width: one object, not the scene")
        out.append(MotionInterval(seg_t0, seg_t1, movement, steadiness, confidence, evidence,
                                  abstained=confidence < cfg.min_confidence))
    if drift:
        from cinecap.anchors.drift import confirm_scale, relabel_still

        out = confirm_scale(relabel_still(out, drift, cfg), drift, cfg, handheld)
    out = _bridge_static(out)
    if handheld:
        out = _handheld(out, good, float(np.mean(shaking)), cfg)
    return out


def _handheld(out: list[MotionInterval], good: list[PairMotion], share: float,
              cfg: MotionConfig) -> list[MotionInterval]:
    """The intervals of a handheld stretch (``share`` of its pairs ``good`` shake): each one
    shakes. Under shake a fit's rates swing from pair to pair, and the frame wanders and comes
    back ("framing unchanged overall"), so a move must add up over its interval: a pan or tilt
    (truck, pedestal) to ``shift_total`` frame widths, a zoom or dolly to ``zoom_total``, a roll
    to ``roll_total`` degrees, the way it is stated; a label that does not is dropped. A stretch
    whose move was too weak to state is still handheld: shake alone, the move it leaned to kept
    in the evidence (``uncertain_move``)."""
    conf_shake = float(np.clip(0.2 + 0.7 * share, 0.0, 1.0))
    totals = (cfg.shift_total, cfg.shift_total, cfg.zoom_total, cfg.roll_total)
    res = []
    for m in out:
        ev = dict(m.evidence)
        inside = [p for p in good if m.t_start - 1e-6 <= p.t0 and p.t1 <= m.t_end + 1e-6]
        if not inside or "pan_rate" not in ev or ev.get("inlier_span", 1.0) < cfg.min_span:
            res.append(m)  # nothing measured here (a fade, too few points, a strip)
            continue
        # The camera's change over the interval, camera-oriented as the rates.
        net = np.sum([[p.pan * (p.t1 - p.t0), p.tilt * (p.t1 - p.t0), p.zoom * (p.t1 - p.t0),
                       p.roll * (p.t1 - p.t0)] for p in inside], axis=0)
        ev["handheld"] = {"shaking_share": round(share, 3),
                          "net": [round(float(v), 3) for v in net]}
        moves, weak = [], []
        for lab in m.movement:
            word, _, way = lab.partition(" ")
            if word not in _AXIS:
                if lab not in ("static", "handheld shake"):
                    moves.append(lab)  # an arc, a label measured otherwise
                continue
            j = _AXIS[word]
            sense = -1 if way in ("left", "down", "out", "counterclockwise") else 1
            (moves if net[j] * sense >= totals[j] else weak).append(lab)
        if weak:
            ev["dropped_unsustained"] = weak
        if m.abstained:
            weak, moves = list(m.movement), []
            ev.pop("reason", None)
        if weak and not moves:
            ev["uncertain_move"] = [lab for lab in weak if lab != "handheld shake"]
        conf = m.confidence if moves and not m.abstained else conf_shake
        res.append(MotionInterval(m.t_start, m.t_end, moves + ["handheld shake"], m.steadiness,
                                  conf, ev, abstained=conf < cfg.min_confidence))
    return res


def _bridge_static(out: list[MotionInterval], max_gap_s: float = 2.5) -> list[MotionInterval]:
    """Static, then a short abstained stretch, then static again: one static interval (a subject
    passing close to a locked-off camera, not a move that returns exactly where it started)."""
    k = 1
    while k < len(out) - 1:
        a, m, b = out[k - 1], out[k], out[k + 1]
        if (m.abstained and m.t_end - m.t_start <= max_gap_s and not a.abstained and not b.abstained
                and a.movement == ["static"] == b.movement):
            keep = a if a.t_end - a.t_start >= b.t_end - b.t_start else b
            out[k - 1:k + 2] = [MotionInterval(a.t_start, b.t_end, ["static"],
                                               min(a.steadiness, b.steadiness),
                                               min(a.confidence, b.confidence),
                                               {**keep.evidence, "bridged_s": round(m.t_end - m.t_start, 2)})]
        else:
            k += 1
    return out


#: The rate (index into pan, tilt, zoom, roll) each move's first word is measured by.
_AXIS = {"pan": 0, "truck": 0, "tilt": 1, "pedestal": 1, "zoom": 2, "dolly": 2, "roll": 3}


def _with_parallax(label: str) -> str:
    """Pan with parallax is a truck; zoom with parallax is a dolly (same direction of content)."""
    return {"pan left": "truck left", "pan right": "truck right",
            "zoom in": "dolly in", "zoom out": "dolly out"}.get(label, label)


__all__ = ["MotionConfig", "MotionInterval", "PairMotion", "PointTracker", "estimate_pair",
           "motion_from_tracks", "parallax_error", "parallax_from_tracks", "segment_shot",
           "track_points"]
