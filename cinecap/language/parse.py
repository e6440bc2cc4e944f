"""A small shallow parser for caption English: tokens, word classes, clauses and who does what.

The decomposer finds film terms by phrase (:mod:`cinecap.language.phrases`); this module tells it
what a term is *about*, from the sentence's structure: tokens and word classes (closed-class word
lists, a verb lexicon with its inflections, suffixes for the rest), :func:`agent` (from a word back
to the head noun of its subject, over adverbs, auxiliaries and aspect verbs, prepositional phrases,
parentheticals, coordination and relative pronouns; a determiner first means the word is a noun,
a clause boundary that the clause has no subject), and whether that agent is the camera (a camera
word, or a verb of seeing in its chain). With examples: docs/judge.md ("a small shallow parser").
No model and no download: a few hundred words of lexicon, linear in the text. English only.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from cinecap.language.data import load, words
from cinecap.language.lexicon import VEHICLES, animate

CAMERA_RIG = words("parse", "camera_rig")
CAMERA_WORDS = CAMERA_RIG | words("parse", "camera_words")

_CREW = words("parse", "crew")

DETERMINERS = words("parse", "determiners")
PRONOUNS = words("parse", "pronouns")
RELATIVES = words("parse", "relatives")
PREPOSITIONS = words("parse", "prepositions")
CLAUSE_CONJ = words("parse", "clause_conj")
COORD = words("parse", "coord")
AUXILIARIES = words("parse", "auxiliaries")
ASPECT_VERBS = words("parse", "aspect_verbs")
SEEING = words("parse", "seeing")
ADVERBS = words("parse", "adverbs")

_VERB_BASES = load("words")["parse"]["verb_bases"].split()
_IRREGULAR = words("parse", "irregular")


def inflections(base: str) -> set[str]:
    out = {base}
    if base.endswith("e"):
        out |= {base + "s", base + "d", base[:-1] + "ing"}
    elif base.endswith("y") and base[-2:-1] not in "aeiou":
        out |= {base[:-1] + "ies", base[:-1] + "ied", base + "ing"}
    elif base.endswith(("s", "sh", "ch", "x", "z")):
        out |= {base + "es", base + "ed", base + "ing", base + base[-1] + "ed",
                base + base[-1] + "ing"}
    else:
        out |= {base + "s", base + "ed", base + "ing"}
        if re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", base):  # pan → panned, panning
            out |= {base + base[-1] + "ed", base + base[-1] + "ing"}
        elif len(base) > 3 and base.endswith("l") and base[-2] in "aeiou" and base[-3] not in "aeiou":
            out |= {base + "led", base + "ling"}  # British: travel → travelled, travelling
    return out


@lru_cache(maxsize=1)
def _verbs() -> frozenset[str]:
    out: set[str] = set(_IRREGULAR)
    for b in _VERB_BASES:
        out |= inflections(b)
    return frozenset(out)


#: Word classes.
DET, PRON, REL, PREP, CONJ, COOR, AUX, ADV, VERB, NUM, WORD, PUNCT = (
    "DET", "PRON", "REL", "PREP", "CONJ", "COOR", "AUX", "ADV", "VERB", "NUM", "WORD", "PUNCT")

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d+(?:[.:]\d+)?|[,;:.!?()\[\]–—-]")


class Token(NamedTuple):
    start: int
    end: int
    low: str
    tag: str


@lru_cache(maxsize=65536)
def word_class(low: str) -> str:
    """The word class of one lower-case word, without context."""
    if low in DETERMINERS:
        return DET
    if low in PRONOUNS:
        return PRON
    if low in RELATIVES:
        return REL
    if low in AUXILIARIES:
        return AUX
    if low in COORD:
        return COOR
    if low in CLAUSE_CONJ:
        return CONJ
    if low in PREPOSITIONS:
        return PREP
    if low in ADVERBS or (low.endswith("ly") and len(low) > 4 and low not in _LY_NOUNS):
        return ADV
    if low in _verbs() or low in SEEING:
        return VERB
    if low[0].isdigit():
        return NUM
    if not low[0].isalpha():
        return PUNCT
    return WORD


_REFLEXIVE = words("parse", "reflexive")
_UNITS = words("parse", "units")
_LY_NOUNS = words("parse", "ly_nouns")

def tokens(text: str, start: int = 0, end: int | None = None) -> list[Token]:
    """Tokens of ``text[start:end]`` with positions in ``text`` and their word classes.

    A word after a determiner is a noun or adjective even when it could be a verb ("the *track*",
    "a slow *pan*"): the determiner decides.
    """
    end = len(text) if end is None else end
    out: list[Token] = []
    for m in _TOKEN.finditer(text, start, end):
        low = m.group(0).lower().replace("’", "'")
        if "'" in low and low.split("'")[0] in PRONOUNS:  # he's, it's, we're, they're
            low = low.split("'")[0]
        tag = word_class(low)
        if tag != VERB and low not in _BY_CONTEXT and not (tag == WORD and low.endswith("ed")):
            out.append(_new(Token, (m.start(), m.end(), low, tag)))  # no rule below applies
            continue
        if low == "of" and out and out[-1].low in ("kind", "sort"):
            out[-1] = out[-1]._replace(tag=ADV)  # "kind of floats": a hedge, an adverb
            tag = ADV
        elif low == "bit" and out and out[-1].low in ("little", "tiny", "wee"):
            out[-1] = out[-1]._replace(tag=ADV)  # "is little bit shaking": a hedge, an adverb
            tag = ADV
        if low in _CREW and out and out[-1].low == "camera":
            low, tag = "cameraman", WORD  # "the camera person is walking behind them": the operator
        if low == "that" and out and out[-1].tag == WORD:
            tag = REL  # "a wave that pans": a relative pronoun after its noun
        if tag == WORD and low.endswith("ed") and len(low) > 4 and out and out[-1].tag in (AUX, PRON):
            tag = VERB  # "it's locked", "is mounted": a participle after its auxiliary
        if tag == VERB and out and out[-1].tag == DET and not low.endswith(("ed", "ing")):
            tag = WORD
        elif low in _UNITS and out and out[-1].tag == NUM:
            tag = NUM  # "3 s", "2 seconds": part of a time, not a noun
        elif low == "shot" and not (out and out[-1].tag in (AUX, ADV, PRON)):
            tag = WORD  # "a wide shot", "Shot from below": the noun, unless "is shot from …"
        elif tag == VERB and low in CAMERA_WORDS and (not out or out[-1].tag in (
                WORD, PUNCT, COOR, CONJ)):
            tag = WORD  # "Canted frame looking up", "a slow pan": the camera's noun
        out.append(_new(Token, (m.start(), m.end(), low, tag)))
    return out


_new = tuple.__new__  # a Token without NamedTuple's Python-level __new__
#: Words whose class the word before them can change (the rules of ``tokens``, with any verb).
_BY_CONTEXT = frozenset(("of", "bit", "that", "shot")) | _CREW | _UNITS


# --- the agent of a word ---------------------------------------------------------------------

@dataclass(frozen=True)
class Agent:
    """Who does what a word says: the head noun (or pronoun) of its subject, if any.

    ``nominal``: the word is itself a noun in a noun phrase ("a slow pan left"), so it has no
    subject. ``seen``: a verb of seeing stands between ("is seen from above"). ``head`` is None
    when the clause has no subject of its own (a fragment, or a clause boundary came first).
    """

    head: str | None = None
    nominal: bool = False
    seen: bool = False
    position: int = -1  # where the head noun starts in the text
    thing: bool = False  # a rig word used for a thing in the scene ("the site's tower crane")

    @property
    def is_camera(self) -> bool | None:
        """True: the camera does it; False: something else does; None: no subject stated."""
        if self.nominal or self.seen:
            return True
        if self.head is None:
            return None
        return self.head in CAMERA_WORDS and not self.thing


_BOUNDARY = frozenset(";:.!?()[]")
_SENTENCE_STOP = re.compile(r"[.!?;\n](?:(?<=\n)|(?<!\d.)(?!\d))")  # as decompose's _SENTENCE
_MAX_TOKENS = 60  # a clause, not a page: the walk stays linear on a 100 KB run-on sentence


class Sentence:
    """A text tokenised once, for many :func:`agent` questions about it."""

    def __init__(self, text: str):
        self.text = text
        self._cache: dict[int, tuple[list[Token], list[int], int]] = {}
        self._stops: list[int] | None = None
        self.agents: dict[tuple[int, int, bool], "Agent"] = {}  # agent() answers, asked once

    def before(self, pos: int, floor: int) -> list[Token]:
        """The tokens that start at or after ``floor`` and before ``pos`` (a clause's worth at
        most). Each sentence is tokenised once, whatever floors are asked within it."""
        if self._stops is None:
            self._stops = [m.end() for m in _SENTENCE_STOP.finditer(self.text)]
        k = bisect.bisect_right(self._stops, floor)
        s0 = self._stops[k - 1] if k else 0
        got = self._cache.get(s0)
        if got is None or got[2] < pos:
            stop = _SENTENCE_STOP.search(self.text, pos)
            end = stop.end() if stop else len(self.text)
            toks = _sentence_tokens(self.text, s0, end)
            got = self._cache[s0] = (toks, [t.start for t in toks], end)
        toks, starts, _ = got
        lo = bisect.bisect_left(starts, floor)
        hi = bisect.bisect_left(starts, pos)
        return toks[max(lo, hi - _MAX_TOKENS):hi]


_TOKENS_OF: dict[str, tuple[Token, ...]] = {}


def _sentence_tokens(text: str, start: int, end: int) -> list[Token]:
    """``tokens(text, start, end)``, kept by the span's text (all they depend on): sentences recur."""
    span = text[start:end]
    got = _TOKENS_OF.get(span)
    if got is None:
        if len(_TOKENS_OF) >= 4096:
            _TOKENS_OF.clear()
        got = _TOKENS_OF[span] = tuple(tokens(span))
    return [_new(Token, (a + start, b + start, w, t)) for a, b, w, t in got] if start else list(got)


