"""The GRPO reward (docs/spec/method.md "The reward"), case by case with worked numbers.

R = 0.5·s_cmp + 0.5·s_acc + 0.1·r_cov; r_cov only when s_acc > τ = 0.75 (strict).
"""
from __future__ import annotations

import doctest

import pytest

import cinecap.reward as reward_module
from cinecap import taxonomy as tx
from cinecap.errors import InputError, JudgeError
from cinecap.judge.base import AspectCounts, Judgement
from cinecap.judge.rules import RulesJudge
from cinecap.reward import RewardConfig, coverage_term, reward

UNDER = RewardConfig(coverage="under")


def test_gate_open_too_few_statements():
    # N_gt 4, N_pred 3, M 3: s_cmp .75, s_acc 1 > .75; symmetric and under agree: r_cov = -1/4.
    for cfg in (RewardConfig(), UNDER):
        r = reward((4, 3, 3), cfg)
        assert (r.s_cmp, r.s_acc, r.gate_open) == (0.75, 1.0, True)
        assert r.r_cov == pytest.approx(-0.25)
        assert r.total == pytest.approx(0.375 + 0.5 - 0.025)  # 0.85


def test_gate_open_too_many_statements_differs_by_mode():
    # N_gt 4, N_pred 5, M 4: s_cmp 1, s_acc .8 > .75.
    sym, under = reward((4, 5, 4)), reward((4, 5, 4), UNDER)
    assert sym.r_cov == pytest.approx(-0.25)          # |4-5|/4
    assert sym.total == pytest.approx(0.5 + 0.4 - 0.025)   # 0.875
    assert under.r_cov == 0.0                          # only too few is penalised
    assert under.total == pytest.approx(0.9)


def test_symmetric_penalty_is_capped_at_one():
    # N_gt 2, N_pred 7, M 2: s_acc 2/7; with τ = 0 the gate is open and |2-7|/2 = 2.5 → 1.
    r = reward((2, 7, 2), RewardConfig(tau=0.0))
    assert r.r_cov == -1.0                             # min(1, 5/2)
    assert r.total == pytest.approx(0.5 * 1 + 0.5 * 2 / 7 - 0.1)


def test_gate_closed():
    # N_gt 4, N_pred 6, M 3: s_acc .5 ≤ .75 → no coverage term: R = .375 + .25.
    r = reward((4, 6, 3))
    assert not r.gate_open and r.r_cov == 0.0
    assert r.total == pytest.approx(0.625)


def test_gate_is_strict_at_tau_exactly():
    # N_gt 4, N_pred 4, M 3: s_acc = .75 exactly → closed, even though counts match.
    r = reward((4, 4, 3))
    assert r.s_acc == 0.75 and not r.gate_open
    assert r.total == pytest.approx(0.75)
    # Just above τ the gate opens: N_gt 8, N_pred 7, M 6: s_acc 6/7 ≈ .857, r_cov = -1/8.
    just_above = reward((8, 7, 6))
    assert just_above.gate_open and just_above.r_cov == pytest.approx(-1 / 8)


def test_n_gt_zero_uses_the_training_convention():
    # Nothing to find: s_cmp 0 (training), coverage 0 (nothing to cover), s_acc 0 (M = 0).
    r = reward((0, 3, 0))
    assert (r.s_cmp, r.s_acc, r.r_cov, r.total) == (0.0, 0.0, 0.0, 0.0)
    assert reward((0, 0, 0)).total == 0.0


def test_n_pred_zero():
    # An empty prediction: s_acc 0, gate closed, R = 0 whatever the GT.
    for cfg in (RewardConfig(), UNDER):
        r = reward((5, 0, 0), cfg)
        assert (r.s_cmp, r.s_acc, r.gate_open, r.total) == (0.0, 0.0, False, 0.0)


def test_perfect_prediction():
    r = reward((6, 6, 6))
    assert r.gate_open and r.r_cov == 0.0 and r.total == 1.0


def test_matched_is_sanitised_to_min_of_gt_and_pred():
    r = reward((3, 2, 9))
    assert r.matched == 2 and r.s_cmp == pytest.approx(2 / 3) and r.s_acc == 1.0


def test_coverage_term_by_mode():
    assert coverage_term(4, 2) == -0.5 and coverage_term(4, 2, "under") == -0.5
    assert coverage_term(4, 6) == -0.5 and coverage_term(4, 6, "under") == 0.0
    assert coverage_term(0, 3) == 0.0


def test_weights_are_configurable():
    cfg = RewardConfig(w_cmp=1.0, w_acc=0.0, w_cov=1.0)
    r = reward((4, 3, 3), cfg)
    assert r.total == pytest.approx(0.75 - 0.25)


