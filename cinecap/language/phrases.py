"""Film-language phrases as patterns: what the decomposer looks for in a caption.

Two kinds of term: literals (the taxonomy's canonical names and synonyms plus the extra phrasings
below), compiled into one trie regex; and pattern families that need more than a literal (a verb
and a direction, "on the left of the frame", "the background is blurred", "a low dutch angle").
``cinecap.language.decompose`` decides which finds count (negation, camera as subject, repeats).
Teach the judge classes of wording, not single phrases: a pattern family or a structural rule
(``cinecap.language.parse``, ``cinecap.language.fields``), with a unit test in new words; measure
it on blind pairs first (docs/judge.md); ``RulesJudge.version`` follows the code by itself.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from cinecap import taxonomy as tx
from cinecap.language import described as d, table
from cinecap.language.parse import inflections
from cinecap.language.starts import derived_starts
from cinecap.language.pattern import (_FAMILIES_OF, _FAMILY_VERBS, _VERBS, DIRS,  # noqa: F401
                                      Pattern, _family_forms, back, forms, trie_words)

CM, SS, CA, DF, CO, SO, SP = tx.ASPECTS

#: Synonyms that need the camera as their subject (decompose step 6).
CAMERA_ONLY = frozenset({
    "static", "fixed", "still camera", "rises", "descends", "follows", "leads", "travels with",
    "moves forward", "moves backward", "travels toward", "looking down", "looking up",
    "shakes", "shaking", "shake", "wobbles", "approaches", "moves closer", "pulls away",
    "stops", "comes to rest", "settles", "stabilises", "stabilizes",
    "stop moving", "stops moving", "stopped moving",
    "sits there", "stays in place", "stays in one place", "stays where it is",
    "stays in one spot", "stays in the same place", "tilted sideways", "tilted to one side",
    "tilted on side", "tilted on one side", "tilted on its side",
    "tilted to the side", "at floor level", "at ground level", "from floor level",
    "not moving", "not move", "not moves", "isn't moving", "no movement", "no motion",
    "bobs", "bobbing", "bounces", "bouncing", "trembles", "trembling", "jittering", "wobbling",
    "closes in", "closing in", "creeps in", "punches in", "rock steady", "rock-steady",
    "sways", "swaying", "jostles", "jostling", "jolts", "jolting", "tremble", "wobble", "jitter",
    "in my hand", "in the hand", "in his hand", "in her hand", "in their hands", "in hand", "by hand",
    "descending", "rising", "ascends", "ascending", "ascended", "climbs", "climbing", "sinks",
    "sinking", "descended",
    "looks down", "looks up", "look down", "look up", "looking downward", "looking upward",
    "looks downward", "looks upward", "looking downwards", "looking upwards",
    "stands still", "standing still", "stood still", "doesn't really move", "does not really move",
    "doesn’t really move", "never really moves", "not really moving", "isn't really moving",
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
    (SS, "wide shot", "ws"), (SS, "extreme wide shot", "ews"), (SS, "extreme wide shot", "els"),
    (SS, "extreme wide shot", "xls"), (SS, "extreme wide shot", "xws"),
    (SS, "medium full shot", "mls"), (SS, "medium full shot", "mws"),
    (SS, "extreme close-up", "xcu"), (SS, "extreme close-up", "bcu"), (SS, "full shot", "fs"),
    (SS, "extreme close-up", "insert shot"), (SS, "close-up", "tight shot"),
    (SS, "medium shot", "medium framing"),
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
    (CA, "eye level", "at eye level"), (CA, "high angle", "aerial view"),
    (CA, "high angle", "aerial shot"), (CA, "high angle", "drone view"), (CA, "high angle", "drone shot"),
    (CA, "overhead", "top down"), (CA, "overhead", "birds eye view"),
    (CA, "dutch angle", "canted angle"), (CA, "dutch angle", "canted frame"),
    (CA, "dutch angle", "tilted frame"), (CA, "dutch angle", "dutch"), (CA, "dutch angle", "dutched"),
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
    (SO, "frontal", "from the front"), (SO, "frontal", "face-on"), (SO, "frontal", "full-face"),
    (SO, "frontal", "full face"), (SO, "back", "back view"), (SO, "back", "rear-view"),
    (CM, "dolly zoom", "vertigo shot"), (CM, "dolly zoom", "hitchcock zoom"),
    (CM, "dolly zoom", "trombone shot"), (CM, "dolly zoom", "contra-zoom"),
    (CO, "right", "right-hand third"), (CO, "left", "left-hand third"),
    (CO, "right", "right-hand side of the frame"), (CO, "left", "left-hand side of the frame"), (SO, "frontal", "frontally"), (SO, "frontal", "head-on"),
    (SO, "three-quarter", "three-quarter angle"), (SO, "three-quarter", "three-quarter profile"),
    (SO, "three-quarter", "three quarter view"),
    (SO, "three-quarter", "three quarter"), (SO, "three-quarter", "3/4"),
    (SO, "profile", "side profile"), (SO, "profile", "from the side"),
    (SO, "profile", "front and side"), (SO, "profile", "from her side"),
    (SO, "profile", "from his side"), (SO, "profile", "from their side"),
    (SO, "profile", "from its side"), (SO, "profile", "side-on"), (SO, "profile", "sideways on"),
    (SO, "back", "faces away"), (SO, "back", "facing away from the camera"),
    (SO, "back", "turned away"), (SO, "back", "turns away"), (SO, "back", "turning away"),
    (SO, "back", "back is to the camera"),
    (SO, "back", "backs to the camera"), (SO, "back", "backs turned to the camera"),
    (SO, "back", "back turned to the camera"), (SO, "back", "back facing the camera"),
    (SO, "back", "seen from behind"), (SO, "back", "back turned"), (SO, "three-quarter back", "three-quarter rear view"),
    (SO, "three-quarter back", "three quarter back"),
    (SP, "pov", "pov"), (SP, "pov", "subjective camera"), (SP, "fisheye", "fish eye"),
    (SP, "slow motion", "slowmo"), (SP, "slow motion", "slowed down"),
    (SP, "fast motion", "accelerated motion"), (SP, "timelapse", "time-lapsed"),
    # the camera stated still by negating its motion ("camera not moving", terse and non-native)
    (CM, "static", "not moving"), (CM, "static", "not move"), (CM, "static", "not moves"),
    (CM, "static", "isn't moving"), (CM, "static", "no movement"), (CM, "static", "no motion"),
    (CM, "static", "nothing moves"), (CM, "static", "no move"), (CM, "static", "no moving"),
    (CM, "static", "sits there"), (CM, "static", "stays in place"),
    (CM, "static", "stays in one place"), (CM, "static", "stays where it is"),
    (CM, "static", "stays in one spot"), (CM, "static", "stays in the same place"),
    (CA, "dutch angle", "tilted sideways"), (CA, "dutch angle", "tilted to one side"),
    (CA, "dutch angle", "tilted to the side"), (CA, "dutch angle", "tilted on side"),
    (SO, "frontal", "facing forward"), (SO, "frontal", "faces forward"),
    (CM, "static", "locked shot"), (CM, "static", "locked frame"), (CM, "static", "locked camera"),
    (CA, "dutch angle", "tilted on one side"), (CA, "dutch angle", "tilted on its side"),
    (CA, "worm's-eye view", "at floor level"), (CA, "worm's-eye view", "at ground level"),
    (CA, "worm's-eye view", "from floor level"), (CA, "worm's-eye view", "floor-level view"),
    (CM, "static", "nothing in the camera moves"), (CM, "static", "nothing in the shot moves"),
    (CM, "static", "stop moving"), (CM, "static", "stops moving"), (CM, "static", "stopped moving"),
    (CM, "static", "no camera move"), (CM, "static", "don't move"), (CM, "static", "doesnt move"), (CM, "static", "nothing in the frame moves"),
    (SS, "close-up", "close on"), (SS, "close-up", "tight on"), (SS, "wide shot", "wide on"),
    (SS, "medium shot", "medium on"),
    (CM, "pedestal down", "descending"), (CM, "pedestal up", "rising"),
    (CM, "pedestal up", "ascends"), (CM, "pedestal up", "ascending"), (CM, "pedestal up", "ascended"),
    (CM, "pedestal up", "climbs"), (CM, "pedestal up", "climbing"), (CM, "pedestal down", "sinks"),
    (CM, "pedestal down", "sinking"), (CM, "pedestal down", "descended"),
    (CA, "overhead", "bird's-eye"), (CA, "overhead", "birds-eye"), (CA, "overhead", "bird's eye"),
    (CA, "overhead", "birdseye"), (CA, "worm's-eye view", "worm's-eye"), (CA, "worm's-eye view", "worms-eye"),
    (CA, "worm's-eye view", "worm's eye"),
    (CM, "static", "doesn't budge"), (CM, "static", "does not budge"),
    (CM, "static", "never budges"), (CM, "static", "rock steady"), (CM, "static", "rock-steady"),
    (CM, "handheld shake", "bobs"), (CM, "handheld shake", "bobbing"),
    (CM, "handheld shake", "bounces"), (CM, "handheld shake", "bouncing"),
    (CM, "handheld shake", "bouncy"), (CM, "handheld shake", "trembles"),
    (CM, "handheld shake", "trembling"), (CM, "handheld shake", "jittering"),
    (CM, "handheld shake", "wobbling"), (CM, "handheld shake", "shaken"),
    (CM, "handheld shake", "sways"), (CM, "handheld shake", "swaying"),
    (CM, "handheld shake", "tremble"), (CM, "handheld shake", "wobble"), (CM, "handheld shake", "jitter"),
    (CM, "handheld shake", "in my hand"), (CM, "handheld shake", "in the hand"),
    (CM, "handheld shake", "in his hand"), (CM, "handheld shake", "in her hand"),
    (CM, "handheld shake", "in their hands"), (CM, "handheld shake", "in hand"),
    (CM, "handheld shake", "by hand"), (CM, "handheld shake", "hand-held"),
    (CM, "handheld shake", "as if held by someone"), (CM, "handheld shake", "as if handheld"),
    (CM, "handheld shake", "as if held by hand"), (CM, "handheld shake", "as though held by hand"),
    (SP, "fisheye", "eye of fish"), (SP, "fisheye", "eye of a fish"), (SP, "fisheye", "fish's eye"),
    (CM, "handheld shake", "jostles"), (CM, "handheld shake", "jostling"),
    (CM, "handheld shake", "jolts"), (CM, "handheld shake", "jolting"),
    (CA, "high angle", "from high up"), (CA, "high angle", "from up high"),
    (CA, "high angle", "from way up"), (CA, "high angle", "from high above"),
    (CA, "low angle", "from down low"), (CA, "low angle", "from low down"),
    (CM, "zoom in", "punches in"),
    (CM, "dolly in", "closes in"), (CM, "dolly in", "closing in"), (CM, "dolly in", "creeps in"),
    (DF, "rack focus", "refocuses"), (DF, "rack focus", "refocusing"), (DF, "rack focus", "refocus"),
    (SP, "slow motion", "half speed"), (SP, "slow motion", "half-speed"),
    (SP, "fast motion", "fast-forwarded"), (SP, "fast motion", "fast forward"),
    (SP, "fast motion", "fast-forward"), (SP, "fast motion", "double speed"),
    (SP, "fast motion", "double-speed"), (SP, "fast motion", "2x speed"),
    (SP, "fast motion", "speeded up"), (SP, "fast motion", "speeded-up"),
    (SP, "slow motion", "slowed"), (SP, "slow motion", "slow-motion"),
    (SP, "slow motion", "super slow"), (SP, "slow motion", "slo-mo"), (SP, "slow motion", "slomo"),
    (CM, "static", "on a tripod"), (CM, "static", "on tripod"), (CM, "static", "tripod-mounted"),
    (CM, "static", "on sticks"), (CM, "static", "on the sticks"),
    (CM, "handheld shake", "off sticks"), (CM, "handheld shake", "off the sticks"),
    (CM, "handheld shake", "shoulder-mounted"), (CM, "handheld shake", "shoulder rig"),
    (CM, "static", "mounted on a tripod"), (CM, "static", "from a tripod"),
    # the camera's gaze as its angle ("the camera looks down on her")
    (CA, "high angle", "looks down"), (CA, "low angle", "looks up"),
    (CA, "high angle", "looking downward"), (CA, "low angle", "looking upward"),
    (CA, "high angle", "looks downward"), (CA, "low angle", "looks upward"),
    (CA, "high angle", "looking downwards"), (CA, "low angle", "looking upwards"),
    (SP, "over the shoulder", "over-shoulder"), (SP, "over the shoulder", "over shoulder"),
    (CM, "tracking", "lead shot"), (CM, "tracking", "leading shot"), (CM, "tracking", "trailing shot"),
    (CM, "tracking", "chase shot"), (CM, "tracking", "chase cam"),
    (SP, "fast motion", "accelerated footage"), (SP, "fast motion", "accelerated playback"),
    (SP, "fast motion", "accelerated sequence"), (SP, "fast motion", "accelerated video"),
    (CA, "high angle", "look down"), (CA, "low angle", "look up"),
    (CA, "eye level", "straight-on"), (CA, "eye level", "straight on"),
    (CA, "eye level", "neutral height"), (CA, "eye level", "head height"),
    (CA, "eye level", "at head height"),
    # shot-list abbreviations: "Eye lvl", "eye-lvl"
    (CA, "eye level", "eye lvl"), (CA, "eye level", "at eye lvl"),
    (SP, "pov", "subjective shot"), (SP, "pov", "subjective view"),
    # an angle word with its noun ("overhead angle", "TOP SHOT"): never an adverb of place
    (CA, "overhead", "overhead angle"), (CA, "overhead", "overhead shot"),
    (CA, "overhead", "overhead view"), (CA, "overhead", "top shot"), (CA, "overhead", "top view"),
    (CA, "overhead", "top angle"), (CA, "overhead", "top-down shot"),
    (CA, "overhead", "from straight above"), (CA, "overhead", "straight from above"),
    (CA, "overhead", "from right above"), (CA, "overhead", "from directly overhead"),
    (CA, "overhead", "from straight overhead"),
    (CA, "overhead", "from the top down"),
    # stillness said plainly or with a hedge: "the camera stands still", "doesn't really move"
    (CM, "static", "stands still"), (CM, "static", "standing still"), (CM, "static", "stood still"),
    (CM, "static", "doesn't really move"), (CM, "static", "does not really move"),
    (CM, "static", "doesn’t really move"), (CM, "static", "never really moves"),
    (CM, "static", "not really moving"), (CM, "static", "isn't really moving"),
    # non-native and jargon spellings of terms already known
    (SO, "profile", "from side"), (SO, "profile", "side view"), (CM, "handheld shake", "hand held"),
    (SS, "medium full shot", "cowboy framing"), (SS, "medium full shot", "cowboy frame"),
    # turned partly toward us: "turned at an angle to the camera", "angled toward the lens"
    (SO, "three-quarter", "at an angle to the camera"), (SO, "three-quarter", "angled to the camera"),
    (SO, "three-quarter", "angled toward the camera"), (SO, "three-quarter", "angled towards the camera"),
    (SO, "three-quarter", "at an angle to the lens"), (SO, "three-quarter", "angled toward the lens"),
    (SO, "three-quarter", "at an angle to us"), (SO, "three-quarter", "angled toward us"),
)


#: Verbs that are a tracking move when the camera does them ("the drone chases the car", "we
#: follow the boy", "the camera trails behind them"), every inflection; and moves named by a bare
#: verb of going back or forth ("the camera retreats as the soldier advances").
_TRACKING_VERBS = "follow chase trail tail pursue shadow accompany"
_BARE_MOVES = (("dolly out", "retreat withdraw recede"), ("dolly in", "advance"),
               ("handheld shake", "shake wobble jitter tremble jiggle judder shudder quiver bob bounce "
                                  "sway jostle jolt vibrate rattle breathe"))


def _verb_terms() -> tuple[tuple[str, str, str], ...]:
    out = []
    for base in _TRACKING_VERBS.split():
        out += [(CM, "tracking", f) for f in sorted(inflections(base))]
    for value, bases in _BARE_MOVES:
        for base in bases.split():
            out += [(CM, value, f) for f in sorted(inflections(base))]
    return tuple(out)


VERB_TERMS = _verb_terms()
CAMERA_ONLY = CAMERA_ONLY | {t for _, _, t in VERB_TERMS}


_ADVERBS = (r"(?:on\s+its\s+axis|on\s+the\s+spot|in\s+place|slowly|gently|quickly|smoothly|steadily|slightly|rapidly|briskly|further|"
            r"subtly|swiftly|sharply|continuously|gradually|a\s+bit|a\s+little|laterally|"
            r"sideways|sideway|lateral|vertically|horizontally|across|along|around|again|back|the\s+camera|"
            r"straight|directly|high|low|smoothly|all\s+the\s+way|wa+y|so+|re+a+lly|ve+ry|"
            r"\d+(?:\.\d+)?\s*(?:degrees?|°))")


#: "pans with him to the right", "tilts past the sign up": one short object between verb and direction.
_OBJECT = (r"(?:\s+(?:with|across|over|along|past|after|around)\s+(?:the\s+|a\s+|an\s+|his\s+|her\s+)?"
           r"[a-z]+|\s+(?:him|her|them|it|us|itself|themselves)|\s+(?:the|a|an)\s+(?:[a-z'-]+\s+)?[a-z'-]+(?=\s+(?:to|in|"
           r"toward|towards|left|right|up|down|clockwise|counter-?clockwise|anti-?clockwise)\b)|\s+(?:down|up|along|through|across|into|over)\s+(?:the|a|an)\s+"
           r"(?:[a-z'-]+\s+){0,2}?[a-z'-]+(?=\s+(?:toward|towards)\b)|\s+from\s+(?:the\s+|his\s+|her\s+|their\s+)?"
           r"[a-z'-]+(?:\s+[a-z'-]+)?(?=\s+(?:up|down|upward|downward)\b))?")


def _dir_value(table: dict[str, str], word: str) -> str | None:
    return table.get(DIRS.get(word.lower().replace("’", "'"), ""))


_PREP_OBJECT = re.compile(r"\s+(?:the|a|an|this|that|his|her|their|its)\b|\s+(?:(?:wide|small|big|large|tight|"
                          r"slow|little|lazy|sweeping)\s+)?(?:circles|loops|arcs|rings|spirals|formation|unison|"
                          r"step|pairs|couples|lines|rows)\b", re.I)


_CAMERA_ONLY_FAMILIES = ("move", "pedestal", "dolly")


def _family_value(verb: str, direction: str, nominal: bool = False) -> tuple[str, bool] | None:
    """(canonical value, camera only) of a verb and a direction: the first verb family that has
    both ("glides left" → truck left; "glides forward" → dolly in, by the move family)."""
    verb = verb.lower()
    for family in _FAMILIES_OF.get(verb, ()):
        if nominal and family in ("move", "pedestal"):
            continue
        value = _dir_value(_VERBS[family][1], direction)
        if value is not None:
            return value, family in _CAMERA_ONLY_FAMILIES
    return None


def _forward_value(m: re.Match) -> tuple[str, bool] | None:
    word = m.group(2).lower()
    if word in ("up", "down", "in", "out") and _PREP_OBJECT.match(m.string, m.end()):
        return None  # "moves down the hallway": a preposition before its object, not a direction
    if word == "right" and _RIGHT_BESIDE.match(m.string, m.end()) and not _THE_BEFORE.search(
            m.string, max(0, m.start(2) - 5), m.start(2)):
        return None  # "running right alongside her": right as an intensifier, not a direction
    if word == "off" and _OFF_TO.match(m.string, m.end()):
        return None  # "moves off to the left": the direction comes after
    if word in ("into", "inside") and (_FILM_OBJECT.match(m.string, m.end()) or not set(
            _FAMILIES_OF.get(m.group(1).lower(), ())) & {"move", "dolly", "zoom"}):
        return None  # "goes into slow motion", "pans into the room": not a way forward
    if m.group(1).lower() in ("tilted", "angled") and (_AT_SOMEONE.match(m.string, m.end()) or
                                                      _BE_BEFORE.search(m.string, max(0, m.start() - 12),
                                                                        m.start())):
        return None  # "tilted up at him", "is tilted down": where the camera points (an angle)
    fams = set(_FAMILIES_OF.get(m.group(1).lower(), ()))
    if fams <= {"move", "pedestal"} and _DET_BEFORE.search(m.string, max(0, m.start() - 8),
                                                           m.start()):
        return None  # "tilts her head down", "a quick run left": a noun after its determiner
    found = _family_value(m.group(1), word)
    if found and found[0].startswith("pedestal") and _RIG_BEFORE.search(
            m.string, max(0, m.start() - 30), m.start()):
        return "crane " + found[0].split()[1], found[1]  # "a crane shot descending": the crane
    return found


_AT_SOMEONE = re.compile(r"(?:ward|wards)?\s+(?:at|toward|towards|on)\s+(?:him|her|them|it|the|a|an|his|"
                         r"her|their)\b", re.I)
_BE_BEFORE = re.compile(r"\b(?:is|are|was|were|been|being|stays|remains|sits|and)\s+(?:\w+ly\s+)?$", re.I)
_RIGHT_BESIDE = re.compile(r"\s+(?:alongside|behind|beside|next\s+to|in\s+front|ahead\s+of|after|with\s+(?:him|her|them))\b",
                          re.I)
_THE_BEFORE = re.compile(r"\bthe\s+$", re.I)  # "to the right with him": a direction, not "right with him"
_OFF_TO = re.compile(r"\s+(?:to|toward|towards|the|a|an|into|screen|frame)\b", re.I)
_DET_BEFORE = re.compile(r"\b(?:her|his|their|its|my|your|our|a|an|the|this|that)\s+$", re.I)
_FILM_OBJECT = re.compile(r"\s+(?:an?\s+|the\s+)?(?:slow|fast|focus|frame|shot|close|medium|wide|"
                          r"extreme|position|view|profile|silhouette|darkness|black)", re.I)
_RIG_BEFORE = re.compile(r"\b(?:crane|jib)\b[^.;]*$", re.I)


def _verb_patterns() -> list[Pattern]:
    """Every verb family in three patterns (one scan each, not one per family): "pans (slowly)
    (to the) left", "pans from left to right", "a left pan"."""
    dirs = "|".join(sorted((re.escape(d) for d in DIRS), key=len, reverse=True))
    every = frozenset(_FAMILIES_OF)
    verbs = trie_words(every)
    nominal_forms = frozenset(v for v, fams in _FAMILIES_OF.items()
                              if any(f not in ("move", "pedestal") for f in fams))
    forward = re.compile(
        rf"(?<![\w-])({verbs})(?:\s+{_ADVERBS}){{0,2}}{_OBJECT}\s+(?:(?:to|toward|towards)\s+"
        rf"(?:the\s+)?(?:frame\s+|screen\s+)?|on\s+(?:the\s+)?(?=(?:left|right)\b(?!\s+of\b)))?"
        rf"({dirs})(?![\w-])", re.I)
    from_to = re.compile(
        rf"(?<![\w-])({verbs})(?:\s+{_ADVERBS}){{0,2}}{_OBJECT}\s+(?:from\s+(?:the\s+)?(\w+)|(left|right))"
        rf"(?:\s+(?:side|of\s+(?:the\s+)?frame))?\s+to\s+(?:the\s+)?({dirs})(?![\w-])", re.I)
    # "a left pan", "a left-to-right pan": the direction before the move's noun.
    nominal = re.compile(
        rf"(?<![\w-])(?:(?:left|right)[\s-]+to[\s-]+)?({dirs})(?:\s+|-)(?:camera\s+)?"
        rf"({trie_words(nominal_forms)})(?![\w-])", re.I)
    return [
        Pattern(CM, forward, _forward_value, words=every, starts=every),
        Pattern(CM, from_to, lambda m: _family_value(m.group(1), m.group(4)), words=every,
                starts=every),
        Pattern(CM, nominal, lambda m: (lambda v: (v[0], False) if v else None)(
            _family_value(m.group(2), m.group(1), nominal=True)), words=nominal_forms,
            starts=frozenset(w for d in DIRS for w in re.findall(r"[a-z]+", d))),
    ]


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



