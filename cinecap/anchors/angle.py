"""Camera angle from line geometry (OpenCV's LSD line-segment detector).

Dutch angle: a camera rolled about its lens axis tilts every vertical of the scene by the roll
angle, so the length-weighted median deviation of the long near-vertical segments from vertical
(and of near-horizontals that agree with them) is the roll. High / low angle: a camera tilted down
makes verticals converge below the frame, tilted up above it; the slope of each vertical against
its position across the frame gives the distance to the vanishing point, hence the tilt. Both are
claimed only when many long lines agree; otherwise the analysis abstains (no "eye level" guess).
"""
from __future__ import annotations

import math
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

    def __post_init__(self) -> None:
        if not 0 < self.level_deg < self.dutch_deg < self.near_axis_deg:
            raise InputError("angle config: need 0 < level_deg < dutch_deg < near_axis_deg")


def detect_lines(gray: np.ndarray, cfg: AngleConfig) -> np.ndarray:
    """Long segments [n, 4] (x1, y1, x2, y2) in pixels."""
    import cv2

    lsd = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD)
    lines = lsd.detect(gray)[0]
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


__all__ = ["AngleConfig", "AngleFinding", "camera_angles", "detect_lines", "line_measurements"]
