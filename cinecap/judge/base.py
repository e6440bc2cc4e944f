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
    gt_statements: list[str] = field(default_factory=list)
    pred_statements: list[str] = field(default_factory=list)
    matched_statements: list[str] = field(default_factory=list)  # GT-side statements covered
    gt_count: int = 0
    pred_count: int = 0
    matched_count: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "gt_statements": list(self.gt_statements),
            "pred_statements": list(self.pred_statements),
            "matched_statements": list(self.matched_statements),
            "gt_count": self.gt_count,
            "pred_count": self.pred_count,
            "matched_count": self.matched_count,
        }


def _int(x: Any) -> int:
    try:
        return max(0, int(x))
    except (TypeError, ValueError):
        return 0


@dataclass
class Judgement:
    """Per-aspect statement counts for one (GT, prediction) pair, plus who judged it.

    ``failed`` marks a judgement that could not be made (server down, malformed answer): its
    counts are zeros that mean nothing, and benchmarks and GRPO must skip it.
    """

    by_dim: dict[str, AspectCounts]
    judge: str = ""
    version: str = ""
    failed: bool = False
    error: str | None = None
    aspects: tuple[str, ...] = tx.ASPECTS

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
                aspects: Sequence[str] = tx.ASPECTS) -> "Judgement":
        return cls({a: AspectCounts() for a in aspects}, judge, version, True, error, tuple(aspects))

    def sanitized(self) -> "Judgement":
        """The released sanitising: counts clamped ≥ 0, matched ≤ min(gt, pred) per aspect."""
        dims = {}
        for a in self.aspects:
            c = self.by_dim.get(a) or AspectCounts()
            gt, pred = _int(c.gt_count), _int(c.pred_count)
            dims[a] = AspectCounts(
                [str(s) for s in c.gt_statements], [str(s) for s in c.pred_statements],
                [str(s) for s in c.matched_statements], gt, pred, min(_int(c.matched_count), gt, pred))
        return Judgement(dims, self.judge, self.version, self.failed, self.error, self.aspects)

    # Scores (docs/spec/judge.md "Scores").
    def comprehensiveness(self, empty_gt: float = 1.0) -> float:
        """M / N_gt; ``empty_gt`` when N_gt = 0 (1.0 for benchmarks, 0.0 for training)."""
        n = self.total_gt_count
        return self.total_matched_count / n if n else empty_gt

    def accuracy(self) -> float:
        n = self.total_pred_count
        return self.total_matched_count / n if n else 0.0

    def f1(self, empty_gt: float = 1.0) -> float:
        return f1(self.comprehensiveness(empty_gt), self.accuracy())

    def to_dict(self) -> dict[str, Any]:
        """The judge JSON (docs/spec/judge.md) with the scores, and who judged (the ``judge --json``
        contract of docs/architecture.md)."""
        return {
            "by_dim": {a: self.by_dim[a].to_dict() for a in self.aspects},
            "total_gt_count": self.total_gt_count,
            "total_pred_count": self.total_pred_count,
            "total_matched_count": self.total_matched_count,
            "comprehensiveness": self.comprehensiveness(),
            "accuracy": self.accuracy(),
            "f1": self.f1(),
            "judge": self.judge,
            "judge_version": self.version,
            "failed": self.failed,
            "error": self.error,
        }

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

            dims[a] = AspectCounts(_list("gt_statements"), _list("pred_statements"),
                                   _list("matched_statements"), _int(raw.get("gt_count")),
                                   _int(raw.get("pred_count")), _int(raw.get("matched_count")))
        return cls(dims, d.get("judge") or judge, d.get("judge_version") or version,
                   bool(d.get("failed", False)), d.get("error"), tuple(aspects)).sanitized()


def f1(cmp: float, acc: float) -> float:
    return 2 * cmp * acc / (cmp + acc) if (cmp + acc) > 0 else 0.0


class Judge(ABC):
    """A judge compares a predicted caption with a gold one, aspect by aspect."""

    name: str = ""
    version: str = ""
    #: the frozen dataclass of this backend's options (cinecap.config); None: it takes none. The
    #: registry checks options against its fields.
    config_class: type | None = None

    @abstractmethod
    def judge(self, gt: str, pred: str, aspects: Sequence[str] = tx.ASPECTS) -> Judgement:
        """Judge one pair. Must not raise on bad text: return a failed Judgement instead."""

    def judge_many(self, pairs: Iterable[tuple[str, str]],
                   aspects: Sequence[str] = tx.ASPECTS) -> list[Judgement]:
        """Judge a batch; backends with I/O override this to run requests concurrently."""
        return [self.judge(gt, pred, aspects) for gt, pred in pairs]
