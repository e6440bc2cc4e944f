"""The ``rules`` judge: deterministic and offline, built on the taxonomy and :func:`decompose`.

Both captions are decomposed into atomic statements (repeats already merged there). Per aspect,
a GT statement and a predicted one *match* when

- their judge classes are equal (taxonomy ``judge_class``: "long shot" = "wide shot", but zoom ≠
  dolly, pan ≠ truck, close-up ≠ medium close-up);
- their intervals agree, where both have one: the overlap is at least half of the shorter
  interval (an interval shorter than 0.5 s is widened to 0.5 s around its middle); a statement
  without an interval agrees with any interval;
- their subjects agree: equal after co-reference, or either side is unnamed, or either caption
  names only one subject for that aspect (then "the man" and "the guitarist" are the same person).

The matched count is a maximum one-to-one matching (each GT statement covers at most one
predicted statement and vice versa). A predicted statement that matches nothing (contradicted or
invented) counts in ``pred_count`` only, which lowers accuracy.
"""
from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from itertools import permutations
from pathlib import Path
from typing import Any, NamedTuple, Sequence

from cinecap import taxonomy as tx
from cinecap.judge.base import AspectCounts, Judge, Judgement
from cinecap.language.decompose import decompose
from cinecap.language.lexicon import FEMALE, MALE
from cinecap.statements import Statement

log = logging.getLogger(__name__)

#: Longest caption judged, in characters; longer text is a failed judgement, not a slow one.
MAX_CHARS = 1_000_000
_POINT = 0.5  # seconds: the length a zero-length interval counts as

#: What decides what the rules judge counts, relative to the ``cinecap`` package: the language
#: code and any tables beside it, this module, the vocabulary and the output parsing. Its version
#: is a hash of them, so every stored score names the rules that made it with no hand bump.
BEHAVIOUR_FILES = ("language", "judge/rules.py", "taxonomy.py", "taxonomy.toml", "statements.py")
_PACKAGE = Path(__file__).resolve().parents[1]


def _behaviour_files(root: Path) -> list[Path]:
    out = []
    for name in BEHAVIOUR_FILES:
        p = root / name
        if p.is_dir():
            out += sorted(f for f in p.rglob("*") if f.is_file() and "__pycache__" not in f.parts
                          and not f.name.startswith(".") and f.suffix not in (".pyc", ".pyo"))
        elif p.is_file():
            out.append(p)
    return out


