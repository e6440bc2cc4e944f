"""The ``anchors`` captioner: film language from pixel evidence on the CPU, with no weights.

The embedded default of the app. It runs :func:`cinecap.anchors.analyze`, turns each finding that
is confident enough into an atomic :class:`Statement` (aspect, canonical value, interval, the
spatial anchor in words, the measurements behind it), writes the atomic chain of thought in the
line format of docs/spec/method.md and renders the fluent caption. Where the analysis abstained, nothing is
stated (accuracy before coverage), but nothing is passed over either: a stretch of a shot that no
camera-movement statement covers is named in the caption as uncertain and returned in
``meta["uncertain"]`` for the timeline (:func:`uncertain_stretches`).
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from cinecap import config as cfg
from cinecap import taxonomy as tx
from cinecap.anchors import AnchorsConfig, Analysis, analyze
from cinecap.anchors.detectors import load_detectors, model_fingerprints
from cinecap.captioners.base import Captioner, CaptionResult
from cinecap.captioners.limits import ANCHORS_LIMITS
from cinecap.errors import CaptionerError, CinecapError, InputError
from cinecap.progress import Progress
from cinecap.statements import Statement, format_reasoning, phrase_for

log = logging.getLogger(__name__)


def _fmt_rate(x: float) -> str:
    return f"{abs(x):.2f}"


def _static(ev: dict, label: str) -> str:
    pts = ev.get("tracked_points", 0)
    if ev.get("static_first_share", 0) > 0.5:
        return f"most of {pts} tracked background points stay still while the subject moves"
    return f"{pts} tracked background points stay still"


def _shifted(ev: dict, key: str) -> str:
    """The total a slow move added up to, where the accumulated change stated it."""
    acc = ev.get("accumulated") or {}
    return (f", {abs(acc[key]):.0%} of the frame width over {acc['seconds']:.1f} s"
            if key in acc and "seconds" in acc else "")


def _layers(ev: dict) -> str:
    """The parallax behind a truck or pedestal: the accumulated one's where a still-looking
    stretch's windows stated the move (its 0.25 s parallax windows, too slow to see depth, may
    still be in the evidence), else the 0.25 s test's."""
    spread = (ev.get("accumulated") or {}).get("shift_spread")
    if spread:
        return f"near points shift {spread:.1f}x as far as far ones"
    if ev.get("parallax_px") is not None:
        return f"parallax {ev['parallax_px']:.1f} px"
    return "parallax"


def _pan(ev: dict, label: str) -> str:
    side = "right" if label == "pan left" else "left"
    return (f"the background slides {side} at {_fmt_rate(ev.get('pan_rate', 0.0))} frame widths/s"
            f"{_shifted(ev, 'pan_shift')} with no parallax")


def _truck(ev: dict, label: str) -> str:
    side = "right" if label == "truck left" else "left"
    return (f"the background slides {side} at {_fmt_rate(ev.get('pan_rate', 0.0))} frame widths/s"
            f"{_shifted(ev, 'pan_shift')} and near and far layers shift differently ({_layers(ev)})")


def _tilt(ev: dict, label: str) -> str:
    way = "down" if label == "tilt up" else "up"
    return (f"the background slides {way} at {_fmt_rate(ev.get('tilt_rate', 0.0))} frame widths/s"
            f"{_shifted(ev, 'tilt_shift')}")


def _pedestal(ev: dict, label: str) -> str:
    way = "down" if label == "pedestal up" else "up"
    return (f"the background slides {way} at {_fmt_rate(ev.get('tilt_rate', 0.0))} frame widths/s"
            f"{_shifted(ev, 'tilt_shift')} and near and far layers shift differently "
            f"({_layers(ev)})")


def _zoom(ev: dict, label: str) -> str:
    way = "expands" if label == "zoom in" else "contracts"
    acc = ev.get("accumulated") or {}
    total = (f", {abs(acc['scale_change']):.0%} over {acc['seconds']:.1f} s"
             if "scale_change" in acc else "")
    return (f"the background {way} uniformly about the centre "
            f"({abs(ev.get('zoom_rate', 0.0)) * 100:.0f}% per second{total}) with no parallax")


