"""The GRPO reward (docs/spec/method.md "The reward"): accuracy-gated coverage on top of s_cmp and s_acc.

    R = w_cmp·s_cmp + w_acc·s_acc + w_cov·r_cov

with s_cmp = M / N_gt (0 when N_gt = 0: the training convention), s_acc = M / N_pred (0 when
N_pred = 0), and the coverage term only when the accuracy gate is open (``s_acc > tau``, strict):

- ``symmetric`` (the method summary, the default): r_cov = −min(1, |N_gt − N_pred| / N_gt)
- ``under`` (the released training script): r_cov = −max(0, (N_gt − N_pred) / N_gt)

With N_gt = 0 there is nothing to cover and r_cov = 0.

Counts come from the six training aspects by default (docs/spec/method.md "The task": training rewards use
the six, benchmark scores all seven), so an invented or missed Special Shot does not move the
reward; ``RewardConfig(aspects=taxonomy.ASPECTS)`` counts all seven. Bare (N_gt, N_pred, M)
tuples are taken as given.

A *failed* judgement (server down, malformed answer) is not a zero score: :func:`reward` raises
:class:`~cinecap.errors.JudgeError` for it, and the GRPO loop skips that sample.

``kind="length"`` is the released ablation's baseline (``CineCapTokenLengthReward``): the gated
coverage term is replaced by a length penalty, R = w_cmp·s_cmp + w_acc·s_acc + w_len·p(n), where n
is the answer's length in tokens (pass ``answer_tokens``) and :func:`length_penalty` p(n) is 0 for
n ≥ min_answer_tokens, −1 for n ≤ min_penalty_tokens (or an empty answer), linear in between.

Worked example (gate open): N_gt = 4, N_pred = 3, M = 3 → s_cmp = 0.75, s_acc = 1.0 > 0.75,
symmetric r_cov = −1/4, R = 0.375 + 0.5 − 0.025 = 0.85.

>>> round(reward((4, 3, 3)).total, 6)
0.85
>>> round(reward((4, 6, 3)).total, 6)   # s_acc = 0.5: gate closed, R = 0.375 + 0.25
0.625
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Union

from cinecap import taxonomy as tx
from cinecap.errors import InputError, JudgeError
from cinecap.judge.base import Judgement

COVERAGE_MODES = ("symmetric", "under")
#: ``gated``: the method's reward; ``length``: the released ablation's length-penalty baseline.
REWARD_KINDS = ("gated", "length")


@dataclass(frozen=True)
class RewardConfig:
    """Reward settings; the defaults are the paper's."""

    tau: float = field(default=0.75, metadata={"help": "accuracy gate; coverage counts only when s_acc > tau"})
    w_cmp: float = field(default=0.5, metadata={"help": "weight of comprehensiveness"})
    w_acc: float = field(default=0.5, metadata={"help": "weight of accuracy"})
    w_cov: float = field(default=0.1, metadata={"help": "weight of the gated coverage term"})
    coverage: str = field(default="symmetric", metadata={
        "help": "symmetric: penalise |N_gt − N_pred| (method summary); under: penalise only too "
                "few statements (released script)", "choices": COVERAGE_MODES})
    aspects: tuple[str, ...] = field(default=tx.TRAINING_ASPECTS, metadata={
        "help": "aspects whose statements count (training uses the six, without Special Shots); "
                "applies to judgements, not to bare (N_gt, N_pred, M) counts"})
    kind: str = field(default="gated", metadata={
        "help": "gated: w_cmp·s_cmp + w_acc·s_acc + w_cov·gated coverage (the method); length: "
                "the released ablation's length penalty w_len·p(n) instead of the coverage term",
        "choices": REWARD_KINDS})
    w_len: float = field(default=0.1, metadata={"help": "weight of the length penalty (kind=length)"})
    min_answer_tokens: int = field(default=73, metadata={
        "help": "kind=length: answers this long or longer get no penalty (released: 73)"})
    min_penalty_tokens: int = field(default=40, metadata={
        "help": "kind=length: answers this short or shorter get the full penalty −1 (released: 40)"})

    def __post_init__(self) -> None:
        for name in ("tau", "w_cmp", "w_acc", "w_cov", "w_len"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or v in (
                    float("inf"), float("-inf")):
                raise InputError(f"reward {name} must be a finite number, got {v!r}")
            if v < 0:
                raise InputError(f"reward {name} must be ≥ 0, got {v}")
        if self.tau > 1:
            raise InputError(f"reward tau is an accuracy threshold in [0, 1], got {self.tau}")
        if isinstance(self.aspects, str) or not self.aspects:
            raise InputError("reward aspects must be a non-empty list of aspect names")
        unknown = [a for a in self.aspects if a not in tx.ASPECTS]
        if unknown:
            raise InputError(f"unknown reward aspect(s) {', '.join(map(repr, unknown))}; "
                             f"known: {', '.join(tx.ASPECTS)}")
        object.__setattr__(self, "aspects", tuple(self.aspects))
        if self.coverage not in COVERAGE_MODES:
            raise InputError(f"reward coverage must be one of {', '.join(COVERAGE_MODES)}, "
                             f"got {self.coverage!r}")
        if self.kind not in REWARD_KINDS:
            raise InputError(f"reward kind must be one of {', '.join(REWARD_KINDS)}, "
                             f"got {self.kind!r}")
        if not 0 <= self.min_penalty_tokens < self.min_answer_tokens:
            raise InputError("need 0 <= min_penalty_tokens < min_answer_tokens")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RewardBreakdown:
    """The reward and its parts, as logged under ``reward/*``."""

    s_cmp: float
    s_acc: float
    r_cov: float
    gate_open: bool
    total: float
    n_gt: int
    n_pred: int
    matched: int
    length_penalty: float | None = None  # kind=length: p(n), in [−1, 0]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def metrics(self) -> dict[str, float]:
        return {f"reward/{k}": float(v) for k, v in asdict(self).items() if v is not None}


Counts = Union[Judgement, tuple[int, int, int], dict]


def _aspect_totals(j: Judgement, aspects: tuple[str, ...]) -> tuple[int, int, int]:
    dims = [c for a, c in j.sanitized().by_dim.items() if a in aspects]
    return (sum(c.gt_count for c in dims), sum(c.pred_count for c in dims),
            sum(c.matched_count for c in dims))


def _counts(x: Counts, aspects: tuple[str, ...]) -> tuple[int, int, int]:
    if isinstance(x, Judgement):
        if x.failed:
            raise JudgeError(f"the judgement failed ({x.error or 'no reason given'}); "
                             "it has no reward: skip this sample")
        return _aspect_totals(x, aspects)
    if isinstance(x, dict):
        if x.get("failed"):
            raise JudgeError(f"the judgement failed ({x.get('error') or 'no reason given'}); "
                             "it has no reward: skip this sample")
        if isinstance(x.get("by_dim"), dict):
            return _aspect_totals(Judgement.from_dict(x), aspects)
        try:
            x = (x["total_gt_count"], x["total_pred_count"], x["total_matched_count"])
        except KeyError as e:
            raise InputError(f"judge JSON lacks {e.args[0]!r}") from None
    try:
        n_gt, n_pred, m = (int(v) for v in x)
    except (TypeError, ValueError):
        raise InputError("reward needs a Judgement, a judge JSON dict or (N_gt, N_pred, M)") from None
    if min(n_gt, n_pred, m) < 0:
        raise InputError(f"counts must be ≥ 0, got N_gt={n_gt}, N_pred={n_pred}, M={m}")
    return n_gt, n_pred, min(m, n_gt, n_pred)  # the released sanitising


def coverage_term(n_gt: int, n_pred: int, mode: str = "symmetric") -> float:
    """r_cov before gating (≤ 0). ``coverage_term(4, 2)`` = −0.5; ``(4, 6)`` symmetric −0.5, under 0."""
    if n_gt == 0:
        return 0.0
    if mode == "symmetric":
        return -min(1.0, abs(n_gt - n_pred) / n_gt)
    if mode == "under":
        return -max(0.0, (n_gt - n_pred) / n_gt)
    raise InputError(f"unknown coverage mode {mode!r}; known: {', '.join(COVERAGE_MODES)}")


def length_penalty(n_tokens: int, min_answer_tokens: int = 73, min_penalty_tokens: int = 40) -> float:
    """The released ablation's length penalty p(n), in [−1, 0].

    >>> length_penalty(80), length_penalty(40), length_penalty(0), round(length_penalty(60), 4)
    (0.0, -1.0, -1.0, -0.3939)
    """
    if n_tokens <= 0 or n_tokens <= min_penalty_tokens:
        return -1.0
    if n_tokens >= min_answer_tokens:
        return 0.0
    return -(min_answer_tokens - n_tokens) / max(1, min_answer_tokens - min_penalty_tokens)


def reward(judgement: Counts, cfg: RewardConfig | None = None,
           answer_tokens: int | None = None) -> RewardBreakdown:
    """The GRPO reward of one judged sample (see the module docstring for the formula).

    ``answer_tokens``: the answer's length in tokens, needed by ``kind="length"`` (0 for an empty
    answer).
    """
    cfg = cfg or RewardConfig()
    n_gt, n_pred, m = _counts(judgement, cfg.aspects)
    s_cmp = m / n_gt if n_gt else 0.0
    s_acc = m / n_pred if n_pred else 0.0
    gate = s_acc > cfg.tau
    r_cov = coverage_term(n_gt, n_pred, cfg.coverage) + 0.0 if gate else 0.0  # no "-0.0"
    if cfg.kind == "length":
        if answer_tokens is None:
            raise InputError("the length reward needs the answer's length in tokens "
                             "(answer_tokens)")
        pen = length_penalty(int(answer_tokens), cfg.min_answer_tokens, cfg.min_penalty_tokens)
        total = cfg.w_cmp * s_cmp + cfg.w_acc * s_acc + cfg.w_len * pen
        return RewardBreakdown(s_cmp, s_acc, r_cov, gate, total, n_gt, n_pred, m, pen)
    total = cfg.w_cmp * s_cmp + cfg.w_acc * s_acc + cfg.w_cov * r_cov
    return RewardBreakdown(s_cmp, s_acc, r_cov, gate, total, n_gt, n_pred, m)
