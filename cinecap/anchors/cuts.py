"""Shot cuts with a shipped detector's rule: PySceneDetect's content detector (``scenedetect-headless``).

Fed frame by frame from our own single decoding pass (tiny BGR images built from the Y/U/V planes),
so cut detection costs no second decode. A cut at frame n means the new shot starts at n / fps.

The score and the cut rule are the library's: ``ContentDetector``'s content value (the mean
absolute HSV difference to the frame before, hue, saturation and value weighted alike) against its
threshold, and its ``FlashFilter`` in merge mode for the minimum shot length. On 64-px images the
library's per-frame bookkeeping (a ``FrameTimecode`` per frame, three NumPy reductions) costs
several times the arithmetic, so :class:`ContentScore` computes the same numbers in one OpenCV
pass; ``CutConfig.library`` runs the library itself, the reference the tests compare with
(identical scores and cuts: docs/anchors.md). In fast action every frame scores high and a cut
may score under the threshold while standing far above its neighbours: the library's
``AdaptiveDetector`` rule on the same scores (:class:`AdaptiveRatio`) adds those cuts.

A fast camera move changes the picture as much as a cut, and its motion blur more so, so the
detector fires inside whip pans. Each frame is also related to the one before by a global shift
(phase correlation on the same tiny images): across a real cut the two pictures are unrelated
(a weak correlation peak), inside a move they are one picture shifted. A detected cut whose frame
is the previous one shifted in the direction the camera was already sweeping, or a blurred frame
between two pairs shifted the same way and more smeared than the frames before it, belongs to
the move and is dropped (:meth:`CutDetector.cut_times`).

Something large passing close in front of the camera (a car across a locked-off shot) changes
the picture as much as a cut, for a moment: when the view is back afterwards (the frames either
side of the disturbance differ little, the camera's shift between them allowed for), it was not
a cut (``occlusion_cuts``).

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
    adaptive_ratio: float = field(default=3.0, metadata={
        "help": "a frame whose content score is this many times the mean of the two frames either "
                "side is a cut even under the threshold (PySceneDetect's AdaptiveDetector and its "
                "default): fast action scores high on every frame, and a cut in it stands out from "
                "its neighbours more than above a fixed line; 0 turns the rule off"})
    adaptive_min: float = field(default=15.0, metadata={
        "help": "the content score such a frame must reach too (the AdaptiveDetector's "
                "min_content_val default)"})
    occlusion_s: float = field(default=1.0, metadata={
        "help": "a cut whose disturbance (frames changing as much as a cut, linked by gaps shorter "
                "than a shot) is over within this many seconds with the picture before it back "
                "is something passing in front of the camera, not a cut; 0 turns the check off"})
    occlusion_change: float = field(default=0.33, metadata={
        "help": "the picture is back when the frames either side of the disturbance differ by at "
                "most this share of its largest content score, the camera's steady move between "
                "them allowed for (across real cuts 0.89-1.09 was measured, around cars crossing "
                "a locked-off shot 0.15: docs/anchors.md)"})
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
        if min(self.adaptive_ratio, self.adaptive_min, self.occlusion_s, self.occlusion_change) < 0:
            raise InputError("cuts config: adaptive_ratio, adaptive_min, occlusion_s and "
                             "occlusion_change must be 0 or more")


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


class AdaptiveRatio:
    """PySceneDetect's ``AdaptiveDetector`` rule on content scores: ``push`` returns the frame
    ``window`` frames back when its score is ``ratio`` times the mean score of the ``window``
    frames either side of it and at least ``min_score``, ``min_frames`` after the last such frame
    (the library's bookkeeping, on frame numbers)."""

    def __init__(self, ratio: float, min_score: float, min_frames: int, window: int = 2):
        self.ratio, self.min_score, self.min_frames, self.window = ratio, min_score, min_frames, window
        self._buf: deque[tuple[int, float]] = deque(maxlen=2 * window + 1)
        self._last: int | None = None

    def push(self, index: int, score: float) -> list[int]:
        if self._last is None:
            self._last = index
        self._buf.append((index, score))
        if len(self._buf) < self._buf.maxlen:
            return []
        n, x = self._buf[self.window]
        mean = sum(v for i, (_, v) in enumerate(self._buf) if i != self.window) / (2.0 * self.window)
        if abs(mean) < 0.00001:
            ratio = 255.0 if x >= self.min_score else 0.0
        else:
            ratio = min(x / mean, 255.0)
        if ratio >= self.ratio and x >= self.min_score and n - self._last >= self.min_frames:
            self._last = n
            return [n]
        return []


@functools.lru_cache(maxsize=8)
def _hanning(shape: tuple[int, int]) -> np.ndarray:
    import cv2

    return cv2.createHanningWindow(shape[::-1], cv2.CV_32F)


def _phase(a: np.ndarray | None, b: np.ndarray) -> tuple[tuple[float, float], float]:
    """Global shift from grey image ``a`` to ``b`` (frame widths) and its correlation peak."""
    if a is None or a.shape != b.shape:
        return (0.0, 0.0), 0.0
    import cv2

    # Windowed here, not by OpenCV: phaseCorrelate with a window writes the windowed image into
    # its inputs (OpenCV 4.14, sizes needing no padding), so a frame read twice was windowed twice.
    w = _hanning(b.shape)
    (sx, sy), response = cv2.phaseCorrelate(a * w, b * w)
    return (sx / b.shape[1], sy / b.shape[1]), float(response)


def _change(a_bgr: np.ndarray, b_bgr: np.ndarray, shift: tuple[float, float] = (0.0, 0.0)) -> float:
    """The content score from image ``a_bgr`` to ``b_bgr`` (mean absolute HSV difference, hue,
    saturation and value weighted alike), ``b_bgr`` moved back by ``shift`` (frame widths, to
    the sub-pixel) and the margins the move leaves out of both."""
    import cv2

    h, w = a_bgr.shape[:2]
    dx, dy = shift[0] * w, shift[1] * w
    if dx or dy:
        b_bgr = cv2.warpAffine(b_bgr, np.float32([[1, 0, -dx], [0, 1, -dy]]), (w, h),
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    mx, my = math.ceil(abs(dx)), math.ceil(abs(dy))
    if 2 * mx >= w or 2 * my >= h:
        return math.inf
    a = cv2.cvtColor(a_bgr, cv2.COLOR_BGR2HSV)[my:h - my, mx:w - mx]
    b = cv2.cvtColor(b_bgr, cv2.COLOR_BGR2HSV)[my:h - my, mx:w - mx]
    return sum(cv2.sumElems(cv2.absdiff(a, b))[:3]) / (3.0 * a.shape[0] * a.shape[1])


@dataclass
class _FrameMove:
    """How a frame relates to the one before it: global shift (frame widths) and correlation
    peak; its grey image, for the detail a decision may ask for. The relation is computed when
    first asked: only frames around a detected cut are ever read (phase correlation on every
    frame cost as much as the content score)."""

    index: int
    gray: np.ndarray
    prev: np.ndarray | None = field(default=None, repr=False)
    small: np.ndarray | None = field(default=None, repr=False)  # the BGR image the score reads
    _rel: tuple[tuple[float, float], float] | None = field(default=None, repr=False)

    def _relation(self) -> tuple[tuple[float, float], float]:
        if self._rel is None:
            self._rel, self.prev = _phase(self.prev, self.gray), None
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
    cuts its adaptive rule (:class:`AdaptiveRatio`) finds where the content rule finds none are in
    ``spike_cuts``; cuts inside a fast camera move are kept apart in ``move_cuts``, those where
    something passed in front of the camera in ``occlusion_cuts``; boundaries at a fade through a
    flat frame, which the content rule does not see, are in ``fade_cuts``. ``swept_cuts`` are cuts
    with the camera sweeping the same way on both sides that the frames show to be cuts (no
    shift across, no smear): the tracker's coarser whip-pan rule does not overrule them."""

    fps: float
    config: CutConfig = field(default_factory=CutConfig)
    cuts: list[int] = field(default_factory=list)
    scores: dict[int, float] = field(default_factory=dict)
    move_cuts: list[int] = field(default_factory=list)
    fade_cuts: list[int] = field(default_factory=list)
    spike_cuts: list[int] = field(default_factory=list)
    occlusion_cuts: list[int] = field(default_factory=list)
    swept_cuts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        min_frames = max(1, int(round(self.config.min_shot_s * self.fps)))
        if self.config.library:
            from scenedetect.detectors import ContentDetector

            self._det = ContentDetector(threshold=self.config.threshold, min_scene_len=min_frames)
        else:
            self._det = ContentScore(self.config.threshold, min_frames)
        self._k = max(2, int(round(self.config.move_window_s * self.fps)))
        self._spikes = AdaptiveRatio(self.config.adaptive_ratio, self.config.adaptive_min,
                                     min_frames) if self.config.adaptive_ratio > 0 else None
        self._occlusion = int(round(self.config.occlusion_s * self.fps))
        # A cut is decided once the frames after it are in: those the move check reads, or the
        # whole disturbance the occlusion check reads and a shot's length of calm after it.
        self._wait = max(self._k, self._occlusion + min_frames + 2 if self._occlusion else 0)
        self._recent: deque[_FrameMove] = deque(maxlen=2 * self._wait + 4)
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
        """Every shot boundary found so far, frames (content and adaptive cuts, those inside a move
        or an occlusion included, and fades)."""
        return sorted(self.cuts + self.spike_cuts + self.fade_cuts)

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
        if self._spikes is not None:
            spikes = [n for n in self._spikes.push(index, self.scores.get(index, 0.0))
                      if all(abs(n - c) >= self._min_frames for c in self.cuts)]
            self.spike_cuts.extend(spikes)
            new = new + spikes
        if self.config.move_response <= 0 and self._occlusion <= 0:
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
        near = self.cuts + self.spike_cuts + self.fade_cuts
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
        self._recent.append(_FrameMove(index, g, self._prev, small_bgr))
        self._prev = g

    def _decide(self, final: bool) -> None:
        last = self._recent[-1].index if self._recent else -1
        for n in list(self._pending):
            if not final and last < n + self._wait:
                continue  # the frames after the cut are not in yet
            self._pending.remove(n)
            if self.config.move_response > 0 and self._inside_move(n):
                self.move_cuts.append(n)
            elif self._occluded(n):
                self.occlusion_cuts.append(n)
            else:
                self._kept.append(n)

    def _occluded(self, n: int) -> bool:
        """Whether the detected cut at frame ``n`` is something passing in front of the camera:
        the disturbance around it (:meth:`_disturbance`) is over within ``occlusion_s``, and the
        frames either side of it differ by a small share of what it changed (the camera's steady
        move between them allowed for). Across a real cut they differ as much as the cut did."""
        span = self._disturbance(n)
        if span is None:
            return False
        a, b, peak = span
        by = {m.index: m for m in self._recent}
        before, after = by.get(a - 1), by.get(b + 1)
        if before is None or after is None:
            return False
        change = _change(before.small, after.small)
        # A camera moving steadily has moved on across the disturbance: the picture is compared
        # where the correlation peak puts it, when that is where the camera's rate either side
        # takes it (a jump to another part of the scene is still a cut). Rates read between
        # neighbouring frames run low on sub-pixel steps: half the move and a pixel of slack.
        rates = [m.shift for m in (before, by.get(b + 2)) if m is not None
                 and m.response >= self.config.move_response > 0]
        if len(rates) == 2:
            w = before.gray.shape[1]
            expected = [(b + 2 - a) * (u + v) / 2 for u, v in zip(*rates)]
            shift, response = _phase(before.gray, after.gray)
            off = max(abs(x - e) for x, e in zip(shift, expected))
            if response >= self.config.move_response and off <= 0.5 * max(map(abs, expected)) + 1 / w:
                change = min(change, _change(before.small, after.small, shift))
        return change <= self.config.occlusion_change * peak

    def _disturbance(self, n: int) -> tuple[int, int, float] | None:
        """The first and last frame of the disturbance around frame ``n`` and its largest score:
        frames that change as much as a cut may, linked by gaps shorter than a shot, with a shot's
        length of calm either side, and the frames next to them that still change by more than
        ``occlusion_change`` of that score (something entering or leaving the frame); None when
        it lasts longer than ``occlusion_s`` or meets the clip's start or end."""
        if self._occlusion <= 0:
            return None
        s, gap, lim = self.scores, self._min_frames, self._occlusion
        low = self.config.threshold
        if self._spikes is not None:
            low = min(low, self.config.adaptive_min)

        def edge(way: int) -> int | None:
            end, j = n, n + way
            while abs(j - n) <= lim + gap:
                if j not in s:
                    return None  # the clip's start or end: no picture that side
                if s[j] >= low:
                    if abs(j - n) > lim:
                        return None  # longer than a passer-by
                    end = j
                elif abs(j - end) >= gap:
                    return end
                j += way
            return None

        a, b = edge(-1), edge(1)
        if a is None or b is None:
            return None
        peak = max(s[i] for i in range(a, b + 1))
        while s.get(a - 1, 0.0) > self.config.occlusion_change * peak and n - a < lim:
            a -= 1
        while s.get(b + 1, 0.0) > self.config.occlusion_change * peak and b - n < lim:
            b += 1
        return a, b, peak

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
        # the smear, less detail along the sweep than across it and than the frames before it
        # had, or much less detail in all. A cut to a sharper picture, or one with less detail
        # along the sweep by its nature, inside a fast move is still a cut.
        sx, sy = before[-1].shift

        def along_across(m: _FrameMove) -> tuple[float, float]:
            return m.detail if abs(sx) >= abs(sy) else m.detail[::-1]

        along, across_d = along_across(across)
        ref_along = float(np.median([along_across(m)[0] for m in before]))
        ref = float(np.median([sum(m.detail) for m in before]))
        if (along <= 0.8 * across_d and along <= ref_along) or sum(across.detail) <= 0.7 * ref:
            return True
        self.swept_cuts.append(n)
        return False

    def cut_times(self) -> list[float]:
        """Shot cuts in seconds, without those inside a fast camera move or where something passed
        in front of the camera, with the fades."""
        self._decide(final=True)
        # A content cut found after an adaptive one, closer than a shot, is the same change.
        kept = {c for c in self._kept if c not in self.spike_cuts or all(
            abs(c - x) >= self._min_frames for x in self.cuts)}
        kept |= {f for f in self.fade_cuts if all(abs(f - c) >= self._min_frames for c in kept)}
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
