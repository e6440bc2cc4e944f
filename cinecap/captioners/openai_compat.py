"""The ``openai`` captioner: any OpenAI-compatible chat-completions server (vLLM, OpenAI, others).

The clip goes as a ``video_url`` part (a ``data:`` URL with the file's bytes, or a ``file://`` URL
for a vLLM server started with ``--allowed-local-media-path``), the way vLLM accepts video; servers
without video get sampled frames as ``image_url`` parts, each after its timestamp. A server that
rejects the video part (HTTP 400) is asked again with frames, once.

Failures are told apart: 429 and 5xx and timeouts are retried with exponential backoff (honouring
``retry-after``); a refusal, an empty answer, an answer cut at ``max_tokens`` or a body that is not
chat-completion JSON is a :class:`CaptionerError` that says which.
"""
from __future__ import annotations

import base64
import io
import json
import logging
import mimetypes
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cinecap.captioners.base import Availability, Captioner, CaptionResult, Progress, no_progress
from cinecap.captioners.model_output import check_options, result_from_text
from cinecap.captioners.prompts import SYSTEM_PROMPT, user_prompt
from cinecap.errors import CaptionerError, InputError

log = logging.getLogger(__name__)

VIDEO_MODES = ("video_url", "frames")
URL_KINDS = ("data", "file")
ENV_BASE_URL = "CINECAP_OPENAI_BASE_URL"
ENV_MODEL = "CINECAP_OPENAI_MODEL"
ENV_KEY = "OPENAI_API_KEY"


@dataclass
class OpenAICaptionerConfig:
    """How to reach the server and what to send. Unset fields fall back to the environment."""

    base_url: str | None = None  # e.g. http://localhost:8000/v1 (vLLM); env CINECAP_OPENAI_BASE_URL
    model: str | None = None  # the served model name; env CINECAP_OPENAI_MODEL
    api_key: str | None = None  # env OPENAI_API_KEY; local servers accept any ("EMPTY")
    timeout: float = 180.0  # seconds per request (PROTOCOL.md judge calls use 180 s too)
    max_retries: int = 3  # extra attempts after a 429, a 5xx, a timeout or a refused connection
    backoff: float = 1.0  # first retry delay in seconds, doubled each time (capped at 30 s)
    video_mode: str = "video_url"  # "video_url" (vLLM) or "frames" (servers without video)
    video_url_kind: str = "data"  # "data": the bytes inline; "file": a file:// URL (local vLLM)
    fallback_to_frames: bool = True  # a 400 on the video part → ask again with frames
    max_inline_mb: float = 64.0  # larger clips go as frames rather than a huge data URL
    fps: float = 2.0  # frames mode sampling (PROTOCOL.md: 2 fps, 4–80 frames)
    max_frames: int = 80
    min_frames: int = 4
    frame_max_side: int = 448  # frames mode: long side of each JPEG
    jpeg_quality: int = 85
    max_tokens: int = 4096  # PROTOCOL.md evaluation decoding
    temperature: float = 0.0  # greedy
    system_prompt: str = SYSTEM_PROMPT
    prompt: str | None = None  # the user prompt; None = the released one
    hints: bool = False  # add the anchors' evidence to the prompt
    concurrency: int = 1  # clips in flight at once in caption_many
    extra_body: dict[str, Any] = field(default_factory=dict)  # e.g. vLLM mm_processor_kwargs

    def __post_init__(self) -> None:
        self.base_url = self.base_url or os.environ.get(ENV_BASE_URL) or None
        self.model = self.model or os.environ.get(ENV_MODEL) or None
        self.api_key = self.api_key or os.environ.get(ENV_KEY) or None
        if self.video_mode not in VIDEO_MODES:
            raise InputError(f"video_mode must be one of {', '.join(VIDEO_MODES)}, not {self.video_mode!r}")
        if self.video_url_kind not in URL_KINDS:
            raise InputError(f"video_url_kind must be one of {', '.join(URL_KINDS)}")
        if not self.timeout > 0:
            raise InputError("timeout must be a positive number of seconds")
        if self.max_retries < 0 or self.backoff < 0:
            raise InputError("max_retries and backoff must not be negative")
        if not (1 <= self.min_frames <= self.max_frames) or self.fps <= 0:
            raise InputError("need fps > 0 and 1 <= min_frames <= max_frames")
        if self.max_tokens < 1 or self.concurrency < 1:
            raise InputError("max_tokens and concurrency must be at least 1")
        if not (1 <= self.jpeg_quality <= 100) or self.frame_max_side < 16:
            raise InputError("jpeg_quality must be 1..100 and frame_max_side at least 16")

    def missing(self) -> str:
        """Why this config cannot reach a model, or "" when it can."""
        if not self.model:
            return f"no model name: pass --model NAME or set {ENV_MODEL}"
        if not self.base_url and not self.api_key:
            return (f"no server: set {ENV_BASE_URL} (e.g. http://localhost:8000/v1 for vLLM) "
                    f"or {ENV_KEY} for api.openai.com")
        return ""

    def public(self) -> dict[str, Any]:
        d = asdict(self)
        d["api_key"] = "set" if self.api_key else None  # never log or store the key
        return d


