"""The tiny offline checkpoint factory: real Qwen3-VL / Qwen2.5-VL classes, loadable like any other."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tests.support.cli import cli
from tests.support.tiny_models import tiny_checkpoint

FAMILIES = ["qwen3_vl", "qwen2_5_vl"]


@pytest.mark.parametrize("family", FAMILIES)
def test_checkpoint_loads_with_auto_classes_at_the_tiny_shape(family):
    from transformers import AutoModelForImageTextToText, AutoProcessor

    path = tiny_checkpoint(family)
    size = sum(f.stat().st_size for f in path.iterdir())
    assert size < 2_000_000, f"{size} bytes is not tiny"
    processor = AutoProcessor.from_pretrained(path)
    model = AutoModelForImageTextToText.from_pretrained(path)
    expected = {"qwen3_vl": "Qwen3VLForConditionalGeneration",
                "qwen2_5_vl": "Qwen2_5_VLForConditionalGeneration"}[family]
    assert type(model).__name__ == expected
    assert type(processor).__name__.startswith({"qwen3_vl": "Qwen3VL", "qwen2_5_vl": "Qwen2_5_VL"}[family])
    text = model.config.text_config
    assert (text.hidden_size, text.num_hidden_layers, text.num_attention_heads,
            text.num_key_value_heads) == (32, 2, 4, 2)
    assert model.config.vision_config.depth == 2
    head_dim = text.hidden_size // text.num_attention_heads
    assert sum(text.rope_parameters["mrope_section"]) == head_dim // 2
    assert sum(p.numel() for p in model.parameters()) < 300_000
    assert model.generation_config.max_new_tokens == 64 and not model.generation_config.do_sample
    # The special tokens are single ids that the config points at.
    tok = processor.tokenizer
    assert tok.convert_tokens_to_ids("<|video_pad|>") == model.config.video_token_id
    assert tok.convert_tokens_to_ids("<|image_pad|>") == model.config.image_token_id
    assert len(tok("<|im_start|><|video_pad|><|im_end|>", add_special_tokens=False).input_ids) == 3


def test_tokenizer_round_trips_film_language_and_the_chat_template_is_qwen_style():
    from transformers import AutoProcessor

    from cinecap.captioners.prompts import SYSTEM_PROMPT, chat_messages

    processor = AutoProcessor.from_pretrained(tiny_checkpoint("qwen3_vl"))
    tok = processor.tokenizer
    text = "<think>\n[0.0–1.2] [the background slides left] → the camera pans right\n</think>"
    assert tok.decode(tok(text, add_special_tokens=False).input_ids) == text
    # Byte-level: text it never saw still round-trips.
    odd = "Ünïcödé 🎥 dolly-zoom ½"
    assert tok.decode(tok(odd, add_special_tokens=False).input_ids) == odd
    prompt = processor.apply_chat_template(chat_messages(None), tokenize=False,
                                           add_generation_prompt=True)
    assert prompt.startswith(f"<|im_start|>system\n{SYSTEM_PROMPT}<|im_end|>\n<|im_start|>user\n")
    assert "<|vision_start|><|video_pad|><|vision_end|>Describe the cinematic aspects" in prompt
    assert prompt.endswith("<|im_start|>assistant\n")


@pytest.mark.parametrize("family", FAMILIES)
def test_forward_and_backward_on_video_frames_reach_every_part_of_the_model(family):
    import torch
    from transformers import AutoModelForImageTextToText, AutoProcessor
    from transformers.video_utils import VideoMetadata

    from cinecap.captioners.prompts import chat_messages

    path = tiny_checkpoint(family)
    processor = AutoProcessor.from_pretrained(path)
    model = AutoModelForImageTextToText.from_pretrained(path)
    frames = np.random.default_rng(0).integers(0, 255, (4, 112, 112, 3), dtype=np.uint8)
    meta = VideoMetadata(total_num_frames=50, fps=25.0, frames_indices=[0, 12, 25, 37],
                         duration=2.0, width=112, height=112)
    prompt = processor.apply_chat_template(chat_messages(None), tokenize=False,
                                           add_generation_prompt=True) + "it is a wide shot"
    inputs = processor(text=[prompt], videos=[frames], video_metadata=[meta],
                       do_sample_frames=False, return_tensors="pt")
    assert int((inputs["input_ids"] == model.config.video_token_id).sum()) > 0
    out = model(**inputs, labels=inputs["input_ids"])
    assert torch.isfinite(out.loss)
    out.loss.backward()
    grads = {n: p.grad for n, p in model.named_parameters()}
    assert any(g is not None and g.abs().sum() > 0 for n, g in grads.items() if "visual" in n)
    assert any(g is not None and g.abs().sum() > 0 for n, g in grads.items() if "language" in n)


def test_same_seed_gives_the_same_weights_and_another_seed_differs(tmp_path):
    from safetensors.torch import load_file

    from cinecap.testing.tiny import build_tiny_model

    a = load_file(build_tiny_model(tmp_path / "a", seed=1) / "model.safetensors")
    b = load_file(build_tiny_model(tmp_path / "b", seed=1) / "model.safetensors")
    c = load_file(build_tiny_model(tmp_path / "c", seed=2) / "model.safetensors")
    assert a.keys() == b.keys() == c.keys()
    assert all((a[k] == b[k]).all() for k in a)
    assert any(not (a[k] == c[k]).all() for k in a)


def test_bad_family_and_occupied_directory_are_clear_errors(tmp_path):
    from cinecap.errors import InputError
    from cinecap.testing.tiny import build_tiny_model

    with pytest.raises(InputError, match="qwen3_vl"):
        build_tiny_model(tmp_path / "x", family="llama")
    (tmp_path / "occupied").mkdir()
    (tmp_path / "occupied" / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="not empty"):
        build_tiny_model(tmp_path / "occupied")
    assert (tmp_path / "occupied" / "notes.txt").read_text() == "mine"


def test_cli_builds_a_checkpoint_and_reports_it(tmp_path):
    out = tmp_path / "tiny"
    proc = cli("tiny-model", str(out), "--family", "qwen2_5_vl", "--json")
    summary = proc.json()
    assert summary["family"] == "qwen2_5_vl"
    assert 50_000 < summary["parameters"] < 300_000
    assert "model.safetensors" in summary["files"] and "tokenizer.json" in summary["files"]
    assert json.loads((out / "config.json").read_text())["model_type"] == "qwen2_5_vl"
    assert "Traceback" not in proc.stderr

    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "a.txt").write_text("x")
    busy = cli("tiny-model", str(tmp_path / "full"))
    assert busy.returncode == 2
    assert busy.stderr.startswith("error:") and "not empty" in busy.stderr


def test_a_real_checkpoint_is_never_overwritten_without_force(tmp_path, capsys):
    """Issue 10: any folder with a config.json counted as a previous tiny build, and a 1 MB
    model.safetensors was replaced with exit 0. Only the marker this command writes counts."""
    from cinecap.cli import main
    from cinecap.testing.tiny import MARKER

    real = tmp_path / "my-checkpoint"
    real.mkdir()
    (real / "config.json").write_text('{"model_type": "qwen3_vl"}')
    weights = bytes(range(256)) * 4096  # 1 MB that is not ours
    (real / "model.safetensors").write_bytes(weights)
    assert main(["tiny-model", str(real)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "not a tiny model built by this command" in err
    assert "--force" in err and (real / "model.safetensors").read_bytes() == weights

    # A tiny build is rebuilt in place (its marker says so); --force overwrites anything.
    assert main(["tiny-model", str(real), "--force"]) == 0
    assert (real / "model.safetensors").read_bytes() != weights and (real / MARKER).is_file()
    assert main(["tiny-model", str(real), "--seed", "3"]) == 0
    assert '"seed": 3' in (real / MARKER).read_text()


def test_the_tiny_model_command_as_a_program(tmp_path):
    """A real process: usage errors are argparse's one line, before anything heavy is imported."""
    bad = cli("tiny-model", str(tmp_path / "y"), "--family", "llama", subprocess_run=True)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr and "Traceback" not in bad.stderr
