"""The subject: faces (OpenCV Haar cascades, shipped in the opencv wheel), their scale and
orientation, and the boxes the motion analysis must ignore.

Frontal and profile cascades run on each keyframe; the profile cascade finds left-facing faces only,
so it also runs on the mirrored frame. Frontal alone → frontal; frontal and profile on one face →
three-quarter; profile alone → profile (facing left or right). A back view shows no face, so it is
never claimed. Shot size follows the face height as a share of the frame height (a face is about
1/8 of a standing body).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np


@dataclass(frozen=True)
class SubjectConfig:
    min_face_frac: float = 0.06  # smallest face searched, share of the frame height
    min_neighbors: int = 5  # Haar's vote count: higher means fewer false faces
    min_hits: float = 0.4  # a face must be seen on this share of a shot's keyframes

    def __post_init__(self) -> None:
        if not 0 < self.min_face_frac < 1 or self.min_neighbors < 1 or not 0 < self.min_hits <= 1:
            raise ValueError("bad subject config")


@dataclass
class Face:
    x: float  # box in frame fractions
    y: float
    w: float
    h: float
    kind: str  # "frontal", "profile-left", "profile-right", "three-quarter"

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    def to_dict(self) -> dict:
        return {"box": [round(v, 4) for v in (self.x, self.y, self.w, self.h)], "kind": self.kind}


@lru_cache(maxsize=None)
def _cascade(name: str):
    import cv2

    c = cv2.CascadeClassifier(cv2.data.haarcascades + name)
    if c.empty():
        raise RuntimeError(f"OpenCV's Haar cascade {name} is missing (opencv-python-headless 4.x "
                           f"ships it; 5.x does not — see STACK.md)")
    return c


def _detect(cascade, gray, min_px: int, neighbors: int) -> list[tuple[int, int, int, int]]:
    found = cascade.detectMultiScale(gray, scaleFactor=1.2, minNeighbors=neighbors,
                                     minSize=(min_px, min_px))
    return [tuple(int(v) for v in r) for r in (found if len(found) else [])]


def _iou(a, b) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    ix = max(0, min(ax + aw, bx + bw) - max(ax, bx))
    iy = max(0, min(ay + ah, by + bh) - max(ay, by))
    inter = ix * iy
    return inter / float(aw * ah + bw * bh - inter + 1e-9)


def detect_faces(gray: np.ndarray, cfg: SubjectConfig) -> list[Face]:
    """Faces on one grey frame, each with its orientation kind."""
    import cv2

    h, w = gray.shape[:2]
    g = cv2.equalizeHist(gray)
    min_px = max(20, int(cfg.min_face_frac * h))
    frontal = _detect(_cascade("haarcascade_frontalface_default.xml"), g, min_px, cfg.min_neighbors)
    prof_l = _detect(_cascade("haarcascade_profileface.xml"), g, min_px, cfg.min_neighbors)
    mirrored = _detect(_cascade("haarcascade_profileface.xml"), cv2.flip(g, 1), min_px,
                       cfg.min_neighbors)
    prof_r = [(w - x - bw, y, bw, bh) for (x, y, bw, bh) in mirrored]
    faces: list[Face] = []
    used: set[int] = set()
    profiles = [(r, "profile-left") for r in prof_l] + [(r, "profile-right") for r in prof_r]
    for r in frontal:
        kind = "frontal"
        for j, (p, _) in enumerate(profiles):
            if _iou(r, p) > 0.3:
                kind = "three-quarter"
                used.add(j)
        faces.append(Face(r[0] / w, r[1] / h, r[2] / w, r[3] / h, kind))
    for j, (p, kind) in enumerate(profiles):
        if j in used or any(_iou(p, (f.x * w, f.y * h, f.w * w, f.h * h)) > 0.3 for f in faces):
            continue
        faces.append(Face(p[0] / w, p[1] / h, p[2] / w, p[3] / h, kind))
    return faces


def body_mask(faces: list[Face], shape: tuple[int, int]) -> np.ndarray | None:
    """A mask (255 = use) hiding each face and the body below it from the motion tracker."""
    if not faces:
        return None
    h, w = shape
    mask = np.full((h, w), 255, np.uint8)
    for f in faces:
        x0 = int(max(0, (f.x - f.w) * w))
        x1 = int(min(w, (f.x + 2 * f.w) * w))
        y0 = int(max(0, (f.y - 0.3 * f.h) * h))
        y1 = int(min(h, (f.y + 7 * f.h) * h))
        mask[y0:y1, x0:x1] = 0
    return mask


# --- per shot: the main subject and what it says ---------------------------------------------

#: Face height (share of frame height) → shot size, from the tightest framing down.
SHOT_SIZE_BY_FACE = ((0.55, "extreme close-up"), (0.28, "close-up"), (0.17, "medium close-up"),
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
    """The largest face per keyframe, kept when seen on enough keyframes of the shot."""
    n = len(faces_per_keyframe)
    biggest = [max(fs, key=lambda f: f.w * f.h) for fs in faces_per_keyframe if fs]
    if not n or len(biggest) / n < cfg.min_hits:
        return None
    box = tuple(float(np.median([getattr(f, k) for f in biggest])) for k in ("x", "y", "w", "h"))
    kinds: dict[str, int] = {}
    for f in biggest:
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    return SubjectTrack(len(biggest), n, box, kinds)


__all__ = ["Face", "SHOT_SIZE_BY_FACE", "SubjectConfig", "SubjectTrack", "body_mask",
           "detect_faces", "main_subject", "shot_size_for_face"]
