"""What a phrase pattern is, and the shared pieces the pattern tables are built from.

:class:`Pattern` (one family of terms), its :class:`Value`, the direction words (:data:`DIRS`),
the verb families of camera moves and their forms, and the regex helpers (:func:`trie_words`,
:func:`forms`, :func:`back`). ``phrases`` and ``described`` both build on this module and neither
on the other's internals, so they import without a cycle.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from cinecap.language.data import load
from cinecap.language.parse import inflections

@dataclass(frozen=True)
class Value:
    """How a match becomes a canonical value: the one tagged type a pattern's ``value`` is.

    Exactly one way is set: ``const`` (always this value); ``group`` (the words of that group,
    lower case, looked up in ``table``, then by ``prefix``, then by what they ``contain``, else
    ``otherwise``; a ``template`` or an ``otherwise`` with ``{}`` puts the words in); ``rule`` (a
    structural rule in code: a function of the match, and of the phrase from ``start`` for a
    pattern with a ``back`` check, giving a value, a (value, camera only) pair, facts as a list
    of ``(start, end, value)`` or :data:`NOTHING`); ``nothing`` (the words claim their span and
    state nothing: "zooms out the door")."""

    const: str | None = None
    group: int | None = None
    table: tuple[tuple[str, str], ...] = ()
    prefix: tuple[tuple[str, str], ...] = ()
    contains: tuple[tuple[str, str], ...] = ()
    otherwise: str | None = None
    template: str | None = None
    rule: Callable[..., Any] | None = None
    nothing: bool = False

    def of(self, m: re.Match, phrase: str | None) -> Any:
        if self.const is not None:
            return self.const
        if self.rule is not None:
            return self.rule(m) if phrase is None else self.rule(m, phrase)
        if self.nothing:
            return NOTHING
        raw = (m.group(self.group) or "").lower()
        if self.template is not None:
            return self.template.format(raw)
        key = " ".join(raw.split())
        for k, v in self.table:
            if key == k:
                return v
        for k, v in self.prefix:
            if key.startswith(k):
                return v
        for k, v in self.contains:
            if k in key:
                return v
        return None if self.otherwise is None else self.otherwise.format(raw)


@dataclass(frozen=True)
class Pattern:
    """One family of terms: a compiled regex and how a match becomes a canonical value."""

    aspect: str
    regex: re.Pattern
    #: A :class:`Value` (a plain string or function given here is wrapped into one).
    value: Any
    #: Whether only the camera may be the agent; None: an effect on the picture, whose
    #: pattern checked it (no agent check).
    camera_only: bool | None = False
    #: Lower-case substrings a text must contain for this pattern to be tried at all: a cheap
    #: filter that skips most of the ~60 pattern scans on a typical caption.
    needs: tuple[str, ...] = ()
    #: Whole words (lower case) a text must contain one of for this pattern to be tried: the
    #: verb forms of a verb family ("pans", "panning", …), checked against the text's word set.
    words: frozenset[str] = frozenset()
    #: Words (lower case) every match starts with: the pattern is then tried only where those
    #: words are, not at every position of the text.
    starts: frozenset[str] = frozenset()
    #: A check on the words right before the match (ending there); the term then starts where it
    #: starts, and a ``value`` rule gets the whole phrase as its second argument. Lets a
    #: pattern start at a rare anchor word ("toward the camera") instead of trying
    #: a long list of verbs at every position of the text.
    back: re.Pattern | None = None
    #: Whether the words ``back`` checked belong to the term (False: they are other terms, like
    #: the "close-up" of "a close-up over her shoulder").
    claim_back: bool = True
    #: ``back`` has free words between its verb and the match: take the nearest verb that fits.
    nearest: bool = False
    #: ``starts`` was read off the regex (``cinecap.language.starts``), not written by hand: it
    #: only says where a match can begin, and the hand filters (``needs``, ``words``) still apply.
    derived: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.value, Value):
            v = self.value
            object.__setattr__(self, "value", Value(const=v) if isinstance(v, str) else Value(rule=v))


@dataclass(frozen=True)
class Term:
    """A match read as one fact: a canonical value ("~left" for a bare direction that repeats
    the last move) and whether only the camera may be its agent."""

    value: str
    camera: bool | None


@dataclass(frozen=True)
class Facts:
    """A match read as several facts, each at its own words ``(start, end, value)``: the phrase
    claims its words as a whole; with no facts it only marks a place stated by a motion."""

    spans: tuple[tuple[int, int, str], ...]
    camera: bool | None


class _Nothing:
    """A match read as no term at all: it claims its words and states nothing."""

    def __repr__(self) -> str:
        return "NOTHING"


NOTHING = _Nothing()


def reading(p: "Pattern", m: re.Match, start: int) -> "Term | Facts | _Nothing | None":
    """What a match of ``p`` says, as one of the three kinds (None: nothing matched here)."""
    value = p.value.of(m, m.string[start:m.end()] if p.back is not None else None)
    cam = p.camera_only
    if isinstance(value, tuple):  # (value, camera only): decided per match
        value, cam = value
    if value is NOTHING:
        return NOTHING
    if isinstance(value, list):
        return Facts(tuple(value), cam)
    return None if value is None else Term(value, cam)

_MOVES = load("words")["moves"]
#: direction word → the direction it names ("leftwards" → left, "fwd" → in).
DIRS: dict[str, str] = dict(pair.split("=") for pair in _MOVES["directions"].split())


def _inflected(bases: str) -> set[str]:
    return {f for b in bases.split() for f in inflections(b)}


#: verb family → (its verb forms, "|"-joined: base forms inflected by ``parse.inflections``, plus
#: irregular forms after a "/"; {direction → canonical}); the first family with the direction wins.
_VERBS: dict[str, tuple[str, dict[str, str]]] = {
    fam: ("|".join(sorted(_inflected(bases) | set(irregular.split()))), f["ways"])
    for fam, f in _MOVES["families"].items() for bases, _, irregular in [f["verbs"].partition("/")]}
#: verb form → the families it belongs to, in _VERBS order.
_FAMILIES_OF: dict[str, tuple[str, ...]] = {}
for _fam, (_forms_alt, _table) in _VERBS.items():
    for _f in _forms_alt.split("|"):
        _FAMILIES_OF[_f] = _FAMILIES_OF.get(_f, ()) + (_fam,)


def trie_words(words: "list[str] | set[str] | str", piece: Callable[[str], str] = re.escape) -> str:
    """A regex matching exactly these words, as a trie (shared prefixes are tried once: several
    times faster than ``a|b|c`` for long lists). Words are literal; ``"a|b"`` is split;
    ``piece`` writes one character."""
    if isinstance(words, str):
        words = words.split("|")
    trie: dict = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        branches = [piece(c) + emit(node[c]) for c in sorted(k for k in node if k)]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(trie)


def forms(bases: str) -> str:
    """A regex alternation of every inflection of the verbs (``parse``'s rules: stare → stares,
    stared, staring; jog → jogged, jogging)."""
    return trie_words(_inflected(bases))


def back(rx: str) -> re.Pattern:
    """A check on the words right before an anchored pattern ("…jogging| toward the camera")."""
    return re.compile(rf"(?<![\w-])(?:{rx})\s*$", re.I)
