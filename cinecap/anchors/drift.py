"""Accumulated change: what a stretch of a shot adds up to, not only how fast each pair moves.

A slow move stays under every per-pair speed threshold (a roll of 5° a second, a zoom of 6 % a
second), and a push-in across a deep scene leaves its far points nearly still, so the static-first
test fires while the near ground streams outward. Both add up over seconds: the picture ends up
turned by tens of degrees, scaled by a third, or flowed outward from a point. Here the camera's
change is measured over a longer baseline (about a second) on the points the tracker followed
without a break: a similarity fit (scale, rotation) and the field's expansion about a focus of
expansion, the point every moved point flows away from (or towards, pulling out). A stretch read
as static whose windows add up to such a change is relabelled with the move they show, or
abstained when they do not agree on one: never static.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from cinecap.anchors.motion import MotionConfig, MotionInterval, PointTracker


@dataclass
class DriftWindow:
    """The camera's change over one long baseline [t0, t1], as rates per second (camera-oriented
    as :class:`~cinecap.anchors.motion.PairMotion`) and the field's expansion."""

    t0: float
    t1: float
    zoom: float = 0.0  # log scale per second
    roll: float = 0.0  # degrees per second
    pan: float = 0.0  # frame widths per second
    tilt: float = 0.0
    inliers: float = 0.0  # share of the points the similarity fit explains
    points: int = 0
    moved: float = 0.0  # share of points that moved more than drift_move_px
    #: share of the moved points flowing out of (positive) or into (negative) one focus of
    #: expansion inside the frame, spread around it; 0 when no such point explains them
    expansion: float = 0.0
    focus: tuple[float, float] | None = None  # focus of expansion, shares of width and height
    #: how unevenly the points flow: the 90th / 10th percentile of the outward rate relative to
    #: the distance from the focus, over the points that moved clearly (≥ 3 px): about 1 for a
    #: zoom, several times more over depth (near points flow faster than far ones)
    depth_spread: float = 1.0
    #: the same for a shift (pan, tilt, truck, pedestal): the 90th / 10th percentile of the
    #: points' displacement along the window's shift, over points that moved clearly (≥ 3 px):
    #: about 1 when the camera turns (every point shifts alike), more when it travels across a
    #: scene with depth (near points shift faster: parallax)
    shift_spread: float = 1.0
    #: share of the clearly moved points displaced along the window's shift (within about 25°):
    #: near 1 when the camera moves, lower when subjects or traffic cross the frame
    aligned: float = 0.0
    #: measured on corners taken afresh over the whole frame at t0 (:class:`FreshSample`), not on
    #: the tracker's points: read only for the depth of a slow shift
    fresh: bool = False
    #: how the distances between the points changed: the median log ratio over the pairs of
    #: points at least a tenth of the width apart, per second, and the share of those pairs that
    #: grew (by over 1 %) less the share that shrank. A shift, a turn or the shake of a hand
    #: (translation, rotation) keeps every distance; only a change of scale or a move through the
    #: scene changes them, so this reads a push-in through the jitter the similarity and the
    #: focus of expansion are thrown by
    dilation: float = 0.0
    dilating: float = 0.0

    @property
    def t(self) -> float:
        return 0.5 * (self.t0 + self.t1)


def drift_from_tracks(a: np.ndarray, b: np.ndarray, shape, t0: float, t1: float,
                      cfg: MotionConfig) -> DriftWindow | None:
    """The change between points ``a`` (at t0) and the same points ``b`` (at t1, tracked without
    a break) on frames of ``shape``; None with too few points."""
    import cv2

    if len(a) < cfg.min_points or t1 <= t0:
        return None
    h, w = shape[:2]
    dt = t1 - t0
    m, _ = cv2.estimateAffinePartial2D(a, b, method=cv2.RANSAC,
                                       ransacReprojThreshold=2 * cfg.ransac_px, maxIters=500,
                                       confidence=0.99)
    if m is None:
        return None
    resid = np.linalg.norm(a @ m[:, :2].T + m[:, 2] - b, axis=1)
    c = np.array([w / 2, h / 2])
    shift = m[:, :2] @ c + m[:, 2] - c
    dw = DriftWindow(t0, t1, points=len(a))
    dw.inliers = float((resid < 3 * cfg.ransac_px).mean())
    dw.zoom = math.log(max(math.hypot(m[0, 0], m[1, 0]), 1e-6)) / dt
    dw.roll = -math.degrees(math.atan2(m[1, 0], m[0, 0])) / dt
    dw.pan, dw.tilt = float(-shift[0] / w / dt), float(shift[1] / w / dt)
    dw.dilation, dw.dilating = _dilation(a, b, w, dt)
    d = b - a
    moved = np.linalg.norm(d, axis=1) > cfg.drift_move_px
    dw.moved = float(moved.mean())
    if moved.sum() >= 12:
        dw.expansion, dw.focus, dw.depth_spread = _expansion(a[moved], d[moved], w, h)
    step = np.linalg.norm(d, axis=1)
    if dw.expansion == 0.0 and float(np.linalg.norm(shift)) >= 3.0 and (step >= 3.0).sum() >= 12:
        # The content moved by the fitted shift (content-oriented, the opposite of the camera).
        way = shift / np.linalg.norm(shift)
        clear = step >= 3.0
        along = d[clear] @ way
        aligned = along / step[clear] > 0.9
        dw.aligned = float(aligned.mean())
        if aligned.sum() >= 12:
            lo, hi = np.percentile(along[aligned], [10, 90])
            dw.shift_spread = float(hi / max(lo, 1e-9))
    return dw


