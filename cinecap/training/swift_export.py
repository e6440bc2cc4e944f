"""Export gold pairs and the CineCap reward for ms-swift, the engine of the released 32-GPU recipe.

ms-swift cannot be installed next to this project's pins (ms-swift 4.6 needs transformers < 5.20,
peft < 0.21 and trl < 1.0), so the paper-scale path runs ms-swift in its own environment on files
written here, in the formats of ms-swift's documentation (``Customization/Custom-dataset.md``,
``Instruction/GRPO/DeveloperGuide/reward_function.md``):

- ``sft.jsonl`` / ``sft_val.jsonl``: ``{"messages": [system, user "<video>…", assistant target],
  "videos": ["/abs/clip.mp4"]}`` (training / held-out clips);
- ``grpo.jsonl``: ``{"messages": [system, user "<video>…"], "videos": [...], "solution": gold}``
  (GRPO passes extra columns such as ``solution`` to the reward functions);
- ``cinecap_reward_plugin.py`` + ``cinecap_reward.json``: an ``--external_plugins`` file that
  registers ``orms["cinecap_reward"]``, scoring with this project's judge and ``cinecap.reward``
  (it imports ``cinecap`` from this source tree; no torch is needed for the rules judge);
- ``run_sft.sh`` / ``run_grpo.sh``: the exact ``swift sft`` / ``swift rlhf`` commands for the
  config's settings, and ``export.json``: the data hash and the split.
"""
from __future__ import annotations

import json
import shlex
from dataclasses import fields
from pathlib import Path
from typing import Any

from cinecap.errors import InputError
from cinecap.training.config import GRPOConfig, SFTConfig
from cinecap.training.data import anchors_evidence, load_dataset, sft_samples
from cinecap.training.version import write_json

PLUGIN_FILE = "cinecap_reward_plugin.py"
SETTINGS_FILE = "cinecap_reward.json"
REWARD_NAME = "cinecap_reward"
#: GRPOConfig fields the reward plugin needs (nothing secret: keys come from the environment).
REWARD_FIELDS = ("judge", "judge_options", "judge_protocol", "judge_concurrency", "reward", "tau",
                 "w_cmp", "w_acc", "w_cov", "coverage", "w_len", "min_answer_tokens",
                 "min_penalty_tokens")
_SECRET_OPTIONS = ("api_key", "key", "token", "password")

_PLUGIN = '''"""CineCap reward for ms-swift GRPO, written by `cinecap train export-swift`.

    swift rlhf --rlhf_type grpo --external_plugins {plugin} --reward_funcs {name} …

Scores each completion's <answer> caption against the `solution` column (the gold caption) with
the judge and reward settings in {settings}. A failed judgement returns None (ms-swift turns it
into NaN and warns; it cannot drop the sample as cinecap's own loop does).
"""
import json
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
CINECAP_SRC = os.environ.get("CINECAP_SRC", {src!r})  # the cinecap source tree (import cinecap)
if CINECAP_SRC and CINECAP_SRC not in sys.path:
    sys.path.insert(0, CINECAP_SRC)

from swift.rewards import ORM, orms  # noqa: E402  (ms-swift >= 4; 3.x: swift.plugin)

from cinecap.training.swift_export import plugin_scorer  # noqa: E402


class CineCapReward(ORM):
    def __init__(self, *args, **kwargs):
        with open(os.path.join(_HERE, {settings!r}), encoding="utf-8") as f:
            self.scorer = plugin_scorer(json.load(f))

    def __call__(self, completions, solution, **kwargs):
        return self.scorer(completions, solution)


orms[{name!r}] = CineCapReward
'''


def plugin_scorer(settings: dict[str, Any]):
    """A ``(completions, solutions) -> rewards`` function from the exported reward settings."""
    from cinecap.training.rewards import JudgeReward

    settings = dict(settings)
    tokenizer = settings.pop("tokenizer", None)
    unknown = set(settings) - set(REWARD_FIELDS)
    if unknown:
        raise InputError(f"unknown reward settings: {', '.join(sorted(unknown))}")
    cfg = GRPOConfig(base="-", data="-", out="-", **settings)
    count = None
    if cfg.reward == "length":
        from transformers import AutoTokenizer

        tok = AutoTokenizer.from_pretrained(tokenizer)
        count = lambda t: len(tok(t, add_special_tokens=False)["input_ids"])  # noqa: E731
    rewarder = JudgeReward(cfg, count_tokens=count)

    def score(completions: list[str], solutions: list[Any]) -> list[float | None]:
        if len(completions) != len(solutions):
            raise InputError(f"{len(completions)} completions for {len(solutions)} solutions")
        pairs = [(_solution_text(s), c) for s, c in zip(solutions, completions)]
        return [s.total for s in rewarder.score_pairs(pairs)]

    score.rewarder = rewarder
    return score


