"""Film-language vocabulary as data: the seven aspects, their canonical values and synonyms.

The judge, the captioners and the UI all read this module; nothing else keeps a list of film terms.
Canonical names are lower case (docs/spec/taxonomy.md, which this module must agree with). ``judge_class`` is the class the CineCap judge counts
a value as (e.g. "long shot" and "panorama" both count as "wide"); two statements of one aspect
match only when their judge classes are equal.
"""
from __future__ import annotations

from dataclasses import dataclass, field

CAMERA_MOVEMENT = "Camera Movement"
SHOT_SIZE = "Shot Size"
CAMERA_ANGLE = "Camera Angle"
DEPTH_OF_FIELD = "Depth of Field"
COMPOSITION = "Composition"
SUBJECT_ORIENTATION = "Subject Orientation"
SPECIAL_SHOTS = "Special Shots"

#: All seven aspects, in the order of the released prompt and judge (benchmark scoring).
ASPECTS: tuple[str, ...] = (
    CAMERA_MOVEMENT,
    SHOT_SIZE,
    CAMERA_ANGLE,
    DEPTH_OF_FIELD,
    COMPOSITION,
    SUBJECT_ORIENTATION,
    SPECIAL_SHOTS,
)
#: The six aspects the training reward uses (docs/spec/method.md "The task").
TRAINING_ASPECTS: tuple[str, ...] = ASPECTS[:6]


