"""Film language said without its name: aspects told through their effect, described special
shots, moves told by where the camera travels, and positions that change as a subject moves.

Pattern families (:class:`cinecap.language.pattern.Pattern`) for the classes of wording the blind
batches of issue 16 showed a phrase list misses (docs/judge.md): "the harbour behind him is a soft
smear" (shallow depth of field), "we see only one side of his face" (profile), "through the
driver's eyes" (POV), "goes around the statue in a circle, to the left" (arc left), "enters left,
reaches the centre, exits frame right" (three positions). :func:`cinecap.language.phrases.patterns`
collects them with the rest.
"""
from __future__ import annotations

import re

from cinecap import taxonomy as tx
from cinecap.language.lexicon import VEHICLES, animate
from cinecap.language.pattern import _FAMILIES_OF, DIRS, NOT_A_TERM, Pattern, back, forms

CM, SS, CA, DF, CO, SO, SP = tx.ASPECTS

_TOWARD_US = r"(?:the\s+)?(?:camera|lens|viewer|audience|us|you|it)(?![\w-])"
#: Verbs whose direction toward the camera states an orientation ("jogs toward the camera").
_FACING_VERBS = forms(
    "walk run jog sprint come move head approach ride drive stride march step charge race rush "
    "hurry advance face look stare gaze peer glance turn smile talk speak sing shout wave lean "
    "point cycle skate swim dance crawl limp stagger wander stroll float fly drift roll glare "
    "grin scream cry laugh nod wink aim angle taxi crawl gallop trot paddle roll swing") + \
    "|ran|came|rode|drove|strode|flew|swam|is\\s+turned"


def _orientation_value(m: re.Match, span: str | None = None) -> str | None:
    """The orientation a gaze/motion phrase states; its words decide ("three-quarters toward").
    "Toward it" faces the camera only when the camera is named earlier in the sentence ("the
    camera stays at eye level as the couple walk toward it")."""
    words = (span or m.group(0)).lower()
    start = m.end() - len(words)
    from cinecap.language.lexicon import animate
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


_THING_MOTION = re.compile(r"(?:rush|race|fly|flies|flew|roll|come|came|drift|float|move|charge|hurr|"
                           r"approach|sail|speed|zoom|hurtl|tumbl|fall|fell|slid|slide|stream|pour)", re.I)
_PRONOUNS = frozenset("he she they it we i you one someone somebody everyone".split())

_QUARTER_TURN_AFTER = re.compile(r"\s*,?\s+(?:with|in)\s+a\s+(?:slight\s+)?(?:three[\s-]*quarters?|3/4)"
                                 r"\s+(?:turn|angle|view)\b", re.I)


def arc_patterns() -> list[Pattern]:
    """An arc stated by where the camera travels: "goes around the statue in a circle, to the
    left", "circles round them to the right", "moves in a half circle clockwise"."""
    dirs = r"(left|right|clockwise|counter-?clockwise|anti-?clockwise)"
    table = {"left": "arc left", "right": "arc right", "clockwise": "arc left",
             "counterclockwise": "arc right", "counter-clockwise": "arc right",
             "anticlockwise": "arc right", "anti-clockwise": "arc right"}
    verbs = (r"go|goes|going|went|moves?|moving|travels?|travell?ing|circles?|circling|revolves?|"
             r"revolving|orbits?|orbiting|arcs?|arcing|swings?|swinging|rotates?|rotating|turns?|"
             r"turning|sweeps?|sweeping|curves?|curving|walks?|walking|flies|flying|drives?")
    circle = r"(?:\s+(?:a\s+|in\s+a\s+|in\s+)?(?:half[\s-]+|full\s+|slow\s+|wide\s+)?(?:circle|arc|semicircle|semi-circle)\s*,?)?"
    return [Pattern(CM, re.compile(
        rf"(?:a?round|about)(?:\s+(?:the|a|an|his|her|him|them|it)(?:\s+[\w'-]+){{0,2}}?)?"
        rf"(?:\s*,?\s*(?:in\s+(?:a\s+)?(?:half[\s-]+|full\s+)?(?:circle|arc))?)?\s*,?\s+"
        rf"(?:(?:to|towards?|in)\s+(?:the\s+|a\s+)?)?{dirs}(?![\w-])", re.I),
        lambda m, span=None: _arc_value(m, span, table), camera_only=True,
        needs=("round", "about"), back=back(rf"(?:{verbs}){circle}"))]


_TURNING = re.compile(r"(?:swing|turn|rotat|sweep|swivel|pivot|whip)", re.I)


def _arc_value(m: re.Match, span: str | None, table: dict[str, str]) -> str:
    """An arc, unless a turning verb goes "round" with no one to go round: "swings round to the
    right" is a pan."""
    direction = m.group(1).lower()
    if span and _TURNING.match(span) and not re.search(
            r"(?:a?round|about)\s+(?:the|a|an|his|her|him|them|it)\b", span, re.I) and \
            direction in ("left", "right"):
        return "pan " + direction
    return table[direction]


_BLUR = (r"(?:soft|blurr?(?:ed|y)?|smear(?:ed)?|smudge[ds]?|out\s+of\s+focus|defocused|"
         r"unfocused|fuzzy|hazy|indistinct|mush(?:y)?|a\s+wash|a\s+creamy\s+(?:wash|blur)|bokeh|"
         r"dissolves?|melts?|"
         r"goes?\s+soft|falls?\s+(?:off|away)|not\s+sharp)")


_KIND = {"lateral": "truck", "sideways": "truck", "horizontal": "truck", "vertical": "pedestal",
         "orbital": "arc", "circular": "arc", "arcing": "arc", "orbiting": "arc", "panning": "pan",
         "tilting": "tilt", "rotational": "pan"}
_WAY = {"leftward": "left", "leftwards": "left", "rightward": "right", "rightwards": "right",
        "upward": "up", "upwards": "up", "downward": "down", "downwards": "down", "forward": "in",
        "forwards": "in", "backward": "out", "backwards": "out", "left": "left", "right": "right",
        "up": "up", "down": "down", "clockwise": "clockwise", "counterclockwise": "counterclockwise",
        "counter-clockwise": "counterclockwise", "anticlockwise": "counterclockwise"}
_KIND_OF_WAY = {"left": "truck", "right": "truck", "up": "pedestal", "down": "pedestal",
                "in": "dolly", "out": "dolly"}
_BY_KIND = {("truck", "left"): "truck left", ("truck", "right"): "truck right",
            ("pedestal", "up"): "pedestal up", ("pedestal", "down"): "pedestal down",
            ("dolly", "in"): "dolly in", ("dolly", "out"): "dolly out",
            ("arc", "left"): "arc left", ("arc", "right"): "arc right",
            ("arc", "clockwise"): "arc left", ("arc", "counterclockwise"): "arc right",
            ("pan", "left"): "pan left", ("pan", "right"): "pan right",
            ("tilt", "up"): "tilt up", ("tilt", "down"): "tilt down"}


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


def nominal_move_patterns() -> list[Pattern]:
    """Moves named by a noun ("movement", "move", "translation", "drift") with their kind and
    direction as adjectives or a phrase after: "a rightward lateral camera movement", "a
    downward vertical camera translation", "an orbital move to the left"."""
    ways = "|".join(sorted(_WAY, key=len, reverse=True))
    kinds = "|".join(_KIND)
    return [Pattern(CM, re.compile(
        rf"(?<![\w-])(?:a|an|the|one|this)\s+(?:(?:slow|quick|fast|gentle|smooth|steady|subtle|slight|"
        rf"continuous|brief|short|long|small|{ways}|{kinds}|camera|tracking)\s+){{1,4}}(?:movement|move|motion|"
        rf"translation|drift|glide|slide|travel|shift|reframe)(?:\s+(?:to|toward|towards)\s+(?:the\s+)?(?:left|right)"
        rf"|\s+(?:{ways}))?(?![\w-])", re.I), _nominal_move_value,
        needs=("movement", "move", "motion", "translation", "drift", "glide", "slide", "travel",
               "shift", "reframe"), starts=frozenset("a an the one this".split()))]


_TIGHTNESS = {"wide": 0, "full": 1, "medium": 2, "close": 3, "tight": 3}


def _size_move_value(m: re.Match) -> tuple[str, bool] | None:
    """"The lens zooms from wide to tight": the way the frame goes names the direction."""
    a, b = (_TIGHTNESS[m.group(i).lower()] for i in (2, 3))
    if a == b:
        return None
    way = "in" if b > a else "out"
    verb = m.group(1).lower()
    return ("zoom " if verb.startswith("zoom") else "dolly ") + way, True


def rig_patterns() -> list[Pattern]:
    """The rig names the move: "swings down on a jib" (crane), "rises on a crane arm", "goes up
    on a pedestal"; and moves named by jargon with their direction or their target: "a crash
    zoom out", "a slow push on the suspect", "zooms onto her eyes", "rack to the background",
    "a descending crane move"."""
    return [Pattern(CM, re.compile(
        r"(?<![\w-])(?:crash|snap|whip|punch)[\s-]+zoom(?:s|ed|ing)?(?:\s+(in|out|back|into|onto|on))?"
        r"(?![\w-])", re.I),
        lambda m: "zoom out" if (m.group(1) or "").lower() in ("out", "back") else "zoom in",
        needs=("zoom",)),
        Pattern(CM, re.compile(
            r"(?<![\w-])(?<!dolly\s)(?<!dolly-)(?:push|pushes|pushing|pushed|zoom|zooms|zooming|zoomed)(?:[\s-]+in)?\s+"
            r"(?:slowly\s+|gently\s+|quickly\s+)?(?:on|onto|upon)\s+(?:to\s+)?(?:the|a|an|his|her|their|"
            r"its|[A-Z])", re.I),
            lambda m: "zoom in" if m.group(0).lower().startswith("zoom") else "dolly in",
            needs=("push", "zoom")),
        Pattern(CM, re.compile(
            r"(?<![\w-])(zoom|zooms|zooming|zoomed|dolly|dollies|dollying|dollied|push|pushes|pushing|pull|"
            r"pulls|pulling|moves|moving|travels|travelling|traveling)(?=\s+(?:slowly\s+|gradually\s+)?from\s+"
            r"(?:a\s+)?(wide|medium|close|tight|full)\w*(?:\s+shot)?\s+(?:to|into)\s+(?:a\s+)?"
            r"(wide|medium|close|tight|full))", re.I), _size_move_value,
            starts=frozenset("zoom zooms zooming zoomed dolly dollies dollying dollied push pushes pushing "
                             "pull pulls pulling moves moving travels travelling traveling".split())),
        Pattern(CM, re.compile(
            r"(?<![\w-])(ascending|rising|descending|lowering|downward|upward)\s+(?:[\w-]+\s+)?"
            r"(?:crane|jib|boom)(?:\s+(?:shot|move|movement|arm))?(?![\w-])", re.I),
            lambda m: ("crane up" if m.group(1).lower() in ("ascending", "rising", "upward")
                       else "crane down"), needs=("crane", "jib", "boom")),
        Pattern(DF, re.compile(
            r"(?<![\w-])(?:rack|racks|racked|racking|pull|pulls|pulled|pulling)\s+(?:the\s+)?(?:focus\s+)?"
            r"(?:to|onto|over\s+to|from)\s+(?:the\b|a\b|an\b|his\b|her\b|their\b|FG\b|BG\b|MG\b|fg\b|"
            r"bg\b|foreground\b|background\b)", re.I), "rack focus",
            needs=("rack", "pull")),
        Pattern(CM, re.compile(
        r"(?<![\w-])(up|upward|upwards|down|downward|downwards)\s+(?:on|with|via|using)\s+(?:a|the|"
        r"its)\s+(?:[\w-]+\s+)?(jib|crane|crane\s+arm|jib\s+arm|boom|pedestal|techno\s*crane)(?![\w-])",
        re.I), lambda m: ("crane " if m.group(2).lower().startswith(("jib", "crane", "techno"))
                          else "pedestal ") + DIRS[m.group(1).lower()],
        needs=("jib", "crane", "boom", "pedestal"))]


def _content_pan_value(m: re.Match) -> tuple[str, None] | None:
    """The scene sliding one way across the frame while the camera turns (no direction given) is
    a pan the other way (the taxonomy's note: pan right → content moves left)."""
    end = m.string.find(".", m.end())
    sentence = m.string[max(0, m.string.rfind(".", 0, m.start()) + 1):end if end >= 0 else None]
    if not _UNDIRECTED_TURN.search(sentence):
        return None
    return ("pan right" if m.group(1).lower() == "left" else "pan left"), None


_UNDIRECTED_TURN = re.compile(r"\b(?:camera|we|lens)\s+(?:[a-z]+\s+){0,2}?(?:pans|swivels|turns|"
                              r"rotates|sweeps|pivots)\b(?!\s+(?:[a-z]+\s+)?(?:to\s+the\s+)?"
                              r"(?:left|right))", re.I)


