"""The model side of training: load a base, make it trainable (LoRA or full), build video inputs,
save the result as a model version.

Inputs are built by the ``vlm`` captioner's own ``build_inputs`` (``VLMCaptioner.from_processor``),
so the prompt and video tensors a model is trained on are exactly the ones it is later asked to
caption with: the released prompts, frames sampled at the configured fps with their timestamps, and
the per-frame visual-token budget.
"""
from __future__ import annotations

import json
import logging
import re
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cinecap.errors import InputError, TrainingError, UnavailableError
from cinecap.training.config import TrainConfig

log = logging.getLogger(__name__)

#: Keys of a processor's output aligned with the tokens (padded per sequence); the rest (pixel
#: values, grids, per-video timing) are concatenated along the first dimension.
TOKEN_KEYS = ("input_ids", "attention_mask", "mm_token_type_ids", "labels")
IGNORE_INDEX = -100
#: Clips whose prompt tensors an :class:`InputBuilder` keeps, the oldest dropped first: a small
#: set of gold pairs comes back every epoch (an SFT step, a GRPO group), and decoding and
#: processing the clip again was about half of a tiny model's SFT step (40 steps on three test
#: clips: 9.7 -> 7.8 s of CPU for the whole process). Bounded, since a long clip's pixels at the
#: training budget are large.
PROMPT_CACHE = 8


@dataclass
class Base:
    """A loaded base: the model, its processor and where it came from."""

    model: Any
    processor: Any
    family: str
    root: str  # the checkpoint the weights were read from
    adapters: list[str]  # model-version adapters merged into it, in order
    reference: str  # what a LoRA adapter trained on it must name as its base


def resolve_dtype(cfg: TrainConfig, device: str) -> str:
    import torch

    if cfg.dtype != "auto":
        return cfg.dtype
    if device.startswith("cuda") and torch.cuda.is_available() and torch.cuda.is_bf16_supported():
        return "bfloat16"
    return "float32"


def base_reference(base: str) -> str:
    """A local base as an absolute path (the adapter must find it from anywhere); hub ids as is."""
    p = Path(base).expanduser()
    return str(p.resolve()) if p.exists() else base


def load_base(cfg: TrainConfig, dtype: str) -> Base:
    """Processor and model of ``cfg.base``; a LoRA model version is merged into its base first."""
    import torch
    from transformers import AutoConfig, AutoModelForImageTextToText, AutoProcessor

    from cinecap.captioners.vlm import FAMILIES, adapter_chain

    ref = base_reference(cfg.base)
    root, adapters = adapter_chain(ref)
    try:
        config = AutoConfig.from_pretrained(root)
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read the base {cfg.base!r}: {_first_line(e)}") from None
    family = getattr(config, "model_type", "")
    if family not in FAMILIES:
        raise InputError(f"base {cfg.base!r} is a {family or 'unknown'} checkpoint; training runs "
                         f"{', '.join(FAMILIES)}")
    kw: dict[str, Any] = {"dtype": getattr(torch, dtype)}
    if cfg.attn_implementation:
        kw["attn_implementation"] = cfg.attn_implementation
    try:
        processor = AutoProcessor.from_pretrained(root)
        model = AutoModelForImageTextToText.from_pretrained(root, **kw)
    except (OSError, ValueError) as e:
        raise InputError(f"cannot load the base {cfg.base!r}: {_first_line(e)}") from None
    if adapters:
        from peft import PeftModel

        for a in adapters:
            model = PeftModel.from_pretrained(model, a).merge_and_unload()
        log.info("merged %d adapter(s) of %s into %s", len(adapters), cfg.base, root)
    model.config.use_cache = False
    return Base(model, processor, family, root, adapters, ref)


def vision_tower(model: Any) -> Any:
    """The vision encoder (``…visual``), wrapped or not (PEFT, DDP)."""
    for name, module in model.named_modules():
        if name == "visual" or name.endswith(".visual"):
            return module
    raise TrainingError("this model has no vision tower named 'visual'")


