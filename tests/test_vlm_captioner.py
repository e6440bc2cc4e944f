"""The ``vlm`` captioner on real tiny Qwen3-VL / Qwen2.5-VL checkpoints and real clips, on the CPU.

A random model writes gibberish; what these tests check is everything around it: the clip is
sampled as docs/spec/method.md says, the processor sees the frames' timestamps and the pixel budget, the
model loads once, adapters change the weights, the output is parsed without ever crashing, bad
input is a clear error, and the CLI gives the JSON contract.
"""
from __future__ import annotations

import json
import math
import sys

import pytest

from cinecap.captioners import availability, get_captioner
from cinecap.errors import CaptionerError, InputError, UnavailableError, VideoError
from tests.conftest import ROOT
from tests.support.cli import cli
from tests.support.tiny_models import tiny_checkpoint

FAMILIES = ["qwen3_vl", "qwen2_5_vl"]
_MODEL_ENV = ("CINECAP_MODEL", "CINECAP_ADAPTER")
_OPENAI_ENV = ("CINECAP_OPENAI_BASE_URL", "CINECAP_OPENAI_MODEL", "OPENAI_API_KEY")


@pytest.fixture(autouse=True)
def _no_env(monkeypatch):
    monkeypatch.delenv("CINECAP_MODEL", raising=False)
    monkeypatch.delenv("CINECAP_ADAPTER", raising=False)


def _vlm(family="qwen3_vl", **options):
    options.setdefault("max_new_tokens", 24)
    return get_captioner("vlm", model=str(tiny_checkpoint(family)), **options)


def test_captions_a_real_10s_clip_on_the_cpu_and_reports_what_it_did(bikes):
    result = _vlm().caption(bikes)
    m = result.meta
    assert result.captioner == "vlm"
    assert (m["device"], m["dtype"], m["family"]) == ("cpu", "float32", "qwen3_vl")
    assert m["frames"] == 20  # 10 s at 2 fps
    assert m["visual_tokens"] > 0 and m["prompt_tokens"] > m["visual_tokens"]
    assert 1 <= m["generated_tokens"] <= 24
    assert (m["config"]["fps"], m["config"]["max_frames"], m["config"]["do_sample"]) == (2.0, 80, False)
    # Random weights: the parse says what is wrong instead of crashing or inventing a caption.
    assert m["well_formed"] is False and result.warnings
    assert result.statements == [] or result.caption
    assert json.loads(json.dumps(result.to_dict()))["captioner"] == "vlm"


