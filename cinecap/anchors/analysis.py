"""One pass over a clip → all the evidence: shots, camera-motion intervals, subject, focus, angle,
composition; each item with its interval, its measurements and a confidence.

The clip is decoded once, in order (cinecap.video.iter_frames): every frame feeds the cut detector
as a tiny colour image; every n-th frame (``analysis_fps``) feeds the motion tracker as a grey image
at ``analysis_side`` px; every ``keyframe_s`` one of those also gets faces and lines (people and
sharpness wait for the shot's judgement, and are measured only where it reads them).
Everything is then cut at the shot boundaries and judged per shot. Where the evidence is weak the
analysis abstains (no finding), because a wrong statement costs more than a missing one.
"""
from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cinecap import taxonomy as tx
from cinecap.anchors import composition
from cinecap.anchors.body import (Body, BodyConfig, BodyTrack, detect_people, main_body,
                                  shot_size_for_body)
from cinecap.anchors.arc import ArcConfig, arc_from_subject, follow_subject, sweep_check_due
from cinecap.anchors.angle import (AngleConfig, angle_anchor, camera_angles, keyframe_lines,
                                   subject_angles)
from cinecap.anchors.cuts import (FADE_REASON, CutConfig, CutDetector, inside_whip_pan,
                                  shots_from_cuts, split_at_fades)
from cinecap.anchors.detectors import Detection, Detectors, FaceMark
from cinecap.anchors.drift import DriftWindow, FreshSample, drift_from_tracks
from cinecap.anchors.focus import FocusConfig, FocusFrame, block_focus, depth_of_field, rack_focus
from cinecap.anchors.motion import (MotionConfig, MotionInterval, PairMotion, PointTracker,
                                    motion_from_tracks, parallax_from_tracks, segment_shot)
from cinecap.anchors.subject import (Face, SubjectConfig, body_mask, detect_faces, main_subject,
                                     shot_size_for_face)
from cinecap.anchors.detectors import SUBJECT_CLASSES
from cinecap.anchors.subjects import (Check, SubjectsConfig, frames_nothing, judge_subjects,
                                      main_mark, subject_mask)
from cinecap.progress import Progress, no_progress
from cinecap.errors import InputError, VideoError
from cinecap.readahead import read_ahead
from cinecap.video import DecodeDamage, VideoInfo, VideoLimits, iter_frames, probe

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AnchorsConfig:
    """How densely the clip is analysed, and each analyser's own thresholds."""

    analysis_side: int = field(default=400, metadata={
        "help": "long side of the grey frames the trackers see, in pixels"})
    analysis_fps: float = field(default=8.0, metadata={
        "help": "frame pairs per second for the motion analysis"})
    keyframe_s: float = field(default=1.0, metadata={
        "help": "lines and sharpness every this many seconds"})
    face_every: int = field(default=3, metadata={
        "help": "faces on every n-th keyframe of a shot, starting with its first (Haar is the "
                "costliest step), and on every keyframe while a face is in view (3: issue 15, "
                "round 4, docs/anchors.md)"})
    parallax_s: float = field(default=0.25, metadata={
        "help": "baseline of the parallax test in seconds (short: the tracker must still follow)"})
    max_motion_for_focus: float = field(default=0.2, metadata={
        "help": "frame widths/s: keyframes under faster camera motion (blur looks like defocus) "
                "are not used for focus"})
    min_shot_s: float = field(default=0.5, metadata={
        "help": "shorter shots get camera motion only (no framing statements), seconds"})
    opencv_threads: int = field(default=1, metadata={
        "help": "OpenCV's threads while a clip is analysed (0: leave OpenCV's own setting); 1: on "
                "a few shared cores its pool's waiting costs more CPU than a second thread gains"})
    cuts: CutConfig = field(default_factory=CutConfig, metadata={"help": "shot-cut detection"})
    motion: MotionConfig = field(default_factory=MotionConfig, metadata={
        "help": "camera-motion thresholds"})
    subject: SubjectConfig = field(default_factory=SubjectConfig, metadata={
        "help": "face search and subject scale"})
    body: BodyConfig = field(default_factory=BodyConfig, metadata={
        "help": "people's bodies (OpenCV's HOG detector) where no face is found"})
    subjects: SubjectsConfig = field(default_factory=SubjectsConfig, metadata={
        "help": "subjects from the pretrained detectors (YOLOX, YuNet), where they are given"})
    focus: FocusConfig = field(default_factory=FocusConfig, metadata={
        "help": "depth of field and rack focus"})
    angle: AngleConfig = field(default_factory=AngleConfig, metadata={
        "help": "dutch, high and low angle from lines, the sky and the subject's face"})
    arc: ArcConfig = field(default_factory=ArcConfig, metadata={
        "help": "an arc from a large subject held in frame against a fast background sweep"})
    limits: VideoLimits = field(default_factory=VideoLimits, metadata={
        "help": "what a clip may be (size, duration, resolution, frame rate, pixel rate)"})

    def __post_init__(self) -> None:
        if self.analysis_side < 64:
            raise InputError("analysis_side must be at least 64 px")
        if self.face_every < 1:
            raise InputError("face_every must be at least 1")
        if self.analysis_fps <= 0 or self.keyframe_s <= 0 or self.parallax_s <= 0:
            raise InputError("analysis_fps, keyframe_s and parallax_s must be positive")
        if self.min_shot_s < 0:
            raise InputError("min_shot_s must be 0 s or more")
        if self.opencv_threads < 0:
            raise InputError("opencv_threads must be 0 (OpenCV's own setting) or more")

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Finding:
    """One piece of static evidence for one shot (shot size, orientation, focus, angle, …)."""

    aspect: str
    value: str
    shot: int
    t_start: float
    t_end: float
    confidence: float
    anchor: str  # the spatial anchor in words a person can check
    measurements: dict = field(default_factory=dict)
    subject: str | None = None
    dynamic: bool = False  # True when the interval is the event's own (rack focus)

    def __post_init__(self) -> None:
        tx.get(self.aspect, self.value)

    def to_dict(self) -> dict:
        return {"shot": self.shot, "value": self.value, "t_start": round(self.t_start, 3),
                "t_end": round(self.t_end, 3), "confidence": round(self.confidence, 3),
                "anchor": self.anchor, "subject": self.subject, "dynamic": self.dynamic,
                "measurements": _jsonable(self.measurements)}


