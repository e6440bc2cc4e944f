"""Clips with known camera moves: real photographs filmed by a virtual camera.

A photograph (one of those shipped with scikit-image) is the world; a virtual camera with a centre,
a scale (zoom) and a roll angle samples it frame by frame. The camera follows a plan of 1–4
segments, each holding one move or a compound of two (pan right and tilt up at once), with the
ground truth kept as labelled segments in seconds. In half the clips a textured subject moves
across the frame on its own, independently of the camera, so the motion analysis can be checked
for false camera motion. The world is a single plane, so a virtual camera cannot make parallax:
trucks and dollies are not generated (pan and zoom are).

Used by the tests and ``benchmarks/motion_quality.py``; needs scikit-image (a test dependency).
"""
from __future__ import annotations

import logging
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

PHOTOS = ("astronaut", "coffee", "chelsea", "rocket", "hubble_deep_field", "retina",
          "motorcycle")

#: Single moves and the compounds the generator may plan ("X and Y" at the same time).
SINGLE_MOVES = ("static", "pan left", "pan right", "tilt up", "tilt down", "zoom in", "zoom out",
                "roll clockwise", "roll counterclockwise", "handheld shake")
COMPOUND_MOVES = (("pan right", "tilt up"), ("pan left", "tilt down"), ("pan right", "zoom in"),
                  ("pan left", "zoom out"), ("tilt up", "zoom in"), ("zoom in", "roll clockwise"),
                  ("pan left", "tilt up"))


@dataclass(frozen=True)
class MoveRates:
    """Speeds of the virtual camera, per second, in frame units (so any frame size behaves alike)."""

    pan: float = 0.15  # frame widths per second
    tilt: float = 0.12  # frame widths per second (vertical, in width units like pan)
    zoom: float = 0.25  # log of the magnification per second
    roll: float = 8.0  # degrees per second
    shake: float = 0.006  # RMS jitter, frame widths

    def __post_init__(self) -> None:
        if min(self.pan, self.tilt, self.zoom, self.roll, self.shake) <= 0:
            raise ValueError("every move rate must be positive")


@dataclass(frozen=True)
class Segment:
    """Ground truth: the camera does ``labels`` (canonical names) from ``t_start`` to ``t_end``."""

    t_start: float
    t_end: float
    labels: tuple[str, ...]

    def to_dict(self) -> dict:
        return {"t_start": self.t_start, "t_end": self.t_end, "labels": list(self.labels)}


@dataclass
class SyntheticClip:
    path: Path
    fps: float
    size: tuple[int, int]
    segments: list[Segment]
    photo: str
    has_subject: bool
    subject_track: list[tuple[float, float, float, float]] = field(default_factory=list)  # x,y,w,h

    @property
    def duration(self) -> float:
        return self.segments[-1].t_end

    def labels_at(self, t: float) -> tuple[str, ...]:
        for s in self.segments:
            if s.t_start <= t < s.t_end:
                return s.labels
        return self.segments[-1].labels

    def to_dict(self) -> dict:
        d = asdict(self)
        d["path"] = str(self.path)
        d["segments"] = [s.to_dict() for s in self.segments]
        return d


def load_photo(name: str) -> np.ndarray:
    """A colour photograph from scikit-image's bundled data, as BGR uint8."""
    import cv2
    import skimage.data as data

    if name not in PHOTOS:
        raise ValueError(f"unknown photo {name!r}; choose one of {', '.join(PHOTOS)}")
    img = data.stereo_motorcycle()[0] if name == "motorcycle" else getattr(data, name)()
    if img.ndim == 2:
        img = np.stack([img] * 3, -1)
    return cv2.cvtColor(np.ascontiguousarray(img[..., :3]), cv2.COLOR_RGB2BGR)


def plan_segments(rng: np.random.Generator, n_segments: int | None = None,
                  compound_p: float = 0.3, min_s: float = 1.5, max_s: float = 3.0) -> list[Segment]:
    """1–4 segments of random moves; neighbours always differ, so every boundary is real."""
    n = int(n_segments or rng.integers(1, 5))
    segs: list[Segment] = []
    t = 0.0
    prev: tuple[str, ...] = ()
    for _ in range(n):
        while True:
            if rng.random() < compound_p:
                labels = tuple(COMPOUND_MOVES[rng.integers(len(COMPOUND_MOVES))])
            else:
                labels = (SINGLE_MOVES[rng.integers(len(SINGLE_MOVES))],)
            if labels != prev:
                break
        dur = float(np.round(rng.uniform(min_s, max_s), 2))
        segs.append(Segment(round(t, 2), round(t + dur, 2), labels))
        t += dur
        prev = labels
    return segs