_DIRECTED = re.compile(r"\b(?:left|right(?!\s+(?:alongside|behind|beside|next|in\s+front|ahead|after|with|by)\b)|"
                       r"leftwards?|rightwards?|sideways|laterally|upwards?|"
                       r"downwards?|(?:up|down)(?!\s+(?:the|a|an|his|her|its|their)\b))\b", re.I)


def _with_subject_value(m: re.Match, span: str) -> str | None:
    """"Races down the corridor behind the suspect", "moves backward ahead of the runner", "the
    rail running right alongside her" (right as an intensifier): tracking; but a sideways or vertical move ("moving sideways to the right with the horse") is that move,
    found by the verb patterns."""
    before = len(span) - len(m.group(0))
    return None if any(d.start() < before for d in _DIRECTED.finditer(span)) else "tracking"


#: "pans left, then right": a bare direction after a sequence word repeats the last move's verb.
_ELLIPTIC = Pattern(CM, re.compile(
    r"(?<![\w-])(?:then|and|before|but|finally)\s+(?:(?:slowly|quickly|gently|back|again|"
    r"briefly|finally)\s+)*(?:to\s+the\s+)?(left|right|up|upward|upwards|down|downward|"
    r"downwards|in|out)(?![\w-])(?!\s+(?:of|the|a|an|side|corner|hand|frame|focus)\b)", re.I),
    lambda m: "~" + DIRS[m.group(1).lower()],
    starts=frozenset(("then", "and", "before", "but", "finally")))


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
    entries += EXTRA_TERMS + VERB_TERMS
    # Terse and non-native writing drops articles: "back to camera", "facing lens".
    entries += [(a, c, re.sub(r" the (?=camera|lens|viewer)", " ", t)) for a, c, t in entries
                if re.search(r" the (?:camera|lens|viewer)", t)]
    entries += [(a, c, t.replace("center", "centre")) for a, c, t in entries if "center" in t]
    # Shot-list shorthand for the camera at the end of an orientation: "back to cam", "facing cam".
    entries += [(a, c, re.sub(r"(?: the)? camera$", " cam", t)) for a, c, t in entries
                if a == SO and t.endswith(" camera")]
    for aspect, canonical, term in entries:
        t = term.lower()
        if t in NEVER_ALONE:
            continue
        table = caps if (len(t) <= 3 and t.isalpha()) else plain
        key = term_key(t)
        meanings = table.setdefault(key, [])
        if all(a != aspect for a, _, _ in meanings):
            meanings.append((aspect, canonical, t in CAMERA_ONLY or (
                " " not in term and t.replace(" the ", " ") in CAMERA_ONLY)))
    # A term may carry "-style" or "-like" ("handheld-style shaking", "a POV-style shot").
    bound = r"(?<![\w-])(?:{})(?![\w])(?!-(?!(?:style|like)\b))"
    return (Literals(re.compile(bound.format(_trie_regex(list(plain))), re.I), plain),
            Literals(re.compile(bound.format(_trie_regex([k.upper() for k in caps]))), caps))


