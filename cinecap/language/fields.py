"""Caption structure beyond running prose: labelled fields and terse lists.

Annotators and models often write a caption as fields ("Shot size: wide. Angle: slightly low.
Woman: center-right, three-quarter.") or as terse lists ("MS. Eye level. Man left, profile."),
where bare words ("wide", "low", "left") get their aspect only from the structure: a field label
names the aspect of the values up to the next label or the sentence's end (:func:`field_terms`;
the field is about the camera), a subject label ("Woman:") the subject of the positions and
orientations that follow, and in a terse list a position word right after a bare noun or alone as
an item is that noun's (or the clip's one subject's) position, a size word that is a whole item
the shot size.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from cinecap import taxonomy as tx
from cinecap.language.data import ASPECT, load, rx, words
from cinecap.language.parse import VERB, WORD, word_class

CM, SS, CA, DF, CO, SO, SP = tx.ASPECTS

_TABLE = load("fields")
#: Field labels, lower case, one space → aspect (``tables/fields.toml``).
LABELS: dict[str, str] = {n: ASPECT[a] for a, names in _TABLE["labels"].items()
                          for n in names.split("|")}

_LABEL_RE = rx("fields", "label_re")
_END = re.compile(r"(?<!\d)[.;!?\n](?!\d)")

#: Bare value words of each aspect, inside that aspect's field (or a terse list item).
_BARE: dict[str, list[tuple[str, str]]] = {
    ASPECT[a]: [(rx, v) for rx, v in items] for a, items in _TABLE["bare"].items()}
_BARE_RE = {a: [(re.compile(rf"(?<![\w-])(?:{rx})(?![\w-])", re.I), v) for rx, v in items]
            for a, items in _BARE.items()}


_COUNTS = words("fields", "counts")


def _film_word(word: str) -> bool:
    """A bare value word of some aspect ("wide", "static", "low", "shallow", "left")."""
    return any(rx.fullmatch(word) for items in _BARE_RE.values() for rx, _ in items)


@dataclass(frozen=True)
class Field:
    """One labelled field: ``text[start:end]`` is its value."""

    start: int
    end: int
    aspect: str | None  # None: a subject label
    subject: str | None = None


_KEY_VALUE = rx("fields", "key_value")


def _key_value_fields(text: str) -> list[Field]:
    found = []
    for m in _KEY_VALUE.finditer(text):
        key = m.group(1)
        if m.group(2) == "is" and "_" not in key:
            continue  # "the shot is wide" is prose, not a key
        aspect = LABELS.get(" ".join(key.lower().replace("_", " ").split()))
        if aspect is not None:
            found.append((m.end(), aspect))
    out = []
    for k, (s1, aspect) in enumerate(found):
        e = _END.search(text, s1)
        out.append(Field(s1, e.start() if e else len(text), aspect))
    return out


def fields(text: str) -> list[Field]:
    """The labelled fields of a caption, in order."""
    if ":" not in text:
        if "_" in text or "=" in text or "equals" in text:
            return _key_value_fields(text)
        return []  # every label ends with a colon
    found: list[tuple[int, int, str | None, str | None]] = []
    labels: list[re.Match] = []
    for m in _LABEL_RE.finditer(text):
        label = " ".join(m.group(1).lower().split())
        aspect = LABELS.get(label)
        subject = None
        if aspect is None:
            words = label.split()
            if not (1 <= len(words) <= 2) or word_class(words[-1]) not in (WORD,) \
                    or words[-1] in ("note", "notes", "caption", "answer", "description", "summary",
                                     "scene", "action", "lighting", "light", "colour", "color",
                                     "mood", "sound", "time", "setting", "location"):
                continue
            if any(_film_word(w) for w in words):
                continue  # "Static wide: …" is a terse list, not a subject named "wide"
            if words[0] in _COUNTS or words[0].isdigit():
                continue  # "Three musicians: drummer center, …": a group, each named after it
            subject = None if words[-1] in ("subject", "subjects", "talent") else words[-1]
        found.append((m.start(), m.end(), aspect, subject))
        labels.append(m)
    out = []
    for k, (s0, s1, aspect, subject) in enumerate(found):
        stop = found[k + 1][0] if k + 1 < len(found) else len(text)
        e = _END.search(text, s1, stop)
        out.append(Field(s1, e.start() if e else stop, aspect, subject))
    for m, (s0, s1, aspect, subject) in zip(labels, found):
        if aspect is None and m.group(2):  # "Man (foreground, back to camera):" is about the man
            out.append(Field(m.start(2), m.end(2), None, subject))
    return out


def field_at(flds: list[Field], pos: int) -> Field | None:
    for f in flds:
        if f.start <= pos < f.end:
            return f
    return None


def field_terms(text: str, flds: list[Field]) -> list[tuple[int, int, str, str]]:
    """Bare value words inside aspect fields: (start, end, aspect, canonical)."""
    out = []
    for f in flds:
        if f.aspect is None:
            continue
        for rx, value in _BARE_RE[f.aspect]:
            for m in rx.finditer(text, f.start, f.end):
                out.append((m.start(), m.end(), f.aspect, value))
    return out


# --- terse lists ---------------------------------------------------------------------------

_ITEM = re.compile(r"[^,;.:\n()|/•]+")
_POS_WORD = rx("fields", "pos_word")
_ITEM_LEAD = rx("fields", "item_lead")
_SIZE_ITEM = rx("fields", "size_item")


_SPACED_DASH = rx("fields", "spaced_dash")


def terse_terms(text: str) -> list[tuple[int, int, str, str, str | None]]:
    """Positions and sizes stated as bare list items: (start, end, aspect, canonical, subject).

    "man left" (a bare noun, then a position), "centre" or "Wide" alone as an item of a list
    (between commas, semicolons or full stops).
    """
    out = []
    # "older woman - left, profile": a spaced dash between a name and its place is a space.
    text = _SPACED_DASH.sub(lambda d: " " * len(d.group(0)), text) if " - " in text or "– " in text \
        else text
    for m in _ITEM.finditer(text):
        item = m.group(0)
        if len(item) > 48:
            continue  # a clause, not a list item
        words = item.split()  # most items are clauses: only one opening with a possessive is read
        owned = len(words) >= 3 and words[0].lower().endswith(("'s", "’s")) and \
            _owned_part_position([w.lower() for w in words])
        if owned:  # "Marcus's shoulder at frame left": the owner, at that place
            p0 = m.start() + item.lower().rfind(owned[1])
            value = _pos_value(_POS_WORD.fullmatch(owned[1]).group(1))
            out.append((p0, p0 + len(owned[1]), CO, value, owned[0]))
            continue
        if not words or len(words) > 3:
            continue
        # the item's start in text, skipping leading spaces and what may open it
        base = m.start() + (len(item) - len(item.lstrip()))
        lead = _ITEM_LEAD.match(text, base, m.end())
        if lead and lead.end() < m.end():
            item = text[lead.end():m.end()]
            base = lead.end()
            words = item.split()
        lows = [w.lower() for w in words]
        core = " ".join(lows)
        pm = _POS_WORD.fullmatch(core)
        if pm:
            out.append((base, base + len(item.strip()), CO, _pos_value(pm.group(1)), None))
            continue
        if _SIZE_ITEM.fullmatch(core):  # "Wide.", "extreme wide", "medium close"
            value = next(v for rx, v in _BARE_RE[SS] if rx.fullmatch(core))
            out.append((base, base + len(item.strip()), SS, value, None))
            continue
        if len(lows) not in (2, 3):
            continue
        last = _pos_of(words[-1])
        if not last:
            continue
        if len(lows) == 3 and word_class(lows[0]) in (WORD, VERB) and word_class(lows[1]) == WORD \
                and last and not _film_word(lows[0]):
            lows = lows[1:]  # "bass player right": a two-word name, its head noun
        # "man left", "swimmer centre", "subject right", screenplay "CONDUCTOR L", "soprano ctr",
        # "she's L": a bare noun (or a pronoun and its verb), then a position.
        if len(lows) == 2 and (word_class(lows[0]) == WORD or lows[0] in ("one", "another")
                               or lows[0] in _PRONOUN_IS) and last:
            subject = None if lows[0] in ("subject", "subjects", "it", "one", "another", "camera",
                                          "cam", "lens", "talent") or lows[0] in _PRONOUN_IS \
                else lows[0]  # "camera right"
            p0 = base + item.strip().lower().rfind(lows[1])
            out.append((p0, p0 + len(lows[1]), CO, last, subject))
    return out


_PARTS = words("fields", "parts")


def _owned_part_position(lows: list[str]) -> tuple[str, str] | None:
    """(owner, position words) of an item "<name>'s <part> [at|in|on] <position>", else None."""
    if len(lows) < 3 or not lows[0].endswith(("'s", "’s")) or lows[1] not in _PARTS:
        return None
    rest = lows[2:]
    if rest[0] in ("at", "in", "on") and len(rest) > 1:
        rest = rest[1:]
    if len(rest) > 2 or not _POS_WORD.fullmatch(" ".join(rest)):
        return None
    owner = lows[0][:-2]
    return (owner, " ".join(rest)) if word_class(owner) == WORD else None


#: Screenplay and shot-list abbreviations of a place in the frame (``words.toml``).
_POS_ABBREV = load("words")["maps"]["position_abbreviations"]
_PRONOUN_IS = words("fields", "pronoun_is")


def _pos_of(word: str) -> str | None:
    """The place a list item's last word names ("left", "centre", "L", "CR", "ctr"), else None."""
    if word in _POS_ABBREV:
        return _POS_ABBREV[word]
    return _pos_value(word) if _POS_WORD.fullmatch(word) else None


def _pos_value(word: str) -> str:
    w = word.lower().replace("centre", "center").replace(" ", "-")
    if w in ("center-left", "center-right"):
        return w
    return "center" if w in ("center", "middle") else w


__all__ = ["Field", "fields", "field_at", "field_terms", "terse_terms", "LABELS", "VERB"]