def text_word(text: "str | Sentence", pos: int) -> str:
    """The lower-case word that starts at ``pos``."""
    raw = text.text if isinstance(text, Sentence) else text
    m = _TOKEN.match(raw, pos)
    return m.group(0).lower() if m else ""


def agent(text: "str | Sentence", pos: int, floor: int = 0, noun: bool = False) -> Agent:
    """The subject of the word at ``pos``, found by walking back over ``text[floor:pos]``.

    ``noun``: the word could be a noun ("pan", "push-in", "tracking"); then a determiner before
    it, with only adjectives between ("a slow pan"), makes it nominal. Pass a :class:`Sentence`
    to tokenise a text once for many questions.
    """
    if isinstance(text, Sentence):
        key = (pos, floor, noun)
        got = text.agents.get(key)
        if got is None:
            got = text.agents[key] = _agent(text, text.before(pos, floor), pos, noun)
        return got
    return _agent(text, tokens(text, max(floor, pos - 400), pos)[-_MAX_TOKENS:], pos, noun)


def _agent(text: "str | Sentence", toks: list[Token], pos: int, noun: bool) -> Agent:
    if noun and toks and toks[-1].tag == WORD and toks[-1].low.endswith("s") \
            and not toks[-1].low.endswith("ss") and word_class(text_word(text, pos)) == VERB:
        noun = False  # "the houses glide": a plural subject, then the verb
    if toks and toks[-1].tag == WORD and (animate(toks[-1].low) or toks[-1].low in VEHICLES) and \
            text_word(text, pos).endswith("ing"):
        # "a man walking behind her", "a shot of a woman jogging toward the camera", "a train
        # pulling out": a person or a vehicle, then what it does
        return Agent(toks[-1].low, position=toks[-1].start)
    if noun:
        j = len(toks) - 1
        crossed_verb = crossed_finite = False
        while j >= 0 and toks[j].tag in (WORD, ADV, NUM, VERB):  # "a quick whip pan"
            crossed_verb = crossed_verb or toks[j].tag == VERB
            crossed_finite = crossed_finite or toks[j].tag == VERB and toks[j].low.endswith(
                "s") and not toks[j].low.endswith("ss")
            j -= 1
        if crossed_verb and not (j >= 0 and toks[j].tag == DET) or crossed_finite:
            # "lanterns hang overhead", "a kite rises high overhead": a verb, not an adjective,
            # before the term
            j = len(toks)
        ing = text_word(text, pos).endswith("ing")
        if ing and 0 <= j < len(toks) and toks[j].tag == DET and not all(
                _adjective(t.low) for t in toks[j + 1:]):
            j = len(toks)  # "the mast in the foreground sliding out": a noun, then its doing
        if j < 0 and not (ing and toks) or j < len(toks) and j >= 0 and (
                toks[j].tag == DET or toks[j].tag in (COOR, CONJ, PUNCT) and not (
                    ing and j < len(toks) - 1) or _DO_BEFORE_ADJECTIVES(toks, j)):
            if ing and 0 <= j == len(toks) - 1 and _PARTICIPLE_AFTER_COMMA(toks, j):
                doer = _walk(toks, j - 1, False, 0)
                if doer.head and (animate(doer.head) or doer.head in VEHICLES):
                    return doer  # "the lead car tracks along the rail, coming in at the left"
            # "a slow pan", "Slow pan left.", "…, then a pan"; but "Sunlight rising over the
            # hills": a noun, then an -ing verb, is that noun doing it
            return Agent(nominal=True)
    if text_word(text, pos).endswith("ing"):
        k = len(toks) - 1
        while k >= 0 and toks[k].tag == ADV:
            k -= 1
        if k >= 1 and toks[k].tag == CONJ and toks[k].low in _REDUCED:
            # "moves forward toward the chapel while slowly descending": the main clause's
            # subject does it
            j = k - 1
            while j >= 0 and toks[j].tag != VERB and toks[j].low not in _BOUNDARY:
                j -= 1
            if j >= 0 and toks[j].tag == VERB:
                return _walk(toks, j, False, 1)
    return _walk(toks, len(toks) - 1, False, 0)