def _image_part(frame, quality: int) -> dict[str, Any]:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(frame).save(buf, format="JPEG", quality=quality)
    url = "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
    return {"type": "image_url", "image_url": {"url": url}}


class OpenAICaptioner(Captioner):
    """Captions clips with a model behind an OpenAI-compatible chat-completions endpoint."""

    name = "openai"

    def __init__(self, base_url: str | None = None, model: str | None = None,
                 api_key: str | None = None, timeout: float = 180.0, max_retries: int = 3,
                 video_mode: str = "video_url", **options: Any):
        check_options("openai", OpenAICaptionerConfig, options)
        self.config = OpenAICaptionerConfig(base_url=base_url, model=model, api_key=api_key,
                                            timeout=timeout, max_retries=max_retries,
                                            video_mode=video_mode, **options)
        why = self.config.missing()
        if why:
            from cinecap.errors import UnavailableError

            raise UnavailableError(f"captioner 'openai' is not configured: {why}")
        self._client = None
        log.info("openai captioner: %s", self.config.public())

    @classmethod
    def availability(cls, base_url: str | None = None, model: str | None = None,
                     api_key: str | None = None, **_: Any) -> Availability:
        try:
            import openai  # noqa: F401
        except ImportError:
            return Availability(False, "the openai package is not installed (pip install openai)")
        model = model or os.environ.get(ENV_MODEL)
        base_url = base_url or os.environ.get(ENV_BASE_URL)
        api_key = api_key or os.environ.get(ENV_KEY)
        if not model:
            return Availability(False, f"no model name: pass --model NAME or set {ENV_MODEL}")
        if not base_url and not api_key:
            return Availability(False, f"no server: set {ENV_BASE_URL} (e.g. http://localhost:8000/v1 "
                                       f"for vLLM) or {ENV_KEY} for api.openai.com")
        return Availability(True)

    # --- requests ----------------------------------------------------------------------------

    @property
    def client(self):
        if self._client is None:
            import openai

            self._client = openai.OpenAI(base_url=self.config.base_url,
                                         api_key=self.config.api_key or "EMPTY",
                                         timeout=self.config.timeout, max_retries=0)
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

    def _frame_parts(self, path: Path) -> list[dict[str, Any]]:
        from cinecap.video import sample_frames

        c = self.config
        sampled = sample_frames(path, fps=c.fps, max_frames=c.max_frames, min_frames=c.min_frames,
                                max_side=c.frame_max_side)
        parts: list[dict[str, Any]] = []
        for frame, t in zip(sampled.frames, sampled.timestamps):
            parts.append({"type": "text", "text": f"<{float(t):.1f} seconds>"})
            parts.append(_image_part(frame, c.jpeg_quality))
        return parts

    def _messages(self, media: list[dict[str, Any]], hints: str) -> list[dict[str, Any]]:
        return [{"role": "system", "content": self.config.system_prompt},
                {"role": "user", "content": media + [
                    {"type": "text", "text": user_prompt(hints, self.config.prompt)}]}]

    def _post(self, messages: list[dict[str, Any]]) -> tuple[dict[str, Any], int]:
        """One chat completion with retries. Returns (parsed body, attempts made)."""
        import openai

        c = self.config
        attempts = c.max_retries + 1
        last = ""
        for attempt in range(attempts):
            try:
                raw = self.client.chat.completions.with_raw_response.create(
                    model=c.model, messages=messages, max_tokens=c.max_tokens,
                    temperature=c.temperature, extra_body=c.extra_body or None)
                text = raw.http_response.text
            except openai.APITimeoutError:
                last = f"the server did not answer within {c.timeout:g} s"
                delay = None
            except openai.APIConnectionError as e:
                last = f"could not connect to {c.base_url or 'api.openai.com'} ({e.__cause__ or e})"
                delay = None
            except openai.APIStatusError as e:
                status = e.status_code
                detail = _error_message(e)
                if status == 429 or status >= 500:
                    last = f"HTTP {status}: {detail}"
                    delay = _retry_after(e)
                elif status in (401, 403):
                    raise CaptionerError(f"the server refused the API key (HTTP {status}): {detail}; "
                                         f"check {ENV_KEY}") from None
                elif status == 404:
                    raise CaptionerError(f"HTTP 404 from {c.base_url}: {detail}; is the model name "
                                         f"{c.model!r} served there?") from None
                else:
                    raise _BadRequest(status, detail) from None
            else:
                return _parse_body(text), attempt + 1
            if attempt + 1 < attempts:
                wait = min(30.0, c.backoff * 2 ** attempt if delay is None else max(delay, 0.0))
                log.warning("attempt %d/%d failed (%s); retrying in %.1f s", attempt + 1, attempts,
                            last, wait)
                time.sleep(wait)
        raise CaptionerError(f"the server failed {attempts} time(s); last: {last}")

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
            body, attempts = self._post(self._messages(parts, hints))
        except _BadRequest as e:
            if mode != "video_url" or not self.config.fallback_to_frames:
                raise CaptionerError(f"the server rejected the request (HTTP {e.status}): {e.detail}") from None
            log.warning("the server rejected the video (%s); sending frames instead", e.detail)
            warnings.append(f"the server rejected video_url (HTTP {e.status}: {e.detail}); sent frames")
            mode = "frames"
            try:
                body, attempts = self._post(self._messages(self._frame_parts(path), hints))
            except _BadRequest as e2:
                raise CaptionerError(f"the server rejected the frames too (HTTP {e2.status}): "
                                     f"{e2.detail}") from None
            attempts += 1
        content, finish = _content(body, self.config.max_tokens)
        usage = body.get("usage") or {}
        meta = {"model": body.get("model") or self.config.model, "base_url": self.config.base_url,
                "video_mode": mode, "attempts": attempts, "finish_reason": finish,
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


def _error_message(e: Any) -> str:
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])[:300]
        if isinstance(err, str):
            return err[:300]
    return str(getattr(e, "message", e))[:300]


