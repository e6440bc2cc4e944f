"""The judge interface and the judgement it returns (the judge JSON of docs/spec/judge.md).

Every backend (``rules``, ``llm``) returns a :class:`Judgement`; the released sanitising (counts
clamped at 0, matched ≤ gt and ≤ pred) is applied here once, for all of them.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from cinecap import taxonomy as tx


@dataclass
class AspectCounts:
    """One aspect of a judgement: the judge JSON's ``by_dim[aspect]`` (docs/judge.md).

    ``pairs`` (judges that know it, e.g. ``rules``): which GT statement matched which predicted
    one, as (GT index, predicted index); ``gt_phrases``/``pred_phrases``: the caption words each
    statement was read from. With them the JSON also says, in words, which statements matched,
    which GT ones were missed and which predicted ones are extra (see :func:`statement_view`).
    """

    gt_statements: list[str] = field(default_factory=list)
    pred_statements: list[str] = field(default_factory=list)
    matched_statements: list[str] = field(default_factory=list)  # GT-side statements covered
    gt_count: int = 0
    pred_count: int = 0
    matched_count: int = 0
    pairs: list[tuple[int, int]] | None = None
    gt_phrases: list[str] | None = None
    pred_phrases: list[str] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "gt_statements": list(self.gt_statements),
            "pred_statements": list(self.pred_statements),
            "matched_statements": list(self.matched_statements),
            "gt_count": self.gt_count,
            "pred_count": self.pred_count,
            "matched_count": self.matched_count,
        }
        if self.pairs is not None:
            gi = {i for i, _ in self.pairs}
            pj = {j for _, j in self.pairs}
            out["matched_pairs"] = [[self.gt_statements[i], self.pred_statements[j]]
                                    for i, j in self.pairs]
            out["missed_statements"] = [s for i, s in enumerate(self.gt_statements) if i not in gi]
            out["extra_statements"] = [s for j, s in enumerate(self.pred_statements)
                                       if j not in pj]
            out["pairs"] = [[i, j] for i, j in self.pairs]
        if self.gt_phrases is not None and self.pred_phrases is not None:
            out["gt_phrases"] = list(self.gt_phrases)
            out["pred_phrases"] = list(self.pred_phrases)
        return out


def _int(x: Any) -> int:
    try:
        return max(0, int(x))
    except (TypeError, ValueError):
        return 0


@dataclass
class Judgement:
    """Per-aspect statement counts for one (GT, prediction) pair, plus who judged it.

    ``failed`` marks a judgement that could not be made (server down, malformed answer, an answer
    the counting protocol refuses): its counts are zeros that mean nothing, it has no scores
    (``to_dict`` writes null), and benchmarks and GRPO must skip it.

    ``protocol``: the judging protocol it was made under (``prompt``, ``counting``,
    ``judged_text``: :mod:`cinecap.judge.protocol`), None for judges that have none. ``reported``:
    the scores the released benchmark evaluation reads from the answer (``released`` counting with
    the ``benchmark-7`` prompt: the judge's own ``comprehensiveness`` and ``accuracy``, and per
    aspect ``{"cmp", "acc"}`` ratios of its reported counts); when set, they are this judgement's
    comprehensiveness and accuracy, and the per-aspect ratios the benchmark averages.
    """

    by_dim: dict[str, AspectCounts]
    judge: str = ""
    version: str = ""
    failed: bool = False
    error: str | None = None
    aspects: tuple[str, ...] = tx.ASPECTS
    protocol: dict[str, str] | None = None
    reported: dict[str, Any] | None = None

    @property
    def total_gt_count(self) -> int:
        return sum(c.gt_count for c in self.by_dim.values())

    @property
    def total_pred_count(self) -> int:
        return sum(c.pred_count for c in self.by_dim.values())

    @property
    def total_matched_count(self) -> int:
        return sum(c.matched_count for c in self.by_dim.values())

    @classmethod
    def failure(cls, judge: str, version: str, error: str,
                aspects: Sequence[str] = tx.ASPECTS,
                protocol: dict[str, str] | None = None) -> "Judgement":
        return cls({a: AspectCounts() for a in aspects}, judge, version, True, error, tuple(aspects),
                   protocol)

    def sanitized(self) -> "Judgement":
        """The released sanitising: counts clamped ≥ 0, matched ≤ min(gt, pred) per aspect."""
        dims = {}
        for a in self.aspects:
            c = self.by_dim.get(a) or AspectCounts()
            gt, pred = _int(c.gt_count), _int(c.pred_count)
            dims[a] = AspectCounts(
                [str(s) for s in c.gt_statements], [str(s) for s in c.pred_statements],
                [str(s) for s in c.matched_statements], gt, pred, min(_int(c.matched_count), gt, pred),
                *_detail(c))
        return Judgement(dims, self.judge, self.version, self.failed, self.error, self.aspects,
                         self.protocol, self.reported)

    # Scores (docs/spec/judge.md "Scores").
    def comprehensiveness(self, empty_gt: float = 1.0) -> float:
        """M / N_gt; ``empty_gt`` when N_gt = 0 (1.0 for benchmarks, 0.0 for training). With
        ``reported`` scores (released benchmark reading): the judge's own."""
        if self.reported is not None:
            return float(self.reported["comprehensiveness"])
        n = self.total_gt_count
        return self.total_matched_count / n if n else empty_gt

    def accuracy(self) -> float:
        """M / N_pred (0 when N_pred = 0); with ``reported`` scores, the judge's own."""
        if self.reported is not None:
            return float(self.reported["accuracy"])
        n = self.total_pred_count
        return self.total_matched_count / n if n else 0.0

    def f1(self, empty_gt: float = 1.0) -> float:
        """The project's F1 of this pair (``protocol.F1_DEFINITION``; the release computes none)."""
        return f1(self.comprehensiveness(empty_gt), self.accuracy())

    def to_dict(self) -> dict[str, Any]:
        """The judge JSON (docs/spec/judge.md) with the scores, and who judged (the ``judge --json``
        contract of docs/architecture.md). A failed judgement has no scores: null."""
        out = {
            "by_dim": {a: self.by_dim[a].to_dict() for a in self.aspects},
            "total_gt_count": self.total_gt_count,
            "total_pred_count": self.total_pred_count,
            "total_matched_count": self.total_matched_count,
            "comprehensiveness": None if self.failed else self.comprehensiveness(),
            "accuracy": None if self.failed else self.accuracy(),
            "f1": None if self.failed else self.f1(),
            "judge": self.judge,
            "judge_version": self.version,
            "failed": self.failed,
            "error": self.error,
        }
        if self.protocol is not None:
            out["protocol"] = dict(self.protocol)
        if self.reported is not None and not self.failed:
            out["reported_scores"] = self.reported
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any], judge: str = "", version: str = "",
                  aspects: Sequence[str] = tx.ASPECTS) -> "Judgement":
        """Read the judge JSON (from an LLM or a file), tolerating missing aspects and junk."""
        by_dim_raw = d.get("by_dim") if isinstance(d, dict) else None
        by_dim_raw = by_dim_raw if isinstance(by_dim_raw, dict) else {}
        dims = {}
        for a in aspects:
            raw = by_dim_raw.get(a)
            raw = raw if isinstance(raw, dict) else {}

            def _list(key: str) -> list[str]:
                v = raw.get(key)
                return [str(x) for x in v] if isinstance(v, list) else []

            pairs = raw.get("pairs")
            dims[a] = AspectCounts(_list("gt_statements"), _list("pred_statements"),
                                   _list("matched_statements"), _int(raw.get("gt_count")),
                                   _int(raw.get("pred_count")), _int(raw.get("matched_count")),
                                   pairs if isinstance(pairs, list) else None,
                                   _list("gt_phrases") if "gt_phrases" in raw else None,
                                   _list("pred_phrases") if "pred_phrases" in raw else None)
        protocol = d.get("protocol")
        protocol = ({str(k): str(v) for k, v in protocol.items()}
                    if isinstance(protocol, dict) else None)
        reported = d.get("reported_scores")
        return cls(dims, d.get("judge") or judge, d.get("judge_version") or version,
                   bool(d.get("failed", False)), d.get("error"), tuple(aspects), protocol,
                   _reported(reported, aspects)).sanitized()


