"""A tiny, random, real Qwen-VL checkpoint built fully offline (no hub, no download).

Tests, demos and the training code need a checkpoint that loads and runs exactly like the released
ones (same model classes, processor, chat template, special tokens), without 16 GB of weights. This
module builds one in a directory: a byte-level BPE tokenizer trained here on film vocabulary, the
family's processor (image + video processor + tokenizer), and a model of ~0.2 M random parameters.
It loads with ``AutoProcessor.from_pretrained`` and the family's model class (or
``AutoModelForImageTextToText``), like any other checkpoint.

The text model has hidden 32, 2 layers, 4 heads, 2 KV heads (head_dim 8, so ``mrope_section``
sums to 4); the vision tower has depth 2. Random policies emit vision tokens: pass
``suppress_tokens`` (see :func:`vision_token_ids`) when generating from them.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from cinecap.captioners.vlm import VISION_TOKENS, vision_token_ids  # noqa: F401 - the one list
from cinecap.errors import InputError

log = logging.getLogger(__name__)

FAMILIES = ("qwen3_vl", "qwen2_5_vl")

#: Qwen's special tokens, in Qwen's order (their ids come right after the trained vocabulary).
SPECIAL_TOKENS = (
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
    "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
    "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>",
)
#: A random model never stops on its own; its checkpoint caps generation so demos stay fast.
TINY_MAX_NEW_TOKENS = 64

#: Qwen2-VL-style chat template: text, image and video parts; a default system turn.
CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "{%- if loop.first and message['role'] != 'system' -%}"
    "{{ '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}"
    "{%- endif -%}"
    "{{ '<|im_start|>' + message['role'] + '\\n' }}"
    "{%- if message['content'] is string -%}{{ message['content'] }}"
    "{%- else -%}{%- for part in message['content'] -%}"
    "{%- if part['type'] == 'image' or 'image' in part -%}{{ '<|vision_start|><|image_pad|><|vision_end|>' }}"
    "{%- elif part['type'] == 'video' or 'video' in part -%}{{ '<|vision_start|><|video_pad|><|vision_end|>' }}"
    "{%- elif 'text' in part -%}{{ part['text'] }}"
    "{%- endif -%}{%- endfor -%}{%- endif -%}"
    "{{ '<|im_end|>\\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<|im_start|>assistant\\n' }}{%- endif -%}"
)


@dataclass(frozen=True)
class TinySpec:
    """The shape of the tiny model. Defaults are the smallest that exercise every code path."""

    family: str = field(default="qwen3_vl", metadata={
        "help": "model family: qwen3_vl (the released model's) or qwen2_5_vl", "choices": FAMILIES})
    vocab_size: int = field(default=512, metadata={
        "help": "trained BPE vocabulary, before the special tokens"})
    hidden: int = field(default=32, metadata={"help": "text model hidden size"})
    layers: int = field(default=2, metadata={"help": "text model layers"})
    heads: int = field(default=4, metadata={"help": "attention heads"})
    kv_heads: int = field(default=2, metadata={"help": "key/value heads (grouped-query attention)"})
    vision_depth: int = field(default=2, metadata={"help": "vision tower blocks"})
    vision_hidden: int = field(default=32, metadata={"help": "vision tower hidden size"})
    seed: int = field(default=0, metadata={"help": "random seed of the weights"})

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise InputError(f"unknown model family {self.family!r}; choose one of: {', '.join(FAMILIES)}")
        if self.hidden % self.heads or self.heads % self.kv_heads:
            raise InputError("hidden must divide by heads, and heads by kv_heads")
        if (self.hidden // self.heads) % 2:
            raise InputError("head_dim (hidden / heads) must be even for rotary embeddings")
        if self.vocab_size < 300:
            raise InputError("vocab_size must be at least 300 (256 bytes + merges)")

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads

    @property
    def mrope_section(self) -> list[int]:
        """Three sections (time, height, width) summing to head_dim / 2, as the model requires."""
        half = self.head_dim // 2
        h = w = max(1, half // 4)
        return [half - h - w, h, w]


def _corpus() -> list[str]:
    """Film-language text the tokenizer learns its merges from (no download)."""
    from cinecap import taxonomy as tx
    from cinecap.captioners.prompts import SYSTEM_PROMPT, USER_PROMPT

    lines = [SYSTEM_PROMPT, USER_PROMPT, "You are a helpful assistant."]
    for v in tx.VALUES:
        lines.append(f"{v.aspect}: {v.canonical}. " + ", ".join(v.synonyms))
    lines += [f"<{t / 2:.1f} seconds> [{t / 2:.1f}–{t / 2 + 1:.1f}] [the background moves left] "
              f"→ the camera pans right" for t in range(0, 80, 3)]
    lines += ["<think>", "</think>", "<answer>", "</answer>", "0123456789 .,;:()[]-–→"]
    return lines


def build_tokenizer(vocab_size: int = 512):
    """A byte-level BPE tokenizer with Qwen's special tokens and chat template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(_corpus(), trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>",
                                   pad_token="<|endoftext|>", unk_token=None)
    fast.add_special_tokens({"additional_special_tokens": list(SPECIAL_TOKENS)})
    fast.chat_template = CHAT_TEMPLATE
    fast.model_max_length = 32768
    fast.padding_side = "left"  # batched generation pads on the left
    return fast