def _dilation(a: np.ndarray, b: np.ndarray, w: int, dt: float) -> tuple[float, float]:
    """(:attr:`DriftWindow.dilation`, :attr:`DriftWindow.dilating`) of points ``a`` → ``b``."""
    i, j = np.triu_indices(len(a), 1)
    da = np.hypot(*(a[i] - a[j]).T)
    far = da > 0.1 * w
    if np.count_nonzero(far) < 12:
        return 0.0, 0.0
    ratio = np.log(np.hypot(*(b[i[far]] - b[j[far]]).T) / da[far])
    share = np.count_nonzero(ratio > 0.01) - np.count_nonzero(ratio < -0.01)
    return float(np.median(ratio)) / dt, share / len(ratio)


def slow_shift(dw: DriftWindow, cfg: MotionConfig) -> bool:
    """Whether a window of the tracker's points shows what :func:`_shift_labels` reads as a turn:
    the picture shifting one way (≥ 80 % of the clearly moved points along it) at a quarter of
    the pan (tilt) threshold or more but under it, where the frame pairs read still, with one
    similarity explaining ≥ 80 % of the points (one layer: where the tracker already holds two,
    its own windows show the depth)."""
    speed = max(abs(dw.pan) / cfg.pan_threshold, abs(dw.tilt) / cfg.tilt_threshold)
    return dw.aligned >= 0.8 and dw.inliers >= 0.8 and 0.25 <= speed < 1.0


class FreshSample:
    """Corners taken afresh over the whole frame and followed for one drift window, once two
    tracker windows in a row show a slow shift (:func:`slow_shift`: a shift that lasts, as one
    must to add up to ``shift_total`` under the threshold); one sample at a time, the next
    starting where the last ended.

    The tracker takes new corners only when its set runs short (:class:`PointTracker`), so during
    a slow move its points stay on what was in view when they were taken: content that enters
    the frame (the near ground a descending camera brings into view, the foreground a travelling
    one reveals) is never among them, and the shift's depth is read on one layer alone, as a
    turn. A fresh sample, balanced over the frame's cells as the tracker's is, includes it. It
    costs a second point set followed from frame to frame (about 15 ms a second of video at
    400 px), only while a slow shift is under way."""

    def __init__(self, cfg: MotionConfig, lag: int) -> None:
        self.cfg, self.lag = cfg, lag
        self._trk: PointTracker | None = None
        self._t0 = self._t = 0.0
        self._n = 0
        self._shape: tuple = ()
        self._shifting = False  # the tracker's last window showed a slow shift

    def reset(self) -> None:
        """A cut: the sample under way ends with nothing."""
        self._trk, self._shifting = None, False

    def consider(self, dw: DriftWindow, gray, t: float, mask=None) -> None:
        """Start a sample at this frame when the tracker's latest window ``dw`` and the one
        before show a slow shift and none is under way."""
        lasts, self._shifting = self._shifting, slow_shift(dw, self.cfg)
        if self._trk is None and lasts and self._shifting:
            # Corners once, at the start (refill ~0): corners added later would not last the
            # window.
            self._trk = PointTracker(self.cfg, history=self.lag, refill=1e-3)
            self._trk.step(gray, mask)
            self._t0, self._n = t, 0

    def step(self, gray, t: float, mask=None) -> DriftWindow | None:
        """Follow the sample into this frame; its window once it has lasted ``lag`` frames."""
        if self._trk is None:
            return None
        self._trk.step(gray, mask)
        self._n, self._t, self._shape = self._n + 1, t, gray.shape
        return self.finish() if self._n >= self.lag else None

    def finish(self) -> DriftWindow | None:
        """The window of the sample under way, which then ends: at the clip's end, the part it
        followed when that is at least half a window."""
        trk, self._trk = self._trk, None
        if trk is None or 2 * self._n < self.lag or not (tracks := trk.tracks_over(self._n)):
            return None
        dw = drift_from_tracks(*tracks, self._shape, self._t0, self._t, self.cfg)
        if dw is not None:
            dw.fresh = True
        return dw