def _solution_text(item: Any) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        for key in ("gt_caption", "caption", "solution", "answer"):
            if isinstance(item.get(key), str):
                return item[key]
    raise InputError(f"the solution column must hold the gold caption as text, got {type(item).__name__}")


def _messages(system: str, user: str, assistant: str | None = None) -> list[dict[str, str]]:
    msgs = [{"role": "system", "content": system}, {"role": "user", "content": "<video>" + user}]
    if assistant is not None:
        msgs.append({"role": "assistant", "content": assistant})
    return msgs


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def _video_kwargs(cfg: GRPOConfig) -> str:
    return json.dumps({"fps": cfg.fps, "fps_min_frames": cfg.min_frames,
                       "fps_max_frames": cfg.max_frames,
                       "video_min_token_num": cfg.min_tokens_per_frame,
                       "video_max_token_num": cfg.max_tokens_per_frame})


def _tuner_args(cfg: GRPOConfig | SFTConfig) -> list[str]:
    if cfg.finetune == "full":
        args = ["--tuner_type", "full"]
    else:
        args = ["--tuner_type", "lora", "--lora_rank", str(cfg.lora_r), "--lora_alpha",
                str(cfg.lora_alpha), "--lora_dropout", str(cfg.lora_dropout),
                "--target_modules", *cfg.lora_target_modules]
    args += ["--freeze_vit", str(cfg.freeze_vision).lower()]
    if cfg.finetune == "full" and not cfg.freeze_vision:
        args += ["--vit_lr", "1e-6", "--aligner_lr", "3e-5"]  # the released SFT's
    return args


def _command(env: dict[str, str], argv: list[str]) -> str:
    lines = [" ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + " \\",
             "  " + " ".join(shlex.quote(a) for a in argv[:2]) + " \\"]
    rest = argv[2:]
    i = 0
    while i < len(rest):
        j = i + 1
        while j < len(rest) and not rest[j].startswith("--"):
            j += 1
        lines.append("    " + " ".join(shlex.quote(a) for a in rest[i:j]) + " \\")
        i = j
    lines[-1] = lines[-1].removesuffix(" \\")
    return "\n".join(lines) + "\n"


def sft_command(cfg: SFTConfig, has_val: bool, gpus: int = 8) -> str:
    argv = ["swift", "sft", "--model", cfg.base, "--dataset", "sft.jsonl"]
    if has_val:
        argv += ["--val_dataset", "sft_val.jsonl"]
    argv += [*_tuner_args(cfg), "--torch_dtype", "bfloat16", "--model_kwargs", _video_kwargs(cfg),
             "--num_train_epochs", f"{cfg.epochs:g}", "--per_device_train_batch_size",
             str(cfg.per_device_batch_size), "--gradient_accumulation_steps",
             str(cfg.gradient_accumulation_steps), "--learning_rate", f"{cfg.lr:g}",
             "--warmup_ratio", f"{cfg.warmup_ratio:g}", "--gradient_checkpointing",
             str(cfg.gradient_checkpointing).lower(), "--remove_unused_columns", "false",
             "--deepspeed", "zero2", "--attn_impl", "flash_attn", "--save_steps",
             str(cfg.save_steps), "--save_total_limit", str(cfg.save_total_limit),
             "--logging_steps", "1", "--output_dir", "output/sft"]
    return _command({"NPROC_PER_NODE": str(gpus)}, argv)


def grpo_command(cfg: GRPOConfig, model: str, gpus: int = 8) -> str:
    argv = ["swift", "rlhf", "--rlhf_type", "grpo", "--model", model, "--dataset", "grpo.jsonl",
            "--external_plugins", PLUGIN_FILE, "--reward_funcs", REWARD_NAME,
            *_tuner_args(cfg), "--torch_dtype", "bfloat16", "--model_kwargs", _video_kwargs(cfg),
            "--max_completion_length", str(cfg.max_new_tokens), "--max_length", "32768",
            "--num_train_epochs", f"{cfg.epochs:g}", "--per_device_train_batch_size", "4",
            "--gradient_accumulation_steps", "2", "--learning_rate", f"{cfg.lr:g}",
            "--warmup_ratio", f"{cfg.warmup_ratio:g}", "--num_generations",
            str(cfg.num_generations), "--temperature", f"{cfg.temperature:g}", "--top_p",
            f"{cfg.top_p:g}", "--top_k", str(cfg.top_k), "--beta", f"{cfg.beta:g}", "--epsilon",
            f"{cfg.epsilon:g}", "--num_iterations", str(cfg.num_iterations),
            "--remove_unused_columns", "false", "--deepspeed", "zero3", "--attn_impl", "flash_attn",
            "--save_steps", "10", "--save_total_limit", "5", "--logging_steps", "1",
            "--log_completions", "true", "--output_dir", "output/grpo"]
    if cfg.max_steps > 0:
        argv += ["--max_steps", str(cfg.max_steps)]
    return _command({"NPROC_PER_NODE": str(gpus)}, argv)