def build_processor(family: str, tokenizer):
    """The family's processor (image + video processor) around ``tokenizer``, with the chat template."""
    from transformers.models.qwen2_vl.image_processing_qwen2_vl import Qwen2VLImageProcessor

    if family == "qwen3_vl":
        from transformers import Qwen3VLProcessor
        from transformers.models.qwen3_vl.video_processing_qwen3_vl import Qwen3VLVideoProcessor

        image = Qwen2VLImageProcessor(patch_size=16, merge_size=2, temporal_patch_size=2)
        video = Qwen3VLVideoProcessor(patch_size=16, merge_size=2, temporal_patch_size=2)
        return Qwen3VLProcessor(image_processor=image, tokenizer=tokenizer, video_processor=video,
                                chat_template=CHAT_TEMPLATE)
    from transformers import Qwen2_5_VLProcessor
    from transformers.models.qwen2_vl.video_processing_qwen2_vl import Qwen2VLVideoProcessor

    image = Qwen2VLImageProcessor(patch_size=14, merge_size=2, temporal_patch_size=2)
    video = Qwen2VLVideoProcessor(patch_size=14, merge_size=2, temporal_patch_size=2)
    return Qwen2_5_VLProcessor(image_processor=image, tokenizer=tokenizer, video_processor=video,
                               chat_template=CHAT_TEMPLATE)


def build_config(spec: TinySpec, tokenizer):
    """The family's model config at the tiny shape, with this tokenizer's special-token ids."""
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}
    vocab = len(tokenizer)
    common_text = dict(vocab_size=vocab, hidden_size=spec.hidden, intermediate_size=spec.hidden * 2,
                       num_hidden_layers=spec.layers, num_attention_heads=spec.heads,
                       num_key_value_heads=spec.kv_heads, max_position_embeddings=4096,
                       bos_token_id=ids["<|endoftext|>"], eos_token_id=ids["<|im_end|>"],
                       pad_token_id=ids["<|endoftext|>"])
    tokens = dict(image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
                  vision_start_token_id=ids["<|vision_start|>"],
                  vision_end_token_id=ids["<|vision_end|>"])
    if spec.family == "qwen3_vl":
        from transformers import Qwen3VLConfig

        text = dict(common_text, head_dim=spec.head_dim,
                    rope_parameters={"rope_type": "default", "rope_theta": 5_000_000.0,
                                     "mrope_section": spec.mrope_section, "mrope_interleaved": True})
        vision = dict(depth=spec.vision_depth, hidden_size=spec.vision_hidden,
                      intermediate_size=spec.vision_hidden * 2, num_heads=spec.heads,
                      patch_size=16, spatial_merge_size=2, temporal_patch_size=2,
                      out_hidden_size=spec.hidden, num_position_embeddings=256,
                      deepstack_visual_indexes=[spec.vision_depth - 1])
        return Qwen3VLConfig(text_config=text, vision_config=vision, tie_word_embeddings=True,
                             **tokens)
    from transformers import Qwen2_5_VLConfig

    text = dict(common_text, rope_parameters={"rope_type": "default", "rope_theta": 1_000_000.0,
                                              "mrope_section": spec.mrope_section})
    vision = dict(depth=spec.vision_depth, hidden_size=spec.vision_hidden,
                  intermediate_size=spec.vision_hidden * 2, num_heads=spec.heads, patch_size=14,
                  spatial_merge_size=2, temporal_patch_size=2, window_size=112,
                  out_hidden_size=spec.hidden, fullatt_block_indexes=[spec.vision_depth - 1],
                  tokens_per_second=2)
    return Qwen2_5_VLConfig(text_config=text, vision_config=vision, tie_word_embeddings=True, **tokens)