def _reported(raw: Any, aspects: Sequence[str]) -> dict[str, Any] | None:
    """Reported scores read back from JSON (None when absent or not of the expected shape)."""
    if not isinstance(raw, dict):
        return None
    try:
        by = raw.get("by_aspect") or {}
        return {"comprehensiveness": float(raw["comprehensiveness"]),
                "accuracy": float(raw["accuracy"]),
                "by_aspect": {a: {"cmp": float(by[a]["cmp"]), "acc": float(by[a]["acc"])}
                              for a in aspects if a in by}}
    except (KeyError, TypeError, ValueError):
        return None


def _detail(c: AspectCounts) -> tuple[Any, Any, Any]:
    """The optional pairing and phrases of ``c``, kept only when they fit its statement lists."""
    n_gt, n_pred = len(c.gt_statements), len(c.pred_statements)
    pairs = None
    if c.pairs is not None:
        try:
            pairs = [(int(i), int(j)) for i, j in c.pairs]
        except (TypeError, ValueError):
            pairs = None
        if pairs is not None and not (
                all(0 <= i < n_gt and 0 <= j < n_pred for i, j in pairs)
                and len({i for i, _ in pairs}) == len({j for _, j in pairs}) == len(pairs)
                and len(pairs) == len(c.matched_statements)):
            pairs = None  # indices that do not fit the lists say nothing: drop them
    phrases = (c.gt_phrases, c.pred_phrases)
    if phrases[0] is None or phrases[1] is None or len(phrases[0]) != n_gt \
            or len(phrases[1]) != n_pred:
        phrases = (None, None)
    else:
        phrases = ([str(x) for x in phrases[0]], [str(x) for x in phrases[1]])
    return pairs, phrases[0], phrases[1]