def sft_settings(cfg: GRPOConfig, cot: str = "atomic", anchors: str = "auto",
                 overrides: dict[str, Any] | None = None) -> SFTConfig:
    """The SFT stage's settings for an export: the GRPO config's shared ones (base, data, video,
    fine-tuning mode), the SFT stage's own defaults (epochs, learning rate), then ``overrides``."""
    shared = {f.name: getattr(cfg, f.name) for f in fields(SFTConfig)
              if f.name in {g.name for g in fields(GRPOConfig)}
              and f.name not in ("epochs", "learning_rate")}
    return SFTConfig.from_dict({**shared, "cot": cot, "anchors": anchors, **(overrides or {})})


def export_swift(cfg: GRPOConfig, cot: str = "atomic", anchors: str = "auto",
                 sft_cfg: SFTConfig | None = None) -> dict[str, Any]:
    """Write the ms-swift files for ``cfg.data`` into ``cfg.out``; returns what was written."""
    from cinecap.captioners.prompts import SYSTEM_PROMPT, USER_PROMPT

    cfg = cfg.resolved()
    out = Path(cfg.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(f"--out {out} must be a new or empty directory")
    sft_cfg = (sft_cfg or sft_settings(cfg, cot, anchors)).resolved()
    ds = load_dataset(cfg.data, cfg.eval_fraction, cfg.seed)
    system = SYSTEM_PROMPT if cfg.system_prompt is None else cfg.system_prompt
    user = USER_PROMPT if cfg.prompt is None else cfg.prompt
    samples = sft_samples(ds.pairs, sft_cfg.cot,
                          anchors_evidence() if sft_cfg.anchors == "auto" else None,
                          sft_cfg.contradicted)
    train = set(ds.split.train)
    sft_rows = [{"messages": _messages(system, user, s.target), "videos": [s.video_path]}
                for s in samples if s.index in train]
    val_rows = [{"messages": _messages(system, user, s.target), "videos": [s.video_path]}
                for s in samples if s.index not in train]
    grpo_rows = [{"messages": _messages(system, user), "videos": [str(p.video_path)],
                  "solution": p.gt_caption} for p in ds.train_pairs]
    out.mkdir(parents=True, exist_ok=True)
    _write_jsonl(out / "sft.jsonl", sft_rows)
    if val_rows:
        _write_jsonl(out / "sft_val.jsonl", val_rows)
    _write_jsonl(out / "grpo.jsonl", grpo_rows)

    settings = {k: getattr(cfg, k) for k in REWARD_FIELDS}
    settings["judge_options"] = {k: v for k, v in cfg.judge_options.items()
                                 if k.lower() not in _SECRET_OPTIONS}
    settings["tokenizer"] = cfg.base
    write_json(out / SETTINGS_FILE, settings)
    src = str(Path(__file__).resolve().parents[2])
    (out / PLUGIN_FILE).write_text(_PLUGIN.format(plugin=PLUGIN_FILE, name=REWARD_NAME,
                                                  settings=SETTINGS_FILE, src=src), encoding="utf-8")
    header = ("#!/usr/bin/env bash\n"
              "# Written by `cinecap train export-swift`; run in ms-swift's own environment.\n"
              'set -euo pipefail\ncd "$(dirname "$0")"\n')
    (out / "run_sft.sh").write_text(header + sft_command(sft_cfg, bool(val_rows)), encoding="utf-8")
    (out / "run_grpo.sh").write_text(
        header + "MODEL=${MODEL:-output/sft/last}  # the SFT checkpoint to start from\n"
        + grpo_command(cfg, "$MODEL").replace("'$MODEL'", '"$MODEL"'), encoding="utf-8")
    for script in ("run_sft.sh", "run_grpo.sh"):
        (out / script).chmod(0o755)
    info = {"format": "ms-swift", "data": ds.info(), "sft_rows": len(sft_rows),
            "sft_val_rows": len(val_rows), "grpo_rows": len(grpo_rows), "cot": sft_cfg.cot,
            "reward_function": REWARD_NAME,
            "files": sorted(p.name for p in out.iterdir()) + ["export.json"]}
    write_json(out / "export.json", info)
    return info
