"""GRPO rewards: a judge backend + ``cinecap.reward``, one group of completions at a time.

Each completion's caption (the ``<answer>`` text, ``cinecap.statements.parse_output``) is judged
against the gold caption over the six training aspects, and scored by
:func:`cinecap.reward.reward`: ``R = w_cmp·s_cmp + w_acc·s_acc + w_cov·r_cov`` with the gated
coverage term. The judge calls of a group run concurrently. A judgement that fails (server down,
malformed answer) is not a zero: the sample is dropped from its group and counted.

``reward="length"`` swaps the coverage term for the length penalty of the released ablation
baseline (``CineCapTokenLengthReward`` in the release): ``RewardConfig(kind="length")`` of
:mod:`cinecap.reward`, ``w_len · p(n)`` where n is the answer's length in tokens
(:func:`cinecap.reward.length_penalty`).

The judge protocol plugs in at :func:`resolve_training_judge` (:func:`training_judge`), the one
place that turns the config's ``judge`` / ``judge_options`` / ``judge_protocol`` into a judge: by
default the llm judge with the release's training prompt and ``lists`` counting, or the rules judge
standing in, said so, where no LLM is configured.
"""
from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any, Callable, Sequence

from cinecap import taxonomy as tx
from cinecap.errors import InputError, JudgeError
from cinecap.judge import JUDGES, Judge, Judgement
from cinecap.reward import length_penalty  # noqa: F401  (re-exported: the GRPO length reward's)
from cinecap.reward import RewardBreakdown, RewardConfig, reward
from cinecap.statements import parse_output
from cinecap.training.config import GRPOConfig

log = logging.getLogger(__name__)

#: The aspects a training reward counts (the method: six, without Special Shots).
ASPECTS = tx.TRAINING_ASPECTS


@dataclass(frozen=True)
class TrainingJudge:
    """The judge of a GRPO run and what it is: ``stand_in`` says why the offline ``rules`` judge
    stands in for the training judge (None when the judge is the one asked for)."""

    judge: Judge
    protocol: str  # "hardened-training", …, or "none" for the rules judge
    stand_in: str | None = None

    def summary(self) -> str:
        j = self.judge
        if self.stand_in:
            return (f"reward judge: rules {j.version}, standing in for the llm training judge "
                    f"({self.protocol}): {self.stand_in}")
        if j.name == "llm":
            return (f"reward judge: llm {getattr(j, 'model', '')}, protocol {self.protocol} "
                    f"(prompt {j.version}, counting {j.protocol()['counting']})")
        return f"reward judge: {j.name} {j.version} (chosen; no judge protocol applies)"


def resolve_training_judge(cfg: GRPOConfig) -> TrainingJudge:
    """THE JUDGE PROTOCOL PLUG-IN POINT: the judge that scores GRPO samples, and what it is.

    The training judge is the ``llm`` judge under ``cfg.judge_protocol`` (default
    ``hardened-training``: the release's six-aspect ``training-6`` prompt with ``lists`` counting,
    docs/protocol.md), asked about the six training aspects, with ``cfg.judge_options`` on top
    (endpoint, model, or a protocol field). ``judge="rules"`` chooses the offline judge instead.
    With ``judge`` unset and no judge options, the llm judge is used when the environment
    configures an endpoint (``CINECAP_JUDGE_BASE_URL``, ``CINECAP_JUDGE_MODEL``); otherwise the
    ``rules`` judge stands in, and that is said: a warning in the log, ``stand_in`` in the run's
    reward description (run_config.json) and the progress line.
    """
    from cinecap.judge.protocol import protocol

    chosen = protocol(cfg.judge_protocol)
    name = cfg.judge
    options = dict(cfg.judge_options)
    if name is None:
        if options:
            name = "llm"
        else:
            why = JUDGES.load("llm").availability(**chosen.to_dict())
            if not why.ok:
                judge = _create("rules", {})
                note = (f"no LLM judge is configured ({why.reason.split('. Example')[0]}); "
                        f"set CINECAP_JUDGE_BASE_URL and CINECAP_JUDGE_MODEL, or choose "
                        f"judge=rules to silence this")
                log.warning("GRPO reward: the rules judge stands in for the training judge "
                            "(%s): %s", chosen.preset() or chosen.name, note)
                return TrainingJudge(judge, chosen.preset() or chosen.name, note)
            name = "llm"
    if name == "llm":
        judge = _create("llm", {**chosen.to_dict(), **options})
        return TrainingJudge(judge, chosen.preset() or chosen.name)
    return TrainingJudge(_create(name, options), "none")


def _create(name: str, options: dict[str, Any]) -> Judge:
    try:
        return JUDGES.create(name, **options)
    except TypeError as e:
        raise InputError(f"the {name} judge does not take the options "
                         f"{', '.join(sorted(options))}: {e}") from None


def training_judge(cfg: GRPOConfig) -> Judge:
    """The judge that scores GRPO samples (:func:`resolve_training_judge`)."""
    return resolve_training_judge(cfg).judge


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
        if judge is not None:
            self.resolved = TrainingJudge(judge, "given")
        else:
            self.resolved = resolve_training_judge(cfg)
        self.judge = self.resolved.judge
        self.reward_config: RewardConfig = cfg.reward_config()
        if cfg.reward == "length" and count_tokens is None:
            raise InputError("reward=length needs a tokenizer to count answer tokens")
        self.count_tokens = count_tokens
        self._pool = ThreadPoolExecutor(max_workers=cfg.judge_concurrency,
                                        thread_name_prefix="grpo-judge")

    def describe(self) -> dict[str, Any]:
        """Who judges, for run_config.json (versions scores depend on)."""
        d = {"judge": self.judge.name, "judge_version": self.judge.version,
             "judge_protocol": self.resolved.protocol, "protocol": self.judge.protocol(),
             "stand_in": self.resolved.stand_in, "summary": self.resolved.summary(),
             "aspects": list(ASPECTS), "reward": self.cfg.reward,
             "reward_config": self.reward_config.to_dict()}
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
        tokens = None
        if self.reward_config.kind == "length":
            tokens = self.count_tokens(caption) if caption.strip() else 0
        try:
            b = reward(judgement, self.reward_config, answer_tokens=tokens)
        except JudgeError as e:
            return Scored(caption, None, None, error=e.message)
        return Scored(caption, b.total, b, length_penalty=b.length_penalty)

    def close(self) -> None:
        self._pool.shutdown(wait=False)