#: The pattern families (``tables/patterns/<family>.toml``), in the order they are tried.
FAMILIES = ("composition", "angle", "shot_noun", "static", "dof", "effect", "described_shot",
            "size_by_body", "rig", "nominal_move", "position_adjective", "motion_position",
            "posture_position", "arc", "plain_wording", "operator_wording", "report_wording",
            "view_and_effect", "register_wording")


@lru_cache(maxsize=1)
def patterns() -> tuple[Pattern, ...]:
    """The term families that need more than a literal (verbs with directions, positions, …)."""
    rules = {**d.RULES, "position": _position_value, "with_subject": _with_subject_value}
    out = [*_verb_patterns(), _ELLIPTIC]
    for name in FAMILIES:
        out.extend(table.family(name, rules))
    return tuple(_with_starts(p) for p in out)


#: The words a pattern's matches start with, by the start of its regex: such a pattern is tried
#: only where those words are (see Pattern.starts). Only for patterns whose first word is one of
#: a closed list; "the …" patterns scan.
_STARTS = (
    (r"(?<![\w-])(?:slightly\s+)?(left|right)\s+of", "slightly left right"),
    (r"(?<![\w-])off[\s-]+cent", "off"),
    (r"(?<![\w-])(cent(?:er|re)[\s-]+(?:left|right))", "center centre"),
    (r"(?<![\w-])(?:centered|centred|centrally", "centered centred centrally in"),
    (r"(?<![\w-])(left|right|cent(?:er|re)|middle)(?=\s+(?:", "left right center centre middle"),
    (r"(?<![\w-])(left|right|center|centre|middle)\s+of\s+(?:the\s+)?frame",
     "left right center centre middle"),
    (r"(?<![\w-])(?:frame|screen)\s+", "frame screen"),
    (r"(?<![\w-])(?:on|in|at|along)\s+", "on in at along"),
    (r"(?<![\w-])(foreground|middle\s+ground|midground|background)\s+(?:is",
     "foreground middle midground background"),
    (r"(?<![\w-])(?:focus|depth\s+of\s+field|dof)\s+(?:is", "focus depth dof"),
    (r"(?<![\w-])(?:starts|begins|opens|stays",
     "starts begins opens stays remains ends finishes goes keeps holds sits framed frames"),
    (r"(?<![\w-])(?:holds|stays|remains|is\s+held|is|sits|keeps)", "holds stays remains is sits keeps"),
    (r"(?:behind|alongside|after|ahead\s+of", "behind alongside after ahead in beside next level with"),
    (r"(?<![\w-])(?:faces|facing|face|faced)\s+", "faces facing face faced"),
    (r"(?:his|her|their|whose|its|my|your|our)\s+backs?\s+(?:is", "his her their whose its back away"),
    (r"(?:his|her|their|its|my|your|our)\s+backs?(?![", "his her their"),
    (r"(?:to|toward|towards|into|at|in)\s+(?:the\s+)?(?:(?:frame|screen)\s+)?",
     "to toward towards into at in"),
    (r"(?:to|toward|towards|into)\s+(?:the\s+)?(?:(?:frame|screen)\s+(", "to toward towards into"),
    (r"(?<![\w-])(?:frame|framing|shot)\s+(?:is", "frame framing shot"),
    (r"(?<![\w-])(?:two|three|single)[\s-]shot", "two three single"),
    (r"(?<![\w-])(wide|medium)(?=", "wide medium"),
    (r"(?<![\w-])(low|high)[\s,-]+", "low high"),
    (r"(?<![\w-])from\s+", "from"),
    (r"(?<![\w-])(?:positioned|placed|set|sits", "positioned placed set sits sitting mounted is"),
    (r"(?<![\w-])aerial", "aerial"),
    (r"(?<![\w-])(?:holds|held|holding", "holds held holding"),
    (r"(?<![\w-])(?:tracked|followed)", "tracked followed"),
    (r"(?<![\w-])background", "background"),
    (r"(?<![\w-])(?:both\s+)?(?:the\s+)?foreground", "both the foreground"),
    (r"(?<![\w-])focus\s+", "focus"),

    (r"(?<![\w-])(?:focus|focused|the\s+focal", "focus focused the"),
    (r"(?:sharpness|the\s+sharp", "sharpness the focus"),
    (r"(?<![\w-])three[\s-]+quarters?", "three"),
    (r"(?<![\w-])(?:enter|exit|leave",
     "enter enters entered entering exit exits exited exiting leave leaves leaving emerge "
     "emerges emerged emerging appear appears appeared appearing disappear disappears "
     "disappeared disappearing walk walks walked walking come comes coming came run runs "
     "running ran move moves moved moving step steps stepped stepping drive drives driving "
     "drove ride rides riding rode fly flies flying flew swim swims swimming wander wanders "
     "wandering stroll strolls strolling drift drifts drifting slide slides sliding roll rolls "
     "rolling"),
    (r"(?<![\w-])(?:to|into|in)\s+(?:a\s+)?(wide|medium", "to into in"),
    (r"(?<![\w-])(?:behind\s+(?:him", "behind in the all sharp crisp"),
    (r"(?<![\w-])(?:drifts?|slides?|moves?", "drift drifts slide slides move moves glide glides sweep "
     "sweeps scroll scrolls pass passes travel travels stream streams flow flows roll rolls shift shifts"),
    (r"(?:behind|in\s+the\s+back)", "behind in"),
    (r"(?:background|backdrop|distance", "background backdrop distance surroundings everything rest"),
    (r"(?<![\w-])(?:is|are|becomes?", "is are becomes become turns turn dissolves dissolve melts melt "
     "fades fade"),
    (r"(?:(?:one|the)\s+side\s+of", "one the his her their half"),
    (r"(?<![\w-])(?:faces|facing|face|faced|turned|turns)\s+(?:to(?:wards?)?", "faces facing face faced "
     "turned turns"),
    (r"(?<![\w-])(?:(?:turned|turns|facing|faces)\s+away", "turned turns facing faces his her their"),
    (r"three[\s-]+quarters?(?=", "three"),
    (r"(?<![\w-])only\s+", "only"),
    (r"(?<![\w-])(?:face|head|eye|eyes|mouth", "face head eye eyes mouth lips hand hands fingers"),
    (r"(?<![\w-])horizon", "horizon slanted slanting crooked skewed diagonal off"),
    (r"(?<![\w-])(?:looks|looking|look|points", "looks looking look points pointing aimed aims"),
    (r"behind(?=", "behind"),
    (r"(?:sped|speed|speeded|speeds)[\s-]+up", "sped speed speeded speeds"),
    (r"(?:sped|speeded)[\s-]+up\s+", "sped speeded"),
    (r"(?:over|past|behind|across)\s+", "over past behind across"),
    (r"(?:over|past|behind)\s+", "over past behind"),
    (r"from\s+(?:the\s+)?(?:frame\s+|screen\s+)?(left", "from"),
    (r"(?:through|across|past)\s+", "through across past"),
    (r"(?:to|toward|towards|into|onto)\s+the\s+(?:far", "to toward towards into onto"),
    (r"(?:a?round|about)", "round around about"),
    (r"(?<![\w-])(?:reach(?:es", "reach reaches reached reaching arrive arrives arrived arriving "
     "stop stops end ends ended ending start starts started begin begins began settle settles"),
    (r"(?<![\w-])(up|upward|upwards|down", "up upward upwards down downward downwards"),
    # (issue 16, second round)
    (r"(?<![\w-])(?:(?:really|very|quite|super|extremely|in)\s+close", "really very quite super extremely in close"),
    (r"(?<![\w-])(?:sharp|crisp|in\s+focus),?\s+(?:both\s+)?near", "sharp crisp in"),
    (r"(?<![\w-])(?:in\s+the\s+(foreground|middle", "in up nearest closest"),
    (r"(?<![\w-])(?:(?:turned|turns|facing|faces)\s+(?:\w+\s+)?away", "turned turns facing faces his her their"),
    (r"(?<![\w-])(?:(?:turned|turns|turning|facing|faces)\s+(?:mostly", "turned turns turning facing faces mostly "
     "largely partly partially half halfway slightly"),
    (r"(?<![\w-])(?:frame|image|picture|shot|view|framing|composition)\s+(?:is|sits", "frame image picture shot "
     "view framing composition"),
    (r"(?:through\s+(?:the\s+)?(?:[\w'’-]+\s+){0,2}?eyes|", "through see sees seen look looks watch we from"),
    (r"(?<![\w-])(?:turned|turns|turning|facing|faces|stands", "turned turns turning facing faces stands standing "
     "sits sitting"),
    (r"(?<![\w-])(?:all\s+(?:of\s+)?(?:his|her|their|its|my|your|our|the)|", "all his her their the entire"),
    (r"(?<![\w-])(?:as\s+(?:if|though)", "as we you"),
    (r"(?<![\w-])(?:comes?|coming|came|snaps?", "comes come coming came snaps snap snapped pops pop popped slides "
     "slide slid drifts drift drifted pulls pull pulled then as while until"),
    (r"(?<![\w-])(?:both\s+)?(?:the\s+)?(?:near|nearest", "both the near nearest closest foreground front"),
    (r"(?<![\w-])(?:(?:a\s+)?(?:fraction|half", "a fraction half quarter third slower"),
    (r"(?<![\w-])(?:faster\s+than", "faster two three four several many"),
    (r"(?<![\w-])(?:stretch(?:es|ed|ing)?|warps?", "stretch stretches stretched stretching warp warps warping warped"),
    (r"(?<![\w-])(?:angled|aimed|pointed|tipped", "angled aimed pointed tipped tilted"),
    (r"neutral(?=", "neutral at from level in same equal is sits stays remains"),
    (r"(?<![\w-])(?:from\s+(?:the\s+|his\s+|her\s+|their\s+)?)?(shoulders", "from shoulders mid shoulder midriff "
     "stomach thighs chest bust waist hips hip belt knees knee thigh cut cropped framed ends end ending head "
     "until till down up as navel"),
    (r"(?<![\w-])(?:crash|snap|whip|punch)[\s-]+zoom", "crash snap whip punch"),
    (r"(?<![\w-])(?<!dolly\s)(?<!dolly-)(?:push", "push pushes pushing pushed zoom zooms zooming zoomed"),
    (r"(?<![\w-])(ascending|rising", "ascending rising descending lowering downward upward"),
    (r"(?<![\w-])(?:rack|racks|racked", "rack racks racked racking pull pulls pulled pulling"),
    (r"(?:out|off|away)\s+(?:of", "out off away"),
    (r"(?<![\w-])(?:turned|turns|turning|angled|rotated", "turned turns turning angled rotated facing faces "
     "sits sitting stands standing"),

)


