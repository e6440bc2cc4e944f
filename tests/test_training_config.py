"""Training configs: one dataclass per stage is the source of the flags, the form and the saved
config; values resolve defaults < environment < --config file < flags."""
from __future__ import annotations

import argparse
import dataclasses
import json

import pytest

from cinecap.errors import InputError
from cinecap.training import config as tc

REQUIRED = {"base": "m", "data": "d.jsonl", "out": "o"}


@pytest.mark.parametrize("cls", [tc.SFTConfig, tc.GRPOConfig])
def test_every_field_has_help_and_a_flag(cls):
    parser = argparse.ArgumentParser()
    tc.add_arguments(parser, cls)
    flags = {s for a in parser._actions for s in a.option_strings}
    for f in dataclasses.fields(cls):
        assert f.metadata.get("help"), f"{cls.__name__}.{f.name} has no help"
        expected = "--judge-option" if f.name == "judge_options" else tc.flag(f.name)
        assert expected in flags, f"{f.name} has no flag"
    described = {d["name"]: d for d in tc.describe(cls)}
    assert set(described) == {f.name for f in dataclasses.fields(cls)}
    assert tuple(described["finetune"]["choices"]) == ("lora", "full")


def test_paper_defaults():
    sft, grpo = tc.SFTConfig(**REQUIRED), tc.GRPOConfig(**REQUIRED)
    assert (sft.epochs, sft.warmup_ratio, sft.fps, sft.max_frames) == (2.0, 0.05, 2.0, 80)
    assert (sft.min_tokens_per_frame, sft.max_tokens_per_frame) == (64, 256)
    assert (grpo.num_generations, grpo.beta, grpo.temperature, grpo.top_p, grpo.top_k) == \
        (8, 0.04, 1.0, 0.99, 50)
    assert (grpo.tau, grpo.w_cmp, grpo.w_acc, grpo.w_cov) == (0.75, 0.5, 0.5, 0.1)
    assert grpo.freeze_vision and grpo.judge is None  # the training judge, or rules standing in
    assert grpo.judge_protocol == "hardened-training"
    # Learning rates: the paper's for full fine-tuning, ten times that with LoRA; saved resolved.
    assert tc.SFTConfig(**REQUIRED, finetune="full").lr == 2e-5
    assert tc.GRPOConfig(**REQUIRED, finetune="full").lr == 1e-5
    assert grpo.lr == 1e-4 and grpo.resolved().to_dict()["learning_rate"] == 1e-4


def test_precedence_defaults_env_file_flags(tmp_path):
    parser = argparse.ArgumentParser()
    tc.add_arguments(parser, tc.GRPOConfig)
    cfg_file = tmp_path / "grpo.json"
    cfg_file.write_text(json.dumps({**REQUIRED, "top_k": 20, "beta": 0.1, "judge_options": {"a": "1"}}))
    env = {"CINECAP_TRAIN_TOP_K": "10", "CINECAP_TRAIN_BETA": "0.5", "CINECAP_TRAIN_EPSILON": "0.3",
           "CINECAP_TRAIN_FREEZE_VISION": "false"}
    args = parser.parse_args(["--beta", "0.2", "--judge-option", "b=2", "--lora-target-modules",
                              "q_proj,k_proj"])
    cfg = tc.from_args(tc.GRPOConfig, args, str(cfg_file), environ=env)
    assert cfg.epsilon == 0.3  # environment over the default
    assert cfg.top_k == 20  # file over the environment
    assert cfg.beta == 0.2  # flag over the file
    assert cfg.judge_options == {"a": "1", "b": "2"}
    assert cfg.lora_target_modules == ("q_proj", "k_proj")
    assert cfg.freeze_vision is False
    assert cfg.top_p == 0.99  # untouched: the default


def test_a_saved_config_round_trips():
    cfg = tc.GRPOConfig(**REQUIRED, judge_options={"model": "m"}, learning_rate=3e-5).resolved()
    again = tc.GRPOConfig.from_dict(json.loads(json.dumps(cfg.to_dict())))
    assert again == cfg


@pytest.mark.parametrize("values, says", [
    ({"learnig_rate": 1e-5}, "did you mean 'learning_rate'"),
    ({"finetune": "qlora"}, "finetune must be one of lora, full"),
    ({"top_p": 1.5}, "0 < top_p <= 1"),
    ({"num_generations": 1}, "at least 2"),
    ({"tau": 1.5}, "accuracy threshold"),
    ({"max_steps": 0}, "max_steps must be -1"),
    ({"lora_r": "many"}, "lora_r must be int"),
    ({"min_frames": 10, "max_frames": 4}, "min_frames <= max_frames"),
    ({"stage": "sft"}, "this is a 'sft' config"),
])
def test_bad_settings_are_input_errors(values, says):
    with pytest.raises(InputError, match=says):
        tc.GRPOConfig.from_dict({**REQUIRED, **values})


def test_missing_base_says_which_flag():
    with pytest.raises(InputError, match="training needs --base"):
        tc.SFTConfig(data="d", out="o")


def test_config_file_errors(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        tc.read_config_file(tmp_path / "nope.json")
    (tmp_path / "list.json").write_text("[1]")
    with pytest.raises(InputError, match="JSON object"):
        tc.read_config_file(tmp_path / "list.json")
