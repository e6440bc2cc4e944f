"""GRPO on video with the tiny offline Qwen3-VL and real clips: the mean reward rises on a learnable
toy objective, the video reaches the training forward pass, the logged reward equals
cinecap.reward, failed judgements are dropped and counted, a resumed run continues exactly, a
killed run leaves no complete version, DDP runs on two processes, and the versions caption."""
from __future__ import annotations

import functools
import io
import json
import os
import signal
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from cinecap import taxonomy as tx
from cinecap.judge import get_judge
from cinecap.reward import RewardConfig, reward
from cinecap.training.config import GRPOConfig, SFTConfig
from cinecap.training.grpo import GRPORun, prompt_order
from cinecap.training.sft import SFTRun
from cinecap.training.version import is_complete
from tests.support.openai_server import OpenAIServer, chat_reply
from tests.support.tiny_models import tiny_checkpoint
from tests.support.training import (SHORT, SMALL_VIDEO, VideoFeatures,  # noqa: F401
                                    VisionCalls, gold_pairs, one_thread, small_config,
                                    toy_judge_reply, toy_pairs)

ROOT = Path(__file__).resolve().parent.parent
_cfg = functools.partial(small_config, GRPOConfig)
pytestmark = pytest.mark.filterwarnings("ignore:.*is deprecated.*activation_checkpointing:FutureWarning")


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> Path:
    return toy_pairs(tmp_path_factory.mktemp("toy"))


@pytest.fixture(scope="module")
def toy_judge():
    """The toy objective's judge: a real OpenAI-compatible server answering the training judge's
    prompt (tests/support/training.py), reached by the llm judge as a user's endpoint would be."""
    with OpenAIServer(default=toy_judge_reply) as srv:
        yield {"base_url": srv.base_url, "model": "toy-judge", "cache": "off",
               "max_retries": "0"}


@pytest.fixture(scope="module")
def toy_run(toy, toy_judge, tmp_path_factory):
    """20 steps of full fine-tuning on the toy objective (two clips per step, G = 8), rewarded
    by the training judge (training-6 prompt, lists counting) over HTTP."""
    out = tmp_path_factory.mktemp("grpo") / "toy"
    events: list[dict] = []
    run = GRPORun(_cfg(toy, out, finetune="full", learning_rate=5e-3, max_steps=20,
                       max_new_tokens=32, prompts_per_step=2, seed=1, save_steps=1000,
                       gradient_checkpointing=False, judge="llm", judge_options=toy_judge),
                  events=events.append).prepare()
    hook, features = VisionCalls(run.model), VideoFeatures(run.model)
    path = run.run()
    steps = [e for e in events if e["event"] == "step"]
    return {"run": run, "events": events, "steps": steps, "hook": hook, "features": features,
            "path": path}


@pytest.mark.slow
def test_mean_reward_rises_on_a_learnable_toy_objective(toy_run):
    rewards = [e["reward"] for e in toy_run["steps"]]
    assert len(rewards) == 20
    first, last = sum(rewards[:6]) / 6, sum(rewards[-6:]) / 6
    assert last > first + 0.25, rewards
    assert toy_run["steps"][-1]["kl"] > 0  # the policy moved away from the reference
    metrics = json.loads((toy_run["path"] / "metrics.json").read_text())
    assert metrics["reward_last_quarter"] > metrics["reward_first_quarter"]