def _velocity(labels: tuple[str, ...], rates: MoveRates) -> tuple[float, float, float, float]:
    """(dx, dy in widths/s of the camera centre, dlogzoom/s, droll deg/s) for a set of labels."""
    dx = dy = dz = dr = 0.0
    for lab in labels:
        if lab == "pan right":
            dx += rates.pan
        elif lab == "pan left":
            dx -= rates.pan
        elif lab == "tilt up":
            dy -= rates.tilt  # the camera looks higher: its centre moves up the world (y down)
        elif lab == "tilt down":
            dy += rates.tilt
        elif lab == "zoom in":
            dz += rates.zoom
        elif lab == "zoom out":
            dz -= rates.zoom
        elif lab == "roll clockwise":
            dr += rates.roll  # the frame turns clockwise; content turns counterclockwise on screen
        elif lab == "roll counterclockwise":
            dr -= rates.roll
    return dx, dy, dz, dr


def _shake(n: int, fps: float, rms: float, rng: np.random.Generator) -> np.ndarray:
    """Handheld jitter: band-limited noise (~2–8 Hz), [n, 2] in frame widths."""
    white = rng.normal(size=(n + 16, 2))
    k = np.ones(3) / 3  # a light low-pass: hands shake at a few hertz, not at the frame rate
    smooth = np.stack([np.convolve(white[:, i], k, mode="same") for i in range(2)], -1)[8:8 + n]
    smooth -= smooth.mean(0)
    return smooth / (smooth.std() + 1e-9) * rms