def make_trainable(model: Any, cfg: TrainConfig) -> Any:
    """Freeze what the config freezes; wrap in a LoRA adapter (PEFT) unless fine-tuning fully.

    New adapter weights are drawn from ``cfg.seed``: the same config gives the same start.
    """
    from transformers import set_seed

    set_seed(cfg.seed)
    if cfg.freeze_vision:
        for p in vision_tower(model).parameters():
            p.requires_grad_(False)
    if cfg.finetune == "full":
        return model
    try:
        from peft import LoraConfig, get_peft_model
    except ImportError:
        raise UnavailableError("LoRA needs the peft package (pip install -r requirements.txt)") from None
    names = "|".join(re.escape(m) for m in cfg.lora_target_modules)
    # While the vision tower is frozen, LoRA goes into the language model only.
    scope = r".*language_model\..*" if cfg.freeze_vision else r".*"
    target = rf"{scope}\.({names})$"
    if not any(re.fullmatch(target, n) for n, _ in model.named_modules()):
        raise InputError(f"no module matches lora_target_modules {', '.join(cfg.lora_target_modules)}"
                         f"{' in the language model' if cfg.freeze_vision else ''}")
    lora = LoraConfig(r=cfg.lora_r, lora_alpha=cfg.lora_alpha, lora_dropout=cfg.lora_dropout,
                      target_modules=target, task_type="CAUSAL_LM")
    return get_peft_model(model, lora)


def parameter_counts(model: Any) -> dict[str, int]:
    total = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return {"parameters": total, "trainable_parameters": trainable}


def is_lora(model: Any) -> bool:
    return hasattr(model, "peft_config")


# --- inputs -------------------------------------------------------------------------------------

class InputBuilder:
    """Prompt (+ completion) tensors for a clip, on the CPU, built as the vlm captioner builds them."""

    def __init__(self, processor: Any, family: str, cfg: TrainConfig):
        from cinecap.captioners.prompts import SYSTEM_PROMPT
        from cinecap.captioners.vlm import VLMCaptioner

        self.cfg = cfg
        self.captioner = VLMCaptioner.from_processor(
            processor, family, fps=cfg.fps, min_frames=cfg.min_frames, max_frames=cfg.max_frames,
            min_tokens_per_frame=cfg.min_tokens_per_frame,
            max_tokens_per_frame=cfg.max_tokens_per_frame, decode_max_side=cfg.decode_max_side,
            prompt=cfg.prompt,
            system_prompt=SYSTEM_PROMPT if cfg.system_prompt is None else cfg.system_prompt)
        self.tokenizer = processor.tokenizer
        end = self.tokenizer.convert_tokens_to_ids("<|im_end|>")
        unk = getattr(self.tokenizer, "unk_token_id", None)
        self.end_id = end if isinstance(end, int) and end >= 0 and end != unk else self.tokenizer.eos_token_id
        self.pad_id = self.tokenizer.pad_token_id
        if self.pad_id is None:
            self.pad_id = self.end_id
        self._prompts: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def prompt(self, clip: str | Path) -> dict[str, Any]:
        """Tensors of the released prompt with this clip's video (batch of one), sampled as the
        captioner samples (the released sampling, the training pixel budget by default). The
        last :data:`PROMPT_CACHE` clips' are kept: the same clip gives the same tensors (callers
        build new tensors from them; the dict is their own)."""
        key = str(clip)
        cached = self._prompts.get(key)
        if cached is None:
            sample = self.captioner.sample(clip)
            cached = self._prompts[key] = dict(self.captioner.build_inputs([sample], [""]))
            while len(self._prompts) > PROMPT_CACHE:
                self._prompts.popitem(last=False)
        return dict(cached)

    def completion_ids(self, text: str) -> list[int]:
        """The assistant text's token ids, closed by the end-of-turn token the model must learn."""
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"]) + [self.end_id]

    def supervised(self, clip: str | Path, target: str) -> dict[str, Any]:
        """Prompt + target tensors with labels: the prompt (video included) is masked out."""
        import torch

        inputs = self.prompt(clip)
        completion = torch.tensor([self.completion_ids(target)], dtype=torch.long)
        return append_completion(inputs, completion, labels=True)


def append_completion(inputs: dict[str, Any], completion: Any, labels: bool = False) -> dict[str, Any]:
    """``inputs`` (one prompt, or G copies) followed by ``completion`` ids [B, C]."""
    import torch

    out = dict(inputs)
    ids = inputs["input_ids"]
    b, c = completion.shape
    if ids.shape[0] != b:
        raise TrainingError(f"{ids.shape[0]} prompt rows for {b} completions")
    out["input_ids"] = torch.cat([ids, completion.to(ids.device)], dim=1)
    out["attention_mask"] = torch.cat(
        [inputs["attention_mask"], torch.ones((b, c), dtype=inputs["attention_mask"].dtype,
                                              device=ids.device)], dim=1)
    if "mm_token_type_ids" in inputs:
        mm = inputs["mm_token_type_ids"]
        zeros = torch.zeros((b, c), dtype=mm.dtype, device=mm.device)
        out["mm_token_type_ids"] = torch.cat([mm, zeros], dim=1)
    if labels:
        out["labels"] = torch.cat([torch.full_like(ids, IGNORE_INDEX), completion.to(ids.device)], dim=1)
    return out


