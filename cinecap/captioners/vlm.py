"""The ``vlm`` captioner: a Qwen3-VL / Qwen2.5-VL checkpoint run with transformers.

Loads a hub id or a local directory (``model=``, else ``CINECAP_MODEL``), optionally with a LoRA
adapter (peft), once per captioner; bf16 on a GPU, float32 on the CPU. Video is sampled as the
released inference samples it (docs/spec/method.md, docs/protocol.md): through qwen-vl-utils 0.0.14
(``cinecap.video.sample_frames_released``): 2 fps, 4–80 frames evenly spaced with the first and
last, an even count, each frame resized to the inference pixel budget (128–768 visual tokens;
``pixel_budget="training"``: 64–256), the same frames and sizes as ``qwen_vl_utils.fetch_video``.
They reach the processor unresized, with their timestamps (the frames' source indices and the
clip's fps), so Qwen3-VL writes ``<t seconds>`` before each frame and Qwen2.5-VL gets the right
temporal positions. Decoding is greedy, up to 4096 new tokens, by default. On a Hugging Face ZeroGPU Space the
generation runs inside ``spaces.GPU``; elsewhere that import is never attempted.
"""
from __future__ import annotations

import functools
import json
import logging
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cinecap import config as cfg
from cinecap.captioners.base import Captioner, CaptionResult
from cinecap.captioners.model_output import result_from_text
from cinecap.captioners.prompts import SYSTEM_PROMPT, anchors_hints, chat_messages
from cinecap.errors import CaptionerError, InputError, UnavailableError
from cinecap.progress import Progress, no_progress
from cinecap.video import PIXEL_BUDGETS, sampling_id

log = logging.getLogger(__name__)

ENV_MODEL = "CINECAP_MODEL"
ENV_ADAPTER = "CINECAP_ADAPTER"
FAMILIES = ("qwen3_vl", "qwen3_vl_moe", "qwen2_5_vl", "qwen2_vl")
DTYPES = ("auto", "bfloat16", "float16", "float32")
QWEN3_VIDEO_SLOT = "<|vision_start|><|video_pad|><|vision_end|>"
DEFAULT_MAX_NEW_TOKENS = 4096  # the released evaluation decoding (docs/spec/method.md)
#: Qwen-VL's vision special tokens: a model must never generate them (a random or young policy
#: would). The tiny test checkpoint (cinecap.testing.tiny) has the same ones.
VISION_TOKENS = ("<|vision_start|>", "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>",
                 "<|video_pad|>")


