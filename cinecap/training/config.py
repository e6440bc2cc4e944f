"""Training configurations: one frozen dataclass per stage, every field documented (TRL's style).

The fields are the single source of the ``cinecap train sft|grpo`` flags (:func:`add_arguments`),
of the app's training form (iterate :func:`describe`) and of the run config saved in the model
version directory (``run_config.json``). Values are resolved in this order, later wins:

    the defaults  <  the environment (CINECAP_TRAIN_<FIELD>, read by ``from_env`` only)
                  <  a --config FILE (JSON object)  <  the flags given on the command line

Defaults are the paper's where the paper has one (docs/training.md lists them); LoRA and the
learning rate that goes with it are this project's one-GPU defaults.
"""
from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import math
import os
import types
import typing
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

from cinecap.errors import InputError
from cinecap.reward import COVERAGE_MODES, REWARD_KINDS, RewardConfig

FINETUNE_MODES = ("lora", "full")
COT_MODES = ("atomic", "direct")
ANCHOR_MODES = ("auto", "off")
CONTRADICTED_MODES = ("keep", "drop")
DTYPES = ("auto", "bfloat16", "float16", "float32")
DEVICES = ("auto", "cpu", "cuda")
ENV_PREFIX = "CINECAP_TRAIN_"

#: Learning rates used when ``learning_rate`` is left unset: the paper's for full fine-tuning
#: (SFT 2e-5, GRPO 1e-5); ten times that for LoRA, whose few parameters need larger steps.
DEFAULT_LR = {("sft", "full"): 2e-5, ("sft", "lora"): 2e-4,
              ("grpo", "full"): 1e-5, ("grpo", "lora"): 1e-4}
#: Fields a resumed run may change (they do not alter what was trained so far).
RESUMABLE_CHANGES = frozenset({"max_steps", "epochs", "save_steps", "save_total_limit",
                               "logging_steps", "keep_checkpoints"})


def _help(text: str, **extra: Any) -> dict[str, Any]:
    return {"help": text, **extra}


def _reward_help(name: str) -> str:
    return next(f.metadata["help"] for f in fields(RewardConfig) if f.name == name)