def _PARTICIPLE_AFTER_COMMA(toks: list[Token], j: int) -> bool:
    """"The lead car tracks along the rail, coming in at the left": an -ing right after a comma
    that follows a clause with a verb may be that clause subject's doing (when it is a person,
    an animal or a vehicle), not a noun."""
    return toks[j].low == "," and any(t.tag == VERB for t in toks[:j])


def _DO_BEFORE_ADJECTIVES(toks: list[Token], j: int) -> bool:
    """"Camera do slow push in": non-native English drops the article after "do"; an adjective
    between "do" and the term makes the term a noun, as "a slow push in" would."""
    return toks[j].low in ("do", "does", "did") and j < len(toks) - 1 and all(
        _adjective(t.low) or t.tag == ADV for t in toks[j + 1:])


def _walk(toks: list[Token], i: int, seen: bool, depth: int) -> Agent:
    while i >= 0:
        t = toks[i]
        if t.tag in (ADV, AUX, NUM) or t.low in ASPECT_VERBS or t.low == "to":
            i -= 1
            continue
        if t.tag == VERB:
            if t.low.endswith("ing") and i >= 1 and toks[i - 1].tag == WORD and animate(
                    toks[i - 1].low):
                # "a shot of a soldier standing …, looking into the camera": the person
                return Agent(toks[i - 1].low, seen=seen, position=toks[i - 1].start)
            seen = seen or t.low in SEEING
            i -= 1
            continue
        if t.tag == DET:
            return Agent(nominal=True)
        if t.tag == PRON:
            if t.low in _REFLEXIVE:  # "the camera itself is locked off": the noun before
                i -= 1
                continue
            if i >= 1 and toks[i - 1].tag == PREP:  # "the interpreter beside him": an object
                i -= 2
                continue
            if t.low in _OBJECT_PRONOUNS and i >= 1 and _is_object_verb(toks, i - 1):
                i -= 1  # "a gull tracks it overhead": the object; the verb's subject does it
                continue
            return Agent(t.low, seen=seen, position=t.start)
        if t.tag == REL:
            # "…the camera, which pans": the noun before the relative pronoun.
            j = i - 1
            while j >= 0 and toks[j].low == ",":
                j -= 1
            if j >= 0 and toks[j].tag == WORD:
                return Agent(toks[j].low, seen=seen, position=toks[j].start)
            return Agent(seen=seen)
        if t.tag == WORD:
            # A noun phrase: its head is this word; what stands before it decides its role.
            head = t
            j = i - 1
            while j >= 0 and toks[j].tag in (WORD, NUM, ADV) or (
                    j >= 0 and toks[j].tag == VERB and toks[j].low.endswith(("ed", "ing"))
                    and j - 1 >= 0 and toks[j - 1].tag == DET):
                j -= 1
            if j >= 0 and toks[j].tag == DET:
                j -= 1
            if j >= 0 and toks[j].tag == PREP and toks[j].low != "of" or (
                    j >= 0 and toks[j].low == "of"):
                i = j - 1  # the object of a preposition ("the man on the left"): go on before it
                continue
            if j >= 0 and _is_object_verb(toks, j) and not animate(head.low):
                # The object of a verb, a thing ("a woman reads a newspaper in profile"): the
                i = j  # verb's own subject does it. A person there is described ("… faces the
                continue  # man on the left": the man).
            return Agent(head.low, seen=seen, position=head.start, thing=_rig_thing(toks, i))
        if t.tag == PREP:
            i -= 1
            continue
        if t.tag == COOR or t.low == ",":
            # Coordination ("pans left and tilts up", "pans left, tilts up"): the earlier verb's
            # subject. A parenthetical (", mounted on a gimbal,") is skipped the same way.
            if depth > 3:
                return Agent(seen=seen)
            j = i - 1
            while j >= 0 and toks[j].tag != VERB and toks[j].low not in _BOUNDARY \
                    and toks[j].tag not in (CONJ,) and toks[j].low != ",":
                j -= 1
            if j >= 1 and toks[j].tag == VERB and toks[j - 1].low == "," and t.low == "," and \
                    toks[j].low.endswith(("ed", "en")) and toks[j].low in SEEING | _PLACING:
                i = j - 2  # ", framed in a two-shot medium,": a phrase about the noun before
                continue
            if j >= 0 and toks[j].tag == VERB:
                return _walk(toks, j, seen, depth + 1)
            if t.low == "," and j >= 0 and toks[j].low == "," and j + 1 < i and (
                    toks[j + 1].tag in (DET, PREP, REL, ADV)
                    or toks[j + 1].low.endswith(("ed", "ing"))):
                # ", a guitarist," or ", mounted on a gimbal,": an apposition or a phrase; go
                # before it. A bare item (", low angle,") is a list: no subject there.
                i = j - 1
                continue
            if t.low == "," and i + 1 < len(toks) and (
                    toks[i + 1].tag == VERB and toks[i + 1].low.endswith("ed")
                    or toks[i + 1].tag == PREP):
                # "The camera, placed near the ground and angled upward, …": a phrase after the
                # clause's noun phrase describes that noun.
                head = _opening_np(toks, j + 1, i)
                if head is not None:
                    return Agent(head.low, seen=seen, position=head.start)
            return Agent(seen=seen)
        # clause conjunction, boundary punctuation or anything else: the clause has no subject.
        return Agent(seen=seen)
    return Agent(seen=seen)