@dataclass(frozen=True)
class VLMConfig:
    """What to load and how to run it. :meth:`from_env` fills ``model`` and ``adapter`` from the
    environment; device and dtype default to the hardware's best."""

    model: str | None = field(default=None, metadata={
        "help": f"checkpoint directory or hub id (e.g. hector-mao/CineCap-GRPO-8B); env {ENV_MODEL}",
        "flag": True})
    adapter: str | None = field(default=None, metadata={
        "help": f"LoRA adapter directory or hub id (peft); env {ENV_ADAPTER}", "flag": True})
    device: str | None = field(default=None, metadata={
        "help": "cuda, cuda:1, cpu or mps; default: cuda when available"})
    dtype: str | None = field(default=None, metadata={
        "help": "weights' dtype; default: bfloat16 on a GPU that supports it, else float32",
        "choices": DTYPES})
    max_new_tokens: int | None = field(default=None, metadata={
        "help": "longest answer in tokens; None: 4096, the released evaluation decoding, whatever "
                "the checkpoint's generation_config says (a different value there is logged, "
                "never silently used)"})
    hints: bool = field(default=False, metadata={
        "help": "add the anchors captioner's evidence to the prompt"})
    fps: float = field(default=2.0, metadata={
        "help": "frames per second sampled (the released sampling: 2 fps)"})
    min_frames: int = field(default=4, metadata={"help": "at least this many frames"})
    max_frames: int = field(default=80, metadata={"help": "at most this many frames"})
    pixel_budget: str = field(default="inference", metadata={
        "help": "per-frame pixel budget: inference (128-768 visual tokens, the released "
                "inference's qwen-vl-utils defaults) or training (64-256, the released training)",
        "choices": tuple(PIXEL_BUDGETS)})
    min_tokens_per_frame: int | None = field(default=None, metadata={
        "help": "at least this many visual tokens per frame; None: the pixel budget's"})
    max_tokens_per_frame: int | None = field(default=None, metadata={
        "help": "at most this many visual tokens per frame; None: the pixel budget's"})
    decode_max_side: int | None = field(default=None, metadata={
        "help": "shrink frames on decode to this long side first (faster, not the release's); "
                "None: decode at full size, as released"})
    do_sample: bool = field(default=False, metadata={"help": "sample instead of greedy decoding"})
    temperature: float = field(default=1.0, metadata={
        "help": "with do_sample only (GRPO sampling: 1.0, top-p 0.99, top-k 50)"})
    top_p: float = field(default=0.99, metadata={"help": "with do_sample only: nucleus mass"})
    top_k: int = field(default=50, metadata={"help": "with do_sample only: top-k (0: off)"})
    batch_size: int = field(default=4, metadata={"help": "clips per generate call in caption_many"})
    prompt: str | None = field(default=None, metadata={
        "help": "the user prompt; None: the released one"})
    system_prompt: str = field(default=SYSTEM_PROMPT, metadata={
        "help": "the system turn; default: the released one"})
    merge_adapter: bool = field(default=True, metadata={
        "help": "fold the LoRA weights into the model (faster generation)"})
    attn_implementation: str | None = field(default=None, metadata={
        "help": "attention kernel, e.g. sdpa or flash_attention_2; default: transformers' choice"})
    local_files_only: bool = field(default=False, metadata={
        "help": "never reach the hub, even for a hub id"})

    def __post_init__(self) -> None:
        if self.dtype is not None and self.dtype not in DTYPES:
            raise InputError(f"dtype must be one of {', '.join(DTYPES)}, not {self.dtype!r}")
        if (self.max_new_tokens is not None and self.max_new_tokens < 1) or self.batch_size < 1:
            raise InputError("max_new_tokens and batch_size must be at least 1")
        if self.fps <= 0 or not (1 <= self.min_frames <= self.max_frames):
            raise InputError("need fps > 0 and 1 <= min_frames <= max_frames")
        if self.pixel_budget not in PIXEL_BUDGETS:
            raise InputError(f"pixel_budget must be one of {', '.join(PIXEL_BUDGETS)}, not "
                             f"{self.pixel_budget!r}")
        lo, hi = self.tokens_per_frame
        if not 1 <= lo <= hi:
            raise InputError("need 1 <= min_tokens_per_frame <= max_tokens_per_frame")
        if self.decode_max_side is not None and self.decode_max_side < 16:
            raise InputError("decode_max_side must be at least 16 pixels")
        if self.do_sample and not (self.temperature > 0 and 0 < self.top_p <= 1 and self.top_k >= 0):
            raise InputError("sampling needs temperature > 0, 0 < top_p <= 1 and top_k >= 0")
        if self.model and not _looks_like_hub_id(self.model) and not Path(self.model).exists():
            raise InputError(f"model {self.model!r} is neither a local directory nor a hub id "
                             f"(owner/name)")

    @property
    def tokens_per_frame(self) -> tuple[int, int]:
        """(min, max) visual tokens per frame in force: the options, else the pixel budget's (a
        max below the budget's min lowers the min with it)."""
        lo, hi = PIXEL_BUDGETS.get(self.pixel_budget, PIXEL_BUDGETS["inference"])
        hi = self.max_tokens_per_frame if self.max_tokens_per_frame is not None else hi
        lo = self.min_tokens_per_frame if self.min_tokens_per_frame is not None else min(lo, hi)
        return int(lo), int(hi)

    @property
    def sampling(self) -> str:
        """The sampling's name for a bench result (``released-inference``, …)."""
        lo, hi = self.tokens_per_frame
        return sampling_id(self.fps, self.min_frames, self.max_frames, lo, hi,
                           self.decode_max_side)

    def decoding(self, max_new_tokens: int) -> str:
        if not self.do_sample:
            return f"greedy/{max_new_tokens}"
        return (f"sample:t={self.temperature:g},top_p={self.top_p:g},top_k={self.top_k}"
                f"/{max_new_tokens}")

    @classmethod
    def from_env(cls, **overrides: Any) -> "VLMConfig":
        """Explicit values win; None (or an empty string) falls back to the environment."""
        cfg.check_options("vlm captioner", cfg.option_names(cls), overrides)
        overrides = {k: (None if v == "" else v) for k, v in overrides.items()}
        return cls(**cfg.from_env_values(cls, {"model": ENV_MODEL, "adapter": ENV_ADAPTER},
                                         os.environ, overrides))