def effect_patterns() -> list[Pattern]:
    """Aspects stated through their effect rather than their name (issue 16's first class)."""
    return [
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:drifts?|slides?|moves?|glides?|sweeps?|scrolls?|passes?|travels?|streams?|"
            r"flows?|rolls?|shifts?|slid|drifted|moved|glided|slips?|pours?)\s+(?:steadily\s+|slowly\s+|"
            r"gradually\s+|quickly\s+|smoothly\s+)?(?:(?:to|toward|towards)\s+(?:the\s+)?)?(left|right)"
            r"(?:wards?)?(?:\s+(?:side|edge))?\s+(?:across|through|out\s+of|of)\s+(?:the\s+)?(?:frame|"
            r"screen|image|picture)(?![\w-])", re.I), _content_pan_value,
            needs=("swivel", "pans", "turns", "rotates", "sweeps", "pivots")),
        # Depth of field through what happens behind the subject: "the harbour behind him is a
        # soft smear", "the man behind is blur", "the wall behind her melts into a blur".
        Pattern(DF, re.compile(
            rf"(?:behind|in\s+the\s+back)(?:\s+(?:him|her|them|it|the\s+[\w'-]+|[\w'-]+))?"
            rf"(?:\s*,?\s+(?:the|a|an|all|some|its|his|her|their)(?:\s+[\w'-]+){{1,3}}?)?\s+"
            rf"(?:(?:has|have|had)\s+)?(?:(?:is|are|was|were|stays?|remains?|becomes?|turns?|goes|"
            rf"looks?|appears?|melts?|melted|dissolves?|dissolved|fades?|faded|falls?|fallen|sinks?|"
            rf"sunk|drops?|been|become|gone|turned)\s+)?(?:into\s+|to\s+)?"
            rf"(?:\w+\s+){{0,2}}?{_BLUR}(?![\w-])", re.I), "shallow depth of field",
            needs=("behind", "in the back")),
        Pattern(DF, re.compile(
            rf"(?:background|backdrop|distance|surroundings|everything\s+else|rest\s+of"
            rf"\s+the\s+(?:frame|scene|image))(?:\s+[\w'-]+){{0,3}}?\s+(?:is|are|stays?|remains?|"
            rf"becomes?|turns?|goes|fades?|reduced\s+to|into|as|to|compress(?:es)?\s+into)\s+"
            rf"(?:\w+\s+){{0,2}}?{_BLUR}"
            r"(?![\w-])", re.I), "shallow depth of field",
            needs=("background", "backdrop", "distance", "surroundings", "everything else",
                   "rest of the")),
        # "The crowd is a colourful blur", "the trees become a soft wash": a blurred surrounding
        # (not a blur "of motion").
        Pattern(DF, re.compile(
            r"(?<![\w-])(?:is|are|becomes?|become|turns?\s+into|dissolves?\s+into|melts?\s+into|fades?\s+"
            r"into)\s+(?:just\s+|only\s+)?(?:a|an)\s+(?:[\w-]+\s+)?(?:blur|smear|smudge|wash\s+of\s+"
            r"colou?r|soft\s+wash|haze)(?![\w-])(?!\s+of\s+(?:motion|movement|speed|limbs|activity))",
            re.I), "shallow depth of field", needs=("blur", "smear", "smudge", "wash", "haze")),
        # Rack focus through the sharpness moving: "the sharpness moves to the man", "focus
        # passes to the deer", "then the focus goes to the woman".
        Pattern(DF, re.compile(
            r"(?:sharpness|the\s+sharp\s+area|focus|the\s+focal\s+plane)"
            r"\s+(?:then\s+|slowly\s+|gradually\s+)?(?:moves?|moved|shifts?|shifted|passes|passed|"
            r"goes|went|travels?|jumps?|slides?|transfers?|changes?|switches|switched|pulls?|drifts?|"
            r"drifted|snaps?|snapped|lands?|landed|settles?|settled|wanders?|glides?|racks?|racked)"
            r"(?:\s+\w+){0,2}?\s+(?:to|onto|toward|towards)(?![\w-])", re.I), "rack focus",
            needs=("sharpness", "sharp area", "focus", "focal plane")),
        # Orientation through which side we see: "only one side of his face", "his nose points
        # to frame left", "half of her face".
        Pattern(SO, re.compile(
            r"(?:(?:one|the)\s+side\s+of\s+(?:his|her|their|its|my|your|our|the)\s+"
            r"(?:[\w'-]+\s+)?(?:face|head)|(?:his|her|their|its|my|your|our|the)\s+nose\s+(?:points?|pointing)\s+"
            r"(?:to|toward|towards)\s+(?:the\s+)?(?:frame\s+|screen\s+)?(?:left|right)|"
            r"(?:half|one\s+half)\s+of\s+(?:his|her|their|its|my|your|our|the)\s+face)(?![\w-])", re.I),
            "profile", needs=("side of", "nose", "half of")),
        # "we see her back", "shows his back", "with her back to us", "the back of his head".
        Pattern(SO, re.compile(
            r"(?:his|her|their|whose|its|my|your|our)\s+backs?\s+(?:is\s+|are\s+)?(?:to|toward|towards|facing)\s+"
            r"(?:us|the\s+viewer|the\s+audience|the\s+lens|lens|the\s+camera|camera)(?![\w-])|back\s+of\s+"
            r"(?:his|her|their|its|my|your|our)\s+head(?![\w-])|away\s+from\s+(?:the\s+)?(?:camera|lens|us)(?![\w-])",
            re.I), "back", needs=("back", "away")),
        Pattern(SO, re.compile(r"(?:his|her|their|its|my|your|our|(?:the\s+)?[\w-]+(?:'s|’s))\s+backs?"
                               r"(?![\w-])(?!\s+(?:of|pocket|door|seat|wall|garden|yard|row|legs?)\b)",
                               re.I), "back",
                needs=("back",), back=back(r"(?:shows?|showing|see|sees|seeing|seen|turns?|"
                                            r"turning|turned|presents?)(?:\s+only)?(?:\s+us)?")),
        # Orientation through where the subject looks or moves: "faces us", "jogging toward the
        # camera", "her face is turned up toward the lens", "turned three-quarters toward the
        # camera", "running straight at us".
        Pattern(SO, re.compile(rf"(?:to|toward|towards|at|into|down|in\s+front\s+of)\s+{_TOWARD_US}",
                               re.I), _orientation_value,
                starts=frozenset(("to", "toward", "towards", "at", "into", "in", "down")),
                needs=("camera", "lens", "us", "you", "viewer", "audience", " it"),
                back=back(rf"(?:(?:half|partly|partially|slightly|three[\s-]*quarters?)[\s-]+)?"
                           rf"(?:{_FACING_VERBS})(?:\s+(?:up|down|round|around|half|three[\s-]*"
                           rf"quarters?|3/4|partly|slightly|directly|straight|right|back|slowly|"
                           rf"forward|sideways|side-on|more|fully))*(?:\s+(?:up|down|along|across|"
                           rf"through|over|out\s+of)\s+(?:the|a|an)\s+[\w'-]+)?")),
        Pattern(SO, re.compile(r"(?<![\w-])(?:faces|facing|face|faced)\s+(?:directly\s+|straight\s+|"
                               r"squarely\s+)?(?:us|you|the\s+viewer|the\s+audience|(?:the\s+)?"
                               r"(?:camera|lens))(?![\w-])", re.I), "frontal",
                needs=("us", "you", "viewer", "audience", "camera", "lens")),
        # "walks away from the camera, then turns to face it": "it" is the camera named before.
        Pattern(SO, re.compile(r"(?<![\w-])(?:faces|facing|face|faced)\s+(?:directly\s+|straight\s+)?it"
                               r"(?![\w-])", re.I), lambda m: _orientation_value(m, m.group(0)),
                needs=(" it",), starts=frozenset(("faces", "facing", "face", "faced"))),
        Pattern(SO, re.compile(r"(?<![\w-])(?:faces|facing|face|faced|turned|turns)\s+(?:to(?:wards?)?\s+)?"
                               r"(?:the\s+)?(?:camera|lens|us)\s+(?:at\s+)?(?:three[\s-]*quarters?|3/4|"
                               r"half[\s-]*way|half)(?![\w-])", re.I), "three-quarter",
                needs=("quarter", "3/4", "half")),
        # Three-quarter back by what little is seen of the face: "turned away so we see her back
        # and a sliver of her cheek".
        Pattern(SO, re.compile(
            r"(?<![\w-])(?:(?:turned|turns|facing|faces)\s+(?:\w+\s+)?away|(?:his|her|their|its|my|your|our)\s+backs?)(?:[\s,]+"
            r"[\w'’-]+){0,8}?\s+(?:(?:and|with|but)\s+(?:just\s+|only\s+)?(?:a\s+sliver|a\s+glimpse|a\s+hint|"
            r"a\s+bit|part|the\s+edge|the\s+curve|a\s+little)\s+of|(?:so|and|but)\s+(?:that\s+)?(?:we|you)\s+"
            r"(?:only\s+|just\s+|can\s+|still\s+)?(?:glimpse|see|catch|make\s+out)(?:\s+(?:a\s+(?:bit|sliver|"
            r"glimpse|hint)|part|the\s+edge)\s+of)?)\s+(?:his|her|their|its|my|your|our|the)\s+(?:cheek|face|"
            r"profile|jaw|jawline|nose|ear)(?![\w-])", re.I), "three-quarter back",
            needs=("sliver", "glimpse", "hint", "bit", "part", "edge", "curve", "little", "see", "catch",
                   "make out")),
        # Mostly turned away: "turned mostly away from us", "half turned away" (three-quarter back).
        Pattern(SO, re.compile(
            r"(?<![\w-])(?:(?:turned|turns|turning|facing|faces)\s+(?:mostly|largely|partly|partially|"
            r"half|halfway|slightly)\s+away|(?:mostly|largely|partly|partially|half|halfway|slightly)"
            r"[\s-]+(?:turned|turns|turning|facing)\s+away)(?![\w-])", re.I), "three-quarter back",
            needs=("away",)),
        Pattern(SO, re.compile(r"three[\s-]+quarters?(?=\s+(?:to|toward|towards|turned|"
                               r"view|profile|angle|on)\b)", re.I), "three-quarter",
                needs=("quarter",)),
        # "turned three-quarters", "angled 3/4": the subject's turn as an adverb.
        Pattern(SO, re.compile(r"(?<![\w-])(?:turned|turns|turning|angled|rotated|facing|faces|sits|"
                               r"sitting|stands|standing)\s+(?:about\s+|roughly\s+)?(?:three[\s-]+quarters?|3/4)"
                               r"(?![\w-])(?!\s+(?:back|rear|away))", re.I), "three-quarter",
                needs=("quarter", "3/4")),
        # Shallow focus by what alone is sharp: "only her eyes are sharp", "only the front runner
        # is in focus".
        Pattern(DF, re.compile(
            r"(?<![\w-])only\s+(?:(?:the|her|his|their|its|a|one)\s+)?(?:[\w'-]+\s+){0,4}?(?:is|are|stays?|"
            r"remains?)\s+(?:(?:in\s+)?(?:sharp\s+|crisp\s+)?focus|sharp|crisp|clear)(?![\w-])", re.I),
            "shallow depth of field", needs=("only",)),
        # Shot size by what fills the frame: "her face fills the frame" (close-up).
        Pattern(SS, re.compile(
            r"(?<![\w-])(?:face|head|eye|eyes|mouth|lips|hand|hands|fingers)\s+(?:almost\s+|nearly\s+|"
            r"completely\s+|entirely\s+)?(?:(?:fills?|filling|fill)(?:\s+up)?|takes\s+up|taking\s+up|"
            r"occupies|occupying)\s+(?:(?:most|all|much|nearly\s+all|almost\s+all)\s+of\s+)?(?:the\s+)?"
            r"(?:whole\s+|entire\s+)?(?:frame|screen|shot|image|picture)(?![\w-])", re.I), "close-up",
            needs=("fill", "takes up", "taking up", "occup")),
        # The dutch angle by its horizon: "the horizon runs diagonally", "a slanted horizon".
        Pattern(CA, re.compile(
            r"(?<![\w-])horizon\s+(?:is\s+|runs\s+|sits\s+|lies\s+|line\s+)?(?:\w+\s+)?(?:tilted|"
            r"slanted|slanting|slants|askew|diagonal(?:ly)?|crooked|off-kilter|skewed|at\s+an\s+angle)"
            r"(?![\w-])|(?:slanted|slanting|crooked|skewed|diagonal|off-kilter)\s+horizon(?![\w-])",
            re.I), "dutch angle", needs=("horizon",)),
        # The dutch angle by the frame itself: "the frame is tilted sideways", "the image sits
        # askew", "the whole picture is canted" (not "the camera is tilted up": a direction).
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:frame|image|picture|shot|view|framing|composition)\s+(?:(?:is|sits|stays|remains|"
            r"looks|appears|seems|leans|hangs)\s+(?:\w+\s+)?)?(?:tilted|canted|slanted|skewed|askew|"
            r"off-kilter|crooked|tipped|at\s+an\s+angle|on\s+a\s+slant|diagonal(?:ly)?)(?![\w-])"
            r"(?!\s+(?:up|down|upward|downward|toward|towards)\b)",
            re.I), "dutch angle", needs=("tilted", "canted", "slanted", "skewed", "askew", "kilter",
                                         "crooked", "tipped", "angle", "slant", "diagonal")),
        # Overhead through the camera looking straight down.
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:looks|looking|look|points|pointing|aimed|aims)\s+(?:straight|directly|"
            r"vertically)\s+down(?![\w-])", re.I), "overhead", camera_only=True,
            needs=("down",)),
        # Orientation implied by where the camera follows from: "a follow shot behind the soldier".
        Pattern(SO, re.compile(r"behind(?=\s+(?:the|a|an|his|her)\s)", re.I), "back",
                needs=("behind",), claim_back=False,
                back=back(r"(?:follow(?:ing)?|tracking|trailing|chasing)\s+(?:shot\s+|camera\s+)?"
                           r"(?:from\s+)?(?:just\s+|right\s+|close\s+)?")),
        # Point of view described: "through the driver's eyes", "we see what she sees".
        Pattern(SP, re.compile(
            r"(?:through\s+(?:the\s+)?(?:[\w'’-]+\s+){0,2}?eyes|(?:see|sees|seen|look|looks|watch)\s+"
            r"(?:it\s+|everything\s+)?(?:from|with)\s+(?:his|her|their|the\s+[\w'’-]+(?:'s|’s))\s+"
            r"(?:own\s+)?eyes|we\s+see\s+what\s+"
            r"(?:he|she|they|the\s+\w+)\s+sees?|from\s+(?:the\s+)?(?:[\w'’-]+(?:'s|’s)|his|her|their|my|your|our)\s+"
            r"(?:own\s+)?(?:point\s+of\s+view|perspective|viewpoint|eyes))(?![\w-])", re.I), "pov",
            needs=("eyes", "sees", "point of view", "perspective", "viewpoint")),
        # Fast motion described: "the video is sped up", "speed up footage".
        Pattern(SP, re.compile(r"(?:sped|speed|speeded|speeds)[\s-]+up(?![\w-])", re.I),
                "fast motion", needs=("sped", "speed"),
                back=back(r"(?:video|footage|clip|film|image|action|playback|it|everything|shot)"
                           r"(?:\s+(?:is|was|looks|appears|seems))?")),
        # Speed against real time: "the video is more slow than normal", "faster than real life".
        Pattern(SP, re.compile(r"(?<![\w-])(slower|more\s+slow|more\s+slowly|faster|more\s+fast|quicker)"
                               r"\s+than\s+(?:in\s+)?(?:normal|usual|real(?:\s+|-)(?:life|time)|reality|"
                               r"normal\s+speed|the\s+real\s+speed)(?![\w-])", re.I),
                lambda m, _: "slow motion" if "slow" in m.group(1).lower() else "fast motion",
                needs=("than",),
                back=back(r"(?:video|footage|clip|film|image|action|playback|it|everything|shot|"
                           r"motion|movement|everything\s+moves|they\s+move|it\s+plays|plays)"
                           r"(?:\s+(?:is|was|looks|appears|seems|goes|runs|moves))?"),
                claim_back=False),
        # The camera leaving the subject: "camera go far from him", "goes further away from her".
        Pattern(CM, re.compile(r"(?<![\w-])(?:go|goes|going|went|gone|get|gets|getting|got|move|moves|"
                               r"moving|moved)\s+(?:far|farther|further|away)\s+(?:away\s+)?from"
                               r"(?![\w-])", re.I), "dolly out", camera_only=True,
                needs=("from",)),
        # Non-native heights: "we look him from up" (high), "from down" at a clause's end (low).
        Pattern(CA, re.compile(r"(?<![\w-])from\s+(up|down)(?=\s*(?:[.,;)]|$))", re.I),
                lambda m: "high angle" if m.group(1).lower() == "up" else "low angle",
                needs=("from up", "from down"), starts=frozenset(("from",))),
        # Profile by the subject turned to the side: "turned fully to the side", "turns sideways".
        Pattern(SO, re.compile(
            r"(?<![\w-])(?:turned|turns|turning|turn|facing|faces|stands|standing|sits|sitting)\s+(?:fully\s+|"
            r"completely\s+|squarely\s+|side\s+)?(?:to\s+(?:the|one)\s+side|sideways|side-on|side\s+on)"
            r"(?![\w-])", re.I), "profile", needs=("side",)),
        # The whole body seen: "we see all his body", "her entire body in frame" (full shot).
        Pattern(SS, re.compile(
            r"(?<![\w-])(?:all\s+(?:of\s+)?(?:his|her|their|its|my|your|our|the)|(?:his|her|their|its|my|your|our|the)\s+(?:whole|entire|"
            r"full)|the\s+whole|entire)\s+(?:body|bodies|figure|figures|person)(?![\w-])", re.I),
            "full shot", needs=("body", "bodies", "figure", "person")),
        # Full shot by the whole subject in frame: "the whole car is visible from bumper to
        # bumper", "from head to foot", "his entire figure fits in the frame".
        Pattern(SS, re.compile(
            r"(?<![\w-])(?:(?:the|its|his|her|their)\s+(?:whole|entire|full)\s+(?:body|figure|person|car|"
            r"bus|truck|van|bike|bicycle|motorbike|motorcycle|horse|boat|train|plane|statue|[\w-]+(?:er|or|"
            r"ist|man|woman|girl|boy|child|dog|cat))\s+(?:is\s+|are\s+)?"
            r"(?:visible|in\s+(?:the\s+)?(?:frame|shot|view|picture)|fits?\s+(?:in|into)\s+(?:the\s+)?frame)|"
            r"from\s+(?:bumper|nose|head|top|tip|hat|crown)\s+(?:to|until|till)\s+(?:bumper|tail|toe|toes|"
            r"foot|feet|bottom|boots?|shoes?))(?![\w-])", re.I), "full shot",
            needs=("visible", "frame", "shot", "view", "picture", "bumper", "head", "nose", "top", "tip"),
            starts=frozenset("the its his her their from".split())),
        # Seen from far away: "shot from really far away", "filmed from a great distance" (wide).
        Pattern(SS, re.compile(
            r"(?<![\w-])(?:from\s+(?:really\s+|very\s+|quite\s+|so\s+|pretty\s+)?far\s+away|from\s+a\s+"
            r"(?:great\s+|long\s+|far\s+|big\s+)?distance)(?![\w-])", re.I), "wide shot",
            needs=("far away", "distance"),
            back=back(r"(?:shot|seen|filmed|viewed|framed|captured|recorded|see\s+(?:it|him|her|them|"
                       r"everything|the\s+[\w'-]+))(?:\s+(?:all|only|just))?"), claim_back=False),
        # Size by where we are or what we see: "we are very near to his face" (close-up), "we
        # see the whole kitchen" (a place seen whole: wide).
        Pattern(SS, re.compile(
            r"(?<![\w-])(?:very|really|so|quite|extremely|super|right)\s+(?:near|close)\s+(?:to|on)\s+"
            r"(?:his|her|their|its|the|[\w'’-]+(?:'s|’s))\s+(?:[\w-]+\s+)?(?:face|eyes?|mouth|lips|hands?|"
            r"fingers)(?![\w-])", re.I), "close-up", needs=("near", "close")),
        Pattern(SS, re.compile(
            rf"(?<![\w-])(?:(?:we|you)\s+(?:can\s+)?(?:see|view|take\s+in)|taking\s+in|takes\s+in|(?:fov|"
            rf"field\s+of\s+view|frame|framing|shot|view|lens)\s+(?:covers|covering|takes\s+in|spans|"
            rf"includes|holds))\s+(?:(?:the|this)\s+(?:whole|entire)|entire|whole|all\s+(?:of\s+)?the)\s+"
            rf"(?:[\w-]+\s+)?(?:{_PLACES})(?![\w-])", re.I), "wide shot",
            needs=("whole", "entire", "all the", "all of the"),
            starts=frozenset("we you taking takes fov field frame framing shot view lens".split())),
        # A point of view told as being the subject: "as if we were him", "we are the cat".
        Pattern(SP, re.compile(
            r"(?<![\w-])(?:as\s+(?:if|though)\s+(?:we|you)\s+(?:were|are)\s+(?:him|her|them|the\s+[\w'-]+|"
            r"in\s+(?:his|her|their|the\s+[\w'-]+(?:'s|’s))\s+(?:shoes|head|eyes|place))|"
            r"(?:we|you)\s+(?:see|look)\s+(?:exactly\s+)?(?:what|as)\s+(?:he|she|they|the\s+\w+)\s+"
            r"(?:sees?|looks?|does))(?![\w-])", re.I), "pov", needs=("as if", "as though", "we see", "we look",
                                                              "you see")),
        # A rack focus by what comes into focus: "then the woman behind him comes into focus".
        Pattern(DF, re.compile(
            r"(?<![\w-])(?:comes?|coming|came|snaps?|snapped|pops?|popped|slides?|slid|drifts?|"
            r"drifted|pulls?|pulled)\s+(?:slowly\s+|gradually\s+|sharply\s+)?into\s+(?:sharp\s+)?"
            r"focus(?![\w-])|(?:then|as|while|until)\s+(?:the\s+[\w'-]+\s+(?:behind|in\s+front|in\s+the\s+"
            r"(?:back|background|foreground))?\s*)?(?:\w+\s+){0,3}?(?:becomes?|turns?|grows?)\s+sharp",
            re.I), "rack focus", needs=("into focus", "into sharp focus", "sharp")),
        # "… and the far walls are equally sharp", "and the distant hills are all in focus".
        Pattern(DF, re.compile(
            r"(?<![\w-])and\s+(?:the\s+|those\s+)?(?:far|farthest|furthest|distant|background|faraway)\b"
            r"(?:\s+[\w'-]+){0,4}?\s+(?:are|is|stay|stays|remain|remains|look|looks)\s+(?:both\s+|all\s+|"
            r"equally\s+|also\s+)?(?:sharp|crisp|in\s+(?:sharp\s+)?focus|clear)(?![\w-])|(?<![\w-])(?:are|look|stay|"
            r"remain)\s+equally\s+(?:sharp|crisp|in\s+focus|clear)(?![\w-])", re.I), "deep focus",
            needs=("sharp", "crisp", "focus", "clear"), starts=frozenset(("and", "are", "look", "stay",
                                                                        "remain"))),
        # "both the cactus beside the lens and the cliffs miles away are in crisp focus".
        Pattern(DF, re.compile(
            r"(?<![\w-])both\s+(?:the\s+|a\s+|an\s+)?[\w'-]+(?:\s+[\w'-]+){0,5}?\s+and\s+(?:the\s+|a\s+)?[\w'-]+"
            r"(?:\s+[\w'-]+){0,5}?\s+(?:are|stay|remain|look|appear)\s+(?:both\s+|all\s+|equally\s+)?(?:sharp|"
            r"crisp|clear|in\s+(?:sharp\s+|crisp\s+|clear\s+)?focus)(?![\w-])", re.I), "deep focus",
            needs=("sharp", "crisp", "clear", "focus"), starts=frozenset(("both",))),
        # Deep focus by two things both sharp: "the nearest lamppost and the church at the end
        # are both crisp".
        Pattern(DF, re.compile(
            r"(?<![\w-])(?<!only\s)(?<!only\sthe\s)(?:both\s+)?(?:the\s+)?(?:near|nearest|closest|foreground|front)\b"
            r"(?:\s+[\w'-]+){0,5}?"
            r"\s+and\s+(?:the\s+)?(?:[\w'-]+\s+){0,5}?(?:are|stay|remain|look)\s+(?:both\s+|all\s+|equally\s+)?"
            r"(?:sharp|crisp|in\s+(?:sharp\s+)?focus|clear)(?![\w-])", re.I), "deep focus",
            needs=("sharp", "crisp", "focus", "clear")),
        # Speed described: "played back at a fraction of real speed", "slower than real time".
        Pattern(SP, re.compile(
            r"(?<![\w-])(?:(?:a\s+)?(?:fraction|half|quarter|third)\s+(?:of\s+)?(?:the\s+)?(?:real|normal|"
            r"natural|actual|regular)[\s-]+(?:speed|time|tempo)|slower\s+than\s+(?:in\s+)?(?:real|normal|"
            r"natural)(?:[\s-]+(?:speed|time|life))?)(?![\w-])", re.I), "slow motion",
            needs=("speed", "time", "tempo", "slower than")),
        Pattern(SP, re.compile(
            r"(?<![\w-])(?:faster\s+than\s+(?:in\s+)?(?:real|normal|natural)(?:[\s-]+(?:speed|time|life))?|"
            r"(?:two|three|four|several|many|\d+)\s+times\s+(?:the\s+)?(?:real|normal|natural)[\s-]+speed)"
            r"(?![\w-])", re.I), "fast motion", needs=("faster than", "times")),
        # A dolly zoom by its effect: "the corridor behind her seems to stretch away while she
        # stays the same size".
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:stretch(?:es|ed|ing)?|warps?|warping|warped)\s+(?:away|back|out|into\s+the\s+"
            r"distance)(?![\w-])", re.I), "dolly zoom", needs=("stretch", "warp")),
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:looks|looking|look|points|pointing|aimed|aims|angled|tilted)\s+(?:straight|"
            r"directly|vertically)\s+up(?:wards?)?(?![\w-])", re.I), "worm's-eye view", camera_only=True,
            needs=("up",)),
        # The camera angled up or down at the subject: "placed near the ground and angled upward".
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:angled|aimed|pointed|tipped|(?<=is\s)tilted|(?<=and\s)tilted|tilted(?=\s+\w+\s+"
            r"(?:at|toward|towards)\s))\s+(?:slightly\s+|sharply\s+|steeply\s+)?"
            r"(up|upward|upwards|down|downward|downwards)(?![\w-])", re.I),
            lambda m: "low angle" if m.group(1).lower().startswith("up") else "high angle",
            camera_only=True, needs=("angled", "aimed", "pointed", "tipped", "tilted")),
        Pattern(SP, re.compile(r"(?:sped|speeded)[\s-]+up\s+(?:video|footage|clip|playback|action)"
                               r"(?![\w-])", re.I), "fast motion", needs=("sped", "speeded")),
    ]