def _with_starts(p: Pattern) -> Pattern:
    if p.starts:
        return p
    for prefix, words in _STARTS:
        if words and p.regex.pattern.startswith(prefix):
            return replace(p, starts=frozenset(words.split()))
    derived = derived_starts(p.regex)
    return replace(p, starts=derived, derived=True) if derived else p


_COMMON_WORDS = frozenset("the a an in on at to is are his her their from with of and as it it's this "
                          "that we you all both by for into one".split())


@lru_cache(maxsize=1)
def _pattern_index() -> tuple[dict[str, frozenset[int]], dict[str, frozenset[int]], frozenset[int],
                              frozenset[int], frozenset[int]]:
    """Which patterns a word or a ``needs`` substring can wake: (word → pattern indices, need →
    pattern indices, patterns with word filters, patterns with needs, patterns with neither)."""
    by_word: dict[str, set[int]] = {}
    by_need: dict[str, set[int]] = {}
    worded, needing, free = set(), set(), set()
    for i, p in enumerate(patterns()):
        wanted = p.words or p.starts
        if p.words and p.starts and not p.derived:
            wanted = p.words & p.starts or p.words
        for w in wanted:
            by_word.setdefault(w, set()).add(i)
        if wanted:
            worded.add(i)
        if p.needs and (not p.starts or p.derived or p.starts & _COMMON_WORDS):
            # A pattern tried only at rare start words needs no more filter; one that starts at
            # "the", "in", "is" … also needs one of its substrings in the text.
            needing.add(i)
            for n in p.needs:
                by_need.setdefault(n, set()).add(i)
        if not wanted:  # no word to wake it: tried on every text (that has one of its needs)
            free.add(i)
            if p.needs:
                needing.add(i)
    return ({w: frozenset(v) for w, v in by_word.items()},
            {n: frozenset(v) for n, v in by_need.items()}, frozenset(worded),
            frozenset(needing), frozenset(free))