def _dolly(ev: dict, label: str) -> str:
    way = "expands" if label == "dolly in" else "contracts"
    acc = ev.get("accumulated") or {}
    par = ev.get("parallax_px")
    if acc.get("read_from") == "distances":  # no focus found: the points' spacing (anchors.drift)
        return (f"over {acc['seconds']:.1f} s the tracked points move "
                f"{'apart' if label == 'dolly in' else 'together'} "
                f"({abs(acc['dilation_rate']) * 100:.0f}% per second) and one scale explains only "
                f"{acc['inlier_fraction']:.0%} of them: near ones faster than far ones")
    if par is None and acc:  # read from the flow over the stretch (cinecap.anchors.drift)
        x, y = acc.get("focus_of_expansion", (0.5, 0.5))
        return (f"over {acc['seconds']:.1f} s {abs(acc['expansion_share']):.0%} of the moving "
                f"points flow {'out of' if label == 'dolly in' else 'into'} a point at "
                f"{x:.0%} across and {y:.0%} down the frame, near ones faster than far ones")
    return (f"the background {way} ({abs(ev.get('zoom_rate', 0.0)) * 100:.0f}% per second) with "
            f"parallax between near and far layers ({par:.1f} px)")


def _roll(ev: dict, label: str) -> str:
    way = "counterclockwise" if label == "roll clockwise" else "clockwise"
    acc = ev.get("accumulated") or {}
    total = (f", {abs(acc['rotation_deg']):.0f}° over {acc['seconds']:.1f} s"
             if "rotation_deg" in acc else "")
    return (f"the background turns {way} about the centre at "
            f"{abs(ev.get('roll_rate', 0.0)):.1f}° per second{total}")


def _arc(ev: dict, label: str) -> str:
    a = ev.get("arc") or {}
    side = "right" if label == "arc right" else "left"
    return (f"the subject, {a.get('subject_height', 0):.0%} of the frame tall, holds its place "
            f"on {a.get('sightings', 0)} checks while the background sweeps {side} at "
            f"{abs(a.get('pan_rate', ev.get('pan_rate', 0.0))):.2f} frame widths/s")


def _shake(ev: dict, label: str) -> str:
    return f"the frame jitters by {ev.get('jitter', 0) * 100:.1f}% of its width between frames"


#: The spatial anchor of each camera-movement label: what on screen shows it (issue 24: a table,
#: not an ``if`` chain). A label without an entry gets a generic anchor.
MOTION_ANCHORS = {
    "static": _static, "pan left": _pan, "pan right": _pan, "truck left": _truck,
    "truck right": _truck, "tilt up": _tilt, "tilt down": _tilt, "zoom in": _zoom,
    "zoom out": _zoom, "dolly in": _dolly, "dolly out": _dolly, "roll clockwise": _roll,
    "roll counterclockwise": _roll, "arc left": _arc, "arc right": _arc, "handheld shake": _shake,
    "pedestal up": _pedestal, "pedestal down": _pedestal,
}


def motion_anchor(label: str, ev: dict) -> str:
    """The spatial anchor of one camera-movement label, in words a person can check on screen."""
    anchor = MOTION_ANCHORS.get(label)
    return anchor(ev, label) if anchor is not None else "tracked background motion"


def _merge_touching(sts: list[Statement], gap: float = 0.05) -> list[Statement]:
    """One statement for a label that holds across adjacent intervals (pan left, then pan left and
    shake): the interval is their union, the evidence that of the longest part."""
    out: list[Statement] = []
    for s in sorted(sts, key=lambda s: (s.measurements.get("shot", 0), s.value, s.t_start)):
        prev = out[-1] if out else None
        if (prev is not None and prev.value == s.value and s.t_start - prev.t_end <= gap
                and prev.measurements.get("shot") == s.measurements.get("shot")):
            longest = prev if prev.t_end - prev.t_start >= s.t_end - s.t_start else s
            merged = Statement(prev.aspect, prev.value, "", prev.t_start, s.t_end, longest.evidence,
                               None, min(prev.confidence or 1, s.confidence or 1),
                               longest.measurements)
            out[-1] = merged
        else:
            out.append(s)
    return sorted(out, key=lambda s: (s.t_start, s.value))


