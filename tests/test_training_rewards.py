"""GRPO rewards: judge + cinecap.reward over the six training aspects, concurrent judge calls, failed
judgements dropped (never scored 0), and the released length-penalty baseline."""
from __future__ import annotations

import json
import re
import threading
import time

import pytest

from cinecap import taxonomy as tx
from cinecap.errors import InputError
from cinecap.judge import get_judge
from cinecap.reward import RewardConfig, reward
from cinecap.training.config import GRPOConfig
from cinecap.training.rewards import JudgeReward, length_penalty, training_judge
from tests.support.openai_server import OpenAIServer, chat_reply

REQUIRED = {"base": "m", "data": "d.jsonl", "out": "o"}
GT = "From 0.0 to 2.0 s, the camera pans right. A close-up. It is a POV shot."
COMPLETIONS = [
    "<think>\n[0.0–2.0] [the background slides left] → The camera pans right.\n</think>\n"
    "<answer>\nThe camera pans right. A close-up. It is a POV shot.\n</answer>",
    "The camera pans left in a wide shot.",
    "<answer>A close-up, and it is a POV shot.</answer>",
    "",
]


def test_rules_reward_equals_cinecap_reward_over_the_six_aspects():
    rewarder = JudgeReward(GRPOConfig(**REQUIRED))
    scored = rewarder.score(GT, COMPLETIONS)
    judge = get_judge("rules")
    for text, s in zip(COMPLETIONS, scored):
        from cinecap.statements import parse_output

        caption = parse_output(text).caption
        expected = reward(judge.judge(GT, caption, tx.TRAINING_ASPECTS), RewardConfig())
        assert s.caption == caption
        assert s.breakdown == expected and s.total == expected.total
    # The POV shot (Special Shots, the seventh aspect) never counts in training.
    assert scored[0].breakdown.n_gt == 2 and scored[0].breakdown.matched == 2
    assert scored[0].total == pytest.approx(1.0)
    assert scored[3].total == 0.0  # an empty answer is a real zero, not a failure


def test_length_reward_replaces_the_coverage_term():
    cfg = GRPOConfig(**REQUIRED, reward="length", min_answer_tokens=8, min_penalty_tokens=2)
    rewarder = JudgeReward(cfg, count_tokens=lambda t: len(t.split()))
    s = rewarder.score(GT, ["A close-up."])[0]
    pen = length_penalty(2, 8, 2)
    assert pen == -1.0 and s.length_penalty == pen
    assert s.total == pytest.approx(0.5 * s.breakdown.s_cmp + 0.5 * s.breakdown.s_acc + 0.1 * pen)
    assert [length_penalty(n, 73, 40) for n in (0, 40, 73, 100)] == [-1.0, -1.0, 0.0, 0.0]
    assert length_penalty(56, 73, 40) == pytest.approx(-17 / 33)
    with pytest.raises(InputError, match="tokenizer"):
        JudgeReward(cfg)


def _pred(req: dict) -> str:
    """The prediction in the training judge's prompt (training-6: the GRPO default)."""
    user = req["messages"][-1]["content"]
    return re.search(r"Predicted caption:\n(.*?)\n\nReturn JSON only", user, re.S).group(1)