_ADJECTIVES = words("parse", "adjectives")
_Y_NOUNS = words("parse", "y_nouns")


def _adjective(low: str) -> bool:
    """Could ``low`` be an adjective before a film noun? Listed adjectives and the usual
    adjective endings; a bare noun ("mast", "crowd") is not."""
    return low in _ADJECTIVES or word_class(low) in (ADV, NUM) or (
        low.endswith(("al", "ic", "ous", "ful", "ive", "less", "ish", "able", "ible", "ed", "y"))
        and low not in _Y_NOUNS)


RIG_WORDS = words("parse", "rig_words")
_SCENE_PLACES = words("parse", "scene_places")


def _rig_thing(toks: list[Token], i: int) -> bool:
    """Is the rig word at ``toks[i]`` a thing in the scene rather than the camera: qualified by
    another noun or a possessive ("the site's tower crane", "a construction crane") or placed
    in the picture ("the crane in the background", "a drone in the sky")?"""
    t = toks[i]
    if t.low not in RIG_WORDS:
        return False
    if i >= 1 and toks[i - 1].tag == WORD and (toks[i - 1].low.endswith("'s") or (
            toks[i - 1].low not in _ADJECTIVES and not toks[i - 1].low.endswith(
                ("ed", "ing", "ly", "al", "ic", "ous", "ful", "ive", "less", "able")))):
        return True
    after = [x.low for x in toks[i + 1:i + 5]]
    return len(after) >= 2 and after[0] in ("in", "on", "across", "above") and any(
        w in _SCENE_PLACES for w in after[1:])