def _expansion(a: np.ndarray, d: np.ndarray, w: int, h: int
               ) -> tuple[float, tuple[float, float] | None, float]:
    """(signed share of the moved points ``a`` (displacements ``d``) flowing radially out of
    (+) or into (−) one point inside the frame, that point in frame shares, the spread of their
    relative rates: :attr:`DriftWindow.depth_spread`). Each displacement
    defines a line; the focus is the point nearest to all of them (least squares, refitted on
    the lines that pass close to it). Parallel lines (a pan) have no such point."""
    u = d / np.linalg.norm(d, axis=1, keepdims=True)
    n = np.column_stack([-u[:, 1], u[:, 0]])  # each line's normal
    keep = np.ones(len(a), bool)
    foe = None
    for _ in range(3):
        nn = n[keep]
        ata = nn.T @ nn
        ev = np.linalg.eigvalsh(ata)
        if keep.sum() < 12 or ev[0] < 0.1 * ev[1]:
            return 0.0, None, 1.0  # directions too alike: a shift, not a flow from a point
        foe = np.linalg.solve(ata, nn.T @ np.einsum("ij,ij->i", nn, a[keep]))
        dist = np.abs(np.einsum("ij,ij->i", n, foe - a))
        keep = dist < max(4.0, 0.04 * w)
    if foe is None or not (-0.25 * w <= foe[0] <= 1.25 * w and -0.25 * h <= foe[1] <= 1.25 * h):
        return 0.0, None, 1.0
    r = a - foe
    rn = np.linalg.norm(r, axis=1)
    ok = rn > 0.03 * w
    cos = np.einsum("ij,ij->i", r[ok], u[ok]) / rn[ok]
    out, inward = float((cos > 0.9).mean()), float((cos < -0.9).mean())
    share, way = (out, 1.0) if out >= inward else (inward, -1.0)
    flowing = cos * way > 0.9
    pts = a[ok][flowing]
    if len(pts) < 12:
        return 0.0, None, 1.0
    # Around the focus, not off to one side of it (one object growing on its own), and across
    # the frame.
    ang = np.sort(np.arctan2(pts[:, 1] - foe[1], pts[:, 0] - foe[0]))
    widest_gap = float(np.max(np.diff(np.concatenate([ang, ang[:1] + 2 * math.pi]))))
    lo, hi = np.percentile(pts[:, 0], [10, 90])
    if widest_gap > math.radians(240) or hi - lo < 0.4 * w:
        return 0.0, None, 1.0
    step = np.linalg.norm(d[ok][flowing], axis=1)
    rate = step / rn[ok][flowing]
    # Only clear moves away from the focus: a pixel of noise is a large relative rate on a point
    # that hardly moved or sits near the focus.
    clear = (step >= 3.0) & (rn[ok][flowing] > 0.1 * w)
    lo_r, hi_r = np.percentile(rate[clear], [10, 90]) if clear.sum() >= 8 else (1.0, 1.0)
    return way * share, (float(foe[0] / w), float(foe[1] / h)), float(hi_r / max(lo_r, 1e-9))


def _agreeing(values: np.ndarray, centre: float) -> float:
    """Share of ``values`` on the side of ``centre`` with at least 40 % of its size."""
    if centre == 0:
        return 0.0
    return float(np.mean((np.sign(values) == np.sign(centre)) & (np.abs(values) >= 0.4 * abs(centre))))