def _subject_sprite(rng: np.random.Generator, h: int) -> tuple[np.ndarray, np.ndarray]:
    """A round textured subject (a crop of a photo) and its alpha mask, side ``h`` px."""
    import cv2

    src = load_photo(("chelsea", "coffee", "astronaut")[rng.integers(3)])
    s = min(src.shape[:2])
    crop = cv2.resize(src[:s, :s], (h, h), interpolation=cv2.INTER_AREA)
    mask = np.zeros((h, h), np.float32)
    cv2.circle(mask, (h // 2, h // 2), h // 2 - 1, 1.0, -1)
    return crop, cv2.GaussianBlur(mask, (5, 5), 1.0)[..., None]


def render_clip(path: str | Path, segments: list[Segment], size: tuple[int, int] = (480, 270),
                fps: float = 25.0, photo: str = "astronaut", subject: bool = False,
                rates: MoveRates | None = None, seed: int = 0,
                subject_size: float = 0.3) -> SyntheticClip:
    """Film ``photo`` along ``segments`` and write an mp4v MP4 at ``path``."""
    import cv2

    rates = rates or MoveRates()
    rng = np.random.default_rng(seed)
    w, h = size
    world = load_photo(photo)
    # The world is the photo scaled so the frame sees about half its width at zoom 1: room to move.
    k = 2.0 * w / world.shape[1]
    world = cv2.resize(world, None, fx=k, fy=k, interpolation=cv2.INTER_CUBIC)
    wh, ww = world.shape[:2]
    duration = segments[-1].t_end
    n = int(round(duration * fps))
    shake = _shake(n, fps, rates.shake, rng)

    cx, cy, logz, roll = ww / 2, wh / 2, 0.0, 0.0
    sprite = alpha = None
    track: list[tuple[float, float, float, float]] = []
    if subject:
        if not 0 < subject_size <= 0.95:
            raise ValueError("subject_size is a share of the frame height in (0, 0.95]")
        side = int(h * subject_size)
        sprite, alpha = _subject_sprite(rng, side)
        sx, sy = rng.uniform(0.1, 0.6) * w, rng.uniform(0.2, 0.5) * h
        svx, svy = rng.choice([-1, 1]) * 0.18 * w, rng.uniform(-0.05, 0.05) * h

    path = Path(path)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
    if not writer.isOpened():
        raise RuntimeError(f"OpenCV could not open a writer for {path}")
    try:
        for i in range(n):
            t = (i + 0.5) / fps
            labels = next((s.labels for s in segments if s.t_start <= t < s.t_end), segments[-1].labels)
            dx, dy, dz, dr = _velocity(labels, rates)
            scale = math.exp(-logz)  # world px per frame px: zooming in samples a smaller window
            # Pan and tilt turn the camera about its own axes, so once rolled they move the
            # window along the rolled frame's axes.
            r = math.radians(roll)
            cx += (dx * math.cos(r) - dy * math.sin(r)) * w * scale / fps
            cy += (dx * math.sin(r) + dy * math.cos(r)) * w * scale / fps
            logz += dz / fps
            roll += dr / fps
            jx = jy = 0.0
            if "handheld shake" in labels:
                jx, jy = shake[i] * w * scale
                jx, jy = (jx * math.cos(r) - jy * math.sin(r), jx * math.sin(r) + jy * math.cos(r))
            a = math.radians(roll)
            ca, sa = math.cos(a) * scale, math.sin(a) * scale
            # Frame pixel (u, v) samples world point C + s·R(roll)·(u - w/2, v - h/2).
            m = np.array([[ca, -sa, cx + jx - ca * w / 2 + sa * h / 2],
                          [sa, ca, cy + jy - sa * w / 2 - ca * h / 2]], np.float64)
            frame = cv2.warpAffine(world, m, (w, h), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REFLECT)
            if sprite is not None:
                sx += svx / fps
                sy += svy / fps
                side = sprite.shape[0]
                if sx < 0 or sx + side > w:  # bounce off the frame edges
                    svx = -svx
                    sx = min(max(sx, 0), w - side)
                x0, y0 = int(round(sx)), int(round(min(max(sy, 0), h - side)))
                roi = frame[y0:y0 + side, x0:x0 + side].astype(np.float32)
                frame[y0:y0 + side, x0:x0 + side] = (alpha * sprite + (1 - alpha) * roi).astype(np.uint8)
                track.append((x0 / w, y0 / h, side / w, side / h))
            writer.write(frame)
    finally:
        writer.release()
    return SyntheticClip(path=path, fps=fps, size=size, segments=list(segments), photo=photo,
                         has_subject=subject, subject_track=track)


def random_clip(path: str | Path, seed: int, size: tuple[int, int] = (480, 270), fps: float = 25.0,
                n_segments: int | None = None, subject: bool | None = None,
                rates: MoveRates | None = None, subject_size: float = 0.3) -> SyntheticClip:
    """One clip of a reproducible random plan: photo, 1–4 segments, subject in half the clips."""
    rng = np.random.default_rng(seed)
    segments = plan_segments(rng, n_segments)
    photo = PHOTOS[rng.integers(len(PHOTOS))]
    if subject is None:
        subject = bool(seed % 2)
    return render_clip(path, segments, size, fps, photo, subject, rates, seed, subject_size)


__all__ = ["COMPOUND_MOVES", "MotionScore", "MoveRates", "PHOTOS", "SINGLE_MOVES", "Segment", "SyntheticClip", "score_motion",
           "load_photo", "plan_segments", "random_clip", "render_clip"]


# --- scoring predicted camera motion against the ground truth ---------------------------------

@dataclass
class MotionScore:
    frame_accuracy: float  # share of time whose predicted label set equals the truth
    segments_true: int
    segments_pred: int
    segments_matched: int  # equal label sets and temporal IoU ≥ 0.5, one to one
    boundary_errors: list[float]  # per true boundary, distance to the nearest predicted one (s)
    false_motion_s: float  # time the camera is static in truth but predicted moving
    static_s: float  # time the camera is static in truth

    @property
    def precision(self) -> float:
        return self.segments_matched / self.segments_pred if self.segments_pred else 0.0

    @property
    def recall(self) -> float:
        return self.segments_matched / self.segments_true if self.segments_true else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def _tiou(a0: float, a1: float, b0: float, b1: float) -> float:
    inter = max(0.0, min(a1, b1) - max(a0, b0))
    union = max(a1, b1) - min(a0, b0)
    return inter / union if union > 0 else 0.0


def score_motion(truth: list[Segment], predicted: list[dict], step: float = 0.02) -> MotionScore:
    """Compare predicted intervals (``{"t_start", "t_end", "movement"}``; abstained ones count as
    no label) with the ground-truth segments."""
    duration = truth[-1].t_end
    pred = [(float(p["t_start"]), float(p["t_end"]),
             frozenset(() if p.get("abstained") else p["movement"])) for p in predicted]
    ts = np.arange(step / 2, duration, step)

    def at(t: float, segs) -> frozenset:
        for a, b, lab in segs:
            if a <= t < b:
                return lab
        return segs[-1][2] if segs and t >= segs[-1][1] else frozenset()

    tru = [(s.t_start, s.t_end, frozenset(s.labels)) for s in truth]
    same = [at(t, tru) == at(t, pred) for t in ts]
    static = [at(t, tru) == frozenset({"static"}) for t in ts]
    false_motion = [st and at(t, pred) not in (frozenset({"static"}), frozenset())
                    for t, st in zip(ts, static)]
    used: set[int] = set()
    matched = 0
    for a, b, lab in tru:
        for j, (c, d, plab) in enumerate(pred):
            if j not in used and plab == lab and _tiou(a, b, c, d) >= 0.5:
                used.add(j)
                matched += 1
                break
    true_bounds = [s.t_start for s in truth[1:]]
    pred_bounds = [p[0] for p in pred[1:]]
    errors = [min((abs(t - q) for q in pred_bounds), default=duration) for t in true_bounds]
    return MotionScore(float(np.mean(same)), len(tru), sum(1 for p in pred if p[2]), matched,
                       errors, float(np.sum(false_motion) * step), float(np.sum(static) * step))