def _looks_like_hub_id(name: str) -> bool:
    parts = name.split("/")
    return (len(parts) == 2 and all(parts) and not name.startswith((".", "/", "~"))
            and not Path(name).exists())


# --- hardware ------------------------------------------------------------------------------------

def _on_zero_gpu() -> bool:
    return os.environ.get("SPACES_ZERO_GPU", "").lower() in ("1", "true")


def default_device() -> str:
    import torch

    if torch.cuda.is_available() or _on_zero_gpu():  # ZeroGPU attaches the GPU per call
        return "cuda"
    return "cpu"


def default_dtype(device: str) -> str:
    import torch

    if device.startswith("cuda"):
        if _on_zero_gpu() or (torch.cuda.is_available() and torch.cuda.is_bf16_supported()):
            return "bfloat16"
        return "float16"
    return "float32"  # CPUs: bf16 matmuls are slow or missing on most of them


# --- loading (once per process per checkpoint) -----------------------------------------------

@dataclass(frozen=True)
class LoadedModel:
    model: Any
    processor: Any
    family: str
    device: str
    dtype: str
    suppress: tuple[int, ...]  # vision token ids a model must not generate


def adapter_chain(model: str) -> tuple[str, list[str]]:
    """(base checkpoint, LoRA adapters to apply in order) for ``model``.

    A training round's model version directory that holds a LoRA adapter has no ``config.json``;
    its ``adapter_config.json`` names its base, which may itself be such a directory (GRPO on top of
    an SFT adapter). Anything else is its own base, with no adapters.
    """
    chain: list[str] = []
    while True:
        p = Path(model)
        if not ((p / "adapter_config.json").is_file() and not (p / "config.json").is_file()):
            return model, chain[::-1]
        if str(p.resolve()) in {str(Path(c).resolve()) for c in chain} or len(chain) > 16:
            raise InputError(f"adapter directory {model!r} names itself as its base, in a loop")
        chain.append(model)
        try:
            base = json.loads((p / "adapter_config.json").read_text())["base_model_name_or_path"]
        except (OSError, ValueError, KeyError, TypeError):
            raise InputError(f"{model!r} holds an adapter that names no base model "
                             f"(base_model_name_or_path in adapter_config.json)") from None
        model = str(base)


@functools.lru_cache(maxsize=2)
def load_model(model: str, adapter: str | None, device: str, dtype: str,
               merge_adapter: bool = True, attn_implementation: str | None = None,
               local_files_only: bool = False) -> LoadedModel:
    """Load processor + model (+ adapter). Cached: captioners that share a checkpoint share it."""
    import torch
    from transformers import AutoConfig, AutoModelForImageTextToText, AutoProcessor

    t0 = time.perf_counter()
    kw = {"local_files_only": local_files_only}
    version, (model, stacked) = model, adapter_chain(model)  # a LoRA model version: base + adapters
    try:
        config = AutoConfig.from_pretrained(model, **kw)
    except (OSError, ValueError) as e:
        raise CaptionerError(f"could not load model {model!r}: {_first_line(e)}. Give a local "
                             f"checkpoint directory, or a hub id on a machine with internet "
                             f"access") from None
    family = getattr(config, "model_type", "")
    if family not in FAMILIES:
        raise InputError(f"model {model!r} is a {family or 'unknown'} checkpoint; the vlm captioner "
                         f"runs {', '.join(FAMILIES)}")
    try:
        processor = AutoProcessor.from_pretrained(model, **kw)
        load_kw: dict[str, Any] = {"dtype": getattr(torch, dtype), **kw}
        if attn_implementation:
            load_kw["attn_implementation"] = attn_implementation
        if device.startswith("cuda") and not _on_zero_gpu():
            # Straight onto the GPU: an 8B model never passes through 17 GB of host memory.
            # (ZeroGPU wants a plain .to("cuda") at start-up instead; it attaches the GPU later.)
            load_kw["device_map"] = device
        net = AutoModelForImageTextToText.from_pretrained(model, **load_kw)
    except (OSError, ValueError) as e:
        raise CaptionerError(f"could not load model {model!r}: {_first_line(e)}") from None
    for a in stacked:  # a model version's adapters, merged in order
        net = _with_adapter(net, a, True, local_files_only)
    if adapter:
        net = _with_adapter(net, adapter, merge_adapter, local_files_only)
    net = net.to(device).eval()
    suppress = _prepare_tokenizer(processor.tokenizer)
    n = sum(p.numel() for p in net.parameters())
    log.info("loaded %s (%s, %.1f M parameters%s) on %s in %s in %.1f s", version, family, n / 1e6,
             f", adapter {adapter}" if adapter else "", device, dtype, time.perf_counter() - t0)
    return LoadedModel(net, processor, family, device, dtype, suppress)