@dataclass(frozen=True)
class TrainConfig:
    """What both stages share: the base, the data, the output, the fine-tuning mode and the video."""

    stage: typing.ClassVar[str] = ""

    base: str = field(default="", metadata=_help(
        "base checkpoint: a hub id, a local checkpoint directory, or the model version directory "
        "of an earlier round (its adapter is merged first)"))
    data: str = field(default="", metadata=_help(
        "gold pairs: a JSONL file of {video_path, gt_caption, statements} (docs/training.md), or "
        "a JSON list in the bench format"))
    out: str = field(default="", metadata=_help(
        "the model version directory to write (created; must be empty unless --resume)"))
    finetune: str = field(default="lora", metadata=_help(
        "lora: a PEFT LoRA adapter on the language model (one GPU); full: every unfrozen weight "
        "(the released recipe)", choices=FINETUNE_MODES))
    lora_r: int = field(default=16, metadata=_help("LoRA rank"))
    lora_alpha: int = field(default=32, metadata=_help("LoRA scaling (alpha)"))
    lora_dropout: float = field(default=0.05, metadata=_help("dropout on the LoRA branch"))
    lora_target_modules: tuple[str, ...] = field(default=("q_proj", "v_proj"), metadata=_help(
        "module names LoRA wraps, in the language model only while the vision tower is frozen"))
    freeze_vision: bool = field(default=True, metadata=_help(
        "freeze the vision tower and its merger (the released GRPO stage does; SFT trained it "
        "at lr 1e-6)"))
    gradient_checkpointing: bool = field(default=True, metadata=_help(
        "recompute activations in the backward pass: much less memory, ~30% more time"))
    dtype: str = field(default="auto", metadata=_help(
        "weights and compute: auto = bfloat16 on a GPU that has it, float32 on the CPU",
        choices=DTYPES))
    device: str = field(default="auto", metadata=_help(
        "auto: what accelerate picks (the GPU of this process); cpu forces the CPU",
        choices=DEVICES))
    learning_rate: float | None = field(default=None, metadata=_help(
        "peak learning rate; unset: 2e-5 SFT / 1e-5 GRPO with full fine-tuning (paper), "
        "2e-4 / 1e-4 with LoRA"))
    warmup_ratio: float = field(default=0.05, metadata=_help("share of steps warming up (paper: 5%)"))
    weight_decay: float = field(default=0.0, metadata=_help("AdamW weight decay"))
    max_grad_norm: float = field(default=1.0, metadata=_help("gradient clipping norm"))
    epochs: float = field(default=1.0, metadata=_help("passes over the training clips"))
    max_steps: int = field(default=-1, metadata=_help(
        "optimizer steps to run; -1: as many as the epochs take"))
    save_steps: int = field(default=50, metadata=_help(
        "write a resumable checkpoint every N optimizer steps"))
    save_total_limit: int = field(default=2, metadata=_help("checkpoints kept (older ones deleted)"))
    keep_checkpoints: bool = field(default=False, metadata=_help(
        "keep the checkpoints/ folder once the version is complete"))
    logging_steps: int = field(default=1, metadata=_help("report progress every N steps"))
    seed: int = field(default=42, metadata=_help("seed for weights of new layers, data order, sampling"))
    eval_fraction: float = field(default=0.05, metadata=_help(
        "share of clips held out (by clip, never by statement; deterministic from the seed)"))
    fps: float = field(default=2.0, metadata=_help("video sampling rate (released: 2 fps)"))
    min_frames: int = field(default=4, metadata=_help("fewest frames per clip (released: 4)"))
    max_frames: int = field(default=80, metadata=_help("most frames per clip (released: 80)"))
    min_tokens_per_frame: int = field(default=64, metadata=_help(
        "visual tokens per frame at least (released training: 64)"))
    max_tokens_per_frame: int = field(default=256, metadata=_help(
        "visual tokens per frame at most (released training: 256)"))
    decode_max_side: int | None = field(default=None, metadata=_help(
        "shrink frames on decode to this long side first (faster, not the release's); unset: "
        "full size, as released (frames go through the released sampling, cinecap/video.py)"))
    prompt: str | None = field(default=None, metadata=_help(
        "the user prompt; unset: the released one (cinecap/captioners/prompts.py)"))
    system_prompt: str | None = field(default=None, metadata=_help(
        "the system prompt; unset: the released one"))
    attn_implementation: str | None = field(default=None, metadata=_help(
        "attention kernel, e.g. sdpa or flash_attention_2; unset: transformers' default"))

    def __post_init__(self) -> None:
        _coerce_fields(self)
        for name in ("base", "data", "out"):
            if not str(getattr(self, name) or "").strip():
                raise InputError(f"training needs --{name} (or {name!r} in --config)")
        _choice(self, "finetune", FINETUNE_MODES)
        _choice(self, "dtype", DTYPES)
        _choice(self, "device", DEVICES)
        for name in ("lora_r", "lora_alpha", "save_steps", "save_total_limit", "logging_steps",
                     "min_frames", "max_frames", "min_tokens_per_frame", "max_tokens_per_frame"):
            if getattr(self, name) < 1:
                raise InputError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not 0 <= self.lora_dropout < 1:
            raise InputError(f"lora_dropout must be in [0, 1), got {self.lora_dropout}")
        if not self.lora_target_modules:
            raise InputError("lora_target_modules needs at least one module name")
        if self.learning_rate is not None and not self.learning_rate > 0:
            raise InputError(f"learning_rate must be positive, got {self.learning_rate}")
        if not 0 <= self.warmup_ratio < 1:
            raise InputError(f"warmup_ratio must be in [0, 1), got {self.warmup_ratio}")
        if self.weight_decay < 0 or self.max_grad_norm <= 0:
            raise InputError("weight_decay must be >= 0 and max_grad_norm > 0")
        if not self.epochs > 0:
            raise InputError(f"epochs must be positive, got {self.epochs}")
        if self.max_steps == 0 or self.max_steps < -1:
            raise InputError(f"max_steps must be -1 (from the epochs) or at least 1, got {self.max_steps}")
        if not 0 <= self.eval_fraction < 1:
            raise InputError(f"eval_fraction must be in [0, 1), got {self.eval_fraction}")
        if not self.fps > 0 or self.min_frames > self.max_frames:
            raise InputError("need fps > 0 and min_frames <= max_frames")
        if self.min_tokens_per_frame > self.max_tokens_per_frame:
            raise InputError("need min_tokens_per_frame <= max_tokens_per_frame")
        if self.decode_max_side is not None and self.decode_max_side < 16:
            raise InputError(f"decode_max_side must be at least 16, got {self.decode_max_side}")

    # ------------------------------------------------------------------------------- resolving
    @property
    def lr(self) -> float:
        """The learning rate in force (the stage's default when unset)."""
        if self.learning_rate is not None:
            return self.learning_rate
        return DEFAULT_LR[(self.stage, self.finetune)]

    def resolved(self) -> "TrainConfig":
        """A copy with every default that depends on other fields filled in (what is saved)."""
        return dataclasses.replace(self, learning_rate=self.lr)

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> "TrainConfig":
        """Build from a mapping (a --config file, a saved run config); unknown keys are errors."""
        known = {f.name for f in fields(cls)}
        unknown = [k for k in values if k not in known and k != "stage"]
        if unknown:
            hints = []
            for k in unknown:
                close = difflib.get_close_matches(k, sorted(known), n=1)
                hints.append(f"{k!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
            raise InputError(f"unknown {cls.stage} setting(s): {', '.join(hints)}")
        if values.get("stage") not in (None, cls.stage):
            raise InputError(f"this is a {values['stage']!r} config, not a {cls.stage!r} one")
        return cls(**{k: v for k, v in values.items() if k in known})

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> "TrainConfig":
        """Defaults, then ``CINECAP_TRAIN_<FIELD>`` variables, then ``overrides``."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(ENV_PREFIX + f.name.upper())
            if raw is not None:
                values[f.name] = parse_value(cls, f.name, raw)
        values.update(overrides)
        return cls.from_dict(values)


@dataclass(frozen=True)
class SFTConfig(TrainConfig):
    """Supervised fine-tuning on gold pairs, with atomic chain-of-thought targets."""

    stage: typing.ClassVar[str] = "sft"

    cot: str = field(default="atomic", metadata=_help(
        "atomic: <think> evidence → statement lines </think><answer> caption </answer>; direct: "
        "the caption alone (the ablation)", choices=COT_MODES))
    anchors: str = field(default="auto", metadata=_help(
        "auto: every gold statement is checked against the anchors analysis of its clip (CPU, "
        "seconds per clip), and a timed one without an interval or evidence takes them from the "
        "evidence that supports it; off: never analyse", choices=ANCHOR_MODES))
    contradicted: str = field(default="keep", metadata=_help(
        "a gold statement the pixels contradict (anchors auto): keep it in the target, or drop "
        "it (the answer is re-rendered without it); either way the data summary lists it",
        choices=CONTRADICTED_MODES))
    per_device_batch_size: int = field(default=1, metadata=_help("clips per device per micro-batch"))
    gradient_accumulation_steps: int = field(default=1, metadata=_help(
        "micro-batches per optimizer step (paper: global batch 128)"))
    epochs: float = field(default=2.0, metadata=_help("passes over the training clips (paper: 2)"))

    def __post_init__(self) -> None:
        super().__post_init__()
        _choice(self, "cot", COT_MODES)
        _choice(self, "anchors", ANCHOR_MODES)
        _choice(self, "contradicted", CONTRADICTED_MODES)
        if self.per_device_batch_size < 1 or self.gradient_accumulation_steps < 1:
            raise InputError("per_device_batch_size and gradient_accumulation_steps must be >= 1")


@dataclass(frozen=True)
class GRPOConfig(TrainConfig):
    """Group-relative policy optimisation on video, rewarded by a judge and ``cinecap.reward``."""

    stage: typing.ClassVar[str] = "grpo"

    num_generations: int = field(default=8, metadata=_help("G: completions sampled per prompt (paper: 8)"))
    prompts_per_step: int = field(default=1, metadata=_help(
        "clips per optimizer step on each process (the paper: 32 clips, 256 completions, per step)"))
    max_new_tokens: int = field(default=2048, metadata=_help(
        "longest completion (the released run: 9216)"))
    temperature: float = field(default=1.0, metadata=_help("sampling temperature (paper: 1.0)"))
    top_p: float = field(default=0.99, metadata=_help("nucleus sampling (paper: 0.99)"))
    top_k: int = field(default=50, metadata=_help("top-k sampling, 0 = off (paper: 50)"))
    beta: float = field(default=0.04, metadata=_help(
        "KL weight to the frozen reference (paper: 0.04; 0 drops the reference pass)"))
    epsilon: float = field(default=0.2, metadata=_help("ratio clipping: [1 - ε, 1 + ε]"))
    num_iterations: int = field(default=1, metadata=_help(
        "optimizer updates per generated batch (μ; >1 makes the clipped ratio bite)"))
    forward_batch_size: int = field(default=2, metadata=_help(
        "completions per forward/backward pass (memory; the gradient is the same)"))
    judge: str | None = field(default=None, metadata=_help(
        "judge backend by name: llm (the training judge over an OpenAI-compatible endpoint) or "
        "rules (offline); unset: llm when CINECAP_JUDGE_BASE_URL/MODEL configure one, else the "
        "rules judge stands in and the run says so"))
    judge_options: dict[str, Any] = field(default_factory=dict, metadata=_help(
        "options for the judge backend, KEY=VALUE (e.g. model=…, base_url=…)"))
    judge_protocol: str = field(default="hardened-training", metadata=_help(
        "the llm judge's protocol (docs/protocol.md): hardened-training (the release's training-6 "
        "prompt, lists counting: the default), released-training, or PROMPT/COUNTING"))
    judge_concurrency: int = field(default=8, metadata=_help("judge calls in flight for one group"))
    reward: str = field(default="gated", metadata=_help(
        "gated: w_cmp·s_cmp + w_acc·s_acc + w_cov·gated coverage (the method); length: the "
        "length-penalty baseline of the released ablation instead of the coverage term",
        choices=REWARD_KINDS))
    tau: float = field(default=0.75, metadata=_help(_reward_help("tau")))
    w_cmp: float = field(default=0.5, metadata=_help(_reward_help("w_cmp")))
    w_acc: float = field(default=0.5, metadata=_help(_reward_help("w_acc")))
    w_cov: float = field(default=0.1, metadata=_help(_reward_help("w_cov")))
    coverage: str = field(default="symmetric", metadata=_help(_reward_help("coverage"),
                                                               choices=COVERAGE_MODES))
    w_len: float = field(default=0.1, metadata=_help("weight of the length penalty (reward=length)"))
    min_answer_tokens: int = field(default=73, metadata=_help(
        "reward=length: answers this long or longer get no penalty (released: 73)"))
    min_penalty_tokens: int = field(default=40, metadata=_help(
        "reward=length: answers this short or shorter get the full penalty −1 (released: 40)"))

    def __post_init__(self) -> None:
        super().__post_init__()
        _choice(self, "reward", REWARD_KINDS)
        for name in ("num_generations", "prompts_per_step", "max_new_tokens", "num_iterations",
                     "forward_batch_size", "judge_concurrency", "min_answer_tokens"):
            if getattr(self, name) < 1:
                raise InputError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.num_generations < 2:
            raise InputError("num_generations must be at least 2: advantages compare samples of a group")
        if not self.temperature > 0 or not 0 < self.top_p <= 1 or self.top_k < 0:
            raise InputError("sampling needs temperature > 0, 0 < top_p <= 1 and top_k >= 0")
        if self.beta < 0 or not 0 < self.epsilon < 1:
            raise InputError("need beta >= 0 and 0 < epsilon < 1")
        if not isinstance(self.judge_options, dict):
            raise InputError("judge_options must be a mapping of option names to values")
        from cinecap.judge.protocol import protocol

        protocol(self.judge_protocol)  # InputError naming the known protocols
        if not 0 <= self.min_penalty_tokens < self.min_answer_tokens:
            raise InputError("need 0 <= min_penalty_tokens < min_answer_tokens")
        if self.w_len < 0:
            raise InputError(f"w_len must be >= 0, got {self.w_len}")
        self.reward_config()  # validates tau, weights and coverage with RewardConfig's own checks

    def reward_config(self) -> RewardConfig:
        """The ``cinecap.reward`` settings (always the six training aspects)."""
        return RewardConfig(tau=self.tau, w_cmp=self.w_cmp, w_acc=self.w_acc, w_cov=self.w_cov,
                            coverage=self.coverage, kind=self.reward, w_len=self.w_len,
                            min_answer_tokens=self.min_answer_tokens,
                            min_penalty_tokens=self.min_penalty_tokens)


CONFIGS: dict[str, type[TrainConfig]] = {"sft": SFTConfig, "grpo": GRPOConfig}


# --- field types --------------------------------------------------------------------------------

def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _base_type(tp: Any) -> tuple[Any, bool]:
    """(type without Optional, whether None is allowed)."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return (args[0] if len(args) == 1 else tp), True
    return tp, False


def parse_value(cls: type, name: str, raw: Any) -> Any:
    """A field value from text (flags, environment) or JSON, checked against the field's type."""
    tp, optional = _base_type(_hints(cls)[name])
    if raw is None or (optional and isinstance(raw, str) and raw.strip().lower() in ("", "none", "null")):
        if optional:
            return None
        raise InputError(f"{name} needs a value")
    origin = typing.get_origin(tp)
    try:
        if tp is bool:
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
        if tp is int:
            if isinstance(raw, bool) or (isinstance(raw, float) and not raw.is_integer()):
                raise ValueError(raw)
            return int(raw)
        if tp is float:
            if isinstance(raw, bool):
                raise ValueError(raw)
            value = float(raw)
            if not math.isfinite(value):
                raise ValueError(raw)
            return value
        if tp is str:
            if not isinstance(raw, str):
                raise ValueError(raw)
            return raw
        if origin is tuple:
            items = raw.split(",") if isinstance(raw, str) else list(raw)
            return tuple(str(i).strip() for i in items if str(i).strip())
        if origin is dict:
            if isinstance(raw, str):
                raw = json.loads(raw) if raw.strip() else {}
            if not isinstance(raw, dict):
                raise ValueError(raw)
            return dict(raw)
    except (TypeError, ValueError, json.JSONDecodeError):
        kind = getattr(tp, "__name__", str(tp))
        raise InputError(f"{name} must be {kind}, got {raw!r}") from None
    return raw


def _coerce_fields(cfg: TrainConfig) -> None:
    """Values from JSON or text become the field's type (lists → tuples, "3" → 3), or InputError."""
    for f in fields(cfg):
        object.__setattr__(cfg, f.name, parse_value(type(cfg), f.name, getattr(cfg, f.name)))


def _choice(cfg: TrainConfig, name: str, choices: tuple[str, ...]) -> None:
    if getattr(cfg, name) not in choices:
        raise InputError(f"{name} must be one of {', '.join(choices)}, got {getattr(cfg, name)!r}")


def describe(cls: type[TrainConfig]) -> list[dict[str, Any]]:
    """Every field with its type, default, help and choices: what a form or a reference needs."""
    hints = _hints(cls)
    out = []
    for f in fields(cls):
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        tp, optional = _base_type(hints[f.name])
        out.append({"name": f.name, "type": getattr(tp, "__name__", str(tp)), "optional": optional,
                    "default": list(default) if isinstance(default, tuple) else default,
                    "help": f.metadata.get("help", ""), "choices": f.metadata.get("choices")})
    return out


# --- the command line ---------------------------------------------------------------------------

def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def add_arguments(parser: argparse.ArgumentParser, cls: type[TrainConfig]) -> None:
    """One flag per field, with the field's help; unset flags leave the value to file/env/default."""
    hints = _hints(cls)
    for f in fields(cls):
        tp, _ = _base_type(hints[f.name])
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        shown = ",".join(default) if isinstance(default, tuple) else default
        help_text = f.metadata.get("help", "")
        if f.name not in ("base", "data", "out") and shown not in ("", None, {}):
            help_text += f" (default: {shown})"
        help_text = help_text.replace("%", "%%")  # argparse formats help with %
        kw: dict[str, Any] = {"dest": f.name, "default": argparse.SUPPRESS, "help": help_text}
        if f.metadata.get("choices"):
            kw["choices"] = list(f.metadata["choices"])
        if tp is bool:
            parser.add_argument(flag(f.name), action=argparse.BooleanOptionalAction, **kw)
        elif typing.get_origin(tp) is dict:
            kw["help"] = help_text + "; repeatable"
            parser.add_argument("--" + f.name.removesuffix("s").replace("_", "-"), action="append",
                                metavar="KEY=VALUE", **kw)
        else:
            if not kw.get("choices"):
                kw["metavar"] = {"base": "MODEL", "data": "FILE", "out": "DIR"}.get(
                    f.name, {int: "N", float: "X"}.get(tp, "LIST" if typing.get_origin(tp) is tuple
                                                        else "TEXT"))
            parser.add_argument(flag(f.name), **kw)


def _key_values(items: list[str], name: str) -> dict[str, str]:
    out = {}
    for item in items:
        key, eq, value = str(item).partition("=")
        if not eq or not key.strip():
            raise InputError(f"{flag(name).removesuffix('s')} needs KEY=VALUE, got {item!r}")
        out[key.strip().replace("-", "_")] = value
    return out


def from_args(cls: type[TrainConfig], args: argparse.Namespace, config_file: str | None = None,
              environ: Mapping[str, str] | None = None) -> TrainConfig:
    """Defaults < environment < --config FILE < the flags that were given."""
    values: dict[str, Any] = {}
    if config_file:
        values.update(read_config_file(config_file))
    hints = _hints(cls)
    for f in fields(cls):
        if f.name not in vars(args):
            continue
        raw = getattr(args, f.name)
        tp, _ = _base_type(hints[f.name])
        if typing.get_origin(tp) is dict:
            values[f.name] = {**(values.get(f.name) or {}), **_key_values(raw, f.name)}
        else:
            values[f.name] = parse_value(cls, f.name, raw)
    return cls.from_env(environ, **values)


def read_config_file(path: str | os.PathLike) -> dict[str, Any]:
    p = Path(path)
    if not p.is_file():
        raise InputError(f"config file {str(path)!r} does not exist")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"config file {p.name} is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise InputError(f"config file {p.name} must hold a JSON object of settings")
    return data
