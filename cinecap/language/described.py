"""Film language said without its name: aspects told through their effect, described special
shots, moves told by where the camera travels, and positions that change as a subject moves.

The structural rules (:data:`RULES`) that the pattern tables (``tables/patterns/*.toml``, read
by :mod:`cinecap.language.table`) name for the classes of wording the blind batches of issue 16
showed a phrase list misses (docs/judge.md): "the harbour behind him is a soft smear" (shallow
depth of field), "we see only one side of his face" (profile), "through the driver's eyes" (POV),
"goes around the statue in a circle, to the left" (arc left), "enters left, reaches the centre,
exits frame right" (three positions). :func:`cinecap.language.phrases.patterns` collects them.
"""
from __future__ import annotations

import re

from cinecap import taxonomy as tx
from cinecap.language.data import load, rx, words
from cinecap.language.lexicon import VEHICLES, animate
from cinecap.language.pattern import DIRS, NOTHING

CM, SS, CA, DF, CO, SO, SP = tx.ASPECTS


def _orientation_value(m: re.Match, span: str | None = None) -> str | None:
    """The orientation a gaze/motion phrase states; its words decide ("three-quarters toward").
    "Toward it" faces the camera only when the camera is named earlier in the sentence ("the
    camera stays at eye level as the couple walk toward it")."""
    words = (span or m.group(0)).lower()
    start = m.end() - len(words)
    from cinecap.language.parse import agent
    a = agent(m.string, start, max(m.string.rfind(c, 0, start) for c in ".!?;\n") + 1)
    if a.head and a.is_camera and not any(animate(w) for w in re.findall(
            r"[a-z]+", m.string[a.position:start].lower())):
        return None  # "the camera looks up at it": where the camera looks, not the subject
    if a.head and not a.is_camera and _THING_MOTION.match(words) and a.head.lower() not in _PRONOUNS \
            and not animate(a.head.lower()) and a.head.lower() not in VEHICLES:
        return None  # "the gates rush toward us": a thing coming at the camera has no orientation
    back_first = re.search(r"\b(?:his|her|their|its)\s+backs?\s+$", m.string[max(0, m.start() - 60):
                                                                         m.end() - len(words)])
    if words.endswith("it"):
        start = max(m.string.rfind(c, 0, m.start()) for c in ".!?;\n") + 1
        before = m.string[start:m.start()]
        if not re.search(r"\b(?:camera|lens)\b", before, re.I) or re.search(
                r"\bit\s+(?:\w+\s+){0,2}$", m.string[start:m.end() - len(span or "") if span
                                                  else m.start()], re.I):
            return None  # no camera named, or "it comes toward it": which is which is unclear
    if _QUARTER_TURN_AFTER.match(m.string, m.end()):
        return None  # "looking toward the camera with a three-quarter turn": that term says it
    if re.search(r"three[\s-]*quarters?|3/4|half|partly|partially|slightly", words):
        return "three-quarter back" if back_first else "three-quarter"  # "her back half turned"
    if re.search(r"\b(?:side|sideways)\b", words):
        return "profile"
    return "frontal"


_THING_MOTION = rx("described", "thing_motion")
_PRONOUNS = words("described", "pronouns")

_QUARTER_TURN_AFTER = rx("described", "quarter_turn_after")


#: The small word maps of these rules (``words.toml`` [maps]).
_MAPS = load("words")["maps"]
_ARC = _MAPS["arc"]
_TURNING = re.compile(r"(?:swing|turn|rotat|sweep|swivel|pivot|whip)", re.I)


def _arc_value(m: re.Match, span: str | None = None, table: dict[str, str] = _ARC) -> str:
    """An arc, unless a turning verb goes "round" with no one to go round: "swings round to the
    right" is a pan."""
    direction = m.group(1).lower()
    if span and _TURNING.match(span) and not re.search(
            r"(?:a?round|about)\s+(?:the|a|an|his|her|him|them|it)\b", span, re.I) and \
            direction in ("left", "right"):
        return "pan " + direction
    return table[direction]


_KIND, _WAY, _KIND_OF_WAY = _MAPS["move_kind"], _MAPS["move_way"], _MAPS["kind_of_way"]
_BY_KIND = {tuple(k.split()): v for k, v in _MAPS["by_kind"].items()}


def _nominal_move_value(m: re.Match) -> str | None:
    """A move named by a noun and its adjectives: "a rightward lateral camera movement", "a
    downward vertical translation", "an orbital move to the left", "a slow forward drift"."""
    words = re.findall(r"[a-z-]+", m.group(0).lower())
    way = next((_WAY[w] for w in reversed(words) if w in _WAY), None)
    kind = next((_KIND[w] for w in words if w in _KIND), None)
    if way is None:
        return None
    kind = kind or _KIND_OF_WAY.get(way)
    return _BY_KIND.get((kind, way)) if kind else None


_TIGHTNESS = _MAPS["tightness"]


def _size_move_value(m: re.Match) -> tuple[str, bool] | None:
    """"The lens zooms from wide to tight": the way the frame goes names the direction."""
    a, b = (_TIGHTNESS[m.group(i).lower()] for i in (2, 3))
    if a == b:
        return None
    way = "in" if b > a else "out"
    verb = m.group(1).lower()
    return ("zoom " if verb.startswith("zoom") else "dolly ") + way, True


def _content_pan_value(m: re.Match) -> tuple[str, None] | None:
    """The scene sliding one way across the frame while the camera turns (no direction given) is
    a pan the other way (the taxonomy's note: pan right → content moves left)."""
    end = m.string.find(".", m.end())
    sentence = m.string[max(0, m.string.rfind(".", 0, m.start()) + 1):end if end >= 0 else None]
    if not _UNDIRECTED_TURN.search(sentence):
        return None
    return ("pan right" if m.group(1).lower() == "left" else "pan left"), None