def _prepare_tokenizer(tok: Any) -> tuple[int, ...]:
    """Left padding for batched generation; returns the vision token ids to suppress."""
    tok.padding_side = "left"  # batched generation continues from the right edge
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tuple(vision_token_ids(tok))


def vision_token_ids(tokenizer: Any) -> list[int]:
    """Ids of the vision special tokens the tokenizer has (pass them as ``suppress_tokens``)."""
    unk = getattr(tokenizer, "unk_token_id", None)
    ids = (tokenizer.convert_tokens_to_ids(t) for t in VISION_TOKENS)
    return [i for i in ids if isinstance(i, int) and i >= 0 and i != unk]


def _with_adapter(net: Any, adapter: str, merge: bool, local_files_only: bool) -> Any:
    try:
        from peft import PeftModel
    except ImportError:
        raise UnavailableError("LoRA adapters need the peft package (pip install peft)") from None
    try:
        net = PeftModel.from_pretrained(net, adapter, local_files_only=local_files_only)
    except (OSError, ValueError) as e:
        raise CaptionerError(f"could not load adapter {adapter!r}: {_first_line(e)}") from None
    return net.merge_and_unload() if merge else net


def _first_line(e: Exception) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0][:300]


# --- generation ----------------------------------------------------------------------------

def _generate_impl(model: Any, inputs: dict[str, Any], kwargs: dict[str, Any]):
    import torch

    with torch.inference_mode():
        return model.generate(**inputs, **kwargs)


def _zero_gpu(fn):
    """On a ZeroGPU Space, run ``fn`` inside ``spaces.GPU``; elsewhere leave it alone."""
    if not _on_zero_gpu():
        return fn
    try:
        import spaces
    except ImportError:
        return fn
    return spaces.GPU(duration=120)(fn)


_generate = _zero_gpu(_generate_impl)

#: The share of a caption's progress its generation spans: decoding and preparing come before.
GENERATE_SPAN = (0.35, 0.95)