@pytest.mark.slow
def test_the_video_reaches_the_grpo_training_forward_pass(toy_run):
    # The vision tower is frozen: it encoded each group's clip once, without gradients ...
    encoded = toy_run["hook"].calls
    assert len(encoded) == 20 * 2 and not [c for c in encoded if c["grad"]]
    for c in encoded:
        assert c["videos"] == 1 and c["rows"] == c["patches"] > 0 and c["std"] > 0
    clips = {round(c["features"], 3) for c in encoded}
    assert len(clips) == 2  # the two clips' features, the same at every step
    tokens = {c["patches"] // 4 for c in encoded}  # 2x2 spatial merge
    # ... and those features filled the video positions of every forward pass with gradients.
    trained = [c for c in toy_run["features"].calls if c["grad"]]
    assert trained, "no forward pass with gradients saw the video"
    for c in trained:
        assert c["visual"] in {c["rows"] * t for t in tokens} and c["visual"] > 0
        assert {round(s, 3) for s in c["sums"]} <= clips and len(set(c["sums"])) == 1
    # Each kept completion was trained with its clip's video: 20 steps × 2 clips × G = 8.
    assert sum(c["rows"] for c in trained) == 20 * 2 * 8
    sampled = [c for c in toy_run["features"].calls if not c["grad"] and c["rows"] == 8
               and c["visual"]]
    assert len(sampled) >= 40  # generation saw it too


@pytest.mark.slow
def test_logged_reward_components_equal_cinecap_reward(toy_run, toy, toy_judge):
    rows = [json.loads(x) for x in (toy_run["path"] / "completions.jsonl").read_text().splitlines()]
    assert len(rows) == 20 * 16
    from cinecap.judge.protocol import protocol

    judge = get_judge("llm", **protocol("hardened-training").to_dict(), **toy_judge)
    cfg = RewardConfig()
    gt = json.loads(toy.read_text().splitlines()[0])["gt_caption"]
    for r in rows[::7] + rows[-16:]:
        expected = reward(judge.judge(gt, r["caption"], tx.TRAINING_ASPECTS), cfg)
        assert r["breakdown"] == expected.to_dict() and r["reward"] == expected.total
    for e in toy_run["steps"][::5]:
        mine = [r for r in rows if r["step"] == e["step"]]
        n = len(mine)
        assert e["reward"] == pytest.approx(sum(r["reward"] for r in mine) / n)
        for key, part in (("reward/s_cmp", "s_cmp"), ("reward/s_acc", "s_acc"),
                          ("reward/coverage", "r_cov")):
            assert e[key] == pytest.approx(sum(r["breakdown"][part] for r in mine) / n)
        assert e["judge/failed"] == 0 and e["judge/scored"] == n == 16
        assert 0 < e["completion_length"] <= 32


@pytest.mark.slow
def test_the_grpo_version_captions_in_the_vlm_captioner(toy_run, carphone):
    from cinecap.cli import main

    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["caption", str(carphone), "--captioner", "vlm", "--model",
                     str(toy_run["path"]), *SHORT, "--json"]) == 0
    result = json.loads(buf.getvalue())
    assert result["meta"]["model"] == str(toy_run["path"]) and result["meta"]["generated_tokens"] > 0
    run_cfg = json.loads((toy_run["path"] / "run_config.json").read_text())
    assert run_cfg["reward"]["judge"] == "llm" and run_cfg["reward"]["aspects"] == list(tx.TRAINING_ASPECTS)
    assert run_cfg["reward"]["judge_protocol"] == "hardened-training"  # the GRPO default


def test_one_encoding_of_the_clip_per_group_is_the_plain_path_exactly(toy, tmp_path):
    """While the vision tower is frozen a group's clip is encoded once and that output replaces
    the pixels in its G samples and every forward pass: the same samples from the same seed, the
    same log-probabilities of the policy and the reference, the same gradients as encoding the
    video in each pass. Where the vision tower trains, every pass still gets the pixels."""
    import torch

    from cinecap.training import modeling
    from cinecap.training.grpo import completion_logps

    run = GRPORun(_cfg(toy, tmp_path / "frozen", finetune="full", max_new_tokens=6,
                       num_generations=3, seed=2)).prepare()
    assert run.share_video and run.ref_model is not None
    hook = VisionCalls(run.model)
    inputs = run._prompt_inputs(run.prompts[0])
    video = run._encode(inputs)
    torch.manual_seed(0)
    ids = run._generate(inputs)
    torch.manual_seed(0)
    assert torch.equal(run._generate(inputs, video), ids)
    assert [c["videos"] for c in hook.calls] == [1, 3]  # the one encoding; the plain batch of G

    def batch(v):
        both = modeling.append_completion(modeling.repeat_inputs(inputs, 3, v), ids)
        assert ("pixel_values_videos" in both) == (v is None)
        return run._to_device(both)

    n = ids.shape[1]
    with torch.no_grad():
        ref = [completion_logps(run.ref_model, batch(v), n, 1.0) for v in (None, video)]
    torch.testing.assert_close(ref[1], ref[0], rtol=1e-5, atol=1e-5)
    params = [p for p in run.unwrapped.parameters() if p.requires_grad]
    logps, grads = [], []
    for v in (None, video):
        lp = completion_logps(run.model, batch(v), n, 1.0)
        lp.sum().backward()
        logps.append(lp.detach())
        grads.append([p.grad.clone() for p in params])
        run.optimizer.zero_grad(set_to_none=True)
    torch.testing.assert_close(logps[1], logps[0], rtol=1e-5, atol=1e-5)
    for a, b in zip(*grads):
        torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-5)
    # The policy's tower (the reference is a copy of its own) ran in the plain passes only:
    # the one encoding, the plain sampling, the plain forward pass; the shared ones read it.
    assert [(c["videos"], c["grad"]) for c in hook.calls] == [(1, False), (3, False), (3, True)]

    trains = GRPORun(_cfg(toy, tmp_path / "trains", freeze_vision=False, max_new_tokens=2,
                          num_generations=2)).prepare()
    group = trains._make_group(trains.prompts[0])
    assert not trains.share_video and group.video is None
    assert "pixel_values_videos" in trains._batch(group, [0, 1])


