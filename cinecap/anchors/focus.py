"""Depth of field from pixels: contrast-normalised sharpness, subject vs background, rack focus.

Per block of a keyframe, sharpness is edge steepness: the strongest gradients over the block's
intensity range. For an edge blurred by a Gaussian of width σ that ratio falls like 1/σ whatever
the edge's contrast, so a dim sharp edge and a bright sharp edge score alike while a blurred one
scores low. Flat blocks (no contrast) say nothing about focus and are left out. A shot has a shallow depth of field when some
textured blocks are sharp (the subject) and many are clearly soft; deep focus when nearly every
textured block is sharp. Motion blur looks like defocus, so keyframes taken during fast camera
motion are not used. A rack focus is one region going soft while another becomes sharp, the camera
still.

A soft block is a smooth one, and not every smooth block is out of focus: a dune's shaded face, a
sky's gradient, a wall in haze are smooth in focus, and a codec drops a faint texture's fine detail.
Where the picture's sharp blocks are themselves faint (a veiled picture: haze, fog, a flat grade),
a soft block of little contrast is no evidence of a shallow focus; beside contrasty sharp blocks it
still is (defocus spreads a background's contrast away, the bird on its branch against soft
trees).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from cinecap.errors import InputError


@dataclass(frozen=True)
class FocusConfig:
    """Thresholds of the sharpness analysis (edge steepness per block of a keyframe)."""

    grid: tuple[int, int] = field(default=(6, 8), metadata={
        "help": "blocks per keyframe: rows, columns"})
    min_contrast: float = field(default=20.0, metadata={
        "help": "grey-level range under which a block is flat and says nothing about focus"})
    sharp_rel: float = field(default=0.6, metadata={
        "help": "block sharpness / the frame's 90th percentile at or above this: sharp"})
    soft_rel: float = field(default=0.4, metadata={
        "help": "block sharpness / the frame's 90th percentile at or below this: soft"})
    soft_abs: float = field(default=0.12, metadata={
        "help": "at or below this edge steepness a block is soft whatever the frame"})
    sharp_abs: float = field(default=0.2, metadata={
        "help": "a sharp block must also reach this edge steepness"})
    deep_min_p90: float = field(default=0.35, metadata={
        "help": "deep focus needs the frame's sharpest blocks at least this sharp"})
    shallow_soft_share: float = field(default=0.3, metadata={
        "help": "share of soft textured blocks (with some sharp ones) that means shallow focus"})
    deep_soft_share: float = field(default=0.08, metadata={
        "help": "deep focus allows at most this share of soft textured blocks"})
    faint_contrast: float = field(default=40.0, metadata={
        "help": "a soft block under this grey-level range is faint: in a veiled picture it is no "
                "evidence of a shallow focus"})
    veiled_contrast: float = field(default=60.0, metadata={
        "help": "a picture whose sharp blocks' median grey-level range is under this is veiled "
                "(haze, fog, a flat grade)"})
    rack_change: float = field(default=2.2, metadata={
        "help": "a region's sharpness must change by this factor for a rack focus"})
    rack_same_picture: float = field(default=0.8, metadata={
        "help": "a rack focus changes the focus, not the picture: the brightness layout of the "
                "shot's first and last quarter (12x12 means) must correlate this well (a hand-"
                "held shot of a falling robot: 0.34)"})

    def __post_init__(self) -> None:
        if not 0 < self.soft_rel < self.sharp_rel <= 1:
            raise InputError("focus config: need 0 < soft_rel < sharp_rel <= 1")
        if min(self.grid) < 2:
            raise InputError("the focus grid needs at least 2x2 blocks")


@dataclass
class FocusFrame:
    """Block sharpness of one keyframe."""

    t: float
    sharp: np.ndarray  # [rows, cols] contrast-normalised sharpness (nan for flat blocks)
    contrast: np.ndarray | None = None  # [rows, cols] grey-level range (97th − 3rd percentile)

    def relative(self) -> np.ndarray:
        ref = np.nanpercentile(self.sharp, 90) if np.isfinite(self.sharp).any() else np.nan
        return self.sharp / ref if ref and np.isfinite(ref) and ref > 0 else self.sharp * np.nan


def _at(qs: tuple[float, ...], n: int) -> list[tuple[int, int, float]]:
    """np.percentile's linear method over ``n`` values: for each q the two order statistics
    (indices) and the weight between them."""
    at = []
    for q in qs:
        v = (n - 1) * (q / 100)
        i = min(max(int(np.floor(v)), 0), n - 1)
        at.append((i, min(i + 1, n - 1), v - i))
    return at


def _between(at: list[tuple[int, int, float]], lo_hi: list[tuple[np.ndarray, np.ndarray]],
             several: bool) -> list[np.ndarray]:
    """np.percentile's interpolation between each q's two order statistics, in its types: the
    weight a float64 scalar for several q's (the result float64), a Python float for one (the
    result in the arrays' dtype)."""
    out = []
    for (_, _, t), (lo, hi) in zip(at, lo_hi):
        t = np.float64(t) if several else t
        diff = hi - lo
        out.append(hi - diff * (1 - t) if t >= 0.5 else lo + diff * t)
    return out


