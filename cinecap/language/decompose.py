"""Free-text caption → atomic statements, one per fact per aspect (docs/spec/judge.md, rules 1–9).

Pure Python over the taxonomy: no model, about a millisecond per caption. The steps:

1. Only the ``<answer>`` part of a wrapped model output counts (``statements.parse_output``).
2. The text is cut into sentences, and sentences into *segments* at sequence words ("then",
   "before", "finally", "followed by", …). "As"/"while" join simultaneous moves and do not cut.
3. Explicit intervals ("from 0 to 2 s", "[0.0–2.0]", "(2-4s)", "between 2 and 4 seconds", "in the
   first 3 seconds") bind to the statements of their segment (the nearest one when a segment has
   several).
4. Terms are found by the taxonomy's canonical names and synonyms plus the phrasings and
   pattern families of :mod:`cinecap.language.phrases` (a verb and
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
9. Subjects (orientation, composition): the first noun phrase of the clause before the term (or
   after it: "a profile view of the woman"); body parts are not subjects; pronouns ("he", "she")
   refer to the last subject named or to the subject of a sentence before, skipping nouns of the
   other gender; an appositive ("the man, a guitarist,") makes two names one entity.
10. Position words after a motion or gaze verb ("enters from frame left", "facing screen left")
   are not composition.

Everything outside the aspects (plot, lighting, colour, mood) contains no term and is ignored.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, Sequence

from cinecap import taxonomy as tx
from cinecap.language.phrases import literals, patterns, resolve_elliptic, term_key
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
    "wall street road room table water face head eyes eye hands hand body shoulder shoulders arm "
    "arms legs feet hair".split())
#: Shot-size words: "a static MCU", "a fixed wide" describe the camera too.
_SHOT_WORDS = frozenset("mcu cu ecu ms ls els ws wide medium close-up closeup long full "
                        "establishing take".split())

NEGATIONS = re.compile(
    r"\b(?:not|no|never|without|neither|nor|cannot|rather than|instead of|unlike|isn't|aren't|"
    r"doesn't|don't|didn't|wasn't|won't|n't|nothing|lacks?|absent)\b|n't\b", re.IGNORECASE)
#: What ends the reach of a negation, looking back from a term.
_NEG_STOP = re.compile(r"[,;:.()]|\b(?:but|and then|then|yet|however|while|as)\b|"
                       r"\band\s+(?=(?:the|a|an|it|he|she|they|we)\b)",
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
_MOTION_BEFORE = re.compile(r"\b(?:from|into|to|toward|towards|facing|faces|looking|looks|exits|"
                            r"enters|heads|turns)\s+$", re.IGNORECASE)
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
#: "0:03–0:06", "1:02 to 1:10.5": minutes and seconds.
_MMSS = re.compile(r"(?<![\d:])(\d{1,3}):([0-5]\d(?:\.\d+)?)\s*(?:-|–|—|−|~|to)\s*"
                   r"(\d{1,3}):([0-5]\d(?:\.\d+)?)(?!\d|:\d)", re.I)
_MAX_SECONDS = 86_400.0  # a longer "interval" is a typo or junk, not a clip time; it is ignored
_FIRST_N = re.compile(rf"\b(?:in|during|for|over)\s+the\s+first\s+{_N}{_UNIT}", re.I)

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
        intervals = _intervals(text, a, b)
        # A sequence word inside an interval ("from 0 until 2 s") does not cut the sentence.
        cuts = [a] + [m.start() for m in _SEQUENCE.finditer(text, a, b)
                      if not any(s0 < m.start() < s1 for s0, s1, _, _ in intervals)] + [b]
        order = 0
        for c0, c1 in zip(cuts, cuts[1:]):
            if c1 > c0:
                mine = [(s0, t0, t1) for s0, _, t0, t1 in intervals if c0 <= s0 < c1]
                segs.append(_Segment(c0, c1, si, order, mine))
                order += 1
    return segs


def _intervals(text: str, a: int, b: int) -> list[tuple[int, int, float, float]]:
    """Explicit intervals in ``text[a:b]``: (start, end, t_start, t_end), positions in ``text``."""
    found: list[tuple[int, int, float, float]] = []
    taken = bytearray(b - a)
    for rx in (_MMSS, *_INTERVAL_RES, _FIRST_N):
        for m in rx.finditer(text, a, b):
            s0, s1 = m.start() - a, m.end() - a
            if 1 in taken[s0:s1]:
                continue
            taken[s0:s1] = b"\x01" * (s1 - s0)
            if rx is _FIRST_N:
                x, y = 0.0, float(m.group(1))
            elif rx is _MMSS:
                x = 60 * int(m.group(1)) + float(m.group(2))
                y = 60 * int(m.group(3)) + float(m.group(4))
            else:
                x, y = float(m.group(1)), float(m.group(2))
            if max(x, y) <= _MAX_SECONDS:
                found.append((m.start(), m.end(), min(x, y), max(x, y)))
    return found


# --- context checks --------------------------------------------------------------------------

_NP = re.compile(r"\b(?:the|a|an|this|that|his|her|their|its|our|one|another)\s+"
                 r"([a-z][\w'’-]*(?:\s+[a-z][\w'’-]*){0,2})", re.I)
_NP_STOP = frozenset("is are was were be being been stands sits walks looks faces seen shown "
                     "framed placed positioned appears remains stays turns holds and or with "
                     "while as of in on at to from by who which that sit stand walk run look face "
                     "turn talk hold move wait lean dance play smile stare sing eat drink read "
                     "ride drive fight kiss hug argue below above behind ahead nearby outside "
                     "inside there here beyond".split())


def _np_heads(text: str) -> list[str]:
    """Head nouns of the noun phrases in ``text`` ("the young man walks" → "man")."""
    heads = []
    pos = 0
    while (m := _NP.search(text, pos)) is not None:
        words = m.group(1).split()
        for i, w in enumerate(words):
            lw = w.lower()
            if i and (lw in _NP_STOP or lw.endswith(("ing", "ed", "ly", "s")) and lw not in _KEEP_S
                      and words[i - 1].lower() not in _MODIFIERS):
                words = words[:i]
                break
        heads.append(words[-1].lower().strip("'’"))
        # Go on right after the kept words: "a woman and a man" holds two noun phrases.
        pos = m.start(1) + len(" ".join(words))
    return heads


_KEEP_S = frozenset("lens glass dress bus canvas chess".split())
#: Words after which an -s word is a plural noun ("the two riders"), not a verb ("the man walks").
_MODIFIERS = frozenset("two three four five several many few some young old small tall lone "
                       "little big distant other both all masked armed elderly".split())


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
    if not re.search(r"\w", text[sentence_start:pos]):
        return True  # a fragment that opens with the term ("Static from 0 to 2 s.") is the shot's
    head = _last_np_head(text[max(seg_start, pos - _LOOK_BACK):pos])
    if head is not None:
        return head in CAMERA_WORDS
    prefix = text[max(sentence_start, pos - _LOOK_BACK):pos].lower()
    return any(w in CAMERA_WORDS for w in re.findall(r"[a-z]+", prefix))


# --- subjects and co-reference ---------------------------------------------------------------

_APPOSITIVE = re.compile(r"\bthe\s+([a-z][\w-]*)\s*,\s*(?:a|an|the)\s+(?:[\w-]+\s+)?([a-z][\w-]*)\s*,",
                         re.I)
_SUBJECT_AFTER = re.compile(r"\W*(?:view|shot|angle)?\s*of\s+(?:the|a|an|his|her)\s+"
                            r"(?:[\w-]+\s+)?([a-z][\w-]*)", re.I)
_SUBJECT_ASPECTS = (SO, CO)


_CLAUSE_CUT = re.compile(r"[,;:]|\b(?:and|while|whereas|but)\b", re.I)


def _subjects_in(text: str) -> list[str]:
    return [h for h in _np_heads(text) if h not in _NOT_SUBJECTS]


def _subject_for(text: str, seg: _Segment, start: int, end: int, last: str | None) -> str | None:
    before = text[max(seg.start, start - _LOOK_BACK):start]
    cuts = list(_CLAUSE_CUT.finditer(before))
    local = before[cuts[-1].end():] if cuts else before
    heads = _subjects_in(local)
    if heads:
        # "the man on the left", "the woman in profile": the term right after a noun phrase
        # describes that phrase; otherwise it describes the clause's subject (its first one).
        if local.rstrip().lower().endswith(heads[-1]):
            return heads[-1]
        return heads[0]
    if _RELATIVE.match(local):  # "…the hikers below, who are seen from behind" → hikers
        heads = _subjects_in(before[:len(before) - len(local)])
        if heads:
            return heads[-1]
    pronoun = _PRONOUN.search(local)
    if pronoun:
        gender = _pronoun_gender(pronoun.group(0))
        if last and _agrees(last, gender):
            return last
        # The antecedent is the subject (first noun phrase) of this segment or of the nearest
        # sentence before that has one and agrees in gender ("The man stands under a lamp. …
        # his face in profile" → man; "the woman faces the camera while he …" → not woman).
        window = text[max(0, seg.start - 2 * _LOOK_BACK):start]
        for sentence in reversed(re.split(r"[.;!?]", window)):
            for head in _subjects_in(sentence):
                if _agrees(head, gender):
                    return head
        return None
    heads = _subjects_in(before)
    if heads:
        return heads[0]
    m = _SUBJECT_AFTER.match(text, end, min(seg.end, end + _LOOK_BACK))
    if m and m.group(1).lower() not in _NOT_SUBJECTS:
        return m.group(1).lower()
    return last


_PLURAL = re.compile(r"\b(?:both|each other|one another|all of them|the two of them)\b", re.I)
_RELATIVE = re.compile(r"\s*(?:who|which|that|whose)\b", re.I)
_PRONOUN = re.compile(r"\b(?:he|she|they|him|her|his|hers|their)\b", re.I)
_FEMALE = frozenset("woman women girl lady mother bride actress daughter sister queen wife "
                    "waitress grandmother aunt niece nun princess".split())
_MALE = frozenset("man men boy guy father groom actor son brother king husband waiter "
                  "grandfather uncle nephew monk prince gentleman".split())


def _pronoun_gender(p: str) -> str | None:
    p = p.lower()
    return "m" if p in ("he", "him", "his") else "f" if p in ("she", "her", "hers") else None


def _agrees(head: str, gender: str | None) -> bool:
    """Could ``head`` be what a pronoun of ``gender`` refers to? Unknown nouns agree with all."""
    if gender == "m":
        return head not in _FEMALE
    if gender == "f":
        return head not in _MALE
    return True


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
    low = text.lower()
    for p in patterns():
        if p.aspect not in aspects or (p.needs and not any(n in low for n in p.needs)):
            continue
        for m in p.regex.finditer(text):
            value = p.value(m) if callable(p.value) else p.value
            if value is not None:
                raw.append((m.start(), m.end(), p.aspect, value, p.camera_only))
    for lit in literals():
        for m in lit.regex.finditer(text):
            for aspect, value, cam in lit.meaning.get(term_key(m.group(0)), ()):
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
            value = resolve_elliptic(last_move, value[1:])
            if value is None:
                continue
        elif aspect == CM:
            last_move = value
        if _negated(text, seg.start, start):
            continue
        if aspect == CO and _MOTION_BEFORE.search(text, max(0, start - 12), start):
            continue  # "enters from frame left", "facing screen left": motion or gaze, not position
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
        subjects: list[str | None] = [None]
        if h.aspect in _SUBJECT_ASPECTS:
            subject = _subject_for(text, h.seg, h.start, h.end, last_subject)
            subjects = [aliases.get(subject, subject) if subject else None]
            last_subject = subjects[0] or last_subject
            if _PLURAL.search(text, max(h.seg.start, h.start - 40), h.start):
                # "both in profile", "face each other in profile": one fact per subject named.
                named = _subjects_in(text[max(h.seg.start, h.start - _LOOK_BACK):h.start])
                named = list(dict.fromkeys(aliases.get(n, n) for n in named))
                if len(named) >= 2:
                    subjects = named[:4]
        iv = _nearest_interval(h.seg, h.start)
        for subject in subjects:
            st = Statement(h.aspect, h.value, text=" ".join(text[h.start:h.end].split()),
                           t_start=iv[0] if iv else None, t_end=iv[1] if iv else None,
                           subject=subject)
            if not _is_repeat(st, h, text, out, meta):
                out.append(st)
                meta.append((h.seg, h.end))
        if len(out) >= MAX_STATEMENTS:
            log.warning("caption has over %d statements; the rest is ignored", MAX_STATEMENTS)
            del out[MAX_STATEMENTS:]
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
