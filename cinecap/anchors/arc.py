"""An arc: the camera travels around a close subject, turning to keep it framed.

The background fit (subject boxes masked out, ``analysis._outside``) then reads a fast pan, while
the main subject, large in the frame, holds its place across the detector checks of the
interval. A pan that follows a subject looks alike, but a subject close enough to fill much of
the frame cannot be followed that fast without the camera travelling with it, so the rule asks
for both a large subject and a fast sweep; otherwise the interval keeps its own reading. The side:
the camera turning left to keep the subject (the background sliding right) travels around it to
the right — an arc right.

A shot shorter than the keyframe interval gets one detector check, which cannot show a subject
holding its place. Where that check saw a subject large enough for an arc and the camera then
sweeps fast enough for one, the analysis looks once more before the shot can end (half a keyframe
interval later: ``sweep_check_due``); :func:`follow_subject` adds that look's box of the same
subject to the sightings the rule reads.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cinecap.anchors.detectors import Detection, kind_of
from cinecap.anchors.motion import MotionInterval, PairMotion


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
    # Stated now: the strip or agreement reason the pan's reading was abstained for goes.
    ev = {**{k: v for k, v in m.evidence.items() if k != "reason"}, "arc": {"subject_height": round(height, 3), "subject_drift": round(drift, 3),
                                "sightings": int(len(inside)), "pan_rate": round(float(pan), 3)}}
    return MotionInterval(m.t_start, m.t_end, [side], m.steadiness, conf, ev, abstained=False)


def sweep_check_due(first: tuple[float, float], now: float, pairs: list[PairMotion],
                    cfg: ArcConfig, gap_s: float) -> bool:
    """Whether a shot checked once so far needs a second look now, for the arc rule alone: its
    check (``first``: time, tallest subject box as a share of the frame height) saw a subject of
    ``min_height``, ``gap_s`` has passed since, and the camera has swept at ``min_pan`` or more
    since then (median of the pairs whose fit moved). Otherwise the rule could not fire anyway."""
    t0, height = first
    if height < cfg.min_height or now - t0 < gap_s:
        return False
    pans = [p.pan for p in pairs if p.t0 >= t0 - 1e-6 and p.valid and not p.static_override]
    return len(pans) >= 2 and abs(float(np.median(pans))) >= cfg.min_pan


def follow_subject(summary: dict, looks: list[tuple[float, list[Detection]]]) -> list[list[float]]:
    """The main subject's ``[t, x, y, w, h]`` sightings (``summary``: ``judge_subjects``'
    summary) with, from each extra look ``(t, detections)``, the box that continues it: the same
    kind, the best overlap with its nearest sighting (or a centre within a box size of it), as
    ``subjects.link_tracks`` links boxes from check to check."""
    from cinecap.anchors.subjects import iou

    out = [list(s) for s in summary["sightings_at"]]
    for t, dets in looks:
        near = min(out, key=lambda s: abs(s[0] - t), default=None)
        if near is None:
            break
        best, best_v = None, 0.02
        for d in dets:
            if kind_of(d.label) != summary.get("kind"):
                continue
            v = iou(tuple(near[1:]), d.box)
            if v < 0.1:
                dist = np.hypot(near[1] + near[3] / 2 - d.cx, near[2] + near[4] / 2 - d.cy)
                v = 0.1 * max(0.0, 1 - dist / max(near[3], near[4], d.w, d.h))
            if v > best_v:
                best, best_v = d, v
        if best is not None:
            out.append([round(t, 3), *(round(v, 4) for v in best.box)])
    return sorted(out)


__all__ = ["ArcConfig", "arc_from_subject", "follow_subject", "sweep_check_due"]
