"""An arc: the camera travels around a close subject, turning to keep it framed.

The background fit (subject boxes masked out, ``analysis._outside``) then reads a fast pan, while
the main subject, large in the frame, holds its place across the detector checks of the
interval. A pan that follows a subject looks alike, but a subject close enough to fill much of
the frame cannot be followed that fast without the camera travelling with it, so the rule asks
for both a large subject and a fast sweep; otherwise the interval keeps its own reading. The side:
the camera turning left to keep the subject (the background sliding right) travels around it to
the right — an arc right.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cinecap.anchors.motion import MotionInterval


@dataclass(frozen=True)
class ArcConfig:
    """When a held subject against a sweeping background is an arc."""

    min_pan: float = field(default=0.15, metadata={
        "help": "frame widths/s the background must sweep across"})
    min_height: float = field(default=0.4, metadata={
        "help": "median height of the main subject's box, as a share of the frame"})
    max_drift: float = field(default=0.12, metadata={
        "help": "how far the subject's centre may move across the frame over the interval (frame widths)"})
    min_sightings: int = field(default=2, metadata={
        "help": "detector checks of the subject inside the interval"})


def arc_from_subject(m: MotionInterval, sightings: list[list[float]], cfg: ArcConfig) -> MotionInterval | None:
    """The interval read as an arc, or None. ``sightings``: the main subject's ``[t, x, y, w, h]``
    per check (``Analysis.subjects[shot]["sightings_at"]``)."""
    pan = m.evidence.get("pan_rate")
    if pan is None or abs(pan) < cfg.min_pan:
        return None
    inside = np.array([s for s in sightings if m.t_start - 0.05 <= s[0] <= m.t_end + 0.05])
    if len(inside) < cfg.min_sightings:
        return None
    # Across the frame only: the sweep is horizontal, and a subject raising an arm or the camera
    # closing in moves its box up and down without it leaving its place.
    cx = inside[:, 1] + inside[:, 3] / 2
    height = float(np.median(inside[:, 4]))
    drift = float(np.ptp(cx))
    if height < cfg.min_height or drift > cfg.max_drift:
        return None
    side = "arc right" if pan < 0 else "arc left"
    conf = min(0.8, 0.55 + 0.5 * (abs(pan) - cfg.min_pan) + 0.05 * (len(inside) - cfg.min_sightings))
    ev = {**m.evidence, "arc": {"subject_height": round(height, 3), "subject_drift": round(drift, 3),
                                "sightings": int(len(inside)), "pan_rate": round(float(pan), 3)}}
    return MotionInterval(m.t_start, m.t_end, [side], m.steadiness, conf, ev, abstained=False)


__all__ = ["ArcConfig", "arc_from_subject"]