@dataclass
class KeyFrame:
    t: float
    faces: list[Face] | None  # None: not checked for faces
    measured_lines: dict | None  # ``lines``, None until first read
    #: Block sharpness, measured only where a judgement reads it (a keyframe of a shot long
    #: enough to be framed, taken while the camera was slow enough); None elsewhere.
    focus: FocusFrame | None
    gray: np.ndarray | None = field(default=None, repr=False)  # the analysed grey image
    #: People (HOG), searched only where a judgement reads them: a shot's body check, in a shot
    #: long enough to be framed where no face is the subject. None: not checked.
    bodies: list[Body] | None = None
    body_check: bool = False  # a body check is due here (the shot's first face check, or a turn)
    #: The pretrained detectors' boxes (YOLOX subjects, YuNet faces); None: not looked at.
    dets: list[Detection] | None = None
    marks: list[FaceMark] | None = None
    #: The frame's height in px as the face detector saw it (for "a face would be found here").
    det_height: int = 0
    angle: AngleConfig = field(default_factory=AngleConfig, repr=False)

    @property
    def lines(self) -> dict:
        """Lines and sky (``angle.keyframe_lines``), measured when first read (by a framed shot)."""
        if self.measured_lines is None:
            self.measured_lines = keyframe_lines(self.gray, self.angle)
        return self.measured_lines