def test_data_order_is_a_function_of_seed_and_step():
    one = [prompt_order(5, s, 2, 1, 0, seed=3) for s in range(10)]
    assert one == [prompt_order(5, s, 2, 1, 0, seed=3) for s in range(10)]
    flat = [i for step in one for i in step]
    assert sorted(flat[:5]) == list(range(5)) and sorted(flat[5:10]) == list(range(5))  # epochs
    # Two processes split each step's prompts without overlap.
    r0, r1 = prompt_order(6, 0, 2, 2, 0, seed=3), prompt_order(6, 0, 2, 2, 1, seed=3)
    assert not set(r0) & set(r1)


class Stop(Exception):
    pass


@pytest.mark.slow
def test_a_resumed_run_continues_from_its_checkpoint(toy, tmp_path):
    common = dict(max_steps=4, save_steps=2, max_new_tokens=8, num_generations=4,
                  learning_rate=5e-2, seed=5)
    GRPORun(_cfg(toy, tmp_path / "a", **common)).prepare().run()

    def die_at_3(e):
        if e["event"] == "step" and e["step"] == 3:
            raise Stop

    with pytest.raises(Stop):
        GRPORun(_cfg(toy, tmp_path / "b", **common), events=die_at_3).prepare().run()
    b = tmp_path / "b"
    assert not is_complete(b) and not (b / "adapter_config.json").exists()
    assert sorted(p.name for p in (b / "checkpoints").iterdir()) == ["step-000002"]

    resumed: list[dict] = []
    GRPORun(_cfg(toy, b, **common), events=resumed.append, resume=True).prepare().run()
    assert resumed[0]["event"] == "start" and resumed[0]["step"] == 2
    assert [e["step"] for e in resumed if e["event"] == "step"] == [3, 4]

    def by_step(path):
        out: dict[int, list] = {}
        for x in (path / "completions.jsonl").read_text().splitlines():
            r = json.loads(x)
            out.setdefault(r["step"], []).append((r["pair"], r["completion"], r["reward"]))
        return {s: v[-4:] for s, v in out.items()}  # a step redone after the kill counts once

    assert by_step(b) == by_step(tmp_path / "a")  # same prompts, same samples, same rewards
    import torch
    from safetensors.torch import load_file

    wa = load_file(str(tmp_path / "a" / "adapter_model.safetensors"))
    wb = load_file(str(b / "adapter_model.safetensors"))
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    assert json.loads((b / "metrics.json").read_text())["steps"] == 4


@pytest.mark.slow
def test_a_killed_run_leaves_no_complete_version_and_resumes(toy, tmp_path):
    out = tmp_path / "killed"
    argv = [sys.executable, "-m", "cinecap", "train", "grpo", "--base", str(tiny_checkpoint()),
            "--data", str(toy), "--out", str(out), "--max-steps", "200", "--save-steps", "1",
            "--max-new-tokens", "4", "--num-generations", "2", "--eval-fraction", "0",
            "--warmup-ratio", "0", "--min-tokens-per-frame", "4", "--max-tokens-per-frame", "16",
            "--decode-max-side", "160"]
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        seen = []
        for line in proc.stdout:
            seen.append(json.loads(line))
            if seen[-1]["event"] == "checkpoint":
                break
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=60)
        proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    assert [e["event"] for e in seen][:2] == ["start", "step"]
    assert not is_complete(out) and not (out / "metrics.json").exists()
    assert not (out / "adapter_config.json").exists()
    assert "done" not in (out / "events.jsonl").read_text()
    done = [int(p.name.split("-")[1]) for p in (out / "checkpoints").iterdir()
            if not p.name.endswith(".tmp")]
    assert max(done) >= 1

    resumed: list[dict] = []
    cfg = _cfg(toy, out, max_steps=max(done) + 1, save_steps=1, max_new_tokens=4,
               num_generations=2, gradient_checkpointing=True)  # the command line's default
    GRPORun(cfg, events=resumed.append, resume=True).prepare().run()
    assert resumed[0]["step"] == max(done)
    assert is_complete(out)
    assert json.loads((out / "metrics.json").read_text())["steps"] == max(done) + 1


