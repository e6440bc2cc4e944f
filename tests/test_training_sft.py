"""SFT rounds on the tiny offline Qwen3-VL and real clips: the loss falls, the video reaches the
training forward pass, prompt and padding are masked, a resumed run continues exactly, and the
model version directory loads in the vlm captioner."""
from __future__ import annotations

import functools
import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from cinecap.training import data as td
from cinecap.training import modeling
from cinecap.training.config import SFTConfig
from cinecap.training.sft import SFTRun, VideoCollator
from cinecap.training.version import MARKER, is_complete
from tests.support.tiny_models import tiny_checkpoint
from tests.support.training import (SHORT, VisionCalls, gold_pairs,  # noqa: F401 - autouse
                                    one_thread, small_config)

_cfg = functools.partial(small_config, SFTConfig, seed=0)

# transformers 5.2x renames gradient → activation checkpointing; TRL still calls the old names.
pytestmark = pytest.mark.filterwarnings("ignore:.*is deprecated.*activation_checkpointing:FutureWarning")


@pytest.fixture(scope="module")
def gold(tmp_path_factory) -> Path:
    return gold_pairs(tmp_path_factory.mktemp("gold"))


@pytest.fixture(scope="module")
def full_run(gold, tmp_path_factory):
    """A full fine-tune of 8 steps on the three gold pairs, with a hook on the vision tower."""
    out = tmp_path_factory.mktemp("sft") / "full"
    events: list[dict] = []
    run = SFTRun(_cfg(gold, out, finetune="full", learning_rate=3e-3, max_steps=8, save_steps=4),
                 events=events.append).prepare()
    hook = VisionCalls(run.model)
    captioner = run.trainer.data_collator.builder.captioner
    decoded: list[str] = []
    sample = captioner.sample
    captioner.sample = lambda clip, *a, **kw: decoded.append(str(clip)) or sample(clip, *a, **kw)
    path = run.run()
    return {"run": run, "events": events, "hook": hook, "path": path, "decoded": decoded}


@pytest.mark.slow
def test_sft_loss_falls(full_run):
    losses = [e["loss"] for e in full_run["events"] if e["event"] == "step"]
    assert len(losses) == 8
    assert sum(losses[-3:]) / 3 < losses[0] - 0.3, losses


@pytest.mark.slow
def test_the_video_reaches_the_training_forward_pass(full_run):
    trained = [c for c in full_run["hook"].calls if c["grad"]]
    assert len(trained) >= 8  # every optimizer step's forward saw the clip's frames
    for c in trained:
        assert c["rows"] == c["patches"] > 0  # all patches of the video, not placeholders alone
        assert c["std"] > 0.01  # real pixels, not zeros
    # ... decoded once per clip: 8 steps on 3 clips (modeling.PROMPT_CACHE keeps the tensors)
    assert sorted(full_run["decoded"]) == sorted(set(full_run["decoded"]))
    assert len(full_run["decoded"]) == 3


@pytest.mark.slow
def test_a_full_fine_tune_is_a_complete_model_version(full_run, gold):
    path = full_run["path"]
    assert is_complete(path) and (path / MARKER).is_file()
    run_cfg = json.loads((path / "run_config.json").read_text())
    assert run_cfg["stage"] == "sft" and run_cfg["config"]["finetune"] == "full"
    assert run_cfg["config"]["learning_rate"] == 3e-3 and "transformers" in run_cfg["versions"]
    info = json.loads((path / "data.json").read_text())
    assert info["data_hash"] == td.data_hash(td.load_pairs(gold))
    assert info["split"]["unit"] == "clip" and len(info["split"]["train_clips"]) == 3
    assert info["sft"]["cot"] == "atomic" and info["sft"]["cot_lines"] >= 6
    metrics = json.loads((path / "metrics.json").read_text())
    assert metrics["steps"] == 8 and metrics["weights"] == "full"
    assert (path / "config.json").is_file() and not (path / "checkpoints").exists()
    lines = (path / "events.jsonl").read_text().splitlines()
    assert [json.loads(x)["event"] for x in lines][-1] == "done"