@dataclass(frozen=True)
class Said:
    """One statement as the judge lists it, and the caption words it was read from (if known)."""

    statement: str
    phrase: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"statement": self.statement, "phrase": self.phrase}


@dataclass
class StatementView:
    """One aspect of a judgement as a person reads it: what matched, what was missed, what is extra.

    ``matched``: (GT statement, predicted statement) pairs; the predicted side is None when the
    judge did not say which predicted statement matched (the ``llm`` judge lists only the GT
    side). ``missed``: GT statements no prediction states. ``extra``: predicted statements that
    match nothing (contradicted or invented); None when the judge did not pair its statements,
    since then only their number, ``n_extra``, is known.
    """

    aspect: str
    matched: list[tuple[Said, Said | None]]
    missed: list[Said]
    extra: list[Said] | None
    n_extra: int

    def to_dict(self) -> dict[str, Any]:
        return {"aspect": self.aspect,
                "matched": [{"gt": g.to_dict(), "pred": p.to_dict() if p else None}
                            for g, p in self.matched],
                "missed": [m.to_dict() for m in self.missed],
                "extra": None if self.extra is None else [e.to_dict() for e in self.extra],
                "n_extra": self.n_extra}


def statement_view(judgement: "Judgement | dict[str, Any]") -> dict[str, StatementView]:
    """Per aspect, the matched / missed / extra statements of a judgement (or its JSON), in words.

    For the Review and Caption tabs; works for every backend. With a judge that pairs its
    statements (``rules``) everything is exact; with one that only lists them (``llm``), the
    matched GT statements are its ``matched_statements``, the missed ones the rest of the GT list
    (compared as text), and the extra predicted ones are only counted.
    """
    if isinstance(judgement, Judgement):
        j = judgement
    else:
        present = [a for a in tx.ASPECTS if a in ((judgement or {}).get("by_dim") or {})]
        j = Judgement.from_dict(judgement, aspects=present or tx.ASPECTS)
    out: dict[str, StatementView] = {}
    for a in j.aspects:
        c = j.by_dim[a]
        gp = c.gt_phrases or [None] * len(c.gt_statements)
        pp = c.pred_phrases or [None] * len(c.pred_statements)
        gt = [Said(s, p) for s, p in zip(c.gt_statements, gp)]
        pred = [Said(s, p) for s, p in zip(c.pred_statements, pp)]
        n_extra = max(0, c.pred_count - c.matched_count)
        if c.pairs is not None:
            gi = {i for i, _ in c.pairs}
            pj = {k for _, k in c.pairs}
            out[a] = StatementView(a, [(gt[i], pred[k]) for i, k in c.pairs],
                                   [g for i, g in enumerate(gt) if i not in gi],
                                   [p for k, p in enumerate(pred) if k not in pj], n_extra)
            continue
        left = list(c.matched_statements)
        matched, missed = [], []
        for g in gt:
            if g.statement in left:
                left.remove(g.statement)
                matched.append((g, None))
            else:
                missed.append(g)
        matched += [(Said(s), None) for s in left]  # matched statements the GT list lacks
        out[a] = StatementView(a, matched, missed, None, n_extra)
    return out


def f1(cmp: float, acc: float) -> float:
    return 2 * cmp * acc / (cmp + acc) if (cmp + acc) > 0 else 0.0


class Judge(ABC):
    """A judge compares a predicted caption with a gold one, aspect by aspect."""

    name: str = ""
    version: str = ""
    #: the frozen dataclass of this backend's options (cinecap.config); None: it takes none. The
    #: registry checks options against its fields.
    config_class: type | None = None

    def protocol(self) -> dict[str, str]:
        """The judging protocol this judge works under (``prompt``, ``counting``, ``judged_text``:
        :mod:`cinecap.judge.protocol`). A judge without a prompt (``rules``) counts its own
        statement lists and reads the ``<answer>`` text."""
        return {"prompt": "none", "counting": "lists", "judged_text": "answer"}

    @abstractmethod
    def judge(self, gt: str, pred: str, aspects: Sequence[str] = tx.ASPECTS) -> Judgement:
        """Judge one pair. Must not raise on bad text: return a failed Judgement instead."""

    def judge_many(self, pairs: Iterable[tuple[str, str]],
                   aspects: Sequence[str] = tx.ASPECTS) -> list[Judgement]:
        """Judge a batch; backends with I/O override this to run requests concurrently."""
        return [self.judge(gt, pred, aspects) for gt, pred in pairs]
