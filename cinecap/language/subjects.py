"""Who a statement is about: subjects of orientations and positions, and co-reference.

The decomposer (:mod:`cinecap.language.decompose`) asks here which person or thing a position
or an orientation belongs to. The parser's agent (:func:`cinecap.language.parse.agent`) comes
first when it is a person or an animal; else the noun phrase before the term, the clause's first
one, or the one after it; pronouns look back for an antecedent of their gender. Then the
caption-wide rules: "both" / "each other" / "two friends" give one statement per subject, an
appositive or a single introduced person makes two names one, one name at two positions in
different clauses is two subjects, proper names keep their capital, and "it" is the camera
unless a person or an animal became the subject since.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from cinecap import taxonomy as tx
from cinecap.language.data import rx, words
from cinecap.language.lexicon import ANIMALS, ANIMATE, FEMALE, MALE, VEHICLES, animate
from cinecap.language.parse import (CAMERA_RIG, PREP, VERB, WORD, Sentence, agent, clause_subject,
                                    word_class)

if TYPE_CHECKING:  # the decomposer's segments and finds, read here by attribute only
    Segment = Any
    Hit = Any

CM, SS, CA, DF, CO, SO, SP = tx.ASPECTS
#: How far (characters) a term looks around itself for its subject, the camera or "again": a
#: clause, not the whole text, so a 100 KB run-on sentence stays linear.
LOOK_BACK = 200

#: Words that make a clause about the camera (for the camera-only terms of step 6): the camera's
#: own words, kept once in ``parse``.
CAMERA_WORDS = CAMERA_RIG
NOT_SUBJECTS = CAMERA_WORDS | words("subjects", "not_subjects")
_BODY_PARTS = words("subjects", "body_parts")
_TERSE_ITEM = rx("subjects", "terse_item")
_NP = rx("subjects", "np")
_NP_STOP = words("subjects", "np_stop")


def np_heads(text: str) -> list[str]:
    """Head nouns of the noun phrases in ``text`` ("the young man walks" → "man")."""
    heads = []
    pos = 0
    while (m := _NP.search(text, pos)) is not None:
        words = m.group(1).split()
        if word_class(words[0].lower()) in _NOT_A_NOUN:
            pos = m.start(1)  # "see her mostly from behind": a pronoun, then an adverb
            continue
        for i, w in enumerate(words):
            lw = w.lower()
            if i and (lw in _NP_STOP or word_class(lw) in _NOT_IN_NP or lw.endswith(
                    ("ing", "ed", "ly", "s")) and lw not in _KEEP_S
                    and words[i - 1].lower() not in _MODIFIERS):
                words = words[:i]
                break
        head = words[-1].lower().strip("'’")
        if head in _BODY_PARTS and len(words) > 1 and words[-2].lower().endswith(("'s", "’s")):
            head = words[-2].lower()[:-2]  # "the man's shoulder fills frame left": the man
        heads.append(head)
        # Go on right after the kept words: "a woman and a man" holds two noun phrases.
        pos = m.start(1) + len(" ".join(words))
    return heads


_NOT_A_NOUN = frozenset(("ADV", PREP, "DET", "PRON", "CONJ", "COOR", "AUX"))
_NOT_IN_NP = frozenset((PREP, "DET", "PRON", "REL", "CONJ", "COOR", "AUX"))
_KEEP_S = words("subjects", "keep_s")
_MODIFIERS = words("subjects", "modifiers")


def last_np_head(text: str) -> str | None:
    heads = np_heads(text)
    return heads[-1] if heads else None

def it_is_camera(text: str, pos: int) -> bool:
    """Does "it" at ``pos`` mean the camera? Yes unless a person or animal was named after the
    last camera word ("the fox … it trots … it stops": the fox)."""
    window = text[max(0, pos - 300):pos]
    near = _THING_AS_IT.search(window, max(0, len(window) - 60)) if window.rstrip().endswith(
        ("as", "while", "until", "when")) else None
    if near and near.group(2).lower() not in CAMERA_WORDS and (
            near.group(1).lower() in ("with", "after") or word_class(near.group(1).lower()) != PREP):
        return False  # "tilts up with the ball as it climbs": the thing just named (not "dollies
        # out from the couple as it zooms out": the camera)
    cam = max((m.end() for m in _CAMERA_NOUN.finditer(window)), default=-1)
    for m in _NP_ANY.finditer(window, max(cam, 0)):
        before = _LAST_WORD.search(window, 0, m.start())
        if before and word_class(before.group(1).lower()) in (PREP, VERB) and not any(
                w and w.lower() in ANIMALS for w in m.groups()):
            continue  # a person as an object ("dollies out from a couple"), not who "it" goes
            # on about; an animal is an "it" ("keeps the dog sharp as it approaches")
        if any(w and (animate(w.lower()) or w.lower() in VEHICLES) for w in m.groups()):
            return False  # "the train tracks out … as it pulls away": a vehicle is an "it" too
    return True


_THING_AS_IT = rx("subjects", "thing_as_it")
THINGS = words("subjects", "things")


_LAST_WORD = re.compile(r"([a-z]+)\s*$", re.I)  # right before: "frame: the train" is no object


_CAMERA_NOUN = rx("subjects", "camera_noun")
_NP_ANY = re.compile(r"\b(?:the|a|an|this|that)\s+([a-z]+)(?:\s+([a-z]+))?\b", re.I)

# --- subjects and co-reference ---------------------------------------------------------------

APPOSITIVE = rx("subjects", "appositive")
_SUBJECT_AFTER = rx("subjects", "subject_after")
SUBJECT_ASPECTS = (SO, CO)


_CLAUSE_CUT = re.compile(r"[,;:]|\b(?:and|while|whereas|but)\b", re.I)
_OPENERS = words("subjects", "openers")
_LAST_WORD_RE = re.compile(r"[A-Za-z]+$")
_TIME_END = re.compile(r"\d\s*(?:s|sec|secs|seconds)?\s*[\])]?$", re.I)


def _opens_clause(lead: str) -> bool:
    """Is a term that comes after ``lead`` (right-stripped) at the start of its clause: nothing,
    punctuation, a conjunction, a time or a label before it ("…; on the right a man walks",
    "[0–2 s] on the left, the fox")?"""
    if not lead or lead[-1] in ",;:.!?()[]\n–—":
        return True
    if lead[-1].isdigit() or lead[-1] in "s])":
        if _TIME_END.search(lead, max(0, len(lead) - 16)):
            return True
    w = _LAST_WORD_RE.search(lead, max(0, len(lead) - 12))
    return bool(w) and w.group(0).lower() in _OPENERS
_DET_AFTER_COMMA = re.compile(r"\s*,\s*(?:the|a|an|two|three)\s", re.I)
_AFTER_CUT = re.compile(r"[;:.!?()]|\b(?:and|while|whereas|but)\b", re.I)


def subjects_in(text: str) -> list[str]:
    return [h for h in np_heads(text) if h not in NOT_SUBJECTS]


def subject_for(text: str, seg: "Segment", start: int, end: int, last: str | None,
                 parsed: Sentence | None = None) -> str | None:
    lead = text[max(seg.start, start - LOOK_BACK):start].rstrip()
    opening = _opens_clause(lead)
    if opening and (not _ITEM_END.match(text, end) or _DET_AFTER_COMMA.match(text, end)):
        # "On the left, a woman reads", "in profile the man turns": a position or orientation
        # that opens its clause describes the clause's subject, the noun phrase after it.
        stop = _AFTER_CUT.search(text, end, min(seg.end, end + LOOK_BACK))
        after_text = text[end:stop.start() if stop else min(seg.end, end + LOOK_BACK)]
        verb = next((m for m in re.finditer(r"[a-z']+", after_text.lower())
                     if word_class(m.group(0)) == VERB), None)
        if verb is not None:  # the noun phrase before the clause's verb, not an object after it
            after_text = after_text[:verb.start()]
        after = subjects_in(after_text)
        if after:
            return after[0]
    if lead.endswith(",") and _ITEM_END.match(text, end):
        # "the interpreter, centre, faces the camera": a bare item after a noun phrase is that
        # noun's.
        prev = re.split(r"[,;:]", lead[:-1])[-1]
        item = _TERSE_ITEM.fullmatch(prev)
        if item and word_class(item.group(1).lower()) == WORD and \
                item.group(1).lower() not in NOT_SUBJECTS:
            return item.group(1).lower()  # "drummer center, facing camera": the drummer
        heads = subjects_in(prev)
        if heads and prev.rstrip().lower().endswith(heads[-1]) and not any(
                word_class(w) == VERB for w in re.findall(r"[a-z']+", prev.lower())):
            return heads[-1]
    if parsed is not None:
        # The parser's agent first, when it is a person or an animal: "two friends sit on a
        # bench facing the camera" → friends (not the bench), "a man standing under a lamp on
        # the right" → man.
        a = agent(parsed, start, seg.start)
        if a.head and animate(a.head) and a.head not in NOT_SUBJECTS:
            return a.head
    before = text[max(seg.start, start - LOOK_BACK):start]
    cuts = list(_CLAUSE_CUT.finditer(before))
    local = before[cuts[-1].end():] if cuts else before
    heads = subjects_in(local)
    if heads:
        # "the man on the left", "the woman in profile": the term right after a noun phrase
        # describes that phrase; otherwise it describes the clause's subject (its first one).
        # A thing after a person ("a man under a streetlamp on the right") leaves it the person.
        if local.rstrip().lower().endswith(heads[-1]) and (
                len(heads) == 1 or animate(heads[-1]) or not animate(heads[0])):
            return heads[-1]
        return heads[0]
    if _RELATIVE.match(local):  # "…the hikers below, who are seen from behind" → hikers
        heads = subjects_in(before[:len(before) - len(local)])
        if heads:
            return heads[-1]
    pronoun = _PRONOUN.search(local)
    if pronoun:
        gender = _pronoun_gender(pronoun.group(0))
        if pronoun.group(0).lower() in ("his", "her", "their"):
            # "the attorney's shoulder and the back of his head fill frame left": a possessive
            # refers to the nearest person before it in its sentence.
            near = [h for h in subjects_in(before[:len(before) - len(local) + pronoun.start()])
                    if animate(h) and agrees(h, gender)]
            if near:
                return near[-1]
        if last and agrees(last, gender) and (gender is None or animate(last)):
            return last
        fallback = last if last and agrees(last, gender) else None
        # The antecedent is the subject (first noun phrase) of this segment or of the nearest
        # sentence before that has one and agrees in gender ("The man stands under a lamp. …
        # his face in profile" → man; "the woman faces the camera while he …" → not woman).
        w0 = max(0, seg.start - 2 * LOOK_BACK)
        window = text[w0:start]
        pos = len(window)
        for sentence in reversed(re.split(r"[.;!?]", window)):
            pos -= len(sentence)
            heads = subjects_in(sentence)
            if not heads:  # articles dropped ("Girl walk from left …"): the parser's subject
                bare = clause_subject(text, w0 + pos, w0 + pos + len(sentence))
                heads = [bare] if bare and bare not in NOT_SUBJECTS else []
            pos -= 1
            for head in heads:
                if agrees(head, gender) and (gender is None or animate(head)):
                    return head  # "she" is a person before a thing ("the castle … the heroine")
                if fallback is None and agrees(head, gender):
                    fallback = head
        return fallback
    heads = subjects_in(before)
    if heads:
        # "The video opens with a medium shot of a woman sitting at a table, centered": the
        # person named, rather than a thing that opened the clause.
        people = [h for h in heads if animate(h)]
        return heads[0] if animate(heads[0]) or not people else people[-1]
    m = _SUBJECT_AFTER.match(text, end, min(seg.end, end + LOOK_BACK))
    if m and m.group(1).lower() not in NOT_SUBJECTS:
        return m.group(1).lower()
    # No noun phrase with an article: the parser's agent ("Girl walk from left …", "man left").
    a = agent(text, start, seg.start)
    if a.head and a.head not in NOT_SUBJECTS and word_class(a.head) == WORD and not (
            a.head.endswith(("s", "ed")) and _COORD_BEFORE.search(text, max(seg.start, a.position - 12),
                                                                 a.position)):
        return a.head
    return last


#: "…, then ambles to frame right": an unknown -s word after "then"/"and" is the next verb.
_COORD_BEFORE = re.compile(r"\b(?:then|and|or|but|finally)\s+$", re.I)


PLURAL = rx("subjects", "plural")
_RELATIVE = re.compile(r"\s*(?:who|which|that|whose)\b", re.I)
_PRONOUN = re.compile(r"\b(?:he|she|they|him|her|his|hers|their)\b", re.I)
def _pronoun_gender(p: str) -> str | None:
    p = p.lower()
    return "m" if p in ("he", "him", "his") else "f" if p in ("she", "her", "hers") else None


def agrees(head: str, gender: str | None) -> bool:
    """Could ``head`` be what a pronoun of ``gender`` refers to? Unknown nouns agree with all;
    a known thing never is a "he" or a "she" ("a lamp glows on the table; she sits left")."""
    if gender is not None and head in THINGS:
        return False
    if gender == "m":
        return head not in FEMALE
    if gender == "f":
        return head not in MALE
    return True

BOTH = "\x00both"
TWO_OF = rx("subjects", "two_of")
BOTH_BEFORE = rx("subjects", "both_before")


SHOULDER_OF = rx("subjects", "shoulder_of")


def proper_names(text: str, plan: list[list[str | None]]) -> None:
    """A subject written with a capital everywhere, never after an article ("OVER THE SHOULDER
    of MARK onto JESS", "Lucy turns"), is a proper name: it keeps its capital, and two different
    names never match (docs/judge.md)."""
    names = {x for subjects in plan for x in subjects if x and not x.startswith(BOTH)}
    proper = {}
    for x in names:
        base = x.partition(" (")[0].lower()
        if base in ANIMATE or base in MALE or base in FEMALE:
            continue  # a screenplay's role in capitals ("the CONDUCTOR", "WOMAN R"), not a name
        occ = list(re.finditer(rf"(?<![\w'-]){re.escape(base)}(?![\w-])", text, re.I))
        if not occ or not all(m.group(0)[0].isupper() for m in occ):
            continue
        if any(re.search(r"\b(?:the|a|an|this|that|his|her|their|its|our|my|your)\s+$",
                         text[max(0, m.start() - 8):m.start()], re.I) for m in occ):
            continue
        if not any(m.group(0).isupper() and len(base) > 1 or not re.search(
                r"(?:^|[.!?:;\n]\s*|[\[(]\s*)$", text[max(0, m.start() - 3):m.start()])
                for m in occ):
            continue  # only ever capitalised because it opens a sentence
        proper[x] = x[:1].upper() + x[1:]
    if proper:
        for subjects in plan:
            for i, x in enumerate(subjects):
                if x in proper:
                    subjects[i] = proper[x]


def one_person(text: str, plan: list[list[str | None]]) -> None:
    """Co-reference when the caption introduces one person: "… behind a skateboarder: the camera
    tracks him …, the skater seen from the back" — the skater is the skateboarder. Only when
    exactly one of the names is introduced with "a"/"an", the others never are, no two people are
    named together, and the genders agree."""
    names = {x for subjects in plan for x in subjects if x and not x.startswith(BOTH)}
    people = [n for n in names if animate(n)]
    if len(people) < 2 or TWO_OF.search(text) or PLURAL.search(text):
        return
    # "a mother … her daughter": someone named after a possessive is introduced too (another person)
    introduced = [n for n in people if re.search(rf"\b(?:a|an|one|his|her|their)\s+(?:[\w'-]+\s+){{0,2}}"
                                                   rf"{re.escape(n)}\b", text, re.I)]
    if len(introduced) != 1:
        return
    one = introduced[0]
    first_one = re.search(rf"\b{re.escape(one)}\b", text, re.I)
    gender = "m" if one in MALE else "f" if one in FEMALE else None
    if any(first_one and (m := re.search(rf"\b{re.escape(x)}\b", text, re.I)) and
           m.start() < first_one.start() for x in people if x != one):
        return  # "the teacher … a student": someone named before the one introduced is another
    for subjects in plan:
        for i, x in enumerate(subjects):
            if x in people and x != one and agrees(x, gender) and not (
                    gender is None and (x in MALE or x in FEMALE)):
                subjects[i] = one


def qualify_by_position(hits: list["Hit"], plan: list[list[str | None]]) -> None:
    """Two subjects with one name told apart by where they stand ("man left, profile; man right,
    profile"): when one name is placed at two positions in different clauses, each clause's
    statements about it name the subject with its position ("man (left)"). Not in a caption with
    times: there the positions are moments of one subject moving ("[0–2 s] the fox at frame
    right; [2–5 s] it trots through the centre")."""
    if any(h.seg.intervals for h in hits):
        return
    placed: dict[str, dict[tuple[int, int], str]] = {}
    for h, subjects in zip(hits, plan):
        if h.aspect == CO and subjects[0] and not subjects[0].startswith(BOTH):
            placed.setdefault(subjects[0], {})[(h.seg.sentence, h.seg.order)] = h.value
    for name, where in placed.items():
        if len(set(where.values())) < 2 or len(where) < 2:
            continue
        for h, subjects in zip(hits, plan):
            pos = where.get((h.seg.sentence, h.seg.order))
            if pos and subjects == [name]:
                subjects[0] = f"{name} ({pos})"

_ITEM_END = re.compile(r"\s*[,;.)]")
