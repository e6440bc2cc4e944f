"""The ``openai`` captioner: any OpenAI-compatible chat-completions server (vLLM, OpenAI, others).

The clip goes as a ``video_url`` part (a ``data:`` URL with the file's bytes, or a ``file://`` URL
for a vLLM server started with ``--allowed-local-media-path``), the way vLLM accepts video: the
server then samples the frames its own way (``sampling: server`` in a bench result's protocol,
docs/protocol.md). Servers without video get frames as ``image_url`` parts, each after its
timestamp, sampled as the released inference samples them (``cinecap.video.sample_frames_released``:
the frames, timestamps and per-frame pixel budget of qwen-vl-utils 0.0.14). A server that rejects
the video part (HTTP 400) is asked again with frames, once.

Requests go through the shared client (:mod:`cinecap.openai_client`): 408, 409, 429, 5xx, timeouts
and refused connections are retried with exponential backoff and jitter (honouring
``Retry-After``); a refusal, an empty answer or a body that is not chat-completion JSON is a
:class:`CaptionerError` that says which. An answer cut at ``max_tokens`` (``finish_reason=length``)
is kept, as the release keeps it: the result says ``meta["truncated"]`` and warns.
"""
from __future__ import annotations

import base64
import io
import logging
import mimetypes
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cinecap import config as cfg
from cinecap.captioners.base import Captioner, CaptionResult
from cinecap.captioners.model_output import result_from_text
from cinecap.captioners.prompts import SYSTEM_PROMPT, user_prompt
from cinecap.errors import CaptionerError, InputError
from cinecap.openai_client import ChatClient, ChatError, ChatResponse, RetryPolicy
from cinecap.progress import Progress, no_progress
from cinecap.video import PIXEL_BUDGETS, sampling_id

log = logging.getLogger(__name__)

VIDEO_MODES = ("video_url", "frames")
URL_KINDS = ("data", "file")
ENV_BASE_URL = "CINECAP_OPENAI_BASE_URL"
ENV_MODEL = "CINECAP_OPENAI_MODEL"
ENV_KEY = "OPENAI_API_KEY"