_BODY_CUT = {"chest": "medium close-up", "shoulders": "medium close-up", "shoulder": "medium close-up",
             "bust": "medium close-up", "waist": "medium shot", "hips": "medium shot",
             "hip": "medium shot", "belt": "medium shot", "midriff": "medium shot", "navel": "medium shot",
             "stomach": "medium shot", "knees": "medium full shot", "knee": "medium full shot",
             "thighs": "medium full shot", "thigh": "medium full shot", "mid-thigh": "medium full shot"}


def _body_cut_value(m: re.Match) -> str | None:
    part = (m.group(1) or m.group(2) or m.group(3) or "").lower().replace(" ", "-")
    return _BODY_CUT.get(part, "full shot" if not part else None)


def size_by_body_patterns() -> list[Pattern]:
    """Shot size by where the frame cuts the body: "framed from the chest up", "a waist-up
    shot", "cut at the knees", "head and shoulders" (medium close-up), "head to toe" (full)."""
    parts = "|".join(sorted(_BODY_CUT, key=len, reverse=True))
    return [Pattern(SS, re.compile(
        rf"(?<![\w-])(?:from\s+(?:the\s+|his\s+|her\s+|their\s+)?)?({parts})[\s-]+(?:to\s+)?up(?![\w-])|"
        rf"(?<![\w-])(?:cut|cropped|framed|ends?|ending)\s+(?:off\s+)?(?:at|just\s+(?:above|below))\s+"
        rf"(?:the\s+|his\s+|her\s+|their\s+)?({parts})(?![\w-])|"
        rf"(?<![\w-])(?:until|till|down\s+to|up\s+to|as\s+far\s+as)\s+(?:the\s+|his\s+|her\s+|their\s+)?({parts})(?![\w-])|"
        rf"(?<![\w-])head[\s-]+(?:and|&)[\s-]+shoulders(?![\w-])|"
        rf"(?<![\w-])(?:from\s+)?head\s+to\s+(?:toe|toes|feet|foot)(?![\w-])", re.I),
        lambda m: _body_cut_value(m) if (m.group(1) or m.group(2) or m.group(3)) else (
            "medium close-up" if "shoulder" in m.group(0).lower() else "full shot"),
        needs=("up", "cut", "cropped", "framed", "end", "shoulder", "toe", "feet", "foot", "until",
               "till", "down to", "as far as"))]


#: Places a caption shows whole in a wide shot ("we see the whole kitchen").
_PLACES = (r"kitchen|room|hall|hallway|corridor|street|square|plaza|park|field|meadow|valley|city|"
           r"town|village|landscape|forest|beach|stadium|arena|stage|church|house|building|garden|"
           r"yard|courtyard|office|classroom|restaurant|bar|market|station|platform|harbou?r|port|"
           r"lake|river|bay|coast|desert|mountain|mountains|range|skyline|bridge|road|highway|farm|"
           r"barn|warehouse|factory|gym|library|lobby|parking\s+lot|island|level|floor|dock|aisle|bowl|"
           r"skatepark|garage|deck|pier|auditorium|apartment|interior|pitch|court|rink|lot|slope|set")


def described_shot_patterns() -> list[Pattern]:
    """Special shots and angles described rather than named: "shot from behind her shoulder",
    "we look over his shoulder at the guest" (over the shoulder); "a neutral, straight-on
    angle", "at the subject's eye height", "level with her eyes" (eye level)."""
    return [
        Pattern(SP, re.compile(
            r"(?:over|past|behind|across)\s+(?:the\s+|his\s+|her\s+|their\s+|one\s+|someone's\s+|an?\s+)?"
            r"(?:[\w'’-]+(?:'s|’s)\s+)?(?:[\w'-]+\s+)?shoulders?(?![\w-])", re.I),
            "over the shoulder", needs=("shoulder",),
            back=back(r"(?:shot|seen|framed|filmed|viewed|looking|looks|look|camera|see|view|"
                       r"angle|placed|positioned|from|lens|peer|peers|peering|POV|close-up|closeup|"
                       r"medium|wide|framing|frame|MCU|CU|MS|two-shot|single|OTS|angle|(?:close|tight)\s+on)"
                       r"(?:\s+[\w'’-]+){0,3}?"
                       r"(?:\s+from)?"), claim_back=False),
        # Screenplay and shot lists open with the shot: "OVER HIS SHOULDER — MCU on her",
        # "Over Mark's shoulder onto Jess" (not "she glances over her shoulder").
        Pattern(SP, re.compile(
            r"over\s+(?:the\s+|his\s+|her\s+|their\s+|[\w'’-]+(?:'s|’s)\s+)shoulders?(?![\w-])"
            r"(?=\s*(?:[—–:,.(-]|onto\b|on\s+to\b|to\s+(?:the|a|an|his|her|him)\b|$))", re.I),
            "over the shoulder", needs=("shoulder",),
            back=back(r"^|(?<=[.;:!?—–(\[\n])"), claim_back=False),
        # A fragment of a shot list: "HIS back in FG left.", "her back, frame right."
        Pattern(SO, re.compile(r"(?:his|her|their)\s+backs?(?=\s*(?:[,.;)—–]|in\b|at\b|on\b|to\s+"
                               r"(?:us|camera|lens|the\s+camera|the\s+lens)\b|$))", re.I),
                "back", needs=("back",), back=back(r"^|(?<=[.;:!?—–(\[\n])"), claim_back=False),
        Pattern(SP, re.compile(r"(?:over|past|behind)\s+(?:the\s+|his\s+|her\s+|their\s+|"
                               r"[\w'’-]+(?:'s|’s)\s+)(?:[\w'-]+\s+)?shoulders?\s*,\s*(?:we|the\s+"
                               r"camera)\s+(?:see|sees|look|looks|watch|watches)", re.I),
                "over the shoulder", needs=("shoulder",)),
        Pattern(CA, re.compile(
            r"neutral(?=(?:\s*,?\s*[\w-]+){0,2}?\s+(?:angle|height|view|perspective|position|"
            r"camera\s+height|eye\s+line))|(?:at|from)\s+(?:the\s+)?(?:[\w'’-]+(?:'s|’s)\s+|his\s+|"
            r"her\s+|their\s+|the\s+)?(?:standing\s+|normal\s+|human\s+|adult\s+|average\s+|natural\s+|"
            r"seated\s+|sitting\s+)?(?:eye|head|face)[\s-]+(?:height|level|line)|level\s+with\s+"
            r"(?:his|her|their|the\s+[\w'’-]+(?:'s|’s)|the)\s+(?:eyes|eye\s+line|eyeline|face|head)|"
            r"(?:at|in|on)\s+(?:the\s+)?height\s+of\s+(?:the\s+|his\s+|her\s+|their\s+|a\s+person's\s+)?"
            r"(?:eyes|eye|face|head)|(?<=camera\s)(?:is|sits|stays|remains)\s+level\s+with\s+(?:the\s+|his\s+|her\s+)?"
            r"(?:subject|actor|actress|person|him|her|them|[\w-]+(?:er|or|ist|man|woman|girl|boy|child))|"
            r"(?:in|at)\s+(?:the\s+)?level\s+of\s+(?:the\s+|his\s+|her\s+|their\s+)?"
            r"(?:eyes|eye|face|head)|(?:same|equal)\s+height\s+(?:as|of|with)\s+(?:the\s+|his\s+|her\s+|"
            r"their\s+|a\s+person's\s+)?(?:eyes|eye\s+line|eyeline|face|head|subject|him|her|them)",
            re.I), "eye level", needs=("neutral", "height", "level", "line")),
    ]


#: Nouns a position word can qualify as an adjective ("the left person", "right man").
PERSON_NOUNS = frozenset(
    "person man woman figure subject one character child boy girl dancer player actor actress "
    "speaker rider runner people men women guy officer soldier musician singer".split())


def position_adjective_patterns() -> list[Pattern]:
    """A position as an adjective of the subject: "the left person faces us, the right one turns
    away", "left man frontal"."""
    nouns = "|".join(sorted(PERSON_NOUNS))
    return [Pattern(CO, re.compile(
        rf"(?<![\w-])(left|right|cent(?:er|re)|middle)(?=\s+(?:(?:{nouns})\b|([a-z]+(?:er|or|ist|ian|ess)s?)\b"
        rf"(?!\s+(?:of|side|edge|corner|half|third|part)\b)))", re.I),
        # a role noun too: "Left caster is showing …, right caster looks …" (not "left speaker"
        # when no person: animate() decides, with its list of things in -er)
        lambda m: _POS_VALUE[m.group(1).lower()] if not m.group(2) or animate(m.group(2).lower()) else None,
        needs=("left", "right", "cent", "middle"))]


_POS_VALUE = {"left": "left", "right": "right", "center": "center", "centre": "center",
              "middle": "center"}


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


