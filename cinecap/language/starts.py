"""What a pattern's regex says about its matches, read off the parsed regex where it is exact.

:func:`derived_starts`: the words every match starts with (``Pattern.starts``: a pattern is then
tried only there; the decomposer's words are runs of ``[a-z]`` in the lower-cased text). Exact
when the regex opens with a check that no letter comes before, spells its first word in literal
letters (through groups, alternations, optional parts) and closes it with a non-letter; anything
else (a class that may be a letter, a back reference, a word that may run on) gives None.
:func:`clauses`: the words and characters every match contains (:func:`satisfied` checks them).
"""
from __future__ import annotations

import re
import string

try:
    from re import _constants as C, _parser as P  # Python 3.11+
except ImportError:  # pragma: no cover - older Pythons
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse as P  # type: ignore[no-redef]

_LETTERS = frozenset(string.ascii_lowercase)
_MAX = 500  # prefixes followed at once; a regex that spells more keeps scanning
OPEN, CLOSED, CLOSES = 0, 1, 2  # word still open | ended by a non-letter | ends it if begun


class _Unknown(Exception):
    """The regex does not say for sure where its matches start."""


def derived_starts(rx: re.Pattern) -> frozenset[str] | None:
    """The words (lower case, ``[a-z]+``) every match of ``rx`` starts with, or None."""
    try:
        seq = list(P.parse(rx.pattern, rx.flags))
        if not _left_bounded(seq):
            return None
        words = set()
        for prefix, state in _seq(seq):
            if not prefix or state != CLOSED:
                return None
            words.add(prefix)
        return frozenset(words) or None
    except (_Unknown, re.error, RecursionError):
        return None


#: What ``re.I`` folds onto an ASCII letter and ``lower()`` does not: ``decompose`` folds them
#: first, so a caption's lower-cased words say which patterns may match (and none is looked up
#: as an unknown word: "medıum shot").
ASCII_FOLD = str.maketrans("\u0130\u0131\u017f", "Iis")


def clauses(rx: re.Pattern) -> tuple[frozenset[str], ...]:
    """What every match of ``rx`` contains, read off the regex where it says so for sure: clauses
    of whole words (``[a-z]+``, lower case) and ASCII characters that are no letter, one of each
    clause in every match. Exact on a lower-cased text folded by ``ASCII_FOLD``."""
    try:
        return tuple(dict.fromkeys(_clauses(list(P.parse(rx.pattern, rx.flags)), False)))
    except (re.error, RecursionError):
        return ()


def satisfied(need: tuple[frozenset[str], ...], present: set[str], low: str) -> bool:
    """Whether a text with these words (``low``: it lower-cased) has one of every clause."""
    return all(not c.isdisjoint(present) or any(x in low for x in c if not x.isalpha()) for c in need)


def _clauses(seq: list, bounded: bool) -> list[frozenset[str]]:
    """``clauses`` of ``seq``; ``bounded``: no letter comes right before it."""
    out = []
    for i, (op, av) in enumerate(seq):
        if bounded:  # a word begins here: the first words of the rest, when all are whole
            try:
                found = _seq(seq[i:])
                if all(p and s == CLOSED for p, s in found):
                    out.append(frozenset(p for p, _ in found))
            except _Unknown:
                pass
        if op is C.LITERAL and chr(av).isascii() and not chr(av).isalnum():
            out.append(frozenset(chr(av)))
        elif op is C.SUBPATTERN or op in _REPEATS and av[0] >= 1:
            out += _clauses(list(av[-1]), bounded)
        elif op is C.BRANCH and all(alts := [_clauses(list(alt), bounded) for alt in av[1]]):
            out.append(frozenset().union(*(min(a, key=len) for a in alts)))  # one of each branch's
        bounded = _bounded_after(op, av, bounded)
    return out


_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT)


def _no_letter(op, av) -> bool:
    return op in (C.LITERAL, C.IN, C.CATEGORY) and not _may_be_letter(op, av)


def _bounded_after(op, av, bounded: bool) -> bool:
    """Whether no letter comes right before what follows this item (``bounded``: before it)."""
    if op in _REPEATS:
        return bool(av[2]) and all(_no_letter(o, a) for o, a in av[2]) and (bounded or av[0] >= 1)
    if op is C.AT or op is C.ASSERT_NOT and av[0] == -1:
        return bounded or _left_bounded([(op, av)])
    return _no_letter(op, av) or bounded and op in (C.ASSERT, C.ASSERT_NOT)


