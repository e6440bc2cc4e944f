"""People's bodies: OpenCV's HOG people detector (its SVM weights ship inside the opencv wheel, so
nothing is downloaded), for shots where no face is seen — people from the back, from afar, or too
small for the face cascades.

A detection window of the default detector is 64 x 128 px with the person about 3/4 of its height;
people shorter than ~128 px at the searched size are missed, so the keyframe is searched at
``search_height`` px (people from half the frame height up). Per shot, a body seen on enough
checked keyframes (or, on a short shot checked at most twice, once with a clear margin) gives
the subject's position (composition) and, for a whole body, the shot size
(full shot, or wide shot for a small figure); orientation is not claimed from a body alone.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from cinecap.errors import InputError


@dataclass(frozen=True)
class BodyConfig:
    """The HOG body search and what a body found says about the shot."""

    search_height: int = field(default=256, metadata={
        "help": "keyframes are searched at this height in px (HOG finds people ≥ ~128 px tall)"})
    scale: float = field(default=1.2, metadata={"help": "HOG's image pyramid step"})
    min_score: float = field(default=0.6, metadata={"help": "SVM margin a detection must reach"})
    min_hits: float = field(default=0.4, metadata={
        "help": "a body must be seen on this share of a shot's checked keyframes (and twice)"})
    full_body: float = field(default=0.55, metadata={
        "help": "person height / frame height from which a whole body is a full shot"})
    small_body: float = field(default=0.3, metadata={
        "help": "person height / frame height under which a whole body is a wide shot"})

    strong_score: float = field(default=1.0, metadata={
        "help": "SVM margin of a clear detection: on a short shot with at most two checks, one "
                "such sighting is enough"})

    def __post_init__(self) -> None:
        if self.search_height < 128 or self.scale <= 1 or not 0 < self.min_hits <= 1 \
                or not 0 < self.small_body < self.full_body < 1:
            raise InputError("body config: need search_height ≥ 128, scale > 1, 0 < min_hits ≤ 1 "
                             "and 0 < small_body < full_body < 1")


@dataclass
class Body:
    x: float  # box of the person (the detection window less its margins), frame fractions
    y: float
    w: float
    h: float
    score: float

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    def to_dict(self) -> dict:
        return {"box": [round(v, 4) for v in (self.x, self.y, self.w, self.h)],
                "score": round(self.score, 2)}


_per_thread = threading.local()


def _hog():
    """One HOG people detector per thread (the app may caption two clips at once)."""
    hog = getattr(_per_thread, "hog", None)
    if hog is None:
        import cv2

        hog = cv2.HOGDescriptor()
        hog.setSVMDetector(cv2.HOGDescriptor_getDefaultPeopleDetector())
        _per_thread.hog = hog
    return hog


def detect_people(gray: np.ndarray, cfg: BodyConfig) -> list[Body]:
    """Standing or walking people on one grey frame, strongest first (overlaps suppressed)."""
    import cv2

    h0, w0 = gray.shape[:2]
    k = cfg.search_height / h0
    g = cv2.resize(gray, (int(round(w0 * k)), cfg.search_height),
                   interpolation=cv2.INTER_LINEAR if k > 1 else cv2.INTER_AREA)
    rects, weights = _hog().detectMultiScale(g, winStride=(8, 8), padding=(8, 8), scale=cfg.scale)
    if not len(rects):
        return []
    h, w = g.shape[:2]
    out = []
    for (x, y, bw, bh), s in sorted(zip(np.asarray(rects).tolist(), np.ravel(weights).tolist()),
                                    key=lambda r: -r[1]):
        if s < cfg.min_score:
            continue
        # The default window keeps ~1/8 of its height and ~1/4 of its width as margin.
        box = (x + bw / 4, y + bh / 8, bw / 2, bh * 3 / 4)
        if any(_overlap(box, (b.x * w, b.y * h, b.w * w, b.h * h)) > 0.3 for b in out):
            continue
        out.append(Body(box[0] / w, box[1] / h, box[2] / w, box[3] / h, float(s)))
    return out


def _overlap(a, b) -> float:
    ix = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return ix * iy / max(1e-9, min(a[2] * a[3], b[2] * b[3]))


@dataclass
class BodyTrack:
    hits: int
    keyframes: int
    box: tuple[float, float, float, float]  # median box, frame fractions

    @property
    def share(self) -> float:
        return self.hits / max(1, self.keyframes)


def main_body(bodies_per_keyframe: list[list[Body]], cfg: BodyConfig) -> BodyTrack | None:
    """The strongest body per checked keyframe, kept when seen on enough of them."""
    n = len(bodies_per_keyframe)
    best = [max(bs, key=lambda b: b.score) for bs in bodies_per_keyframe if bs]
    # A short shot is checked once or twice: one clear sighting is all it can give.
    once = n <= 2 and len(best) == 1 and best[0].score >= cfg.strong_score
    if not n or (len(best) < 2 and not once) or len(best) / n < cfg.min_hits:
        return None
    box = tuple(float(np.median([getattr(b, k) for b in best])) for k in ("x", "y", "w", "h"))
    return BodyTrack(len(best), n, box)


def shot_size_for_body(box: tuple[float, float, float, float], cfg: BodyConfig) -> str | None:
    """Full shot for a whole body filling most of the height, wide shot for a small figure, None
    in between or when the body is cut by the frame (then it is no whole body)."""
    x, y, w, h = box
    if y < 0.01 or y + h > 0.99:
        return None
    if h >= cfg.full_body:
        return "full shot"
    if h <= cfg.small_body:
        return "wide shot"
    return None


__all__ = ["Body", "BodyConfig", "BodyTrack", "detect_people", "main_body", "shot_size_for_body"]