def _shift_labels(ws: list[DriftWindow], dur: float, inl: float, cfg: MotionConfig,
                  acc: dict, fresh: list[DriftWindow] = ()) -> list[tuple[str, tuple[float, float]]]:
    """Pan / tilt (truck / pedestal over a scene with depth) that a still-looking stretch adds
    up to: the windows agree on a shift of ≥ ``shift_total`` frame widths in all, at ≥ a quarter
    of the pan (tilt) threshold, with nearly every moved point going that way (the camera, not
    traffic). Points shifting alike (one similarity explains the frame) are a turn of the camera;
    near ones shifting faster than far ones (``shift_depth``) are it travelling, on the tracker's
    points or on two or more ``fresh`` samples (:class:`FreshSample`: content that entered the
    frame during the move). Records the totals in ``acc``; returns (label, strength) pairs."""
    pan = np.array([w.pan for w in ws])
    tilt = np.array([w.tilt for w in ws])
    p, t = float(np.median(pan)), float(np.median(tilt))
    acc.update({"pan_shift": round(p * dur, 3), "tilt_shift": round(t * dur, 3),
                "pan_rate": round(p, 4), "tilt_rate": round(t, 4)})
    aligned = float(np.median([w.aligned for w in ws]))
    spread = float(np.median([w.shift_spread for w in ws]))
    acc.update({"aligned_share": round(aligned, 3), "shift_spread": round(spread, 2)})
    fresh = [w for w in fresh if w.aligned >= 0.8]  # those that saw the shift (≥ 3 px)
    if len(fresh) >= 2:
        # Both sample the layers in view when they were taken; the fresh one also what entered
        # since the tracker's were. Either showing near points faster is depth.
        sampled = float(np.median([w.shift_spread for w in fresh]))
        acc.update({"tracked_spread": round(spread, 2), "fresh_spread": round(sampled, 2),
                    "fresh_windows": len(fresh)})
        spread = max(spread, sampled)
        acc["shift_spread"] = round(spread, 2)
    depth = spread >= cfg.shift_depth
    if aligned < 0.8 or not (depth or inl >= 0.8):
        return []
    out = []
    for rate, values, threshold, names in (
            (p, pan, cfg.pan_threshold, ("pan right", "pan left")),
            (t, tilt, cfg.tilt_threshold, ("tilt up", "tilt down"))):
        total = rate * dur
        agree = _agreeing(values, rate)
        if abs(total) >= cfg.shift_total and abs(rate) >= threshold / 4 and agree >= cfg.drift_agreement:
            label = names[0] if rate > 0 else names[1]
            if depth:
                label = {"pan right": "truck right", "pan left": "truck left",
                         "tilt up": "pedestal up", "tilt down": "pedestal down"}[label]
            out.append((label, (abs(total) / cfg.shift_total, agree)))
    return out