def _retry_after(e: Any) -> float | None:
    try:
        value = e.response.headers.get("retry-after")
        return float(value) if value is not None else None
    except (AttributeError, ValueError):
        return None


def _parse_body(text: str) -> dict[str, Any]:
    try:
        body = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        raise CaptionerError("the server's answer is not JSON: " + repr((text or "")[:200])) from None
    if not isinstance(body, dict) or not isinstance(body.get("choices"), list) or not body["choices"]:
        raise CaptionerError("the server's answer is not a chat completion (no choices): "
                             + repr(json.dumps(body)[:200]))
    choice = body["choices"][0]
    if not isinstance(choice, dict) or not isinstance(choice.get("message"), dict):
        raise CaptionerError("the server's answer has no message in its first choice")
    return body


def _content(body: dict[str, Any], max_tokens: int) -> tuple[str, str | None]:
    """The answer's text, or a CaptionerError naming what is wrong with it."""
    choice = body["choices"][0]
    msg = choice["message"]
    finish = choice.get("finish_reason")
    content = msg.get("content")
    if isinstance(content, list):  # some servers answer with content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if msg.get("refusal"):
        raise CaptionerError(f"the model refused: {str(msg['refusal'])[:300]}")
    if finish == "content_filter":
        raise CaptionerError("the server's content filter blocked the answer (finish_reason="
                             "content_filter)")
    if finish == "length":
        raise CaptionerError(f"the answer was truncated at max_tokens={max_tokens} "
                             f"(finish_reason=length); raise max_tokens")
    if content is not None and not isinstance(content, str):
        raise CaptionerError(f"the answer's content is a {type(content).__name__}, not text")
    if not content or not content.strip():
        raise CaptionerError("the server returned an empty answer")
    return content, finish