def statements_from_analysis(an: Analysis, min_confidence: float = 0.5) -> list[Statement]:
    """Atomic statements for every finding at or above ``min_confidence``, in aspect order."""
    multi_shot = len(an.shots) > 1
    whole = an.shots[0] if an.shots else (0.0, 0.0)
    motion: list[Statement] = []
    for shot, m in an.camera_motion:
        if m.abstained or m.confidence < min_confidence:
            continue
        for label in m.movement:
            motion.append(Statement(
                tx.CAMERA_MOVEMENT, label, "", round(m.t_start, 2), round(m.t_end, 2),
                motion_anchor(label, m.evidence), None, round(m.confidence, 3),
                {**m.evidence, "steadiness": round(m.steadiness, 3), "shot": shot}))
    out = _merge_touching(motion)
    for aspect in tx.ASPECTS[1:]:
        for f in an.by_aspect(aspect):
            if f.confidence < min_confidence:
                continue
            # A finding over part of the one shot (a subject walking in at 3 s) keeps its times.
            timed = (f.dynamic or multi_shot or f.t_start > whole[0] + 0.05
                     or f.t_end < whole[1] - 0.05)
            out.append(Statement(
                aspect, f.value, "", round(f.t_start, 2) if timed else None,
                round(f.t_end, 2) if timed else None, f.anchor, f.subject, round(f.confidence, 3),
                {**f.measurements, "shot": f.shot}))
    return out


#: A stretch of a shot that no camera-movement statement covers, shorter than this, is slack
#: between two statements' boundaries rather than a part of the clip left unsaid.
UNCERTAIN_MIN_S = 0.5


def uncertain_stretches(an: Analysis, statements: list[Statement],
                        min_seconds: float = UNCERTAIN_MIN_S) -> list[dict]:
    """Per shot, the stretches (≥ ``min_seconds``) that no camera-movement statement covers: the
    analysis abstained there, or was less confident than the captioner's floor. Each is
    ``{"aspect", "t_start", "t_end", "shot", "reason"}``; the reason is the analysis's own where it
    gave one (a shot too short to measure, too few background points), else its confidence."""
    readable = an.damage.readable_until if an.damage is not None else None
    out: list[dict] = []
    for i, (s0, s1) in enumerate(an.shots):
        if readable is not None:
            s1 = min(s1, readable)
        if s1 - s0 < min_seconds:
            continue
        covered = sorted((max(s0, s.t_start), min(s1, s.t_end)) for s in statements
                         if s.aspect == tx.CAMERA_MOVEMENT and s.measurements.get("shot", 0) == i
                         and s.t_start is not None and s.t_end is not None)
        gaps, at = [], s0
        for a, b in covered:
            if a > at:
                gaps.append((at, a))
            at = max(at, b)
        if s1 > at:
            gaps.append((at, s1))
        for a, b in gaps:
            if b - a < min_seconds:
                continue
            out.append({"aspect": tx.CAMERA_MOVEMENT, "t_start": round(a, 2), "t_end": round(b, 2),
                        "shot": i, "reason": _why_uncertain(an, i, a, b)})
    return out


def _why_uncertain(an: Analysis, shot: int, a: float, b: float) -> str:
    """The analysis's reason for the motion over [a, b] of a shot, in words."""
    over = [m for i, m in an.camera_motion
            if i == shot and min(m.t_end, b) - max(m.t_start, a) > 0]
    reasons = [str(m.evidence["reason"]) for m in over if m.evidence.get("reason")]
    if reasons:
        return reasons[0]
    if over:
        best = max(over, key=lambda m: min(m.t_end, b) - max(m.t_start, a))
        guess = " and ".join(best.movement) or "no movement"
        return f"too weak to state: the best reading ({guess}) has confidence {best.confidence:.2f}"
    return "no motion could be measured here"


_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
            "eleven", "twelve")
#: Framing words: the noun phrase of a shot size, the prepositional phrase of an angle or focus.
_SIZE_NP = {"extreme close-up": "an extreme close-up", "close-up": "a close-up",
            "medium close-up": "a medium close-up", "medium shot": "a medium shot",
            "medium full shot": "a medium full shot", "full shot": "a full shot",
            "wide shot": "a wide shot", "extreme wide shot": "an extreme wide shot"}
_ANGLE_PP = {"eye level": "at eye level", "high angle": "from a high angle",
             "low angle": "from a low angle", "overhead": "from directly overhead",
             "worm's-eye view": "from a worm's-eye view", "dutch angle": "at a dutch angle"}
_FOCUS_PP = {"shallow depth of field": "with a shallow depth of field", "deep focus": "in deep focus",
             "ultra-shallow depth of field": "with an ultra-shallow depth of field",
             "rack focus": "with a rack focus"}


def _word(n: int) -> str:
    return _NUMBERS[n] if n < len(_NUMBERS) else str(n)


