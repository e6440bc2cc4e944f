"""Judge protocols against the released scoring code (docs/protocol.md).

Golden tests: answers in the released formats, served by a real OpenAI-compatible server on
loopback, scored by the ``released`` counting protocol, must give exactly what the released
scoring code gives. The release's formulas are re-implemented below from its code (the benchmark
evaluation script and ``output_scores_by_dim.py``; the training plugin's judge and rewards), in
this test and nowhere else, so a change to ``cinecap/judge`` cannot move both sides at once.
``lists`` counting must fail the inconsistent answers instead.
"""
from __future__ import annotations

import json
import re

import pytest

from cinecap import taxonomy as tx
from cinecap.errors import InputError, JudgeError
from cinecap.judge import llm_prompt
from cinecap.judge.llm import LLMJudge
from cinecap.judge.protocol import PRESETS, PROTOCOL_KEYS, JudgeProtocol, differences, protocol
from cinecap.judge.scores import aggregate
from cinecap.reward import RewardConfig, reward
from tests.support.openai_server import chat_reply

# The six aspects the released per-aspect table reports (output_scores_by_dim.py's DIM_KEYS).
DIM_KEYS = ["Camera Movement", "Shot Size", "Depth of Field", "Camera Angle", "Composition",
            "Subject Orientation"]


# ------------------------------------------------------- the released code, re-implemented here
def release_benchmark_answer(attempts: list[str], max_retries: int = 5):
    """The evaluation script's process_single_item: the first attempt whose greedy {…} parses,
    else None (the clip goes to the failures file)."""
    for answer in attempts[:max_retries]:
        try:
            match = re.search(r"\{.*\}", answer, re.DOTALL)
            if not match:
                raise ValueError("no JSON")
            checklist = json.loads(match.group(0))
            return {"com": checklist.get("comprehensiveness_score", 0.0),
                    "acc": checklist.get("accuracy_score", 0.0), "checklist": checklist}
        except Exception:  # noqa: BLE001 - the script retries on anything
            continue
    return None


def release_benchmark_scores(items: list[dict]) -> dict:
    """output_scores_by_dim.py's calculate_average_scores, returning what it prints."""
    def safe_ratio(num, den):
        return 0.0 if den is None or den <= 0 else float(num) / float(den)

    coms, accs = [], []
    dim_com = {d: [] for d in DIM_KEYS}
    dim_acc = {d: [] for d in DIM_KEYS}
    for item in items:
        try:
            com, acc = float(item["com"]), float(item["acc"])
        except (ValueError, TypeError):
            continue
        checklist = item.get("checklist", {})
        by_dim = checklist.get("by_dim", {}) if isinstance(checklist, dict) else {}
        coms.append(com)
        accs.append(acc)
        for d in DIM_KEYS:
            info = by_dim.get(d, {}) if isinstance(by_dim, dict) else {}
            gt = int(info.get("gt_count", 0) or 0)
            pred = int(info.get("pred_count", 0) or 0)
            matched = int(info.get("matched_count", 0) or 0)
            dim_com[d].append(safe_ratio(matched, gt))
            dim_acc[d].append(safe_ratio(matched, pred))
    n = len(coms)
    return {"n": n, "com": sum(coms) / n, "acc": sum(accs) / n,
            "dims": {d: (sum(dim_com[d]) / n, sum(dim_acc[d]) / n) for d in DIM_KEYS}}