@pytest.mark.parametrize("family", FAMILIES)
def test_both_families_see_the_frames_with_their_timestamps(family, small_clip):
    from cinecap.video import sample_frames_released

    cap = _vlm(family)
    sampled = cap.sample(small_clip)
    patch = 16 if family == "qwen3_vl" else 14  # the processor's: the release passes it too
    ref = sample_frames_released(small_clip, patch_size=patch)
    assert sampled.indices.tolist() == ref.indices.tolist() and sampled.sampling == \
        "released-inference" and sampled.frames.shape == ref.frames.shape
    inputs = cap.build_inputs([sampled], [""])
    h, w = sampled.frames.shape[1:3]
    # The released frames reach the model at their size: no second resize by the processor.
    assert inputs["video_grid_thw"][0].tolist()[1:] == [h // patch, w // patch]
    text = cap.loaded.processor.tokenizer.decode(inputs["input_ids"][0])
    grid = inputs["video_grid_thw"][0]
    assert grid[0] == math.ceil(len(sampled) / 2)  # temporal patches of two frames
    assert text.count("<|video_pad|>") == int(grid.prod()) // 4  # 2x2 spatial merge
    if family == "qwen3_vl":
        # Two frames per temporal patch; each patch is announced by the mean time of its frames.
        t = list(sampled.timestamps)
        expected = [f"<{(t[i] + t[i + 1]) / 2:.1f} seconds>" for i in range(0, len(t), 2)]
        assert [w for w in expected if w in text] == expected
        # The reference layout: "<t seconds><|vision_start|>pads<|vision_end|>" per patch, and
        # no extra pair around the whole video.
        assert text.count("<|vision_start|>") == len(expected) == text.count("<|vision_end|>")
        assert f"{expected[0]}<|vision_start|><|video_pad|>" in text
        assert "<|vision_start|><" not in text.replace("<|vision_start|><|video_pad|>", "")
    else:
        # Qwen2.5-VL: temporal positions from seconds per temporal patch (2 frames at 2 fps = 1 s).
        assert inputs["second_per_grid_ts"].tolist() == pytest.approx([1.0], rel=0.05)
    assert "Describe the cinematic aspects" in text
    result = cap.caption(small_clip)
    assert result.meta["frames"] == 4 and result.meta["family"] == family


@pytest.mark.slow  # several seconds on 2 shared cores
def test_per_frame_token_budget_bounds_the_visual_tokens(bigbuckbunny):
    big = _vlm(max_tokens_per_frame=256).caption(bigbuckbunny).meta
    small = _vlm(max_tokens_per_frame=16).caption(bigbuckbunny).meta
    assert big["frames"] == small["frames"] == 10  # 5.28 s at 2 fps: 10.56, an even count
    grids = math.ceil(small["frames"] / 2)
    assert small["visual_tokens"] <= 16 * grids
    assert big["visual_tokens"] <= 256 * grids
    assert big["visual_tokens"] > 4 * small["visual_tokens"]


def test_sampled_gibberish_never_crashes_the_parse(carphone):
    import torch

    cap = _vlm(do_sample=True, temperature=1.5, top_k=0, top_p=1.0, max_new_tokens=48)
    for seed in range(3):
        torch.manual_seed(seed)
        result = cap.caption(carphone)
        assert isinstance(result.caption, str) and isinstance(result.reasoning, str)
        assert result.meta["raw_output"].strip()  # sampling produced some text
        assert result.warnings  # empty, malformed or statement-less: said, not hidden



@pytest.mark.slow  # several seconds on 2 shared cores
def test_vision_tokens_are_suppressed_in_generation(carphone):
    import torch

    from cinecap.captioners import vlm

    cap = _vlm(do_sample=True, temperature=1.5, top_k=0, top_p=1.0, max_new_tokens=200)
    inputs = dict(cap.build_inputs([cap.sample(carphone)], [""]))
    vision = set(cap.loaded.suppress)
    assert len(vision) == 5

    def sample(suppress: bool) -> list[int]:
        torch.manual_seed(0)
        kw = cap._generate_kwargs()
        if not suppress:
            kw["suppress_tokens"] = None
        return vlm._generate(cap.loaded.model, inputs, kw)[0, inputs["input_ids"].shape[1]:].tolist()

    assert not vision & set(sample(True))
    assert vision & set(sample(False))  # what the suppression prevents: a random policy emits them


def test_model_is_loaded_once_and_shared(small_clip):
    from cinecap.captioners.vlm import load_model

    a, b = _vlm(), _vlm()
    a.caption(small_clip)
    misses = load_model.cache_info().misses
    b.caption(small_clip)
    a.caption(small_clip)
    assert load_model.cache_info().misses == misses
    assert a.loaded is b.loaded


def test_progress_counts_the_tokens_while_it_generates(small_clip):
    """Issue 26: a vlm caption took 8-9 s with no word between "generating" and "done". Now the
    steps before it say what they do, and generation reports tokens as they come."""
    import re

    seen: list[tuple[float, str]] = []
    result = _vlm().caption(small_clip, progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and 0.0 == fractions[0] and fractions[-1] == 1.0
    messages = [m for _, m in seen]
    assert "decoding and sampling frames" in messages
    assert "preparing the model's inputs (4 frames)" in messages
    counted = [(f, int(m.group(1))) for f, text in seen
               if (m := re.fullmatch(r"generating: (\d+) of at most 24 tokens", text))]
    tokens = [n for _, n in counted]
    # one report a token here (24 at most: every token is a hundredth of it or more)
    assert tokens == list(range(1, len(tokens) + 1))
    assert result.meta["generated_tokens"] <= tokens[-1] <= 24
    assert all(0.35 < f <= 0.95 for f, _ in counted)
    assert counted[-1][0] == pytest.approx(0.35 + 0.6 * tokens[-1] / 24)
    # without a listener no streamer is made (training's captions stay as they were)
    assert _vlm().caption(small_clip).caption == result.caption


@pytest.mark.slow  # several seconds on 2 shared cores
def test_batches_of_clips_match_one_by_one(bikes, small_clip, carphone):
    cap = _vlm(batch_size=2)
    seen = []
    batch = cap.caption_many([bikes, small_clip, carphone], progress=lambda f, m: seen.append(f))
    single = [cap.caption(c) for c in (bikes, small_clip, carphone)]
    assert [r.meta["frames"] for r in batch] == [r.meta["frames"] for r in single] == [20, 4, 8]
    assert [r.meta["visual_tokens"] for r in batch] == [r.meta["visual_tokens"] for r in single]
    assert [r.meta["batch_size"] for r in batch] == [2, 2, 1]
    assert seen == sorted(seen) and seen[-1] == 1.0


def test_lora_adapter_changes_the_weights_it_targets(tmp_path, small_clip):
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForImageTextToText

    from cinecap.captioners.vlm import load_model

    base_dir = tiny_checkpoint("qwen3_vl")
    torch.manual_seed(0)
    peft_model = get_peft_model(AutoModelForImageTextToText.from_pretrained(base_dir),
                                LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"],
                                           init_lora_weights=False))
    peft_model.save_pretrained(tmp_path / "adapter")

    cap = _vlm(adapter=str(tmp_path / "adapter"))
    result = cap.caption(small_clip)
    assert result.meta["adapter"] == str(tmp_path / "adapter")
    base = load_model(str(base_dir), None, "cpu", "float32").model.state_dict()
    tuned = cap.loaded.model.state_dict()
    changed = {k for k in base if not torch.equal(base[k], tuned[k])}
    assert changed and all("q_proj" in k or "v_proj" in k for k in changed)
    assert any("language_model" in k for k in changed)


def test_hints_put_the_evidence_in_the_prompt(small_clip):
    from cinecap.captioners.prompts import HINTS_HEADER, hints_block
    from cinecap.statements import Statement

    cap = _vlm()
    sampled = cap.sample(small_clip)
    hint = hints_block([Statement("Camera Movement", "pan right", t_start=0.0, t_end=2.0,
                                  evidence="texture slides left")])
    plain, hinted = cap.build_inputs([sampled], [""]), cap.build_inputs([sampled], [hint])
    text = cap.loaded.processor.tokenizer.decode(hinted["input_ids"][0])
    assert HINTS_HEADER in text and "[texture slides left] → The camera pans right." in text
    assert hinted["input_ids"].shape[1] > plain["input_ids"].shape[1]
    # End to end: hints from the anchors captioner, or a warning saying why there are none.
    result = _vlm(hints=True).caption(small_clip)
    if availability("anchors").ok:
        assert result.meta["hints"] is True
        assert result.meta["prompt_tokens"] > _vlm().caption(small_clip).meta["prompt_tokens"]
    else:
        assert result.meta["hints"] is False and any("hints" in w for w in result.warnings)


def test_configuration_errors_are_clear(tmp_path, monkeypatch, small_clip):
    av = availability("vlm")
    assert not av.ok and "CINECAP_MODEL" in av.reason and "--model" in av.reason
    with pytest.raises(UnavailableError, match="CINECAP_MODEL"):
        get_captioner("vlm")
    with pytest.raises(InputError, match="neither a local directory nor a hub id"):
        get_captioner("vlm", model=str(tmp_path / "missing"))
    with pytest.raises(InputError, match="dtype"):
        get_captioner("vlm", model=str(tiny_checkpoint()), dtype="int3")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CaptionerError, match="could not load model"):
        get_captioner("vlm", model=str(tmp_path / "empty")).caption(small_clip)

    monkeypatch.setenv("CINECAP_MODEL", str(tiny_checkpoint()))
    assert availability("vlm").ok
    assert get_captioner("vlm", max_new_tokens=4).caption(small_clip).meta["family"] == "qwen3_vl"