def _list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _framing(sts: list[Statement]) -> str:
    """"A close-up from a low angle with a shallow depth of field; the person is placed at the
    center of the frame and faces the camera." (empty when nothing is stated)."""
    def vals(aspect: str) -> list[str]:
        return list(dict.fromkeys(s.value for s in sts if s.aspect == aspect))

    size, angle, focus = vals(tx.SHOT_SIZE), vals(tx.CAMERA_ANGLE), vals(tx.DEPTH_OF_FIELD)
    pps = [_ANGLE_PP.get(v, v) for v in angle] + [_FOCUS_PP.get(v, v) for v in focus]
    if size:
        framing = " ".join([_SIZE_NP.get(size[0], size[0])] + pps)
    else:
        framing = ("filmed " + ", ".join(pps)) if pps else ""
    placed = [s for s in sts if s.aspect in (tx.COMPOSITION, tx.SUBJECT_ORIENTATION)]
    # One clause per subject (several people side by side: "the person on the left …; the person
    # on the right …"), left to right where their places were measured, then what is said of
    # them all ("each of the three people faces the camera").
    x = {s.subject: s.measurements.get("subject_center_x", 0.5) for s in reversed(placed)
         if s.aspect == tx.COMPOSITION}
    who = sorted(dict.fromkeys(s.subject for s in placed), key=lambda w: x.get(w, 2.0))
    groups = []
    for w in who:
        clauses = []
        for aspect in (tx.COMPOSITION, tx.SUBJECT_ORIENTATION):
            s = next((s for s in placed if s.aspect == aspect and s.subject == w), None)
            if s is not None:
                clauses.append(phrase_for(s.aspect, s.value, s.subject))
        if len(clauses) == 2:
            subject = clauses[0].split(" is placed")[0]
            clauses[1] = clauses[1].removeprefix(subject + " ")
        groups.append(" and ".join(clauses))
    people = "; ".join(groups)
    text = "; ".join(t for t in (framing, people) if t)
    return text[:1].upper() + text[1:] + "." if text else ""


def _movements(sts: list[Statement], uncertain: list[dict] = (),
               shot: tuple[float, float] | None = None) -> str:
    """The camera's moves in time order, compound moves joined by "and", repeats merged, handheld
    shake as a manner of the moves it comes with ("The camera pans right, then tilts down,
    handheld with visible shake") or as a step of its own where the camera does nothing else.
    The ``uncertain`` stretches take their place in the order ("…, then is static; from 3.5 to
    4.2 s its movement is uncertain; then it tilts up"); one that spans the whole ``shot`` reads
    "The camera's movement is uncertain."
    """
    def span(s: Statement) -> tuple[float, float]:
        return (s.t_start if s.t_start is not None else 0.0,
                s.t_end if s.t_end is not None else float("inf"))

    moves = sorted((s for s in sts if s.aspect == tx.CAMERA_MOVEMENT), key=lambda s: span(s)[0])
    shakes = [s for s in moves if s.value == "handheld shake"]
    moving = [s for s in moves if s.value not in ("handheld shake", "static")]

    def overlaps(a: Statement, b: Statement) -> bool:
        (a0, a1), (b0, b1) = span(a), span(b)
        return min(a1, b1) - max(a0, b0) > 0.05

    manner = any(overlaps(sh, m) for sh in shakes for m in moving)
    # A hand-held shot whose move comes part-way through (shake said over the whole shot): the
    # shake first, then when the move starts, so "dollies in, handheld" is not read as the shot.
    start = min((span(m)[0] for m in moving), default=0.0)
    lead = manner and start - min(span(sh)[0] for sh in shakes) >= UNCERTAIN_MIN_S
    steps: list[list[str] | tuple[float, float]] = []  # moves, or an uncertain (start, end)
    last_end = None
    events = sorted([(span(s)[0], 0, s) for s in moves]
                    + [(u["t_start"], 1, u) for u in uncertain], key=lambda e: (e[0], e[1]))
    for _, kind, s in events:
        if kind == 1:
            steps.append((s["t_start"], s["t_end"]))
            last_end = None
            continue
        if s.value == "handheld shake" and manner:
            continue
        t0, t1 = span(s)
        if s.value == "static" and any(overlaps(s, sh) for sh in shakes):
            continue  # a still but handheld camera: said by its shake step
        if (steps and isinstance(steps[-1], list) and last_end is not None
                and t0 < last_end - 0.05 and s.value not in steps[-1]):
            steps[-1].append(s.value)  # overlaps the previous move: a compound move
        elif not steps or steps[-1] != [s.value]:
            steps.append([s.value])
        last_end = max(last_end or 0.0, t1)
    if not steps:
        return ""
    if (len(steps) == 1 and isinstance(steps[0], tuple) and shot is not None
            and steps[0][0] <= shot[0] + 0.05 and steps[0][1] >= shot[1] - 0.05):
        return "The camera's movement is uncertain."
    last_move = max((i for i, st in enumerate(steps) if isinstance(st, list)), default=-1)
    text, prev = "", None
    if lead:
        end = max(span(m)[1] for m in moving)
        when = (f"from {start:.1f} to {end:.1f} s" if max(span(sh)[1] for sh in shakes) - end
                >= UNCERTAIN_MIN_S else f"from {start:.1f} s")
        text, prev = f"The camera is handheld with visible shake; {when} it ", "lead"
    for i, step in enumerate(steps):
        if isinstance(step, tuple):
            when = f"from {step[0]:.1f} to {step[1]:.1f} s"
            text += (f"From {step[0]:.1f} to {step[1]:.1f} s the camera's movement is uncertain"
                     if prev is None else f"; {when} its movement is uncertain")
            prev = "uncertain"
            continue
        verbs = " and ".join(phrase_for(tx.CAMERA_MOVEMENT, v).removeprefix("the camera ")
                             for v in step)
        text += {None: "The camera ", "move": ", then ", "uncertain": "; then it ",
                 "lead": ""}[prev] + verbs
        if manner and not lead and i == last_move:
            text += ", handheld with visible shake"
        prev = "move"
    return text + "."