def _left_bounded(seq: list) -> bool:
    """A zero-width check before the first character says no letter comes before the match."""
    for op, av in seq:
        if op is C.ASSERT_NOT and av[0] == -1 and _covers_letters(list(av[1])):
            return True
        if op is C.AT and av in (C.AT_BOUNDARY, C.AT_BEGINNING, C.AT_BEGINNING_STRING):
            return True
        if op not in (C.ASSERT, C.ASSERT_NOT, C.AT):
            return False
    return False


def _covers_letters(seq: list) -> bool:
    """``seq`` is one character class that matches every letter (``[\\w-]``, ``\\w``)."""
    if len(seq) != 1:
        return False
    op, av = seq[0]
    items = av if op is C.IN else [(op, av)]
    return op in (C.IN, C.CATEGORY) and any(
        o is C.CATEGORY and a is C.CATEGORY_WORD for o, a in items) and not any(
        o is C.NEGATE for o, _ in items)


def _may_be_letter(op, av) -> bool:
    """Whether one character this item consumes may be a letter of a word."""
    if op is C.LITERAL:
        return chr(av).lower() in _LETTERS
    if op is C.IN:
        for o, a in av:
            if o is C.NEGATE:
                return True
            if o is C.LITERAL and chr(a).lower() in _LETTERS:
                return True
            if o is C.RANGE and any(a[0] <= ord(c) <= a[1] or a[0] <= ord(c.upper()) <= a[1]
                                    for c in _LETTERS):
                return True
            if o is C.CATEGORY and a not in (C.CATEGORY_SPACE, C.CATEGORY_DIGIT,
                                              C.CATEGORY_NOT_WORD, C.CATEGORY_LINEBREAK):
                return True
        return False
    if op is C.CATEGORY:
        return av not in (C.CATEGORY_SPACE, C.CATEGORY_DIGIT, C.CATEGORY_NOT_WORD,
                          C.CATEGORY_LINEBREAK)
    return True  # ANY, NOT_LITERAL and the rest: anything


def _seq(seq, start: str = "") -> set[tuple[str, int]]:
    """(letters a match of ``seq`` begins with, whether its word is closed) for every way
    through ``seq``, from the start of a word (``start``: letters already read)."""
    out = {(start, OPEN)}
    for op, av in seq:
        if all(state == CLOSED for _, state in out):
            break  # every first word is whole: the rest of the regex does not matter here
        item = _item(op, av)
        nxt = set()
        for prefix, state in out:
            if state == CLOSED:
                nxt.add((prefix, CLOSED))
                continue
            for more, s in item:
                if s == CLOSES:  # with no letters yet, it closes whatever word comes before
                    nxt.add((prefix, CLOSED if prefix else CLOSES))
                else:
                    nxt.add((prefix + more, s))
        if len(nxt) > _MAX:
            raise _Unknown
        out = nxt
    return out


def _item(op, av) -> set[tuple[str, int]]:
    if op is C.LITERAL:
        ch = chr(av).lower()
        return {(ch, OPEN)} if ch in _LETTERS else {("", CLOSED)}
    if op in (C.IN, C.CATEGORY, C.ANY, C.NOT_LITERAL):
        if _may_be_letter(op, av):
            raise _Unknown
        return {("", CLOSED)}
    if op is C.SUBPATTERN:
        return _seq(av[-1])
    if op is C.ATOMIC_GROUP:
        return _seq(av)
    if op is C.BRANCH:
        out = set()
        for alt in av[1]:
            out |= _seq(alt)
        return out
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        lo, hi, body = av
        once = _seq(body)
        if hi != 1 and any(s != CLOSED for _, s in once):
            raise _Unknown  # a second round could add letters to the word
        return once | {("", OPEN)} if lo == 0 else once
    if op is C.AT:
        return {("", CLOSES)} if av in (C.AT_BOUNDARY, C.AT_END, C.AT_END_STRING) \
            else {("", OPEN)}
    if op is C.ASSERT_NOT:
        direction, body = av
        return {("", CLOSES)} if direction == 1 and _covers_letters(list(body)) \
            else {("", OPEN)}
    if op is C.ASSERT:
        direction, body = av
        if direction == 1:
            try:  # read as if after a letter: does what it asserts end the word?
                ahead = _seq(body, start="#")
            except _Unknown:
                return {("", OPEN)}
            if all(p == "#" and s == CLOSED for p, s in ahead):
                return {("", CLOSES)}
        return {("", OPEN)}
    raise _Unknown  # back references, conditionals