def test_text_only_checkpoint_is_refused_by_family(tmp_path, small_clip):
    from transformers import Qwen2Config, Qwen2ForCausalLM

    Qwen2ForCausalLM(Qwen2Config(vocab_size=64, hidden_size=16, intermediate_size=32,
                                 num_hidden_layers=1, num_attention_heads=2,
                                 num_key_value_heads=1)).save_pretrained(tmp_path / "text")
    with pytest.raises(InputError, match="qwen2 checkpoint; the vlm captioner runs qwen3_vl"):
        get_captioner("vlm", model=str(tmp_path / "text")).caption(small_clip)


def test_bad_clip_fails_before_the_model_loads(tmp_path):
    bad = tmp_path / "clip.mp4"
    bad.write_bytes(b"\x00" * 1000)
    cap = _vlm(device="cpu", max_new_tokens=2, min_frames=5, max_frames=5)
    with pytest.raises(VideoError):
        cap.caption(bad)
    assert cap._loaded is None


def test_zero_gpu_wrapping_only_on_spaces(tmp_path, monkeypatch):
    from cinecap.captioners import vlm

    def fn():
        return 1

    monkeypatch.delenv("SPACES_ZERO_GPU", raising=False)
    assert vlm._zero_gpu(fn) is fn
    monkeypatch.setenv("SPACES_ZERO_GPU", "true")
    monkeypatch.setitem(sys.modules, "spaces", None)  # not installed: import guarded
    assert vlm._zero_gpu(fn) is fn
    (tmp_path / "spaces.py").write_text(
        "def GPU(duration=60):\n    def wrap(f):\n        f.zero_gpu_duration = duration\n"
        "        return f\n    return wrap\n")
    monkeypatch.delitem(sys.modules, "spaces")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert vlm._zero_gpu(fn).zero_gpu_duration == 120


