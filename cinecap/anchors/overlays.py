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


def subject_overlay(rgb: np.ndarray, faces: list, caption: str = "", boxes: list = (),
                    marks: list = (), main: tuple | None = None) -> np.ndarray:
    """Subject boxes: Haar faces with their orientation kind; the detectors' boxes (``boxes``,
    each labelled with its class and score) and faces with their five landmarks (``marks``);
    ``main``, the shot's main subject's box, drawn thicker."""
    import cv2

    out = rgb.copy()
    h, w = out.shape[:2]
    for d in boxes:
        p0 = (int(d.x * w), int(d.y * h))
        p1 = (int((d.x + d.w) * w), int((d.y + d.h) * h))
        cv2.rectangle(out, p0, p1, _GREEN, 1, cv2.LINE_AA)
        cv2.putText(out, f"{d.label} {d.score:.2f}", (p0[0] + 2, min(h - 4, p0[1] + 12)),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.38, _GREEN, 1, cv2.LINE_AA)
    for m in marks:
        p0 = (int(m.x * w), int(m.y * h))
        p1 = (int((m.x + m.w) * w), int((m.y + m.h) * h))
        cv2.rectangle(out, p0, p1, _YELLOW, 1, cv2.LINE_AA)
        for (lx, ly) in m.landmarks:
            cv2.circle(out, (int(lx * w), int(ly * h)), 2, _RED, -1, cv2.LINE_AA)
        cv2.putText(out, f"face {m.score:.2f}", (p0[0], max(12, p0[1] - 4)),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.38, _YELLOW, 1, cv2.LINE_AA)
    if main is not None:
        x, y, bw, bh = main
        cv2.rectangle(out, (int(x * w), int(y * h)), (int((x + bw) * w), int((y + bh) * h)),
                      _YELLOW, 2, cv2.LINE_AA)
    for f in faces or []:
        p0 = (int(f.x * w), int(f.y * h))
        p1 = (int((f.x + f.w) * w), int((f.y + f.h) * h))
        cv2.rectangle(out, p0, p1, _YELLOW, 2)
        cv2.putText(out, f.kind, (p0[0], max(12, p0[1] - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                    _YELLOW, 1, cv2.LINE_AA)
    _label(out, caption or ("subject" if faces or boxes or marks or main else "no subject found"))
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


def overlay_time(analysis, shot: int) -> float:
    """The time of the frame a shot's evidence images show: its middle keyframe among those the
    subject's statements were made from (one the main subject was seen on; the detectors' checks; else the Haar face checks that
    found a face; else any), so that the pictures and the statements show the same detections."""
    s0, s1 = analysis.shots[shot]
    seen = (analysis.subjects.get(shot) or {}).get("sightings_at")
    if seen:  # a frame the main subject was seen on
        return float(seen[len(seen) // 2][0])
    kfs = [k for k in analysis.keyframes if s0 <= k.t < s1]
    for pick in (lambda k: k.dets is not None, lambda k: bool(k.faces), lambda k: True):
        chosen = [k for k in kfs if pick(k)]
        if chosen:
            return chosen[len(chosen) // 2].t
    return 0.5 * (s0 + s1)


def _subject_caption(analysis, shot: int) -> str:
    """The subject picture's legend, from the shot's own statements' findings."""
    subj = analysis.subjects.get(shot)
    if subj is None:
        return ""
    who = subj.get("label", "person")
    said = [f.value for f in analysis.findings if f.shot == shot
            and f.aspect in ("Shot Size", "Subject Orientation")]
    return f"main subject: {who}" + (f" ({', '.join(dict.fromkeys(said))})" if said else "")


def shot_overlays(analysis, shot: int, rgb: np.ndarray, t: float) -> list[tuple[str, np.ndarray]]:
    """The four evidence images of one shot, from its frame at time ``t`` (RGB, analysis size;
    :func:`overlay_time` gives the time whose detections the statements used)."""
    from cinecap.anchors.detectors import SUBJECT_CLASSES

    pairs = [p for p in analysis.pairs if p.vectors is not None and p.t0 <= t + 0.5]
    pair = min(pairs, key=lambda p: abs(p.t0 - t), default=None) if pairs else None
    s0, s1 = analysis.shots[shot]
    in_shot = [k for k in analysis.keyframes if s0 <= k.t < s1] or analysis.keyframes
    kf = min(in_shot, key=lambda k: abs(k.t - t), default=None)
    faces = kf.faces if kf is not None and kf.faces else []
    boxes = [d for d in (kf.dets or []) if d.label in SUBJECT_CLASSES] if kf is not None else []
    marks = list(kf.marks or []) if kf is not None else []
    subj = analysis.subjects.get(shot)
    main = tuple(subj["box"]) if subj is not None else None
    if subj is not None and subj.get("sightings_at") and kf is not None:
        # The main subject where it is on this frame, not its median place over the shot.
        at = [s for s in subj["sightings_at"] if abs(s[0] - kf.t) < 1e-3]
        main = tuple(at[0][1:]) if at else None
    if kf is not None and kf.faces is None and kf.dets is None and kf.gray is not None:
        # A keyframe the analysis did not check: check it now, for the picture only.
        from cinecap.anchors.subject import detect_faces

        faces = detect_faces(kf.gray, analysis.config.subject)
    roll = kf.lines.get("roll_deg") if kf is not None else None
    head = f"shot {shot + 1} @ {t:.1f}s"
    return [
        (f"{head}: tracked background", motion_overlay(rgb, pair.vectors if pair else None)),
        (f"{head}: subject", subject_overlay(rgb, faces, _subject_caption(analysis, shot), boxes,
                                             marks, main)),
        (f"{head}: sharpness", focus_overlay(rgb)),
        (f"{head}: horizon and lines", horizon_overlay(rgb, roll)),
    ]


__all__ = ["focus_overlay", "horizon_overlay", "motion_overlay", "overlay_time", "shot_overlays",
           "subject_overlay"]