def release_training_reward(attempts: list[str], retries: int = 4, tau: float = 0.75) -> float:
    """The training plugin: _call_retry (_safe_json, 'by_dim' required, else empty result),
    _sanitize_result, then 0.5·completeness + 0.5·accuracy + 0.1·aspect coverage (the released
    script's reward_funcs and weights)."""
    def safe_json(text):
        s = (text or "").strip()
        if s.startswith("```"):
            s = re.sub(r"^```[a-zA-Z]*\n?", "", s)
            s = re.sub(r"\n?```$", "", s).strip()
        first, last = s.find("{"), s.rfind("}")
        if first != -1 and last != -1 and last > first:
            s = s[first:last + 1]
        try:
            return json.loads(s)
        except Exception:  # noqa: BLE001
            return {}

    def count(v):
        try:
            return max(0, int(v))
        except Exception:  # noqa: BLE001
            return 0

    result = None
    for answer in attempts[:retries]:
        r = safe_json(answer)
        if isinstance(r, dict) and "by_dim" in r:
            result = r
            break
    result = result or {"by_dim": {}}
    by_dim = result.get("by_dim", {}) if isinstance(result, dict) else {}
    tg = tp = tm = 0
    for d in DIM_KEYS:
        v = by_dim.get(d, {}) if isinstance(by_dim, dict) else {}
        gs, ps, ms = (v.get(k, []) for k in ("gt_statements", "pred_statements",
                                             "matched_statements"))
        gs, ps, ms = (x if isinstance(x, list) else [] for x in (gs, ps, ms))
        g = count(v.get("gt_count", len(gs)))
        p = count(v.get("pred_count", len(ps)))
        m = min(count(v.get("matched_count", len(ms))), g, p)
        tg, tp, tm = tg + g, tp + p, tm + m
    tm = min(tm, tg, tp)
    completeness = tm / tg if tg else 0.0
    accuracy = tm / tp if tp else 0.0
    coverage = 0.0
    if accuracy > tau and tg:
        coverage = -max(0.0, (tg - tp) / tg)
    return 0.5 * completeness + 0.5 * accuracy + 0.1 * coverage


# ------------------------------------------------------------------------------- answers
def dim(gt, pred, matched, counts=None):
    d = {"gt_statements": gt, "pred_statements": pred, "matched_statements": matched}
    g, p, m = counts if counts is not None else (len(gt), len(pred), len(matched))
    d.update(gt_count=g, pred_count=p, matched_count=m)
    return d


def bench_answer(by_dim: dict, com=None, acc=None, think="Step 1. GT claims grouped by aspect.",
                 drop=()) -> str:
    """A benchmark-judge answer: <think>, then the JSON with the judge's own totals and scores."""
    full = {a: by_dim.get(a, dim([], [], [])) for a in llm_prompt.BENCHMARK_7_ASPECTS}
    tg = sum(d["gt_count"] for d in full.values() if isinstance(d["gt_count"], int))
    tp = sum(d["pred_count"] for d in full.values() if isinstance(d["pred_count"], int))
    tm = sum(d["matched_count"] for d in full.values() if isinstance(d["matched_count"], int))
    data = {"by_dim": {a: d for a, d in full.items() if a not in drop},
            "gt_claims_count": tg, "matched_claims_count": tm, "missing_claims_count": tg - tm,
            "comprehensiveness_score": com if com is not None else (tm / tg if tg else 1.0),
            "a_claims_count": tp, "error_claims_count": tp - tm,
            "accuracy_score": acc if acc is not None else (tm / tp if tp else 0.0)}
    for key in ("comprehensiveness_score", "accuracy_score"):
        if data[key] == "DROP":
            del data[key]
    return f"<think>\n{think}\n</think>\n<answer>\n{json.dumps(data, indent=2)}\n</answer>"


CM, SS, CA, DF, CO, SO = (tx.CAMERA_MOVEMENT, tx.SHOT_SIZE, tx.CAMERA_ANGLE, tx.DEPTH_OF_FIELD,
                          tx.COMPOSITION, tx.SUBJECT_ORIENTATION)
GOOD = bench_answer({CM: dim(["pans right", "tilts up"], ["pans right"], ["pans right"]),
                     SS: dim(["close-up"], ["close-up"], ["close-up"])})

#: Per clip, the answers the judge gives on each try, and whether they are consistent with their
#: lists (what ``lists`` counting accepts).
BENCH_CLIPS = {
    "consistent": ([GOOD], True),
    # "2/2/2 with one merged statement listed": reported counts and scores say 1.0.
    "inconsistent counts": ([bench_answer({CM: dim(["pans then tilts"], ["pans then tilts"],
                                                   ["pans then tilts"], (2, 2, 2))},
                                          com=1.0, acc=1.0)], False),
    # More matched than GT: the released per-aspect ratio goes over 1.
    "matched over gt": ([bench_answer({DF: dim(["shallow"], ["shallow", "bokeh"],
                                               ["shallow"], (1, 2, 2))}, com=1.0, acc=1.0)],
                        False),
    "missing aspect": ([bench_answer({CM: dim(["static"], ["static"], ["static"]),
                                      CO: dim(["center"], ["left"], [])}, drop=(CO, SO))], False),
    "counts as text": ([bench_answer({CA: dim(["high angle"], ["high angle"], ["high angle"],
                                              ("1", "1", "1"))})], True),
    "missing score": ([bench_answer({SS: dim(["wide"], ["wide"], ["wide"])}, com="DROP")], True),
    "score not a number": ([bench_answer({SS: dim(["wide"], ["wide"], ["wide"])},
                                         com="high")], True),
    # Braces inside <think> make the greedy {…} unreadable: asked again, then a good answer.
    "malformed, then good": ([bench_answer({}, think="GT = {pans right}"), "no JSON at all",
                              GOOD], True),
    "always malformed": (["I cannot judge this."] * 5, False),
}


