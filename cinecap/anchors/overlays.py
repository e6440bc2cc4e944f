"""Evidence a person can look at: the frame with the tracked background vectors, the subject
boxes, a sharpness heat map and the line/horizon geometry, drawn on RGB images.

Each function takes an RGB uint8 image at the analysis size (the size the trackers saw) and returns
a new RGB image; ``shot_overlays`` builds the set for one shot of an :class:`Analysis`.
"""
from __future__ import annotations

import math

import numpy as np

from cinecap.anchors.angle import detect_lines
from cinecap.anchors.focus import heat_map

_GREEN, _RED, _YELLOW, _CYAN = (60, 220, 60), (230, 60, 60), (250, 220, 40), (40, 220, 230)


def _label(img: np.ndarray, text: str) -> None:
    import cv2

    cv2.rectangle(img, (0, 0), (min(img.shape[1], 8 + 7 * len(text)), 18), (0, 0, 0), -1)
    cv2.putText(img, text, (4, 13), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (255, 255, 255), 1, cv2.LINE_AA)


def motion_overlay(rgb: np.ndarray, vectors: np.ndarray | None, caption: str = "",
                   gain: float = 4.0) -> np.ndarray:
    """Tracked point motion as arrows (lengthened ``gain`` times to be visible): green where a
    point follows the camera's global motion, red where it moves on its own (subject)."""
    import cv2

    out = rgb.copy()
    if vectors is not None and len(vectors):
        d = vectors[:, 2:] - vectors[:, :2]
        med = np.median(d, axis=0)
        own = np.linalg.norm(d - med, axis=1) > max(1.0, 0.5 * float(np.linalg.norm(med)))
        for (x0, y0, x1, y1), o in zip(vectors, own):
            tip = (int(x0 + gain * (x1 - x0)), int(y0 + gain * (y1 - y0)))
            cv2.arrowedLine(out, (int(x0), int(y0)), tip, _RED if o else _GREEN, 1, cv2.LINE_AA,
                            tipLength=0.3)
    _label(out, caption or "background motion (green), independent motion (red)")
    return out


def subject_overlay(rgb: np.ndarray, faces: list, caption: str = "") -> np.ndarray:
    """Subject boxes with their orientation kind."""
    import cv2

    out = rgb.copy()
    h, w = out.shape[:2]
    for f in faces or []:
        p0 = (int(f.x * w), int(f.y * h))
        p1 = (int((f.x + f.w) * w), int((f.y + f.h) * h))
        cv2.rectangle(out, p0, p1, _YELLOW, 2)
        cv2.putText(out, f.kind, (p0[0], max(12, p0[1] - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                    _YELLOW, 1, cv2.LINE_AA)
    _label(out, caption or ("subject" if faces else "no face found"))
    return out


def focus_overlay(rgb: np.ndarray, caption: str = "", alpha: float = 0.55) -> np.ndarray:
    """A sharpness heat map (red = sharp, blue = soft) blended over the frame."""
    import cv2

    gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    heat = (heat_map(gray) * 255).astype(np.uint8)
    colour = cv2.cvtColor(cv2.applyColorMap(heat, cv2.COLORMAP_JET), cv2.COLOR_BGR2RGB)
    out = cv2.addWeighted(rgb, 1 - alpha, colour, alpha, 0)
    _label(out, caption or "sharpness: red sharp, blue soft")
    return out


def horizon_overlay(rgb: np.ndarray, roll_deg: float | None, caption: str = "") -> np.ndarray:
    """The long line segments found (cyan) and the horizon implied by the measured roll."""
    import cv2

    from cinecap.anchors.angle import AngleConfig

    out = rgb.copy()
    gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    for x0, y0, x1, y1 in detect_lines(gray, AngleConfig()):
        cv2.line(out, (int(x0), int(y0)), (int(x1), int(y1)), _CYAN, 1, cv2.LINE_AA)
    if roll_deg is not None:
        h, w = out.shape[:2]
        # Verticals leaning by roll_deg on screen mean the horizon turns by the same angle.
        dy = math.tan(math.radians(roll_deg)) * w / 2
        cv2.line(out, (0, int(h / 2 - dy)), (w - 1, int(h / 2 + dy)), _YELLOW, 2, cv2.LINE_AA)
    _label(out, caption or (f"horizon from lines: {roll_deg:+.1f} deg" if roll_deg is not None
                            else "lines (too few to measure the horizon)"))
    return out


def shot_overlays(analysis, shot: int, rgb: np.ndarray, t: float) -> list[tuple[str, np.ndarray]]:
    """The four evidence images of one shot, from its frame at time ``t`` (RGB, analysis size)."""
    pairs = [p for p in analysis.pairs if p.vectors is not None and p.t0 <= t + 0.5]
    pair = min(pairs, key=lambda p: abs(p.t0 - t), default=None) if pairs else None
    kf = min(analysis.keyframes, key=lambda k: abs(k.t - t), default=None)
    faces = kf.faces if kf is not None and kf.faces else []
    if kf is not None and kf.faces is None and kf.gray is not None:
        # A keyframe the analysis did not check for faces: check it now, for the picture only.
        from cinecap.anchors.subject import detect_faces

        faces = detect_faces(kf.gray, analysis.config.subject)
    roll = kf.lines.get("roll_deg") if kf is not None else None
    head = f"shot {shot + 1} @ {t:.1f}s"
    return [
        (f"{head}: tracked background", motion_overlay(rgb, pair.vectors if pair else None)),
        (f"{head}: subject", subject_overlay(rgb, faces)),
        (f"{head}: sharpness", focus_overlay(rgb)),
        (f"{head}: horizon and lines", horizon_overlay(rgb, roll)),
    ]


__all__ = ["focus_overlay", "horizon_overlay", "motion_overlay", "shot_overlays", "subject_overlay"]