def test_cli_caption_with_the_tiny_model_end_to_end(bikes):
    proc = cli("caption", str(bikes), "--captioner", "vlm", "--model",
               str(tiny_checkpoint("qwen3_vl")), "--captioner-option", "max_new_tokens=64",
               "--json", unset=_MODEL_ENV)
    out = proc.json()
    assert {"caption", "reasoning", "statements", "captioner", "seconds"} <= set(out)
    assert out["captioner"] == "vlm" and isinstance(out["statements"], list)
    assert out["seconds"] > 0
    # A random model never stops by itself: the output is cut, kept and flagged.
    assert out["meta"]["generated_tokens"] == 64 and out["meta"]["family"] == "qwen3_vl"
    assert out["meta"]["truncated"] is True
    assert any("max_new_tokens=64 (truncated)" in w for w in out["warnings"])
    assert "Traceback" not in proc.stderr


def test_a_checkpoints_max_new_tokens_does_not_silently_replace_the_released_4096(caplog):
    cap = _vlm(max_new_tokens=None)
    assert cap.loaded.model.generation_config.max_new_tokens == 64  # the tiny checkpoint's
    with caplog.at_level("WARNING", logger="cinecap.captioners.vlm"):
        assert cap.max_new_tokens == 4096 and cap._generate_kwargs()["max_new_tokens"] == 4096
    assert "generation_config sets max_new_tokens=64; using 4096" in caplog.text
    assert _vlm(max_new_tokens=12).max_new_tokens == 12