class TokenProgress:
    """A ``generate`` streamer (transformers' ``BaseStreamer`` protocol: ``put``, ``end``) that
    reports the tokens made so far against ``max_new_tokens``: "generating: 312 of at most 4096
    tokens". ``generate`` puts the prompt first, then one token per sequence each step (any batch
    size; in transformers 5.24 only beam search refuses a streamer). About a hundred reports per
    generation at most: a Gradio progress bar needs no more, and each one is a message."""

    def __init__(self, progress: Progress, max_new_tokens: int,
                 span: tuple[float, float] = GENERATE_SPAN):
        self.progress, self.max, (self.lo, self.hi) = progress, max(1, int(max_new_tokens)), span
        self.every = max(1, self.max // 100)
        self.tokens = -1  # the first put is the prompt

    def put(self, value: Any) -> None:
        self.tokens += 1
        n = self.tokens
        if n and (n == 1 or n % self.every == 0 or n >= self.max):
            self.progress(self.lo + (self.hi - self.lo) * min(1.0, n / self.max),
                          f"generating: {n} of at most {self.max} tokens")

    def end(self) -> None:
        return None


class VLMCaptioner(Captioner):
    """Captions clips with a Qwen-VL-family model through transformers. Loads on first use."""

    name = "vlm"
    config_class = VLMConfig

    def __init__(self, config: VLMConfig | None = None, **options: Any):
        """``VLMCaptioner(model=…, adapter=…)``: options are :class:`VLMConfig` fields, unset ones
        from the environment; or pass a ready ``config``."""
        self.config = self.configure(config, options)
        self.model_name = self.config.model
        self._loaded: LoadedModel | None = None
        log.info("vlm captioner: %s", asdict(self.config))

    @classmethod
    def from_loaded(cls, model: Any, processor: Any, name: str = "in-memory",
                    **options: Any) -> "VLMCaptioner":
        """A captioner around a model already in memory (a training policy, a benchmark model)."""
        self = cls.__new__(cls)
        cfg.check_options("vlm captioner", cfg.option_names(VLMConfig), options)
        self.config = VLMConfig(**options)
        self.model_name = name
        family = getattr(model.config, "model_type", "")
        if family not in FAMILIES:
            raise InputError(f"a {family or 'unknown'} model; the vlm captioner runs {', '.join(FAMILIES)}")
        suppress = _prepare_tokenizer(processor.tokenizer)
        p = next(model.parameters())
        self._loaded = LoadedModel(model, processor, family, str(p.device),
                                   str(p.dtype).removeprefix("torch."), suppress)
        return self

    @classmethod
    def from_processor(cls, processor: Any, family: str, device: str = "cpu",
                       **options: Any) -> "VLMCaptioner":
        """A captioner that only builds model inputs (``build_inputs``), with no model behind it:
        training collators prepare the same prompt and video tensors as captioning does."""
        if family not in FAMILIES:
            raise InputError(f"a {family or 'unknown'} model; the vlm captioner runs {', '.join(FAMILIES)}")
        self = cls.__new__(cls)
        cfg.check_options("vlm captioner", cfg.option_names(VLMConfig), options)
        self.config = VLMConfig(**{"model": None, **options})
        self.model_name = "inputs-only"
        self._loaded = LoadedModel(None, processor, family, device, "float32",
                                   _prepare_tokenizer(processor.tokenizer))
        return self

    @classmethod
    def needs(cls, config: VLMConfig) -> str:
        import importlib.util

        for pkg in ("torch", "transformers", "torchvision"):
            if importlib.util.find_spec(pkg) is None:
                return f"the {pkg} package is not installed (pip install -r requirements.txt)"
        if not config.model:
            return (f"no model configured: pass --model (a checkpoint directory or hub id such "
                    f"as hector-mao/CineCap-GRPO-8B) or set {ENV_MODEL}")
        return ""

    @property
    def loaded(self) -> LoadedModel:
        if self._loaded is None:
            c = self.config
            device = c.device or default_device()
            dtype = c.dtype if c.dtype not in (None, "auto") else default_dtype(device)
            self._loaded = load_model(c.model, c.adapter, device, dtype, c.merge_adapter,
                                      c.attn_implementation, c.local_files_only)
        return self._loaded

    @property
    def max_new_tokens(self) -> int:
        """The configured limit, else the released 4096 (docs/spec/method.md). A checkpoint whose
        generation_config sets another limit does not override it: that is logged once."""
        if self.config.max_new_tokens is not None:
            return self.config.max_new_tokens
        own = getattr(self.loaded.model.generation_config, "max_new_tokens", None)
        if own and int(own) != DEFAULT_MAX_NEW_TOKENS and not getattr(self, "_said_max", False):
            self._said_max = True
            log.warning("the checkpoint's generation_config sets max_new_tokens=%s; using %d, the "
                        "released evaluation decoding (pass max_new_tokens=%s to use the "
                        "checkpoint's)", own, DEFAULT_MAX_NEW_TOKENS, own)
        return DEFAULT_MAX_NEW_TOKENS

    # --- inputs ------------------------------------------------------------------------------

    def protocol(self) -> dict[str, str]:
        n = self.config.max_new_tokens or DEFAULT_MAX_NEW_TOKENS
        return {"sampling": self.config.sampling, "decoding": self.config.decoding(n)}

    def sample(self, clip: str | Path):
        """The clip's frames as the released inference samples them (the module docstring)."""
        from cinecap.video import sample_frames_released

        c = self.config
        lo, hi = c.tokens_per_frame
        patch = int(getattr(self.loaded.processor.image_processor, "patch_size", 16) or 16)
        return sample_frames_released(clip, fps=c.fps, min_frames=c.min_frames,
                                      max_frames=c.max_frames, patch_size=patch, min_tokens=lo,
                                      max_tokens=hi, decode_max_side=c.decode_max_side)

    def _hints(self, clip: str | Path, warnings: list[str]) -> str:
        return anchors_hints(clip, warnings) if self.config.hints else ""

    def _video_kwargs(self, presized: bool) -> dict[str, Any]:
        """Frames sampled the released way are already at their size: the processor must not
        resize them (``do_resize=False``, as the release calls it). Other frames (a caller's
        own) get the per-frame pixel budget in the form each family's video processor reads it."""
        if presized:
            return {"do_resize": False, "do_sample_frames": False}
        lm = self.loaded
        vp = lm.processor.video_processor
        unit = (vp.patch_size * vp.merge_size) ** 2  # pixels per visual token
        lo, hi = (t * unit for t in self.config.tokens_per_frame)
        if lm.family.startswith("qwen3"):
            # Qwen3-VL budgets a whole video (clips with different frame counts share one call),
            # so its per-frame cap does the work: max_video_tokens is that cap, in tokens.
            vp.max_video_tokens = self.config.tokens_per_frame[1]
            return {"size": {"shortest_edge": lo, "longest_edge": hi * 4096},
                    "do_sample_frames": False, "cap_pixels_per_frame": True}
        return {"size": {"shortest_edge": lo, "longest_edge": hi}, "do_sample_frames": False,
                "cap_pixels_per_frame": False}

    def build_inputs(self, samples: list, hints: list[str]) -> dict[str, Any]:
        """Processor inputs for a batch of sampled clips (text with video placeholders + pixels)."""
        from transformers.video_utils import VideoMetadata

        lm = self.loaded
        texts, videos, metas = [], [], []
        for s, h in zip(samples, hints):
            msgs = chat_messages(None, h, self.config.system_prompt, self.config.prompt)
            text = lm.processor.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
            if lm.family.startswith("qwen3"):
                # Qwen3-VL expands the video into "<t seconds><|vision_start|>…<|vision_end|>" per
                # temporal patch. The reference (qwen-vl-utils, transformers 4.57, vLLM) replaces the
                # template's whole "<|vision_start|><|video_pad|><|vision_end|>" with that;
                # transformers 5.24 replaces only the pad and leaves an extra pair around it. Give
                # it the bare pad so the prompt is the one the released model was trained on.
                text = text.replace(QWEN3_VIDEO_SLOT, "<|video_pad|>")
            texts.append(text)
            videos.append(s.frames)
            # Source indices + source fps: the processor derives each frame's time from them.
            metas.append(VideoMetadata(total_num_frames=s.total_frames, fps=s.fps,
                                       width=s.info.width, height=s.info.height,
                                       duration=s.info.duration,
                                       frames_indices=[int(i) for i in s.indices]))
        kwargs = self._video_kwargs(all(getattr(s, "sampling", "") for s in samples))
        try:
            inputs = lm.processor(text=texts, videos=videos, video_metadata=metas, padding=True,
                                  return_tensors="pt", **kwargs)
        except (ValueError, RuntimeError) as e:
            raise CaptionerError(f"the processor could not prepare the video: {_first_line(e)}") from None
        return inputs.to(lm.device)

    def _generate_kwargs(self) -> dict[str, Any]:
        c = self.config
        kw: dict[str, Any] = {"max_new_tokens": self.max_new_tokens, "do_sample": c.do_sample,
                              "suppress_tokens": list(self.loaded.suppress) or None}
        if c.do_sample:
            kw.update(temperature=c.temperature, top_p=c.top_p, top_k=c.top_k)
        else:  # the checkpoint's sampling defaults would only produce warnings under greedy
            kw.update(temperature=None, top_p=None, top_k=None)
        tok = self.loaded.processor.tokenizer
        kw["pad_token_id"] = tok.pad_token_id
        return kw

    # --- captioning --------------------------------------------------------------------------

    def caption(self, clip: str | Path, progress: Progress | None = None) -> CaptionResult:
        return self._caption_batch([clip], progress or no_progress)[0]

    def caption_many(self, clips: list[str | Path],
                     progress: Progress | None = None) -> list[CaptionResult]:
        progress = progress or no_progress
        out: list[CaptionResult] = []
        bs = self.config.batch_size
        for i in range(0, len(clips), bs):
            done = len(out) / max(1, len(clips))
            span = len(clips[i:i + bs]) / max(1, len(clips))

            def sub(f: float, msg: str, done=done, span=span) -> None:
                progress(done + f * span, msg)

            out.extend(self._caption_batch(clips[i:i + bs],
                                           sub if progress is not no_progress else no_progress))
        return out

    def _caption_batch(self, clips: list[str | Path], progress: Progress) -> list[CaptionResult]:
        import torch

        t0 = time.perf_counter()
        from cinecap.video import probe

        progress(0.0, "checking the clips")
        for c in clips:  # VideoError for a bad clip, before the model loads
            probe(c)
        warnings = [[] for _ in clips]
        if self.config.hints:
            progress(0.02, "analysing the clip for the prompt's evidence")
        hints = [self._hints(c, w) for c, w in zip(clips, warnings)]
        progress(0.1, f"loading {self.model_name}")
        lm = self.loaded
        progress(0.2, "decoding and sampling frames")
        samples = [self.sample(c) for c in clips]
        progress(0.3, f"preparing the model's inputs ({sum(len(s) for s in samples)} frames)")
        inputs = self.build_inputs(samples, hints)
        kwargs = self._generate_kwargs()
        progress(GENERATE_SPAN[0], f"generating: at most {kwargs['max_new_tokens']} tokens")
        if progress is not no_progress and not _on_zero_gpu():  # there: another process
            kwargs["streamer"] = TokenProgress(progress, kwargs["max_new_tokens"])
        t_gen = time.perf_counter()
        try:
            out = _generate(lm.model, dict(inputs), kwargs)
        except torch.cuda.OutOfMemoryError:
            raise CaptionerError("the GPU ran out of memory: lower max_frames, "
                                 "max_tokens_per_frame or batch_size") from None
        gen_s = time.perf_counter() - t_gen
        prompt_len = inputs["input_ids"].shape[1]
        new = out[:, prompt_len:]
        tok = lm.processor.tokenizer
        texts = tok.batch_decode(new, skip_special_tokens=True)
        video_id = tok.convert_tokens_to_ids("<|video_pad|>")
        stop = set(lm.model.generation_config.eos_token_id
                   if isinstance(lm.model.generation_config.eos_token_id, list)
                   else [lm.model.generation_config.eos_token_id])
        stop.add(tok.pad_token_id)
        elapsed = time.perf_counter() - t0
        results = []
        for k, (s, text) in enumerate(zip(samples, texts)):
            ids = new[k].tolist()
            n_new = next((j for j, t in enumerate(ids) if t in stop), len(ids))
            truncated = n_new >= self.max_new_tokens
            if truncated:  # scored as the release scores it, and said (docs/protocol.md)
                warnings[k].append(f"the output hit max_new_tokens={self.max_new_tokens} "
                                   f"(truncated)")
            meta = {
                "model": self.model_name, "adapter": self.config.adapter, "family": lm.family,
                "device": lm.device, "dtype": lm.dtype, "frames": len(s),
                "sampling": s.sampling, "frame_size": [int(s.frames.shape[2]),
                                                       int(s.frames.shape[1])],
                "visual_tokens": int((inputs["input_ids"][k] == video_id).sum()),
                "prompt_tokens": int(inputs["attention_mask"][k].sum()),
                "generated_tokens": n_new, "truncated": truncated, "max_new_tokens":
                self.max_new_tokens, "generate_seconds": gen_s,
                "batch_size": len(clips), "hints": bool(hints[k]),
                "config": asdict(self.config),  # what the scores of this caption depend on
            }
            results.append(result_from_text(text, self.name, elapsed / len(clips), meta, warnings[k]))
        progress(1.0, "done")
        return results
