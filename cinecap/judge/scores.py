"""Scores of judged pairs (docs/spec/judge.md "Scores"): per pair, per aspect, and over a benchmark.

Pair: s_cmp = M / N_gt (benchmark convention: 1.0 when N_gt = 0), s_acc = M / N_pred (0.0 when
N_pred = 0); under the released benchmark reading (``released`` counting, ``benchmark-7`` prompt)
the pair's s_cmp and s_acc are the judge's own reported scores (``Judgement.reported``).

Benchmark aggregation as the released code does it ("released", ``output_scores_by_dim.py``):
s_cmp and s_acc per clip, averaged over clips. Per aspect, matched/gt and matched/pred averaged
over ALL clips, counting 0 where the aspect is absent (``all_clips``): this dilutes rare aspects;
under the released benchmark reading these are the ratios of the judge's reported counts. The
project also reports the average over the clips where the aspect is present (gt_count > 0 for
cmp, pred_count > 0 for acc: ``present_only``). Failed judgements are left out of every average
and counted in ``failed``.

F1 is the project's own definition (``protocol.F1_DEFINITION``): the harmonic mean of the two
averages (not the mean of per-clip F1). The released code computes no F1.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Iterable

from cinecap import taxonomy as tx
from cinecap.judge.base import AspectCounts, Judgement, f1
from cinecap.judge.protocol import AGGREGATION, F1_DEFINITION


@dataclass(frozen=True)
class PairScores:
    comprehensiveness: float
    accuracy: float
    f1: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def pair_scores(j: Judgement, empty_gt: float = 1.0) -> PairScores:
    """s_cmp, s_acc and F1 of one judged pair (``empty_gt``: s_cmp when N_gt = 0)."""
    cmp_, acc = j.comprehensiveness(empty_gt), j.accuracy()
    return PairScores(cmp_, acc, f1(cmp_, acc))


def aspect_scores(c: AspectCounts, reported: dict[str, float] | None = None) -> PairScores:
    """matched/gt and matched/pred of one aspect of one pair (0 where the count is 0), or the
    ``reported`` ratios of the released benchmark reading (``{"cmp", "acc"}``)."""
    if reported is not None:
        cmp_, acc = float(reported["cmp"]), float(reported["acc"])
    else:
        cmp_ = c.matched_count / c.gt_count if c.gt_count else 0.0
        acc = c.matched_count / c.pred_count if c.pred_count else 0.0
    return PairScores(cmp_, acc, f1(cmp_, acc))


@dataclass
class AspectAggregate:
    """One aspect over a benchmark, both averagings, labelled."""

    cmp_all_clips: float  # released: mean of matched/gt over all judged clips, 0 where absent
    acc_all_clips: float  # released: mean of matched/pred over all judged clips, 0 where absent
    cmp_present_only: float | None  # mean over clips whose GT has the aspect (None: no such clip)
    acc_present_only: float | None  # mean over clips whose prediction has the aspect
    clips_with_gt: int
    clips_with_pred: int

    @property
    def mean_all_clips(self) -> float:
        """The per-aspect number the paper tables report: the mean of cmp and acc."""
        return (self.cmp_all_clips + self.acc_all_clips) / 2


@dataclass
class BenchmarkScores:
    """Aggregated scores over judged pairs; ``failed`` judgements are excluded and counted."""

    comprehensiveness: float
    accuracy: float
    f1: float  # the project's definition (f1_definition): from the two averages
    judged: int
    failed: int
    by_aspect: dict[str, AspectAggregate] = field(default_factory=dict)
    averaging: str = (f"{AGGREGATION}: per-clip s_cmp/s_acc averaged; "
                      "per-aspect *_all_clips count 0 where absent, *_present_only average over "
                      "clips where the aspect is present")
    f1_definition: str = (f"{F1_DEFINITION}: the project's own F1, the harmonic mean of the mean "
                          "comprehensiveness and the mean accuracy; the released code computes no "
                          "F1")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for a, agg in self.by_aspect.items():
            d["by_aspect"][a]["mean_all_clips"] = agg.mean_all_clips
        return d

    def table(self) -> str:
        """A plain-text table (percentages) for the CLI and benchmarks."""
        rows = [f"{'aspect':<22}{'cmp(all)':>10}{'acc(all)':>10}{'cmp(present)':>14}"
                f"{'acc(present)':>14}{'n_gt':>6}"]
        for a, g in self.by_aspect.items():
            fmt = lambda v: "—" if v is None else f"{100 * v:.1f}"  # noqa: E731
            rows.append(f"{a:<22}{100 * g.cmp_all_clips:>10.1f}{100 * g.acc_all_clips:>10.1f}"
                        f"{fmt(g.cmp_present_only):>14}{fmt(g.acc_present_only):>14}"
                        f"{g.clips_with_gt:>6}")
        rows.append(f"overall: cmp {100 * self.comprehensiveness:.2f}  acc "
                    f"{100 * self.accuracy:.2f}  F1 (ours: {F1_DEFINITION}) {100 * self.f1:.2f}  "
                    f"(judged {self.judged}, failed {self.failed})")
        return "\n".join(rows)


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _reported_aspect(j: Judgement, aspect: str) -> dict[str, float] | None:
    if j.reported is None:
        return None
    return j.reported.get("by_aspect", {}).get(aspect, {"cmp": 0.0, "acc": 0.0})


def aggregate(judgements: Iterable[Judgement], aspects: Iterable[str] = tx.ASPECTS,
              empty_gt: float = 1.0) -> BenchmarkScores:
    """The benchmark aggregation of docs/spec/judge.md "Scores" (see the module docstring)."""
    aspects = tuple(aspects)
    ok: list[Judgement] = []
    failed = 0
    for j in judgements:
        if j.failed:
            failed += 1
        else:
            ok.append(j.sanitized())
    pairs = [pair_scores(j, empty_gt) for j in ok]
    cmp_ = _mean([p.comprehensiveness for p in pairs]) or 0.0
    acc = _mean([p.accuracy for p in pairs]) or 0.0
    by_aspect = {}
    for a in aspects:
        counts = [j.by_dim.get(a) or AspectCounts() for j in ok]
        per = [aspect_scores(c, _reported_aspect(j, a)) for c, j in zip(counts, ok)]
        by_aspect[a] = AspectAggregate(
            cmp_all_clips=_mean([p.comprehensiveness for p in per]) or 0.0,
            acc_all_clips=_mean([p.accuracy for p in per]) or 0.0,
            cmp_present_only=_mean([p.comprehensiveness for p, c in zip(per, counts) if c.gt_count]),
            acc_present_only=_mean([p.accuracy for p, c in zip(per, counts) if c.pred_count]),
            clips_with_gt=sum(1 for c in counts if c.gt_count),
            clips_with_pred=sum(1 for c in counts if c.pred_count))
    return BenchmarkScores(cmp_, acc, f1(cmp_, acc), len(ok), failed, by_aspect)