def posture_position_patterns() -> list[Pattern]:
    """A position after a verb of being somewhere or of being placed: "the manager sits centre",
    "she stands frame left", "he sits to the right, in profile", "framed center", "placed left"."""
    return [Pattern(CO, re.compile(
        r"(?<![\w-])(?:framed|placed|positioned|set|located|staged|composed|kept|held|seen)\s+(?:(?:to|on|at|in)"
        r"\s+)?(?:the\s+)?(?:frame\s+|screen\s+)?(cent(?:er|re)(?:[\s-]+(?:left|right))?|middle|left|right)"
        r"(?:\s+of\s+(?:the\s+)?(?:frame|screen|image|shot)|\s+(?:side|edge|third|half))?"
        r"(?=\s*(?:[,.;:)]|$|and\b|facing\b|in\b|with\b|while\b|as\b|looking\b|turned\b))", re.I),
        _motion_position_value, needs=("left", "right", "cent", "middle"),
        starts=frozenset("framed placed positioned set located staged composed kept held seen".split())),
        Pattern(CO, re.compile(
        r"(?<![\w-])(?:sits|sit|sitting|sat|stands|stand|standing|stood|kneels|kneeling|lies|lying|"
        r"waits|waiting|remains|stays|staying|is|are|appears|perches|leans|leaning)\s+(?:(?:to|on|at|in)"
        r"\s+)?(?:the\s+)?(?:frame\s+|screen\s+)?(cent(?:er|re)(?:[\s-]+(?:left|right))?|middle|left|right)"
        r"(?:\s+of\s+(?:the\s+)?(?:frame|screen|image|shot)|\s+(?:side|edge|third|half))?"
        r"(?=\s*(?:[,.;:)]|$|and\b|facing\b|in\b|with\b|while\b|as\b|looking\b|turned\b))", re.I),
        _motion_position_value, needs=("left", "right", "cent", "middle"),
        starts=frozenset("sits sit sitting sat stands stand standing stood kneels kneeling lies lying "
                         "waits waiting remains stays staying is are appears perches leans "
                         "leaning".split()))]


def _camera_verb_forms() -> str:
    return "|".join(sorted((f for f, fams in _FAMILIES_OF.items() if set(fams) - {"move"}),
                           key=len, reverse=True))


#: Verbs that place a subject in the frame ("positioned toward the right side of the frame").
_PLACING = ("positioned|placed|set|located|situated|framed|sits|sitting|sat|stands|standing|stood|"
            "is|are|was|were|remains|stays|kept|seen")


def motion_position_patterns() -> list[Pattern]:
    """Positions that change over time, stated by how the subject moves (issue 16): "walks from
    the left side of frame to the right side" (left, then right), "enters left", "crosses to the
    center", "exits frame right". A bare direction without the frame ("walks to the right")
    is motion, not a position; "center" is always a place in the frame."""
    pos = r"(left|right|cent(?:er|re)|middle)"
    frame = (r"(?:\s+(?:side|edge|half|third|part|corner))?(?:\s+of\s+(?:the\s+)?"
             r"(?:frame|screen|image|shot|picture))?")
    verbs = forms("walk run jog move cross go step drift slide ride drive come pass travel head "
                   "roll fly swim skate cycle crawl stroll hurry rush race dance glide float wander "
                   "trudge stride march sprint limp stagger shuffle scurry dash gallop trot canter "
                   "sail paddle row swing climb leap jump hop skip zoom speed") + \
        "|went|ran|rode|drove|came|flew|strode|swam"
    # Any other verb of the subject ("the horse careers from frame left to frame right"), but not
    # a camera move ("the camera pans from left to right" is the camera's).
    any_verb = rf"(?!(?:{_camera_verb_forms()})\b)[a-z]{{3,}}(?:s|es|ed|ing)"
    # … nor a gaze or a gesture toward a side ("looking toward frame left" is no place)
    moving_verb = rf"(?!(?:look|stare|gaz|glanc|peer|fac|point|turn|nod|gestur|wav|aim|smil|gesticulat)\w*\b){any_verb}"
    return [
        Pattern(CO, re.compile(
            rf"from\s+(?:the\s+)?(?:frame\s+|screen\s+)?{pos}{frame}\s+(?:to|toward|towards|into)"
            rf"\s+(?:the\s+)?(?:frame\s+|screen\s+)?{pos}{frame}(?![\w-])", re.I),
            _motion_position_value, needs=("from",),
            back=back(rf"(?:{verbs})(?:\s+[\w'-]+){{0,4}}?")),
        # With the frame named on both sides, any verb of the subject: "the horse careers from
        # frame left to frame right".
        Pattern(CO, re.compile(
            rf"from\s+(?:the\s+)?(?:(?:frame|screen)\s+{pos}|{pos}\s+(?:side|edge)?\s*of\s+(?:the\s+)?"
            rf"(?:frame|screen))\s+(?:to|toward|towards|into)\s+(?:the\s+)?(?:(?:frame|screen)\s+{pos}|{pos}"
            rf"(?:\s+(?:side|edge))?\s+of\s+(?:the\s+)?(?:frame|screen))(?![\w-])", re.I),
            _motion_position_value, needs=("from",), starts=frozenset(("from",)),
            back=back(rf"(?:{any_verb})(?:\s+[\w'-]+){{0,4}}?"), nearest=True),
        Pattern(CO, re.compile(
            rf"(?<![\w-])(?:enter|exit|leave|emerge|appear|disappear|(?:walk|come|run|move|step|drive|ride|"
            rf"fly|swim|wander|stroll|drift|slide|roll)(?:s|es|ed|d|ing|ning)?\s+in|came\s+in|ran\s+in|"
            rf"rode\s+in|drove\s+in)(?:s|es|ed|ing)?(?:\s+(?:the\s+)?"
            rf"(?:frame|shot|screen|picture))?\s+(?:from\s+|to\s+|at\s+|on\s+|through\s+)?"
            rf"(?:the\s+)?(?:frame\s+|screen\s+)?{pos}{frame}(?![\w-])", re.I),
            _motion_position_value, needs=("enter", "exit", "leav", "emerg", "appear", " in from")),
        Pattern(CO, re.compile(
            rf"(?:to|toward|towards|into|at|in)\s+(?:the\s+)?(?:(?:frame|screen)\s+)?"
            rf"(cent(?:er|re)(?:[\s-]+(?:left|right))?|middle|(?:left|right)\s+of\s+cent(?:er|re))"
            rf"{frame}(?![\w-])", re.I), _motion_position_value,
            needs=("center", "centre", "middle"),
            back=back(rf"(?:{verbs}|stops?|stopped|settles?|ends?\s+up|arrives?|[a-z]+(?:s|ed|ing))(?:\s+(?:back\s+)?"
                       rf"(?:over|across|in|into|up|down))?")),
        # "dribbles through the centre", "passes across the middle of the frame".
        Pattern(CO, re.compile(
            rf"(?:through|across|past)\s+(?:the\s+)?(?:(?:frame|screen)\s+)?(cent(?:er|re)|middle)"
            rf"{frame}(?![\w-])", re.I), _motion_position_value,
            needs=("center", "centre", "middle"),
            back=back(r"[a-z]+(?:s|es|ed|ing)(?:\s+(?:back|right|straight|directly))?")),
        # "moves over to the right side": a side is a place, not only a direction.
        Pattern(CO, re.compile(
            rf"(?:to|toward|towards|into|onto)\s+the\s+(?:far\s+)?{pos}\s+(?:side|edge|half|third|"
            rf"corner)(?![\w-])(?!\s+of\s+(?:the\s+)?(?!frame|screen|image|shot|picture)[a-z])",
            re.I), _motion_position_value, needs=("side", "edge", "half", "third", "corner"),
            back=back(rf"(?:{verbs}|{_PLACING})(?:\s+(?:back\s+)?(?:over|across|more|slightly|"
                       rf"somewhat|a\s+bit|a\s+little|well|off|further))?")),
        # "crosses the center", "passing the middle of the frame": a place passed through.
        Pattern(CO, re.compile(
            rf"(?<![\w-])(?:cross(?:es|ed|ing)?|travers(?:e|es|ed|ing)|pass(?:es|ed|ing)?)\s+"
            rf"(?:the\s+)?(?:(?:frame|screen)\s+)?(cent(?:er|re)|middle){frame}(?![\w-])", re.I),
            _motion_position_value, needs=("center", "centre", "middle"),
            starts=frozenset("cross crosses crossed crossing traverse traverses traversed traversing "
                             "pass passes passed passing".split())),
        # "zooms in from the left", "pushes the cart in from the right": entering by that side.
        Pattern(CO, re.compile(
            rf"(?<![\w-])in\s+from\s+(?:the\s+)?(?:frame\s+|screen\s+)?(left|right){frame}(?![\w-])", re.I),
            _motion_position_value, needs=("from",), starts=frozenset(("in",))),
        # "rides out to the right", "walks off to the left of frame": leaving by that side.
        Pattern(CO, re.compile(
            rf"(?:out|off|away)\s+(?:of\s+(?:the\s+)?(?:frame|shot|picture)\s+)?(?:to|on|at|toward|towards|"
            rf"through)\s+(?:the\s+)?(?:frame\s+|screen\s+)?(left|right){frame}(?![\w-])", re.I),
            _motion_position_value, needs=("out", "off", "away"),
            back=back(rf"(?:{verbs}|exits?|exited|exiting|leaves|left|leaving)")),
        # "reaches the centre", "ends at frame left", "starts on the right side of the frame".
        Pattern(CO, re.compile(
            rf"(?<![\w-])(?:reach(?:es|ed|ing)?|arriv(?:es|ed|ing|e)\s+(?:at|in)|stops?\s+(?:at|in)|"
            rf"(?:ends?|ended|ending)\s+(?:up\s+)?(?:at|in|on)|(?:starts?|started|begins?|began)\s+"
            rf"(?:at|in|on)|settles?\s+(?:at|in))\s+(?:the\s+)?(?:frame\s+|screen\s+)?"
            rf"(cent(?:er|re)(?:[\s-]+(?:left|right))?|middle|left|right){frame}(?![\w-])", re.I),
            _motion_position_value, needs=("reach", "arriv", "stop", "end", "start", "begin",
                                           "began", "settle")),
        Pattern(CO, re.compile(
            rf"(?:to|toward|towards|into)\s+(?:the\s+)?(?:(?:frame|screen)\s+{pos}|{pos}(?:\s+"
            rf"(?:side|edge|half|third|part))?\s+of\s+(?:the\s+)?(?:frame|screen|image|shot|"
            rf"picture))(?![\w-])", re.I), _motion_position_value, needs=("frame", "screen"),
            # the frame named: any verb of the subject ("ambles to frame right"), not a camera move
            back=back(rf"(?:{verbs}|{_PLACING}|{moving_verb})(?:\s+(?:back\s+)?(?:over|across|more|slightly|"
                       rf"somewhat|a\s+bit|a\s+little|well|off|further))?")),
        # "crosses the center", "passing the middle of the frame": a place passed through.
        Pattern(CO, re.compile(
            rf"(?<![\w-])(?:cross(?:es|ed|ing)?|travers(?:e|es|ed|ing)|pass(?:es|ed|ing)?)\s+"
            rf"(?:the\s+)?(?:(?:frame|screen)\s+)?(cent(?:er|re)|middle){frame}(?![\w-])", re.I),
            _motion_position_value, needs=("center", "centre", "middle"),
            starts=frozenset("cross crosses crossed crossing traverse traverses traversed traversing "
                             "pass passes passed passing".split())),
    ]


#: Who or what a height or a face belongs to: "her eyes", "the singer's face".
_WHOSE = r"(?:his|her|their|its|our|my|your|the\s+[\w'-]+(?:'s|’s)?|[\w-]+(?:'s|’s))"


def plain_wording_patterns() -> list[Pattern]:
    """Blind batches 15–16 (docs/judge.md): aspects told in plain or non-native words — the eye
    level by the height of the eyes or by the camera looking straight on, stillness by refusing
    to move, a blurred background named with a parenthesis or a contraction, a close-up by the
    face the shot ends on, a subject that is "off to the right", a side shown to us."""
    return [
        # "on eye height", "at eye-line level", "in the height of the eyes", "eyeline level".
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:(?:at|on|in)\s+(?:the\s+)?(?:same\s+)?(?:eyes?|eye[\s-]?line)[\s-]+"
            r"(?:height|level)|eye[\s-]?line[\s-]+level)(?![\w-])", re.I), "eye level",
            needs=("eye height", "eyes height", "eye-height", "eye level", "eyes level", "eye-level",
                   "line level", "line-level", "line height", "line-height"),
            starts=frozenset("at on in eye eyeline".split())),
        # "on same height like her eyes", "at the same height as his eyes", "at our own height".
        Pattern(CA, re.compile(
            rf"(?<![\w-])(?:at|on|in)\s+(?:the\s+)?same\s+(?:height|level)\s+(?:like|as|with)\s+"
            rf"{_WHOSE}\s+(?:eyes?|face|head)(?![\w-])|(?<![\w-])at\s+(?:our|his|her|their|its)\s+"
            rf"own\s+(?:eye\s+)?(?:height|level)(?![\w-])", re.I), "eye level",
            needs=("same height", "same level", "own height", "own level", "own eye"),
            starts=frozenset("at on in".split())),
        # A terse list item "Level." (screenplay and shot-list shorthand for eye level).
        Pattern(CA, re.compile(r"(?:^|(?<=[.;:]\s)|(?<=\n))(?:LEVEL|[Ll]evel)(?=\s*(?:[.;]|$))"),
                "eye level", needs=("level.", "level;"), starts=frozenset("level".split())),
        # The camera looking straight on at what it films: "looking straight at the buildings"
        # (not at the camera: that is the subject's gaze, an orientation).
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:looking|looks|look|pointed|pointing|points|aimed|aiming|aims)\s+straight\s+"
            r"(?:at|on|ahead\s+at)\s+(?!(?:the\s+)?(?:camera|lens|us|viewer|audience)\b)", re.I),
            "eye level", camera_only=True, needs=("straight at", "straight on", "straight ahead"),
            starts=frozenset("looking looks look pointed pointing points aimed aiming aims".split())),
        # Stillness by refusing to move: "holds it without moving", "the shot just isn't going
        # anywhere", "refuses to budge".
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:without|never)\s+(?:once\s+)?(?:moving|budging|a\s+single\s+move)(?![\w-])|"
            r"(?<![\w-])(?:isn't|isnt|is\s+not|isn’t|doesn't|doesnt|does\s+not|doesn’t|never)\s+(?:go|going|goes)"
            r"\s+anywhere(?![\w-])|(?<![\w-])refus\w*\s+to\s+(?:move|budge)(?![\w-])", re.I), "static",
            camera_only=True, needs=("without moving", "never moving", "without once", "never once",
                                     "budging", "single move", "anywhere", "refus"),
            starts=frozenset("without never isn isnt is doesn doesnt does refuse refuses refused refusing".split())),
        # A background blurred, named with a parenthesis or a contraction between: "the
        # background, full of pots, is softly blurred", "the background's all mushy".
        Pattern(DF, re.compile(
            rf"(?<![\w-])(?:background|backdrop|bg)(?:(?:'s|’s)|,[^,.;]{{1,60}},\s+(?:is|are|stays|remains|"
            rf"looks|goes))\s+(?:(?:all|just|so|really|very|kinda|pretty|quite|softly|gently|nicely|"
            rf"completely|totally|heavily)\s+)?{_BLUR}(?![\w-])", re.I), "shallow depth of field",
            needs=("background", "backdrop", "bg"), starts=frozenset(("background", "backdrop", "bg"))),
        # "a shallow haze of focus", "a shallow plane of focus": shallow with its focus.
        Pattern(DF, re.compile(r"(?<![\w-])shallow\s+(?:[\w-]+\s+){1,2}?of\s+focus(?![\w-])", re.I),
                "shallow depth of field", needs=("of focus",), starts=frozenset("shallow".split())),
        # Walls or surroundings dissolving into a wash: "the trench walls dissolve into an
        # indistinct wash" (a blur around the subject, not a transition).
        Pattern(DF, re.compile(
            r"(?<![\w-])(?:walls?|surroundings|trees|buildings|crowd|room|street|houses|chairs|people)\s+"
            r"(?:\w+\s+)?(?:dissolves?|dissolving|melts?|melting|fades?|fading|blurs?|blurring)\s+into\s+"
            r"(?:an?\s+)?(?:[\w-]+\s+){0,2}?(?:wash|blur|smear|haze|mush|bokeh|softness)(?![\w-])", re.I),
            "shallow depth of field", needs=("dissolv", "melt", "fades into", "fading into",
                                            "blurs into", "blurring into"),
            starts=frozenset("walls wall surroundings trees buildings crowd room street houses chairs people".split())),
        # A close-up by the face the shot ends on: "it ends on her face", "until it's just her
        # face" (not "a tilt-up reveal, ending on his face": where a tilt stops, not a size).
        Pattern(SS, re.compile(
            rf"(?<![\w-])(?:it|we|the\s+(?:shot|frame|camera|zoom|push[\s-]in))\s+(?:\w+ly\s+)?(?:ends|"
            rf"ended|finishes|finished|settles|settled|lands|landed)\s+"
            rf"(?:up\s+)?on\s+{_WHOSE}\s+(?:face|eyes)(?![\w-])|(?<![\w-])(?:it's|it’s|it\s+is|there's|"
            rf"there\s+is)\s+(?:just|only|nothing\s+but|all)\s+{_WHOSE}\s+(?:face|eyes)(?![\w-])", re.I),
            "close-up", needs=("face", "eyes"), starts=frozenset("it we the there".split())),
        # "it's off to the right", "the dog is way off to the left": a place in the frame.
        Pattern(CO, re.compile(
            r"(?:(?<=\w)(?:'s|’s)|(?<![\w-])(?:is|are|sits|stands|stays|sitting|standing|placed|"
            r"positioned))\s+(?:way\s+|a\s+bit\s+|a\s+little\s+|slightly\s+|just\s+)?off\s+to\s+the\s+"
            r"(left|right)(?=\s*(?:[,.;:)]|$|and\b|of\s+(?:the\s+)?(?:frame|screen)\b))", re.I),
            lambda m: m.group(1).lower(), needs=("off to",)),
        # "she is showing her side to us", "shows us his side": profile.
        Pattern(SO, re.compile(
            r"(?<![\w-])(?:shows?|showing|showed|presents?|presenting|gives?|giving|turns?|turning)\s+"
            r"(?:us\s+)?(?:his|her|their|its)\s+side(?:\s+to\s+(?:us|the\s+camera|the\s+lens|the\s+viewer))?"
            r"(?![\w-])", re.I), "profile", needs=("side to", "his side", "her side", "their side", "its side"),
            starts=frozenset("shows show showing showed presents present presenting gives give giving turns turn turning".split())),
        # The camera leading or keeping pace with someone: "a shot leading the soldier",
        # "matching his pace step for step".
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:leads|leading|matching|matches|matched)\s+(?:(?:the|a|an|his|her|their)\s+"
            r"(?:[\w-]+\s+)?(?:pace|stride|steps?|speed)|(?:the|a|an)\s+[\w-]+(?=\s+(?:as|while|through|"
            r"down|along|across|into|toward|towards|up)\b)|(?:him|her|them)(?=\s+(?:as|while|through|"
            r"down|along|across|into|toward|towards)\b))", re.I), "tracking", camera_only=True,
            needs=("lead", "match"), starts=frozenset("leads leading matching matches matched".split())),
        # The camera's own tremor: "its nervous tremor", "the frame's slight jitter".
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:its|the\s+camera(?:'s|’s)|camera(?:'s|’s)|the\s+(?:frame|image|picture|shot)"
            r"(?:'s|’s))\s+(?:[\w-]+\s+)?(?:tremors?|trembling|jitter|jitters|wobble|shakiness|jitteriness)"
            r"(?![\w-])", re.I), lambda m: ("handheld shake", None),  # the possessive names the camera
            needs=("tremor", "trembl", "jitter", "wobble", "shakiness"), starts=frozenset("its the camera".split())),
        # A close-up by being in tight: "we're in tight", "in close on her hands".
        Pattern(SS, re.compile(
            r"(?<![\w-])(?:we're|we’re|we\s+are|we\s+stay|it's|it’s|camera\s+is|camera's|camera’s|stays|"
            r"remains|is|are)\s+(?:in\s+)?(?:really\s+|very\s+|nice\s+and\s+|super\s+)?in\s+(?:tight|close)"
            r"(?=\s*(?:[,.;:)!]|$|on\b|throughout\b))", re.I), "close-up", needs=("in tight", "in close"),
            starts=frozenset("we it camera stays remains is are".split())),
        # A shot-list fragment "Marcus frame left, back to us." (a bare back to the camera).
        Pattern(SO, re.compile(r"(?:BACK|[Bb]ack)\s+to\s+(?:us|(?:the\s+)?(?:camera|lens|viewer))"
                               r"(?=\s*(?:[,.;)—–]|$))", re.I), "back", needs=("back to",),
                back=back(r"^|(?<=[.;:,!?—–(\[\n])"), claim_back=False),
        # Going back before someone is leading them: "the camera retreats before the soldier"
        # (tracking, not a dolly out).
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:retreats?|retreating|retreated|backs\s+away|backing\s+away|backs\s+up|"
            r"backing\s+up|withdraws?|withdrawing)\s+(?:\w+ly\s+)?(?:before|ahead\s+of|in\s+front\s+of)\s+"
            r"(?:the|a|an|him|her|them|his|their)\b", re.I), "tracking", camera_only=True,
            needs=("retreat", "backs away", "backing away", "backs up", "backing up", "withdraw"),
            starts=frozenset("retreat retreats retreating retreated backs backing withdraw withdraws withdrawing".split())),
    ]