def code_version(root: Path | None = None) -> str:
    """``rules-<12 hex>``: the sha256 of :data:`BEHAVIOUR_FILES` under ``root`` (the installed
    package by default) — names and bytes, line endings normalised so that a Windows checkout
    gives the same version. Any edit of them gives a new version, a comment included: two
    versions may behave alike (``tests/test_judge_fixture.py`` shows whether they do), but one
    version never behaves two ways. The hand-numbered versions ended at ``rules-1.34``."""
    root = Path(root) if root is not None else _PACKAGE
    h = hashlib.sha256()
    for f in _behaviour_files(root):
        h.update(f.relative_to(root).as_posix().encode() + b"\0")
        h.update(f.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return "rules-" + h.hexdigest()[:12]


def describe(st: Statement) -> str:
    """The statement as the judge JSON lists it: value, subject and interval when present."""
    out = st.value
    if st.subject:
        out = f"{st.subject}: {out}"
    if st.has_interval:
        out += f" [{st.t_start:.1f}–{st.t_end:.1f} s]"
    return out


def _span(st: Statement) -> tuple[float, float]:
    """The statement's interval, a moment widened to ``_POINT`` seconds around it."""
    a, b = st.t_start, st.t_end
    if b - a < _POINT:
        mid = (a + b) / 2
        a, b = mid - _POINT / 2, mid + _POINT / 2
    return a, b


def intervals_agree(a: Statement, b: Statement) -> bool:
    """True unless both are timed and overlap by less than half of the shorter interval."""
    if not (a.has_interval and b.has_interval):
        return True
    (a0, a1), (b0, b1) = _span(a), _span(b)
    return min(a1, b1) - max(a0, b0) >= 0.5 * min(a1 - a0, b1 - b0)


def subjects_agree(a: str | None, b: str | None) -> bool:
    """Equal names, or either unnamed; "man (left)" is the man on the left: it agrees with "man"
    but not with "man (right)"."""
    if not (a and b) or a.lower() == b.lower():
        return True  # a name capitalised only where a sentence opens is the same name
    na, _, qa = a.lower().partition(" (")
    nb, _, qb = b.lower().partition(" (")
    return na == nb and not (qa and qb)


def _proper(name: str | None) -> bool:
    """Decomposition keeps a proper name's capital ("Jess"); common nouns are lower case."""
    return bool(name) and name[:1].isupper()


def _compatible(g: Statement, p: Statement, single_subject: bool,
                alias: dict[str, str] | None = None) -> bool:
    """Do two statements of one judge class agree (``match`` compares the classes first)?"""
    if not intervals_agree(g, p):
        return False
    gs, ps = g.subject, p.subject
    if _proper(gs) and _proper(ps) and gs.lower() != ps.lower():
        return False  # two different named people ("over Mark's shoulder" vs "over Jess's")
    if alias and ps in alias:
        ps = alias[ps]
    return single_subject or subjects_agree(gs, ps)


def _base(name: str) -> str:
    return name.partition(" (")[0]


def _alias_by_elimination(gt: list[Statement], pred: list[Statement]) -> dict[str, str]:
    """Co-reference between the captions by elimination: when every subject but one on each side
    is named alike ("the guest" in both), the remaining two are the same person ("the
    interviewer" = "the host"). Proper names are never renamed."""
    g = {_base(s.subject) for s in gt if s.subject}
    p = {_base(s.subject) for s in pred if s.subject}
    gl, pl = {n.lower() for n in g}, {n.lower() for n in p}
    rest_g = {n for n in g if n.lower() not in pl}
    rest_p = {n for n in p if n.lower() not in gl}
    if len(rest_g) == 1 and len(rest_p) == 1 and gl & pl:
        (a,), (b,) = rest_g, rest_p
        if not (_proper(a) or _proper(b)):
            return {s.subject: s.subject.replace(b, a, 1) for s in pred
                    if s.subject and _base(s.subject) == b}
    return {}


_MAX_ALIGNED = 4  # subjects per side aligned by search (4! = 24 orders at most)


def align_subjects(gt: list[Statement], pred: list[Statement]) -> dict[str, str]:
    """Co-reference between the captions when they name the same people differently ("the father
    on the left, the son on the right" vs "the man on the left, the boy on the right"): the names
    one caption uses and the other does not are paired one to one, never across genders ("man"
    ≠ "woman") and never renaming a proper name, in the order that lets the most statements of
    the subject aspects (orientation, composition) match; ties keep the order of introduction.
    Returns predicted name → GT name (``{}`` when there is nothing to pair)."""
    g_names = list(dict.fromkeys(_base(s.subject) for s in gt if s.subject))
    p_names = list(dict.fromkeys(_base(s.subject) for s in pred if s.subject))
    g_low = {n.lower() for n in g_names}
    p_low = {n.lower() for n in p_names}
    rest_g = [n for n in g_names if n.lower() not in p_low and not _proper(n)]
    rest_p = [n for n in p_names if n.lower() not in g_low and not _proper(n)]
    if not rest_g or not rest_p or len(rest_g) > _MAX_ALIGNED or len(rest_p) > _MAX_ALIGNED:
        return {}
    if len(g_names) <= 1 or len(p_names) <= 1:
        return {}  # one subject on a side: every statement agrees already (match's rule)
    best: dict[str, str] = {}
    best_score = -1
    k = min(len(rest_g), len(rest_p))
    for order in permutations(rest_g, k):
        pairs = list(zip(rest_p, order))
        if any(not _same_gender(a, b) for a, b in pairs):
            continue
        names = dict(pairs)
        alias = {s.subject: s.subject.replace(_base(s.subject), names[_base(s.subject)], 1)
                 for s in pred if s.subject and _base(s.subject) in names}
        score = 0
        for aspect in {s.aspect for s in gt if s.subject}:
            score += len(match([s for s in gt if s.aspect == aspect],
                               [s for s in pred if s.aspect == aspect], alias))
        if score > best_score:
            best, best_score = alias, score
    return best


def _same_gender(a: str, b: str) -> bool:
    ga = "m" if a in MALE else "f" if a in FEMALE else None
    gb = "m" if b in MALE else "f" if b in FEMALE else None
    return not (ga and gb and ga != gb)


def match(gt: list[Statement], pred: list[Statement],
          alias: dict[str, str] | None = None) -> list[tuple[int, int]]:
    """Maximum one-to-one matching of GT to predicted statements of one aspect (Kuhn's method).

    ``alias``: predicted subject → the GT subject it is (:func:`align_subjects`); without it,
    co-reference by elimination within the aspect. Returns (gt index, pred index) pairs.
    """
    return _match(_side(gt), _side(pred), alias)


class _Side(NamedTuple):
    """One side of an aspect as the judge lists it, worked out once per decomposition (the judge
    keeps it with the decomposition: a GRPO group's gold side is read once for its samples)."""

    sts: Sequence[Statement]
    said: tuple[str, ...] = ()  # as the judge JSON lists them
    texts: tuple[str, ...] = ()  # the source phrases


def _side(sts: Sequence[Statement], described: bool = False) -> _Side:
    if not described:
        return _Side(sts)
    return _Side(sts, tuple([describe(s) for s in sts]), tuple([s.text for s in sts]))


_EMPTY = _Side(())
#: (aspect, value) → judge class: ``Statement.judge_class`` without its lookup's checks (the
#: statement checked its value when it was made).
_CLASS = {(v.aspect, v.canonical): v.judge_class for v in tx.VALUES}


def _match(g: _Side, p: _Side, alias: dict[str, str] | None) -> list[tuple[int, int]]:
    gt, pred = g.sts, p.sts
    if not gt or not pred:
        return []  # most aspects of a pair are empty on one side
    single = len({s.subject.lower() for s in gt if s.subject}) <= 1 or \
        len({s.subject.lower() for s in pred if s.subject}) <= 1
    if alias is None:
        alias = {} if single else _alias_by_elimination(gt, pred)
    by_class: dict[str, list[int]] = {}
    for j, s in enumerate(pred):
        by_class.setdefault(_CLASS[s.aspect, s.value], []).append(j)
    edges = [[j for j in by_class.get(_CLASS[s.aspect, s.value], ())
              if _compatible(s, pred[j], single, alias)] for s in gt]
    owner: dict[int, int] = {}  # pred index → gt index

    def augment(i: int, seen: set[int]) -> bool:
        for j in edges[i]:
            if j in seen:
                continue
            seen.add(j)
            if j not in owner or augment(owner[j], seen):
                owner[j] = i
                return True
        return False

    for i in range(len(gt)):
        augment(i, set())
    return sorted((i, j) for j, i in owner.items())


def _copy(st: Statement) -> Statement:
    """``copy.copy`` of a statement (a shallow copy), without the reduce protocol's cost."""
    new = object.__new__(type(st))
    new.__dict__.update(st.__dict__)
    return new


class RulesJudge(Judge):
    """Deterministic judge over the taxonomy; see the module docstring for the matching rules."""

    name = "rules"
    #: Stored with every score; derived from the code that decides what is counted
    #: (:func:`code_version`), never bumped by hand.
    version = code_version()
    #: Decompositions kept per judge (least recently used out). A GRPO group judges G samples
    #: against one gold caption, and each step comes back to the same gold captions: the gold
    #: side is decomposed once instead of G times. Decomposition is a pure function of the text.
    cache_size = 512

    def __init__(self) -> None:
        self._cache: OrderedDict[tuple[str, tuple[str, ...]], tuple[tuple[Statement, ...],
                                                                   dict[str, _Side]]] = OrderedDict()
        self._lock = threading.Lock()  # GRPO judges a group from a thread pool

    def _decompose(self, text: Any, aspects: tuple[str, ...]) -> list[Statement]:
        """The statements of ``text``, the caller's own copies."""
        return [_copy(s) for s in self._read(text, aspects)[0]]

    def _read(self, text: Any, aspects: tuple[str, ...]) -> tuple[tuple[Statement, ...],
                                                                   dict[str, _Side]]:
        """(statements, aspect → its :class:`_Side`) of ``text``, remembered. Shared between
        judgements: only the judge reads them, and nothing of them but strings leaves it."""
        if not isinstance(text, str) or self.cache_size <= 0:
            return _read(decompose(text, aspects))
        key = (text, aspects)
        with self._lock:
            got = self._cache.get(key)
            if got is not None:
                self._cache.move_to_end(key)
        if got is None:
            got = _read(decompose(text, aspects))
            with self._lock:
                self._cache[key] = got
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return got

    def judge(self, gt: Any, pred: Any, aspects: Sequence[str] = tx.ASPECTS) -> Judgement:
        try:
            aspects = tuple(tx.check_aspect(a) for a in aspects)
        except ValueError as e:
            return Judgement.failure(self.name, self.version, str(e))
        for label, text in (("GT", gt), ("prediction", pred)):
            if isinstance(text, (str, bytes)) and len(text) > MAX_CHARS:
                return Judgement.failure(
                    self.name, self.version,
                    f"the {label} caption is {len(text):,} characters; the limit is {MAX_CHARS:,}",
                    aspects)
        gt_sts, gt_of = self._read(gt, aspects)
        pred_sts, pred_of = self._read(pred, aspects)
        alias = align_subjects(list(gt_sts), list(pred_sts)) or None
        dims: dict[str, AspectCounts] = {}
        for a in aspects:
            g, p = gt_of.get(a, _EMPTY), pred_of.get(a, _EMPTY)
            pairs = _match(g, p, alias)
            dims[a] = AspectCounts(list(g.said), list(p.said), [g.said[i] for i, _ in pairs],
                                   len(g.sts), len(p.sts), len(pairs), pairs, list(g.texts),
                                   list(p.texts))
        log.debug("judged: %d GT, %d predicted statements", len(gt_sts), len(pred_sts))
        # Counts are the list lengths and matched ≤ min(gt, pred) by construction, so the
        # released sanitising (Judgement.sanitized) would change nothing: skipped on this hot path.
        return Judgement(dims, self.name, self.version, aspects=aspects)


def _read(sts: list[Statement]) -> tuple[tuple[Statement, ...], dict[str, _Side]]:
    """A decomposition as the judge reads it: its statements, and each aspect's side."""
    of: dict[str, list[Statement]] = {}
    for s in sts:
        of.setdefault(s.aspect, []).append(s)
    return tuple(sts), {a: _side(g, described=True) for a, g in of.items()}