def test_cli_caption_options_and_a_missing_model(small_clip):
    opts = cli("caption", str(small_clip), "--captioner", "vlm", "--model",
               str(tiny_checkpoint("qwen3_vl")), "--captioner-option", "max_new_tokens=3",
               "--captioner-option", "max_frames=4", "--json", unset=_MODEL_ENV).json()
    assert opts["meta"]["generated_tokens"] <= 3 and opts["meta"]["frames"] == 4
    assert opts["meta"]["config"]["max_new_tokens"] == 3

    missing = cli("caption", str(small_clip), "--captioner", "vlm", "--json", unset=_MODEL_ENV)
    assert missing.returncode == 4
    assert missing.stderr.startswith("error:") and "CINECAP_MODEL" in missing.stderr


def test_gpu_benchmark_refuses_politely_without_a_gpu(monkeypatch, capsys):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # as on a machine without one
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import gpu_captioning

    assert gpu_captioning.main([]) == 4
    out, err = capsys.readouterr()
    assert err.startswith("refused:") and "--shape small" in err
    assert "Traceback" not in err and out == ""


@pytest.mark.slow
def test_gpu_benchmark_scaled_down_shape_runs_on_the_cpu(capsys):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import gpu_captioning
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert gpu_captioning.main(["--shape", "small", "--new-tokens", "4"]) == 0
    table = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("| ")][1:]
    rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in table]
    assert [r[0] for r in rows] == ["baseline 64 tok/frame", "256 tok/frame", "256 tok/frame, batch 4"]
    frames = {int(r[3]) for r in rows}
    visual = [int(r[4]) for r in rows]
    assert frames == {20}  # 10 s at 2 fps
    assert visual[0] <= 64 * 10 < visual[1] <= 256 * 10 and visual[2] == visual[1]
    assert rows[0][-2:] == ["1.00", "1.00"] and all(float(r[8]) > 0 for r in rows)


def test_cli_lists_captioners_with_why_not():
    rows = {r["name"]: r for r in cli("captioners", "--json", unset=_OPENAI_ENV + _MODEL_ENV).json()}
    assert set(rows) == {"anchors", "vlm", "openai"}
    assert rows["vlm"]["available"] is False and "CINECAP_MODEL" in rows["vlm"]["reason"]
    assert rows["openai"]["available"] is False and "CINECAP_OPENAI_MODEL" in rows["openai"]["reason"]
    configured = {r["name"]: r for r in cli("captioners", "--json", unset=_OPENAI_ENV,
                                            env={"CINECAP_MODEL": str(tiny_checkpoint())}).json()}
    assert configured["vlm"]["available"] is True and configured["vlm"]["reason"] == ""


def test_options_a_captioner_does_not_take_are_named(bikes):
    with pytest.raises(InputError, match="the vlm captioner has no option 'base_url'"):
        get_captioner("vlm", model=str(tiny_checkpoint()), base_url="http://x/v1")
    with pytest.raises(InputError, match="the openai captioner has no option 'adapter'"):
        get_captioner("openai", model="m", base_url="http://x/v1", adapter="lora")
    proc = cli("caption", str(bikes), "--captioner", "openai", "--model", "m", "--base-url",
               "http://127.0.0.1:9/v1", "--adapter", "lora")
    assert proc.returncode == 2 and proc.stderr.startswith("error:") and "adapter" in proc.stderr


def test_gpu_benchmark_builds_the_real_8b_shape(monkeypatch):
    """On the meta device (no memory): the parameter count of Qwen3-VL-8B-Instruct (8.77 B)."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import gpu_captioning

    model, processor = gpu_captioning.build_model(gpu_captioning.SHAPE_8B, "meta", "bfloat16")
    n = sum(p.numel() for p in model.parameters())
    assert 8.70e9 < n < 8.80e9
    assert type(model).__name__ == "Qwen3VLForConditionalGeneration"
    assert model.config.video_token_id == processor.tokenizer.convert_tokens_to_ids("<|video_pad|>")