@dataclass
class Analysis:
    info: VideoInfo
    shots: list[tuple[float, float]]
    cut_scores: list[float]
    camera_motion: list[tuple[int, MotionInterval]]
    findings: list[Finding]
    subjects: dict[int, dict]
    keyframes: list[KeyFrame] = field(repr=False, default_factory=list)
    pairs: list[PairMotion] = field(repr=False, default_factory=list)
    seconds: float = 0.0
    frames_decoded: int = 0
    frames_analysed: int = 0
    config: AnchorsConfig = field(default_factory=AnchorsConfig, repr=False)
    damage: DecodeDamage | None = None  # set when only the start of the clip could be decoded
    warnings: list[str] = field(default_factory=list)
    #: Which detectors saw the clip and which files were missing (``Detectors.names()``).
    detectors: dict = field(default_factory=lambda: {"objects": None, "faces": None, "missing": []})
    tracks: dict[int, list[dict]] = field(default_factory=dict)  # per shot, every subject track

    def by_aspect(self, aspect: str) -> list[Finding]:
        return [f for f in self.findings if f.aspect == aspect]

    def shot_of(self, t: float) -> int:
        for i, (a, b) in enumerate(self.shots):
            if a <= t < b:
                return i
        return len(self.shots) - 1

    def to_dict(self) -> dict[str, Any]:
        """The ``analyze --json`` contract (docs/architecture.md): times in seconds."""
        def items(aspect: str) -> list[dict]:
            return [f.to_dict() for f in self.by_aspect(aspect)]

        return {
            "duration": round(self.info.duration, 3),
            "fps": round(self.info.fps, 3),
            "width": self.info.width,
            "height": self.info.height,
            "shots": [{"t_start": round(a, 3), "t_end": round(b, 3)} for a, b in self.shots],
            "cuts": [{"t": round(b, 3), "score": round(s, 2)}
                     for (_, b), s in zip(self.shots[:-1], self.cut_scores)],
            "camera_motion": [{**m.to_dict(), "shot": i} for i, m in self.camera_motion],
            "shot_size": items(tx.SHOT_SIZE),
            "subject_orientation": items(tx.SUBJECT_ORIENTATION),
            "depth_of_field": items(tx.DEPTH_OF_FIELD),
            "camera_angle": items(tx.CAMERA_ANGLE),
            "composition": items(tx.COMPOSITION),
            "subjects": [{"shot": i, **s} for i, s in sorted(self.subjects.items())],
            "tracks": [{"shot": i, **t} for i, ts in sorted(self.tracks.items()) for t in ts],
            "detectors": dict(self.detectors),
            "unreadable": (None if self.damage is None else {
                "t_start": round(self.damage.readable_until, 3), "t_end": round(self.info.duration, 3),
                "frames_decoded": self.damage.decoded, "frames_expected": self.damage.expected,
                "reason": self.damage.reason}),
            "warnings": list(self.warnings),
            "analysis": {"seconds": round(self.seconds, 3), "frames_decoded": self.frames_decoded,
                         "frames_analysed": self.frames_analysed, "keyframes": len(self.keyframes),
                         "backend": "pyav", "codec": self.info.codec},
        }


def _jsonable(d: Any) -> Any:
    if isinstance(d, dict):
        return {k: _jsonable(v) for k, v in d.items()}
    if isinstance(d, (list, tuple)):
        return [_jsonable(v) for v in d]
    if isinstance(d, np.generic):
        return d.item()
    return d


def analyze(path: str | Path, progress: Progress | None = None,
            config: AnchorsConfig | None = None, detectors: Detectors | None = None) -> Analysis:
    """Analyse a clip. Raises VideoError for a bad clip.

    ``detectors`` (:func:`cinecap.anchors.detectors.load_detectors`): the pretrained subject
    detectors; without them (None, or files missing) the subject comes from the Haar cascades
    and HOG alone. YOLOX stands in for HOG and YuNet for the cascades where they are given."""
    cfg = config or AnchorsConfig()
    if cfg.opencv_threads == 0:
        return _analyze(path, progress, cfg, detectors)
    import cv2

    before = cv2.getNumThreads()
    cv2.setNumThreads(cfg.opencv_threads)
    try:
        return _analyze(path, progress, cfg, detectors)
    finally:
        cv2.setNumThreads(before)


