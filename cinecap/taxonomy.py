"""Film-language vocabulary as data: the seven aspects, their canonical values and synonyms.

The values live in ``cinecap/taxonomy.toml``, read once here; the judge, the captioners and the
UI all read this module (the rules judge its phrasings too); nothing else keeps a list of film
terms. Canonical names are lower case (docs/spec/taxonomy.md, which this module must agree
with). ``judge_class`` is the class the CineCap judge counts a value as (e.g. "long shot" and
"panorama" both count as "wide"); two statements of one aspect match only when their judge
classes are equal.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

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
    """One canonical value of an aspect (its entry in ``cinecap/taxonomy.toml``)."""

    aspect: str
    canonical: str
    synonyms: tuple[str, ...] = ()
    dynamic: bool = False  # True: a statement of this value carries a time interval
    judge_class: str = ""  # what the judge counts it as; defaults to the canonical name
    note: str = ""
    # Only the rules judge reads these three: its further wordings, the terms it counts only when
    # the camera does them, and the terms it never counts alone (cinecap/language/data.py).
    phrasings: tuple[str, ...] = ()
    camera_only: tuple[str, ...] = ()
    not_alone: tuple[str, ...] = ()
    terms: tuple[str, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        if not self.judge_class:
            object.__setattr__(self, "judge_class", self.canonical)
        object.__setattr__(self, "terms", (self.canonical, *self.synonyms))

    @property
    def judge_terms(self) -> tuple[str, ...]:
        """Every literal term the rules judge reads as this value (before its verb inflections)."""
        return (*self.terms, *self.phrasings)


#: The vocabulary's one source: this module and the rules judge read it.
TABLE = Path(__file__).with_suffix(".toml")
_KEYS = {"dynamic", "judge_class", "note", "synonyms", "phrasings", "camera_only", "not_alone"}


def _load(path: Path) -> tuple[Value, ...]:
    """The values of the vocabulary table, in its order; a malformed entry is a ValueError naming
    it (the file ships with the package, so this guards edits, not users)."""
    with open(path, "rb") as f:
        raw = tomllib.load(f)
    by_slug = {a.lower().replace(" ", "_"): a for a in ASPECTS}
    if list(raw) != list(by_slug):
        raise ValueError(f"{path.name}: the aspects must be {', '.join(by_slug)} in this order, "
                         f"not {', '.join(raw)}")
    out = []
    for slug, entries in raw.items():
        for canonical, e in entries.items():
            where = f"{path.name}: [{slug}.{canonical}]"
            if set(e) - _KEYS:
                raise ValueError(f"{where}: unknown keys {sorted(set(e) - _KEYS)}")
            terms = {canonical, *e.get("synonyms", ())}
            if not set(e.get("not_alone", ())) <= terms:
                raise ValueError(f"{where}: not_alone names a term that is not its name or a "
                                 "synonym")
            # A camera-only term that is no synonym is one of the judge's phrasings.
            more = [t for t in e.get("camera_only", ()) if t not in terms]
            out.append(Value(by_slug[slug], canonical, tuple(e.get("synonyms", ())),
                             bool(e.get("dynamic", False)), e.get("judge_class", ""),
                             e.get("note", ""), (*e.get("phrasings", ()), *more),
                             tuple(e.get("camera_only", ())), tuple(e.get("not_alone", ()))))
    return tuple(out)


VALUES: tuple[Value, ...] = _load(TABLE)

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