@pytest.fixture
def released_judge(openai_server, tmp_path):
    def make(prompt: str, counting: str = "released", **kw) -> LLMJudge:
        kw.setdefault("max_retries", 4)
        return LLMJudge(base_url=openai_server.base_url, model="judge-model", api_key="sk-test",
                        cache=False, backoff=0.0, timeout=5, prompt=prompt, counting=counting,
                        **kw)
    return make


def _judge_clips(openai_server, judge, clips, aspects=tx.ASPECTS):
    out = {}
    for name, (attempts, _) in clips.items():
        openai_server.reset()
        openai_server.enqueue(*(chat_reply(a) for a in attempts))
        openai_server.default = lambda req: chat_reply("(no more scripted answers)")
        out[name] = (judge.judge("The camera pans right, then tilts up. A close-up.",
                                 "<think>[0.0–2.0] [trees slide] → pans right</think>"
                                 "<answer>It pans right. A close-up.</answer>", aspects),
                     len(openai_server.chat_requests))
    return out


# ------------------------------------------------------------------------- golden: benchmark
def test_released_counting_gives_what_the_released_benchmark_scoring_gives(openai_server,
                                                                           released_judge):
    judged = _judge_clips(openai_server, released_judge("benchmark-7"), BENCH_CLIPS)
    items = [r for r in (release_benchmark_answer(a) for a, _ in BENCH_CLIPS.values())
             if r is not None]
    expected = release_benchmark_scores(items)
    ours = aggregate([j for j, _ in judged.values()], aspects=DIM_KEYS)

    assert ours.judged == expected["n"] == len(BENCH_CLIPS) - 2  # not a number; always malformed
    assert ours.comprehensiveness == pytest.approx(expected["com"], abs=1e-12)
    assert ours.accuracy == pytest.approx(expected["acc"], abs=1e-12)
    for d in DIM_KEYS:
        agg = ours.by_aspect[d]
        assert (agg.cmp_all_clips, agg.acc_all_clips) == pytest.approx(expected["dims"][d],
                                                                        abs=1e-12), d
    # The over-1 ratio of the release is kept, not clamped: the released table is reproduced.
    assert ours.by_aspect[DF].acc_all_clips == pytest.approx(1.0 / expected["n"])
    assert judged["matched over gt"][0].reported["by_aspect"][DF]["cmp"] == 2.0
    # Retries: as many requests as the release makes (5 for a clip that never answers well).
    assert judged["malformed, then good"][1] == 3 and judged["always malformed"][1] == 5
    assert judged["always malformed"][0].failed and "asked 5 times" in judged["always malformed"][0].error
    assert judged["score not a number"][0].failed
    assert "comprehensiveness_score is not a number" in judged["score not a number"][0].error
    # What the clip's JSON says: the reported scores are its scores, under the released protocol.
    d = judged["inconsistent counts"][0].to_dict()
    assert d["comprehensiveness"] == 1.0 and d["reported_scores"]["comprehensiveness"] == 1.0
    assert d["protocol"] == {"prompt": "benchmark-7", "counting": "released",
                             "judged_text": "answer"}
    assert d["judge_version"] == llm_prompt.BENCHMARK_7_ID


def test_lists_counting_fails_the_inconsistent_benchmark_answers(openai_server, released_judge):
    judged = _judge_clips(openai_server, released_judge("benchmark-7", counting="lists"),
                          BENCH_CLIPS)
    for name, (attempts, consistent) in BENCH_CLIPS.items():
        j, requests = judged[name]
        if name == "malformed, then good":  # lists counting does not ask again
            assert j.failed and requests == 1
            continue
        assert j.failed == (not consistent), (name, j.error)
        if not consistent:
            assert j.to_dict()["comprehensiveness"] is None
    assert "gt_count 2 but listed 1" in judged["inconsistent counts"][0].error
    assert "does not fit the judge schema" in judged["missing aspect"][0].error
    ok = judged["consistent"][0]
    # Under lists the scores are the counts', never the judge's own.
    assert ok.reported is None and ok.comprehensiveness() == pytest.approx(2 / 3)