def relabel_still(out: list[MotionInterval], windows: list[DriftWindow],
                  cfg: MotionConfig) -> list[MotionInterval]:
    """Each static interval whose long-baseline windows add up to a turn, a change of scale or a
    flow from a point: the move they agree on, or abstained with the reason; never static."""
    for k, m in enumerate(out):
        if m.abstained or m.movement != ["static"]:
            continue
        inside = [w for w in windows if m.t_start - 1e-6 <= w.t0 and w.t1 <= m.t_end + 1e-6
                  and w.points >= cfg.min_points]
        ws = [w for w in inside if not w.fresh]
        if len(ws) < 2:
            continue
        dur = m.t_end - m.t_start
        roll = np.array([w.roll for w in ws])
        zoom = np.array([w.zoom for w in ws])
        exp_ = np.array([w.expansion for w in ws])
        inl = float(np.median([w.inliers for w in ws]))
        r, z, e = float(np.median(roll)), float(np.median(zoom)), float(np.median(exp_))
        turned, scaled = r * dur, z * dur
        acc = {"seconds": round(dur, 2), "windows": len(ws), "rotation_deg": round(turned, 1),
               "scale_change": round(math.exp(scaled) - 1, 3), "expansion_share": round(e, 3),
               "moved_share": round(float(np.median([w.moved for w in ws])), 3),
               "inlier_fraction": round(inl, 3)}
        labels: list[str] = []
        strength = []
        if (abs(turned) >= cfg.roll_total and abs(r) >= cfg.roll_threshold / 4
                and inl >= cfg.sure_inliers and _agreeing(roll, r) >= cfg.drift_agreement):
            labels.append("roll clockwise" if r > 0 else "roll counterclockwise")
            strength.append((abs(turned) / cfg.roll_total, _agreeing(roll, r)))
        spread = np.mean(np.sign(exp_) == np.sign(e)) if e else 0.0
        # A flow whose rates vary several times over the frame is depth (a travelling camera);
        # an even one is a change of scale, which the zoom totals judge.
        spread_d = float(np.median([w.depth_spread for w in ws]))
        acc["depth_spread"] = round(spread_d, 2)
        uneven = spread_d >= cfg.depth_spread
        flows = abs(e) >= cfg.expansion_share and spread >= cfg.drift_agreement and uneven
        zooms = (abs(scaled) >= cfg.zoom_total and abs(z) >= cfg.zoom_threshold / 4
                 and _agreeing(zoom, z) >= cfg.drift_agreement)
        # The distances between the points (:attr:`DriftWindow.dilating`): a shift, a turn or
        # a shake keeps them all; only the scale or a move through the scene changes them. A
        # push-in whose points lie on one side of the focus (the horizon above the frame, a
        # camera looking down as it travels) has no focus the flow test accepts, but its
        # points still all move apart, at rates one similarity does not explain.
        grow = np.array([w.dilating for w in ws])
        dil = float(np.median([w.dilation for w in ws]))
        acc.update({"dilation_rate": round(dil, 4),
                    "dilating_share": round(float(np.median(grow)), 3)})
        apart = (abs(dil) * dur >= cfg.zoom_total and abs(dil) >= cfg.zoom_threshold / 4
                 and float(np.mean(grow * math.copysign(1.0, dil) >= 0.8)) >= cfg.drift_agreement)
        if zooms and inl >= 0.8 and not flows:
            # One scale explains the whole frame: a zoom, or a dolly where the interval's
            # parallax windows saw depth.
            depth = m.evidence.get("parallax_px", 0.0) > cfg.parallax_px
            labels.append(("dolly" if depth else "zoom") + (" in" if z > 0 else " out"))
            strength.append((abs(scaled) / cfg.zoom_total, _agreeing(zoom, z)))
        elif flows and float(np.median([w.moved for w in ws])) >= 0.3:
            # Points flow out of one point at rates no single scale explains: depth, so the
            # camera travels along its axis.
            labels.append("dolly in" if e > 0 else "dolly out")
            focus = [w.focus for w in ws if w.focus is not None]
            if focus:
                acc["focus_of_expansion"] = [round(float(np.median([f[i] for f in focus])), 3)
                                             for i in (0, 1)]
            strength.append((abs(e) / cfg.expansion_share, float(spread)))
        elif apart and inl < 0.8 and float(np.median([w.moved for w in ws])) >= 0.3:
            # Apart at rates one similarity does not explain: depth, so the camera travels.
            labels.append("dolly in" if dil > 0 else "dolly out")
            acc["read_from"] = "distances"
            strength.append((abs(dil) * dur / cfg.zoom_total,
                             float(np.mean(grow * math.copysign(1.0, dil) >= 0.8))))
        if not flows and not any(lab.split()[0] in ("zoom", "dolly") for lab in labels):
            shift = _shift_labels(ws, dur, inl, cfg, acc, [w for w in inside if w.fresh])
            labels += [lab for lab, _ in shift]
            strength += [st for _, st in shift]
        ev = {**m.evidence, "accumulated": acc}
        big = (abs(turned) >= cfg.roll_total or abs(scaled) >= cfg.zoom_total
               or (abs(e) >= cfg.expansion_share and uneven) or apart
               or max(abs(acc.get("pan_shift", 0.0)), abs(acc.get("tilt_shift", 0.0))) >= cfg.shift_total)
        if labels:
            margin = min(min(s for s, _ in strength) - 1.0, 1.0)
            agree = min(a for _, a in strength)
            conf = float(np.clip((0.55 + 0.35 * margin) * agree * min(1.0, len(ws) / 3), 0, 1))
            ev.update({"zoom_rate": round(z, 4), "roll_rate": round(r, 3)})
            if "pan_shift" in acc:
                ev.update({"pan_rate": acc["pan_rate"], "tilt_rate": acc["tilt_rate"]})
            out[k] = MotionInterval(m.t_start, m.t_end, labels, m.steadiness, conf, ev,
                                    abstained=conf < cfg.min_confidence)
        elif big:
            parts = []
            if abs(turned) >= cfg.roll_total:
                parts.append(f"turns {abs(turned):.0f}°")
            if abs(scaled) >= cfg.zoom_total:
                parts.append(f"{'grows' if scaled > 0 else 'shrinks'} by "
                             f"{abs(math.exp(scaled) - 1):.0%}")
            if abs(e) >= cfg.expansion_share and uneven:
                parts.append(f"flows {'out of' if e > 0 else 'into'} a point")
            if apart:
                parts.append(f"{'spreads apart' if dil > 0 else 'draws together'}")
            if max(abs(acc.get("pan_shift", 0.0)), abs(acc.get("tilt_shift", 0.0))) >= cfg.shift_total:
                parts.append("shifts by {:.0%} of its width".format(
                    max(abs(acc.get("pan_shift", 0.0)), abs(acc.get("tilt_shift", 0.0)))))
            ev["reason"] = (f"over {dur:.1f} s the picture {' and '.join(parts)}, but its "
                            f"measurements do not agree on one move")
            out[k] = MotionInterval(m.t_start, m.t_end, [], m.steadiness, 0.0, ev, abstained=True)
        else:
            m.evidence = ev  # static, and the windows say why: nothing adds up
    return out