def candidate_patterns(low: str, words: "Any") -> list[Pattern]:
    """The patterns worth trying on a lower-case text with these words, in pattern order: one of
    a pattern's start (or filter) words is in the text, and, for a pattern that starts at common
    words, one of its ``needs`` substrings too."""
    return [p for p, _ in candidate_spots(low, words)]


def candidate_spots(low: str, words: "Any") -> list[tuple[Pattern, list[str]]]:
    """:func:`candidate_patterns` with, for each, the words of the text its matches may start
    with (empty when the pattern has no ``starts``: it is scanned)."""
    by_word, _, _, needing, free = _pattern_index()
    by_start = _start_index()
    woken = set(free)
    at: dict[int, list[str]] = {}
    for w in words:  # a caption's few dozen words, looked up in the indexes (not the reverse)
        got = by_word.get(w)
        if got is not None:
            woken.update(got)
        for i in by_start.get(w, ()):
            if i in at:
                at[i].append(w)
            else:
                at[i] = [w]
    pats = patterns()
    seen: dict[str, bool] = {}
    out = []
    for i in sorted(woken):
        p = pats[i]
        if i in needing:
            for n in p.needs:
                got = seen.get(n)
                if got is None:
                    got = seen[n] = n in low
                if got:
                    break
            else:
                continue
        if p.starts:
            spots = at.get(i)
            if spots:
                out.append((p, spots))
        else:
            out.append((p, []))
    return out


@lru_cache(maxsize=1)
def _start_index() -> dict[str, tuple[int, ...]]:
    """start word → the patterns whose matches may start with it."""
    out: dict[str, list[int]] = {}
    for i, p in enumerate(patterns()):
        for w in p.starts:
            out.setdefault(w, []).append(i)
    return {w: tuple(v) for w, v in out.items()}


@lru_cache(maxsize=1)
def _checked_needs() -> tuple[str, ...]:
    """The ``needs`` substrings of the patterns whose start words alone do not filter them."""
    _, _, _, needing, _ = _pattern_index()
    return tuple(sorted({n for i, p in enumerate(patterns()) if i in needing for n in p.needs}))


@lru_cache(maxsize=1)
def all_needs() -> tuple[str, ...]:
    """Every pattern's ``needs`` substrings, once: a text is checked for each of them once, and a
    pattern is tried only when one of its own was found."""
    return tuple(sorted({n for p in patterns() for n in p.needs}))
