"""Shot cuts with a shipped detector's rule: PySceneDetect's content detector (``scenedetect-headless``).

Fed frame by frame from our own single decoding pass (tiny BGR images built from the Y/U/V planes),
so cut detection costs no second decode. A cut at frame n means the new shot starts at n / fps.

The score and the cut rule are the library's: ``ContentDetector``'s content value (the mean
absolute HSV difference to the frame before, hue, saturation and value weighted alike) against its
threshold, and its ``FlashFilter`` in merge mode for the minimum shot length. On 64-px images the
library's per-frame bookkeeping (a ``FrameTimecode`` per frame, three NumPy reductions) costs
several times the arithmetic, so :class:`ContentScore` computes the same numbers in one OpenCV
pass; ``CutConfig.library`` runs the library itself, the reference the tests compare with
(identical scores and cuts: docs/anchors.md).

A fast camera move changes the picture as much as a cut, and its motion blur more so, so the
detector fires inside whip pans. Each frame is also related to the one before by a global shift
(phase correlation on the same tiny images): across a real cut the two pictures are unrelated
(a weak correlation peak), inside a move they are one picture shifted. A detected cut whose frame
is the previous one shifted in the direction the camera was already sweeping, or a blurred frame
between two pairs shifted the same way, belongs to the move and is dropped (:meth:`CutDetector.
cut_times`).

A fade through black (or white, or any flat colour) changes each frame little, so the content
score never reaches its threshold across it: the picture dims to nothing and a new one rises. A
frame with no picture left (its grey levels all but uniform) between frames that have one is
a boundary the content rule cannot see; :class:`CutDetector` keeps such boundaries in
``fade_cuts``. A picture that only dims or brightens keeps its structure (the spread of its grey
levels), so a slow change of light inside a shot is not one.
"""
from __future__ import annotations

import functools
import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from cinecap.errors import InputError


@dataclass(frozen=True)
class CutConfig:
    """Shot-cut detection (PySceneDetect's content detector on tiny frames)."""

    threshold: float = field(default=27.0, metadata={
        "help": "content-change score of a cut (PySceneDetect's default for ContentDetector)"})
    min_shot_s: float = field(default=0.4, metadata={
        "help": "two cuts closer than this many seconds are one (flashes, dissolves)"})
    small_side: int = field(default=64, metadata={
        "help": "the long side of the images the detector sees, in pixels"})
    move_response: float = field(default=0.4, metadata={
        "help": "phase-correlation peak above which two frames are one picture shifted (across "
                "real cuts 0.00-0.22 was measured, inside whip pans 0.70-0.97: docs/anchors.md); "
                "0 turns the move check off"})
    move_speed: float = field(default=0.5, metadata={
        "help": "frame widths/s of global shift that make a strong move (a whip pan)"})
    move_window_s: float = field(default=0.12, metadata={
        "help": "frames this many seconds either side of a detected cut show the move around it"})
    flat_std: float = field(default=2.0, metadata={
        "help": "grey-level standard deviation (0-255, on the small images) at or under which a "
                "frame holds no picture (black, white, a flat colour); a run of such frames between "
                "two pictures is a fade through it, a shot boundary (the licensed clips' fades "
                "reach 0.0-1.5, their darkest pictures stay above 8: docs/anchors.md); 0 turns "
                "fade detection off"})
    fade_s: float = field(default=1.0, metadata={
        "help": "a picture must be seen within this many seconds before and after the flat run "
                "for it to be a fade between two shots (not the clip fading in or out)"})
    library: bool = field(default=False, metadata={
        "help": "score frames with PySceneDetect's ContentDetector itself (the reference: the same "
                "scores and cuts, several times the per-frame cost)"})

    def __post_init__(self) -> None:
        if self.threshold <= 0 or self.min_shot_s <= 0 or self.small_side < 16:
            raise InputError("cuts config: threshold and min_shot_s must be positive, "
                             "small_side >= 16")
        if not 0 <= self.move_response < 1 or self.move_speed <= 0 or self.move_window_s <= 0:
            raise InputError("cuts config: move_response must be in [0, 1), move_speed and "
                             "move_window_s positive")
        if self.flat_std < 0 or self.fade_s <= 0:
            raise InputError("cuts config: flat_std must be 0 or more, fade_s positive")