def _opening_np(toks: list[Token], a: int, b: int) -> Token | None:
    """The head of ``toks[a:b]`` when it is a bare noun phrase ("the old camera", "Camera",
    "a woman"): a determiner first, or one camera word or person; else None."""
    span = toks[a:b]
    if not span or span[-1].tag != WORD:
        return None
    if span[0].tag == DET and all(t.tag in (WORD, ADV, NUM) for t in span[1:]) and len(span) > 1:
        return span[-1]
    if len(span) == 1 and (span[0].low in CAMERA_WORDS or animate(span[0].low)):
        return span[0]
    return None


_PLACING = words("parse", "placing")
_REDUCED = words("parse", "reduced")
_OBJECT_PRONOUNS = words("parse", "object_pronouns")


def _is_object_verb(toks: list[Token], j: int) -> bool:
    """Is ``toks[j]`` a finite verb whose object follows it ("reads *a newspaper*", "tracks
    *it*")? Not a verb of seeing ("is seen", "framed"), not a participle used as an adjective
    after a determiner ("the tracking shot"), and only when a subject stands before it, so the
    walk has somewhere to go."""
    t = toks[j]
    if t.tag != VERB or t.low in SEEING or t.low in ASPECT_VERBS:
        return False
    if j >= 1 and toks[j - 1].tag == DET:
        return False
    if t.low.endswith("ing") and not (j >= 1 and toks[j - 1].tag in (WORD, PRON, AUX)):
        return False  # "Following the dog, …" opens the clause: no subject before it
    return j >= 1 and toks[j - 1].tag in (WORD, PRON, ADV, AUX, NUM)


def clause_subject(text: str, start: int, end: int) -> str | None:
    """The subject of the first verb in ``text[start:end]`` ("Girl walk from left …" → "girl"),
    for captions whose nouns have no article; None when it is the camera or not a noun."""
    for t in tokens(text, start, end):
        if t.tag == VERB:
            a = agent(text, t.start, start)
            if a.head and a.head not in CAMERA_WORDS and word_class(a.head) == WORD:
                return a.head
            return None
    return None
