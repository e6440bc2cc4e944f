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
    #: RMS of a hand's slow wander under "handheld shake", frame widths (0: jitter alone, as the
    #: clips made before it). Real handheld footage sways the frame one way for about a second
    #: and back by a few percent of its width (docs/anchors.md, task handheld2).
    sway: float = 0.0

    def __post_init__(self) -> None:
        if min(self.pan, self.tilt, self.zoom, self.roll, self.shake) <= 0 or self.sway < 0:
            raise ValueError("every move rate must be positive (sway at least 0)")


@dataclass(frozen=True)
class Segment:
    """Ground truth: the camera does ``labels`` (canonical names) from ``t_start`` to ``t_end``,
    at ``speed`` times the clip's :class:`MoveRates` (a whip pan is a pan segment at 10x)."""

    t_start: float
    t_end: float
    labels: tuple[str, ...]
    speed: float = 1.0

    def to_dict(self) -> dict:
        d = {"t_start": self.t_start, "t_end": self.t_end, "labels": list(self.labels)}
        if self.speed != 1.0:
            d["speed"] = self.speed
        return d


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


def load_photo(name: str | np.ndarray) -> np.ndarray:
    """A colour photograph from scikit-image's bundled data, as BGR uint8; an image passed in (a
    frame of real footage, BGR or grey) is returned as BGR."""
    import cv2

    if isinstance(name, np.ndarray):
        img = name if name.ndim == 3 else np.stack([name] * 3, -1)
        return np.ascontiguousarray(img[..., :3], dtype=np.uint8)
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


def _sway(n: int, fps: float, rms: float, seed: int) -> np.ndarray:
    """A hand's slow wander: two sinusoids per axis at 0.4–1.2 Hz with random phases, [n, 2] in
    frame widths, RMS ``rms``. Its own generator (from ``seed``), so a clip without sway draws
    the same numbers as before it existed."""
    out = np.zeros((n, 2))
    if rms <= 0 or n == 0:
        return out
    rng = np.random.default_rng([seed, 2026])
    t = np.arange(n) / fps
    for axis in range(2):
        for _ in range(2):
            out[:, axis] += np.sin(2 * math.pi * rng.uniform(0.4, 1.2) * t + rng.uniform(0, 2 * math.pi))
    return out / (np.sqrt(np.mean(out ** 2)) + 1e-9) * rms