def render_by_shot(an: Analysis, statements: list[Statement],
                   uncertain: list[dict] | None = None) -> str:
    """The caption, grouped by shot: per shot its framing (size, angle, focus, composition,
    orientation), then its camera moves in order, with the stretches whose movement is uncertain
    (default: :func:`uncertain_stretches`) in their place. The exact intervals stay in the
    statements."""
    if uncertain is None:
        uncertain = uncertain_stretches(an, statements)
    multi = len(an.shots) > 1
    out = []
    if multi:
        cuts = _list([f"{b:.1f}" for _, b in an.shots[:-1]])
        out.append(f"{_word(len(an.shots)).capitalize()} shots, cut at {cuts} s.")
    for i, (s0, s1) in enumerate(an.shots):
        sts = [s for s in statements if s.measurements.get("shot", 0) == i]
        unsure = [u for u in uncertain if u["shot"] == i]
        if not sts:
            unsure = []  # a shot with nothing certain says so in one sentence (below)
        body = " ".join(t for t in (_framing(sts), _movements(sts, unsure, (s0, s1))) if t)
        if not multi:
            out.append(body)
            continue
        # A shot of a frame or two (a cut just before the clip ends) keeps two decimals, so
        # that its span does not read "3.4–3.4 s".
        digits = 1 if f"{s0:.1f}" != f"{s1:.1f}" else 2
        out.append(f"Shot {i + 1} ({s0:.{digits}f}–{s1:.{digits}f} s): "
                   + (body[:1].lower() + body[1:] if body else
                      "nothing about it is certain enough to state."))
    if an.damage is not None:
        out.append(f"The rest of the clip, from {an.damage.readable_until:.1f} s, could not be "
                   f"decoded.")
    return " ".join(t for t in out if t)