def test_prompt_video_and_padding_are_masked_out_of_the_loss(gold):
    from transformers import AutoProcessor

    cfg = _cfg(gold, Path("unused"))
    processor = AutoProcessor.from_pretrained(tiny_checkpoint())
    builder = modeling.InputBuilder(processor, "qwen3_vl", cfg)
    samples = td.sft_samples(td.load_pairs(gold)[:2], "atomic", anchors=None)
    batch = VideoCollator(builder)([{"sample": s.index, "video_path": s.video_path,
                                     "target": s.target} for s in samples])
    video_pad = processor.tokenizer.convert_tokens_to_ids("<|video_pad|>")
    merge = processor.video_processor.merge_size ** 2
    assert int((batch["input_ids"] == video_pad).sum()) * merge == batch["pixel_values_videos"].shape[0]
    for row, s in enumerate(samples):
        target = builder.completion_ids(s.target)
        labels = batch["labels"][row]
        learned = labels[labels != -100].tolist()
        assert learned == target  # exactly the assistant text and its end token
        assert (batch["input_ids"][row][labels != -100] == labels[labels != -100]).all()
        assert not ((batch["input_ids"][row] == video_pad) & (labels != -100)).any()
        n = int(batch["attention_mask"][row].sum())
        assert (labels[n:] == -100).all() and (batch["input_ids"][row][n:] == builder.pad_id).all()
    assert batch["sample_index"].tolist() == [0, 1]


class Stop(Exception):
    """Raised from the event sink: the run dies at that point, as a killed process would."""


@pytest.mark.slow
def test_a_resumed_lora_run_continues_from_its_checkpoint(gold, tmp_path):
    # A seed that holds one of the three clips out, so the held-out loss is measured too.
    seed = next(s for s in range(100)
                if len(td.load_dataset(gold, 0.4, s).split.heldout_clips) == 1)
    common = dict(learning_rate=2e-2, max_steps=6, save_steps=2, anchors="off",
                  eval_fraction=0.4, seed=seed, gradient_checkpointing=True)  # LoRA's own path
    straight: list[dict] = []
    a = SFTRun(_cfg(gold, tmp_path / "a", **common), events=straight.append).prepare().run()

    interrupted: list[dict] = []

    def die_at_step_5(e: dict) -> None:
        interrupted.append(e)
        if e["event"] == "step" and e["step"] == 5:
            raise Stop

    with pytest.raises(Stop):
        SFTRun(_cfg(gold, tmp_path / "b", **common), events=die_at_step_5).prepare().run()
    b_dir = tmp_path / "b"
    assert not is_complete(b_dir) and (b_dir / "checkpoints" / "checkpoint-4").is_dir()
    assert not (b_dir / "adapter_config.json").exists()  # no weights a loader could mistake

    resumed: list[dict] = []
    b = SFTRun(_cfg(gold, b_dir, **common), events=resumed.append, resume=True).prepare().run()
    start = next(e for e in resumed if e["event"] == "start")
    assert start["resume_from"].endswith("checkpoint-4")

    def order(events):
        return {e["step"]: e["samples"] for e in events if e["event"] == "step"}

    first, second = order(interrupted), order(resumed)
    assert sorted(second) == [5, 6]  # the resumed run did only what was left
    assert {**{k: v for k, v in first.items() if k <= 4}, **second} == order(straight)
    metrics = json.loads((b / "metrics.json").read_text())
    assert metrics["steps"] == 6 and is_complete(b) and metrics["heldout_loss"] > 0
    held = json.loads((b / "data.json").read_text())["split"]["heldout_pairs"]
    assert len(held) == 1 and held[0] not in {i for s in order(straight).values() for i in s}

    from safetensors.torch import load_file
    import torch

    wa, wb = load_file(str(a / "adapter_model.safetensors")), load_file(str(b / "adapter_model.safetensors"))
    assert wa.keys() == wb.keys()
    assert all(torch.allclose(wa[k], wb[k], atol=1e-6) for k in wa)

    # The adapter names its base by an absolute path, so the directory loads on its own.
    adapter_cfg = json.loads((b / "adapter_config.json").read_text())
    assert adapter_cfg["base_model_name_or_path"] == str(Path(tiny_checkpoint()).resolve())
    assert not (b / "config.json").exists()


@pytest.mark.slow
def test_the_version_directory_captions_a_clip_in_the_vlm_captioner(full_run, carphone):
    from cinecap.cli import main

    buf = io.StringIO()
    with redirect_stdout(buf):
        code = main(["caption", str(carphone), "--captioner", "vlm", "--model",
                     str(full_run["path"]), *SHORT, "--json"])
    assert code == 0
    result = json.loads(buf.getvalue())
    assert result["captioner"] == "vlm" and result["meta"]["model"] == str(full_run["path"])
    assert result["meta"]["generated_tokens"] > 0 and result["meta"]["frames"] >= 4