def test_reward_of_a_real_judgement():
    j = RulesJudge().judge("The camera pans left, then tilts up. A close-up of the man.",
                           "The camera pans left. A close-up of the man.")
    r = reward(j)  # N_gt 3, N_pred 2, M 2: s_acc 1 > τ, r_cov = -1/3
    assert (r.n_gt, r.n_pred, r.matched) == (3, 2, 2)
    assert r.total == pytest.approx(0.5 * 2 / 3 + 0.5 - 0.1 / 3)


def test_reward_of_judge_json():
    j = RulesJudge().judge("A close-up.", "A close-up.")
    assert reward(j.to_dict()).total == 1.0


def test_a_failed_judgement_raises_instead_of_scoring_zero():
    failed = Judgement.failure("llm", "v1", "server down")
    with pytest.raises(JudgeError, match="server down"):
        reward(failed)
    with pytest.raises(JudgeError):
        reward(failed.to_dict())


@pytest.mark.parametrize("kwargs", [
    {"tau": 1.5}, {"tau": -0.1}, {"w_cmp": -1}, {"w_cov": float("nan")}, {"w_acc": "0.5"},
    {"coverage": "over"}, {"tau": True},
])
def test_config_validates_itself(kwargs):
    with pytest.raises(InputError):
        RewardConfig(**kwargs)


@pytest.mark.parametrize("bad", [(1, 2), ("a", 1, 1), (-1, 2, 0), {"total_gt_count": 1}, None])
def test_bad_counts_are_input_errors(bad):
    with pytest.raises(InputError):
        reward(bad)


def test_defaults_are_the_papers():
    cfg = RewardConfig()
    assert (cfg.tau, cfg.w_cmp, cfg.w_acc, cfg.w_cov, cfg.coverage) == (
        0.75, 0.5, 0.5, 0.1, "symmetric")


def test_metrics_are_namespaced():
    m = reward((4, 3, 3)).metrics()
    assert m["reward/total"] == pytest.approx(0.85) and "reward/gate_open" in m


def test_judgement_with_aspect_counts_directly():
    dims = {a: AspectCounts() for a in tx.ASPECTS}
    dims[tx.SHOT_SIZE] = AspectCounts(gt_count=2, pred_count=2, matched_count=2)
    assert reward(Judgement(dims)).total == 1.0


def test_docstring_examples_hold():
    assert doctest.testmod(reward_module).failed == 0


def test_training_reward_counts_the_six_training_aspects():
    # GT: pan left + close-up; prediction adds an invented slow motion (Special Shots).
    j = RulesJudge().judge("The camera pans left. A close-up.",
                           "The camera pans left. A close-up in slow motion.")
    six = reward(j)
    assert (six.n_gt, six.n_pred, six.matched) == (2, 2, 2) and six.total == 1.0
    seven = reward(j, RewardConfig(aspects=tx.ASPECTS))
    # N_gt 2, N_pred 3, M 2: s_acc 2/3 ≤ τ, gate closed: R = 0.5 + 1/3.
    assert (seven.n_gt, seven.n_pred, seven.matched) == (2, 3, 2)
    assert seven.total == pytest.approx(0.5 + 0.5 * 2 / 3)
    assert reward(j.to_dict()).total == six.total  # the judge JSON reads the same way


@pytest.mark.parametrize("aspects", [(), ("Lighting",), "Shot Size"])
def test_reward_aspects_are_validated(aspects):
    with pytest.raises(InputError):
        RewardConfig(aspects=aspects)


def test_the_length_reward_of_the_released_ablation_is_a_reward_kind():
    from cinecap.reward import length_penalty

    cfg = RewardConfig(kind="length")
    # Gate open and too few statements: the gated reward would take 0.1 · r_cov; the length
    # reward takes 0.1 · p(n) instead.
    b = reward((4, 3, 3), cfg, answer_tokens=56)
    assert b.length_penalty == pytest.approx(-17 / 33) == length_penalty(56)
    assert b.total == pytest.approx(0.5 * 0.75 + 0.5 * 1.0 + 0.1 * (-17 / 33))
    assert reward((4, 3, 3), cfg, answer_tokens=0).length_penalty == -1.0  # an empty answer
    assert reward((4, 3, 3), cfg, answer_tokens=200).total == pytest.approx(0.875)
    assert reward((4, 3, 3)).length_penalty is None  # the gated reward has none
    with pytest.raises(InputError, match="answer_tokens"):
        reward((4, 3, 3), cfg)
    with pytest.raises(InputError, match="reward kind must be one of gated, length"):
        RewardConfig(kind="f1")
    with pytest.raises(InputError, match="min_penalty_tokens < min_answer_tokens"):
        RewardConfig(kind="length", min_answer_tokens=40, min_penalty_tokens=40)