def confirm_scale(out: list[MotionInterval], windows: list[DriftWindow],
                  cfg: MotionConfig, shaking: bool = False) -> list[MotionInterval]:
    """A zoom or dolly read from the pair fits must show over the long baseline as what it is: a
    change of scale one similarity explains across the frame (≥ 80 % of the points), or a flow
    out of (into) one point. Where the stretch's windows show neither, the scale the pair fits
    found is a by-product of another move (a tilt seen in perspective on the half of the frame
    that has texture, a camera travelling over a slanted plane): that label is dropped, the
    others stay, and a stretch left with none is abstained with the reason.

    ``shaking`` (a handheld stretch): the shake's jumps move the focus of expansion off the
    frame and a push-in over a slanted table is no one similarity, so the windows are read
    through the jitter, by the distances between the points (:attr:`DriftWindow.dilating`):
    where ≥ 80 % of them grow (shrink) the stated way, the change of scale is confirmed; and where
    one similarity does not explain the frame (under 80 % of the points) the scale changes over
    it, near things faster than far ones: the camera moves (dolly), not its lens (zoom)."""
    for k, m in enumerate(out):
        scale = [lab for lab in m.movement if lab.split()[0] in ("zoom", "dolly")]
        if m.abstained or not scale or "accumulated" in m.evidence:
            continue
        ws = [w for w in windows if m.t_start - 1e-6 <= w.t0 and w.t1 <= m.t_end + 1e-6
              and w.points >= cfg.min_points and not w.fresh]
        if len(ws) < 2:
            continue  # too short or too fast to follow points for a second: the pairs stand
        inl = float(np.median([w.inliers for w in ws]))
        e = float(np.median([w.expansion for w in ws]))
        z = float(np.median([w.zoom for w in ws]))
        way = 1.0 if scale[0].endswith(" in") else -1.0
        check = {"windows": len(ws), "inlier_fraction": round(inl, 3),
                 "expansion_share": round(e, 3), "zoom_rate": round(z, 4)}
        if (inl >= 0.8 and z * way > 0) or e * way >= cfg.expansion_share:
            m.evidence = {**m.evidence, "scale_check": check}
            continue
        grows = float(np.median([w.dilating for w in ws]))
        if shaking and grows * way >= 0.8:
            check.update({"dilating_share": round(grows, 3),
                          "dilation_rate": round(float(np.median([w.dilation for w in ws])), 4)})
            ev = {**m.evidence, "scale_check": check}
            labels = [("dolly" + lab[4:] if inl < 0.8 and lab.startswith("zoom") else lab)
                      for lab in m.movement]
            out[k] = MotionInterval(m.t_start, m.t_end, labels, m.steadiness, m.confidence, ev,
                                    m.abstained)
            continue
        keep = [lab for lab in m.movement if lab not in scale]
        ev = {**m.evidence, "scale_check": check, "dropped": scale}
        if keep:
            out[k] = MotionInterval(m.t_start, m.t_end, keep, m.steadiness, m.confidence, ev,
                                    m.abstained)
        else:
            ev["reason"] = (f"the pairs read a change of scale that {len(ws)} one-second windows "
                            f"do not show: one scale explains {inl:.0%} of the points, changing "
                            f"by {z * 100:+.0f}% a second, and they flow out of no point")
            out[k] = MotionInterval(m.t_start, m.t_end, [], m.steadiness, 0.0, ev, abstained=True)
    return out


__all__ = ["DriftWindow", "FreshSample", "confirm_scale", "drift_from_tracks", "relabel_still",
           "slow_shift"]
