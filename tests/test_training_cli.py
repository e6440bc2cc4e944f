"""`cinecap train`: errors as one line and an exit code, the ms-swift export in the formats of
ms-swift's documentation (its reward plugin loaded through the documented `swift.rewards`
interface), and the accelerate launch configs."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

from cinecap import taxonomy as tx
from cinecap.cli import main
from cinecap.judge import get_judge
from cinecap.reward import RewardConfig, reward
from cinecap.statements import parse_output
from cinecap.training.version import MARKER
from tests.support.training import gold_pairs

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def gold(tmp_path_factory) -> Path:
    return gold_pairs(tmp_path_factory.mktemp("gold"))


def _train(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["train", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_missing_base_is_a_one_line_usage_error(capsys, gold, tmp_path):
    code, out, err = _train(capsys, "sft", "--data", str(gold), "--out", str(tmp_path / "v"))
    assert code == 2 and out == ""
    assert err.strip() == "error: training needs --base (or 'base' in --config)"


@pytest.mark.parametrize("extra, says", [
    (["--judge", "rule"], "unknown judge 'rule'. Did you mean 'rules'?"),
    (["--judge-protocol", "training-6"], "unknown judge protocol 'training-6'; known: "
                                         "released-benchmark"),
    (["--top-p", "2"], "0 < top_p <= 1"),
])
def test_bad_grpo_settings_fail_before_any_model_loads(capsys, gold, tmp_path, extra, says):
    code, out, err = _train(capsys, "grpo", "--base", str(tmp_path / "no-such-model"), "--data",
                            str(gold), "--out", str(tmp_path / "v"), *extra)
    assert code == 2 and says in err and err.count("\n") == 1
    assert not (tmp_path / "v").exists()


def test_a_complete_version_is_never_overwritten_and_resume_needs_a_run(capsys, gold, tmp_path):
    done = tmp_path / "done"
    done.mkdir()
    (done / MARKER).write_text("{}")
    code, _, err = _train(capsys, "sft", "--base", "owner/model", "--data", str(gold),
                          "--out", str(done))
    assert code == 2 and "already holds a complete model version" in err
    code, _, err = _train(capsys, "sft", "--base", "owner/model", "--data", str(gold),
                          "--out", str(tmp_path / "fresh"), "--resume")
    assert code == 2 and "nothing to resume" in err


def test_config_file_settings_are_checked(capsys, gold, tmp_path):
    cfg = tmp_path / "sft.json"
    cfg.write_text(json.dumps({"base": "x", "data": str(gold), "out": str(tmp_path / "v"),
                               "epoch": 3}))
    code, _, err = _train(capsys, "sft", "--config", str(cfg))
    assert code == 2 and "unknown sft setting(s): 'epoch' (did you mean 'epochs'?)" in err


# --- ms-swift export --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def export(gold, tmp_path_factory):
    out = tmp_path_factory.mktemp("swift") / "export"
    code = main(["train", "export-swift", "--base", "Qwen/Qwen3-VL-8B-Instruct", "--data",
                 str(gold), "--out", str(out), "--finetune", "full", "--anchors", "off",
                 "--max-new-tokens", "9216", "--judge-option", "api_key=sk-secret",
                 "--eval-fraction", "0"])
    assert code == 0
    return out


def _rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_sft_export_is_ms_swift_multimodal_messages(export, gold):
    rows = _rows(export / "sft.jsonl")
    assert len(rows) == 3
    for r in rows:
        assert set(r) == {"messages", "videos"}
        assert [m["role"] for m in r["messages"]] == ["system", "user", "assistant"]
        user = r["messages"][1]["content"]
        # One <video> tag in the text for each entry of "videos", absolute paths that exist.
        assert user.startswith("<video>") and user.count("<video>") == len(r["videos"]) == 1
        assert Path(r["videos"][0]).is_absolute() and Path(r["videos"][0]).is_file()
        assert "Cinematic aspects include" in user
        assert parse_output(r["messages"][2]["content"]).warnings == []
    assert "<think>" in rows[0]["messages"][2]["content"]


def test_grpo_export_has_prompts_and_the_solution_column(export, gold):
    rows = _rows(export / "grpo.jsonl")
    captions = [json.loads(x)["gt_caption"] for x in gold.read_text().splitlines()]
    assert [r["solution"] for r in rows] == captions
    for r in rows:
        assert [m["role"] for m in r["messages"]] == ["system", "user"]
        assert r["messages"][1]["content"].count("<video>") == len(r["videos"]) == 1


def test_commands_carry_the_settings_and_parse_as_bash(export):
    grpo = (export / "run_grpo.sh").read_text()
    for piece in ("swift rlhf", "--rlhf_type grpo", "--external_plugins cinecap_reward_plugin.py",
                  "--reward_funcs cinecap_reward", "--num_generations 8", "--beta 0.04",
                  "--temperature 1", "--top_p 0.99", "--top_k 50", "--learning_rate 1e-05",
                  "--max_completion_length 9216", "--tuner_type full", "--freeze_vit true",
                  "--deepspeed zero3", '"fps_max_frames": 80'):
        assert piece in grpo, piece
    sft = (export / "run_sft.sh").read_text()
    for piece in ("swift sft", "--dataset sft.jsonl", "--learning_rate 2e-05",
                  "--num_train_epochs 2", "--deepspeed zero2", '"video_max_token_num": 256'):
        assert piece in sft, piece
    for script in ("run_sft.sh", "run_grpo.sh"):
        assert subprocess.run(["bash", "-n", str(export / script)]).returncode == 0
    settings = json.loads((export / "cinecap_reward.json").read_text())
    assert settings["judge_options"] == {}  # the key stays in the environment, not on disk
    info = json.loads((export / "export.json").read_text())
    assert info["grpo_rows"] == 3 and info["data"]["split"]["unit"] == "clip"


@pytest.fixture
def fake_swift(monkeypatch):
    """ms-swift's documented plugin interface: `from swift.rewards import ORM, orms`
    (ms-swift's documentation: source_en/Instruction/GRPO/DeveloperGuide/reward_function.md). ms-swift itself cannot be
    installed next to this project's pins."""
    class ORM:
        def __call__(self, completions, **kwargs):
            raise NotImplementedError

    rewards = types.ModuleType("swift.rewards")
    rewards.ORM, rewards.orms = ORM, {}
    swift = types.ModuleType("swift")
    swift.rewards = rewards
    monkeypatch.setitem(sys.modules, "swift", swift)
    monkeypatch.setitem(sys.modules, "swift.rewards", rewards)
    return rewards


def test_the_reward_plugin_registers_and_scores_like_cinecap_reward(export, fake_swift):
    spec = importlib.util.spec_from_file_location("cinecap_reward_plugin",
                                                  export / "cinecap_reward_plugin.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    reward_cls = fake_swift.orms["cinecap_reward"]
    assert issubclass(reward_cls, fake_swift.ORM)
    gt = "The camera pans left. The subject has their back to the camera."
    completions = ["<think>\nThe camera pans left.\n</think>\n<answer>\nThe camera pans left.\n</answer>",
                   "The subject has their back to the camera; the camera pans left.", ""]
    got = reward_cls()(completions, solution=[gt] * 3, trainer_state=None)
    judge = get_judge("rules")
    expected = [reward(judge.judge(gt, parse_output(c).caption, tx.TRAINING_ASPECTS),
                       RewardConfig()).total for c in completions]
    assert got == expected and got[1] > got[0] > got[2] == 0.0


def test_export_refuses_a_non_empty_directory(capsys, gold, tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "keep.txt").write_text("mine")
    code, _, err = _train(capsys, "export-swift", "--base", "m", "--data", str(gold), "--out",
                          str(tmp_path / "x"))
    assert code == 2 and "must be a new or empty directory" in err


# --- accelerate configs -------------------------------------------------------------------------

@pytest.mark.parametrize("name, kind, processes, stage", [
    ("ddp.yaml", "MULTI_GPU", 8, None), ("zero2.yaml", "DEEPSPEED", 8, 2),
    ("zero3.yaml", "DEEPSPEED", 8, 3), ("zero2_offload_1gpu.yaml", "DEEPSPEED", 1, 2),
    ("zero3_offload_1gpu.yaml", "DEEPSPEED", 1, 3)])
def test_accelerate_configs_load_and_say_what_they_do(name, kind, processes, stage):
    from accelerate.commands.config.config_args import ClusterConfig
    from accelerate.commands.launch import launch_command_parser

    cfg = ClusterConfig.from_yaml_file(ROOT / "configs" / "accelerate" / name)
    assert str(cfg.distributed_type).endswith(kind) and cfg.num_processes == processes
    if stage is not None:
        assert cfg.deepspeed_config["zero_stage"] == stage
        launch_options = {a.dest for a in launch_command_parser()._actions}
        assert set(cfg.deepspeed_config) <= launch_options  # each key is an accelerate launch option


def test_adapter_directories_resolve_to_their_base(tmp_path):
    from cinecap.captioners.vlm import adapter_chain
    from cinecap.errors import InputError

    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "config.json").write_text("{}")
    assert adapter_chain(str(plain)) == (str(plain), [])
    assert adapter_chain("owner/model") == ("owner/model", [])
    loop = tmp_path / "loop"
    loop.mkdir()
    (loop / "adapter_config.json").write_text(json.dumps({"base_model_name_or_path": str(loop)}))
    with pytest.raises(InputError, match="names itself as its base"):
        adapter_chain(str(loop))
    (loop / "adapter_config.json").write_text("{}")
    with pytest.raises(InputError, match="names no base model"):
        adapter_chain(str(loop))


def test_export_takes_the_sft_stage_settings_from_its_own_file(gold, tmp_path):
    sft = tmp_path / "sft.json"
    sft.write_text(json.dumps({"finetune": "full", "freeze_vision": False,
                               "per_device_batch_size": 2, "gradient_accumulation_steps": 2}))
    assert main(["train", "export-swift", "--base", "m", "--data", str(gold), "--out",
                 str(tmp_path / "x"), "--sft-config", str(sft), "--anchors", "off",
                 "--cot", "direct"]) == 0
    cmd = (tmp_path / "x" / "run_sft.sh").read_text()
    assert "--per_device_train_batch_size 2" in cmd and "--gradient_accumulation_steps 2" in cmd
    assert "--freeze_vit false" in cmd and "--vit_lr 1e-6" in cmd and "--tuner_type full" in cmd
    rows = _rows(tmp_path / "x" / "sft.jsonl")
    assert all("<think>" not in r["messages"][2]["content"] for r in rows)  # the direct variant