def _size_pair_value(m: re.Match, span: str | None = None) -> list[tuple[int, int, str]]:
    sizes = {"wide": "wide shot", "medium": "medium shot", "tight": "close-up", "close": "close-up"}
    return [(m.start(g), m.end(g), sizes[m.group(g).lower()]) for g in (1, 2)]


def _horizon_roll_value(m: re.Match) -> tuple[str, None]:
    # The horizon turns one way on screen when the camera rolls the other way.
    way = m.group(1).lower().replace("-", "")
    return ("roll clockwise" if way in ("counterclockwise", "anticlockwise")
            else "roll counterclockwise"), None


def operator_wording_patterns() -> list[Pattern]:
    """Blind batches 17–18 (docs/judge.md): operators', commentators' and viewers' words — focus
    "razor-thin" or sharp "from the foreground asphalt to the distant mountains", a body cut as a
    range ("from the knees to the head"), a horizon "not straight" or turning on screen (a roll
    the other way), "a Vertigo-style effect" (dolly zoom), "at quarter speed" (slow motion),
    "hours go by in a few seconds" (timelapse), "seen three-quarter from behind", a "detail"
    shot, "punches in on the zoom", "we're high above", "a wide look", "starts medium, ends
    wide", eye level "from the height of the characters' eyes"."""
    parts = "|".join(sorted(_BODY_CUT, key=len, reverse=True))
    return [
        Pattern(DF, re.compile(
            r"(?<![\w-])(?:razor|paper|wafer|hair)[\s-]*thin\s+(?:dof|depth\s+of\s+field|focus(?:\s+plane)?|"
            r"plane\s+of\s+focus|focal\s+plane)(?![\w-])|(?<![\w-])(?:focus|dof|depth\s+of\s+field|focal\s+plane)"
            r"\s+(?:is\s+|was\s+|stays\s+)?(?:\w+\s+)?(?:razor|paper|wafer|hair)[\s-]*thin(?![\w-])", re.I),
            "ultra-shallow depth of field", needs=("thin",),
            starts=frozenset("razor paper wafer hair focus dof depth focal".split())),
        Pattern(DF, re.compile(
            r"(?<![\w-])only\s+a\s+(?:thin|narrow|tiny|small)\s+(?:slice|sliver|band|strip|plane|part)"
            r"(?:\s+of\s+(?:the\s+)?[\w-]+)?\s+(?:is|stays|remains)\s+(?:ever\s+|really\s+)?(?:sharp|in\s+focus|"
            r"crisp)(?![\w-])", re.I), "shallow depth of field", needs=("only a",), starts=frozenset("only".split())),
        Pattern(DF, re.compile(
            r"(?<![\w-])(?:sharp|crisp|in\s+(?:sharp\s+)?focus)\s+from\s+(?:the\s+)?(?:foreground|front|near(?:est)?)"
            r"(?:\s+[\w-]+){0,2}?\s+to\s+(?:the\s+)?(?:distant|far|farthest|background|back)(?![\w-])", re.I),
            "deep focus", needs=("sharp from", "crisp from", "focus from"), starts=frozenset("sharp crisp in".split())),
        # "show from chest to head", "from the knees to the head": where the frame cuts the body.
        Pattern(SS, re.compile(
            rf"(?<![\w-])from\s+(?:the\s+|his\s+|her\s+|their\s+)?({parts})\s+(?:up\s+)?to\s+(?:the\s+|his\s+|"
            rf"her\s+|their\s+)?(?:head|top|hair)(?![\w-])", re.I),
            lambda m: _BODY_CUT[m.group(1).lower()],
            needs=("to head", "to the head", "to his head", "to her head", "to their head", "to top",
                   "to the top", "to hair", "to the hair", "to his hair", "to her hair",
                   "to their hair"), starts=frozenset("from".split())),
        Pattern(CA, re.compile(
            r"(?<![\w-])horizon(?:\s+line)?\s+(?:is\s+not|isn't|isn’t|is\s+never|not)\s+(?:quite\s+)?(?:straight|"
            r"level|flat)(?![\w-])", re.I), "dutch angle", needs=("horizon",), starts=frozenset("horizon".split())),
        Pattern(CM, re.compile(
            r"(?<![\w-])horizon(?:\s+line)?\s+(?:\w+\s+)?(?:turns|turning|rotates|rotating|spins|spinning|rolls|"
            r"rolling|twists|twisting|swings)\s+(counter-?clockwise|anti-?clockwise|clockwise)(?![\w-])", re.I),
            _horizon_roll_value, needs=("horizon",), starts=frozenset("horizon".split())),
        Pattern(CM, re.compile(
            r"(?<![\w-])vertigo[\s-]+(?:style\s+|like\s+)?(?:effect|shot|zoom|move)(?![\w-])|(?<![\w-])(?:keeps|stays|"
            r"remains)\s+(?:exactly\s+|roughly\s+)?the\s+same\s+size(?=[^.;]{0,80}?(?:stretch\w*|recede\w*|"
            r"falls?\s+away|warp\w*|expands?|expanding)(?![\w-]))", re.I),
            lambda m: ("dolly zoom", None), needs=("vertigo", "same size"),
            starts=frozenset("vertigo keeps stays remains".split())),
        Pattern(SP, re.compile(
            r"(?<![\w-])(?:at\s+)?(?:a\s+)?(?:quarter|half|third|1/4|1/2|25\s*%|50\s*%)[\s-]+speed(?![\w-])",
            re.I), "slow motion", needs=("speed",)),
        Pattern(SP, re.compile(
            r"(?<![\w-])(?:(?:sped|speeded)[\s-]+up\s+(?:shot|footage|video|clip|view)\s+(?:where|in\s+which|"
            r"with|as)\s+)?(?:hours|days|a\s+whole\s+day|the\s+whole\s+day|the\s+day|a\s+day|the\s+night)\s+"
            r"(?:go\s+by|goes\s+by|pass(?:es)?|passing|go\s+past|fly\s+by|flies\s+by)\s+in\s+(?:a\s+few\s+|mere\s+|"
            r"just\s+)?(?:seconds|moments|minutes)(?![\w-])", re.I), "timelapse",
            needs=("go by in", "goes by in", "pass in", "passes in", "passing in", "go past in",
                   "fly by in", "flies by in"),
            starts=frozenset("sped speeded hours days a the".split())),
        Pattern(SO, re.compile(
            r"(?<![\w-])three[\s-]*quarters?\s+(?:view\s+)?from\s+(?:behind|the\s+back)(?![\w-])|(?<![\w-])from\s+"
            r"behind\s+(?:at\s+|in\s+)?(?:a\s+)?three[\s-]*quarters?(?![\w-])", re.I), "three-quarter back",
            needs=("three",), starts=frozenset("three from".split())),
        Pattern(SS, re.compile(
            r"(?<![\w-])(?:detail|insert)\s+shot(?![\w-])|(?:^|(?<=[.;:]\s)|(?<=\n))(?:[\w'-]+\s+)?detail"
            r"(?=\s*(?:[-–—,.:;]|$))", re.I), "close-up", needs=("detail", "insert")),
        Pattern(CM, re.compile(r"(?<![\w-])in\s+on\s+the\s+(?:zoom|lens)(?![\w-])", re.I),
                lambda m: ("zoom in", None), needs=("in on the",), starts=frozenset("in".split())),
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:we're|we’re|we\s+are|camera\s+is|camera's|camera’s|lens\s+is)\s+(?:way\s+|very\s+|so\s+)?"
            r"high\s+(?:up\s+)?(?:above|over)(?![\w-])", re.I), "high angle", needs=("high above", "high over", "high up"), starts=frozenset("we camera lens".split())),
        Pattern(SS, re.compile(r"(?<![\w-])wide\s+look\s+(?:at|over|across)(?![\w-])", re.I), "wide shot",
                needs=("wide look",), starts=frozenset("wide".split())),
        Pattern(SS, re.compile(
            r"(?<![\w-])(?:starts|begins|opens)\s+(?:as\s+)?(?:a\s+)?(wide|medium|tight|close)\s*,?\s+(?:and\s+|then\s+)?"
            r"(?:ends|finishes|goes|becomes|closes)\s+(?:as\s+)?(?:a\s+)?(wide|medium|tight|close)(?![\w-])", re.I),
            _size_pair_value, needs=("start", "begin", "open"), starts=frozenset("starts begins opens".split())),
        # A side view by lateral motion across the frame: "the dog is running sideways across the
        # screen".
        Pattern(SO, re.compile(r"(?<![\w-])sideways\s+(?:across|through)\s+(?:the\s+)?(?:screen|frame|shot|"
                               r"picture|image)(?![\w-])", re.I), "profile", needs=("sideways",), starts=frozenset("sideways".split())),
        # An imagined operator doing the move: "like someone's running after the dog with their
        # phone" (tracking).
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:someone|somebody|a\s+person|the\s+operator|the\s+cameraman|the\s+camerawoman)"
            r"(?:'s|’s|\s+is|\s+was)?\s+(?:running|walking|jogging|chasing|following|trailing)\s+(?:after|behind|"
            r"alongside|beside)?\s*(?:the|a|an|him|her|them)\b", re.I), lambda m: ("tracking", None),
            needs=("someone", "somebody", "person", "operator", "cameram", "camerawoman"),
            starts=frozenset("someone somebody a the".split())),
        # The picture itself jumping: "the picture's jumping about" (a handheld shake).
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:picture|image|frame|shot|footage)(?:'s|’s|\s+is|\s+keeps)\s+(?:\w+\s+)?(?:jumping|jumps|"
            r"bouncing|bounces|jittering|jitters|shaking|shakes|wobbling|wobbles|juddering)(?:\s+about|\s+around)?"
            r"(?![\w-])", re.I), lambda m: ("handheld shake", None),
            needs=("jump", "bounc", "jitter", "shak", "wobbl", "judder"),
            starts=frozenset("picture image frame shot footage".split())),
        # Non-native word order: "we see very close the hands of old man" (a close-up).
        Pattern(SS, re.compile(r"(?<![\w-])(?:see|sees|view|show|shows|showing)\s+(?:very|really|so|super)\s+close"
                               r"\s+(?:the|his|her|their)\b", re.I), "close-up",
                needs=("very close", "really close", "so close", "super close"),
                starts=frozenset("see sees view show shows showing".split())),
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:at|from|on|in)\s+(?:roughly\s+|about\s+|around\s+|approximately\s+)?(?:the\s+)?(?:same\s+)?"
            r"height\s+of\s+(?:the\s+)?(?:[\w'’-]+\s+)?eyes(?![\w-])", re.I), "eye level", needs=("height of",), starts=frozenset("at from on in".split())),
    ]


_ANGLE_WORDS = {"high": "high angle", "low": "low angle", "eye level": "eye level", "eye-level": "eye level",
                "level": "eye level", "overhead": "overhead"}


def _angle_pair_value(m: re.Match) -> list[tuple[int, int, str]]:
    return [(m.start(g), m.end(g), _ANGLE_WORDS[" ".join(m.group(g).lower().split())]) for g in (1, 2)]


_RIG_MOVES = {"left": "truck left", "right": "truck right", "in": "dolly in", "out": "dolly out",
              "up": "pedestal up", "down": "pedestal down"}


