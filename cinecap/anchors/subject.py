"""The subject: faces (OpenCV Haar cascades, shipped in the opencv wheel), their scale and
orientation, and the boxes the motion analysis must ignore.

Frontal and profile cascades run on each keyframe; the profile cascade finds left-facing faces only,
so it also runs on the mirrored frame (docs/anchors.md). Frontal alone → frontal; frontal and profile on one face →
three-quarter; profile alone → profile (facing left or right). A back view shows no face, so it is
never claimed. Shot size follows the face height as a share of the frame height (a face is about
1/8 of a standing body).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from cinecap.errors import InputError


@dataclass(frozen=True)
class SubjectConfig:
    """How faces are searched, and how often one must be seen to be the subject."""

    min_face_frac: float = field(default=0.1, metadata={
        "help": "smallest face searched, as a share of the frame height"})
    detect_height: int = field(default=200, metadata={
        "help": "frames are searched at this height at most (Haar's cost is per pixel)"})
    min_neighbors: int = field(default=4, metadata={
        "help": "Haar's vote count: higher means fewer false faces"})
    min_hits: float = field(default=0.4, metadata={
        "help": "a face must be seen on this share of a shot's keyframes, and twice"})

    def __post_init__(self) -> None:
        if not 0 < self.min_face_frac < 1 or self.min_neighbors < 1 or not 0 < self.min_hits <= 1 \
                or self.detect_height < 48:
            raise InputError("subject config: need 0 < min_face_frac < 1, min_neighbors >= 1, "
                             "0 < min_hits <= 1 and detect_height >= 48")


@dataclass
class Face:
    x: float  # box in frame fractions
    y: float
    w: float
    h: float
    kind: str  # "frontal", "profile-left", "profile-right", "three-quarter"
    score: float = 0.0  # the detector's confidence (Haar last-stage weight)

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    def to_dict(self) -> dict:
        return {"box": [round(v, 4) for v in (self.x, self.y, self.w, self.h)], "kind": self.kind,
                "score": round(self.score, 2)}


_per_thread = threading.local()


def _cascade(name: str):
    """One loaded cascade per thread: a CascadeClassifier is not safe to share between threads
    (the app may caption two clips at once)."""
    cache = getattr(_per_thread, "cascades", None)
    if cache is None:
        cache = _per_thread.cascades = {}
    if name not in cache:
        cache[name] = _load_cascade(name)
    return cache[name]


def _load_cascade(name: str):
    import cv2

    c = cv2.CascadeClassifier(cv2.data.haarcascades + name)
    if c.empty():
        raise RuntimeError(f"OpenCV's Haar cascade {name} is missing (opencv-python-headless 4.x "
                           f"ships it; 5.x does not — see requirements.txt)")
    return c


def _detect(cascade, gray, min_px: int, neighbors: int) -> list[tuple[int, int, int, int, float]]:
    """Boxes (x, y, w, h, score): the score is the cascade's last-stage weight, higher for a
    clearer face (a face-like patch of a jacket scores low)."""
    found, _, weights = cascade.detectMultiScale3(gray, scaleFactor=1.2, minNeighbors=neighbors,
                                                  minSize=(min_px, min_px), outputRejectLevels=True)
    if not len(found):
        return []
    return [(*(int(v) for v in r), float(wt)) for r, wt in zip(found, np.ravel(weights))]


def _iou(a, b) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    ix = max(0, min(ax + aw, bx + bw) - max(ax, bx))
    iy = max(0, min(ay + ah, by + bh) - max(ay, by))
    inter = ix * iy
    return inter / float(aw * ah + bw * bh - inter + 1e-9)


def _profiles(gray, min_px: int, neighbors: int,
              sides: tuple[str, ...] = ("left", "right")) -> list[tuple[tuple, str]]:
    """Profile faces on ``gray``: the cascade finds left-facing ones; the mirror finds the rest."""
    import cv2

    cascade = _cascade("haarcascade_profileface.xml")
    w = gray.shape[1]
    out = []
    if "left" in sides:
        out += [(r, "profile-left") for r in _detect(cascade, gray, min_px, neighbors)]
    if "right" in sides:
        out += [((w - x - bw, y, bw, bh, sc), "profile-right") for (x, y, bw, bh, sc) in
                _detect(cascade, cv2.flip(gray, 1), min_px, neighbors)]
    return out


def detect_faces(gray: np.ndarray, cfg: SubjectConfig,
                 profile_sides: tuple[str, ...] = ("left", "right")) -> list[Face]:
    """Faces on one grey frame, each with its orientation kind.

    The frontal cascade runs on the whole frame. Around each frontal face the profile cascade then
    looks for the same face turned (→ three-quarter); only when no frontal face is found does it
    search the whole frame (at 0.6 size, for speed) for profiles facing ``profile_sides``
    (the analysis alternates sides from one check to the next: each side costs a full pass).
    """
    import cv2

    if gray.shape[0] > cfg.detect_height:
        k = cfg.detect_height / gray.shape[0]
        gray = cv2.resize(gray, (int(round(gray.shape[1] * k)), cfg.detect_height),
                          interpolation=cv2.INTER_AREA)
    h, w = gray.shape[:2]
    g = cv2.equalizeHist(gray)
    min_px = max(20, int(cfg.min_face_frac * h))
    frontal = _detect(_cascade("haarcascade_frontalface_default.xml"), g, min_px, cfg.min_neighbors)
    faces: list[Face] = []
    for (x, y, bw, bh, score) in frontal:
        x0, y0 = max(0, x - bw // 2), max(0, y - bh // 2)
        roi = g[y0:min(h, y + bh + bh // 2), x0:min(w, x + bw + bw // 2)]
        turned = [r for r, _ in _profiles(roi, max(20, int(bw * 0.7)), cfg.min_neighbors)]
        kind = ("three-quarter" if any(_iou((x - x0, y - y0, bw, bh), r[:4]) > 0.3 for r in turned)
                else "frontal")
        faces.append(Face(x / w, y / h, bw / w, bh / h, kind, score))
    if faces:
        return faces
    # Profiles are searched at 0.6 size (from ~20 % of the frame height up): a profile worth
    # stating is a close framing, and the two mirrored passes are the costliest part.
    k = 0.6
    small = cv2.resize(g, (int(w * k), int(h * k)), interpolation=cv2.INTER_AREA)
    for (x, y, bw, bh, score), kind in _profiles(small, max(20, int(min_px * k)), cfg.min_neighbors,
                                                 profile_sides):
        box = (x / k, y / k, bw / k, bh / k)
        if any(_iou(box, (f.x * w, f.y * h, f.w * w, f.h * h)) > 0.3 for f in faces):
            continue
        faces.append(Face(box[0] / w, box[1] / h, box[2] / w, box[3] / h, kind, score))
    return faces


def body_mask(faces: list[Face], shape: tuple[int, int], max_hidden: float = 0.5) -> np.ndarray | None:
    """A mask (255 = use) hiding each face and the body below it from the motion tracker.

    When the subject fills most of the frame (a close-up), hiding it would leave too little
    background to measure: then only the faces are hidden, and the static-first test and RANSAC
    deal with the rest."""
    if not faces:
        return None
    h, w = shape
    for body in (True, False):
        mask = np.full((h, w), 255, np.uint8)
        for f in faces:
            grow_x, below = (0.6, 6.0) if body else (0.1, 0.2)
            x0 = int(max(0, (f.x - grow_x * f.w) * w))
            x1 = int(min(w, (f.x + (1 + grow_x) * f.w) * w))
            y0 = int(max(0, (f.y - 0.2 * f.h) * h))
            y1 = int(min(h, (f.y + (1 + below) * f.h) * h))
            mask[y0:y1, x0:x1] = 0
        if (mask == 0).mean() <= max_hidden:
            return mask
    return None


# --- per shot: the main subject and what it says ---------------------------------------------

#: Face height (share of frame height) → shot size, from the tightest framing down.
SHOT_SIZE_BY_FACE = ((0.8, "extreme close-up"), (0.28, "close-up"), (0.17, "medium close-up"),
                     (0.10, "medium shot"), (0.065, "medium full shot"), (0.0, "full shot"))


def shot_size_for_face(face_h: float) -> str:
    for limit, name in SHOT_SIZE_BY_FACE:
        if face_h >= limit:
            return name
    return "full shot"


@dataclass
class SubjectTrack:
    """The main face of a shot, aggregated over its keyframes."""

    hits: int
    keyframes: int
    box: tuple[float, float, float, float]  # median box (x, y, w, h), frame fractions
    kinds: dict[str, int] = field(default_factory=dict)

    @property
    def share(self) -> float:
        return self.hits / max(1, self.keyframes)

    @property
    def orientation(self) -> tuple[str, str | None, float]:
        """(canonical orientation, facing side or None, agreement share)."""
        total = sum(self.kinds.values())
        kind, n = max(self.kinds.items(), key=lambda kv: kv[1])
        side = None
        if kind.startswith("profile"):
            side = kind.split("-")[1]
            n = sum(v for k, v in self.kinds.items() if k.startswith("profile"))
            kind = "profile"
        return kind, side, n / max(1, total)


def main_subject(faces_per_keyframe: list[list[Face]], cfg: SubjectConfig) -> SubjectTrack | None:
    """The clearest face per keyframe (highest detector score), kept when seen on enough
    keyframes of the shot."""
    n = len(faces_per_keyframe)
    biggest = [max(fs, key=lambda f: f.score) for fs in faces_per_keyframe if fs]
    if not n or len(biggest) < 2 or len(biggest) / n < cfg.min_hits:
        return None
    box = tuple(float(np.median([getattr(f, k) for f in biggest])) for k in ("x", "y", "w", "h"))
    kinds: dict[str, int] = {}
    for f in biggest:
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    return SubjectTrack(len(biggest), n, box, kinds)


__all__ = ["Face", "SHOT_SIZE_BY_FACE", "SubjectConfig", "SubjectTrack", "body_mask",
           "detect_faces", "main_subject", "shot_size_for_face"]