def repeat_inputs(inputs: dict[str, Any], times: int, video: Any = None) -> dict[str, Any]:
    """One prompt's tensors repeated ``times`` (the video goes with every completion of a group).

    ``video``: the clip's vision-tower output (:func:`encode_video`) given to the model in place
    of its pixels, so the repeats are not encoded again."""
    out = {}
    for k, v in inputs.items():
        if video is not None and k == "pixel_values_videos":
            continue
        if k in TOKEN_KEYS:
            out[k] = v.repeat(times, *([1] * (v.dim() - 1)))
        else:
            out[k] = v.repeat(times, *([1] * (v.dim() - 1))) if hasattr(v, "repeat") else v
    if video is not None:
        out["mm_encoder_outputs"] = {"video": _repeat_video(video, times)}
    return out


def takes_video_features(model: Any) -> bool:
    """Whether the model's forward accepts a vision-tower output instead of pixels
    (``mm_encoder_outputs``, transformers' own path between encoding and prefill)."""
    import inspect

    inner = model.get_base_model() if is_lora(model) else model
    return (hasattr(inner, "get_video_features")
            and "mm_encoder_outputs" in inspect.signature(inner.forward).parameters)


def encode_video(model: Any, inputs: dict[str, Any]) -> Any:
    """The vision tower's output for the one clip of ``inputs`` (batch of one, on the model's
    device), without gradients: only for a frozen tower, whose output the training never moves."""
    import torch

    inner = model.get_base_model() if is_lora(model) else model
    with torch.no_grad():
        return inner.get_video_features(inputs["pixel_values_videos"], inputs["video_grid_thw"],
                                        return_dict=True)


def _repeat_video(video: Any, times: int) -> Any:
    """A one-clip vision output as the model reads it for ``times`` copies of the clip: its
    per-video features (and Qwen3-VL's deepstack features) repeated, the same tensors."""
    kw = {"pooler_output": tuple(video.pooler_output) * times}
    deepstack = getattr(video, "deepstack_features", None)
    if deepstack is not None:
        kw["deepstack_features"] = [tuple(f) * times for f in deepstack]
    return type(video)(**kw)


def collate(items: list[dict[str, Any]], pad_id: int) -> dict[str, Any]:
    """Right-pad token tensors (labels with -100, masks with 0); concatenate the video tensors."""
    import torch

    width = max(it["input_ids"].shape[1] for it in items)
    batch: dict[str, Any] = {}
    for key in items[0]:
        values = [it[key] for it in items]
        if key in TOKEN_KEYS:
            fill = {"input_ids": pad_id, "labels": IGNORE_INDEX}.get(key, 0)
            batch[key] = torch.cat([torch.nn.functional.pad(v, (0, width - v.shape[1]), value=fill)
                                    for v in values], dim=0)
        elif isinstance(values[0], torch.Tensor):
            batch[key] = torch.cat(values, dim=0)
        else:
            batch[key] = values
    return batch


# --- saving ------------------------------------------------------------------------------------

def point_adapter_to_base(out: Path, reference: str) -> None:
    """Make the adapter in ``out`` name its base by a path that loads from anywhere."""
    cfg_path = Path(out) / "adapter_config.json"
    adapter_cfg = json.loads(cfg_path.read_text())
    adapter_cfg["base_model_name_or_path"] = reference
    cfg_path.write_text(json.dumps(adapter_cfg, indent=2))
    if (Path(out) / "config.json").exists():
        raise TrainingError(f"{out} holds both an adapter and a config.json; it would not load")


def save_weights(model: Any, processor: Any, out: Path, base: Base,
                 state_dict: dict[str, Any] | None = None) -> str:
    """Write the trained weights into the version directory; returns "lora" or "full".

    LoRA: the adapter only, whose ``adapter_config.json`` names the base (an absolute path for a
    local base) so the directory loads by itself. Full: the whole model. The processor goes with
    either.
    """
    out.mkdir(parents=True, exist_ok=True)
    kw = {"state_dict": state_dict} if state_dict is not None else {}
    model.save_pretrained(out, **kw)
    processor.save_pretrained(out)
    if is_lora(model):
        point_adapter_to_base(out, base.reference)
        return "lora"
    return "full"


def _first_line(e: Exception) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0][:300]