def report_wording_patterns() -> list[Pattern]:
    """Blind batches 19–20 (docs/judge.md): stillness told by the picture ("the picture never
    shifts", "every pillar stays glued to the same spot in the frame"), a zoom by the lens
    magnifying or the focal length growing, a worm's-eye view by a camera lying on the ground
    looking up, the angle by the camera's mount ("elevated mount", "axis depressed"), the
    subject holding a part of the composition, a POV told as the viewer seeing what someone
    sees, depth of field said with a hedge ("appears shallow", "seems to be in sharp focus")."""
    return [
        # The picture itself never moving: "the picture never shifts", "the frame doesn't budge
        # once", "the image does not change at all".
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:picture|image|frame|framing|shot|view)\s+(?:never|doesn't|doesnt|"
            r"doesn’t|does\s+not|won't|won’t|will\s+not)\s+(?:once\s+|even\s+|really\s+)?(?:shifts?|moves?|"
            r"changes?|budges?|drifts?|wanders?|wavers?|shift|move|change|budge|drift)(?![\w-])"
            r"(?!\s+(?:focus|colou?rs?|exposure|light|lighting|brightness|tone|speed)\b)", re.I),
            lambda m: ("static", None), needs=("never", "not", "n't", "n’t"),
            starts=frozenset("picture image frame framing shot view".split())),
        # Things pinned in the frame: "every pillar stays glued to the same spot in the frame",
        # "the trees remain locked in place on screen".
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:stays?|staying|remains?|remaining|sits?|is|are)\s+(?:glued|pinned|locked|nailed|"
            r"fixed|frozen|anchored)\s+(?:to|in|at)\s+(?:(?:the\s+)?(?:exact\s+)?same|its|their|one)\s+"
            r"(?:spot|place|position|point)(?:\s+(?:in|of|on)\s+(?:the\s+)?(?:frame|picture|image|"
            r"screen|shot))?(?![\w-])", re.I), lambda m: ("static", None),
            needs=("glued", "pinned", "locked", "nailed", "fixed", "frozen", "anchored"),
            starts=frozenset("stay stays staying remain remains remaining sit sits is are".split())),
        # A zoom by the lens magnifying: "the lens gradually magnifies the lizard", "the focal
        # length keeps increasing", "an optical enlargement".
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:lens|zoom|optics)\s+(?:\w+ly\s+)?(?:magnif(?:ies|y|ying|ied)|enlarges?|enlarging|"
            r"enlarged)(?![\w-])|(?<![\w-])optical\s+(?:enlargement|magnification)(?![\w-])", re.I),
            lambda m: ("zoom in", None), needs=("magnif", "enlarg"),
            starts=frozenset("lens zoom optics optical".split())),
        Pattern(CM, re.compile(
            r"(?<![\w-])focal\s+length\s+(?:(?:keeps|is|steadily|slowly|gradually|gets|grows)\s+){0,2}"
            r"(increas\w*|lengthen\w*|longer|grow\w*|extend\w*|decreas\w*|shorten\w*|shorter|widen\w*|"
            r"reduc\w*)(?![\w-])", re.I),
            lambda m: ("zoom out" if m.group(1).lower().startswith(("decr", "short", "wid", "reduc"))
                       else "zoom in", None), needs=("focal length",), starts=frozenset(("focal",))),
        # A worm's-eye view by where the camera lies: "lying right on the ground looking straight
        # up", "the lens sits on the pavement, pointing up".
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:lying|lies|lay|laid|sitting|sits|placed|set|resting|rests|put|down)\s+(?:right\s+|"
            r"flat\s+|directly\s+)?on\s+(?:the\s+)?(?:ground|floor|pavement|road|street|asphalt|grass|sand|"
            r"concrete|tarmac)[\s,]+(?:and\s+)?(?:looking|looks|pointing|points|pointed|aimed|aiming|"
            r"facing)\s+(?:straight\s+|directly\s+)?up(?:ward|wards)?(?![\w-])", re.I),
            lambda m: ("worm's-eye view", None), needs=("up",),
            starts=frozenset("lying lies lay laid sitting sits placed set resting rests put down".split())),
        # The angle by the camera's mount: "elevated mount, optical axis depressed 35°", "a
        # low mount, axis raised".
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:(elevated|high|raised|ceiling|low|ground)[\s-]+(?:mount|mounted|rig)|(?:optical\s+)?axis\s+(depressed|tilted\s+down|angled\s+down|pointed\s+down|"
            r"elevated|tilted\s+up|angled\s+up|pointed\s+up))(?![\w-])", re.I),
            lambda m: "low angle" if (m.group(1) or "").lower() in ("low", "ground") or (
                m.group(2) and m.group(2).lower() in ("elevated", "tilted up", "angled up", "pointed up"))
            else "high angle", needs=("mount", "axis", "rig"),
            starts=frozenset("elevated high raised ceiling low ground optical axis".split())),
        # The subject holding a part of the composition: "she holds the centre of the
        # composition", "he commands the left of the frame".
        Pattern(CO, re.compile(
            r"(?<![\w-])(?:holds|holding|held|occupies|occupying|occupied|owns|owning|commands|commanding|"
            r"takes|taking|dominates|dominating)\s+(?:up\s+)?the\s+(cent(?:er|re)|middle|left|right)"
            r"(?:\s+(?:side|third|half|part|edge))?(?:\s+of\s+(?:the\s+)?(?:composition|frame|screen|image|"
            r"picture|shot))?(?![\w-])(?=\s*(?:[,.;:)!]|$|(?:and|while|as|throughout|for|until)\b))", re.I),
            lambda m: "center" if m.group(1).lower() in ("center", "centre", "middle") else m.group(1).lower(),
            needs=("the cent", "the middle", "the left", "the right"),
            starts=frozenset("holds holding held occupies occupying occupied owns owning commands commanding "
                             "takes taking dominates dominating".split())),
        # A shot list's rig and direction, no verb: "Steadicam fwd through entry", "Slider L.",
        # "Drone back over the roofs" (the rig is the camera).
        Pattern(CM, re.compile(
            r"(?:STEADICAM|GIMBAL|DOLLY|SLIDER|DRONE|RIG|[Ss]teadicam|[Gg]imbal|[Dd]olly|[Ss]lider|[Dd]rone|"
            r"[Rr]ig)\s+(?:(?:slowly|slow|fast|quick|quickly)\s+)?(fwd|forwards?|bwd|backwards?|back|"
            r"left|right|[LR]|up|down)(?![\w-])"),
            lambda m, _: (_RIG_MOVES.get(DIRS.get(m.group(1).lower(), "")), None),
            needs=("steadicam", "gimbal", "dolly", "slider", "drone", "rig"),
            starts=frozenset("steadicam gimbal dolly slider drone rig".split()),
            back=back(r"^|(?<=[.;:,!?—–(\[\n])"), claim_back=False),
        # Non-native "we are looking the boats from top" (from straight above; not "from top of
        # the trees", a place, nor "from top to bottom", a path).
        Pattern(CA, re.compile(r"(?<![\w-])from\s+top(?![\w-])(?!\s+(?:of|to|floor|shelf|step|left|right|"
                               r"corner|row|deck)\b)", re.I), "overhead", needs=("from top",),
                starts=frozenset(("from",))),
        # A back that fills a part of the frame: "the lawyer's back takes up the left side",
        # "his back fills frame right" (the owner seen from behind).
        Pattern(SO, re.compile(
            r"(?:(?<=['’]s\s)|(?<=\bhis\s)|(?<=\bher\s)|(?<=\btheir\s))backs?(?=\s+(?:\w+\s+)?(?:takes?\s+up|"
            r"taking\s+up|fills?|filling|occupies|occupy|occupying|dominates|blocks|looms))", re.I), "back",
            needs=("up", "fill", "occup", "dominat", "block", "loom"), starts=frozenset(("back", "backs"))),
        # A blurred foreground before a sharp subject: "Fg slats blurred, intruder in focus",
        # "foreground leaves soft; the deer sharp" (the focus is on the plane behind).
        Pattern(DF, re.compile(
            r"(?<![\w-])(?:fg|foreground)(?:\s+[\w'-]+){0,3}?\s+(?:is\s+|are\s+)?(?:\w+\s+)?(?:blurred|blurry|soft|"
            r"out\s+of\s+focus|defocused|unfocused)\s*[,;]\s*(?:but\s+|while\s+)?(?:the\s+)?[\w'-]+(?:\s+[\w'-]+)?\s+"
            r"(?:is\s+|are\s+|stays\s+|remains\s+)?(?:sharp|crisp|in\s+(?:sharp\s+)?focus)(?![\w-])", re.I),
            "focus on background", needs=("fg", "foreground"), starts=frozenset(("fg", "foreground"))),
        # The camera's gaze called neutral: "the gaze neutral", "the camera's gaze is neutral"
        # (eye level; not a person's gaze, "her gaze is neutral").
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:the|its|the\s+camera(?:'s|’s)|the\s+lens(?:'s|’s))\s+gaze\s+(?:is\s+|stays\s+|"
            r"remains\s+)?(?:(?:perfectly|quite|fairly|entirely)\s+)?neutral(?![\w-])", re.I), "eye level",
            needs=("gaze",), starts=frozenset("the its".split())),
        # An angle that changes, told as a range: "the angle goes from high to eye level", "the
        # view shifts from low to level".
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:angle|view|vantage|perspective|height)\s+(?:\w+\s+)?(?:goes|moves|changes|shifts|"
            r"drops|rises|travels|comes\s+down|comes\s+up)\s+from\s+(?:a\s+)?(high|low|eye[\s-]+level|level|"
            r"overhead)\s+(?:angle\s+)?(?:to|into|down\s+to|up\s+to)\s+(?:an?\s+)?(high|low|eye[\s-]+level|"
            r"level|overhead)(?![\w-])", re.I), _angle_pair_value, needs=("from",),
            starts=frozenset("angle view vantage perspective height".split())),
        # Two moves in one breath, the second a look up or down: "the camera turns to the right
        # and at the same time looks down to him" (a tilt, not the camera's angle).
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:look|looks|looking|looked)\s+(up|down|upward|downward)(?![\w-])", re.I),
            lambda m, _: ("tilt " + DIRS[m.group(1).lower()], None),
            needs=("look",), starts=frozenset("look looks looking looked".split()),
            back=back(r"(?:turns?|turning|turned|pans?|panning|panned|swings?|swinging|swung|pivots?|pivoting|"
                       r"pivoted|swivels?|swivell?ing|swivell?ed|whips?|whipping|whipped)"
                       r"\s+(?:\w+\s+){0,2}?(?:left|right|L|R)\s+and\s+(?:(?:in|at)\s+(?:the\s+)?same\s+time\s+|"
                       r"simultaneously\s+|also\s+|then\s+)?"), claim_back=False),
        # A POV told as the viewer seeing what someone sees: "the viewer sees exactly what the
        # racer sees", "the audience sees just what she sees".
        Pattern(SP, re.compile(
            r"(?<![\w-])(?:the\s+)?(?:viewer|viewers|audience|spectator|spectators)\s+(?:sees?|see)\s+"
            r"(?:exactly\s+|just\s+|only\s+|precisely\s+)?what\s+(?:he|she|they|the\s+[\w-]+)\s+(?:sees?|see)"
            r"(?![\w-])", re.I), "pov", needs=("sees",),
            starts=frozenset("the viewer viewers audience spectator spectators".split())),
        # Depth of field with a hedge: "the depth of field appears shallow", "the entire room,
        # from the countertop to the windows, seems to be in sharp focus".
        Pattern(DF, re.compile(
            r"(?<![\w-])(?:focus|depth\s+of\s+field|dof)\s+(?:appears|seems|looks)\s+(?:to\s+be\s+)?"
            r"(?:\w+\s+)?(deep|shallow)(?![\w-])", re.I),
            lambda m: "deep focus" if m.group(1).lower() == "deep" else "shallow depth of field",
            needs=("appears", "seems", "looks"), starts=frozenset("focus depth dof".split())),
        Pattern(DF, re.compile(
            r"(?<![\w-])the\s+(?:entire|whole)\s+[\w-]+,?\s+(?:from\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+)?\s+to\s+"
            r"(?:the\s+)?[\w-]+(?:\s+[\w-]+)?,?\s+)?(?:is|are|seems\s+to\s+be|appears\s+to\s+be|looks|stays|"
            r"remains)\s+(?:all\s+)?(?:in\s+(?:sharp\s+|crisp\s+)?focus|sharp|crisp|pin[\s-]sharp)(?![\w-])",
            re.I), "deep focus", needs=("focus", "sharp", "crisp"), starts=frozenset(("the",))),
    ]


_SIDEWAYS_BEFORE = re.compile(r"(?<![\w-])(?:sideways|laterally|leftwards?|rightwards?|left|right)[\s,]*"
                              r"(?:[\w-]+\s+){0,1}$", re.I)
_EYE_PHRASES = (r"(?:his|her|their|its|the\s+[\w-]+(?:'s|’s)|[\w-]+(?:'s|’s))\s+(?:own\s+)?eyes")


