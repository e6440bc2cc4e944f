"""GRPO rewards: a judge backend + ``cinecap.reward``, one group of completions at a time.

Each completion's caption (the ``<answer>`` text, ``cinecap.statements.parse_output``) is judged
against the gold caption over the six training aspects, and scored by
:func:`cinecap.reward.reward`: ``R = w_cmp·s_cmp + w_acc·s_acc + w_cov·r_cov`` with the gated
coverage term. The judge calls of a group run concurrently. A judgement that fails (server down,
malformed answer) is not a zero: the sample is dropped from its group and counted.

``reward="length"`` swaps the coverage term for the length penalty of the released ablation
baseline (``CineCapTokenLengthReward`` in the release): ``w_len · p(n)`` where n is the answer's
length in tokens and p(n) = 0 for n ≥ min_answer_tokens, −1 for n ≤ min_penalty_tokens (or an
empty answer), and linear in between.

The judge protocol plugs in at :func:`training_judge`, the one place that turns the config's
``judge`` / ``judge_options`` / ``judge_protocol`` into a judge.
"""
from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any, Callable, Sequence

from cinecap import taxonomy as tx
from cinecap.errors import InputError, JudgeError
from cinecap.judge import JUDGES, Judge, Judgement
from cinecap.reward import RewardBreakdown, RewardConfig, reward
from cinecap.statements import parse_output
from cinecap.training.config import GRPOConfig

log = logging.getLogger(__name__)

#: The aspects a training reward counts (the method: six, without Special Shots).
ASPECTS = tx.TRAINING_ASPECTS


def training_judge(cfg: GRPOConfig) -> Judge:
    """THE JUDGE PROTOCOL PLUG-IN POINT: the judge that scores GRPO samples.

    Today: the backend named by ``cfg.judge`` (``rules`` offline, ``llm`` with an endpoint) built
    with ``cfg.judge_options``, asked about the six training aspects. Named judge protocols (the
    release's six-aspect "training-6" prompt with ``lists`` counting as the GRPO default) will be
    resolved here from ``cfg.judge_protocol``; until they exist, naming one is an error rather
    than a silent fallback.
    """
    if cfg.judge_protocol:
        raise InputError(f"judge protocol {cfg.judge_protocol!r} is not available in this version; "
                         f"leave judge_protocol unset to use the {cfg.judge} judge's own prompt")
    try:
        return JUDGES.create(cfg.judge, **dict(cfg.judge_options))
    except TypeError as e:
        raise InputError(f"the {cfg.judge} judge does not take the options "
                         f"{', '.join(sorted(cfg.judge_options))}: {e}") from None


def length_penalty(n_tokens: int, min_answer_tokens: int = 73, min_penalty_tokens: int = 40) -> float:
    """The released ablation's length penalty, in [−1, 0].

    >>> length_penalty(80), length_penalty(40), length_penalty(0), round(length_penalty(60), 4)
    (0.0, -1.0, -1.0, -0.3939)
    """
    if n_tokens <= 0 or n_tokens <= min_penalty_tokens:
        return -1.0
    if n_tokens >= min_answer_tokens:
        return 0.0
    return -(min_answer_tokens - n_tokens) / max(1, min_answer_tokens - min_penalty_tokens)


@dataclass(frozen=True)
class Scored:
    """One completion's reward, or why it has none (``failed``)."""

    caption: str
    total: float | None
    breakdown: RewardBreakdown | None
    length_penalty: float | None = None
    error: str | None = None

    @property
    def failed(self) -> bool:
        return self.total is None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"caption": self.caption, "reward": self.total, "error": self.error}
        if self.breakdown is not None:
            d["breakdown"] = asdict(self.breakdown)
        if self.length_penalty is not None:
            d["length_penalty"] = self.length_penalty
        return d


class JudgeReward:
    """Scores groups of completions against their gold caption."""

    def __init__(self, cfg: GRPOConfig, judge: Judge | None = None,
                 count_tokens: Callable[[str], int] | None = None):
        self.cfg = cfg
        self.judge = judge if judge is not None else training_judge(cfg)
        self.reward_config: RewardConfig = cfg.reward_config()
        if cfg.reward == "length" and count_tokens is None:
            raise InputError("reward=length needs a tokenizer to count answer tokens")
        self.count_tokens = count_tokens
        self._pool = ThreadPoolExecutor(max_workers=cfg.judge_concurrency,
                                        thread_name_prefix="grpo-judge")

    def describe(self) -> dict[str, Any]:
        """Who judges, for run_config.json (versions scores depend on)."""
        d = {"judge": self.judge.name, "judge_version": self.judge.version,
             "judge_protocol": self.cfg.judge_protocol, "aspects": list(ASPECTS),
             "reward": self.cfg.reward, "reward_config": self.reward_config.to_dict()}
        describe = getattr(getattr(self.judge, "config", None), "describe", None)
        if callable(describe):
            d["judge_config"] = describe()
        return d

    def judge_one(self, gt: str, caption: str) -> Judgement:
        try:
            return self.judge.judge(gt, caption, ASPECTS)
        except Exception as e:  # noqa: BLE001 - a judge that raises is a failed judgement
            log.warning("judge raised: %s", e)
            return Judgement.failure(getattr(self.judge, "name", "?"),
                                     getattr(self.judge, "version", ""), str(e), ASPECTS)

    def score(self, gt: str, completions: Sequence[str]) -> list[Scored]:
        """Every completion of one group, judged concurrently; results in order."""
        return self.score_pairs([(gt, c) for c in completions])

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[Scored]:
        """(gold caption, completion) pairs, judged concurrently; results in order."""
        captions = [parse_output(c).caption for _, c in pairs]
        judgements = list(self._pool.map(lambda i: self.judge_one(pairs[i][0], captions[i]),
                                         range(len(pairs))))
        return [self._score(c, j) for c, j in zip(captions, judgements)]

    def _score(self, caption: str, judgement: Judgement) -> Scored:
        try:
            b = reward(judgement, self.reward_config)
        except JudgeError as e:
            return Scored(caption, None, None, error=e.message)
        if self.cfg.reward == "gated":
            return Scored(caption, b.total, b)
        pen = length_penalty(self.count_tokens(caption) if caption.strip() else 0,
                             self.cfg.min_answer_tokens, self.cfg.min_penalty_tokens)
        total = self.reward_config.w_cmp * b.s_cmp + self.reward_config.w_acc * b.s_acc \
            + self.cfg.w_len * pen
        return Scored(caption, total, b, length_penalty=pen)

    def close(self) -> None:
        self._pool.shutdown(wait=False)