@pytest.mark.slow
def test_failed_judgements_are_dropped_and_counted(toy, tmp_path):
    count = {"n": 0}

    def every_third_fails(req):
        count["n"] += 1
        if count["n"] % 3 == 0:
            return chat_reply("the judge is confused {")
        dims = {a: {"gt_statements": ["back"] if a == tx.SUBJECT_ORIENTATION else [],
                    "pred_statements": [], "matched_statements": [], "gt_count": 0,
                    "pred_count": 0, "matched_count": 0} for a in tx.TRAINING_ASPECTS}
        dims[tx.SUBJECT_ORIENTATION]["gt_count"] = 1
        return chat_reply(json.dumps({"by_dim": dims}))

    with OpenAIServer(default=every_third_fails) as srv:
        cfg = _cfg(toy, tmp_path / "llm", max_steps=2, max_new_tokens=4, num_generations=6,
                   judge="llm", judge_options={"base_url": srv.base_url, "model": "judge",
                                               "cache": "off", "max_retries": "0"})
        events: list[dict] = []
        path = GRPORun(cfg, events=events.append).prepare().run()
    steps = [e for e in events if e["event"] == "step"]
    failed = sum(e["judge/failed"] for e in steps)
    assert failed == 12 // 3 and sum(e["judge/scored"] for e in steps) == 12 - failed
    rows = [json.loads(x) for x in (path / "completions.jsonl").read_text().splitlines()]
    dropped = [r for r in rows if r["reward"] is None]
    assert len(dropped) == failed and all("JSON" in r["error"] for r in dropped)
    assert all(r["reward"] == 0.0 for r in rows if r["reward"] is not None)
    assert json.loads((path / "metrics.json").read_text())["judge_failed"] == failed


@pytest.mark.slow
def test_from_gold_pairs_sft_then_grpo_to_a_version_that_captions(tmp_path, carphone):
    """SFT (LoRA) on gold pairs, GRPO (LoRA) on that version, and the GRPO version loads its
    base and both adapters in the vlm captioner. The reference of the GRPO stage is the SFT
    model, so the KL starts at exactly 0."""
    from cinecap.captioners.vlm import adapter_chain
    from cinecap.cli import main

    gold = gold_pairs(tmp_path / "gold")
    sft = SFTRun(SFTConfig(base=str(tiny_checkpoint()), data=str(gold), out=str(tmp_path / "sft"),
                           max_steps=2, eval_fraction=0.0, anchors="off", learning_rate=2e-2,
                           **SMALL_VIDEO)).prepare().run()
    events: list[dict] = []
    grpo = GRPORun(_cfg(gold, tmp_path / "grpo", base=str(sft), max_steps=2, max_new_tokens=4,
                        num_generations=2), events=events.append).prepare().run()
    assert events[1]["event"] == "step" and events[1]["kl"] == 0.0
    base, adapters = adapter_chain(str(grpo))
    assert Path(base) == Path(tiny_checkpoint()).resolve() and adapters == [str(sft), str(grpo)]
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["caption", str(carphone), "--captioner", "vlm", "--model", str(grpo), *SHORT,
                     "--json"]) == 0
    assert json.loads(buf.getvalue())["meta"]["model"] == str(grpo)


@pytest.mark.slow
def test_ddp_on_two_processes_splits_the_prompts(toy, tmp_path):
    """The loop under a distributed launcher (torchrun, what `accelerate launch` runs): two CPU
    processes (gloo), each with its own clip per step, one version written by the main one."""
    out = tmp_path / "ddp"
    argv = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "-m",
            "cinecap", "train", "grpo", "--base", str(tiny_checkpoint()), "--data", str(toy),
            "--out", str(out), "--max-steps", "1", "--max-new-tokens", "2", "--num-generations",
            "2", "--eval-fraction", "0", "--device", "cpu", "--min-tokens-per-frame", "4",
            "--max-tokens-per-frame", "16", "--decode-max-side", "160"]
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    events = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
    assert events[0]["processes"] == 2
    steps = [e for e in events if e["event"] == "step"]
    assert [sorted(e["prompts"]) for e in steps] == [[0, 1]]  # one clip per process
    assert steps[0]["judge/scored"] == 4  # both processes' completions, reduced
    assert is_complete(out) and len((out / "completions.jsonl").read_text().splitlines()) == 4