def view_and_effect_patterns() -> list[Pattern]:
    """Blind batches 21–22 (docs/judge.md, round 6): the angle by where the camera is and which
    way it looks ("on the ground looking up", "looking up from the floorboards": worm's-eye; "from
    a rooftop looking down": high; "gazing down on": high; "at her own eye height": eye level), a
    special shot by its effect ("the camera becomes his eyes": POV; "compresses hours into
    seconds": timelapse; "the action freezes while the camera sweeps around": bullet time), the
    whole picture sideways (dutch) or jiggling (handheld), and film words that are no camera fact
    there ("zooms off", "zooms out the door": a person speeding; "looking down the corridor":
    along it; "watching the surface recede": the surface moves; "lies on its side": a posture)."""
    return [
        # The camera on the ground or floor looking up: "the camera is on the ground looking up",
        # "we're looking up from the floorboards at her" (worm's-eye; not a low angle as well).
        Pattern(CA, re.compile(
            r"(?:looking|looks|pointing|points|pointed|aimed|aiming|facing|staring|gazing)\s+"
            r"(?:straight\s+|directly\s+)?up(?:ward|wards)?(?![\w-])", re.I),
            lambda m, _: ("worm's-eye view", True), needs=("up",),
            starts=frozenset("looking looks pointing points pointed aimed aiming facing staring gazing".split()),
            back=back(r"(?:is|are|sits|'s|’s|was|stays|remains)\s+(?:right\s+|flat\s+|down\s+)?on\s+(?:the\s+)?"
                       r"(?:[\w-]+\s+)?(?:ground|floor|floorboards|pavement|road|street|asphalt|grass|sand|concrete|"
                       r"tarmac|mud)[\s,]+(?:and\s+)?")),
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:looking|looks|look|staring|stares|stare|gazing|gazes|gaze|peering|peers|peer)\s+"
            r"(?:straight\s+)?up\s+from\s+(?:the\s+)?(?:ground|floor|floorboards|pavement|road|street|asphalt|"
            r"gutter|grass|sand|concrete|tarmac|mud|dirt)(?![\w-])", re.I),
            lambda m: ("worm's-eye view", True), needs=("up from",),
            starts=frozenset("looking looks look staring stares stare gazing gazes gaze peering peers peer".split())),
        # A worm's-eye or bird's-eye view and its own look: "worm's-eye view looking up at the
        # girl", "a bird's-eye shot looking straight down" (one angle, said twice).
        Pattern(CA, re.compile(
            r"(?<![\w-])(worm|bird)(?:'s|’s|s)?[\s-]+eye(?:[\s-]+(?:view|shot|angle|perspective))?,?\s+"
            r"(?:looking|pointing|staring|gazing)\s+(?:straight\s+|directly\s+)?(up|down)(?:ward|wards)?(?![\w-])",
            re.I),
            lambda m: "worm's-eye view" if m.group(1).lower() == "worm" else "overhead",
            needs=("worm", "bird"), starts=frozenset("worm worm's worms bird bird's birds".split())),
        # The camera gazing or peering down or up: "the camera gazing down on the city" (high),
        # "the lens peers up at the tower" (low); the camera's look, not a person's.
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:gazes|gazing|gazed|gaze|peers|peering|peered|peer|stares|staring|stared|stare)\s+"
            r"(down|up)(?:ward|wards)?(?=\s+(?:on|at|onto|upon|over|into|to|from)\b)", re.I),
            lambda m: ("high angle" if m.group(1).lower() == "down" else "low angle", True),
            needs=("gaz", "peer", "stare", "staring"),
            starts=frozenset("gazes gazing gazed gaze peers peering peered peer stares staring stared stare".split())),
        # A vantage and a look with no subject: "From a rooftop looking down on the crossing"
        # (high), "from the stalls, looking up at the stage" (low); "straight down": overhead.
        Pattern(CA, re.compile(
            r"(?<![\w-])from\s+(?:a|an|the|up\s+on\s+(?:a|an|the))\s+(?:[\w-]+\s+){0,2}?[\w-]+,?\s+(?:looking|peering|"
            r"gazing|staring)\s+(straight\s+|directly\s+)?(down|up)(?:ward|wards)?(?![\w-])", re.I),
            lambda m, _: (("overhead" if m.group(1) else "high angle") if m.group(2).lower() == "down"
                          else "low angle", None),
            needs=("looking", "peering", "gazing", "staring"), starts=frozenset(("from",)),
            back=back(r"^|(?<=[.;:,!?—–(\[\n])"), claim_back=False),
        # Eye level by whose eyes: "at about her own eye height", "at the child's eye level".
        Pattern(CA, re.compile(r"(?<![\w-])eye[\s-]+(?:height|level|line)(?![\w-])", re.I),
                lambda m, _: "eye level",
                needs=("s eye", "s own eye", "r eye", "r own eye"),
                starts=frozenset(("eye",)),
                back=back(r"at\s+(?:about\s+|roughly\s+|around\s+|approximately\s+|exactly\s+)?(?:his|her|their|"
                           r"its|the\s+[\w-]+(?:'s|’s)|[\w-]+(?:'s|’s))\s+(?:own\s+)?")),
        # The camera as someone's eyes: "the camera becomes his eyes", "the lens is the
        # soldier's eyes now" (POV).
        Pattern(SP, re.compile(
            r"(?<![\w-])(?:camera|lens|shot|view|we)\s+(?:now\s+|then\s+|suddenly\s+)?(?:becomes|become|became|"
            r"is|are|turns\s+into|acts\s+as|serves\s+as)\s+(?:now\s+)?" + _EYE_PHRASES + r"(?![\w-])", re.I),
            "pov", needs=("eyes",), starts=frozenset("camera lens shot view we".split())),
        # Time squeezed: "compresses hours of the party into seconds", "crams a whole day into
        # a minute" (timelapse).
        Pattern(SP, re.compile(
            r"(?<![\w-])(?:compress\w*|squeez\w*|condens\w*|cram\w*|pack\w*|shrink\w*|shrunk)\s+(?:the\s+|a\s+few\s+|"
            r"several\s+|many\s+)?(?:hours|days|weeks|months|a\s+(?:whole\s+)?(?:day|night|week)|the\s+(?:whole\s+)?"
            r"(?:day|night|afternoon|evening))(?:\s+of\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+)?)?\s+into\s+(?:a\s+few\s+|mere\s+|"
            r"just\s+|only\s+)?(?:seconds|moments|a\s+minute|minutes|a\s+few\s+seconds)(?![\w-])", re.I),
            "timelapse", needs=("into",),
            starts=frozenset("compress compresses compressed compressing squeeze squeezes squeezed squeezing "
                             "condense condenses condensed condensing cram crams crammed cramming pack packs "
                             "packed packing shrink shrinks shrinking shrunk".split())),
        # Bullet time described: "the action freezes while the camera sweeps around the
        # fighter", "everything stops mid-air as the camera circles him".
        Pattern(SP, re.compile(
            r"(?<![\w-])(?:freezes|freeze|froze|frozen|stops\s+dead|stands\s+still|hangs\s+(?:frozen\s+)?in\s+"
            r"(?:the\s+)?(?:air|mid-air))(?=(?:\s+[\w-]+){0,4}?,?\s+(?:while|as|and)\s+(?:the\s+)?(?:camera|lens|we|view)\s+"
            r"(?:\w+ly\s+)?(?:sweeps?|moves?|circles?|orbits?|arcs?|swings?|travels?|glides?|wheels?|spins?|"
            r"pans?|rotates?|whirls?|goes|go)\s+(?:a)?round(?![\w-]))", re.I),
            lambda m: ("bullet time", None), needs=("freez", "froze", "stops dead", "stands still", "hangs"),
            starts=frozenset("freezes freeze froze frozen stops stands hangs".split())),
        # The whole picture sideways: "the whole picture is sideways", "the image lies on its
        # side" (a dutch angle).
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:the\s+)?(?:whole\s+|entire\s+)?(?:picture|image|frame|shot|world|horizon)\s+(?:is|looks|"
            r"seems|sits|lies|turned|turns|goes)\s+(?:\w+\s+)?(?:sideways|on\s+its\s+side)(?![\w-])", re.I),
            lambda m: ("dutch angle", None), needs=("sideways", "its side"),
            starts=frozenset("the whole entire picture image frame shot world horizon".split())),
        # Everything in the picture jiggling: "everything jiggles around a lot", "the image
        # jiggles" (a handheld shake).
        Pattern(CM, re.compile(
            r"(?:jiggles|jiggling|jiggle|shakes|shaking|wobbles|wobbling|jitters|jittering|judders|juddering|"
            r"jumps\s+around|jumps\s+about|bounces\s+around)(?![\w-])", re.I),
            lambda m, _: ("handheld shake", None), needs=("jiggl", "shak", "wobbl", "jitter", "judder", "jumps", "bounces"),
            starts=frozenset("jiggles jiggling jiggle shakes shaking wobbles wobbling jitters jittering judders "
                             "juddering jumps bounces".split()),
            back=back(r"(?:everything|the\s+(?:whole\s+)?(?:picture|image|frame|shot|footage|view))\s+(?:\w+\s+)?")),
        # Keeping pace with someone: tracking ("the camera keeps pace with the runner"), but the
        # manner of a sideways move right before it ("glides sideways to the right keeping pace
        # with her": that truck, one statement).
        Pattern(CM, re.compile(r"(?<![\w-])(?:keeps|keep|keeping|kept)\s+(?:pace|up)\s+with(?![\w-])", re.I),
                lambda m: NOT_A_TERM if _SIDEWAYS_BEFORE.search(m.string, max(0, m.start() - 40), m.start())
                else ("tracking", True), needs=("pace with", "up with"),
                starts=frozenset("keeps keep keeping kept".split())),
        # A face seen very close: "we see her face very close", "you see his hands really
        # close up" (a close-up; not "very close to the edge", a place).
        Pattern(SS, re.compile(
            r"(?<![\w-])(?:see|sees|seeing|saw|seen|show|shows|showing|shown)\s+(?:his|her|their|its|the|"
            r"[\w-]+(?:'s|’s))\s+(?:[\w-]+\s+)?(?:face|faces|eyes?|hands?|mouth|lips|head|fingers|paws?|muzzle|"
            r"snout|beak)\s+(?:very|really|so|super|quite|extremely)\s+(?:close|near)(?:\s+up)?(?![\w-])"
            r"(?!\s+(?:to|by|at|behind|beside|together)\b)", re.I), "close-up",
            needs=("very close", "really close", "so close", "super close", "quite close", "extremely close",
                   "very near", "really near", "so near", "super near", "quite near", "extremely near"),
            starts=frozenset("see sees seeing saw seen show shows showing shown".split())),
        # Non-native profile: "is showing side of face", "shows the side of his face".
        Pattern(SO, re.compile(
            r"(?<![\w-])(?:shows?|showing|showed|shown|gives?|giving)\s+(?:us\s+)?(?:the\s+|his\s+|her\s+|their\s+|"
            r"its\s+)?side\s+of\s+(?:the\s+|his\s+|her\s+|their\s+|its\s+)?(?:face|head|body)(?![\w-])", re.I),
            "profile", needs=("side of",), starts=frozenset("shows show showing showed shown gives give giving".split())),
        # A side and a plane: "whose back fills the left foreground", "a figure in the right
        # background" (the side is the position; the plane says nothing of focus).
        Pattern(CO, re.compile(r"(?<![\w-])(left|right)[\s-]+(?:fore|back)ground(?![\w-])", re.I),
                lambda m: m.group(1).lower(), needs=("left fore", "right fore", "left back", "right back",
                                                     "left-fore", "right-fore", "left-back", "right-back"),
                starts=frozenset(("left", "right"))),
        # Scenery at a side of the frame is no subject's place: "the floor runs up the left
        # edge of the screen", "the sky fills the right half".
        Pattern(CO, re.compile(
            r"(?<![\w-])(?:floor|ground|wall|walls|ceiling|sky|horizon|skyline|road|sea|water|grass|sand)\s+"
            r"(?:runs|running|stretches|stretching|fills|filling|takes\s+up|occupies|covers|covering|rises|rising|"
            r"slopes|sloping|climbs|climbing)\s+(?:up\s+|down\s+|along\s+|across\s+)?(?:the\s+)?(?:whole\s+)?"
            r"(?:left|right|top|bottom|upper|lower)(?:\s+(?:edge|side|half|third|part|border))?"
            r"(?:\s+of\s+(?:the\s+)?(?:frame|screen|image|picture|shot))?(?![\w-])", re.I), NOT_A_TERM,
            needs=("runs", "running", "stretch", "fill", "takes up", "occup", "cover", "rises", "rising", "slop",
                   "climb"),
            starts=frozenset("floor ground wall walls ceiling sky horizon skyline road sea "
                                                    "water grass sand".split())),
        # Non-native and word-for-word orientation: "we see him from his back" (back), "we see
        # the sheriff of front" (frontal), "she turns to front" (frontal).
        Pattern(SO, re.compile(
            r"(?<![\w-])from\s+(?:his|her|their|its)\s+backs?(?![\w-])(?!\s+(?:yard|garden|door|pocket|seat|"
            r"porch|room|office|row)\b)", re.I), "back", needs=("his back", "her back", "their back", "its back"), starts=frozenset(("from",))),
        Pattern(SO, re.compile(
            r"(?<![\w-])(?:of|turns?|turned|turning)\s+(?:to\s+(?:the\s+)?)?front(?![\w-])(?!\s+(?:of|door|desk|row|"
            r"yard|garden|porch|page|seat|line|wheel|teeth|tooth|lawn|steps?|gate|room|office|window)\b)", re.I),
            "frontal", needs=("of front", "to front", "to the front", "turn front", "turns front", "turned front",
                              "turning front"),
            starts=frozenset("of turn turns turned turning".split())),
        # Word-for-word Spanish: "Plane medium" (plano medio, a medium shot), "plane general"
        # (wide), "The fund is unfocused" (fondo, the background).
        Pattern(SS, re.compile(
            r"(?:(?<=^)|(?<=[.;:!?,]\s)|(?<=[.;:!?,]))\s*plane\s+(medium|general|american|close|wide|detail)(?![\w-])",
            re.I),
            lambda m: {"medium": "medium shot", "general": "wide shot", "american": "medium full shot",
                       "close": "close-up", "wide": "wide shot", "detail": "extreme close-up"}[m.group(1).lower()],
            needs=("plane",)),
        Pattern(DF, re.compile(
            r"(?<![\w-])the\s+fund\s+(?:is|are|stays|remains|looks|appears)\s+(?:\w+\s+)?(?:unfocused|blurred|blurry|"
            r"out\s+of\s+focus|diffused|diffuse|soft)(?![\w-])", re.I), "shallow depth of field",
            needs=("fund",), starts=frozenset(("the",))),
        # No camera fact: a person "zooms off" or "zooms out the door" (speeds away); the camera
        # "looking down the corridor" (along it, not down at it); "watching the surface recede"
        # (the surface moves); a thing that "lies on its side" (a posture, not a profile).
        Pattern(CM, re.compile(
            r"(?<![\w-])zoom(?:s|ed|ing)?\s+(?:off|past|by|away\s+(?:down|up|along|across|into|through)|"
            r"out\s+(?:of\s+)?(?:the|a|his|her|their)\s+(?:front\s+|back\s+|side\s+)?(?:door|doorway|window|gate|room|"
            r"house|building|exit|garage|driveway|kitchen|shop|store))(?![\w-])", re.I), NOT_A_TERM,
            needs=("zoom",), starts=frozenset("zoom zooms zoomed zooming".split())),
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:looking|looks|look|looked|staring|stares|gazing|gazes|peering|peers)\s+(?:straight\s+)?"
            r"(?:down|up)\s+(?:the|a|an|this|that|its)\s+(?:[\w-]+\s+)?(?:corridor|hallway|hall|aisle|street|road|"
            r"alley|alleyway|tunnel|barrel|track|tracks|path|lane|avenue|runway|platform|nave|passage|"
            r"river|canal|valley|highway)(?![\w-])", re.I), NOT_A_TERM,
            needs=("corridor", "hall", "aisle", "street", "road", "alley", "tunnel", "barrel", "track", "path",
                   "lane", "avenue", "runway", "platform", "nave", "passage", "river", "canal", "valley",
                   "highway"), starts=frozenset("looking looks look looked staring stares gazing gazes "
                                                   "peering peers".split())),
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:watch|watches|watching|watched|see|sees|seeing|saw|lets|letting)\s+(?:the|a|an|his|her|"
            r"their|its)\s+(?:[\w-]+\s+){0,2}?(?:recede|recedes|receding|retreat|retreats|retreating|advance|"
            r"advances|advancing|withdraw|withdraws|withdrawing)(?![\w-])", re.I), NOT_A_TERM,
            needs=("reced", "retreat", "advanc", "withdraw"),
            starts=frozenset("watch watches watching watched see sees seeing saw lets letting".split())),
        Pattern(SO, re.compile(
            r"(?<![\w-])(?:lies|lying|lay|laid|lain|rests|resting|fallen|fell|falls|toppled|tipped)\s+(?:over\s+)?on\s+"
            r"(?:its|his|her|their)\s+sides?(?![\w-])", re.I), NOT_A_TERM,
            needs=("its side", "his side", "her side", "their side"),
            starts=frozenset("lies lying lay laid lain rests resting fallen fell falls "
                                              "toppled tipped".split())),
    ]