# -------------------------------------------------------------------------- golden: training
def train_answer(by_dim: dict, fence: bool = False, totals: bool = True,
                 fill: bool = True) -> str:
    if fill:
        by_dim = {a: by_dim.get(a, dim([], [], [])) for a in llm_prompt.TRAINING_6_ASPECTS}
    data = {"by_dim": by_dim}
    if totals:  # the judge's totals are ignored by the release: make them wrong on purpose
        data.update(total_gt_count=99, total_pred_count=1, total_matched_count=99)
    text = json.dumps(data)
    return f"```json\n{text}\n```" if fence else text


TRAIN_CLIPS = {
    "consistent": [train_answer({CM: dim(["pans right", "tilts up"], ["pans right"],
                                         ["pans right"]), SS: dim(["close-up"], ["close-up"],
                                                                  ["close-up"])})],
    "inconsistent counts": [train_answer({CM: dim(["pans then tilts"], ["pans then tilts"],
                                                  ["pans then tilts"], (2, 2, 2))})],
    "count keys missing": [train_answer({CA: {"gt_statements": ["high", "dutch"],
                                              "pred_statements": ["high"],
                                              "matched_statements": ["high"]}}, fill=False)],
    "junk and negative counts": [train_answer({SS: dim(["wide"], ["wide"], ["wide"],
                                                       ("two", -1, 3)),
                                               DF: dim(["shallow"], ["shallow"], ["shallow"],
                                                       (1, None, 1))})],
    "missing aspects, fenced": [train_answer({CO: dim(["center"], ["center"], ["center"])},
                                             fence=True, fill=False)],
    "no by_dim, then good": ['{"verdict": "all matched"}',
                             train_answer({SO: dim(["profile"], ["profile"], ["profile"])})],
}


def test_released_counting_gives_the_released_training_reward(openai_server, released_judge):
    judge = released_judge("training-6", max_retries=3)  # the plugin tries 4 times
    judged = _judge_clips(openai_server, judge, {k: (v, True) for k, v in TRAIN_CLIPS.items()},
                          aspects=tx.TRAINING_ASPECTS)
    cfg = RewardConfig(coverage="under")  # the released script's one-sided coverage
    for name, attempts in TRAIN_CLIPS.items():
        j, _ = judged[name]
        assert not j.failed, (name, j.error)
        assert reward(j, cfg).total == pytest.approx(release_training_reward(attempts),
                                                     abs=1e-12), name
    assert judged["no by_dim, then good"][1] == 2
    req = openai_server.chat_requests[-1]
    assert "response_format" not in req and req["messages"][0]["role"] == "user"
    assert "exactly these 6 aspects" in req["messages"][0]["content"]


def test_a_training_answer_that_never_parses_fails_where_the_release_rewards_zero(
        openai_server, released_judge):
    judge = released_judge("training-6", max_retries=3)
    judged = _judge_clips(openai_server, judge, {"never": (["not json"] * 4, False)},
                          aspects=tx.TRAINING_ASPECTS)
    j, requests = judged["never"]
    assert release_training_reward(["not json"] * 4) == 0.0  # the release: 0, and cached
    assert j.failed and requests == 4  # here: no reward at all (docs/protocol.md)
    with pytest.raises(JudgeError):
        reward(j)


def test_lists_counting_fails_the_inconsistent_training_answers(openai_server, released_judge):
    judged = _judge_clips(openai_server, released_judge("training-6", counting="lists"),
                          {k: (v, True) for k, v in TRAIN_CLIPS.items()},
                          aspects=tx.TRAINING_ASPECTS)
    ok = {name for name, (j, _) in judged.items() if not j.failed}
    assert ok == {"consistent"}