def _subject_sprite(rng: np.random.Generator, h: int, photo: str | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """A round textured subject (a crop of a photo, ``photo`` or one drawn) and its alpha mask,
    side ``h`` px."""
    import cv2

    src = load_photo(photo or ("chelsea", "coffee", "astronaut")[rng.integers(3)])
    s = min(src.shape[:2])
    crop = cv2.resize(src[:s, :s], (h, h), interpolation=cv2.INTER_AREA)
    mask = np.zeros((h, h), np.float32)
    cv2.circle(mask, (h // 2, h // 2), h // 2 - 1, 1.0, -1)
    return crop, cv2.GaussianBlur(mask, (5, 5), 1.0)[..., None]


def blurred_backdrop(backdrop: str, subject: str, sigma: float,
                     size: tuple[int, int] = (640, 360)) -> np.ndarray:
    """A still with a shallow depth of field: a sharp round subject (a crop of the photo
    ``subject``, 60 % of the height) in the middle of a copy of the photo ``backdrop`` blurred by
    a Gaussian of ``sigma`` px (defocus); BGR uint8."""
    import cv2

    w, h = size
    src = load_photo(backdrop)
    k = max(w / src.shape[1], h / src.shape[0])
    src = cv2.resize(src, (math.ceil(src.shape[1] * k), math.ceil(src.shape[0] * k)),
                     interpolation=cv2.INTER_AREA)
    y, x = (src.shape[0] - h) // 2, (src.shape[1] - w) // 2
    out = cv2.GaussianBlur(src[y:y + h, x:x + w], (0, 0), sigma).astype(np.float32)
    side = int(0.6 * h)
    sprite, alpha = _subject_sprite(np.random.default_rng(0), side, subject)
    y, x = (h - side) // 2, (w - side) // 2
    out[y:y + side, x:x + side] = sprite * alpha + out[y:y + side, x:x + side] * (1 - alpha)
    return out.astype(np.uint8)


def hazy_dunes(size: tuple[int, int] = (640, 360), contrast: float = 0.6, seed: int = 0
               ) -> np.ndarray:
    """A dune field in haze, everything in focus (deep focus); BGR uint8. Each dune's lit face
    brightens smoothly up to a sharp crest, the sand carries fine ripples (scikit-image's gravel
    photograph), and a veil of haze takes the picture's contrast down to ``contrast`` near the
    camera and 40 % of that at the horizon: smooth in focus, faint, as the desert of Sintel's
    trailer is (docs/anchors.md, "Depth of field in haze")."""
    import cv2
    import skimage.data

    w, h = size
    rng = np.random.default_rng(seed)
    horizon = int(0.15 * h)
    y = np.arange(h, dtype=np.float32)[:, None]
    x = np.arange(w, dtype=np.float32)[None, :]
    depth = np.where(y > horizon, (h - horizon) / np.maximum(y - horizon, 1.0), 1e3)
    phase = 0.35 * depth + 0.6 * np.sin(6 * x / w + 0.8 * depth) + rng.uniform(0, 1)
    rise = phase - np.floor(phase)  # 0 at the foot of a lit face, 1 at its crest
    sand = cv2.resize(skimage.data.gravel().astype(np.float32), (w, h))
    ground = 20 + 180 * rise ** 1.5 + 4 * (sand - sand.mean()) / sand.std()
    scene = np.where(y > horizon, ground, 200 + 20 * y / horizon)
    t = np.clip(contrast * (0.4 + 0.6 * (y - horizon) / (h - horizon)), 0.4 * contrast, 1)
    grey = np.clip(210 * (1 - t) + scene * t, 0, 255).astype(np.uint8)
    return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)


def _textured_sprite(rng: np.random.Generator, area: float, w: int, h: int
                     ) -> tuple[np.ndarray, np.ndarray]:
    """A textured subject that is not a face: a crop of another photograph (fur, a rocket, a
    motorcycle, cups) in an irregular blob covering ``area`` of the frame, and its alpha mask."""
    import cv2

    aspect = rng.uniform(0.6, 1.6)  # width / height of the blob
    bh = int(round(math.sqrt(area * w * h / (aspect * math.pi / 4))))
    bw = int(round(bh * aspect))
    bh, bw = min(bh, h - 2), min(bw, w - 2)
    src = load_photo(("chelsea", "rocket", "motorcycle", "coffee", "retina")[rng.integers(5)])
    y0 = rng.integers(0, max(1, src.shape[0] - min(src.shape[0], bh * 2)))
    x0 = rng.integers(0, max(1, src.shape[1] - min(src.shape[1], bw * 2)))
    crop = src[y0:y0 + max(bh, src.shape[0] // 2), x0:x0 + max(bw, src.shape[1] // 2)]
    crop = cv2.resize(crop, (bw, bh), interpolation=cv2.INTER_AREA)
    mask = np.zeros((bh, bw), np.float32)
    # An ellipse with a wobbly outline (not a clean disc).
    ang = np.linspace(0, 2 * math.pi, 48, endpoint=False)
    rad = 1 + 0.12 * np.sin(3 * ang + rng.uniform(0, 6)) + 0.06 * np.sin(5 * ang + rng.uniform(0, 6))
    pts = np.stack([bw / 2 + (bw / 2 - 2) * rad / 1.18 * np.cos(ang),
                    bh / 2 + (bh / 2 - 2) * rad / 1.18 * np.sin(ang)], 1).astype(np.int32)
    cv2.fillPoly(mask, [pts], 1.0)
    return crop, cv2.GaussianBlur(mask, (5, 5), 1.0)[..., None]


def render_clip(path: str | Path, segments: list[Segment], size: tuple[int, int] = (480, 270),
                fps: float = 25.0, photo: str | np.ndarray = "astronaut", subject: bool = False,
                rates: MoveRates | None = None, seed: int = 0,
                subject_size: float = 0.3, subject_area: float | None = None,
                shutter: float = 0.0) -> SyntheticClip:
    """Film ``photo`` (a name of :data:`PHOTOS`, or an image such as a frame of real footage)
    along ``segments`` and write an mp4v MP4 at ``path``.

    ``subject_area`` (a share of the frame, up to 0.25) makes the moving subject a textured blob
    that is not a face (a crop of another photograph) instead of the round sprite of
    ``subject_size``; it moves on a curved path at a varying speed, turns and grows or shrinks a
    little, all independently of the camera. ``shutter`` (0–1, a share of the frame interval;
    0.5 is a 180° shutter) adds motion blur: each frame is the mean of the views the camera
    passes through while the shutter is open, so a fast move smears the frame as a real one does."""
    import cv2

    if not 0 <= shutter <= 1:
        raise ValueError("shutter is a share of the frame interval in [0, 1]")
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
    shake = _shake(n, fps, rates.shake, rng) + _sway(n, fps, rates.sway, seed)

    cx, cy, logz, roll = ww / 2, wh / 2, 0.0, 0.0
    sprite = alpha = None
    track: list[tuple[float, float, float, float]] = []
    spin = grow = 0.0
    if subject:
        if subject_area is not None:
            if not 0 < subject_area <= 0.25:
                raise ValueError("subject_area is a share of the frame in (0, 0.25]")
            sprite, alpha = _textured_sprite(rng, subject_area, w, h)
            spin = rng.uniform(-25, 25)  # degrees per second
            grow = rng.uniform(-0.08, 0.08)  # log scale per second
            wobble = rng.uniform(0.5, 1.5)  # Hz of the speed and heading changes
        else:
            if not 0 < subject_size <= 0.95:
                raise ValueError("subject_size is a share of the frame height in (0, 0.95]")
            side = int(h * subject_size)
            sprite, alpha = _subject_sprite(rng, side)
        if subject_area is not None:
            sx = rng.uniform(0.05, max(0.06, 0.95 - sprite.shape[1] / w)) * w
            sy = rng.uniform(0.05, max(0.06, 0.95 - sprite.shape[0] / h)) * h
        else:
            sx, sy = rng.uniform(0.1, 0.6) * w, rng.uniform(0.2, 0.5) * h
        svx, svy = rng.choice([-1, 1]) * 0.18 * w, rng.uniform(-0.05, 0.05) * h

    path = Path(path)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
    if not writer.isOpened():
        raise RuntimeError(f"OpenCV could not open a writer for {path}")
    try:
        for i in range(n):
            t = (i + 0.5) / fps
            seg = next((s for s in segments if s.t_start <= t < s.t_end), segments[-1])
            labels = seg.labels
            dx, dy, dz, dr = (v * seg.speed for v in _velocity(labels, rates))
            # Sub-steps only with a shutter: without one each frame is the single view at the end
            # of its interval, as clips rendered before the shutter existed.
            n_sub = 12 if shutter > 0 else 1
            n_open = max(1, int(round(shutter * n_sub)))
            views = []
            for j in range(n_sub):
                scale = math.exp(-logz)  # world px per frame px: zooming in samples a smaller window
                # Pan and tilt turn the camera about its own axes, so once rolled they move the
                # window along the rolled frame's axes.
                r = math.radians(roll)
                cx += (dx * math.cos(r) - dy * math.sin(r)) * w * scale / (fps * n_sub)
                cy += (dx * math.sin(r) + dy * math.cos(r)) * w * scale / (fps * n_sub)
                logz += dz / (fps * n_sub)
                roll += dr / (fps * n_sub)
                if j < n_sub - n_open:
                    continue
                jx = jy = 0.0
                if "handheld shake" in labels:
                    jx, jy = shake[i] * w * scale
                    jx, jy = (jx * math.cos(r) - jy * math.sin(r), jx * math.sin(r) + jy * math.cos(r))
                a = math.radians(roll)
                ca, sa = math.cos(a) * scale, math.sin(a) * scale
                # Frame pixel (u, v) samples world point C + s·R(roll)·(u - w/2, v - h/2).
                m = np.array([[ca, -sa, cx + jx - ca * w / 2 + sa * h / 2],
                              [sa, ca, cy + jy - sa * w / 2 - ca * h / 2]], np.float64)
                views.append(cv2.warpAffine(world, m, (w, h),
                                            flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR,
                                            borderMode=cv2.BORDER_REFLECT))
            frame = views[0] if len(views) == 1 else np.mean(views, axis=0).round().astype(np.uint8)
            if sprite is not None:
                spr, alp = sprite, alpha
                if subject_area is not None:  # curved path, varying speed, turning, scaling
                    k = 1 + 0.6 * math.sin(2 * math.pi * wobble * t)
                    sx += svx * k / fps
                    sy += (svy + 0.12 * h * math.cos(2 * math.pi * wobble * 0.7 * t)) / fps
                    sc = math.exp(grow * math.sin(math.pi * t / 2))
                    sh_, sw_ = sprite.shape[:2]
                    rot = cv2.getRotationMatrix2D((sw_ / 2, sh_ / 2), spin * t, sc)
                    spr = cv2.warpAffine(sprite, rot, (sw_, sh_), borderMode=cv2.BORDER_REFLECT)
                    alp = cv2.warpAffine(alpha, rot, (sw_, sh_))[..., None]
                else:
                    sx += svx / fps
                    sy += svy / fps
                bh, bw = spr.shape[:2]
                if sx < 0 or sx + bw > w:  # bounce off the frame edges
                    svx = -svx
                    sx = min(max(sx, 0), w - bw)
                if subject_area is not None and (sy < 0 or sy + bh > h):
                    svy = -svy
                    sy = min(max(sy, 0), h - bh)
                x0, y0 = int(round(sx)), int(round(min(max(sy, 0), h - bh)))
                roi = frame[y0:y0 + bh, x0:x0 + bw].astype(np.float32)
                frame[y0:y0 + bh, x0:x0 + bw] = (alp * spr + (1 - alp) * roi).astype(np.uint8)
                track.append((x0 / w, y0 / h, bw / w, bh / h))
            writer.write(frame)
    finally:
        writer.release()
    return SyntheticClip(path=path, fps=fps, size=size, segments=list(segments),
                         photo=photo if isinstance(photo, str) else "image",
                         has_subject=subject, subject_track=track)


def render_push_in(path: str | Path, duration: float = 4.0, size: tuple[int, int] = (320, 180),
                   fps: float = 25.0, ground: str | np.ndarray = "coffee",
                   backdrop: str | np.ndarray = "rocket", speed: float = 1.5,
                   distance: float = 50.0, height: float = 1.6,
                   focus: tuple[float, float] = (0.5, 0.42),
                   handheld: MoveRates | None = None, seed: int = 0) -> SyntheticClip:
    """A camera pushing in (dolly in) across a square: real photographs as a ground plane and a
    backdrop wall ``distance`` m ahead, the camera ``height`` m above the ground moving forward at
    ``speed`` m/s, looking level; ``focus`` (share of width, of height) is where the horizon's
    vanishing point, the focus of expansion, sits in the frame. The scene has depth, so the
    ground near the camera flows outward fast while the far wall barely grows (parallax); each
    frame is the exact perspective view, the ground filtered by a pyramid so it does not shimmer.
    The truth is one "dolly in" segment. ``handheld`` (its ``shake`` and ``sway``) holds the
    camera by hand: each view is shifted by the hand's jitter and wander (a small turn of the
    camera), and the truth is "dolly in" with "handheld shake"."""
    import cv2

    w, h = size
    f = 0.8 * w  # focal length, px
    u0, v0 = focus[0] * w, focus[1] * h
    gtex, wtex = load_photo(ground), load_photo(backdrop)
    g_scale = 24.0  # ground texture px per metre
    wall_w = 2.4 * (w / f) * distance  # the wall is wider than the frame sees at the start
    w_scale = wtex.shape[1] / wall_w  # wall texture px per metre
    pyr = [gtex.astype(np.float32)]
    for _ in range(6):
        pyr.append(cv2.pyrDown(pyr[-1]))
    uu, vv = np.meshgrid(np.arange(w, dtype=np.float32) + 0.5, np.arange(h, dtype=np.float32) + 0.5)
    n = int(round(duration * fps))
    hand = (np.zeros((n, 2)) if handheld is None else
            _shake(n, fps, handheld.shake, np.random.default_rng(seed))
            + _sway(n, fps, handheld.sway, seed))
    path = Path(path)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
    if not writer.isOpened():
        raise RuntimeError(f"OpenCV could not open a writer for {path}")
    try:
        for i in range(n):
            # The hand turns the camera a little: the view's rays shift by its jitter and wander.
            uu_i, vv_i = uu + np.float32(hand[i, 0] * w), vv + np.float32(hand[i, 1] * w)
            z = speed * (i + 1) / fps  # how far the camera has travelled
            to_wall = distance - z
            below = np.maximum(vv_i - v0, 1e-3)
            zg = np.where(vv_i > v0, f * height / below, np.inf)  # depth where each ray meets the ground
            on_ground = zg < to_wall
            # The wall: metres across and above the ground, then texture pixels.
            wx = (uu_i - u0) * to_wall / f * w_scale + wtex.shape[1] / 2
            wy = wtex.shape[0] - (height + (v0 - vv_i) * to_wall / f) * w_scale
            frame = cv2.remap(wtex, wx.astype(np.float32), wy.astype(np.float32), cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REFLECT)
            zg = np.where(on_ground, zg, to_wall)
            gx = (uu_i - u0) * zg / f * g_scale + gtex.shape[1] / 2
            gy = gtex.shape[0] - (z + zg) * g_scale
            # Pyramid level from the horizontal minification (texture px per frame px).
            level = np.clip(np.round(np.log2(np.maximum(zg / f * g_scale, 1.0))), 0, len(pyr) - 1)
            ground_px = np.zeros((h, w, 3), np.float32)
            for lv in np.unique(level[on_ground]).astype(int):
                k = float(2 ** int(lv))
                sample = cv2.remap(pyr[lv], (gx / k).astype(np.float32), (gy / k).astype(np.float32),
                                   cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REFLECT)
                sel = on_ground & (level == lv)
                ground_px[sel] = sample[sel]
            frame[on_ground] = ground_px[on_ground].round().astype(np.uint8)
            writer.write(frame)
    finally:
        writer.release()
    truth = ("dolly in",) if handheld is None else ("dolly in", "handheld shake")
    return SyntheticClip(path=path, fps=fps, size=size,
                         segments=[Segment(0.0, round(n / fps, 3), truth)],
                         photo=ground if isinstance(ground, str) else "image", has_subject=False)


def random_clip(path: str | Path, seed: int, size: tuple[int, int] = (480, 270), fps: float = 25.0,
                n_segments: int | None = None, subject: bool | None = None,
                rates: MoveRates | None = None, subject_size: float = 0.3,
                subject_area: tuple[float, float] | None = None) -> SyntheticClip:
    """One clip of a reproducible random plan: photo, 1–4 segments, subject in half the clips.

    ``subject_area`` = (low, high): the subject is a textured non-face blob covering a random share
    of the frame in that range (e.g. (0.06, 0.25))."""
    rng = np.random.default_rng(seed)
    segments = plan_segments(rng, n_segments)
    photo = PHOTOS[rng.integers(len(PHOTOS))]
    if subject is None:
        subject = bool(seed % 2)
    area = float(rng.uniform(*subject_area)) if subject_area else None
    return render_clip(path, segments, size, fps, photo, subject, rates, seed, subject_size, area)


__all__ = ["COMPOUND_MOVES", "MotionScore", "MoveRates", "PHOTOS", "SINGLE_MOVES", "Segment", "SyntheticClip", "score_motion",
           "load_photo", "plan_segments", "random_clip", "render_clip", "render_push_in"]


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