@dataclass(frozen=True)
class OpenAICaptionerConfig:
    """How to reach the server and what to send. :meth:`from_env` fills unset fields from the
    environment."""

    base_url: str | None = field(default=None, metadata={
        "help": f"OpenAI-compatible server URL, e.g. http://localhost:8000/v1 (vLLM); env "
                f"{ENV_BASE_URL}; unset: api.openai.com", "flag": True})
    model: str | None = field(default=None, metadata={
        "help": f"the served model's name; env {ENV_MODEL}", "flag": True})
    api_key: str | None = field(default=None, metadata={
        "help": f"API key; env {ENV_KEY}; local servers accept any"})
    timeout: float = field(default=180.0, metadata={
        "help": "seconds one request may take in all, the whole answer included (the released "
                "judge calls use 180 s too)"})
    max_retries: int = field(default=3, metadata={
        "help": "tries after the first on 408/409/429/5xx, timeouts and refused connections"})
    backoff: float = field(default=1.0, metadata={
        "help": "first wait in seconds (doubles each retry) when the server sends no Retry-After"})
    video_mode: str = field(default="video_url", metadata={
        "help": "video_url: the clip as a video part (vLLM); frames: timestamped JPEG frames "
                "(servers without video)", "choices": VIDEO_MODES})
    video_url_kind: str = field(default="data", metadata={
        "help": "data: the clip's bytes inline; file: a file:// URL (a local vLLM started with "
                "--allowed-local-media-path)", "choices": URL_KINDS})
    fallback_to_frames: bool = field(default=True, metadata={
        "help": "when the server rejects the video part (HTTP 400), ask again with frames"})
    max_inline_mb: float = field(default=64.0, metadata={
        "help": "clips larger than this many MB go as frames rather than a huge data URL"})
    fps: float = field(default=2.0, metadata={
        "help": "frames mode: frames per second sampled (released sampling: 2 fps)"})
    max_frames: int = field(default=80, metadata={"help": "frames mode: at most this many frames"})
    min_frames: int = field(default=4, metadata={"help": "frames mode: at least this many frames"})
    pixel_budget: str = field(default="inference", metadata={
        "help": "frames mode: per-frame pixel budget, inference (128-768 visual tokens, the "
                "released inference) or training (64-256)", "choices": tuple(PIXEL_BUDGETS)})
    patch_size: int = field(default=16, metadata={
        "help": "frames mode: the served model's vision patch size, which sets the frame size "
                "grid (16: Qwen3-VL, 14: Qwen2.5-VL)"})
    frame_max_side: int | None = field(default=None, metadata={
        "help": "frames mode: shrink frames on decode to this long side first (smaller requests, "
                "not the release's); None: full size, then the pixel budget"})
    jpeg_quality: int = field(default=85, metadata={"help": "frames mode: JPEG quality, 1-100"})
    max_tokens: int = field(default=4096, metadata={
        "help": "longest answer in tokens (released evaluation decoding: 4096)"})
    temperature: float = field(default=0.0, metadata={"help": "sampling temperature (0: greedy)"})
    system_prompt: str = field(default=SYSTEM_PROMPT, metadata={
        "help": "the system turn; default: the released one"})
    prompt: str | None = field(default=None, metadata={
        "help": "the user prompt; None: the released one"})
    hints: bool = field(default=False, metadata={
        "help": "add the anchors captioner's evidence to the prompt"})
    concurrency: int = field(default=1, metadata={"help": "clips in flight at once in caption_many"})
    extra_body: dict[str, Any] = field(default_factory=dict, metadata={
        "help": "extra JSON fields for the request body, e.g. vLLM's mm_processor_kwargs"})

    def __post_init__(self) -> None:
        if self.video_mode not in VIDEO_MODES:
            raise InputError(f"video_mode must be one of {', '.join(VIDEO_MODES)}, not {self.video_mode!r}")
        if self.video_url_kind not in URL_KINDS:
            raise InputError(f"video_url_kind must be one of {', '.join(URL_KINDS)}")
        if self.base_url and not str(self.base_url).startswith(("http://", "https://")):
            raise InputError(f"base_url must start with http:// or https://, got {self.base_url!r}")
        if not self.timeout > 0:
            raise InputError("timeout must be a positive number of seconds")
        if self.max_retries < 0 or self.backoff < 0:
            raise InputError("max_retries and backoff must not be negative")
        if not (1 <= self.min_frames <= self.max_frames) or self.fps <= 0:
            raise InputError("need fps > 0 and 1 <= min_frames <= max_frames")
        if self.max_tokens < 1 or self.concurrency < 1:
            raise InputError("max_tokens and concurrency must be at least 1")
        if not (1 <= self.jpeg_quality <= 100) or (self.frame_max_side is not None
                                                   and self.frame_max_side < 16):
            raise InputError("jpeg_quality must be 1..100 and frame_max_side at least 16")
        if self.pixel_budget not in PIXEL_BUDGETS:
            raise InputError(f"pixel_budget must be one of {', '.join(PIXEL_BUDGETS)}, not "
                             f"{self.pixel_budget!r}")
        if self.patch_size not in (14, 16):
            raise InputError(f"patch_size must be 14 (Qwen2.5-VL) or 16 (Qwen3-VL), got "
                             f"{self.patch_size!r}")
        if not isinstance(self.extra_body, dict):
            raise InputError("extra_body must be a JSON object")

    @classmethod
    def from_env(cls, **overrides: Any) -> "OpenAICaptionerConfig":
        """Explicit values win; None (or an empty string) falls back to the environment."""
        cfg.check_options("openai captioner", cfg.option_names(cls), overrides)
        overrides = {k: (None if v == "" else v) for k, v in overrides.items()}
        return cls(**cfg.from_env_values(
            cls, {"base_url": ENV_BASE_URL, "model": ENV_MODEL, "api_key": ENV_KEY},
            os.environ, overrides))

    def missing(self) -> str:
        """Why this config cannot reach a model, or "" when it can."""
        if not self.model:
            return f"no model name: pass --model NAME or set {ENV_MODEL}"
        if not self.base_url and not self.api_key:
            return (f"no server: set {ENV_BASE_URL} (e.g. http://localhost:8000/v1 for vLLM) "
                    f"or {ENV_KEY} for api.openai.com")
        return ""

    def retry(self) -> RetryPolicy:
        return RetryPolicy(max_retries=self.max_retries, backoff=self.backoff)

    @property
    def frames_sampling(self) -> str:
        """The name of the frames mode's sampling (``released-inference``, …)."""
        lo, hi = PIXEL_BUDGETS[self.pixel_budget]
        return sampling_id(self.fps, self.min_frames, self.max_frames, lo, hi,
                           self.frame_max_side)

    def public(self) -> dict[str, Any]:
        """The config for logs and results: the key is never written, only whether it is set."""
        return cfg.describe(self)