def register_wording_patterns() -> list[Pattern]:
    """Blind batches 23–24 (docs/judge.md, round 7): registers far from captions — chat, on-set
    shorthand, audio-guide voice, translated German, non-native English. The camera's look with a
    degree or a vantage ("looking little bit up": low; "looks a little from up to down": high;
    "from a position directly above": overhead; "a close-up looking up at her": low), closeness
    said plainly ("filmed really close", "a very near shot", "we see in close the dial":
    close-up), time passing in a heartbeat (timelapse), through someone's eyes (POV), a frame
    that never stirs (static), a focus that is passing from one thing to another (rack focus),
    set shorthand ("low and dutched"), and German said word for word ("half-near": medium; the
    camera "drives onto" her: dolly in)."""
    return [
        # The camera's look with a degree: "looking little bit up", "look a little from up to
        # down", "pointed slightly downward" (the camera as subject; the degree is the rare word).
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:looking|looks|look|looked|pointing|points|pointed|directed|aimed|aiming|angled)\s+"
            r"(?:a\s+)?(?:(?:little|bit|slightly|somewhat|lightly|tiny|small)\s+){1,3}(?:from\s+)?(up|down|above|below)"
            r"(?:ward|wards)?(?:\s+to\s+(up|down|below|above))?(?![\w-])", re.I),
            lambda m: "low angle" if (m.group(2) or m.group(1)).lower() in ("up", "above") and m.group(2)
            or not m.group(2) and m.group(1).lower() in ("up", "below") else "high angle",
            camera_only=True, needs=tuple(f"{a} {b}" for a in ("little", "bit", "slightly", "somewhat", "lightly",
                                                                "tiny", "small")
                                          for b in ("up", "down", "from", "above", "below")),
            starts=frozenset("looking looks look looked pointing points pointed directed aimed aiming "
                             "angled".split())),
        # The camera directed up or down with no degree: "directed upward", "directed downwards".
        Pattern(CA, re.compile(r"(?<![\w-])directed\s+(up|down)(?:ward|wards)?(?![\w-])", re.I),
                lambda m: "low angle" if m.group(1).lower() == "up" else "high angle", camera_only=True,
                needs=("directed",), starts=frozenset(("directed",))),
        # A vantage below or above: "from a point below the climber", "from a position directly
        # above the board" (directly/straight above: overhead).
        Pattern(CA, re.compile(
            r"(?<![\w-])from\s+(?:a|an|the|one)\s+(?:low\s+|high\s+)?(?:point|position|spot|place|vantage(?:\s+point)?|"
            r"viewpoint|standpoint)\s+(directly\s+|straight\s+|right\s+|just\s+|far\s+|well\s+|somewhat\s+|slightly\s+)?"
            r"(below|beneath|under|underneath|above|over)(?![\w-])", re.I),
            lambda m: ("low angle" if m.group(2).lower() in ("below", "beneath", "under", "underneath")
                       else "overhead" if (m.group(1) or "").strip().lower() in ("directly", "straight")
                       else "high angle"),
            needs=("below", "beneath", "above", "under"),
            starts=frozenset(("from",))),
        # A shot that looks up or down at someone: "handheld close-up looking up at a girl",
        # "a wide shot peering down on the square".
        Pattern(CA, re.compile(
            r"(?<![\w-])(?:looking|peering|gazing|staring)\s+(up|down)(?:ward|wards)?(?=\s+(?:at|on|onto|upon)\b)",
            re.I), lambda m, _: "low angle" if m.group(1).lower() == "up" else "high angle",
            needs=("up at", "up on", "down at", "down on", "down upon", "up upon"),
            starts=frozenset("looking peering gazing staring".split()),
            back=back(r"(?<![\w-])(?:close-up|closeup|close\s+up|cu|mcu|ecu|shot|view|framing|frame|wide|angle)\s+"),
            claim_back=False),
        # Closeness said plainly: "filmed really close", "shot very near", "a very near shot",
        # "we see in close the dial" (a close-up; not "close to the wall", a place).
        Pattern(SS, re.compile(
            r"(?<![\w-])(?:filmed|shot|seen|framed|captured|photographed|recorded)\s+(?:very|really|so|super|"
            r"extremely|quite)\s+(?:close|near)(?:\s+up)?(?![\w-])(?!\s+(?:to|by|at|behind|beside|together|of|the|a|an|"
            r"his|her|their|its|my|our|this|that)\b)"
            r"|(?<![\w-])(?:very|really|extremely|super)\s+(?:near|close)\s+(?:shot|view|framing|frame|shots)(?![\w-])"
            r"|(?<![\w-])(?:see|sees|seeing|show|shows|showing|view)\s+in\s+close(?=\s+(?:the|his|her|their|its|a|an)\b)",
            re.I), "close-up",
            needs=("very close", "really close", "so close", "super close", "extremely close", "quite close",
                   "very near", "really near", "so near", "super near", "extremely near", "quite near",
                   "in close"),
            starts=frozenset("filmed shot seen framed captured photographed recorded very really extremely "
                             "super see sees seeing show shows showing view".split())),
        # Time passing in a heartbeat: "hours of the night pass in a few heartbeats", "days
        # flash by in seconds" (timelapse).
        Pattern(SP, re.compile(
            r"(?<![\w-])(?:hours|days|weeks|months|the\s+night|a\s+whole\s+(?:day|night)|the\s+whole\s+(?:day|night))"
            r"(?:\s+of\s+(?:the\s+)?[\w-]+)?\s+(?:pass|passes|go\s+by|goes\s+by|flash\s+by|flashes\s+by|fly\s+by|"
            r"flies\s+by|race\s+by|races\s+by|slip\s+by|slips\s+by|tick\s+by|ticks\s+by|pass\s+by|rush\s+by|"
            r"rushes\s+by)\s+in\s+(?:a\s+few\s+|mere\s+|just\s+|only\s+|a\s+)?(?:heartbeats?|instants?|breaths?|"
            r"blinks?|moments|seconds|a\s+minute|minutes)(?![\w-])", re.I), "timelapse",
            needs=("heartbeat", "instant", "breath", "blink", "flash", "race", "slip", "tick", "rush", " pass in ",
                   " passes in ", " go by in ", " goes by in ", " pass by in "),
            starts=frozenset("hours days weeks months the a".split())),
        # Through someone's eyes after a verb of seeing or the clip: "it's literally thru his
        # eyes", "the scene is shown through the vlogger's eyes" (POV; not "tears run through
        # his eyes").
        Pattern(SP, re.compile(r"(?<![\w-])(?:through|thru|via)\s+" + _EYE_PHRASES + r"(?![\w-])", re.I),
                lambda m, _: "pov", needs=("eyes",), starts=frozenset("through thru via".split()),
                back=back(r"(?:see|sees|seen|seeing|saw|view|views|viewed|watch|watching|shot|filmed|told|shown|"
                          r"is|it's|its|it’s|are|was|literally|all|everything|clip|scene|sequence|footage|"
                          r"camera|lens|like|as\s+if)(?:\s+(?:all|entirely|fully|completely|just|literally|"
                          r"it|everything|this))?"), claim_back=False),
        # Seeing what someone sees: "seeing exactly what he sees", "we see just what the pilot
        # sees" (POV).
        Pattern(SP, re.compile(
            r"(?<![\w-])(?:seeing|see|we\s+see|sees|showing|shows)\s+(?:exactly\s+|just\s+|precisely\s+)?what\s+"
            r"(?:he|she|they|the\s+[\w-]+)\s+(?:sees|see|is\s+seeing)(?![\w-])", re.I),
            "pov", needs=("what he", "what she", "what they", "what the"),
            starts=frozenset("seeing see we sees showing shows".split())),
        # A frame that never stirs: "the frame itself never stirs", "our vantage point never
        # shifts", "the camera never budges" (static; the camera's own frame, not a person).
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:camera|frame|view|vantage(?:\s+point)?|viewpoint|picture|image|lens|framing|shot)\s+"
            r"(?:itself\s+)?(?:never|doesn't|doesn’t|does\s+not|did\s+not|didn't)\s+(?:once\s+|even\s+)?"
            r"(?:stirs?|shifts?|budges?|wavers?|flinch(?:es)?|twitch(?:es)?)(?![\w-])", re.I), "static",
            needs=("stir", "budge", "waver", "flinch", "twitch", "never shift", "not shift", "n't shift",
                   "n’t shift", "once shift", "even shift"),
            starts=frozenset("camera frame view vantage viewpoint picture image lens framing shot".split())),
        # A focus that is passing: "the focus is passing from the dial to his face" (rack focus).
        Pattern(DF, re.compile(
            r"(?<![\w-])focus\s+(?:is|was)\s+(?:slowly\s+|gradually\s+)?(?:passing|moving|shifting|going|jumping|"
            r"travelling|traveling|sliding|changing|switching|drifting|wandering)\s+from(?![\w-])", re.I),
            "rack focus", needs=("focus is", "focus was"), starts=frozenset(("focus",))),
        # Set shorthand: "low and dutched", "high, dutched" (the height is an angle of its own).
        Pattern(CA, re.compile(
            r"(?<![\w-])(low|high)(?=(?:\s+and|\s*,|\s*&)\s+(?:slightly\s+|a\s+bit\s+)?dutch(?:ed)?(?![\w-]))",
            re.I), lambda m: "low angle" if m.group(1).lower() == "low" else "high angle",
            needs=("dutch",), starts=frozenset(("low", "high"))),
        # German said word for word: "in the half-near setting" (halbnah: medium), "half-total"
        # (Halbtotale: medium full); the camera "drives onto" her (fährt heran: dolly in).
        Pattern(SS, re.compile(r"(?<![\w-])(?:half[\s-]+near|halbnah|half[\s-]+total|halbtotale?)(?![\w-])", re.I),
                lambda m: "medium full shot" if "tot" in m.group(0).lower() else "medium shot",
                needs=("half-near", "half near", "halbnah", "half-total", "half total", "halbtotal"),
                starts=frozenset(("half", "halbnah", "halbtotal", "halbtotale"))),
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:drives|drive|driving|drove)\s+(?:slowly\s+|gently\s+|then\s+)?(?:onto|on\s+to|up\s+to|"
            r"closer\s+to|nearer\s+to)(?![\w-])", re.I), "dolly in", camera_only=True,
            needs=("driv", "drove"), starts=frozenset("drives drive driving drove".split())),
        # The middle of the frame as a part of it: "occupy the central portion of the frame",
        # "in the middle area of the picture" (center).
        Pattern(CO, re.compile(
            r"(?<![\w-])(?:central|middle|centre|center)\s+(?:portion|part|area|section|region|zone|third)\s+of\s+"
            r"(?:the\s+)?(?:frame|picture|image|shot|screen)(?![\w-])", re.I), "center",
            needs=("portion of", "part of", "area of", "section of", "region of", "zone of", "third of"),
            starts=frozenset("central middle centre center".split())),
        # Stage words: "dances center stage" (center), "facing front" (frontal; not "the front
        # door", a thing).
        Pattern(CO, re.compile(r"(?<![\w-])(?:center|centre)[\s-]+stage(?![\w-])", re.I), "center",
                needs=("center stage", "centre stage", "center-stage", "centre-stage"),
                starts=frozenset(("center", "centre", "center-stage", "centre-stage"))),
        Pattern(SO, re.compile(r"(?<![\w-])(?:facing|faces|face|faced)\s+front(?![\w-])(?!\s+(?:of|door|row|desk|"
                               r"seat|window|yard|porch|gate|wall|page|cover)\b)", re.I), "frontal",
                needs=("facing front", "faces front", "face front", "faced front"),
                starts=frozenset("facing faces face faced".split())),
        # A distance kept is no stillness: "follows her at a fixed distance", "keeping a fixed
        # gap" (the follow is the move).
        Pattern(CM, re.compile(r"(?<![\w-])fixed\s+(?:distance|gap|spacing|interval|offset|separation)(?![\w-])",
                               re.I), NOT_A_TERM, needs=("fixed",), starts=frozenset(("fixed",))),
        # The whole picture turning one way: the camera rolls the other way ("the whole image is
        # slowly turning counter-clockwise": roll clockwise).
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:picture|image|frame|screen)\s+(?:\w+\s+){0,2}?(?:turns|turning|rotates|rotating|spins|"
            r"spinning|twists|twisting|revolves|revolving)\s+(?:slowly\s+)?(counter-?clockwise|anti-?clockwise|"
            r"clockwise)(?![\w-])", re.I),
            _horizon_roll_value, needs=("clockwise",), starts=frozenset("picture image frame screen".split())),
        # A dolly one way while zooming the other: "dollies back down the corridor while zooming
        # in" (one dolly zoom, the zoom its part).
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:dolly|dollies|dollied|dollying|tracks?|tracking|tracked|pulls?|pulling|pulled|pushes|"
            r"push|pushing|pushed|moves?|moving|moved)\s+(back|backward|backwards|out|in|forward|forwards)\b"
            r"[^.;]{0,50}?\s(?:while|as)\s+(?:(?:it|simultaneously|also|the\s+lens)\s+)?zoom(?:s|ing|ed)?\s+"
            r"(in|out)(?![\w-])", re.I),
            lambda m: ("dolly zoom" if (m.group(1).lower() in ("back", "backward", "backwards", "out"))
                       == (m.group(2).lower() == "in") else None),
            needs=("zoom",), starts=frozenset("dolly dollies dollied dollying track tracks tracking tracked pull "
                                              "pulls pulling pulled push pushes pushing pushed move moves moving "
                                              "moved".split())),
        # A car pulling out into a lane and a person turned to a side are no camera move: "it
        # pulls out to frame left to pass", "turned toward frame left".
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:pulls|pulled|pulling)\s+out(?=\s+(?:to\s+(?:the\s+)?(?:frame\s+)?(?:left|right)|into\s+"
            r"(?:the\s+)?(?:other\s+|outside\s+|left\s+|right\s+)?(?:lane|traffic|road)|to\s+(?:overtake|pass))"
            r"(?![\w-]))", re.I), NOT_A_TERM,
            needs=("pulls out", "pulled out", "pulling out"), starts=frozenset("pulls pulled pulling".split())),
        Pattern(CM, re.compile(
            r"(?<![\w-])turned\s+(?:slightly\s+|a\s+bit\s+|partly\s+)?(?:toward|towards|to)\s+(?:the\s+)?"
            r"(?:frame|screen)\s+(?:left|right)(?![\w-])", re.I), NOT_A_TERM,
            needs=("frame left", "frame right", "screen left", "screen right"), starts=frozenset(("turned",))),
        # A size that the shot starts at and then ends on: "zooms in, starting wide and ending on
        # a medium close-up" (the start is a size of its own).
        Pattern(SS, re.compile(
            r"(?<![\w-])(?:starting|beginning|opening)\s+(?:fairly\s+|quite\s+|very\s+|pretty\s+)?(wide|medium|tight)"
            r"(?=,?\s+(?:and\s+|then\s+)+(?:ending|finishing|closing|landing|settling)\b)", re.I),
            lambda m: {"wide": "wide shot", "medium": "medium shot", "tight": "close-up"}[m.group(1).lower()],
            needs=("ending", "finishing", "closing", "landing", "settling"),
            starts=frozenset("starting beginning opening".split())),
        # A sweep named by its plane: "a horizontal sweep to the right" (pan right).
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:horizontal|sideways|lateral)\s+(?:sweep|swing|turn)\s+(?:to\s+(?:the\s+)?|toward\s+"
            r"(?:the\s+)?|towards\s+(?:the\s+)?)(left|right)(?![\w-])", re.I),
            lambda m: "pan " + m.group(1).lower(), needs=("horizontal", "sideways", "lateral"),
            starts=frozenset("horizontal sideways lateral".split())),
        # A size before a two-shot: "a medium full two-shot" (medium full, not medium).
        Pattern(SS, re.compile(
            r"(?<![\w-])medium[\s-]+(?:full|wide|long)[\s-]+(?:two|three|four|group)[\s-]*shot(?![\w-])", re.I),
            "medium full shot", needs=("two", "three", "four", "group"), starts=frozenset(("medium",))),
        # The middle of the clip is a time, not a place: "in middle of clip the focus is
        # passing", "in the middle of the video the camera stops".
        Pattern(CO, re.compile(
            r"(?<![\w-])(?:in|at|around|towards?)\s+(?:the\s+)?(?:very\s+)?middle\s+of\s+(?:the\s+)?(?:clip|video|"
            r"sequence|footage|recording|take|film|timeline)(?![\w-])", re.I), NOT_A_TERM,
            needs=("middle of",), starts=frozenset("in at around toward towards".split())),
        # Near and far both readable: "near and far are equally legible" (deep focus).
        Pattern(DF, re.compile(
            r"(?<![\w-])near\s+and\s+far\s+(?:are|stay|remain|look)\s+(?:both\s+|all\s+|equally\s+)?(?:legible|"
            r"readable|defined|distinct|clear|sharp|crisp|detailed)(?![\w-])", re.I), "deep focus",
            needs=("near and far",), starts=frozenset(("near",))),
        # Riding along with someone: "we're riding right along with him" (tracking).
        Pattern(CM, re.compile(
            r"(?<![\w-])(?:riding|rides|ride|rode|cruising|cruises|cruise|sailing|sails|sail)\s+(?:right\s+|just\s+)?"
            r"(?:along\s+)?(?:with|alongside|beside|next\s+to)\s+(?:him|her|them|it|the\s+[\w-]+)(?![\w-])", re.I),
            "tracking", camera_only=True, needs=("riding", "rides", "ride ", "rode", "cruis", "sail"),
            starts=frozenset("riding rides ride rode cruising cruises cruise sailing sails sail".split())),
        # A size word with no noun before "throughout": "Extreme wide throughout" (the shot's size).
        Pattern(SS, re.compile(
            r"(?<![\w-])(extreme(?:ly)?[\s-]+wide|extreme[\s-]+close|wide|medium|tight)(?=\s+throughout\b)", re.I),
            lambda m, _: ("extreme wide shot" if "wide" in m.group(1).lower() and "extreme" in m.group(1).lower()
                          else "extreme close-up" if "close" in m.group(1).lower()
                          else {"wide": "wide shot", "medium": "medium shot", "tight": "close-up"}[m.group(1).lower()]),
            needs=("throughout",), starts=frozenset("extreme extremely wide medium tight".split()),
            back=back(r"^|(?<=[.;:,!?—–(\[\n])|(?:stays|stay|remains|remain|kept|held|framing|frame|framed|shot|size|"
                      r"camera)"), claim_back=False),
        # A path down the middle: "walks away down the exact centre of the corridor" (center).
        Pattern(CO, re.compile(
            r"(?<![\w-])(?:down|along|up|through)\s+(?:the\s+)?(?:exact\s+|very\s+|dead\s+)?(?:centre|center)\s+of\s+"
            r"(?:the\s+)?(?:[\w-]+\s+)?(?:corridor|hallway|hall|aisle|road|street|lane|path|tunnel|nave|runway|track|"
            r"bridge|avenue|alley|platform)(?![\w-])", re.I), "center",
            needs=("centre of", "center of"), starts=frozenset("down along up through".split())),
        # A body seen from the waist with no "up": "the golfer is show from the waist" (medium).
        Pattern(SS, re.compile(
            r"(?<![\w-])(?:shown|show|shows|seen|see|framed|filmed|visible|captured)\s+from\s+(?:the\s+)?waist"
            r"(?![\w-])(?!\s+(?:down|to|up)\b)", re.I), "medium shot",
            needs=("waist",), starts=frozenset("shown show shows seen see framed filmed visible captured".split())),
    ]
