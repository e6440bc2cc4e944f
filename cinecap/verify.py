"""Every statement checked against the pixels: the anchors' analysis as a verifier of any caption.

For a clip's analysis (``cinecap analyze --json``'s dict, :meth:`Analysis.to_dict`) and any
statements — a model's caption, a gold pair, typed text decomposed by the rules judge's reader —
each statement of a measurable aspect gets a verdict from the evidence over its interval:

- ``supported``: the measurement agrees (the same value, or one the measurement cannot tell from
  it: a pan from a truck the same way, a size next to it on the scale), with that evidence;
- ``contradicted``: the analysis measured something else there with confidence (a pan the other
  way, stillness where a move is claimed, a close-up where a wide shot is claimed), with what it
  measured and the evidence;
- ``not measurable``: the analysis abstained, found no subject, measured nothing over the
  interval, or does not measure the aspect (special shots).

One analysis per clip serves every caption of it: :func:`verify` is pure and cheap (no decoding);
:func:`verify_clip` analyses once (or takes a saved analysis) and verifies.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from cinecap import taxonomy as tx
from cinecap.statements import Statement

SUPPORTED, CONTRADICTED, NOT_MEASURABLE = "supported", "contradicted", "not measurable"
VERDICTS = (SUPPORTED, CONTRADICTED, NOT_MEASURABLE)

#: The analysis's lists of static findings, by aspect (``Analysis.to_dict`` keys).
FINDING_KEYS = {tx.SHOT_SIZE: "shot_size", tx.SUBJECT_ORIENTATION: "subject_orientation",
                tx.DEPTH_OF_FIELD: "depth_of_field", tx.CAMERA_ANGLE: "camera_angle",
                tx.COMPOSITION: "composition"}

#: Ordered scales: values next to each other are framings a measurement cannot tell apart
#: reliably; two or more steps apart is a different framing.
SCALES = {
    tx.SHOT_SIZE: ("extreme close-up", "close-up", "medium close-up", "medium shot",
                   "medium full shot", "full shot", "wide shot", "extreme wide shot"),
    tx.SUBJECT_ORIENTATION: ("frontal", "three-quarter", "profile", "three-quarter back", "back"),
    tx.COMPOSITION: ("left", "center-left", "center", "center-right", "right"),
}

#: Camera movement as (axis, sign): what the similarity fit of the background can tell. A pan and
#: a truck the same way look alike without parallax, as do a zoom and a dolly, a tilt, a pedestal
#: and a crane; tracking and handheld shake are compatible with any move.
_MOVE_AXIS = {
    "pan left": ("x", -1), "truck left": ("x", -1), "arc left": ("x", -1),
    "pan right": ("x", 1), "truck right": ("x", 1), "arc right": ("x", 1),
    "tilt up": ("y", 1), "pedestal up": ("y", 1), "crane up": ("y", 1),
    "tilt down": ("y", -1), "pedestal down": ("y", -1), "crane down": ("y", -1),
    "zoom in": ("z", 1), "dolly in": ("z", 1), "zoom out": ("z", -1), "dolly out": ("z", -1),
    "roll clockwise": ("r", 1), "roll counterclockwise": ("r", -1),
}
_ANY_MOVE = ("tracking", "handheld shake", "dolly zoom")
#: Moves of the camera's direction alone: the whole background answers to them, so stillness or a
#: move along another axis rules them out. A translation (truck, pedestal, crane, dolly, arc) moves
#: only what is near: a distant background may stay still or follow another component.
_ROTATIONS = ("pan left", "pan right", "tilt up", "tilt down", "roll clockwise",
              "roll counterclockwise", "zoom in", "zoom out")
#: Moves that mix a rotation with a translation (an arc pans while it travels, a crane tilts while
#: it rises): a measured component along another axis is part of them.
_COMPOUND = ("arc left", "arc right", "crane up", "crane down")

#: Pairs of values of one aspect that cannot both hold (beyond the ordered scales).
_OPPOSED = {
    tx.CAMERA_ANGLE: {frozenset(p) for p in [
        ("high angle", "low angle"), ("high angle", "worm's-eye view"),
        ("overhead", "low angle"), ("overhead", "worm's-eye view"), ("overhead", "eye level"),
        ("worm's-eye view", "eye level")]},
    tx.DEPTH_OF_FIELD: {frozenset(p) for p in [
        ("deep focus", "shallow depth of field"), ("deep focus", "ultra-shallow depth of field"),
        ("deep focus", "focus on foreground"), ("deep focus", "focus on background"),
        ("deep focus", "focus on middle ground")]},
}
#: Values of one aspect that the measurement cannot tell apart (beyond equal judge classes).
_ALIKE = {
    tx.CAMERA_ANGLE: {frozenset(p) for p in [("high angle", "overhead"),
                                             ("low angle", "worm's-eye view")]},
    tx.DEPTH_OF_FIELD: {frozenset(p) for p in [
        ("shallow depth of field", "ultra-shallow depth of field"),
        ("shallow depth of field", "focus on foreground"),
        ("shallow depth of field", "focus on background"),
        ("shallow depth of field", "focus on middle ground")]},
}


#: Bounds from what the analysis measured beyond its labels, each ruling out claims the labels
#: cannot (docs/anchors.md, the verifier's table): the per-stretch motion components, the
#: static-first test, the accumulated change, the parallax windows, the face landmarks and the
#: subject's face sightings.
BOUNDS = ("still points", "steady frame", "scale holds", "no sweep", "no flow", "axis still",
          "steady move", "no parallax", "no rise", "still component", "yaw", "face seen")


@dataclass(frozen=True)
class VerifyConfig:
    """How sure a measurement must be, and how much of a statement's interval it must cover."""

    min_confidence: float = field(default=0.5, metadata={
        "help": "a finding or move below this confidence cannot contradict (or support) anything"})
    min_static_confidence: float = field(default=0.75, metadata={
        "help": "stillness contradicts a claimed move only when measured at least this sure"})
    min_cover: float = field(default=0.5, metadata={
        "help": "share of a statement's interval the deciding evidence must cover"})
    scale_tolerance: int = field(default=1, metadata={
        "help": "steps on an ordered scale (shot size, orientation, position) still counted as "
                "the same framing"})
    boundary_tolerance: float = field(default=0.3, metadata={
        "help": "measured move boundaries are this far off (s): a timed statement is "
                "contradicted only over its interval shrunk by this much at each end"})
    min_measured_s: float = field(default=1.0, metadata={
        "help": "where the analysis abstained over part of a move's interval, the measured rest "
                "contradicts it when it is at least this long (s) and opposed over min_cover of "
                "what was measured"})
    bounds: tuple[str, ...] = field(default=BOUNDS, metadata={
        "help": "the bounds from measured components that may contradict a claim the labels "
                "alone cannot rule out (cinecap.verify.BOUNDS; () for the labels only)"})

    def __post_init__(self) -> None:
        from cinecap.errors import InputError

        for name in ("min_confidence", "min_static_confidence", "min_cover"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise InputError(f"{name} must be in [0, 1], got {v!r}")
        if self.scale_tolerance < 0:
            raise InputError("scale_tolerance must be at least 0")
        if self.min_measured_s < 0:
            raise InputError("min_measured_s must be at least 0")
        unknown = [b for b in self.bounds if b not in BOUNDS]
        if unknown:
            raise InputError(f"unknown bound(s) {', '.join(map(repr, unknown))}; known: "
                             f"{', '.join(BOUNDS)}")


@dataclass(frozen=True)
class Verdict:
    """One statement's verdict, with the measurements behind it."""

    statement: Statement
    verdict: str
    reason: str  # in words a person can check against the clip
    measured: tuple[str, ...] = ()  # what the analysis measured over the interval
    evidence: tuple[dict, ...] = field(default=(), repr=False)  # the findings / moves used
    #: For a supported statement: the deciding evidence's spatial anchor in words (what an atomic
    #: CoT line cites) and its interval.
    anchor: str = ""
    span: tuple[float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        st = self.statement
        return {"aspect": st.aspect, "value": st.value, "text": st.text,
                "t_start": st.t_start, "t_end": st.t_end, "subject": st.subject,
                "verdict": self.verdict, "reason": self.reason,
                "measured": list(self.measured), "evidence": [dict(e) for e in self.evidence],
                "anchor": self.anchor, "span": list(self.span) if self.span else None}


def _span(st: Statement, duration: float) -> tuple[float, float]:
    if st.t_start is None or st.t_end is None:
        return 0.0, duration
    return float(st.t_start), float(st.t_end)


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> float:
    return max(0.0, min(a[1], b[1]) - max(a[0], b[0]))


def _relation(aspect: str, stated: str, measured: str, cfg: VerifyConfig) -> str:
    """``same`` / ``alike`` / ``opposed`` / ``unrelated`` for two values of one static aspect."""
    if stated == measured or tx.get(aspect, stated).judge_class == tx.get(aspect, measured).judge_class:
        return "same"
    scale = SCALES.get(aspect)
    if scale and stated in scale and measured in scale:
        steps = abs(scale.index(stated) - scale.index(measured))
        return "alike" if steps <= cfg.scale_tolerance else "opposed"
    pair = frozenset((stated, measured))
    if pair in _ALIKE.get(aspect, ()):
        return "alike"
    if pair in _OPPOSED.get(aspect, ()):
        return "opposed"
    return "unrelated"


def _yaw_bound(stated: str, f: dict, cfg: VerifyConfig) -> str | None:
    """Words for why a face's landmarks rule out ``stated`` one step from the measured
    orientation (which the scale alone would let pass), or None: the nose well off the eyes'
    midpoint is no frontal face; two eyes far apart with the nose between them no profile."""
    m = f.get("measurements") or {}
    if "yaw" not in cfg.bounds or "yaw" not in m:
        return None
    yaw, eyes = abs(float(m["yaw"])), float(m.get("eye_span", 0.0))
    if stated == "frontal" and yaw >= 0.6:
        return (f"the nose sits {yaw:.2f} of the half eye span off the eyes' midpoint (a frontal "
                f"face keeps it within 0.35): the head is turned")
    if stated == "profile" and yaw <= 0.8 and eyes >= 0.3:
        return (f"both eyes show, {eyes:.0%} of the face's width apart, the nose {yaw:.2f} of the "
                f"half eye span off their midpoint: a head in profile shows one eye")
    return None


def _face_seen(st: Statement, an: dict, span: tuple[float, float], cfg: VerifyConfig
               ) -> tuple[str, dict] | None:
    """A person over most of the interval (and the interval over most of its track) on whose
    sightings a face was found at least half the time: not seen from the back."""
    if "face seen" not in cfg.bounds or st.value != "back":
        return None
    length = max(span[1] - span[0], 1e-6)
    for s in an.get("subjects") or []:
        n, faces = int(s.get("sightings", 0)), int(s.get("faces", 0))
        track = (float(s.get("t_start", 0.0)), float(s.get("t_end", 0.0)))
        ov = _overlap(span, track)
        if (s.get("kind") == "person" and n >= 2 and faces >= 0.5 * n and ov >= cfg.min_cover
                * length and ov >= cfg.min_cover * (track[1] - track[0])):
            return (f"a face on the {s.get('label', 'person')} in {faces} of its {n} sightings "
                    f"from {track[0]:.1f} to {track[1]:.1f} s: its face is towards the camera", s)
    return None


def _findings_verdict(st: Statement, an: dict, cfg: VerifyConfig) -> Verdict:
    key = FINDING_KEYS[st.aspect]
    span = _span(st, float(an.get("duration") or 0.0))
    length = max(span[1] - span[0], 1e-6)
    near = []
    for f in an.get(key) or []:
        ov = _overlap(span, (f["t_start"], f["t_end"]))
        # A finding counts where it covers enough of the statement, or the statement enough of it.
        flen = max(f["t_end"] - f["t_start"], 1e-6)
        if ov / min(length, flen) >= cfg.min_cover and f.get("confidence", 0) >= cfg.min_confidence:
            near.append(f)
    name = st.aspect.lower()
    if not near:
        seen = _face_seen(st, an, span, cfg) if st.aspect == tx.SUBJECT_ORIENTATION else None
        if seen:
            return Verdict(st, CONTRADICTED, f"the analysis found {seen[0]}", (), (seen[1],))
        return Verdict(st, NOT_MEASURABLE, f"the analysis states no {name} over "
                       f"{_fmt_span(span)}", (), ())
    rel, bound = [], {}
    for f in near:
        r = _relation(st.aspect, st.value, f["value"], cfg)
        if r == "alike" and st.aspect == tx.SUBJECT_ORIENTATION and (
                words := _yaw_bound(st.value, f, cfg)):
            r, bound[id(f)] = "opposed", words
        rel.append((f, r))
    measured = tuple(dict.fromkeys(f["value"] for f in near))
    agree = [(f, r) for f, r in rel if r in ("same", "alike")]
    if agree:
        f, r = max(agree, key=lambda x: (x[1] == "same", x[0].get("confidence", 0)))
        alike = "" if r == "same" else f" (measured {f['value']}, which it cannot tell apart)"
        return Verdict(st, SUPPORTED, f"{f['anchor']}{alike}", measured, tuple(near),
                       f["anchor"], (f["t_start"], f["t_end"]))
    opposed = [f for f, r in rel if r == "opposed"]
    if opposed and len(opposed) == len(near):
        f = max(opposed, key=lambda x: x.get("confidence", 0))
        return Verdict(st, CONTRADICTED, f"the analysis measured {f['value']} "
                       f"(confidence {f.get('confidence', 0):.2f}): "
                       f"{bound.get(id(f)) or f['anchor']}",
                       measured, tuple(near))
    return Verdict(st, NOT_MEASURABLE, f"the analysis measured {', '.join(measured)}, which "
                   f"neither confirms nor rules out {st.value}", measured, tuple(near))


def _fmt_span(span: tuple[float, float]) -> str:
    return f"{span[0]:.1f}–{span[1]:.1f} s"


def _move_relation(stated: str, measured: Iterable[str]) -> str:
    """``same`` / ``alike`` / ``opposed`` / ``unrelated`` between a claimed move and the labels
    the analysis gave one interval (``["static"]`` or one label per component)."""
    labels = list(measured)
    if stated in labels:
        return "same"
    if stated in _ANY_MOVE:  # each moves the background (shake jitters it): stillness rules out
        return "opposed" if labels == ["static"] else "alike"
    if any(lab in _ANY_MOVE for lab in labels):
        return "alike" if stated != "static" else "unrelated"
    if stated == "static":
        return "opposed" if labels and labels != ["static"] else "same"
    if labels == ["static"]:
        return "opposed" if stated in _ROTATIONS else "unrelated"
    axis, sign = _MOVE_AXIS[stated]
    theirs = [_MOVE_AXIS[lab] for lab in labels if lab in _MOVE_AXIS]
    if (axis, sign) in theirs:
        return "alike"
    if (axis, -sign) in theirs:
        return "opposed"
    # Moving, but along other axes only.
    return "opposed" if theirs and stated not in _COMPOUND else "unrelated"


#: Moves that carry the camera through space (a dolly, truck, pedestal, crane or arc).
_TRANSLATIONS = ("dolly in", "dolly out", "truck left", "truck right", "pedestal up",
                 "pedestal down", "crane up", "crane down", "arc left", "arc right")
# The analysis's own thresholds (cinecap.anchors.motion.MotionConfig's defaults): a bound is a
# share of them, so "about zero" means well under what the analysis would call a move.
_PAN_THRESHOLD, _ZOOM_THRESHOLD, _ROLL_THRESHOLD = 0.035, 0.08, 6.0
_SHAKE_THRESHOLD, _SHAKE_PER_SPEED, _PARALLAX_PX = 0.0012, 0.03, 1.2
#: A background rate under this share of the analysis's threshold is "no motion along that axis":
#: a tenth of what it would call a move (the meadow's slow descent, the one true translation over
#: a stretch read as static, drifts at nearly half of it).
_AXIS_STILL = 0.1
#: The static-first test fired on this share of a still stretch's frame pairs: nearly every
#: tracked point, spread over the frame, stayed within a quarter pixel.
_STILL_SHARE = 0.85
#: ... and over the accumulated windows no more than this share of the points moved 1 px at all
#: (where every point drifted, a slow travel may hide under the per-pair test).
_STILL_MOVED = 0.75


def _axes(labels: Iterable[str]) -> set[str]:
    return {_MOVE_AXIS[lab][0] for lab in labels if lab in _MOVE_AXIS}


def _axis_still(stated: str, labels: list[str], ev: dict, acc: dict) -> str | None:
    """Words for why a stretch read as static rules out the translation ``stated`` by the
    background's own rate along the claim's axis, or None."""
    axis = _MOVE_AXIS[stated][0]
    if (labels != ["static"] or float(ev.get("inlier_fraction", 0.0)) < 0.5
            or float(ev.get("parallax_px", 0.0)) > _PARALLAX_PX
            or (acc and acc.get("moved_share", 1.0) > _STILL_MOVED)):
        return None
    depth = (f", parallax {float(ev['parallax_px']):.2f} px (depth shows above {_PARALLAX_PX:.1f})"
             if "parallax_px" in ev else "")
    if axis in ("x", "y"):
        key = "pan_rate" if axis == "x" else "tilt_rate"
        rate = float(ev.get(key, 1.0))
        if abs(rate) > _AXIS_STILL * _PAN_THRESHOLD:
            return None
        what = ("sideways" if axis == "x" else "up or down")
        moved = f"; only {acc['moved_share']:.0%} of the points moved a pixel" if acc else ""
        return (f"the background does not drift {what} ({rate:+.4f} frame widths per second, a "
                f"tenth of a pan's rate is {_AXIS_STILL * _PAN_THRESHOLD:.4f}){moved}{depth}: a "
                f"camera travelling {stated.split()[1]} carries the scene the other way")
    if not acc:  # a dolly is judged by the accumulated scale and flow: not measured, not ruled out
        return None
    zoom, exp = float(ev.get("zoom_rate", 1.0)), float(acc.get("expansion_share", 0.0))
    inward = stated == "dolly in"
    if (abs(zoom) > _AXIS_STILL * _ZOOM_THRESHOLD or abs(acc.get("scale_change", 0.0)) > 0.05
            or (exp > 0.3 if inward else exp < -0.3)):
        return None
    flow = ("none of the points flows from or into one point" if abs(exp) < 0.05 else
            f"only {abs(exp):.0%} of the points flow {'out of' if exp > 0 else 'into'} one point")
    return (f"the background keeps its scale ({zoom:+.4f} log scale per second) and {flow}"
            f"{depth}: a camera moving {stated.split()[1]} makes the scene "
            f"{'grow' if inward else 'shrink'}")


#: A translation and the rotation that moves the background the same way: told apart only by
#: parallax (near points shifting against far ones). Arcs are left out: around a close subject
#: they are fast sweeps whose tracks do not last a parallax window (docs/anchors.md).
_ROTATION_TWIN = {"truck left": "pan left", "truck right": "pan right",
                  "pedestal up": "tilt up", "pedestal down": "tilt down",
                  "crane up": "tilt up", "crane down": "tilt down",
                  "dolly in": "zoom in", "dolly out": "zoom out"}


def _motion_bound(stated: str, m: dict, cfg: VerifyConfig) -> str | None:
    """Words for why the stretch's measured components rule out ``stated`` where its labels alone
    do not (a bound of :data:`BOUNDS`), or None. Only tight fits bound anything."""
    labels, ev = m["movement"], m.get("evidence") or {}
    acc = ev.get("accumulated") or {}
    inl = float(ev.get("inlier_fraction", 0.0))
    on = cfg.bounds
    if ("still points" in on and stated in _TRANSLATIONS and labels == ["static"]
            and ev.get("static_first_share", 0.0) >= _STILL_SHARE
            and (not acc or acc.get("moved_share", 1.0) <= _STILL_MOVED)):
        moved = (f"; over {acc['seconds']:.1f} s only {acc['moved_share']:.0%} of the points "
                 f"moved a pixel" if acc else "")
        return (f"in {ev['static_first_share']:.0%} of its frame pairs nearly all of "
                f"{ev.get('tracked_points', 0)} tracked points, spread over the frame, stay within "
                f"a quarter pixel{moved}: a camera travelling through the scene moves what is near")
    if ("steady frame" in on and stated == "handheld shake" and "handheld shake" not in labels
            and m.get("steadiness", 0.0) >= 0.75 and inl >= 0.5):
        return (f"the frame holds steady: it strays {ev.get('jitter', 0.0):.4f} frame widths from "
                f"its smooth course (steadiness {m['steadiness']:.2f})")
    if ("scale holds" in on and stated == "dolly zoom" and "z" not in _axes(labels) and inl >= 0.5
            and abs(ev.get("zoom_rate", 1.0)) <= 0.25 * _ZOOM_THRESHOLD
            and abs(acc.get("scale_change", 0.0)) <= 0.05):
        return (f"the background keeps its scale ({ev['zoom_rate']:+.3f} log scale per second): "
                f"a dolly zoom grows or shrinks it around the subject")
    if ("no sweep" in on and stated in ("arc left", "arc right") and "x" not in _axes(labels)
            and inl >= 0.6 and abs(ev.get("pan_rate", 1.0)) <= _PAN_THRESHOLD / 3):
        return (f"the background does not sweep sideways ({ev['pan_rate']:+.4f} frame widths per "
                f"second): an arc turns the camera as it circles")
    if ("no flow" in on and stated in ("dolly in", "dolly out") and "z" not in _axes(labels)
            and acc.get("seconds", 0.0) >= 2.0 and acc.get("moved_share", 0.0) >= 0.3
            and acc.get("inlier_fraction", 0.0) >= 0.7
            and abs(acc.get("scale_change", 1.0)) <= 0.05):
        exp = float(acc.get("expansion_share", 0.0))
        if (exp <= 0.1 if stated == "dolly in" else exp >= -0.1):
            how = (f"none of them flows {'out of' if stated == 'dolly in' else 'into'} one point"
                   if abs(exp) < 0.05 else
                   f"{abs(exp):.0%} of them flow {'into' if exp < 0 else 'out of'} one point")
            return (f"over {acc['seconds']:.1f} s {acc['moved_share']:.0%} of the points moved "
                    f"and {how}: a camera moving {stated.split()[1]} makes the near field "
                    f"{'expand' if stated == 'dolly in' else 'contract'}")
    if ("axis still" in on and stated in _TRANSLATIONS
            and (words := _axis_still(stated, labels, ev, acc))):
        return words
    if ("no rise" in on and stated in ("crane up", "crane down") and labels != ["static"]
            and "y" not in _axes(labels) and inl >= 0.6
            and abs(ev.get("tilt_rate", 1.0)) <= _PAN_THRESHOLD / 3):
        return (f"the background does not move up or down ({ev['tilt_rate']:+.4f} frame widths "
                f"per second) beside the {' and '.join(labels)}: a crane tilts the camera as its "
                f"arm swings {stated.split()[1]}")
    twin = _ROTATION_TWIN.get(stated)
    if ("no parallax" in on and twin in labels and inl >= 0.6
            and "parallax_px" in ev and float(ev["parallax_px"]) <= 0.5 * _PARALLAX_PX):
        return (f"over the {twin} its points fit one homography within {ev['parallax_px']:.2f} px "
                f"(depth shows above {_PARALLAX_PX:.1f} px): the camera turned in place, where a "
                f"camera travelling {stated.split()[1]} shifts near points against far ones")
    if ("steady move" in on and stated == "handheld shake" and "handheld shake" not in labels
            and labels != ["static"] and inl >= 0.6 and "jitter" in ev):
        # The analysis's own shake limit grows with the speed (tracking noise does): half of it.
        speed = (abs(ev.get("pan_rate", 0.0)) + abs(ev.get("tilt_rate", 0.0))
                 + 0.5 * abs(ev.get("zoom_rate", 0.0)))
        limit = _SHAKE_THRESHOLD + _SHAKE_PER_SPEED * speed
        if float(ev["jitter"]) <= 0.5 * limit:
            return (f"the frame follows its course smoothly: it strays {ev['jitter']:.4f} frame "
                    f"widths from it, under half of the {limit:.4f} at which the analysis "
                    f"calls a move at {speed:.2f} frame widths per second shaky")
    return None


#: A rotation's component in the fit (``evidence`` key, the analysis's threshold, units).
_COMPONENT = {"x": ("pan_rate", _PAN_THRESHOLD, "frame widths"),
              "y": ("tilt_rate", _PAN_THRESHOLD, "frame widths"),
              "z": ("zoom_rate", _ZOOM_THRESHOLD, "log scale"),
              "r": ("roll_rate", _ROLL_THRESHOLD, "degrees")}


def _still_component(stated: str, m: dict, cfg: VerifyConfig) -> str | None:
    """Words for why a stretch read as static, though less surely than stillness needs on its
    own, rules out the rotation ``stated``: its own component is under a tenth of what the
    analysis calls a move, on a fit explaining at least half the points; or None."""
    ev = m.get("evidence") or {}
    if ("still component" not in cfg.bounds or stated not in _ROTATIONS
            or float(ev.get("inlier_fraction", 0.0)) < 0.5):
        return None
    key, threshold, unit = _COMPONENT[_MOVE_AXIS[stated][0]]
    if key not in ev or abs(float(ev[key])) > _AXIS_STILL * threshold:
        return None
    return (f"its {key.split('_')[0]} component is {float(ev[key]):+.4f} {unit} per second, under "
            f"a tenth of the {threshold:g} that makes a {stated.split()[0]}")


def _motion_verdict(st: Statement, an: dict, cfg: VerifyConfig) -> Verdict:
    span = _span(st, float(an.get("duration") or 0.0))
    length = max(span[1] - span[0], 1e-6)
    used, abstained = [], 0.0
    for m in an.get("camera_motion") or []:
        ov = _overlap(span, (m["t_start"], m["t_end"]))
        if ov <= 0:
            continue
        if m.get("abstained") or m.get("confidence", 0) < cfg.min_confidence:
            abstained += ov
            continue
        used.append((m, ov))
    if not used:
        why = "abstained" if abstained else "measured no camera movement"
        return Verdict(st, NOT_MEASURABLE, f"the analysis {why} over {_fmt_span(span)}", (), ())
    rel, bound = [], {}
    for m, ov in used:
        r = _move_relation(st.value, m["movement"])
        if r != "same" and r != "opposed" and (words := _motion_bound(st.value, m, cfg)):
            r, bound[id(m)] = "opposed", words
        elif (r == "opposed" and m["movement"] == ["static"]
              and m.get("confidence", 0) < cfg.min_static_confidence
              and (words := _still_component(st.value, m, cfg))):
            bound[id(m)] = words  # sure enough along the claim's own axis
        rel.append((m, ov, r))
    measured = tuple(dict.fromkeys(lab for m, _ in used for lab in m["movement"]))
    evidence = tuple(m for m, _ in used)
    cover = {r: sum(ov for _, ov, rr in rel if rr == r) / length for r in
             ("same", "alike", "opposed", "unrelated")}
    best = max(used, key=lambda x: x[1])[0]
    if cover["same"] + cover["alike"] >= cfg.min_cover or (
            cover["same"] + cover["alike"] > 0 and cover["opposed"] < cfg.min_cover):
        m = max(((m, ov) for m, ov, r in rel if r in ("same", "alike")), key=lambda x: x[1])[0]
        words = _motion_words(m)
        return Verdict(st, SUPPORTED, f"measured {' and '.join(m['movement'])} from "
                       f"{m['t_start']:.1f} to {m['t_end']:.1f} s: {words}",
                       measured, evidence, words, (m["t_start"], m["t_end"]))
    # Contradicted only over the interval less the boundaries' uncertainty.
    inner = span
    if st.has_interval:
        inner = (span[0] + cfg.boundary_tolerance, span[1] - cfg.boundary_tolerance)
    inner_len = inner[1] - inner[0]
    sure = [(m, _overlap(inner, (m["t_start"], m["t_end"]))) for m, ov, r in rel
            if r == "opposed" and (m["movement"] != ["static"] or id(m) in bound
                                   or m.get("confidence", 0) >= cfg.min_static_confidence)]
    opposed = sum(ov for _, ov in sure)
    # Where the analysis abstained over part of the interval, what it did measure there decides:
    # a move held over the whole interval cannot be the opposite of a second of it measured.
    seen = sum(_overlap(inner, (m["t_start"], m["t_end"])) for m, _ in used)
    if inner_len >= 0.2 and sure and (opposed / inner_len >= cfg.min_cover or (
            seen > 0 and opposed >= cfg.min_measured_s and opposed / seen >= cfg.min_cover)):
        m = max(sure, key=lambda x: x[1])[0]
        return Verdict(st, CONTRADICTED, f"the analysis measured {' and '.join(m['movement'])} "
                       f"from {m['t_start']:.1f} to {m['t_end']:.1f} s (confidence "
                       f"{m.get('confidence', 0):.2f}): {bound.get(id(m)) or _motion_words(m)}",
                       measured, evidence)
    return Verdict(st, NOT_MEASURABLE, f"the analysis measured {', '.join(measured)} around "
                   f"{best['t_start']:.1f}–{best['t_end']:.1f} s, too weakly or too briefly to "
                   f"settle {st.value}", measured, evidence)


def _motion_words(m: dict) -> str:
    from cinecap.captioners.anchors import motion_anchor

    ev = m.get("evidence") or {}
    return "; ".join(motion_anchor(lab, ev) for lab in m["movement"])


def verify(analysis: dict, statements: Sequence[Statement],
           config: VerifyConfig | None = None) -> list[Verdict]:
    """A verdict for each statement, in the order given, from one clip's analysis
    (``Analysis.to_dict()``). Pure: no decoding, no I/O."""
    cfg = config or VerifyConfig()
    out = []
    for st in statements:
        if st.aspect == tx.CAMERA_MOVEMENT:
            out.append(_motion_verdict(st, analysis, cfg))
        elif st.aspect in FINDING_KEYS:
            out.append(_findings_verdict(st, analysis, cfg))
        else:
            out.append(Verdict(st, NOT_MEASURABLE, f"the analysis does not measure "
                               f"{st.aspect.lower()}", (), ()))
    return out


def statements_of(caption: str | None = None,
                  statements: Iterable[dict | Statement] | None = None) -> list[Statement]:
    """Statements from typed text (decomposed as the rules judge reads it) or from dicts
    (``{"aspect", "value", "t_start"?, "t_end"?, "text"?, "subject"?}``)."""
    from cinecap.errors import InputError

    if (caption is None) == (statements is None):
        raise InputError("give a caption or statements, not both and not neither")
    if caption is not None:
        from cinecap.language.decompose import decompose

        if not str(caption).strip():
            raise InputError("the caption is empty")
        return decompose(caption)
    out = []
    for i, s in enumerate(statements or [], 1):
        if isinstance(s, Statement):
            out.append(s)
            continue
        if not isinstance(s, dict) or "aspect" not in s or "value" not in s:
            raise InputError(f"statement {i}: expected an object with aspect and value")
        try:
            out.append(Statement.from_dict({"text": "", **s}))
        except (TypeError, ValueError) as e:
            raise InputError(f"statement {i}: {e}") from None
    return out


def summary(verdicts: Sequence[Verdict]) -> dict[str, int]:
    """How many statements got each verdict."""
    return {v: sum(1 for x in verdicts if x.verdict == v) for v in VERDICTS}


def analysis_of(clip: str | Path, progress=None) -> dict:
    """The clip's analysis as the anchors captioner makes it (its config, its detectors), as the
    ``analyze --json`` dict."""
    from cinecap.captioners.anchors import AnchorsCaptioner

    return AnchorsCaptioner().analyse(clip, progress).to_dict()


def verify_clip(clip: str | Path, statements: Sequence[Statement],
                analysis: dict | None = None, config: VerifyConfig | None = None,
                progress=None) -> tuple[dict, list[Verdict]]:
    """Analyse ``clip`` (unless its ``analysis`` is given) and verify ``statements``."""
    an = analysis if analysis is not None else analysis_of(clip, progress)
    return an, verify(an, statements, config)