def _analyze(path: str | Path, progress: Progress | None, cfg: AnchorsConfig,
             detectors: Detectors | None) -> Analysis:
    dets_on = detectors if detectors is not None and detectors.any else None
    yolox = dets_on.objects if dets_on else None
    yunet = dets_on.faces if dets_on else None
    progress = progress or no_progress
    t_begin = time.perf_counter()
    info = probe(path, cfg.limits)
    log.info("analysing %s (%.1f s, %dx%d, %.2f fps) with %s", path, info.duration, info.width,
             info.height, info.fps, cfg)
    step = max(1, int(round(info.fps / cfg.analysis_fps)))
    kf_every = max(1, int(round(cfg.keyframe_s * info.fps / step)))
    par_lag = max(1, int(round(cfg.parallax_s * info.fps / step)))
    drift_lag = max(par_lag, int(round(cfg.motion.drift_s * info.fps / step)))
    drift: list[DriftWindow] = []
    cutdet = CutDetector(info.fps, cfg.cuts)
    pairs: list[PairMotion] = []
    keyframes: list[KeyFrame] = []
    parallax: list[tuple[float, float, float]] = []  # (t_old, t_new, error px)
    tracker = PointTracker(cfg.motion, history=drift_lag)
    sample = FreshSample(cfg.motion, drift_lag)  # a slow shift's depth, on content entering
    prev = None
    mask = None
    kept = decoded = 0
    since_kf = kf_every  # kept frames since the last keyframe; a keyframe comes first
    cuts_seen = 0
    unframed = False
    face_in_view = False
    face_checks = 0
    empty_checks = 0  # face checks of the current shot that found no face
    kf_in_shot = 0  # keyframes of the current shot so far
    det_gap = 0  # keyframes since the detectors last looked, in this shot
    shot_checks: list[tuple[float, float]] = []  # this shot's checks: (t, tallest subject box)
    sweeps: list[tuple[float, list[Detection]]] = []  # second looks for the arc rule alone
    damage = DecodeDamage()
    frames = iter_frames(path, max_side=cfg.analysis_side, step=step,
                         small_side=cfg.cuts.small_side, info=info, damage=damage)
    for fr in read_ahead(frames):  # decoded on another core while this loop works
        decoded += 1
        cutdet.push(fr.index, fr.small_bgr)
        if fr.gray is None:
            continue
        tracked = tracker.step(fr.gray, mask)
        if prev is not None and tracked is not None:
            prior = tracker.prior if cfg.motion.background_memory > 0 else None
            keep = _outside(tracked[0], mask, cfg.motion.min_points) if dets_on else None
            if keep is not None:
                # The mask keeps new corners off the subjects; points tracked onto one before
                # it was seen leave the camera fit too (they move with the subject).
                tracked = (tracked[0][keep], tracked[1][keep])
                prior = prior[keep] if prior is not None and len(prior) == len(keep) else prior
            pm = motion_from_tracks(*tracked, fr.gray.shape, prev.t, fr.t, cfg.motion, prior)
            pairs.append(pm)
            if pm.valid:
                inl = pm.inlier_mask
                if keep is not None and inl is not None:
                    inl = np.zeros(len(keep), bool)
                    inl[keep] = pm.inlier_mask
                tracker.feedback(inl)
        found = cutdet.boundaries
        if len(found) > cuts_seen:  # a new shot: look at it now, even if it is short
            cuts_seen = len(found)
            # A shot the clip's end leaves too short to frame: its framing is never judged.
            unframed = info.duration - found[-1] / info.fps < cfg.min_shot_s
            since_kf = kf_every
            kf_in_shot = empty_checks = 0
            mask = None  # the last shot's subject is not in this one
            shot_checks = []
            tracker.reset()  # nor are its tracked points
            sample.reset()
        if since_kf >= kf_every:
            since_kf = 0
            faces = None
            # Faces are the costliest check: the shot's first keyframe, then every face_every-th
            # one of the shot, and every keyframe while a face is in view (so a subject is
            # confirmed quickly).
            # Where no face is in view, the profile search and the body search take turns (each
            # costs a full pass): the profile cascade on the shot's first check, HOG on the next.
            # The shot's first check gets both: a short shot may have no second one, and its
            # framing is then all that check can give.
            body_check = False
            dets = marks = None
            det_h = 0
            if dets_on is not None and not unframed:
                det_gap += 1
                # The shot's first keyframe, then every detect_every-th; every one in between
                # too once two detections show the boxes changing (a subject walking in).
                if kf_in_shot == 0 or det_gap >= cfg.subjects.detect_every \
                        or _boxes_change(keyframes[len(keyframes) - kf_in_shot:]):
                    bgr = fr.to_bgr() if fr.to_bgr is not None else _gray_bgr(fr.gray)
                    dets, person = (yolox.detect_with_peak(bgr, dets_on.config)
                                    if yolox is not None else ([], 1.0))
                    # No trace of a person: no face to find (YuNet costs a third of a check).
                    marks = (yunet.detect(bgr, dets_on.config)
                             if yunet is not None and person >= dets_on.config.face_gate else [])
                    if yunet is not None and dets:
                        marks += yunet.detect_heads(bgr, dets, marks, dets_on.config)
                    det_h = max(bgr.shape[0], int(round(
                        bgr.shape[0] * dets_on.config.face_side / max(bgr.shape[:2]))))
                    det_gap = 0
                    shot_checks.append((fr.t, max((d.h for d in dets if d.label in SUBJECT_CLASSES),
                                                  default=0.0)))
                    mask = subject_mask([d for d in dets if d.label in SUBJECT_CLASSES]
                                        + [_face_box(m) for m in marks], fr.gray.shape,
                                        cfg.subjects.max_hidden)
            # YuNet stands in for the Haar cascades (faces with landmarks), YOLOX for HOG.
            if yunet is None and (kf_in_shot % cfg.face_every == 0 or face_in_view):
                if face_in_view or empty_checks % 2 == 0:
                    side = ("left",) if face_checks % 2 == 0 else ("right",)
                else:
                    side = ()
                faces = detect_faces(fr.gray, cfg.subject, side)
                face_checks += 1
                if dets_on is None:
                    mask = body_mask(faces, fr.gray.shape)
                face_in_view = bool(faces)
                if not faces and yolox is None:
                    # The body search itself waits for the shot's judgement (_judge_shot): it
                    # reads the bodies only where no face is the shot's subject, on a shot long
                    # enough to be framed, and nothing in this pass depends on them.
                    body_check = not side or kf_in_shot == 0
                    empty_checks += 1
            kf_in_shot += 1
            keyframes.append(KeyFrame(fr.t, faces, None, None, fr.gray, body_check=body_check,
                                      dets=dets, marks=marks, det_height=det_h, angle=cfg.angle))
        elif yolox is not None and len(shot_checks) == 1 and sweep_check_due(
                shot_checks[0], fr.t, pairs[-kf_every:], cfg.arc, cfg.keyframe_s / 2):
            # A short shot gets one check, which cannot show a subject holding its place
            # against a sweep: one more look, read by the arc rule alone.
            bgr = fr.to_bgr() if fr.to_bgr is not None else _gray_bgr(fr.gray)
            sweeps.append((fr.t, yolox.detect_with_peak(bgr, dets_on.config)[0]))
            shot_checks.append((fr.t, 0.0))
        if kept % par_lag == 0:
            tracks = tracker.tracks_over(par_lag)  # points followed over the parallax baseline
            pe = parallax_from_tracks(*tracks, fr.gray.shape, cfg.motion) if tracks else None
            if pe is not None:
                parallax.append((fr.t - par_lag * step / info.fps, fr.t, pe[0]))
        if (fw := sample.step(fr.gray, fr.t, mask)) is not None:
            drift.append(fw)
        if kept % max(1, drift_lag // 2) == 0 and (tracks := tracker.tracks_over(drift_lag)):
            dw = drift_from_tracks(*tracks, fr.gray.shape, fr.t - drift_lag * step / info.fps, fr.t,
                                   cfg.motion)
            if dw is not None:
                drift.append(dw)
                sample.consider(dw, fr.gray, fr.t, mask)
        prev = fr
        kept += 1
        since_kf += 1
        if kept % 25 == 0:
            progress(min(0.95, fr.t / max(info.duration, 1e-6)), f"analysed {fr.t:.1f} s")

    if (fw := sample.finish()) is not None:  # the clip's end: the part it followed
        drift.append(fw)
    end = info.duration
    warnings = []
    if damage.damaged:
        # Analyse what decoded; say which part could not be read.
        if kept < 4:
            raise VideoError(f"{path}: only {damage.decoded} of {damage.expected} frames could be "
                             f"decoded, too few to analyse; the file is damaged or truncated")
        end = min(info.duration, damage.readable_until)
        warnings.append(damage.message(info.duration))
        log.warning("%s: %s", path, warnings[-1])
    # A fade's flat frames lose every tracked point, which the whip-pan test reads as blur; a cut
    # the detector's frames show inside a sweep is judged on more than the tracker's sweep.
    judged = {f / info.fps for f in cutdet.fade_cuts + cutdet.swept_cuts}
    cut_times = [t for t in cutdet.cut_times() if t < end
                 and (t in judged or not inside_whip_pan(t, pairs))]
    shots = shots_from_cuts(cut_times, end)
    cut_scores = [cutdet.scores.get(int(round(t * info.fps)), 0.0) for t in cut_times]
    analysis = Analysis(info=info, shots=shots, cut_scores=cut_scores, camera_motion=[],
                        findings=[], subjects={}, keyframes=keyframes, pairs=pairs,
                        frames_decoded=decoded, frames_analysed=kept, config=cfg,
                        damage=damage if damage.damaged else None, warnings=warnings)
    if detectors is not None:
        analysis.detectors = detectors.names()
    spans = cutdet.fade_spans()
    for i, (s0, s1) in enumerate(shots):
        _judge_shot(analysis, i, s0, s1, pairs, keyframes, parallax, cfg, drift, spans,
                    [w for w in sweeps if s0 <= w[0] < s1])
    analysis.seconds = time.perf_counter() - t_begin
    progress(1.0, f"analysed {len(shots)} shot(s) in {analysis.seconds:.1f} s")
    return analysis


def _judge_shot(an: Analysis, i: int, s0: float, s1: float, pairs: list[PairMotion],
                keyframes: list[KeyFrame], parallax, cfg: AnchorsConfig,
                drift: list[DriftWindow] = (), fades: list[tuple[float, float]] = (),
                sweeps: list[tuple[float, list[Detection]]] = ()) -> None:
    # A fade scales the picture's contrast from frame to frame, which the tracker reads as
    # motion: its stretch of the shot holds no evidence of the camera's.
    for a0, a1, in_fade in split_at_fades(s0, s1, list(fades), cfg.motion.min_segment_s):
        if in_fade:
            m = MotionInterval(a0, a1, [], 0.0, 0.0, {"reason": FADE_REASON}, abstained=True)
            an.camera_motion.append((i, m))
            continue
        inside = [p for p in pairs if a0 <= p.t0 and p.t1 <= a1]
        par = [(0.5 * (a + b), e) for a, b, e in parallax if a0 <= a and b <= a1]
        drift_in = [d for d in drift if a0 <= d.t0 and d.t1 <= a1]
        for m in segment_shot(inside, a0, a1, cfg.motion, par, drift_in):
            an.camera_motion.append((i, m))
    kfs = [k for k in keyframes if s0 <= k.t < s1]
    if not kfs or s1 - s0 < cfg.min_shot_s:  # a flash of a shot: too little to judge its framing
        return

    def add(aspect, value, conf, anchor, meas, subject=None, t0=s0, t1=s1, dynamic=False):
        an.findings.append(Finding(aspect, value, i, t0, t1, float(conf), anchor, meas, subject, dynamic))

    checks = [Check(k.t, k.dets, k.marks or [], k.det_height) for k in kfs if k.dets is not None]
    subj = None
    if checks:
        # The detectors saw this shot: its subject is theirs (people, animals, vehicles).
        claims, summary, tracks = judge_subjects(checks, s0, s1, cfg.subjects,
                                                 an.info.width / max(1, an.info.height))
        an.tracks[i] = [t.to_dict() for t in tracks]
        if summary is not None:
            an.subjects[i] = summary
            # The second look stands in for a check the shot did not get, never beside them.
            seen = summary["sightings_at"]
            if sweeps and len(checks) < cfg.arc.min_sightings:
                seen = follow_subject(summary, list(sweeps))
            for j, (shot, m) in enumerate(an.camera_motion):
                arc = arc_from_subject(m, seen, cfg.arc) if shot == i else None
                if arc is not None:
                    an.camera_motion[j] = (i, arc)
        for c in claims:
            add(c.aspect, c.value, c.confidence, c.anchor, c.measurements, c.subject,
                c.t_start, c.t_end)
        if summary is not None and summary["face_box"] is not None:
            # The focus judgement compares the subject's sharpness with the background's: the
            # face is what a lens is focused on, not the whole body's box.
            subj = _Box(tuple(summary["face_box"]))
    else:
        # The subject: the main face of the shot.
        subj = main_subject([k.faces for k in kfs if k.faces is not None], cfg.subject)
    who = None
    if not checks and subj is not None:
        x, y, w, h = subj.box
        who = "the person"
        an.subjects[i] = {"box": [round(v, 4) for v in subj.box], "seen_share": round(subj.share, 3),
                          "orientations": dict(subj.kinds), "source": "face"}
        size = shot_size_for_face(h)
        add(tx.SHOT_SIZE, size, 0.45 + 0.4 * subj.share,
            f"the face fills {h:.0%} of the frame height",
            {"face_height": round(h, 4), "seen_share": round(subj.share, 3)}, who)
        kind, side, agree = subj.orientation
        if agree >= 0.6:
            facing = f", facing {side}" if side else ""
            add(tx.SUBJECT_ORIENTATION, kind, 0.4 + 0.4 * agree * subj.share,
                f"the {'profile' if kind == 'profile' else 'frontal'} face detector fires on "
                f"{agree:.0%} of the face sightings{facing}",
                {"detections": dict(subj.kinds), "facing": side}, who)
        cx = x + w / 2
        pos = composition.position_for(cx)
        add(tx.COMPOSITION, pos, min(0.9, 0.5 + 3 * composition.margin(cx)) * min(1.0, subj.share + 0.3),
            f"the face centre sits at {cx:.0%} of the frame width",
            {"subject_center_x": round(cx, 4), "subject_center_y": round(y + h / 2, 4)}, who)

    body = None
    if subj is None and not checks:
        # No face: a person's body (HOG), seen on enough of the keyframes checked for one.
        body = _shot_body([k for k in kfs if k.body_check], cfg.body)
    if body is not None:
        x, y, w, h = body.box
        who = "the person"
        an.subjects[i] = {"box": [round(v, 4) for v in body.box], "seen_share": round(body.share, 3),
                          "source": "body"}
        size = shot_size_for_body(body.box, cfg.body)
        if size is not None:
            add(tx.SHOT_SIZE, size, 0.45 + 0.35 * body.share,
                f"a whole person fills {h:.0%} of the frame height",
                {"body_height": round(h, 4), "seen_share": round(body.share, 3)}, who)
        cx = x + w / 2
        add(tx.COMPOSITION, composition.position_for(cx),
            min(0.9, 0.5 + 3 * composition.margin(cx)) * min(1.0, body.share + 0.3),
            f"the person's body is centred at {cx:.0%} of the frame width",
            {"subject_center_x": round(cx, 4), "subject_center_y": round(y + h / 2, 4)}, who)

    # Depth of field, from keyframes the camera was not sweeping through.
    still = [k for k in kfs if _camera_speed_at(an.camera_motion, i, k.t) <= cfg.max_motion_for_focus]
    for k in still:  # sharpness is measured only on the keyframes read here
        if k.focus is None:
            k.focus = FocusFrame(k.t, *block_focus(k.gray, cfg.focus))
    if still:
        box = subj.box if subj is not None else None
        dof = depth_of_field([k.focus for k in still], cfg.focus, box)
        if dof is not None:
            if dof.value == "shallow depth of field":
                anchor = (f"the subject is sharp ({dof.measurements['subject_to_background']:.1f}x "
                          f"the background) while the background is soft"
                          if "subject_to_background" in dof.measurements else
                          f"{dof.measurements['defocus_share']:.0%} of textured regions are soft, "
                          f"{dof.measurements['sharp_share']:.0%} sharp")
            else:
                anchor = f"only {dof.measurements['soft_share']:.0%} of textured regions are soft"
            add(tx.DEPTH_OF_FIELD, dof.value, dof.confidence, anchor, dof.measurements)
        rack = (rack_focus([k.focus for k in still], cfg.focus, [k.gray for k in still])
                if len(still) == len(kfs) else None)
        if rack is not None:
            add(tx.DEPTH_OF_FIELD, "rack focus", rack.confidence,
                f"{rack.measurements['regions_sharpening']} regions sharpen while "
                f"{rack.measurements['regions_softening']} go soft",
                rack.measurements, t0=rack.t_start, t1=rack.t_end, dynamic=True)

    if checks and i not in an.subjects and frames_nothing(checks) and s1 - s0 >= 1.5 and not any(
            f.shot == i and f.aspect == tx.DEPTH_OF_FIELD and f.value != "deep focus"
            for f in an.findings) and np.median([float(k.gray.std()) for k in kfs]) >= 12:
        # Nothing near the camera on any check, no soft background that would make it a close
        # view of something the detectors do not know, and a scene to see (not a flat frame):
        # a wide view.
        add(tx.SHOT_SIZE, "wide shot", 0.55 + 0.05 * min(4, len(checks)),
            f"no subject or object fills over 3% of the frame on {len(checks)} detector checks",
            {"checks": len(checks)})

    # Camera angle from lines; where they say nothing, from the sky and the subject's face.
    from_lines = camera_angles([k.lines for k in kfs], cfg.angle)
    main_face = (an.subjects.get(i) or {}).get("face_box") if checks else None
    for af in from_lines + subject_angles(
            [{"t": k.t, **k.lines, "checked": k.dets is not None,
              "face": main_mark(k.marks, main_face)} for k in kfs], s0, s1, cfg.angle, from_lines):
        add(tx.CAMERA_ANGLE, af.value, af.confidence, angle_anchor(af), af.measurements,
            _face_owner(an.subjects.get(i)) if af.value == "eye level" else None,
            s0 if af.t_start is None else af.t_start, s1 if af.t_end is None else af.t_end)


def _face_owner(summary: dict | None) -> str:
    """Whose face the eye level is read from: the main subject where it is a person (named as its
    other statements name it: "the person on the left" beside another), else a person."""
    if summary and summary.get("kind") == "person" and summary.get("subject"):
        return summary["subject"]
    return "the person"


@dataclass
class _Box:
    """The detector's main subject where the focus judgement reads a face subject's box."""

    box: tuple[float, float, float, float]


def _outside(pts: np.ndarray, mask: np.ndarray | None, min_points: int) -> np.ndarray | None:
    """Which tracked points lie outside the subject mask; None (use them all) without a mask or
    when too few would be left to fit (a close-up: the safeguards of the fit handle it)."""
    if mask is None or not len(pts):
        return None
    h, w = mask.shape
    # np.minimum / np.maximum: np.clip's result at a fraction of its per-call cost.
    xi = np.minimum(np.maximum(pts[:, 0].astype(int), 0), w - 1)
    yi = np.minimum(np.maximum(pts[:, 1].astype(int), 0), h - 1)
    keep = mask[yi, xi] > 0
    kept = np.count_nonzero(keep)
    if kept == len(keep) or kept < max(min_points, 0.3 * len(pts)):
        return None
    return keep


def _gray_bgr(gray: np.ndarray) -> np.ndarray:
    return np.repeat(gray[:, :, None], 3, axis=2)


def _face_box(m: FaceMark) -> Detection:
    return Detection("face", m.x, m.y, m.w, m.h, m.score, source="face")


def _boxes_change(shot_kfs: list[KeyFrame], min_iou: float = 0.6) -> bool:
    """Whether the shot's last two detections found different boxes (so the next keyframe
    should not wait); False before there are two (a short shot's judgement needs one)."""
    seen = [k.dets for k in shot_kfs if k.dets is not None][-2:]
    return len(seen) == 2 and not _same_boxes(*seen, min_iou)


def _same_boxes(a: list[Detection], b: list[Detection], min_iou: float) -> bool:
    """None both times, or each box again in its place."""
    if len(a) != len(b):
        return False
    from cinecap.anchors.subjects import iou

    return all(max((iou(d.box, e.box) for e in b if e.label == d.label), default=0.0) >= min_iou
               for d in a)


def _shot_body(checks: list[KeyFrame], cfg: BodyConfig) -> BodyTrack | None:
    """:func:`main_body` over a shot's body checks, searching them in order and stopping as
    soon as no outcome of the searches left could give a body (too few of the checks could
    still see one: ``min_hits``, and two sightings, or one clear one on a shot checked at most
    twice); the answer is the one searching them all would give."""
    n, hits = len(checks), 0
    for j, k in enumerate(checks):
        could = hits + n - j  # sightings if every search left found someone
        if could / n < cfg.min_hits or (n > 2 and could < 2):
            return None
        if k.bodies is None:
            k.bodies = detect_people(k.gray, cfg)
        hits += bool(k.bodies)
    return main_body([k.bodies for k in checks], cfg)


def _camera_speed_at(motion: list[tuple[int, MotionInterval]], shot: int, t: float) -> float:
    for i, m in motion:
        if i == shot and m.t_start <= t <= m.t_end:
            e = m.evidence
            return float(np.hypot(e.get("pan_rate", 0.0), e.get("tilt_rate", 0.0))
                         + abs(e.get("zoom_rate", 0.0)) / 2)
    return 0.0


__all__ = ["AnchorsConfig", "Analysis", "Finding", "KeyFrame", "analyze"]