@dataclass(frozen=True)
class Value:
    """One canonical value of an aspect."""

    aspect: str
    canonical: str
    synonyms: tuple[str, ...] = ()
    dynamic: bool = False  # True: a statement of this value carries a time interval
    judge_class: str = ""  # what the judge counts it as; defaults to the canonical name
    note: str = ""
    terms: tuple[str, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        if not self.judge_class:
            object.__setattr__(self, "judge_class", self.canonical)
        object.__setattr__(self, "terms", (self.canonical, *self.synonyms))


def _v(aspect: str, canonical: str, *synonyms: str, dynamic: bool = False, judge_class: str = "",
       note: str = "") -> Value:
    return Value(aspect, canonical, tuple(synonyms), dynamic, judge_class, note)


_CM, _SS, _CA, _DF, _CO, _SO, _SP = ASPECTS

VALUES: tuple[Value, ...] = (
    # Camera Movement: every statement has an interval.
    _v(_CM, "static", "fixed", "locked-off", "locked off", "stationary camera", "static camera",
       "no camera movement", "the camera does not move", "still camera", "tripod shot", dynamic=True),
    _v(_CM, "pan left", "pans left", "panning left", "swivels left", "sweeps left", dynamic=True,
       note="rotation about the vertical axis; content moves right in frame"),
    _v(_CM, "pan right", "pans right", "panning right", "swivels right", "sweeps right", dynamic=True,
       note="rotation about the vertical axis; content moves left in frame"),
    _v(_CM, "tilt up", "tilts up", "tilting up", dynamic=True, note="content moves down in frame"),
    _v(_CM, "tilt down", "tilts down", "tilting down", dynamic=True, note="content moves up in frame"),
    _v(_CM, "roll clockwise", "rolls clockwise", "camera roll clockwise", dynamic=True,
       note="as seen by the operator; content turns counterclockwise on screen"),
    _v(_CM, "roll counterclockwise", "rolls counterclockwise", "roll anticlockwise",
       "rolls anticlockwise", dynamic=True),
    _v(_CM, "zoom in", "zooms in", "zooming in", dynamic=True,
       note="focal length change, no parallax; not a dolly"),
    _v(_CM, "zoom out", "zooms out", "zooming out", dynamic=True),
    _v(_CM, "dolly in", "push in", "pushes in", "dollies in", "moves forward", "travels toward",
       "dolly forward", dynamic=True, note="physical move along the lens axis; parallax"),
    _v(_CM, "dolly out", "pull out", "pulls out", "pulls back", "dollies out", "moves backward",
       "dolly back", dynamic=True),
    _v(_CM, "truck left", "trucks left", "trucking left", "crabs left", "moves sideways to the left",
       "lateral move left", dynamic=True, note="physical sideways move; parallax; not a pan"),
    _v(_CM, "truck right", "trucks right", "trucking right", "crabs right",
       "moves sideways to the right", "lateral move right", dynamic=True),
    _v(_CM, "pedestal up", "boom up", "booms up", "rises", "pedestals up", dynamic=True),
    _v(_CM, "pedestal down", "boom down", "booms down", "descends", "pedestals down", dynamic=True),
    _v(_CM, "crane up", "cranes up", "crane shot up", "jib up", dynamic=True),
    _v(_CM, "crane down", "cranes down", "jib down", dynamic=True),
    _v(_CM, "arc left", "arcs left", "orbits left", "circles left", dynamic=True),
    _v(_CM, "arc right", "arcs right", "orbits right", "circles right", dynamic=True),
    _v(_CM, "tracking", "tracking shot", "follows", "follow shot", "leads", "travels with",
       dynamic=True, note="the camera moves with a moving subject"),
    _v(_CM, "dolly zoom", "vertigo effect", "zolly", dynamic=True),
    _v(_CM, "handheld shake", "handheld", "shaky", "jittery", "unsteady", "camera shake",
       dynamic=True, note='"handheld" + "shake" is one statement'),
    # Shot Size (judge classes: close-up / medium close-up / medium / full / wide).
    _v(_SS, "extreme close-up", "ecu", "detail shot", "extreme closeup", judge_class="close-up"),
    _v(_SS, "close-up", "cu", "closeup", "close up", "close shot"),
    _v(_SS, "medium close-up", "mcu", "medium closeup", "chest up"),
    _v(_SS, "medium shot", "ms", "medium", "waist up", "mid shot", "mid-shot"),
    _v(_SS, "medium full shot", "cowboy shot", "knees up", "medium wide shot", "medium long shot",
       judge_class="medium full"),
    _v(_SS, "full shot", "whole body", "head to toe", "full-length shot", judge_class="full"),
    _v(_SS, "wide shot", "long shot", "ls", "establishing shot", "wide", judge_class="wide"),
    _v(_SS, "extreme wide shot", "extreme long shot", "panorama", "vista", "panoramic",
       judge_class="wide"),
    # Camera Angle.
    _v(_CA, "eye level", "eye-level", "level angle", "neutral angle"),
    # "aerial" is a high angle: the released benchmark judge's own example merges "very high /
    # from above / drone perspective" into one "high angle" claim (docs/protocol.md).
    _v(_CA, "high angle", "looking down", "high-angle", "aerial"),
    _v(_CA, "low angle", "looking up", "low-angle"),
    _v(_CA, "overhead", "bird's-eye view", "birds-eye view", "bird's eye view", "top-down",
       "from directly above"),
    _v(_CA, "worm's-eye view", "worm's eye view", "from the ground", "extreme low angle"),
    _v(_CA, "dutch angle", "canted", "tilted horizon", "oblique angle", "dutch tilt"),
    # Depth of Field.
    _v(_DF, "shallow depth of field", "bokeh", "blurred background", "subject isolated",
       "shallow focus"),
    _v(_DF, "deep focus", "deep depth of field", "everything sharp", "everything in focus"),
    _v(_DF, "ultra-shallow depth of field", "ultra-shallow", "razor-thin focus"),
    _v(_DF, "focus on foreground", "foreground in focus"),
    _v(_DF, "focus on middle ground", "middle ground in focus"),
    _v(_DF, "focus on background", "background in focus"),
    _v(_DF, "rack focus", "focus pull", "focus shift", "pulls focus", "racks focus", dynamic=True),
    _v(_DF, "focus tracking", "follow focus", dynamic=True),
    # Composition: subject position (CineCap judge).
    _v(_CO, "center", "centered", "centre", "in the middle", "central"),
    _v(_CO, "left", "left side of the frame", "frame left", "left third"),
    _v(_CO, "right", "right side of the frame", "frame right", "right third"),
    _v(_CO, "center-left", "left of center", "centre-left"),
    _v(_CO, "center-right", "right of center", "centre-right"),
    # Subject Orientation.
    _v(_SO, "frontal", "facing the camera", "front view", "faces the camera"),
    _v(_SO, "three-quarter", "three-quarter front", "three-quarter view", "3/4 view"),
    _v(_SO, "profile", "side view", "in profile", "front and side"),
    _v(_SO, "three-quarter back", "three-quarter rear"),
    _v(_SO, "back", "facing away", "from behind", "back to the camera", "rear view"),
    # Special Shots: only when explicitly present.
    _v(_SP, "pov", "point of view", "point-of-view", "first-person"),
    _v(_SP, "fisheye", "fish-eye"),
    _v(_SP, "slow motion", "slow-motion", "slow mo", "slow-mo"),
    _v(_SP, "fast motion", "fast-motion", "sped up", "undercranked"),
    _v(_SP, "over the shoulder", "over-the-shoulder", "ots"),
    _v(_SP, "timelapse", "time-lapse", "time lapse"),
    _v(_SP, "bullet time", "bullet-time"),
)

_BY_KEY: dict[tuple[str, str], Value] = {(v.aspect, v.canonical): v for v in VALUES}


def values_for(aspect: str) -> tuple[Value, ...]:
    """The canonical values of one aspect, in the order of docs/spec/taxonomy.md."""
    check_aspect(aspect)
    return tuple(v for v in VALUES if v.aspect == aspect)


def check_aspect(aspect: str) -> str:
    if aspect not in ASPECTS:
        raise ValueError(f"unknown aspect {aspect!r}; known: {', '.join(ASPECTS)}")
    return aspect


def get(aspect: str, canonical: str) -> Value:
    """The value with this canonical name, or ValueError naming the known ones."""
    try:
        return _BY_KEY[(check_aspect(aspect), canonical)]
    except KeyError:
        known = ", ".join(v.canonical for v in values_for(aspect))
        raise ValueError(f"unknown {aspect} value {canonical!r}; known: {known}") from None


def normalize(aspect: str, term: str) -> Value | None:
    """The value a term names exactly (canonical name or synonym, case-insensitive), else None."""
    t = " ".join(term.lower().split())
    for v in values_for(aspect):
        if t in v.terms:
            return v
    return None


def is_dynamic(aspect: str, canonical: str) -> bool:
    return get(aspect, canonical).dynamic


def as_dict() -> dict[str, list[dict]]:
    """The whole vocabulary as JSON-ready data (for docs, UI dropdowns and prompts)."""
    return {a: [{"value": v.canonical, "synonyms": list(v.synonyms), "dynamic": v.dynamic,
                 "judge_class": v.judge_class} for v in values_for(a)] for a in ASPECTS}