# --------------------------------------------------------------------------- the prompts
def test_the_released_prompts_ask_their_own_aspects_in_text_mode(openai_server, released_judge):
    openai_server.default = lambda req: chat_reply(GOOD)
    j = released_judge("benchmark-7").judge('GT says "pan"', "A pans.", tx.TRAINING_ASPECTS)
    assert not j.failed and j.aspects == tx.TRAINING_ASPECTS
    (req,) = openai_server.chat_requests
    text = req["messages"][0]["content"]
    assert "response_format" not in req and len(req["messages"]) == 1
    assert '- GT: "GT says "pan""' in text and '- A: "A pans."' in text  # set in quotes, as released
    assert "<think>" in text and "comprehensiveness_score" in text
    for a in llm_prompt.BENCHMARK_7_ASPECTS:
        assert f'"{a}"' in text
    with pytest.raises(InputError, match="training-6 judge prompt judges .* cannot judge "
                                         "Special Shots"):
        released_judge("training-6").judge("a", "b")


def test_json_schema_with_the_benchmark_prompt_asks_for_its_scores_too(openai_server,
                                                                      released_judge):
    body = re.search(r"\{.*\}", GOOD, re.S).group(0)  # the JSON alone: no room to think
    openai_server.default = lambda req: chat_reply(body)
    j = released_judge("benchmark-7", response_format="json_schema").judge("a", "b")
    schema = openai_server.chat_requests[0]["response_format"]["json_schema"]["schema"]
    assert "accuracy_score" in schema["required"] and "by_dim" in schema["required"]
    assert not j.failed and j.reported["comprehensiveness"] == pytest.approx(2 / 3)


# ---------------------------------------------------------------------------- the names
def test_protocol_names_presets_and_differences():
    assert protocol("released-benchmark") == JudgeProtocol("benchmark-7", "released", "raw")
    assert protocol("training-6/lists") == PRESETS["hardened-training"]
    assert protocol(None) == PRESETS["app"] and PRESETS["app"].preset() == "app"
    assert protocol({"prompt": "cinecap", "counting": "released"}).name == \
        "cinecap/released/answer"
    with pytest.raises(InputError, match="known: released-benchmark"):
        protocol("benchmark-8")
    with pytest.raises(InputError, match="judge counting must be one of released, lists"):
        protocol("benchmark-7/loose")
    with pytest.raises(InputError, match="judge judged_text must be one of answer, raw"):
        protocol("training-6/lists/think")
    a = {k: "x" for k in PROTOCOL_KEYS}
    assert differences(a, dict(a)) == []
    assert differences(a, {**a, "counting": "y", "extra": "z"}) == ["counting", "extra"]


def test_aerial_is_a_high_angle_as_the_released_judges_example_has_it():
    """The benchmark judge's rule 2 example: "very high / from above / drone perspective" is one
    claim, "high angle / drone perspective"; the vocabulary follows it."""
    assert tx.normalize(tx.CAMERA_ANGLE, "aerial").canonical == "high angle"
    assert tx.normalize(tx.CAMERA_ANGLE, "top-down").canonical == "overhead"
    assert "drone perspective\" -> one claim: \"high angle / drone perspective\"" in \
        llm_prompt.benchmark_7_text("g", "p")


def test_the_cli_asks_the_training_prompt_its_six_aspects(openai_server, tmp_path):
    from tests.support.cli import cli

    openai_server.default = lambda req: chat_reply(train_answer(
        {CM: dim(["pans right"], ["pans right"], ["pans right"])}, totals=False))
    d = cli("judge", "--gt", "The camera pans right.", "--pred", "It pans right.", "--judge",
            "llm", "--json", "--judge-option", f"base_url={openai_server.base_url}",
            "--judge-option", "model=m", "--judge-option", "cache=off", "--judge-option",
            "prompt=training-6", unset=("CINECAP_JUDGE_PROMPT", "CINECAP_JUDGE_COUNTING")).json()
    assert list(d["by_dim"]) == list(llm_prompt.TRAINING_6_ASPECTS) and d["f1"] == 1.0
    assert d["judge_version"] == "training-6-v1"
    bench = tmp_path / "b.json"
    bench.write_text(json.dumps([{"video_path": "missing.mp4", "gt_caption": "A close-up."}]))
    refused = cli("bench", str(bench), "--judge", "llm", "--protocol", "released-training",
                  "--judge-option", f"base_url={openai_server.base_url}", "--judge-option",
                  "model=m", "--out", str(tmp_path / "r.json"))
    # Seven aspects asked of the six-aspect prompt: refused before any clip is captioned.
    assert refused.returncode == 2 and "cannot judge Special Shots" in refused.stderr
