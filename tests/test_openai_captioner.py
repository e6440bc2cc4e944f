"""The ``openai`` captioner against a real OpenAI-compatible HTTP server on loopback.

The server (tests/support/openai_server.py) is scripted: each test queues the answers a real
server gives (a CineCap answer, 429, 500, a slow answer, a malformed body, a refusal, a cut answer)
and checks both the result and the request that went over the wire.
"""
from __future__ import annotations

import base64
import json
import io
import time

import numpy as np
import pytest

from cinecap.captioners import availability, get_captioner
from cinecap.captioners.prompts import SYSTEM_PROMPT
from cinecap.errors import CaptionerError, UnavailableError, VideoError
from tests.support.openai_server import Reply, chat_reply, error_reply

ANSWER = (
    "<think>\n[0.0–2.0] [the texture slides left across the frame] → the camera pans right\n"
    "The frame is filled with texture edge to edge\n</think>\n"
    "<answer>The camera pans right from 0.0 to 2.0 s. It is a close-up at eye level, with deep "
    "focus.</answer>"
)


def _captioner(server, **options):
    options.setdefault("backoff", 0.01)
    return get_captioner("openai", base_url=server.base_url, model="cinecap-grpo-8b",
                         api_key="test-key", **options)


def _user_parts(request: dict) -> list[dict]:
    return request["messages"][1]["content"]


