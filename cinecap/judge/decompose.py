"""Free-text caption → atomic statements, one per fact per aspect (PROTOCOL.md "Judge" rules).

Pure Python over the taxonomy: no model, about a millisecond per caption. The steps:

1. Only the ``<answer>`` part of a wrapped model output counts (``statements.parse_output``).
2. The text is cut into sentences, and sentences into *segments* at sequence words ("then",
   "before", "finally", "followed by", …). "As"/"while" join simultaneous moves and do not cut.
3. Explicit intervals ("from 0 to 2 s", "[0.0–2.0]", "(2-4s)", "between 2 and 4 seconds", "in the
   first 3 seconds") bind to the statements of their segment (the nearest one when a segment has
   several).
4. Terms are found by the taxonomy's canonical names and synonyms plus a few patterns (a verb and
   a direction: "pans slowly to the left", "a left pan", "pans from left to right"; position
   phrases: "on the left of the frame"; a blurred background). Overlapping finds keep the longest
   ("medium close-up" beats "close-up"; "pans left" beats "left").
5. A term right after a negation ("does not zoom", "rather than a dolly", "neither pans nor
   tilts", "no shake") is dropped; "the camera does not move" is itself a term for *static*.
6. Words that are film language only when the camera does them ("rises", "follows", "static",
   "looking down", "shakes") count only when the camera is their subject: the nearest noun phrase
   before them is the camera (or there is none and the sentence is about the camera).
7. Bare words that are too common ("medium", "wide", "left") are never terms alone;
   two-or-three-letter abbreviations (MS, CU, LS, OTS) count only in capitals.
8. A fact repeated counts once: the same value (by judge class) for the same subject merges,
   unless both carry intervals that do not overlap, or it comes back later in the same sequence
   after another move ("pans left, then right, then left again"). "Handheld" and "shake" are the
   one value ``handheld shake``, so they merge too.
9. Subjects (orientation, composition): the nearest noun phrase before the term (or after it:
   "a profile view of the woman"); pronouns ("he", "she") refer to the last subject named, and an
   appositive ("the man, a guitarist,") makes two names one entity.

Everything outside the aspects (plot, lighting, colour, mood) contains no term and is ignored.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

from cinecap import taxonomy as tx
from cinecap.statements import Statement, parse_output

log = logging.getLogger(__name__)

CM, SS, CA, DF, CO, SO, SP = tx.ASPECTS

#: Words that make a clause about the camera (for the camera-only terms of step 6).
CAMERA_WORDS = frozenset(
    "camera cameras lens shot shots view frame framing footage drone cameraman camerawoman "
    "operator crane jib dolly gimbal steadicam rig it we pov".split())
#: Nouns that are never a subject of orientation or composition.
_NOT_SUBJECTS = CAMERA_WORDS | frozenset(
    "left right center centre middle side sides third thirds half edge background foreground "
    "scene screen image picture composition angle profile view way time second seconds close-up "
    "closeup close-ups medium wide shot focus depth field light lighting sky ground floor "
    "wall street road room table water".split())
#: Shot-size words: "a static MCU", "a fixed wide" describe the camera too.
_SHOT_WORDS = frozenset("mcu cu ecu ms ls els ws wide medium close-up closeup long full "
                        "establishing take".split())
_PRONOUNS = frozenset("he she they him her them his hers their its".split())

NEGATIONS = re.compile(
    r"\b(?:not|no|never|without|neither|nor|cannot|rather than|instead of|unlike|isn't|aren't|"
    r"doesn't|don't|didn't|wasn't|won't|n't|nothing|lacks?|absent)\b|n't\b", re.IGNORECASE)
#: What ends the reach of a negation, looking back from a term.
_NEG_STOP = re.compile(r"[,;:.()]|\b(?:but|and then|then|yet|however|while|as)\b",
                       re.IGNORECASE)
_SEQUENCE = re.compile(
    r"\b(?:and then|then|before|after that|afterwards?|finally|followed by|next|eventually|later|"
    r"subsequently|until|once (?:it|the camera) has)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<!\d)[.!?;](?!\d)|\n+")
#: How far (characters) a term looks around itself for its subject, the camera or "again": a
#: clause, not the whole text, so a 100 KB run-on sentence stays linear.
_LOOK_BACK = 200
#: Statements kept per caption; past this the text is junk or a loop, not a description.
MAX_STATEMENTS = 300
_AGAIN = re.compile(r"\b(?:again|once more|back to)\b", re.IGNORECASE)

_N = r"(\d+(?:\.\d+)?)"
_UNIT = r"\s*(?:s|sec|secs|seconds?)\b"
_DASH = r"\s*(?:-|–|—|−|~|to|until|till)\s*"
_INTERVAL_RES = (
    re.compile(rf"[\[(]\s*{_N}\s*s?{_DASH}{_N}\s*(?:s|sec|secs|seconds?)?\s*[\])]", re.I),
    re.compile(rf"\bfrom\s+{_N}\s*(?:s|sec|secs|seconds?)?{_DASH}{_N}{_UNIT}", re.I),
    re.compile(rf"\bbetween\s+{_N}\s*(?:s|sec|secs|seconds?)?\s+and\s+{_N}{_UNIT}", re.I),
    re.compile(rf"\b{_N}\s*s?\s*(?:-|–|—|−)\s*{_N}{_UNIT}", re.I),
)
_MAX_SECONDS = 86_400.0  # a longer "interval" is a typo or junk, not a clip time; it is ignored
_FIRST_N = re.compile(rf"\b(?:in|during|for|over)\s+the\s+first\s+{_N}{_UNIT}", re.I)

# --- the term table --------------------------------------------------------------------------

#: Synonyms that need the camera as their subject (step 6).
_CAMERA_ONLY = frozenset({
    "static", "fixed", "still camera", "rises", "descends", "follows", "leads", "travels with",
    "moves forward", "moves backward", "travels toward", "looking down", "looking up",
    "shakes", "shaking", "shake", "wobbles", "approaches", "moves closer", "pulls away",
    "stops", "comes to rest", "settles",
})
#: Taxonomy synonyms too common to be terms alone (step 7).
_NEVER_ALONE = frozenset({"medium", "wide", "left", "right", "center", "central", "centre",
                          "aerial"})
#: Extra literal terms, beyond the taxonomy's synonyms: (aspect, canonical, term).
_EXTRA_TERMS: tuple[tuple[str, str, str], ...] = (
    (CM, "static", "static"), (CM, "static", "fixed"), (CM, "static", "locked down"),
    (CM, "static", "does not move"), (CM, "static", "doesn't move"), (CM, "static", "never moves"),
    (CM, "static", "remains still"), (CM, "static", "stays still"), (CM, "static", "held still"),
    (CM, "static", "remains stationary"), (CM, "static", "stays fixed"),
    (CM, "static", "without any camera movement"), (CM, "static", "without camera movement"),
    (CM, "static", "no camera motion"), (CM, "static", "motionless camera"),
    (CM, "static", "holds still"), (CM, "static", "holds steady"), (CM, "static", "stays put"),
    (CM, "static", "stops"), (CM, "static", "comes to rest"), (CM, "static", "settles"),
    (CM, "handheld shake", "shakes"), (CM, "handheld shake", "shaking"),
    (CM, "handheld shake", "shake"), (CM, "handheld shake", "hand-held"),
    (CM, "handheld shake", "wobbles"), (CM, "handheld shake", "wobbly"),
    (CM, "handheld shake", "jitters"), (CM, "handheld shake", "jitter"),
    (CM, "tracking", "tracks"), (CM, "tracking", "tracking"), (CM, "tracking", "follows"),
    (CM, "tracking", "leads"), (CM, "tracking", "travels alongside"),
    (CM, "tracking", "moves alongside"), (CM, "tracking", "follow-shot"),
    (CM, "dolly in", "approaches"), (CM, "dolly in", "moves closer"), (CM, "dolly in", "push-in"),
    (CM, "dolly in", "dolly-in"), (CM, "dolly out", "pulls away"), (CM, "dolly out", "pull-back"),
    (CM, "dolly out", "pull-out"), (CM, "dolly out", "dolly-out"),
    (CM, "zoom in", "zoom-in"), (CM, "zoom out", "zoom-out"),
    (CM, "dolly zoom", "dolly-zoom"),
    (SS, "close-up", "tight shot"), (SS, "medium shot", "medium framing"),
    (SS, "medium shot", "medium-shot"), (SS, "wide shot", "wide framing"),
    (SS, "wide shot", "wide view"), (SS, "wide shot", "wide-shot"),
    (SS, "full shot", "full body"), (SS, "full shot", "full-body shot"),
    (SS, "full shot", "full figure"), (SS, "medium full shot", "medium-full shot"),
    (SS, "extreme wide shot", "extreme-wide shot"),
    (CA, "high angle", "from above"), (CA, "low angle", "from below"),
    (CA, "high angle", "looking down from above"), (CA, "low angle", "looking up from below"),
    (CA, "worm's-eye view", "from ground level"), (CA, "worm's-eye view", "ground-level view"),
    (CA, "eye level", "at eye level"), (CA, "overhead", "aerial view"),
    (CA, "overhead", "aerial shot"), (CA, "overhead", "drone view"), (CA, "overhead", "drone shot"),
    (CA, "overhead", "top down"), (CA, "overhead", "birds eye view"),
    (CA, "dutch angle", "canted angle"), (CA, "dutch angle", "canted frame"),
    (CA, "dutch angle", "tilted frame"), (CA, "dutch angle", "dutch"),
    (DF, "shallow depth of field", "shallow dof"), (DF, "shallow depth of field", "soft background"),
    (DF, "shallow depth of field", "out-of-focus background"),
    (DF, "shallow depth of field", "blurry background"),
    (DF, "shallow depth of field", "defocused background"),
    (DF, "deep focus", "deep dof"), (DF, "deep focus", "sharp throughout"),
    (DF, "deep focus", "everything is sharp"), (DF, "deep focus", "everything is in focus"),
    (DF, "rack focus", "shifts focus"), (DF, "rack focus", "focus shifts"),
    (DF, "rack focus", "focus racks"), (DF, "rack focus", "racks the focus"),
    (DF, "rack focus", "pulls the focus"),
    (CO, "center", "centered in the frame"), (CO, "center", "centrally framed"),
    (CO, "center", "symmetrical composition"), (CO, "center", "symmetric composition"),
    (CO, "center", "center frame"), (CO, "left", "left-heavy"), (CO, "right", "right-heavy"),
    (SO, "frontal", "faces the camera"), (SO, "frontal", "facing the camera"),
    (SO, "frontal", "looks into the camera"), (SO, "frontal", "looks at the camera"),
    (SO, "frontal", "looking at the camera"), (SO, "frontal", "looking into the camera"),
    (SO, "frontal", "face the camera"), (SO, "frontal", "facing the lens"),
    (SO, "frontal", "faces the lens"), (SO, "frontal", "looks into the lens"),
    (SO, "frontal", "toward the camera"), (SO, "frontal", "towards the camera"), (SO, "frontal", "frontal view"),
    (SO, "frontal", "from the front"), (SO, "frontal", "head-on"),
    (SO, "three-quarter", "three-quarter angle"), (SO, "three-quarter", "three quarter view"),
    (SO, "three-quarter", "three quarter"), (SO, "three-quarter", "3/4"),
    (SO, "profile", "side profile"), (SO, "profile", "from the side"),
    (SO, "profile", "front and side"), (SO, "profile", "side-on"), (SO, "profile", "sideways on"),
    (SO, "back", "faces away"), (SO, "back", "facing away from the camera"),
    (SO, "back", "turned away"), (SO, "back", "back is to the camera"),
    (SO, "back", "back turned to the camera"), (SO, "back", "back facing the camera"),
    (SO, "back", "seen from behind"), (SO, "three-quarter back", "three-quarter rear view"),
    (SO, "three-quarter back", "three quarter back"),
    (SP, "pov", "pov"), (SP, "pov", "subjective camera"), (SP, "fisheye", "fish eye"),
    (SP, "slow motion", "slowmo"), (SP, "slow motion", "slowed down"),
    (SP, "fast motion", "accelerated motion"), (SP, "timelapse", "time-lapsed"),
)


@dataclass(frozen=True)
class _Pattern:
    """One family of terms: a compiled regex and how a match becomes a canonical value."""

    aspect: str
    regex: re.Pattern
    value: Any  # a canonical value, or a function(match) -> canonical value or None
    camera_only: bool = False
    caps_only: bool = False


_DIRS = {
    "left": "left", "leftward": "left", "leftwards": "left", "right": "right",
    "rightward": "right", "rightwards": "right", "up": "up", "upward": "up", "upwards": "up",
    "down": "down", "downward": "down", "downwards": "down", "in": "in", "forward": "in",
    "forwards": "in", "toward": "in", "towards": "in", "closer": "in", "out": "out",
    "back": "out", "backward": "out", "backwards": "out", "away": "out",
    "clockwise": "clockwise", "counterclockwise": "counterclockwise",
    "counter-clockwise": "counterclockwise", "anticlockwise": "counterclockwise",
    "anti-clockwise": "counterclockwise", "top": "up", "bottom": "down",
}
#: verb family → {direction → canonical}
_VERBS: dict[str, tuple[str, dict[str, str]]] = {
    "pan": (r"pan|pans|panned|panning", {"left": "pan left", "right": "pan right"}),
    "tilt": (r"tilt|tilts|tilted|tilting", {"up": "tilt up", "down": "tilt down"}),
    "truck": (r"truck|trucks|trucked|trucking|crab|crabs|crabbing|slides|glides",
              {"left": "truck left", "right": "truck right"}),
    "dolly": (r"dolly|dollies|dollied|dollying|push|pushes|pushed|pushing|track|tracks|tracking",
              {"in": "dolly in", "out": "dolly out"}),
    "pull": (r"pull|pulls|pulled|pulling", {"out": "dolly out"}),
    "zoom": (r"zoom|zooms|zoomed|zooming", {"in": "zoom in", "out": "zoom out"}),
    "roll": (r"roll|rolls|rolled|rolling|rotates|rotating",
             {"clockwise": "roll clockwise", "counterclockwise": "roll counterclockwise"}),
    "crane": (r"crane|cranes|craned|craning|jib|jibs", {"up": "crane up", "down": "crane down"}),
    "pedestal": (r"pedestal|pedestals|boom|booms|boomed|booming|rises|rising|descends|"
                 r"descending|lifts|lowers", {"up": "pedestal up", "down": "pedestal down"}),
    "arc": (r"arc|arcs|arced|arcing|orbit|orbits|orbiting|circles|circling",
            {"left": "arc left", "right": "arc right", "clockwise": "arc left",
             "counterclockwise": "arc right"}),
    "move": (r"moves|moving|travels|traveling|travelling|shifts",
             {"left": "truck left", "right": "truck right", "in": "dolly in", "out": "dolly out",
              "up": "pedestal up", "down": "pedestal down"}),
}
_ADVERBS = (r"(?:slowly|gently|quickly|smoothly|steadily|slightly|rapidly|briskly|further|"
            r"subtly|swiftly|sharply|continuously|gradually|a\s+bit|a\s+little|laterally|"
            r"sideways|vertically|horizontally|across|along|around|again|back|the\s+camera)")


#: "pans with him to the right", "tilts past the sign up": one short object between verb and direction.
_OBJECT = (r"(?:\s+(?:with|across|over|along|past|after|around)\s+(?:the\s+|a\s+|an\s+|his\s+|her\s+)?"
           r"[a-z]+)?")


def _dir_value(table: dict[str, str], word: str) -> str | None:
    return table.get(_DIRS.get(word.lower().replace("’", "'"), ""))


def _verb_patterns() -> list[_Pattern]:
    dirs = "|".join(sorted((re.escape(d) for d in _DIRS), key=len, reverse=True))
    out = []
    for family, (verbs, table) in _VERBS.items():
        cam = family in ("move", "pedestal", "dolly")
        # "pans (slowly) (to the) left", "pushes in", "tilts upward".
        forward = re.compile(
            rf"(?<![\w-])(?:{verbs})(?:\s+{_ADVERBS}){{0,2}}{_OBJECT}\s+(?:(?:to|toward|towards)\s+"
            rf"(?:the\s+)?(?:frame\s+|screen\s+)?)?({dirs})(?![\w-])", re.I)
        out.append(_Pattern(CM, forward, lambda m, t=table: _dir_value(t, m.group(1)),
                            camera_only=cam))
        # "pans from left to right", "tilts from top to bottom".
        from_to = re.compile(
            rf"(?<![\w-])(?:{verbs})(?:\s+{_ADVERBS}){{0,2}}{_OBJECT}\s+from\s+(?:the\s+)?(\w+)\s+to\s+"
            rf"(?:the\s+)?({dirs})(?![\w-])", re.I)
        out.append(_Pattern(CM, from_to, lambda m, t=table: _dir_value(t, m.group(2)),
                            camera_only=cam))
        if family in ("move", "pedestal"):
            continue
        # "a left pan", "an upward tilt", "a slow push in" handled above; nouns first here.
        nominal = re.compile(
            rf"(?<![\w-])({dirs})(?:\s+|-)(?:{verbs})(?![\w-])", re.I)
        out.append(_Pattern(CM, nominal, lambda m, t=table: _dir_value(t, m.group(1))))
    return out


_POS = {"left": "left", "right": "right", "center": "center", "centre": "center",
        "middle": "center"}


def _position_value(m: re.Match) -> str | None:
    g = [x.lower() for x in m.groups() if x]
    words = [w for w in g if w in _POS or w in ("center-left", "center-right", "centre-left",
                                                  "centre-right")]
    if not words:
        return None
    w = words[0].replace("centre", "center")
    return w if w in ("center-left", "center-right") else _POS[w]


def _composition_patterns() -> list[_Pattern]:
    pos = r"(left|right|center|centre|middle)"
    return [
        # "on the left (third|side) (of the frame)", "in the center of the frame".
        _Pattern(CO, re.compile(
            rf"(?<![\w-])(?:on|in|at|along)\s+the\s+(?:far\s+|lower\s+|upper\s+)?"
            rf"{pos}(?!\s+ground)(?:\s+(?:third|side|half|edge|portion|part))?(?:\s+of\s+(?:the\s+)?"
            rf"(?:frame|screen|image|shot|composition|picture))?(?![\w-])", re.I),
            _position_value),
        # "frame left", "screen right", "left of frame".
        _Pattern(CO, re.compile(rf"(?<![\w-])(?:frame|screen)\s+{pos}(?![\w-])", re.I),
                 _position_value),
        _Pattern(CO, re.compile(rf"(?<![\w-]){pos}\s+of\s+(?:the\s+)?frame(?![\w-])", re.I),
                 _position_value),
        # "slightly left of center", "off-center to the right", "center-left".
        _Pattern(CO, re.compile(
            r"(?<![\w-])(?:slightly\s+)?(left|right)\s+of\s+(?:the\s+)?(?:center|centre)(?![\w-])",
            re.I), lambda m: "center-" + m.group(1).lower()),
        _Pattern(CO, re.compile(
            r"(?<![\w-])off[\s-]+cent(?:er|re)\s+(?:to\s+the\s+)?(left|right)(?![\w-])", re.I),
            lambda m: "center-" + m.group(1).lower()),
        _Pattern(CO, re.compile(r"(?<![\w-])(cent(?:er|re)[\s-]+(?:left|right))(?![\w-])", re.I),
                 lambda m: "center-" + m.group(1).lower().split()[-1].split("-")[-1]),
        _Pattern(CO, re.compile(
            r"(?<![\w-])(?:centered|centred|centrally\s+placed|in\s+the\s+middle\s+of\s+the\s+frame)"
            r"(?![\w-])", re.I), "center"),
    ]


_PLANES = {"foreground": "focus on foreground", "middle ground": "focus on middle ground",
           "midground": "focus on middle ground", "background": "focus on background"}


def _angle_patterns() -> list[_Pattern]:
    # "a low dutch angle" is two statements (TAXONOMY.md): the "low" half is found here.
    return [_Pattern(CA, re.compile(
        r"(?<![\w-])(low|high)[\s-]+(?=(?:and\s+)?(?:dutch|canted|tilted|oblique)\b)", re.I),
        lambda m: m.group(1).lower() + " angle")]


def _shot_noun_patterns() -> list[_Pattern]:
    # "a locked-off wide of the square", "framed in a two-shot medium": bare sizes used as nouns.
    return [
        _Pattern(SS, re.compile(r"(?<![\w-])(wide|medium)(?=\s+(?:of|on)\s+(?:the|a|an|his|her)\b)",
                                re.I), lambda m: m.group(1).lower() + " shot"),
        _Pattern(SS, re.compile(r"(?<![\w-])(?:two|three|single)[\s-]shot\s+(wide|medium)(?![\w-])",
                                re.I), lambda m: m.group(1).lower() + " shot"),
    ]


def _dof_patterns() -> list[_Pattern]:
    return [
        # "the background is (softly) blurred", "background falls out of focus".
        _Pattern(DF, re.compile(
            r"(?<![\w-])background(?:\s+\w+){0,3}?\s+(?:is|are|stays|remains|falls|goes|melts)?"
            r"\s*(?:\w+\s+)?(?:blurred|blurry|out\s+of\s+focus|soft|defocused|into\s+bokeh)"
            r"(?![\w-])", re.I), "shallow depth of field"),
        _Pattern(DF, re.compile(
            r"(?<![\w-])(?:both\s+)?(?:the\s+)?foreground\s+and\s+(?:the\s+)?background\s+"
            r"(?:are|stay|remain)\s+(?:\w+\s+)?(?:sharp|in\s+focus|crisp)(?![\w-])", re.I),
            "deep focus"),
        _Pattern(DF, re.compile(
            r"(?<![\w-])focus\s+(?:shifts|moves|pulls|racks|changes|transitions)\s+from(?![\w-])",
            re.I), "rack focus"),
        _Pattern(DF, re.compile(
            r"(?<![\w-])focus\s+(?:tracks|follows|stays\s+on|keeps\s+up\s+with|is\s+kept\s+on)"
            r"\s+(?:the\s+)?(?:moving|walking|running)(?![\w-])", re.I), "focus tracking"),
        _Pattern(DF, re.compile(
            r"(?<![\w-])(?:focus|focused|the\s+focal\s+plane)(?:\s+\w+){0,3}?\s+on\s+the\s+"
            r"(foreground|middle\s+ground|midground|background)(?![\w-])", re.I),
            lambda m: _PLANES[" ".join(m.group(1).lower().split())]),
        _Pattern(DF, re.compile(
            r"(?<![\w-])(foreground|middle\s+ground|midground|background)\s+(?:is|stays|remains)\s+"
            r"(?:in\s+(?:sharp\s+)?focus|sharp)(?![\w-])", re.I),
            lambda m: _PLANES[" ".join(m.group(1).lower().split())]),
    ]


#: "pans left, then right": a bare direction after a sequence word repeats the last move's verb.
_ELLIPTIC = _Pattern(CM, re.compile(
    r"(?<![\w-])(?:then|and|before|but|finally)\s+(?:(?:slowly|quickly|gently|back|again|"
    r"briefly|finally)\s+)*(?:to\s+the\s+)?(left|right|up|upward|upwards|down|downward|"
    r"downwards|in|out)(?![\w-])(?!\s+(?:of|the|a|an|side|corner|hand|frame|focus)\b)", re.I),
    lambda m: "~" + _DIRS[m.group(1).lower()])


def _resolve_elliptic(prev_value: str | None, direction: str) -> str | None:
    if not prev_value:
        return None
    verb = prev_value.split()[0]
    candidate = f"{verb} {direction}"
    return candidate if (CM, candidate) in _CM_VALUES else None


_CM_VALUES = frozenset((v.aspect, v.canonical) for v in tx.VALUES if v.aspect == CM)


def _term_key(text: str) -> str:
    """How a literal term and a matched span are compared: lower case, one space, no apostrophes."""
    return " ".join(re.split(r"[\s-]+", text.lower().replace("'", "").replace("’", "").strip()))


def _trie_regex(keys: list[str]) -> str:
    """One regex for many literal terms, branching character by character.

    Python's ``re`` tries the alternatives of ``a|b|c`` one by one at every position; a trie
    shares prefixes, so a 100 KB caption is scanned in milliseconds instead of seconds. Spaces
    match any run of spaces or hyphens; an apostrophe is optional wherever a term could have one.
    """
    trie: dict = {}
    for k in keys:
        node = trie
        for ch in k:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        ends = "" in node
        branches = []
        for ch in sorted(c for c in node if c):
            piece = r"[\s-]+" if ch == " " else re.escape(ch) + "['’]?"
            branches.append(piece + emit(node[ch]))
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if ends else body

    return emit(trie)


@dataclass(frozen=True)
class _Literals:
    """All literal terms in one trie regex, and what each (normalised) term means."""

    regex: re.Pattern
    meaning: dict[str, list[tuple[str, str, bool]]]  # key → [(aspect, canonical, camera_only)]


@lru_cache(maxsize=1)
def _literals() -> tuple[_Literals, _Literals]:
    """(plain terms, case-insensitive; two-or-three-letter abbreviations, capitals only)."""
    plain: dict[str, list[tuple[str, str, bool]]] = {}
    caps: dict[str, list[tuple[str, str, bool]]] = {}
    entries = [(v.aspect, v.canonical, t) for v in tx.VALUES for t in v.terms]
    for aspect, canonical, term in [*entries, *_EXTRA_TERMS]:
        t = term.lower()
        if t in _NEVER_ALONE:
            continue
        table = caps if (len(t) <= 3 and t.isalpha()) else plain
        key = _term_key(t)
        meanings = table.setdefault(key, [])
        if all(a != aspect for a, _, _ in meanings):
            meanings.append((aspect, canonical, t in _CAMERA_ONLY))
    bound = r"(?<![\w-])(?:{})(?![\w-])"
    return (_Literals(re.compile(bound.format(_trie_regex(list(plain))), re.I), plain),
            _Literals(re.compile(bound.format(_trie_regex([k.upper() for k in caps]))), caps))


@lru_cache(maxsize=1)
def _patterns() -> tuple[_Pattern, ...]:
    """The term families that need more than a literal (verbs with directions, positions, …)."""
    return (*_verb_patterns(), _ELLIPTIC, *_composition_patterns(), *_angle_patterns(),
            *_shot_noun_patterns(), *_dof_patterns())


# --- segmentation ----------------------------------------------------------------------------

@dataclass
class _Segment:
    start: int
    end: int
    sentence: int
    order: int  # position in the sentence's sequence
    intervals: list[tuple[int, float, float]]  # (char position, t_start, t_end)


def _segments(text: str) -> list[_Segment]:
    spans: list[tuple[int, int]] = []
    pos = 0
    for m in _SENTENCE.finditer(text):
        spans.append((pos, m.start()))
        pos = m.end()
    spans.append((pos, len(text)))
    segs: list[_Segment] = []
    for si, (a, b) in enumerate(spans):
        if b <= a:
            continue
        cuts = [a] + [m.start() for m in _SEQUENCE.finditer(text, a, b)] + [b]
        order = 0
        for c0, c1 in zip(cuts, cuts[1:]):
            if c1 > c0:
                segs.append(_Segment(c0, c1, si, order, _intervals(text, c0, c1)))
                order += 1
    return segs


def _intervals(text: str, a: int, b: int) -> list[tuple[int, float, float]]:
    found: list[tuple[int, float, float]] = []
    taken: list[tuple[int, int]] = []
    chunk = text[a:b]
    for rx in _INTERVAL_RES:
        for m in rx.finditer(chunk):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            x, y = float(m.group(1)), float(m.group(2))
            taken.append((m.start(), m.end()))
            if max(x, y) <= _MAX_SECONDS:
                found.append((a + m.start(), min(x, y), max(x, y)))
    for m in _FIRST_N.finditer(chunk):
        if not any(m.start() < e and s < m.end() for s, e in taken):
            if float(m.group(1)) <= _MAX_SECONDS:
                found.append((a + m.start(), 0.0, float(m.group(1))))
    return found


# --- context checks --------------------------------------------------------------------------

_NP = re.compile(r"\b(?:the|a|an|this|that|his|her|their|its|our|one|another)\s+"
                 r"([a-z][\w'’-]*(?:\s+[a-z][\w'’-]*){0,2})", re.I)
_NP_STOP = frozenset("is are was were be being been stands sits walks looks faces seen shown "
                     "framed placed positioned appears remains stays turns holds and or with "
                     "while as of in on at to from by who which that".split())


def _np_heads(text: str) -> list[str]:
    """Head nouns of the noun phrases in ``text`` ("the young man walks" → "man")."""
    heads = []
    for m in _NP.finditer(text):
        words = m.group(1).lower().split()
        for i, w in enumerate(words):
            if i and (w in _NP_STOP or w.endswith(("ing", "ed", "ly", "s")) and w not in _KEEP_S):
                words = words[:i]
                break
        if words:
            heads.append(words[-1].strip("'’"))
    return heads


_KEEP_S = frozenset("lens glass dress bus canvas chess".split())


def _last_np_head(text: str) -> str | None:
    heads = _np_heads(text)
    return heads[-1] if heads else None


def _negated(text: str, seg_start: int, pos: int) -> bool:
    window = text[max(seg_start, pos - 60):pos]
    stops = list(_NEG_STOP.finditer(window))
    if stops:
        window = window[stops[-1].end():]
    return bool(NEGATIONS.search(window))


def _camera_is_subject(text: str, sentence_start: int, seg_start: int, pos: int,
                       end: int) -> bool:
    # "a static shot", "a fixed camera": the camera word comes right after the term.
    after = re.findall(r"[a-z][a-z-]*", text[end:end + 30].lower())[:3]
    if any(w in CAMERA_WORDS or w in _SHOT_WORDS for w in after):
        return True
    head = _last_np_head(text[max(seg_start, pos - _LOOK_BACK):pos])
    if head is not None:
        return head in CAMERA_WORDS
    prefix = text[max(sentence_start, pos - _LOOK_BACK):pos].lower()
    return any(w in CAMERA_WORDS for w in re.findall(r"[a-z]+", prefix))


# --- subjects and co-reference ---------------------------------------------------------------

_APPOSITIVE = re.compile(r"\bthe\s+([a-z][\w-]*)\s*,\s*(?:a|an|the)\s+(?:[\w-]+\s+)?([a-z][\w-]*)\s*,",
                         re.I)
_SUBJECT_AFTER = re.compile(r"^\W*(?:view|shot|angle)?\s*of\s+(?:the|a|an|his|her)\s+"
                            r"(?:[\w-]+\s+)?([a-z][\w-]*)", re.I)
_SUBJECT_ASPECTS = (SO, CO)


_CLAUSE_CUT = re.compile(r"[,;:]|\b(?:and|while|whereas|but)\b", re.I)


def _subject_for(text: str, seg: _Segment, start: int, end: int, last: str | None) -> str | None:
    before = text[max(seg.start, start - _LOOK_BACK):start]
    cuts = list(_CLAUSE_CUT.finditer(before))
    local = before[cuts[-1].end():] if cuts else before
    for chunk in (local, before):
        heads = [h for h in _np_heads(chunk) if h not in _NOT_SUBJECTS]
        if heads:
            return heads[0]
        if chunk is local and last and re.search(r"\b(?:he|she|they|him|her|his|their)\b",
                                                 chunk, re.I):
            return last
    m = _SUBJECT_AFTER.match(text, end, min(seg.end, end + _LOOK_BACK))
    if m and m.group(1).lower() not in _NOT_SUBJECTS:
        return m.group(1).lower()
    return last


# --- the decomposition -----------------------------------------------------------------------

@dataclass
class _Hit:
    aspect: str
    value: str
    start: int
    end: int
    seg: _Segment


def _find_hits(text: str, segs: list[_Segment], aspects: Sequence[str]) -> list[_Hit]:
    raw: list[tuple[int, int, str, str, bool]] = []
    for p in _patterns():
        if p.aspect not in aspects:
            continue
        for m in p.regex.finditer(text):
            value = p.value(m) if callable(p.value) else p.value
            if value is not None:
                raw.append((m.start(), m.end(), p.aspect, value, p.camera_only))
    for lit in _literals():
        for m in lit.regex.finditer(text):
            for aspect, value, cam in lit.meaning.get(_term_key(m.group(0)), ()):
                if aspect in aspects:
                    raw.append((m.start(), m.end(), aspect, value, cam))
    # Longest first; a shorter find inside a kept one is the same words read twice.
    raw.sort(key=lambda r: (-(r[1] - r[0]), r[0]))
    kept: list[tuple[int, int, str, str, bool]] = []
    claimed = bytearray(len(text))  # linear in the text, not quadratic in the finds
    for r in raw:
        if 1 not in claimed[r[0]:r[1]]:
            claimed[r[0]:r[1]] = b"\x01" * (r[1] - r[0])
            kept.append(r)
    kept.sort()
    if not segs:
        return []
    hits = []
    si = 0
    sentence_starts: dict[int, int] = {}
    for s in segs:
        sentence_starts.setdefault(s.sentence, s.start)
    last_move: str | None = None
    for start, end, aspect, value, cam in kept:
        while si < len(segs) - 1 and segs[si].end <= start:
            si += 1
        seg = segs[si]
        if value.startswith("~"):
            value = _resolve_elliptic(last_move, value[1:])
            if value is None:
                continue
        elif aspect == CM:
            last_move = value
        if _negated(text, seg.start, start):
            continue
        if cam and not _camera_is_subject(text, sentence_starts[seg.sentence], seg.start, start,
                                          end):
            continue
        hits.append(_Hit(aspect, value, start, end, seg))
    return hits


def _nearest_interval(seg: _Segment, pos: int) -> tuple[float, float] | None:
    if not seg.intervals:
        return None
    _, t0, t1 = min(seg.intervals, key=lambda iv: abs(iv[0] - pos))
    return t0, t1


def _overlap(a: Statement, b: Statement) -> bool:
    return a.t_start <= b.t_end and b.t_start <= a.t_end


def decompose(caption: Any, aspects: Sequence[str] = tx.ASPECTS) -> list[Statement]:
    """Free-text caption (or a whole ``<think>/<answer>`` model output) → atomic statements.

    Each statement has the canonical value, the source phrase as ``text``, the interval when the
    text gives one and the subject when stated. Never raises on odd text: non-text, empty,
    foreign-language or junk input gives no statements.

    >>> [s.value for s in decompose("The camera pans left, then tilts up. A close-up.")]
    ['pan left', 'tilt up', 'close-up']
    >>> [s.value for s in decompose("It zooms in rather than dollying in; no handheld shake.")]
    ['zoom in']
    """
    text = parse_output(caption).caption
    if not text:
        return []
    aspects = tuple(tx.check_aspect(a) for a in aspects)
    segs = _segments(text)
    aliases = {m.group(2).lower(): m.group(1).lower() for m in _APPOSITIVE.finditer(text)}
    out: list[Statement] = []
    meta: list[tuple[_Segment, int]] = []  # (segment, end of source phrase) per kept statement
    last_subject: str | None = None
    for h in _find_hits(text, segs, aspects):
        subject = None
        if h.aspect in _SUBJECT_ASPECTS:
            subject = _subject_for(text, h.seg, h.start, h.end, last_subject)
            subject = aliases.get(subject, subject) if subject else None
            last_subject = subject or last_subject
        iv = _nearest_interval(h.seg, h.start)
        st = Statement(h.aspect, h.value, text=" ".join(text[h.start:h.end].split()),
                       t_start=iv[0] if iv else None, t_end=iv[1] if iv else None,
                       subject=subject)
        if not _is_repeat(st, h, text, out, meta):
            out.append(st)
            meta.append((h.seg, h.end))
            if len(out) >= MAX_STATEMENTS:
                log.warning("caption has over %d statements; the rest is ignored", MAX_STATEMENTS)
                break
    return out


def _is_repeat(st: Statement, h: _Hit, text: str, out: list[Statement],
               meta: list[tuple[_Segment, int]]) -> bool:
    """Step 8: is ``st`` a fact already stated?"""
    cls = st.judge_class
    for i in range(len(out) - 1, -1, -1):
        prev, (pseg, _) = out[i], meta[i]
        if prev.aspect != st.aspect or prev.judge_class != cls:
            continue
        if prev.subject and st.subject and prev.subject != st.subject:
            continue
        if prev.has_interval and st.has_interval:
            if _overlap(prev, st):
                return True
            continue
        # Comes back in the same sequence after another value: a new move ("…then left again").
        between = [o for o, (oseg, _) in zip(out[i + 1:], meta[i + 1:]) if o.aspect == st.aspect
                   and o.judge_class != cls]
        if between and st.value != "handheld shake":
            same_sentence = pseg.sentence == h.seg.sentence and pseg.order != h.seg.order
            if same_sentence or _AGAIN.search(text, h.start, min(h.seg.end, h.end + _LOOK_BACK)):
                return False
        return True
    return False