def _image_part(frame, quality: int) -> dict[str, Any]:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(frame).save(buf, format="JPEG", quality=quality)
    url = "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
    return {"type": "image_url", "image_url": {"url": url}}


class OpenAICaptioner(Captioner):
    """Captions clips with a model behind an OpenAI-compatible chat-completions endpoint."""

    name = "openai"
    config_class = OpenAICaptionerConfig

    def __init__(self, config: OpenAICaptionerConfig | None = None, **options: Any):
        """``OpenAICaptioner(model=…, base_url=…)``: options are :class:`OpenAICaptionerConfig`
        fields, unset ones from the environment; or pass a ready ``config``."""
        self.config = self.configure(config, options)
        self._client: ChatClient | None = None
        log.info("openai captioner: %s", self.config.public())

    @classmethod
    def needs(cls, config: OpenAICaptionerConfig) -> str:
        import importlib.util

        # Found, not imported: the app asks every captioner at start, and openai's import is
        # ~1 s of CPU (measured in the app's start) that a start offering no openai caption
        # would pay for nothing.
        if importlib.util.find_spec("openai") is None:
            return "the openai package is not installed (pip install openai)"
        return config.missing()

    # --- requests ----------------------------------------------------------------------------

    @property
    def client(self) -> ChatClient:
        if self._client is None:
            c = self.config
            self._client = ChatClient(c.base_url, c.api_key, c.timeout, c.retry(),
                                      label="openai captioner")
        return self._client

    def _video_part(self, path: Path) -> dict[str, Any] | None:
        """The clip as a ``video_url`` part, or None when it is too big to send inline."""
        if self.config.video_url_kind == "file":
            return {"type": "video_url", "video_url": {"url": path.resolve().as_uri()}}
        size = path.stat().st_size
        if size > self.config.max_inline_mb * 1024 * 1024:
            return None
        mime = mimetypes.guess_type(path.name)[0] or "video/mp4"
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        return {"type": "video_url", "video_url": {"url": f"data:{mime};base64,{data}"}}

    def protocol(self) -> dict[str, str]:
        c = self.config
        sampling = "server" if c.video_mode == "video_url" else c.frames_sampling
        decoding = (f"greedy/{c.max_tokens}" if c.temperature == 0
                    else f"sample:t={c.temperature:g}/{c.max_tokens}")
        return {"sampling": sampling, "decoding": decoding}

    def _frame_parts(self, path: Path) -> list[dict[str, Any]]:
        from cinecap.video import sample_frames_released

        c = self.config
        lo, hi = PIXEL_BUDGETS[c.pixel_budget]
        sampled = sample_frames_released(path, fps=c.fps, min_frames=c.min_frames,
                                         max_frames=c.max_frames, patch_size=c.patch_size,
                                         min_tokens=lo, max_tokens=hi,
                                         decode_max_side=c.frame_max_side)
        parts: list[dict[str, Any]] = []
        for frame, t in zip(sampled.frames, sampled.timestamps):
            parts.append({"type": "text", "text": f"<{float(t):.1f} seconds>"})
            parts.append(_image_part(frame, c.jpeg_quality))
        return parts

    def _messages(self, media: list[dict[str, Any]], hints: str) -> list[dict[str, Any]]:
        return [{"role": "system", "content": self.config.system_prompt},
                {"role": "user", "content": media + [
                    {"type": "text", "text": user_prompt(hints, self.config.prompt)}]}]

    def _post(self, messages: list[dict[str, Any]]) -> ChatResponse:
        """One chat completion through the shared client (its retries); failures named."""
        c = self.config
        try:
            return self.client.chat(model=c.model, messages=messages, max_tokens=c.max_tokens,
                                    temperature=c.temperature, extra_body=c.extra_body or None)
        except ChatError as e:
            if e.kind == "malformed":
                raise CaptionerError(e.detail) from None
            if e.kind != "status" or e.retryable:
                last = (f"the server did not answer within {c.timeout:g} s" if e.kind == "timeout"
                        else e.summary())
                raise CaptionerError(f"the server failed {e.attempts} time(s); last: {last}") from None
            if e.status in (401, 403):
                raise CaptionerError(f"the server refused the API key (HTTP {e.status}): "
                                     f"{e.detail}; check {ENV_KEY}") from None
            if e.status == 404:
                raise CaptionerError(f"HTTP 404 from {self.client.where}: {e.detail}; is the model "
                                     f"name {c.model!r} served there?") from None
            raise _BadRequest(e.status or 400, e.detail) from None

    # --- captioning --------------------------------------------------------------------------

    def _hints(self, path: Path, warnings: list[str]) -> str:
        from cinecap.captioners.prompts import anchors_hints

        return anchors_hints(path, warnings) if self.config.hints else ""

    def caption(self, clip: str | Path, progress: Progress | None = None) -> CaptionResult:
        from cinecap.video import probe

        progress = progress or no_progress
        t0 = time.perf_counter()
        path = Path(clip)
        info = probe(path)  # VideoError for a bad clip before anything is sent
        warnings: list[str] = []
        hints = self._hints(path, warnings)
        progress(0.1, "preparing the clip")
        mode = self.config.video_mode
        media = self._video_part(path) if mode == "video_url" else None
        if mode == "video_url" and media is None:
            warnings.append(f"the clip is over {self.config.max_inline_mb:g} MB; sent as frames")
            mode = "frames"
        parts = [media] if media is not None else self._frame_parts(path)
        progress(0.3, f"asking {self.config.model}")
        try:
            response = self._post(self._messages(parts, hints))
        except _BadRequest as e:
            if mode != "video_url" or not self.config.fallback_to_frames:
                raise CaptionerError(f"the server rejected the request (HTTP {e.status}): {e.detail}") from None
            log.warning("the server rejected the video (%s); sending frames instead", e.detail)
            warnings.append(f"the server rejected video_url (HTTP {e.status}: {e.detail}); sent frames")
            mode = "frames"
            try:
                response = self._post(self._messages(self._frame_parts(path), hints))
            except _BadRequest as e2:
                raise CaptionerError(f"the server rejected the frames too (HTTP {e2.status}): "
                                     f"{e2.detail}") from None
            response.attempts += 1
        content = _content(response, self.config.max_tokens)
        truncated = response.finish_reason == "length"
        if truncated:  # scored as the release scores it, and said (docs/protocol.md)
            warnings.append(f"the output hit max_tokens={self.config.max_tokens} "
                            f"(finish_reason=length, truncated)")
        usage = response.usage
        meta = {"model": response.body.get("model") or self.config.model,
                "base_url": self.config.base_url, "video_mode": mode,
                "sampling": "server" if mode == "video_url" else self.config.frames_sampling,
                "attempts": response.attempts, "finish_reason": response.finish_reason,
                "truncated": truncated,
                "prompt_tokens": usage.get("prompt_tokens"),
                "completion_tokens": usage.get("completion_tokens"),
                "clip_duration": info.duration, "hints": bool(hints),
                "config": self.config.public()}  # the key is never stored
        progress(1.0, "done")
        return result_from_text(content, self.name, time.perf_counter() - t0, meta, warnings)

    def caption_many(self, clips: list[str | Path],
                     progress: Progress | None = None) -> list[CaptionResult]:
        progress = progress or no_progress
        if self.config.concurrency == 1 or len(clips) < 2:
            out = []
            for i, c in enumerate(clips):
                out.append(self.caption(c))
                progress((i + 1) / len(clips), f"{i + 1}/{len(clips)} clips")
            return out
        with ThreadPoolExecutor(self.config.concurrency) as pool:
            return list(pool.map(self.caption, clips))


class _BadRequest(Exception):
    def __init__(self, status: int, detail: str):
        super().__init__(detail)
        self.status, self.detail = status, detail


def _content(response: ChatResponse, max_tokens: int) -> str:
    """The answer's text, or a CaptionerError naming what is wrong with it."""
    finish = response.finish_reason
    content = response.content
    if response.refusal:
        raise CaptionerError(f"the model refused: {str(response.refusal)[:300]}")
    if finish == "content_filter":
        raise CaptionerError("the server's content filter blocked the answer (finish_reason="
                             "content_filter)")
    if content is not None and not isinstance(content, str):
        raise CaptionerError(f"the answer's content is a {type(content).__name__}, not text")
    if not content or not content.strip():
        if finish == "length":
            raise CaptionerError(f"the answer is empty, cut at max_tokens={max_tokens} "
                                 f"(finish_reason=length); raise max_tokens")
        raise CaptionerError("the server returned an empty answer")
    return content
