"""Film-language phrases as patterns: what the decomposer looks for in a caption.

Two kinds of term: literals (the taxonomy's names and synonyms plus ``tables/terms.toml``),
compiled into one trie regex; and pattern families (``tables/patterns/*.toml``, and the verb
families × directions here) that need more than a literal ("on the left of the frame").
``cinecap.language.decompose`` decides which finds count (negation, camera as subject, repeats).
Teach the judge classes of wording, not single phrases: a table entry or a structural rule
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
from cinecap.language.data import load, rx, words
from cinecap.language.parse import inflections
from cinecap.language.pattern import _FAMILIES_OF, _VERBS, DIRS, Pattern, trie_words  # noqa: F401
from cinecap.language.starts import clauses, derived_starts

CM, SS, CA, DF, CO, SO, SP = tx.ASPECTS

_TERMS = table.load("terms")
#: Extra literal terms, beyond the taxonomy's synonyms: (aspect, canonical, term).
EXTRA_TERMS: tuple[tuple[str, str, str], ...] = tuple(
    (table.ASPECT[a], c, t) for a, group in _TERMS["extra"].items() for c, ts in group.items()
    for t in ts)
#: Taxonomy synonyms too common to be terms alone (decompose step 7).
NEVER_ALONE = frozenset(_TERMS["never_alone"].split())
#: Every inflection of the tracking verbs and of the bare verbs of a move (``terms.toml``).
VERB_TERMS = tuple((CM, value, f) for value, bases in _TERMS["verbs"].items()
                   for base in bases.split() for f in sorted(inflections(base)))
#: Terms that need the camera as their subject (decompose step 6).
CAMERA_ONLY = frozenset(_TERMS["camera_only"]) | {t for _, _, t in VERB_TERMS}


_ADVERBS, _OBJECT = table.fragments()["adverbs"], table.fragments()["object"]


def _dir_value(table: dict[str, str], word: str) -> str | None:
    return table.get(DIRS.get(word.lower().replace("’", "'"), ""))


_PREP_OBJECT = rx("phrases", "prep_object")


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


_AT_SOMEONE = rx("phrases", "at_someone")
_BE_BEFORE = re.compile(r"\b(?:is|are|was|were|been|being|stays|remains|sits|and)\s+(?:\w+ly\s+)?$", re.I)
_RIGHT_BESIDE = rx("phrases", "right_beside")
_THE_BEFORE = re.compile(r"\bthe\s+$", re.I)  # "to the right with him": a direction, not "right with him"
_OFF_TO = re.compile(r"\s+(?:to|toward|towards|the|a|an|into|screen|frame)\b", re.I)
_DET_BEFORE = re.compile(r"\b(?:her|his|their|its|my|your|our|a|an|the|this|that)\s+$", re.I)
_FILM_OBJECT = rx("phrases", "film_object")
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


_POS = load("words")["maps"]["positions"]


def _position_value(m: re.Match) -> str | None:
    g = [x.lower() for x in m.groups() if x]
    words = [w for w in g if w in _POS or w in ("center-left", "center-right", "centre-left",
                                                  "centre-right")]
    if not words:
        return None
    w = words[0].replace("centre", "center")
    return w if w in ("center-left", "center-right") else _POS[w]


_DIRECTED = rx("phrases", "directed")


def _with_subject_value(m: re.Match, span: str) -> str | None:
    """"Races down the corridor behind the suspect", "moves backward ahead of the runner", "the
    rail running right alongside her" (right as an intensifier): tracking; but a sideways or vertical move ("moving sideways to the right with the horse") is that move,
    found by the verb patterns."""
    before = len(span) - len(m.group(0))
    return None if any(d.start() < before for d in _DIRECTED.finditer(span)) else "tracking"


def resolve_elliptic(prev_value: str | None, direction: str) -> str | None:
    if not prev_value:
        return None
    verb = prev_value.split()[0]
    candidate = f"{verb} {direction}"
    return candidate if (CM, candidate) in CM_VALUES else None


CM_VALUES = frozenset((v.aspect, v.canonical) for v in tx.VALUES if v.aspect == CM)


@lru_cache(maxsize=8192)  # the same few hundred spans, found in caption after caption
def term_key(text: str) -> str:
    """How a literal term and a matched span are compared: lower case, one space, no apostrophes."""
    return " ".join(re.split(r"[\s-]+", text.lower().replace("'", "").replace("’", "").strip()))


def _TERM_PIECE(ch: str) -> str:
    """A literal term's character in its regex: a space is any run of spaces or hyphens, and an
    apostrophe is optional wherever a term could have one."""
    return r"[\s-]+" if ch == " " else re.escape(ch) + "['’]?"


@dataclass(frozen=True)
class Literals:
    """All literal terms in one trie regex, and what each (normalised) term means."""

    regex: re.Pattern
    meaning: dict[str, list[tuple[str, str, bool]]]  # key → [(aspect, canonical, camera_only)]


@lru_cache(maxsize=1)
def literals() -> tuple[Literals, Literals]:
    """(plain terms, matched in the lower-case caption: as ignoring case, but without the regex
    engine folding each character; two-or-three-letter abbreviations, capitals only)."""
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
    # One trie regex (``trie_words``): a 100 KB caption is scanned in milliseconds, not seconds.
    return (Literals(re.compile(bound.format(trie_words(list(plain), _TERM_PIECE))), plain),
            Literals(re.compile(bound.format(trie_words([k.upper() for k in caps], _TERM_PIECE))), caps))


#: The pattern families (``tables/patterns/<family>.toml``), in the order they are tried.
FAMILIES = ("elliptic", "composition", "angle", "shot_noun", "static", "dof", "effect",
            "described_shot", "size_by_body", "rig", "nominal_move", "position_adjective", "motion_position",
            "posture_position", "arc", "plain_wording", "operator_wording", "report_wording",
            "view_and_effect", "register_wording")


@lru_cache(maxsize=1)
def patterns() -> tuple[Pattern, ...]:
    """The term families that need more than a literal (verbs with directions, positions, …)."""
    rules = {**d.RULES, "position": _position_value, "with_subject": _with_subject_value}
    out = _verb_patterns()
    for name in FAMILIES:
        out.extend(table.family(name, rules))
    return tuple(_with_starts(p) for p in out)


def _with_starts(p: Pattern) -> Pattern:
    """A pattern with no start words in its table gets those read off its regex, where exact
    (``cinecap.language.starts``); the table names them only where the regex does not say."""
    if p.starts:
        return p
    derived = derived_starts(p.regex)
    return replace(p, starts=derived, derived=True) if derived else p


_COMMON_WORDS = words("phrases", "common_words")


def candidate_spots(low: str, words: "set[str]") -> list[tuple[Pattern, "Any"]]:
    """The patterns worth trying on a lower-case text with these words, in pattern order (one of
    a pattern's start words is in the text, and, for one that starts at common words or has none,
    one of its ``needs`` too; what every match of it contains, ``starts.clauses``, is there), each
    with the words of the text its matches may start with."""
    by_word, by_char, woken, started, needing, need_rx, passes, pats = _masks()
    met = passed = 0  # bit sets: a caption's few dozen words looked up, every need found in one scan
    for w in words:
        if (x := by_word.get(w)) is not None:
            woken, met, started = woken | x[0], met | x[1], started | x[2]
    for c, ids in by_char:
        if c in low:
            met |= ids
    for n in set(need_rx.findall(low)):
        passed |= passes[n]
    woken &= started & ~(needing & ~passed)
    out = []
    while woken:  # lowest bit first: pattern order
        bit = woken & -woken
        woken ^= bit
        p, must = pats[bit.bit_length() - 1]
        if not must & ~met:  # else a word (or character) every match has is not in the text
            out.append((p, p.starts & words if p.starts else ()))
    return out


def _bits(ids: "Any") -> int: return sum(1 << i for i in set(ids))  # noqa: E704


@lru_cache(maxsize=1)
def _masks() -> tuple:
    """``candidate_spots``' index as bit sets (bit i: pattern i, or clause i of what every match
    of a pattern contains, ``starts.clauses``): (word → (the patterns it wakes, the clauses it
    meets, the patterns that start with it), [(character, the clauses it meets)], the patterns
    no word wakes, those with no start words, those that also need a substring, one regex
    finding the longest need that starts at each position, a need found → the patterns it lets
    through, [(pattern, its clauses)])."""
    pats = patterns()
    ids: dict[frozenset[str], int] = {}
    musts = [_bits(ids.setdefault(c, len(ids)) for c in clauses(p.regex) if c != p.starts) for p in pats]
    index: dict[str, list[int]] = {}
    for c, n in ids.items():
        for x in c:
            index.setdefault(x, [0, 0, 0])[1] |= 1 << n
    by_need: dict[str, set[int]] = {}
    free = unstarted = 0
    for i, p in enumerate(pats):
        wanted = p.words or p.starts
        if p.words and p.starts and not p.derived:
            wanted = p.words & p.starts or p.words
        for w in wanted:
            index.setdefault(w, [0, 0, 0])[0] |= 1 << i
        for w in p.starts:
            index.setdefault(w, [0, 0, 0])[2] |= 1 << i
        # A pattern tried only at rare start words needs no more filter; one that starts at
        # "the", "in", "is" … or has no word to wake it also needs one of its substrings.
        if p.needs and (not wanted or not p.starts or p.derived or p.starts & _COMMON_WORDS):
            for n in p.needs:
                by_need.setdefault(n, set()).add(i)
        free |= (not wanted) << i  # tried on every text (that has one of its needs)
        unstarted |= (not p.starts) << i
    # The needs found at one position are prefixes of the longest one there: it stands for all.
    passes = {n: _bits(i for k, v in by_need.items() if n.startswith(k) for i in v) for n in by_need}
    return ({w: tuple(x) for w, x in index.items() if w.isalpha()},
            [(x, v[1]) for x, v in index.items() if not x.isalpha() and v[1]], free, unstarted,
            _bits(i for v in by_need.values() for i in v),
            re.compile(f"(?=({trie_words(sorted(by_need))}))"), passes, list(zip(pats, musts)))