def _percentiles(a: np.ndarray, qs: tuple[float, ...]) -> list[np.ndarray]:
    """``np.percentile(a, qs, axis=-1)`` (or ``np.percentile(a, qs[0], axis=-1)`` for one q) to
    the last bit: its linear method's indices, weight and formula, in float64 for several q's
    and in ``a``'s dtype for one, as numpy gives them. One partition along the contiguous last
    axis; np.percentile moves the axis first and costs about twice as much on these blocks."""
    at = _at(qs, a.shape[-1])
    part = np.partition(a, sorted({k for i, j, _ in at for k in (i, j)}), axis=-1)
    return _between(at, [(part[..., i], part[..., j]) for i, j, _ in at], len(qs) > 1)


def block_sharpness(gray: np.ndarray, cfg: FocusConfig) -> np.ndarray:
    """[rows, cols] edge steepness per block: the 97th-percentile gradient (grey levels per px)
    over the block's intensity range (97th − 3rd percentile). A step edge scores ~0.5; an edge
    blurred by a Gaussian of width σ scores ~0.4/σ, whatever its contrast. nan where the block's
    range is under ``min_contrast`` (flat: says nothing about focus)."""
    return block_focus(gray, cfg)[0]


def block_focus(gray: np.ndarray, cfg: FocusConfig) -> tuple[np.ndarray, np.ndarray]:
    """:func:`block_sharpness` and, from the same percentiles, each block's grey-level range."""
    import cv2

    rows, cols = cfg.grid
    h, w = gray.shape
    hh, ww = h // rows * rows, w // cols * cols

    def blocks(a: np.ndarray) -> np.ndarray:
        return a[:hh, :ww].reshape(rows, hh // rows, cols, ww // cols).transpose(0, 2, 1, 3).reshape(
            rows, cols, -1)

    # The numbers are those of the float32 definition (np.hypot of float32 Sobel derivatives
    # over 8, np.percentile of the grey levels and of that magnitude), got more cheaply from a
    # uint8 frame: its 3x3 Sobel derivatives are whole numbers (|d| <= 1020), so dx² + dy² is
    # exact in float32, and np.hypot of two of them is float32(sqrt(float64(dx² + dy²))) —
    # checked on every pair (tests/test_anchors_evidence.py) — a non-decreasing function of
    # dx² + dy²: each order statistic of the magnitude is that of dx² + dy², mapped. One
    # partition of those per block, a square root only where the percentile reads one, and
    # numpy's radix sort for the grey levels' two percentiles.
    if gray.dtype == np.uint8:
        n = (hh // rows) * (ww // cols)
        at_g = _at((3, 97), n)
        srt = np.sort(blocks(gray), axis=-1, kind="stable")  # a radix sort for 8-bit values
        lo, hi = _between(at_g, [(srt[..., i].astype(np.float32), srt[..., j].astype(np.float32))
                                 for i, j, _ in at_g], True)
        dx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
        dy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
        sq = blocks(cv2.add(cv2.multiply(dx, dx), cv2.multiply(dy, dy)))
        (i, j, _), = at_m = _at((97,), n)
        part = np.partition(sq, i, axis=-1)
        order = (part[..., i], part[..., i + 1:].min(-1) if j > i else part[..., i])
        steep, = _between(at_m, [tuple(np.sqrt(v.astype(np.float64)).astype(np.float32)
                                       / np.float32(8) for v in order)], False)
    else:  # not a decoded frame: the definition itself
        g = gray.astype(np.float32)
        mag = np.hypot(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3),
                       cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)) / 8
        lo, hi = _percentiles(blocks(g), (3, 97))
        steep, = _percentiles(blocks(mag), (97,))
    rng = hi - lo
    out = steep / np.maximum(rng, 1e-6)
    out[rng < cfg.min_contrast] = np.nan
    return out, rng