@dataclass(frozen=True)
class AnchorsCaptionerConfig:
    """What the anchors captioner states, and how the clip is analysed."""

    min_confidence: float = field(default=0.5, metadata={
        "help": "state only findings at least this confident (0-1): accuracy before coverage"})
    analysis: AnchorsConfig = field(default_factory=AnchorsConfig, metadata={
        "help": "how densely the clip is analysed and each analyser's thresholds "
                "(cinecap.anchors.AnchorsConfig)"})
    yolox: str = field(default="auto", metadata={
        "help": "YOLOX-Nano ONNX file for people, animals and vehicles: a path, 'auto' (found "
                "where the project keeps it) or 'none' (the Haar/HOG subject only)"})
    yunet: str = field(default="auto", metadata={
        "help": "YuNet face ONNX file (faces and landmarks): a path, 'auto' or 'none'"})

    def __post_init__(self) -> None:
        v = self.min_confidence
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
            raise InputError(f"min_confidence must be in [0, 1], got {v!r}")
        if not isinstance(self.analysis, AnchorsConfig):
            raise InputError("analysis must be a cinecap.anchors.AnchorsConfig")
        for name in ("yolox", "yunet"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise InputError(f"{name} must be a path, 'auto' or 'none'")


class AnchorsCaptioner(Captioner):
    """Captions from spatio-temporal anchors computed on the CPU; no model, no download."""

    name = "anchors"
    config_class = AnchorsCaptionerConfig

    @classmethod
    def availability(cls, **options):
        """Always runs; the reason, when set, says which detector files are missing and how to
        fetch them (cinecap.pretrained): the analysis runs without them."""
        from cinecap import pretrained
        from cinecap.registry import Availability

        return Availability(True, pretrained.status_line() or "")

    def protocol(self) -> dict[str, str]:
        """The anchors read the clip densely (``cinecap.video.iter_frames``); nothing is decoded
        by a model."""
        return {"sampling": "anchors", "decoding": "none"}

    def __init__(self, config: AnchorsCaptionerConfig | None = None, **options):
        """``AnchorsCaptioner(min_confidence=…)``: options are :class:`AnchorsCaptionerConfig`
        fields; or pass a ready ``config``."""
        if config is not None and options:
            raise InputError("give the anchors captioner a config or options, not both")
        if config is None:
            cfg.check_options("anchors captioner", cfg.option_names(AnchorsCaptionerConfig),
                              options)
            config = AnchorsCaptionerConfig(**options)
        self.config = config
        self.min_confidence = config.min_confidence

        def given(v: str):
            return None if v.lower() == "none" else v

        self._detectors = load_detectors(given(config.yolox), given(config.yunet))
        # Public, so the example cache's key (ui/usecases/examples.py hashes a captioner's public
        # attributes) follows the model files: a file added, removed or changed re-captions.
        self.model_files = model_fingerprints(self._detectors)

    def analyse(self, clip: str | Path, progress: Progress | None = None) -> Analysis:
        """The clip's analysis as this captioner makes it: its config and its detectors (what
        ``cinecap.verify`` checks any caption against)."""
        return analyze(clip, progress, self.config.analysis, self._detectors)

    def caption(self, clip: str | Path, progress: Progress | None = None) -> CaptionResult:
        t0 = time.perf_counter()
        try:
            an = self.analyse(clip, progress)
        except CinecapError:
            raise
        except Exception as e:  # a bug or a native error inside OpenCV: say so, clip by name
            log.exception("anchors analysis failed on %s", clip)
            raise CaptionerError(f"the anchors analysis failed on {clip}: {e}") from e
        sts = statements_from_analysis(an, self.min_confidence)
        warnings = []
        if not sts:
            warnings.append("the evidence was too weak on every aspect: nothing is stated")
        warnings += an.warnings
        warnings += [f"subject detector missing: {m}" for m in self._detectors.missing]
        uncertain = uncertain_stretches(an, sts)
        caption = render_by_shot(an, sts, uncertain)
        return CaptionResult(
            caption=caption, reasoning=format_reasoning(sts), statements=sts, captioner=self.name,
            seconds=round(time.perf_counter() - t0, 3), warnings=warnings,
            meta={"min_confidence": self.min_confidence, "shots": len(an.shots),
                  "analysis_seconds": round(an.seconds, 3), "uncertain": uncertain,
                  "detectors": self._detectors.names(), "limits": ANCHORS_LIMITS},
            evidence=an.to_dict(), analysis=an)


def evidence_overlays(path: str | Path, analysis: Analysis | None = None,
                      config: AnchorsConfig | None = None) -> list[tuple[str, np.ndarray]]:
    """Evidence images for the UI: per shot, its middle frame with the tracked background vectors,
    the subject boxes, a sharpness heat map and the horizon/lines. RGB uint8 at the analysis size.

    Pass the :class:`Analysis` a caption was made from (its ``CaptionResult.analysis``) to avoid
    analysing the clip again.
    """
    from cinecap.anchors.overlays import overlay_time, shot_overlays
    from cinecap.video import sample_frames

    an = analysis if isinstance(analysis, Analysis) else analyze(path, None, config,
                                                                  load_detectors())
    out: list[tuple[str, np.ndarray]] = []
    for i, (s0, s1) in enumerate(an.shots):
        t = overlay_time(an, i)
        fr = sample_frames(path, fps=1.0, min_frames=1, max_frames=1, start=max(0.0, t - 0.02),
                           end=t + 0.02, max_side=an.config.analysis_side, limits=an.config.limits)
        out.extend(shot_overlays(an, i, fr.frames[0], t))
    return out


__all__ = ["AnchorsCaptioner", "AnchorsCaptionerConfig", "evidence_overlays", "motion_anchor",
           "render_by_shot", "statements_from_analysis", "uncertain_stretches"]