class ScriptedJudge:
    """A judge model on loopback: malformed JSON for predictions saying "junk", else a verdict
    that the prediction's one Camera Movement statement matches. Tracks requests in flight."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.in_flight = self.most_in_flight = 0

    def __call__(self, req: dict):
        with self.lock:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        time.sleep(0.05)  # long enough for concurrent calls to overlap
        with self.lock:
            self.in_flight -= 1
        pred = _pred(req)
        if "junk" in pred:
            return chat_reply("I cannot judge this {")
        dims = {a: {"gt_statements": [], "pred_statements": [], "matched_statements": [],
                    "gt_count": 0, "pred_count": 0, "matched_count": 0} for a in tx.TRAINING_ASPECTS}
        dims[tx.CAMERA_MOVEMENT] = {"gt_statements": ["pan right"], "pred_statements": [pred],
                                    "matched_statements": ["pan right"], "gt_count": 1,
                                    "pred_count": 1, "matched_count": 1}
        return chat_reply(json.dumps({"by_dim": dims}))


def test_llm_judge_calls_of_a_group_run_concurrently_and_failures_are_dropped():
    script = ScriptedJudge()
    with OpenAIServer(default=script) as srv:
        cfg = GRPOConfig(**REQUIRED, judge="llm", judge_options={
            "base_url": srv.base_url, "model": "judge", "cache": "off", "max_retries": "0"})
        rewarder = JudgeReward(cfg)
        preds = [f"The camera pans right ({i})." for i in range(6)] + ["junk", "more junk"]
        scored = rewarder.score("The camera pans right.", preds)
        rewarder.close()
    assert [s.failed for s in scored] == [False] * 6 + [True, True]
    assert all(s.total is None and s.breakdown is None and "JSON" in s.error for s in scored[6:])
    assert all(s.total == pytest.approx(1.0) for s in scored[:6])
    assert script.most_in_flight > 1
    # Every request asked about the six training aspects only.
    assert rewarder.describe()["aspects"] == list(tx.TRAINING_ASPECTS)


def test_the_protocol_plug_in_point_refuses_unknown_protocols_and_options():
    with pytest.raises(InputError, match="unknown judge protocol 'training-7'"):
        GRPOConfig(**REQUIRED, judge_protocol="training-7")
    with pytest.raises(InputError, match="rules judge has no option 'cache'"):
        training_judge(GRPOConfig(**REQUIRED, judge="rules", judge_options={"cache": "0"}))
    with pytest.raises(InputError, match="unknown judge 'rule'.*Did you mean 'rules'"):
        training_judge(GRPOConfig(**REQUIRED, judge="rule"))


_JUDGE_ENV = ("CINECAP_JUDGE_BASE_URL", "CINECAP_JUDGE_MODEL", "CINECAP_JUDGE_PROMPT",
              "CINECAP_JUDGE_COUNTING")


def test_with_no_llm_configured_the_rules_judge_stands_in_and_says_so(monkeypatch, caplog):
    for k in _JUDGE_ENV:
        monkeypatch.delenv(k, raising=False)
    with caplog.at_level("WARNING", logger="cinecap.training.rewards"):
        rewarder = JudgeReward(GRPOConfig(**REQUIRED))
    d = rewarder.describe()
    assert d["judge"] == "rules" and d["judge_protocol"] == "hardened-training"
    assert "no LLM judge is configured" in d["stand_in"] and "CINECAP_JUDGE_BASE_URL" in d["stand_in"]
    assert "standing in for the llm training judge (hardened-training)" in d["summary"]
    assert "rules judge stands in for the training judge" in caplog.text
    # Chosen on purpose, it is not a stand-in.
    chosen = JudgeReward(GRPOConfig(**REQUIRED, judge="rules")).describe()
    assert chosen["stand_in"] is None and chosen["judge_protocol"] == "none"


def test_the_default_training_judge_is_the_training_prompt_with_lists_counting(monkeypatch):
    script = ScriptedJudge()
    with OpenAIServer(default=script) as srv:
        monkeypatch.setenv("CINECAP_JUDGE_BASE_URL", srv.base_url)
        monkeypatch.setenv("CINECAP_JUDGE_MODEL", "judge")
        monkeypatch.setenv("CINECAP_CACHE_DIR", "/nonexistent-never-used")
        for k in _JUDGE_ENV[2:]:
            monkeypatch.delenv(k, raising=False)
        rewarder = JudgeReward(GRPOConfig(**REQUIRED, judge_options={"cache": "off"}))
        (scored,) = rewarder.score("The camera pans right.", ["<think>x</think><answer>It pans "
                                                             "right.</answer>"])
        rewarder.close()
        sent = srv.chat_requests[0]["messages"]
    d = rewarder.describe()
    assert d["judge"] == "llm" and d["judge_version"] == "training-6-v1" and d["stand_in"] is None
    assert d["protocol"] == {"prompt": "training-6", "counting": "lists", "judged_text": "answer"}
    assert len(sent) == 1 and "exactly these 6 aspects" in sent[0]["content"]
    assert "Predicted caption:\nIt pans right.\n" in sent[0]["content"]  # the <answer> only
    assert scored.total == pytest.approx(1.0)
    # The released counting, on request.
    assert training_judge(GRPOConfig(**REQUIRED, judge="llm", judge_protocol="released-training",
                                     judge_options={"base_url": "http://127.0.0.1:9/v1",
                                                    "model": "m", "cache": "off"})
                          ).protocol()["counting"] == "released"