_UNDIRECTED_TURN = rx("described", "undirected_turn")


_BODY_CUT = _MAPS["body_cut"]


def _body_cut_value(m: re.Match) -> str | None:
    part = (m.group(1) or m.group(2) or m.group(3) or "").lower().replace(" ", "-")
    return _BODY_CUT.get(part, "full shot" if not part else None)


PERSON_NOUNS = words("described", "person_nouns")


_POS_VALUE = _MAPS["positions"]


def _motion_position_value(m: re.Match, span: str | None = None) -> list[tuple[int, int, str]]:
    """Positions stated by a subject's motion: one per position phrase, where it stands."""
    out = []
    for g in range(1, (m.lastindex or 0) + 1):
        word = m.group(g)
        if not word:
            continue
        w = " ".join(word.lower().replace("centre", "center").replace("-", " ").split())
        if w in _POS_WORDS:
            out.append((m.start(g), m.end(g), "center" if w == "middle" else w))
        elif w in ("center left", "center right", "left of center", "right of center"):
            out.append((m.start(g), m.end(g), "center-" + ("left" if "left" in w else "right")))
    return out


_POS_WORDS = frozenset(("left", "right", "center", "centre", "middle"))


def _size_pair_value(m: re.Match, span: str | None = None) -> list[tuple[int, int, str]]:
    sizes = {"wide": "wide shot", "medium": "medium shot", "tight": "close-up", "close": "close-up"}
    return [(m.start(g), m.end(g), sizes[m.group(g).lower()]) for g in (1, 2)]


def _horizon_roll_value(m: re.Match) -> tuple[str, None]:
    # The horizon turns one way on screen when the camera rolls the other way.
    way = m.group(1).lower().replace("-", "")
    return ("roll clockwise" if way in ("counterclockwise", "anticlockwise")
            else "roll counterclockwise"), None


_ANGLE_WORDS = _MAPS["angle_words"]


def _angle_pair_value(m: re.Match) -> list[tuple[int, int, str]]:
    return [(m.start(g), m.end(g), _ANGLE_WORDS[" ".join(m.group(g).lower().split())]) for g in (1, 2)]


_RIG_MOVES = _MAPS["rig_moves"]


_SIDEWAYS_BEFORE = rx("described", "sideways_before")


_PLANES = _MAPS["planes"]


def _planes(m: re.Match) -> str:
    return _PLANES["foreground" if m.group(2) else ("background" if m.group(1).lower() == "distance"
                                                    else " ".join(m.group(1).lower().split()))]


def _height_word(m: re.Match) -> str:
    return "low angle" if (m.group(1) or "").lower() in ("low", "ground") or (
        m.group(2) and m.group(2).lower() in ("elevated", "tilted up", "angled up", "pointed up")) \
        else "high angle"


def _up_or_below(m: re.Match) -> str:
    return "low angle" if (m.group(2) or m.group(1)).lower() in ("up", "above") and m.group(2) or \
        not m.group(2) and m.group(1).lower() in ("up", "below") else "high angle"


def _below_or_overhead(m: re.Match) -> str:
    return "low angle" if m.group(2).lower() in ("below", "beneath", "under", "underneath") else \
        "overhead" if (m.group(1) or "").strip().lower() in ("directly", "straight") else "high angle"


def _size_word(m: re.Match, _: str) -> str:
    w = m.group(1).lower()
    return "extreme wide shot" if "wide" in w and "extreme" in w else "extreme close-up" \
        if "close" in w else {"wide": "wide shot", "medium": "medium shot", "tight": "close-up"}[w]


#: The structural rules the pattern tables name (``value = { fn = "…" }``).
RULES = {
    "orientation": _orientation_value, "arc": _arc_value, "nominal_move": _nominal_move_value,
    "size_move": _size_move_value, "content_pan": _content_pan_value,
    "motion_position": _motion_position_value, "size_pair": _size_pair_value,
    "horizon_roll": _horizon_roll_value, "angle_pair": _angle_pair_value,
    "plane_near": _planes, "height_word": _height_word, "up_or_below": _up_or_below,
    "below_or_overhead": _below_or_overhead, "size_word": _size_word,
    "body_cut_word": lambda m: _BODY_CUT[m.group(1).lower()],
    "body_cut_or_whole": lambda m: _body_cut_value(m) if (m.group(1) or m.group(2) or m.group(3))
    else ("medium close-up" if "shoulder" in m.group(0).lower() else "full shot"),
    "rig_vertical": lambda m: ("crane " if m.group(2).lower().startswith(("jib", "crane", "techno"))
                               else "pedestal ") + DIRS[m.group(1).lower()],
    "position_of_person": lambda m: _POS_VALUE[m.group(1).lower()]
    if not m.group(2) or animate(m.group(2).lower()) else None,
    "rig_move": lambda m, _: (_RIG_MOVES.get(DIRS.get(m.group(1).lower(), "")), None),
    "tilt_word": lambda m, _: ("tilt " + DIRS[m.group(1).lower()], None),
    "looking_vertical": lambda m, _: (("overhead" if m.group(1) else "high angle")
                                      if m.group(2).lower() == "down" else "low angle", None),
    "sideways_tracking": lambda m: NOTHING if _SIDEWAYS_BEFORE.search(
        m.string, max(0, m.start() - 40), m.start()) else ("tracking", True),
    "dolly_zoom_ways": lambda m: "dolly zoom" if (m.group(1).lower() in (
        "back", "backward", "backwards", "out")) == (m.group(2).lower() == "in") else None,
}