class ContentScore:
    """PySceneDetect's ``ContentDetector`` score and merge-mode ``FlashFilter``, on frame numbers:
    ``push`` returns the frames where the library would report a cut."""

    def __init__(self, threshold: float, min_frames: int):
        self.threshold = threshold
        self.min_frames = min_frames
        self.score = 0.0
        self._prev = None
        self._last_above: int | None = None
        self._merge_enabled = False
        self._merging = False
        self._merge_start = 0

    def push(self, index: int, small_bgr: np.ndarray) -> list[int]:
        import cv2

        hsv = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2HSV)
        prev, self._prev = self._prev, hsv
        if prev is None:
            self.score = 0.0
        else:
            # Sums of absolute differences are integers, exact in a double: the library's
            # per-channel means, added and divided in its order, to the last bit.
            sh, ss, sv, _ = cv2.sumElems(cv2.absdiff(hsv, prev))
            n = float(hsv.shape[0] * hsv.shape[1])
            self.score = (sh / n + ss / n + sv / n + 0.0) / 3.0
        return self._filter(index, self.score >= self.threshold)

    def _filter(self, n: int, above: bool) -> list[int]:
        """``FlashFilter._filter_merge`` with a length in frames."""
        if self._last_above is None:
            self._last_above = n
        met = n - self._last_above >= self.min_frames
        if above:
            self._last_above = n
        if self._merging:
            if met and not above and self._last_above - self._merge_start >= self.min_frames:
                self._merging = False
                return [self._last_above]
            return []
        if not above:
            return []
        if met:
            self._merge_enabled = True
            return [n]
        if self._merge_enabled:
            self._merging, self._merge_start = True, n
        return []


@functools.lru_cache(maxsize=8)
def _hanning(shape: tuple[int, int]) -> np.ndarray:
    import cv2

    return cv2.createHanningWindow(shape[::-1], cv2.CV_32F)


@dataclass
class _FrameMove:
    """How a frame relates to the one before it: global shift (frame widths) and correlation
    peak; its grey image, for the detail a decision may ask for. The relation is computed when
    first asked: only frames around a detected cut are ever read (phase correlation on every
    frame cost as much as the content score)."""

    index: int
    gray: np.ndarray
    prev: np.ndarray | None = field(default=None, repr=False)
    _rel: tuple[tuple[float, float], float] | None = field(default=None, repr=False)

    def _relation(self) -> tuple[tuple[float, float], float]:
        if self._rel is None:
            import cv2

            g, shift, response = self.gray, (0.0, 0.0), 0.0
            if self.prev is not None and self.prev.shape == g.shape:
                (sx, sy), response = cv2.phaseCorrelate(self.prev, g, _hanning(g.shape))
                w = g.shape[1]
                shift = (sx / w, sy / w)
            self._rel, self.prev = (shift, float(response)), None
        return self._rel

    @property
    def shift(self) -> tuple[float, float]:
        return self._relation()[0]

    @property
    def response(self) -> float:
        return self._relation()[1]

    @property
    def detail(self) -> tuple[float, float]:
        """Mean absolute gradient along x and along y (motion blur lowers the one along it)."""
        g = self.gray
        return float(np.abs(np.diff(g, axis=1)).mean()), float(np.abs(np.diff(g, axis=0)).mean())