@pytest.fixture(autouse=True)
def _no_env(monkeypatch):
    for var in ("CINECAP_OPENAI_BASE_URL", "CINECAP_OPENAI_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def test_valid_answer_becomes_caption_reasoning_and_anchored_statements(openai_server, small_clip):
    openai_server.enqueue(chat_reply(ANSWER, model="cinecap-grpo-8b", completion_tokens=77))
    result = _captioner(openai_server).caption(small_clip)

    assert result.captioner == "openai"
    assert result.caption.startswith("The camera pans right")
    assert "texture slides left" in result.reasoning
    by_value = {s.value: s for s in result.statements}
    assert {"pan right", "close-up", "eye level", "deep focus"} <= set(by_value)
    pan = by_value["pan right"]
    assert (pan.t_start, pan.t_end) == (0.0, 2.0)
    assert pan.evidence == "the texture slides left across the frame"
    assert result.warnings == []
    assert result.meta["completion_tokens"] == 77 and result.meta["attempts"] == 1

    (req,) = openai_server.chat_requests
    assert req["model"] == "cinecap-grpo-8b"
    assert req["temperature"] == 0.0 and req["max_tokens"] == 4096
    assert req["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert {k.lower(): v for k, v in req["_headers"].items()}["authorization"] == "Bearer test-key"
    video, text = _user_parts(req)
    assert video["type"] == "video_url"
    url = video["video_url"]["url"]
    assert url.startswith("data:video/mp4;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == small_clip.read_bytes()
    assert "<think>" in text["text"] and "Camera Movement" in text["text"]


def test_file_url_for_a_local_vllm_server(openai_server, small_clip):
    openai_server.enqueue(chat_reply(ANSWER))
    _captioner(openai_server, video_url_kind="file").caption(small_clip)
    video = _user_parts(openai_server.chat_requests[0])[0]
    assert video["video_url"]["url"] == small_clip.resolve().as_uri()


def test_frames_mode_sends_timestamped_jpegs_sampled_at_2_fps(openai_server, small_clip):
    from PIL import Image

    from cinecap.video import sample_frames_released

    openai_server.enqueue(chat_reply(ANSWER))
    cap = _captioner(openai_server, video_mode="frames")
    result = cap.caption(small_clip)
    parts = _user_parts(openai_server.chat_requests[0])
    images = [p for p in parts if p["type"] == "image_url"]
    stamps = [p["text"] for p in parts[:-1] if p["type"] == "text"]
    released = sample_frames_released(small_clip)  # qwen-vl-utils' frames (test_video_sampling)
    assert len(images) == 4  # a 2 s clip at 2 fps
    assert stamps == [f"<{t:.1f} seconds>" for t in released.timestamps]
    # First and last frame included, as the released sampling takes them.
    assert stamps[0] == "<0.0 seconds>" and stamps[-1] == f"<{49 / 25:.1f} seconds>"
    img = Image.open(io.BytesIO(base64.b64decode(images[0]["image_url"]["url"].split(",", 1)[1])))
    # The released inference's pixel budget: a 160x120 clip grows to 128 visual tokens or more.
    assert img.format == "JPEG" and img.size == released.frames.shape[2:0:-1]
    assert img.size[0] % 32 == 0 and img.size[0] * img.size[1] >= 128 * 32 * 32
    assert np.asarray(img).std() > 10  # the real texture, not a blank frame
    assert result.meta["video_mode"] == "frames" and result.meta["sampling"] == "released-inference"
    assert cap.protocol() == {"sampling": "released-inference", "decoding": "greedy/4096"}
    assert _captioner(openai_server).protocol()["sampling"] == "server"  # video_url: the server's


def test_server_without_video_gets_frames_after_a_400(openai_server, small_clip):
    openai_server.enqueue(error_reply(400, "video_url is not supported by this model"),
                          chat_reply(ANSWER))
    result = _captioner(openai_server).caption(small_clip)
    first, second = openai_server.chat_requests
    assert _user_parts(first)[0]["type"] == "video_url"
    assert any(p["type"] == "image_url" for p in _user_parts(second))
    assert result.meta["video_mode"] == "frames"
    assert any("video_url" in w for w in result.warnings)
    assert result.caption.startswith("The camera pans right")


def test_429_then_success_is_retried(openai_server, small_clip):
    openai_server.enqueue(error_reply(429, "slow down", retry_after=0), chat_reply(ANSWER))
    result = _captioner(openai_server).caption(small_clip)
    assert len(openai_server.chat_requests) == 2
    assert result.meta["attempts"] == 2
    assert result.caption


def test_500_repeated_gives_a_clear_error_after_the_retries(openai_server, small_clip):
    openai_server.default = lambda req: error_reply(500, "engine crashed")
    with pytest.raises(CaptionerError) as e:
        _captioner(openai_server, max_retries=2).caption(small_clip)
    assert "3 time(s)" in e.value.message and "HTTP 500" in e.value.message
    assert "engine crashed" in e.value.message
    assert len(openai_server.chat_requests) == 3


def test_timeout_is_retried_then_reported(openai_server, small_clip):
    openai_server.enqueue(Reply(delay=1.5, body=chat_reply(ANSWER).body), chat_reply(ANSWER))
    t0 = time.perf_counter()
    result = _captioner(openai_server, timeout=0.5, max_retries=1).caption(small_clip)
    assert result.meta["attempts"] == 2 and time.perf_counter() - t0 < 5

    openai_server.default = lambda req: Reply(delay=1.5, body=chat_reply(ANSWER).body)
    with pytest.raises(CaptionerError, match="did not answer within 0.5 s"):
        _captioner(openai_server, timeout=0.5, max_retries=0).caption(small_clip)


@pytest.mark.parametrize("body, message", [
    ("this is not json {", "not JSON"),
    ({"object": "chat.completion", "choices": []}, "no choices"),
    ({"choices": [{"index": 0, "finish_reason": "stop"}]}, "no message"),
])
def test_malformed_body_is_a_clear_error(openai_server, small_clip, body, message):
    openai_server.enqueue(Reply(200, body))
    with pytest.raises(CaptionerError, match=message):
        _captioner(openai_server, max_retries=0).caption(small_clip)


def test_empty_content_and_refusal_are_named_and_truncation_is_kept_and_flagged(openai_server, small_clip):
    cap = _captioner(openai_server, max_retries=0, max_tokens=64)
    openai_server.enqueue(chat_reply("   "))
    with pytest.raises(CaptionerError, match="empty answer"):
        cap.caption(small_clip)

    refusal = chat_reply("")
    refusal.body["choices"][0]["message"] = {"role": "assistant", "content": None,
                                             "refusal": "I can't help with that video."}
    openai_server.enqueue(refusal)
    with pytest.raises(CaptionerError, match="refused: I can't help"):
        cap.caption(small_clip)

    # Cut at max_tokens: kept and scored, as the release does (docs/protocol.md), and flagged.
    cut = "<think>[0.0–1.0] [trees move] → the camera pans right</think><answer>It pa"
    openai_server.enqueue(chat_reply(cut, finish_reason="length"))
    result = cap.caption(small_clip)
    assert result.meta["truncated"] is True and result.meta["raw_output"] == cut
    assert any("max_tokens=64" in w and "truncated" in w for w in result.warnings)
    assert openai_server.chat_requests[-1]["max_tokens"] == 64
    openai_server.enqueue(chat_reply("", finish_reason="length"))
    with pytest.raises(CaptionerError, match="empty, cut at max_tokens=64"):
        cap.caption(small_clip)
    openai_server.enqueue(chat_reply("The camera pans right."))
    assert cap.caption(small_clip).meta["truncated"] is False


def test_wrong_key_and_unknown_model_are_not_retried(openai_server, small_clip):
    openai_server.enqueue(error_reply(401, "invalid api key"))
    with pytest.raises(CaptionerError, match="API key"):
        _captioner(openai_server).caption(small_clip)
    openai_server.enqueue(error_reply(404, "model not found"))
    with pytest.raises(CaptionerError, match="cinecap-grpo-8b"):
        _captioner(openai_server).caption(small_clip)
    assert len(openai_server.chat_requests) == 2


def test_gibberish_answer_gives_a_result_with_warnings(openai_server, small_clip):
    openai_server.enqueue(chat_reply("ntntntnt <answer>"))
    result = _captioner(openai_server).caption(small_clip)
    assert result.statements == []
    assert result.warnings and result.meta["well_formed"] is False


def test_bad_clip_fails_before_any_request(openai_server, tmp_path):
    bad = tmp_path / "notes.mp4"
    bad.write_text("not a video")
    with pytest.raises(VideoError):
        _captioner(openai_server).caption(bad)
    assert openai_server.chat_requests == []


def test_availability_and_configuration_from_the_environment(openai_server, small_clip, monkeypatch):
    av = availability("openai")
    assert not av.ok and "CINECAP_OPENAI_MODEL" in av.reason
    with pytest.raises(UnavailableError, match="CINECAP_OPENAI_MODEL"):
        get_captioner("openai")
    assert not availability("openai", model="m").ok  # a model but no server
    assert availability("openai", model="m", base_url="http://127.0.0.1:1/v1").ok

    monkeypatch.setenv("CINECAP_OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("CINECAP_OPENAI_MODEL", "from-env")
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    assert availability("openai").ok
    openai_server.enqueue(chat_reply(ANSWER))
    get_captioner("openai").caption(small_clip)
    req = openai_server.chat_requests[0]
    assert req["model"] == "from-env" and {k.lower(): v for k, v in req["_headers"].items()}["authorization"] == "Bearer env-key"


def test_bad_options_are_input_errors():
    from cinecap.errors import InputError

    with pytest.raises(InputError, match="video_mode"):
        get_captioner("openai", model="m", base_url="http://x/v1", video_mode="gif")
    with pytest.raises(InputError, match="timeout"):
        get_captioner("openai", model="m", base_url="http://x/v1", timeout=0)


def test_caption_many_in_parallel_keeps_the_order(openai_server, small_clip, carphone):
    def answer(req):
        url = _user_parts(req)[0]["video_url"]["url"]
        size = len(base64.b64decode(url.split(",", 1)[1]))
        shot = "a close-up" if size == small_clip.stat().st_size else "a wide shot"
        return chat_reply(f"<answer>It is {shot}.</answer>")

    openai_server.default = answer
    results = _captioner(openai_server, concurrency=3).caption_many([small_clip, carphone, small_clip])
    assert [r.statements[0].value for r in results] == ["close-up", "wide shot", "close-up"]


def test_end_to_end_with_a_server_that_runs_the_tiny_model(openai_server, bikes):
    """The loopback server runs a real (tiny, random) Qwen3-VL on the frames it receives."""
    import torch
    from PIL import Image

    from cinecap.captioners import vlm
    from cinecap.video import SampledFrames, VideoInfo
    from tests.support.tiny_models import tiny_checkpoint

    model = get_captioner("vlm", model=str(tiny_checkpoint("qwen3_vl")), do_sample=True,
                          temperature=1.5, top_k=0, top_p=1.0, max_new_tokens=40)
    served = {}

    def serve(req):
        frames, times = [], []
        for part in _user_parts(req):
            if part["type"] == "image_url":
                data = base64.b64decode(part["image_url"]["url"].split(",", 1)[1])
                frames.append(np.asarray(Image.open(io.BytesIO(data)).convert("RGB")))
            elif part["text"].endswith(" seconds>"):
                times.append(float(part["text"][1:].split()[0]))
        tick = 100.0  # frames are placed on a 100 fps grid at their stated times
        h, w = frames[0].shape[:2]
        info = VideoInfo(path="request", duration=times[-1] + 0.5, fps=tick, width=w, height=h,
                         frame_count=int(round(times[-1] * tick)) + 1, codec="jpeg",
                         backend="request")
        sampled = SampledFrames(np.stack(frames), np.array(times), info,
                                np.array([int(round(t * tick)) for t in times]))
        inputs = dict(model.build_inputs([sampled], [""]))
        torch.manual_seed(0)
        out = vlm._generate(model.loaded.model, inputs, model._generate_kwargs())
        new = out[0, inputs["input_ids"].shape[1]:]
        text = model.loaded.processor.tokenizer.decode(new, skip_special_tokens=True)
        served.update(frames=len(frames), times=times, text=text,
                      visual=int((inputs["input_ids"] == model.loaded.model.config.video_token_id).sum()))
        return chat_reply(text, completion_tokens=len(new))

    openai_server.default = serve
    result = _captioner(openai_server, video_mode="frames").caption(bikes)
    assert served["frames"] == 20 and served["visual"] > 0  # 10 s at 2 fps reached the model
    assert served["times"] == sorted(served["times"]) and served["times"][-1] > 9.0
    assert result.meta["raw_output"] == served["text"] and result.meta["completion_tokens"] == 40
    assert result.warnings  # random weights: gibberish, reported as such


def test_result_records_the_config_but_never_the_key(openai_server, small_clip):
    openai_server.enqueue(chat_reply(ANSWER))
    result = _captioner(openai_server, max_tokens=512).caption(small_clip)
    cfg = result.meta["config"]
    assert cfg["model"] == "cinecap-grpo-8b" and cfg["max_tokens"] == 512
    assert cfg["api_key"] == "set" and "test-key" not in json.dumps(result.to_dict())


def test_hints_send_the_anchors_evidence_with_the_prompt(openai_server, small_clip):
    from cinecap.captioners.prompts import HINTS_HEADER

    openai_server.enqueue(chat_reply(ANSWER))
    result = _captioner(openai_server, hints=True).caption(small_clip)
    text = _user_parts(openai_server.chat_requests[0])[-1]["text"]
    if availability("anchors").ok:
        assert result.meta["hints"] is True
        assert HINTS_HEADER in text and "→" in text.split(HINTS_HEADER, 1)[1]
    else:
        assert HINTS_HEADER not in text and any("hints" in w for w in result.warnings)