def heat_map(gray: np.ndarray, cfg: FocusConfig | None = None) -> np.ndarray:
    """A per-pixel-smooth sharpness map in [0, 1] (for the evidence overlay)."""
    import cv2

    cfg = cfg or FocusConfig()
    fine = FocusConfig(grid=(max(2, cfg.grid[0] * 2), max(2, cfg.grid[1] * 2)),
                       min_contrast=cfg.min_contrast)
    s = block_sharpness(gray, fine)
    ref = np.nanpercentile(s, 90) if np.isfinite(s).any() else 1.0
    rel = np.nan_to_num(s / max(ref, 1e-6), nan=0.0).clip(0, 1).astype(np.float32)
    return cv2.resize(rel, (gray.shape[1], gray.shape[0]), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def _box_mask(box, grid) -> np.ndarray:
    rows, cols = grid
    x, y, w, h = box
    m = np.zeros(grid, bool)
    r0, r1 = int(y * rows), int(np.ceil((y + h) * rows))
    c0, c1 = int(x * cols), int(np.ceil((x + w) * cols))
    m[max(0, r0):min(rows, r1), max(0, c0):min(cols, c1)] = True
    return m


@dataclass
class DepthFinding:
    value: str
    confidence: float
    measurements: dict
    t_start: float | None = None
    t_end: float | None = None


def _nanmedian0(a: np.ndarray) -> np.ndarray:
    """``np.nanmedian(a, axis=0)`` of a float64 stack, to the bit, without its masked-array
    path: per cell, the non-nan values sorted (numpy sorts nan last) and their two middle ones
    (one twice for an odd count) summed and halved, as ``np.ma.median`` does; nan where a cell
    has no value (numpy also warns there; its callers here silence that)."""
    srt = np.sort(a, axis=0)
    n = (~np.isnan(a)).sum(0)
    lo = np.take_along_axis(srt, np.maximum((n - 1) // 2, 0)[None], 0)[0]
    hi = np.take_along_axis(srt, np.minimum(n // 2, len(a) - 1)[None], 0)[0]
    out = (lo + hi) / 2.0
    out[n == 0] = np.nan
    return out


def depth_of_field(frames: list[FocusFrame], cfg: FocusConfig,
                   subject_box: tuple[float, float, float, float] | None) -> DepthFinding | None:
    """Shallow / deep focus for one shot, or None (abstain) when the evidence is weak."""
    rels = [f.relative() for f in frames]
    rels = [r for r in rels if np.isfinite(r).sum() >= 0.3 * r.size]
    if not rels:
        return None
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-flat blocks give nan medians
        rel = _nanmedian0(np.stack(rels))
        absolute = _nanmedian0(np.stack([f.sharp for f in frames]))
    textured = np.isfinite(rel) & np.isfinite(absolute)
    if textured.sum() < 4:
        return None
    share = float(textured.mean())
    soft_mask = (rel <= cfg.soft_rel) | (absolute <= cfg.soft_abs)
    sharp_mask = (rel >= cfg.sharp_rel) & (absolute >= cfg.sharp_abs)
    soft = float(soft_mask[textured].mean())
    sharp = float(sharp_mask[textured].mean())
    p90 = float(np.percentile(absolute[textured], 90))
    m = {"textured_share": round(share, 3), "soft_share": round(soft, 3),
         "sharp_share": round(sharp, 3), "sharpest_p90": round(p90, 3), "keyframes": len(rels)}
    # Shallow focus needs soft blocks that are out of focus, not smooth in focus (the module's
    # docstring): in a veiled picture the faint soft ones are set aside. They still count against
    # deep focus: nothing says they are sharp either.
    defocus = soft
    if all(f.contrast is not None for f in frames) and sharp_mask[textured].any():
        contrast = _nanmedian0(np.stack([f.contrast for f in frames]))
        sharp_contrast = float(np.median(contrast[sharp_mask & textured]))
        m["sharp_contrast"] = round(sharp_contrast, 1)
        if sharp_contrast < cfg.veiled_contrast:
            defocus = float((soft_mask & (contrast >= cfg.faint_contrast))[textured].mean())
    m["defocus_share"] = round(defocus, 3)
    if subject_box is not None:
        sm = _box_mask(subject_box, cfg.grid) & textured
        bm = ~_box_mask(subject_box, cfg.grid) & textured
        if sm.any() and bm.sum() >= 4:
            s_in, s_out = float(np.nanmedian(rel[sm])), float(np.nanmedian(rel[bm]))
            m["subject_sharpness"], m["background_sharpness"] = round(s_in, 3), round(s_out, 3)
            ratio = s_in / max(s_out, 1e-6)
            m["subject_to_background"] = round(ratio, 3)
            if ratio >= 1.8 and defocus >= cfg.shallow_soft_share:
                return DepthFinding("shallow depth of field", min(0.9, 0.5 + 0.1 * ratio), m)
            if ratio < 1.3 and soft <= cfg.deep_soft_share and share >= 0.5 and p90 >= cfg.deep_min_p90:
                return DepthFinding("deep focus", 0.6, m)
            return None
    if defocus >= cfg.shallow_soft_share + 0.05 and sharp >= 0.1:
        return DepthFinding("shallow depth of field", float(min(0.85, 0.4 + defocus)), m)
    # Deep focus: nearly no soft block; or few soft ones (compressed real footage softens some
    # flat-ish blocks) when most textured blocks are clearly sharp.
    if ((soft <= cfg.deep_soft_share or (soft <= 1.5 * cfg.deep_soft_share and sharp >= 0.6))
            and share >= 0.6 and p90 >= cfg.deep_min_p90):
        return DepthFinding("deep focus", float(min(0.8, 0.4 + share / 2)), m)
    return None


def picture_kept(grays: list[np.ndarray]) -> float:
    """How well the brightness layout (12x12 block means) of the first quarter of ``grays``
    correlates with the last quarter's: near 1 where the picture stays, low where its content
    changes (things move through it, the camera swings)."""
    import cv2

    k = max(1, len(grays) // 4)
    small = [cv2.resize(g.astype(np.float32), (12, 12), interpolation=cv2.INTER_AREA).ravel()
             for g in (*grays[:k], *grays[-k:])]
    a, b = np.mean(small[:k], axis=0), np.mean(small[k:], axis=0)
    if a.std() < 1e-6 or b.std() < 1e-6:
        return 1.0 if np.allclose(a, b, atol=2.0) else 0.0
    return float(np.corrcoef(a, b)[0, 1])


def rack_focus(frames: list[FocusFrame], cfg: FocusConfig,
               grays: list[np.ndarray] | None = None) -> DepthFinding | None:
    """A region going soft while another sharpens over the shot (camera still), or None; with
    the keyframes' ``grays``, only where the picture stays (:func:`picture_kept`)."""
    if len(frames) < 4:
        return None
    s = np.stack([f.sharp for f in frames])  # [t, rows, cols]
    ok = np.isfinite(s).all(axis=0)
    if ok.sum() < 6:
        return None
    k = max(1, len(frames) // 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        first, last = _nanmedian0(s[:k]), _nanmedian0(s[-k:])
    gain = last / np.maximum(first, 1e-6)
    losing = ok & (gain <= 1 / cfg.rack_change)
    winning = ok & (gain >= cfg.rack_change)
    if losing.sum() < 3 or winning.sum() < 3:
        return None
    if grays is not None and picture_kept(grays) < cfg.rack_same_picture:
        return None  # the blocks changed because the picture did: things moved through it
    # When the change happens: the difference winning − losing crosses 20 % → 80 % of its range.
    diff = s[:, winning].mean(axis=1) - s[:, losing].mean(axis=1)
    lo, hi = diff[:k].mean(), diff[-k:].mean()
    frac = (diff - lo) / (hi - lo + 1e-9)
    i0 = int(np.argmax(frac > 0.2))
    i1 = int(np.argmax(frac >= 0.8))
    t0, t1 = frames[max(0, i0 - 1)].t, frames[max(i0, i1)].t
    m = {"regions_softening": int(losing.sum()), "regions_sharpening": int(winning.sum()),
         "median_gain": round(float(np.median(gain[winning])), 2),
         "median_loss": round(float(np.median(gain[losing])), 2)}
    return DepthFinding("rack focus", 0.6, m, t0, max(t1, t0 + 0.1))


__all__ = ["DepthFinding", "FocusConfig", "FocusFrame", "block_focus", "block_sharpness",
           "depth_of_field", "heat_map", "picture_kept", "rack_focus"]