@dataclass
class CutDetector:
    """Scores each frame by PySceneDetect's content rule (:class:`ContentScore`, or the library's
    ``ContentDetector`` itself with ``CutConfig.library``) and keeps the cut frames and scores;
    cuts inside a fast camera move are kept apart in ``move_cuts``; boundaries at a fade through a
    flat frame, which the content rule does not see, are in ``fade_cuts``."""

    fps: float
    config: CutConfig = field(default_factory=CutConfig)
    cuts: list[int] = field(default_factory=list)
    scores: dict[int, float] = field(default_factory=dict)
    move_cuts: list[int] = field(default_factory=list)
    fade_cuts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        min_frames = max(1, int(round(self.config.min_shot_s * self.fps)))
        if self.config.library:
            from scenedetect.detectors import ContentDetector

            self._det = ContentDetector(threshold=self.config.threshold, min_scene_len=min_frames)
        else:
            self._det = ContentScore(self.config.threshold, min_frames)
        self._k = max(2, int(round(self.config.move_window_s * self.fps)))
        self._recent: deque[_FrameMove] = deque(maxlen=2 * self._k + 2)
        self._prev = None
        self._pending: list[int] = []  # detected cuts waiting for the frames after them
        self._kept: list[int] = []
        self._min_frames = min_frames
        self._fade_frames = max(1, int(round(self.config.fade_s * self.fps)))
        self._pictured: int | None = None  # the last frame that held a picture
        self._flat: tuple[int, int] | None = None  # the current or last run of flat frames
        self._flat_after: tuple[int, int] | None = None  # a run seen after a picture, unresolved
        self._contrast: dict[int, float] = {}  # grey-level spread per frame, for the fades' extent
        self._fade_runs: list[tuple[int, int]] = []  # the flat run behind each fade

    @property
    def boundaries(self) -> list[int]:
        """Every shot boundary found so far, frames (content cuts, move cuts included, and fades)."""
        return sorted(self.cuts + self.fade_cuts)

    def push(self, index: int, small_bgr: np.ndarray) -> None:
        if self.config.flat_std > 0:
            self._fade(index, small_bgr)
        if isinstance(self._det, ContentScore):
            new = self._det.push(index, small_bgr)
            self.scores[index] = self._det.score
        else:
            from scenedetect.common import FrameTimecode

            found = self._det.process_frame(FrameTimecode(index, self.fps), small_bgr)
            score = getattr(self._det, "_frame_score", None)
            if score is not None:
                self.scores[index] = float(score)
            new = [int(tc.frame_num) for tc in found]
        self.cuts.extend(new)
        if self.config.move_response <= 0:
            self._kept.extend(new)
            return
        self._relate(index, small_bgr)
        self._pending.extend(new)
        self._decide(final=False)

    def _fade(self, index: int, small_bgr: np.ndarray) -> None:
        """Follow runs of flat frames; a run with a picture within ``fade_s`` before and after it
        is a fade between two shots: one boundary at its middle, or one at each end when the
        run is as long as a shot (the flat stretch is then a shot of its own)."""
        import cv2

        _, sd = cv2.meanStdDev(cv2.cvtColor(small_bgr, cv2.COLOR_BGR2GRAY))
        sd = float(sd[0, 0])
        self._contrast[index] = sd
        if sd <= self.config.flat_std:
            if self._flat is not None and self._flat[1] == index - 1:
                self._flat = (self._flat[0], index)
            else:
                self._flat = (index, index)
            if self._pictured is not None and self._flat[0] - self._pictured <= self._fade_frames:
                self._flat_after = self._flat
            return
        # A picture must stand clearly apart from the flat frames (a fade's first steps back
        # are still nearly flat).
        if sd < 4 * self.config.flat_std:
            return
        run, self._flat_after, self._pictured = self._flat_after, None, index
        if run is None or index - run[1] > self._fade_frames:
            return
        a, b = run
        new = [a, b + 1] if b + 1 - a >= self._min_frames else [(a + b + 1) // 2]
        near = self.cuts + self.move_cuts + self.fade_cuts
        new = [n for n in new if n > 0 and all(abs(n - c) >= self._min_frames for c in near)]
        self.fade_cuts.extend(new)
        if new:
            self._fade_runs.append(run)

    def fade_spans(self) -> list[tuple[float, float]]:
        """Seconds each fade takes: from where the picture starts to dim steadily into the flat
        run to where it stops rising out of it (at most ``fade_s`` either side). A fade scales
        the picture's contrast from frame to frame, which point tracking reads as motion."""
        c, lim = self._contrast, self._fade_frames

        def grows(j: int, way: int) -> bool:
            """The contrast grows from frame j on, one way (a held frame may sit in between)."""
            return max(c.get(j + way, 0.0), c.get(j + 2 * way, 0.0)) >= 1.03 * c[j]

        out = []
        for a, b in self._fade_runs:
            lo, hi = a, b
            while lo - 1 in c and a - lo < lim and grows(lo, -1):
                lo -= 1
            while hi + 1 in c and hi - b < lim and grows(hi, 1):
                hi += 1
            out.append((lo / self.fps, (hi + 1) / self.fps))
        return out

    def _relate(self, index: int, small_bgr: np.ndarray) -> None:
        import cv2

        g = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
        self._recent.append(_FrameMove(index, g, self._prev))
        self._prev = g

    def _decide(self, final: bool) -> None:
        last = self._recent[-1].index if self._recent else -1
        for n in list(self._pending):
            if not final and last < n + self._k:
                continue  # the frames after the cut are not in yet
            self._pending.remove(n)
            (self.move_cuts if self._inside_move(n) else self._kept).append(n)

    def _inside_move(self, n: int) -> bool:
        """Whether the detected cut at frame ``n`` is a frame of a fast camera move: frame n is
        frame n-1 shifted the way the camera sweeps just before or after it, or a blurred frame n
        sits between pairs shifted the same way on both sides."""
        by = {m.index: m for m in self._recent}
        cfg, k = self.config, self._k
        if n not in by:
            return False
        step = cfg.move_speed / self.fps  # frame widths per frame

        def strong(m: _FrameMove | None) -> bool:
            return m is not None and m.response >= cfg.move_response and math.hypot(*m.shift) >= step

        def same_way(a: _FrameMove, b: _FrameMove) -> bool:
            na, nb = math.hypot(*a.shift), math.hypot(*b.shift)
            return (a.shift[0] * b.shift[0] + a.shift[1] * b.shift[1]) / (na * nb) >= 0.8

        across = by[n]
        before = [m for m in (by.get(i) for i in range(n - k, n)) if strong(m)]
        after = [m for m in (by.get(i) for i in range(n + 1, n + k + 1)) if strong(m)]
        if strong(across) and any(same_way(across, m) for m in before + after):
            return True
        if not before or not after or not same_way(before[-1], after[0]):
            return False
        # Too smeared for the shift to be read across the cut: the frame at the cut must carry
        # the smear (less detail along the sweep than across it, or much less than before it).
        sx, sy = before[-1].shift
        along, across_d = across.detail if abs(sx) >= abs(sy) else across.detail[::-1]
        ref = float(np.median([sum(m.detail) for m in before]))
        return along <= 0.8 * across_d or sum(across.detail) <= 0.7 * ref

    def cut_times(self) -> list[float]:
        """Shot cuts in seconds, without those inside a fast camera move, with the fades."""
        self._decide(final=True)
        kept = set(self._kept) | {f for f in self.fade_cuts if all(
            abs(f - c) >= self._min_frames for c in self._kept)}
        return [c / self.fps for c in sorted(kept) if c > 0]


#: Why a fade's stretch of a shot states no camera movement (the caption's uncertain stretch).
FADE_REASON = ("a fade: the picture dims or rises from frame to frame, which point tracking "
               "reads as motion")


def split_at_fades(s0: float, s1: float, spans: list[tuple[float, float]],
                   min_len: float) -> list[tuple[float, float, bool]]:
    """The shot [s0, s1] in pieces ``(start, end, in_fade)``: the parts a fade covers, and the
    parts between. A part between shorter than ``min_len`` joins the fade beside it (too short to
    read a move from)."""
    inner = sorted({t for x, y in spans for t in (x, y) if s0 < t < s1})
    edges = [s0] + inner + [s1]
    raw = [(a, b, any(x <= a and b <= y for x, y in spans)) for a, b in zip(edges, edges[1:])]
    for j, (a, b, fade) in enumerate(raw):
        if not fade and b - a < min_len and any(
                0 <= k < len(raw) and raw[k][2] for k in (j - 1, j + 1)):
            raw[j] = (a, b, True)
    pieces: list[tuple[float, float, bool]] = []
    for a, b, fade in raw:
        if pieces and pieces[-1][2] == fade:
            pieces[-1] = (pieces[-1][0], b, fade)
        else:
            pieces.append((a, b, fade))
    return pieces


def shots_from_cuts(cut_times: list[float], duration: float) -> list[tuple[float, float]]:
    bounds = [0.0] + [t for t in cut_times if 0 < t < duration] + [duration]
    return [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]


def inside_whip_pan(t: float, pairs: list, window: float = 0.5,
                    fast: float = 0.5) -> bool:
    """Whether a detected cut at ``t`` is the blur of a whip pan: the camera sweeps fast just
    before or just after it, and on the other side it sweeps the same way or the tracker lost
    everything (motion blur). A real cut rarely joins two such sweeps. ``pairs``: the
    tracker's ``motion.PairMotion`` list."""
    def side(ps):
        """'fast' + direction, 'lost' (no valid pair: blur), or None (slow, or nothing to say)."""
        if not ps:
            return None, None
        ok = [p for p in ps if p.valid and not p.static_override]
        if not ok:
            return ("lost", None) if all(not p.valid for p in ps) else (None, None)
        v = np.median([[p.pan, p.tilt] for p in ok], axis=0)
        return ("fast", v) if np.hypot(*v) >= fast else (None, None)

    kb, vb = side([p for p in pairs if t - window <= p.t0 and p.t1 <= t + 1e-6])
    ka, va = side([p for p in pairs if t - 1e-6 <= p.t0 and p.t1 <= t + window])
    if kb == ka == "fast":
        return float(np.dot(vb, va) / (np.hypot(*vb) * np.hypot(*va))) > 0.7
    return {kb, ka} == {"fast", "lost"}


__all__ = ["FADE_REASON", "ContentScore", "CutConfig", "CutDetector", "inside_whip_pan",
           "shots_from_cuts", "split_at_fades"]
