"""Film-language phrases as patterns: what the decomposer looks for in a caption.

Two kinds of term: literals (the taxonomy's canonical names and synonyms plus the extra phrasings
below), compiled into one trie regex; and pattern families that need more than a literal (a verb
and a direction, "on the left of the frame", "the background is blurred", "a low dutch angle").
``cinecap.language.decompose`` decides which finds count (negation, camera as subject, repeats).
To teach the judge a new phrasing, add it here, add a labelled pair to
``tests/data/judge_pairs.jsonl``, and bump ``RulesJudge.version``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from cinecap import taxonomy as tx

CM, SS, CA, DF, CO, SO, SP = tx.ASPECTS

#: Synonyms that need the camera as their subject (decompose step 6).
CAMERA_ONLY = frozenset({
    "static", "fixed", "still camera", "rises", "descends", "follows", "leads", "travels with",
    "moves forward", "moves backward", "travels toward", "looking down", "looking up",
    "shakes", "shaking", "shake", "wobbles", "approaches", "moves closer", "pulls away",
    "stops", "comes to rest", "settles", "stabilises", "stabilizes",
})
#: Taxonomy synonyms too common to be terms alone (decompose step 7).
NEVER_ALONE = frozenset({"medium", "wide", "left", "right", "center", "central", "centre",
                          "aerial"})
#: Extra literal terms, beyond the taxonomy's synonyms: (aspect, canonical, term).
EXTRA_TERMS: tuple[tuple[str, str, str], ...] = (
    (CM, "static", "static"), (CM, "static", "fixed"), (CM, "static", "locked down"),
    (CM, "static", "does not move"), (CM, "static", "doesn't move"), (CM, "static", "never moves"),
    (CM, "static", "remains still"), (CM, "static", "stays still"), (CM, "static", "held still"),
    (CM, "static", "remains stationary"), (CM, "static", "stays fixed"),
    (CM, "static", "without any camera movement"), (CM, "static", "without camera movement"),
    (CM, "static", "no camera motion"), (CM, "static", "motionless camera"),
    (CM, "static", "holds still"), (CM, "static", "holds steady"), (CM, "static", "stays put"),
    (CM, "static", "stops"), (CM, "static", "comes to rest"), (CM, "static", "settles"),
    (CM, "static", "stabilises"), (CM, "static", "stabilizes"),
    (CM, "handheld shake", "shakes"), (CM, "handheld shake", "shaking"),
    (CM, "handheld shake", "shake"), (CM, "handheld shake", "hand-held"),
    (CM, "handheld shake", "wobbles"), (CM, "handheld shake", "wobbly"),
    (CM, "handheld shake", "jitters"), (CM, "handheld shake", "jitter"),
    (CM, "tracking", "tracks"), (CM, "tracking", "tracking"), (CM, "tracking", "follows"),
    (CM, "tracking", "leads"), (CM, "tracking", "travels alongside"),
    (CM, "tracking", "tracked by the camera"), (CM, "tracking", "followed by the camera"),
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
    (SS, "medium full shot", "medium wide"), (SS, "medium full shot", "medium long"),
    (SS, "medium full shot", "medium wide framing"), (SS, "medium full shot", "medium-wide shot"),
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
    (DF, "rack focus", "shifts focus"), (DF, "rack focus", "racking focus"),
    (DF, "rack focus", "racked focus"), (DF, "rack focus", "rack-focus"), (DF, "rack focus", "focus shifts"),
    (DF, "rack focus", "focus racks"), (DF, "rack focus", "racks the focus"),
    (DF, "rack focus", "pulls the focus"),
    (CO, "center", "centered in the frame"), (CO, "center", "centrally framed"),
    (CO, "center", "symmetrical composition"), (CO, "center", "symmetric composition"),
    (CO, "center", "center frame"), (CO, "center", "dead center"), (CO, "center", "dead centre"), (CO, "left", "left-heavy"), (CO, "right", "right-heavy"),
    (SO, "frontal", "faces the camera"), (SO, "frontal", "facing the camera"),
    (SO, "frontal", "looks into the camera"), (SO, "frontal", "looks at the camera"),
    (SO, "frontal", "looking at the camera"), (SO, "frontal", "looking into the camera"),
    (SO, "frontal", "face the camera"), (SO, "frontal", "facing the lens"),
    (SO, "frontal", "faces the lens"), (SO, "frontal", "looks into the lens"),
    (SO, "frontal", "facing camera"), (SO, "frontal", "faces camera"),
    (SO, "frontal", "looking at camera"), (SO, "frontal", "looking into the lens"),
    (SO, "frontal", "frontal view"),
    (SO, "frontal", "from the front"), (SO, "frontal", "frontally"), (SO, "frontal", "head-on"),
    (SO, "three-quarter", "three-quarter angle"), (SO, "three-quarter", "three-quarter profile"),
    (SO, "three-quarter", "three quarter view"),
    (SO, "three-quarter", "three quarter"), (SO, "three-quarter", "3/4"),
    (SO, "profile", "side profile"), (SO, "profile", "from the side"),
    (SO, "profile", "front and side"), (SO, "profile", "side-on"), (SO, "profile", "sideways on"),
    (SO, "back", "faces away"), (SO, "back", "facing away from the camera"),
    (SO, "back", "turned away"), (SO, "back", "back is to the camera"),
    (SO, "back", "backs to the camera"), (SO, "back", "backs turned to the camera"),
    (SO, "back", "back turned to the camera"), (SO, "back", "back facing the camera"),
    (SO, "back", "seen from behind"), (SO, "three-quarter back", "three-quarter rear view"),
    (SO, "three-quarter back", "three quarter back"),
    (SP, "pov", "pov"), (SP, "pov", "subjective camera"), (SP, "fisheye", "fish eye"),
    (SP, "slow motion", "slowmo"), (SP, "slow motion", "slowed down"),
    (SP, "fast motion", "accelerated motion"), (SP, "timelapse", "time-lapsed"),
)


@dataclass(frozen=True)
class Pattern:
    """One family of terms: a compiled regex and how a match becomes a canonical value."""

    aspect: str
    regex: re.Pattern
    value: Any  # a canonical value, or a function(match) -> canonical value or None
    camera_only: bool = False
    #: Lower-case substrings a text must contain for this pattern to be tried at all: a cheap
    #: filter that skips most of the ~60 pattern scans on a typical caption.
    needs: tuple[str, ...] = ()


DIRS = {
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
    "move": (r"moves|moving|travels|traveling|travelling|shifts|glides|gliding|drifts|drifting|"
             r"floats|floating|creeps|creeping",
             {"left": "truck left", "right": "truck right", "in": "dolly in", "out": "dolly out",
              "up": "pedestal up", "down": "pedestal down"}),
}
_ADVERBS = (r"(?:slowly|gently|quickly|smoothly|steadily|slightly|rapidly|briskly|further|"
            r"subtly|swiftly|sharply|continuously|gradually|a\s+bit|a\s+little|laterally|"
            r"sideways|vertically|horizontally|across|along|around|again|back|the\s+camera|"
            r"\d+(?:\.\d+)?\s*(?:degrees?|°))")


#: "pans with him to the right", "tilts past the sign up": one short object between verb and direction.
_OBJECT = (r"(?:\s+(?:with|across|over|along|past|after|around)\s+(?:the\s+|a\s+|an\s+|his\s+|her\s+)?"
           r"[a-z]+)?")


def _dir_value(table: dict[str, str], word: str) -> str | None:
    return table.get(DIRS.get(word.lower().replace("’", "'"), ""))


def _verb_patterns() -> list[Pattern]:
    dirs = "|".join(sorted((re.escape(d) for d in DIRS), key=len, reverse=True))
    out = []
    for family, (verbs, table) in _VERBS.items():
        cam = family in ("move", "pedestal", "dolly")
        stems = tuple(sorted({v[:3] for v in verbs.split("|")}))
        # "pans (slowly) (to the) left", "pushes in", "tilts upward".
        forward = re.compile(
            rf"(?<![\w-])(?:{verbs})(?:\s+{_ADVERBS}){{0,2}}{_OBJECT}\s+(?:(?:to|toward|towards)\s+"
            rf"(?:the\s+)?(?:frame\s+|screen\s+)?)?({dirs})(?![\w-])", re.I)
        out.append(Pattern(CM, forward, lambda m, t=table: _dir_value(t, m.group(1)),
                           camera_only=cam, needs=stems))
        # "pans from left to right", "tilts from top to bottom".
        from_to = re.compile(
            rf"(?<![\w-])(?:{verbs})(?:\s+{_ADVERBS}){{0,2}}{_OBJECT}\s+from\s+(?:the\s+)?(\w+)\s+to\s+"
            rf"(?:the\s+)?({dirs})(?![\w-])", re.I)
        out.append(Pattern(CM, from_to, lambda m, t=table: _dir_value(t, m.group(2)),
                           camera_only=cam, needs=stems))
        if family in ("move", "pedestal"):
            continue
        # "a left pan", "an upward tilt", "a slow push in" handled above; nouns first here.
        nominal = re.compile(
            rf"(?<![\w-])({dirs})(?:\s+|-)(?:camera\s+)?(?:{verbs})(?![\w-])", re.I)
        out.append(Pattern(CM, nominal, lambda m, t=table: _dir_value(t, m.group(1)),
                           needs=stems))
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


def _composition_patterns() -> list[Pattern]:
    pos = r"(left|right|center|centre|middle)"
    return [
        # "on the left (third|side) (of the frame)", "in the center of the frame".
        Pattern(CO, re.compile(
            rf"(?<![\w-])(?:on|in|at|along)\s+the\s+(?:far\s+|lower\s+|upper\s+)?"
            rf"{pos}(?!\s+ground)(?:\s+(?:third|side|half|edge|portion|part))?(?:\s+of\s+(?:the\s+)?"
            rf"(?:frame|screen|image|shot|composition|picture))?(?![\w-])", re.I),
            _position_value),
        # "frame left", "screen right", "left of frame".
        Pattern(CO, re.compile(rf"(?<![\w-])(?:frame|screen)\s+{pos}(?![\w-])", re.I),
                 _position_value),
        Pattern(CO, re.compile(rf"(?<![\w-]){pos}\s+of\s+(?:the\s+)?frame(?![\w-])", re.I),
                 _position_value),
        # "slightly left of center", "off-center to the right", "center-left".
        Pattern(CO, re.compile(
            r"(?<![\w-])(?:slightly\s+)?(left|right)\s+of\s+(?:the\s+)?(?:center|centre)(?![\w-])",
            re.I), lambda m: "center-" + m.group(1).lower()),
        Pattern(CO, re.compile(
            r"(?<![\w-])off[\s-]+cent(?:er|re)\s+(?:to\s+the\s+)?(left|right)(?![\w-])", re.I),
            lambda m: "center-" + m.group(1).lower()),
        Pattern(CO, re.compile(r"(?<![\w-])(cent(?:er|re)[\s-]+(?:left|right))(?![\w-])", re.I),
                 lambda m: "center-" + m.group(1).lower().split()[-1].split("-")[-1]),
        Pattern(CO, re.compile(
            r"(?<![\w-])(?:centered|centred|centrally\s+placed|in\s+the\s+middle\s+of\s+the\s+frame)"
            r"(?![\w-])", re.I), "center"),
    ]


_PLANES = {"foreground": "focus on foreground", "middle ground": "focus on middle ground",
           "midground": "focus on middle ground", "background": "focus on background"}


def _angle_patterns() -> list[Pattern]:
    # "a low dutch angle" is two statements (docs/spec/taxonomy.md): the "low" half is found here.
    return [Pattern(CA, re.compile(
        r"(?<![\w-])(low|high)[\s-]+(?=(?:and\s+)?(?:dutch|canted|tilted|oblique)\b)", re.I),
        lambda m: m.group(1).lower() + " angle"),
        # "shot from slightly above the subject's eye line", "from just below".
        Pattern(CA, re.compile(r"(?<![\w-])from\s+(?:slightly|just|somewhat|well|high|far)\s+"
                               r"(above|below)(?![\w-])", re.I),
                lambda m: "high angle" if m.group(1).lower() == "above" else "low angle"),
        # "an aerial wide shot": aerial as an adjective of the shot.
        Pattern(CA, re.compile(r"(?<![\w-])aerial(?=(?:\s+[a-z-]+){0,2}?\s+(?:shot|view|footage|"
                               r"perspective|angle)\b)", re.I), "overhead")]


def _shot_noun_patterns() -> list[Pattern]:
    # "a locked-off wide of the square", "framed in a two-shot medium": bare sizes used as nouns.
    return [
        Pattern(SS, re.compile(r"(?<![\w-])(wide|medium)(?=\s+(?:of|on)\s+(?:the|a|an|his|her)\b)",
                                re.I), lambda m: m.group(1).lower() + " shot"),
        Pattern(SS, re.compile(r"(?<![\w-])(?:two|three|single)[\s-]shot\s+(wide|medium)(?![\w-])",
                                re.I), lambda m: m.group(1).lower() + " shot"),
        # "a wide static shot", "a medium tracking shot": the size, then up to two words, "shot".
        Pattern(SS, re.compile(r"(?<![\w-])(wide|medium)(?=(?:\s+[a-z-]+){0,2}?[\s-]+"
                               r"(?:shot|frame|framing)\b)", re.I),
                lambda m: m.group(1).lower() + " shot"),
        # "from medium to medium close-up", "from a wide into a close-up".
        # "the frame stays wide", "the framing remains medium".
        Pattern(SS, re.compile(r"(?<![\w-])(?:frame|framing|shot)\s+(?:is|stays|remains|becomes)\s+"
                               r"(?:\w+\s+)?(wide|medium)(?![\w-])", re.I),
                lambda m: m.group(1).lower() + " shot"),
        Pattern(SS, re.compile(r"(?<![\w-])from\s+(?:a\s+)?(wide|medium)(?=\s+(?:to|into)\s)", re.I),
                lambda m: m.group(1).lower() + " shot"),
        Pattern(SS, re.compile(r"(?<![\w-])(?:to|into)\s+(?:a\s+)?(wide|medium)(?=\s*(?:[.,;]|$|and\b))",
                               re.I), lambda m: m.group(1).lower() + " shot"),
    ]


def _orientation_patterns() -> list[Pattern]:
    return [
        # "stares directly into the lens", "gazes straight at the camera".
        Pattern(SO, re.compile(
            r"(?<![\w-])(?:looks|looking|stares|staring|gazes|gazing|faces|facing|peers|peering)\s+"
            r"(?:\w+\s+)?(?:into|at|toward|towards)\s+the\s+(?:camera|lens)(?![\w-])", re.I),
            "frontal"),
        # "walks toward the camera" (not "throws a punch toward the camera").
        Pattern(SO, re.compile(
            r"(?<![\w-])(?:walks|walking|walk|runs|running|run|comes|coming|moves|moving|heads|"
            r"heading|approaches|approaching|rides|riding|drives|driving|strides|striding)\s+"
            r"(?:\w+\s+)?(?:toward|towards|at)\s+the\s+camera(?![\w-])", re.I), "frontal"),
    ]


def _static_patterns() -> list[Pattern]:
    # "the camera holds perfectly still", "remains completely static".
    return [Pattern(CM, re.compile(
        r"(?<![\w-])(?:holds|stays|remains|is\s+held|sits|keeps)\s+(?:perfectly\s+|completely\s+|"
        r"totally\s+|absolutely\s+|entirely\s+|quite\s+)?(?:still|static|stationary|motionless|"
        r"fixed|steady|locked)(?![\w-])", re.I), "static", camera_only=True),
        # "races down the corridor behind the suspect": the camera moving with a subject.
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:races|runs|rushes|hurries|chases|glides|travels|moves)(?:\s+[\w'-]+){0,4}?"
            r"\s+(?:behind|alongside|after)\s+(?:the|a|an|his|her)\b", re.I), "tracking",
            camera_only=True),
        # "tracked from the side by the camera": the passive names the camera itself.
        Pattern(CM, re.compile(r"(?<![\w-])(?:tracked|followed)(?=(?:\s+[\w'-]+){0,5}?\s+by\s+the\s+"
                               r"camera(?![\w-]))", re.I), "tracking")]


def _dof_patterns() -> list[Pattern]:
    return [
        # "the background is (softly) blurred", "background falls out of focus".
        Pattern(DF, re.compile(
            r"(?<![\w-])background(?:\s+\w+){0,3}?\s+(?:is|are|stays|remains|falls|goes|melts)?"
            r"\s*(?:\w+\s+)?(?:blurred|blurry|out\s+of\s+focus|soft|defocused|into\s+bokeh)"
            r"(?![\w-])", re.I), "shallow depth of field"),
        Pattern(DF, re.compile(
            r"(?<![\w-])(?:both\s+)?(?:the\s+)?foreground\s+and\s+(?:the\s+)?background\s+"
            r"(?:are|stay|remain)\s+(?:\w+\s+)?(?:sharp|in\s+focus|crisp)(?![\w-])", re.I),
            "deep focus"),
        Pattern(DF, re.compile(
            r"(?<![\w-])focus\s+(?:shifts|moves|pulls|racks|changes|transitions)\s+from(?![\w-])",
            re.I), "rack focus"),
        # "everything from the plinth to the clouds in sharp focus".
        Pattern(DF, re.compile(
            r"(?<![\w-])everything(?:\s+[\w'-]+){0,8}?\s+(?:is\s+|stays\s+|remains\s+)?(?:in\s+"
            r"(?:sharp\s+|crisp\s+)?focus|sharp|crisp)(?![\w-])", re.I), "deep focus"),
        Pattern(DF, re.compile(
            r"(?<![\w-])focus\s+(?:tracks|follows|stays\s+on|keeps\s+up\s+with|is\s+kept\s+on)"
            r"\s+(?:the\s+)?(?:moving|walking|running)(?![\w-])", re.I), "focus tracking"),
        Pattern(DF, re.compile(
            r"(?<![\w-])(?:focus|focused|the\s+focal\s+plane)(?:\s+\w+){0,3}?\s+on\s+the\s+"
            r"(foreground|middle\s+ground|midground|background)(?![\w-])", re.I),
            lambda m: _PLANES[" ".join(m.group(1).lower().split())]),
        Pattern(DF, re.compile(
            r"(?<![\w-])(foreground|middle\s+ground|midground|background)\s+(?:is|stays|remains)\s+"
            r"(?:in\s+(?:sharp\s+)?focus|sharp)(?![\w-])", re.I),
            lambda m: _PLANES[" ".join(m.group(1).lower().split())]),
    ]


#: "pans left, then right": a bare direction after a sequence word repeats the last move's verb.
_ELLIPTIC = Pattern(CM, re.compile(
    r"(?<![\w-])(?:then|and|before|but|finally)\s+(?:(?:slowly|quickly|gently|back|again|"
    r"briefly|finally)\s+)*(?:to\s+the\s+)?(left|right|up|upward|upwards|down|downward|"
    r"downwards|in|out)(?![\w-])(?!\s+(?:of|the|a|an|side|corner|hand|frame|focus)\b)", re.I),
    lambda m: "~" + DIRS[m.group(1).lower()])


def resolve_elliptic(prev_value: str | None, direction: str) -> str | None:
    if not prev_value:
        return None
    verb = prev_value.split()[0]
    candidate = f"{verb} {direction}"
    return candidate if (CM, candidate) in _CM_VALUES else None


_CM_VALUES = frozenset((v.aspect, v.canonical) for v in tx.VALUES if v.aspect == CM)


def term_key(text: str) -> str:
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
class Literals:
    """All literal terms in one trie regex, and what each (normalised) term means."""

    regex: re.Pattern
    meaning: dict[str, list[tuple[str, str, bool]]]  # key → [(aspect, canonical, camera_only)]


@lru_cache(maxsize=1)
def literals() -> tuple[Literals, Literals]:
    """(plain terms, case-insensitive; two-or-three-letter abbreviations, capitals only)."""
    plain: dict[str, list[tuple[str, str, bool]]] = {}
    caps: dict[str, list[tuple[str, str, bool]]] = {}
    entries = [(v.aspect, v.canonical, t) for v in tx.VALUES for t in v.terms]
    for aspect, canonical, term in [*entries, *EXTRA_TERMS]:
        t = term.lower()
        if t in NEVER_ALONE:
            continue
        table = caps if (len(t) <= 3 and t.isalpha()) else plain
        key = term_key(t)
        meanings = table.setdefault(key, [])
        if all(a != aspect for a, _, _ in meanings):
            meanings.append((aspect, canonical, t in CAMERA_ONLY))
    bound = r"(?<![\w-])(?:{})(?![\w-])"
    return (Literals(re.compile(bound.format(_trie_regex(list(plain))), re.I), plain),
            Literals(re.compile(bound.format(_trie_regex([k.upper() for k in caps]))), caps))


@lru_cache(maxsize=1)
def patterns() -> tuple[Pattern, ...]:
    """The term families that need more than a literal (verbs with directions, positions, …)."""
    groups = [
        (("left", "right", "cent", "middle"), _composition_patterns()),
        (("dutch", "canted", "tilted", "oblique", "above", "below", "aerial"), _angle_patterns()),
        (("camera", "lens"), _orientation_patterns()),
        (("wide", "medium"), _shot_noun_patterns()),
        (("still", "static", "stationary", "motionless", "fixed", "steady", "locked", "behind",
          "alongside", "after", "by the camera"), _static_patterns()),
        (("background", "foreground", "focus", "everything", "ground"), _dof_patterns()),
    ]
    out = [*_verb_patterns(), _ELLIPTIC]
    for needs, group in groups:
        out.extend(replace(p, needs=needs) for p in group)
    return tuple(out)
