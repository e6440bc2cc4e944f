"""Camera angle from line geometry (OpenCV's LSD line-segment detector).

Dutch angle: a camera rolled about its lens axis tilts every vertical of the scene by the roll
angle, so the length-weighted median deviation of the long near-vertical segments from vertical
(and of near-horizontals that agree with them) is the roll. High / low angle: a camera tilted down
makes verticals converge below the frame, tilted up above it; the slope of each vertical against
its position across the frame gives the distance to the vanishing point, hence the tilt. Both are
claimed only when many long lines agree; otherwise the analysis abstains.

Where lines say nothing, the subject and the sky can (issue 22, item 2; docs/anchors.md):
- *ground lines*: near-vertical segments that nearly all lie in the frame's lower half and meet
  above it are a floor's planks or a road receding to a horizon above the frame — the camera looks
  down (high angle), where the same convergence read as verticals would say "low";
- *sky*: a bright, smooth region hanging from the picture's top edge (letterbox bars excluded)
  over 40 % of it and reaching below 40 % of its height on two keyframes running: the horizon
  sits low, the camera looks up (low angle);
- *eye level*: a face seen frontal or three-quarter, at the picture's upper middle, on two checks
  (one on a shot checked at most twice), where neither the lines nor the sky give an angle.
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field

import numpy as np

from cinecap.errors import InputError


@dataclass(frozen=True)
class AngleConfig:
    """Thresholds of the line geometry behind dutch, high and low angles."""

    min_length: float = field(default=0.08, metadata={
        "help": "shortest line segment used, as a share of the frame diagonal"})
    near_axis_deg: float = field(default=25.0, metadata={
        "help": "segments within this many degrees of vertical (or horizontal) count as such"})
    dutch_deg: float = field(default=8.0, metadata={
        "help": "roll in degrees from which the angle is dutch (film dutch angles are 10-30; a "
                "few degrees is a slanted object)"})
    level_deg: float = field(default=2.0, metadata={
        "help": "roll in degrees under which the horizon is level"})
    max_spread_deg: float = field(default=4.0, metadata={
        "help": "the lines must agree on the roll within this many degrees"})
    min_lines: int = field(default=5, metadata={"help": "fewest agreeing lines for a dutch angle"})
    min_verticals_for_tilt: int = field(default=8, metadata={
        "help": "fewest near-vertical lines for a high or low angle"})
    min_convergence_r2: float = field(default=0.6, metadata={
        "help": "how well the verticals must converge on one point (R², 0-1)"})
    high_low_deg: float = field(default=12.0, metadata={
        "help": "camera tilt in degrees from which the angle is high or low"})
    ground_share: float = field(default=0.65, metadata={
        "help": "share of the near-vertical segments that must start below the middle row for "
                "their convergence above the frame to be read as ground lines (a high angle)"})
    ground_r2: float = field(default=0.4, metadata={
        "help": "how well ground lines must converge (R², 0-1; floor planks are less regular "
                "than a building's verticals)"})
    sky_share: float = field(default=0.4, metadata={
        "help": "share of the picture the sky must cover for a low angle"})
    skyline: float = field(default=0.4, metadata={
        "help": "the sky must reach below this share of the picture's height (median column)"})
    sky_brightness: float = field(default=150.0, metadata={
        "help": "grey level (0-255) a sky block must exceed"})
    sky_gradient: float = field(default=8.0, metadata={
        "help": "mean Sobel gradient under which a block is smooth (sky, not texture)"})
    sky_grain: float = field(default=0.5, metadata={
        "help": "mean Sobel gradient the sky's blocks must reach together: a filmed sky has "
                "grain, a gradient or cloud; a backdrop flatter than this is a graphic (a title "
                "card), not a sky (issue 22: skies on the footage 2.0-4.9, title cards 0.0)"})
    eye_face_y: tuple[float, float] = field(default=(0.2, 0.56), metadata={
        "help": "a face's centre must lie between these shares of the frame height for eye level"})

    def __post_init__(self) -> None:
        if not 0 < self.level_deg < self.dutch_deg < self.near_axis_deg:
            raise InputError("angle config: need 0 < level_deg < dutch_deg < near_axis_deg")


_lsd = threading.local()


def _line_detector():
    """This thread's LSD detector, kept: a new one allocates its working images again on every
    keyframe (~10 % of a 400-px frame's detection); each call's result is its own
    (tests/test_anchors_same_numbers.py). One per thread: a detector is not reentrant."""
    import cv2

    lsd = getattr(_lsd, "detector", None)
    if lsd is None:
        lsd = _lsd.detector = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD)
    return lsd


def detect_lines(gray: np.ndarray, cfg: AngleConfig) -> np.ndarray:
    """Long segments [n, 4] (x1, y1, x2, y2) in pixels."""
    lines = _line_detector().detect(gray)[0]
    if lines is None:
        return np.zeros((0, 4), np.float32)
    lines = lines.reshape(-1, 4)
    diag = math.hypot(*gray.shape[:2])
    length = np.hypot(lines[:, 2] - lines[:, 0], lines[:, 3] - lines[:, 1])
    return lines[length >= cfg.min_length * diag]


def _weighted_median(x: np.ndarray, w: np.ndarray) -> float:
    o = np.argsort(x)
    c = np.cumsum(w[o])
    return float(x[o][np.searchsorted(c, c[-1] / 2)])


def line_measurements(lines: np.ndarray, shape: tuple[int, int], cfg: AngleConfig) -> dict:
    """Roll from verticals (and agreeing horizontals); tilt from vertical convergence."""
    h, w = shape
    if len(lines) == 0:
        return {"lines": 0}
    dx, dy = lines[:, 2] - lines[:, 0], lines[:, 3] - lines[:, 1]
    length = np.hypot(dx, dy)
    ang = np.degrees(np.arctan2(dy, dx))  # y down
    ang = (ang + 90) % 180 - 90  # [-90, 90)
    horiz = np.abs(ang) < cfg.near_axis_deg
    vert_dev = ((ang % 180) - 90)  # deviation from vertical, in (-90, 90]
    vert = np.abs(vert_dev) < cfg.near_axis_deg
    out: dict = {"lines": int(len(lines)), "verticals": int(vert.sum()),
                 "horizontals": int(horiz.sum())}
    if vert.sum() >= cfg.min_lines:
        # On screen a clockwise-rolled frame turns verticals counterclockwise.
        roll = _weighted_median(vert_dev[vert], length[vert])
        spread = _weighted_median(np.abs(vert_dev[vert] - roll), length[vert])
        out.update(roll_deg=round(roll, 2), roll_spread_deg=round(spread, 2), roll_from="verticals")
        if horiz.sum() >= cfg.min_lines:
            # A rolled camera turns horizontals too; a slanted object (a car pillar) does not.
            out["horizontal_roll_deg"] = round(_weighted_median(ang[horiz], length[horiz]), 2)
        # Convergence: slope dx/dy of each vertical against its x at the middle row.
        v = lines[vert]
        slope = (v[:, 2] - v[:, 0]) / np.where(np.abs(v[:, 3] - v[:, 1]) < 1e-6, 1e-6, v[:, 3] - v[:, 1])
        t = (h / 2 - v[:, 1]) / np.where(np.abs(v[:, 3] - v[:, 1]) < 1e-6, 1e-6, v[:, 3] - v[:, 1])
        xmid = v[:, 0] + t * (v[:, 2] - v[:, 0]) - w / 2
        # Where the segments start: all below the middle row, they are ground lines (floor
        # planks, a road), not the verticals of walls.
        out["verticals_below_mid"] = round(float((np.minimum(v[:, 1], v[:, 3]) > h / 2).mean()), 3)
        if np.ptp(xmid) > 0.3 * w and vert.sum() >= cfg.min_verticals_for_tilt:
            a = np.vstack([xmid, np.ones_like(xmid)]).T
            (k, c), res, *_ = np.linalg.lstsq(a, slope - np.radians(roll), rcond=None)
            pred = a @ np.array([k, c])
            ss = float(((slope - np.radians(roll) - (slope - np.radians(roll)).mean()) ** 2).sum())
            r2 = 1 - float(((slope - np.radians(roll) - pred) ** 2).sum()) / max(ss, 1e-12)
            # Vanishing point at distance 1/k above (k > 0) or below (k < 0) the middle row;
            # focal length ≈ frame width (a normal lens): tilt = atan(f · k).
            out.update(tilt_deg=round(math.degrees(math.atan(w * float(k))), 2),
                       convergence_r2=round(r2, 3))
    elif horiz.sum() >= cfg.min_lines:
        roll = _weighted_median(ang[horiz], length[horiz])
        spread = _weighted_median(np.abs(ang[horiz] - roll), length[horiz])
        out.update(roll_deg=round(roll, 2), roll_spread_deg=round(spread, 2), roll_from="horizontals")
    return out


@dataclass
class AngleFinding:
    value: str
    confidence: float
    measurements: dict
    t_start: float | None = None  # None: the whole shot
    t_end: float | None = None


def camera_angles(per_frame: list[dict], cfg: AngleConfig) -> list[AngleFinding]:
    """Dutch / high / low angle findings for one shot from its keyframes' line measurements."""
    # Only verticals tell a roll: a level camera keeps them upright whatever the perspective,
    # while horizontals slant with it (stairs, a road going away).
    rolls = [m["roll_deg"] for m in per_frame if "roll_deg" in m and m.get("roll_from") == "verticals"
             and m["roll_spread_deg"] <= cfg.max_spread_deg
             and abs(m.get("horizontal_roll_deg", m["roll_deg"]) - m["roll_deg"]) <= cfg.max_spread_deg]
    out: list[AngleFinding] = []
    if len(rolls) >= max(1, len(per_frame) // 2):
        roll = float(np.median(rolls))
        m = {"roll_deg": round(roll, 2), "keyframes_with_lines": len(rolls)}
        if abs(roll) >= cfg.dutch_deg:
            out.append(AngleFinding("dutch angle", min(0.9, 0.5 + abs(roll) / 40), m))
    ground = [m["tilt_deg"] for m in per_frame if m.get("tilt_deg", 0) >= cfg.high_low_deg
              and m.get("convergence_r2", 0) >= cfg.ground_r2
              and m.get("verticals_below_mid", 0) >= cfg.ground_share]
    if len(ground) >= max(2, len(per_frame) // 2):
        m = {"ground_tilt_deg": round(float(np.median(ground)), 2),
             "keyframes_with_ground_lines": len(ground)}
        out.append(AngleFinding("high angle", 0.6, m))
        return out  # the same lines read as verticals would say the opposite
    tilts = [m["tilt_deg"] for m in per_frame if m.get("convergence_r2", 0) >= cfg.min_convergence_r2]
    if len(tilts) >= max(2, len(per_frame) // 2):
        tilt = float(np.median(tilts))
        m = {"tilt_deg": round(tilt, 2), "keyframes_with_convergence": len(tilts)}
        # k > 0: the verticals meet above the frame: the camera looks up.
        if tilt >= cfg.high_low_deg:
            out.append(AngleFinding("low angle", 0.55, m))
        elif tilt <= -cfg.high_low_deg:
            out.append(AngleFinding("high angle", 0.55, m))
    return out


def angle_anchor(af: AngleFinding) -> str:
    """The spatial anchor of one camera-angle finding, in words a person can check on screen."""
    m = af.measurements
    if af.value == "dutch angle":
        return f"the scene's verticals lean {abs(m['roll_deg']):.0f}° from upright"
    if af.value == "eye level":
        return (f"the face, seen {'frontal' if abs(m['yaw']) < 0.35 else 'three-quarter'}"
                f", sits at {m['face_center_y']:.0%} of the frame height on "
                f"{m['sightings']} checks, and no sky or converging lines tilt the view")
    if "sky_share" in m:
        return (f"open sky covers {m['sky_share']:.0%} of the picture and reaches "
                f"{m['skyline']:.0%} of the way down it")
    if "ground_tilt_deg" in m:
        return (f"ground lines in the lower half of the frame converge above it (camera tilted "
                f"down about {m['ground_tilt_deg']:.0f}°)")
    where = "below" if af.value == "high angle" else "above"
    return f"vertical lines converge {where} the frame (camera tilted {abs(m['tilt_deg']):.0f}°)"


def picture_rows(gray: np.ndarray, dark: float = 24.0, margin: int = 4) -> tuple[int, int]:
    """The picture's rows without letterbox bars (dark, flat rows at the top and bottom), less a
    few rows of the bars' blurred edge."""
    rows = gray.mean(1)
    # The spread only of the dark rows (each row's std is its own: the same numbers as over
    # the whole frame, at a fraction of the cost on a frame without bars).
    dark_rows = np.flatnonzero(rows < dark)
    bar = np.zeros(len(rows), bool)
    bar[dark_rows] = gray[dark_rows].std(1) < 10
    n = len(bar)
    top = 0
    while top < n // 3 and bar[top]:
        top += 1
    bot = n
    while bot > 2 * n // 3 and bar[bot - 1]:
        bot -= 1
    return (top + margin if top else 0), (bot - margin if bot < n else n)


def sky_measurements(gray: np.ndarray, cfg: AngleConfig, blocks: int = 20) -> dict:
    """How much of the picture a sky covers: blocks that are bright and smooth, connected to the
    top edge (down or diagonally), on a grid of ``blocks`` × ``blocks``; none where those blocks
    have no grain at all (a flat backdrop: a title card, not a sky)."""
    import cv2

    top, bot = picture_rows(gray)
    p = gray[top:bot].astype(np.float32)
    h, w = p.shape
    bh, bw = h // blocks, w // blocks
    if bh < 2 or bw < 2:
        return {}
    mag = cv2.magnitude(cv2.Sobel(p, cv2.CV_32F, 1, 0), cv2.Sobel(p, cv2.CV_32F, 0, 1))
    grad = mag[:bh * blocks, :bw * blocks].reshape(blocks, bh, blocks, bw).mean((1, 3))
    bright = p[:bh * blocks, :bw * blocks].reshape(blocks, bh, blocks, bw).mean((1, 3))
    smooth = ((grad < cfg.sky_gradient) & (bright > cfg.sky_brightness)).tolist()
    # The flood row by row on Python lists: np.roll's overhead on 20 booleans was most of the
    # function's time. A block joins from the one above it or either diagonal, the row wrapping
    # around at its ends as np.roll did (kept: the numbers must stay the same).
    row = smooth[0]
    n = len(row)
    count, depth = sum(row), list(row)
    flooded = [row]
    for r in range(1, blocks):
        row = [smooth[r][c] and (row[c] or row[c - 1] or row[(c + 1) % n]) for c in range(n)]
        count += sum(row)
        depth = [d + v for d, v in zip(depth, row)]
        flooded.append(row)
    if count and float(grad[np.array(flooded)].mean()) < cfg.sky_grain:
        return {"sky_share": 0.0, "skyline": 0.0, "flat_backdrop": True}
    return {"sky_share": round(count / (blocks * n), 3),
            "skyline": round(float(np.median(depth)) / blocks, 3)}


def keyframe_lines(gray: np.ndarray, cfg: AngleConfig) -> dict:
    """A keyframe's line geometry (``line_measurements`` of its long LSD segments) and its sky
    (``sky_measurements``), in one dict."""
    out = line_measurements(detect_lines(gray, cfg), gray.shape, cfg)
    out.update(sky_measurements(gray, cfg))
    return out


def _spans(ts: list[float], hits: list[bool], s0: float, s1: float) -> list[tuple[float, float, int]]:
    """Runs of consecutive keyframes with a cue: (start, end, keyframes), each from midway
    after the keyframe before it (the shot's start for the first) to midway before the next."""
    out, i = [], 0
    while i < len(ts):
        if not hits[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(ts) and hits[j + 1]:
            j += 1
        a = s0 if i == 0 else 0.5 * (ts[i - 1] + ts[i])
        b = s1 if j == len(ts) - 1 else 0.5 * (ts[j] + ts[j + 1])
        out.append((a, b, j - i + 1))
        i = j + 1
    return out


def subject_angles(frames: list[dict], s0: float, s1: float, cfg: AngleConfig,
                   line_findings: list[AngleFinding] = ()) -> list[AngleFinding]:
    """Low angle from the sky, eye level from the subject's face, for one shot.

    ``frames``: per keyframe in time order, ``{"t", "sky_share", "skyline", "face"}`` where
    ``face`` is None (not looked at, or none found) or ``{"cy", "yaw", "score"}`` for the main
    face (frame fractions; yaw as :attr:`FaceMark.yaw`). Abstains where the lines already
    gave an angle (``line_findings``), or the cues are few."""
    if not frames or any(f.value in ("high angle", "low angle") for f in line_findings):
        return []
    ts = [f["t"] for f in frames]
    sky = [f.get("sky_share", 0) >= cfg.sky_share and f.get("skyline", 0) >= cfg.skyline
           for f in frames]
    out: list[AngleFinding] = []
    for a, b, n in _spans(ts, sky, s0, s1):
        if n < 2:
            continue  # a glimpse of sky in a sweep, not the shot's angle
        inside = [f for f, hit in zip(frames, sky) if hit and a <= f["t"] <= b]
        m = {"sky_share": round(float(np.median([f["sky_share"] for f in inside])), 3),
             "skyline": round(float(np.median([f["skyline"] for f in inside])), 3),
             "keyframes_with_sky": n}
        out.append(AngleFinding("low angle", min(0.75, 0.5 + 0.05 * n), m, a, b))
    if out:
        return out
    lo, hi = cfg.eye_face_y
    eye = [f.get("face") is not None and lo <= f["face"]["cy"] <= hi
           and abs(f["face"]["yaw"]) < 1.3 for f in frames]
    looked = sum(bool(f.get("checked")) for f in frames)
    n = sum(eye)
    if n >= 2 or (n == 1 and looked <= 2):
        first = eye.index(True)
        last = len(eye) - 1 - eye[::-1].index(True)
        a = s0 if first == 0 else 0.5 * (ts[first - 1] + ts[first])
        b = s1 if last == len(ts) - 1 else 0.5 * (ts[last] + ts[last + 1])
        faces = [f["face"] for f, e in zip(frames, eye) if e]
        m = {"face_center_y": round(float(np.median([f["cy"] for f in faces])), 3),
             "yaw": round(float(np.median([f["yaw"] for f in faces])), 3), "sightings": n}
        out.append(AngleFinding("eye level", min(0.75, 0.5 + 0.08 * n), m, a, b))
    return out


__all__ = ["AngleConfig", "AngleFinding", "angle_anchor", "camera_angles", "detect_lines", "keyframe_lines",
           "line_measurements",
           "picture_rows", "sky_measurements", "subject_angles"]