def model_class(family: str):
    if family == "qwen3_vl":
        from transformers import Qwen3VLForConditionalGeneration

        return Qwen3VLForConditionalGeneration
    from transformers import Qwen2_5_VLForConditionalGeneration

    return Qwen2_5_VLForConditionalGeneration



#: The file that marks a directory as a tiny build of this module (the only kind it overwrites).
MARKER = ".cinecap-tiny-model"


def is_tiny_build(path: str | Path) -> bool:
    """Whether ``path`` is a directory this module built (it holds the :data:`MARKER` file)."""
    return (Path(path) / MARKER).is_file()


def build_tiny_model(out_dir: str | Path, family: str = "qwen3_vl", seed: int = 0,
                     force: bool = False) -> Path:
    """Build a tiny random ``family`` checkpoint in ``out_dir`` (created) and return its path.

    Deterministic for a given seed. Takes a second or two on a CPU; the directory holds well under
    a few MB (config, safetensors weights, tokenizer, processor and chat template) and the
    :data:`MARKER` file. A non-empty directory is overwritten only when it is a previous tiny
    build (it has the marker) or ``force`` is set: a real checkpoint there is never replaced by
    accident.
    """
    import json

    import torch
    from transformers import GenerationConfig

    spec = TinySpec(family=family, seed=seed)
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not is_tiny_build(out) and not force:
        raise InputError(f"{out} is not empty and is not a tiny model built by this command (no "
                         f"{MARKER} file): choose an empty directory, or pass --force to "
                         f"overwrite what is there")
    out.mkdir(parents=True, exist_ok=True)

    tokenizer = build_tokenizer(spec.vocab_size)
    processor = build_processor(family, tokenizer)
    config = build_config(spec, tokenizer)
    torch.manual_seed(seed)
    model = model_class(family)(config).to(torch.float32).eval()
    eos = [tokenizer.convert_tokens_to_ids("<|im_end|>"), tokenizer.convert_tokens_to_ids("<|endoftext|>")]
    model.generation_config = GenerationConfig(
        eos_token_id=eos, pad_token_id=tokenizer.pad_token_id, bos_token_id=eos[1],
        do_sample=False, max_new_tokens=TINY_MAX_NEW_TOKENS)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    (out / MARKER).write_text(json.dumps({"made_by": "cinecap tiny-model", "family": family,
                                          "seed": seed}) + "\n")
    n = sum(p.numel() for p in model.parameters())
    log.info("built a tiny %s (%d parameters, vocabulary %d) in %s", family, n, len(tokenizer), out)
    return out


def checkpoint_summary(path: str | Path) -> dict:
    """Family, parameter count and size on disk of a checkpoint directory (reads config only)."""
    import json

    path = Path(path)
    cfg = json.loads((path / "config.json").read_text())
    from safetensors import safe_open

    n = 0
    for f in path.glob("*.safetensors"):
        with safe_open(str(f), "pt") as st:
            for k in st.keys():
                n += _numel(st.get_slice(k).get_shape())
    return {"path": str(path), "family": cfg.get("model_type"), "parameters": n,
            "bytes": sum(f.stat().st_size for f in path.iterdir() if f.is_file()),
            "files": sorted(f.name for f in path.iterdir())}


def _numel(shape: list[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n
