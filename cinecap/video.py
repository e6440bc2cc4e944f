"""Open, validate, probe and sample a clip.

Two readers stand behind one interface: decord (fast random access with resize on decode) and PyAV
(bundles FFmpeg; the fallback where decord is missing or fails, and the dense reader, because the
Y plane of a decoded yuv frame is already the grey image and costs no conversion: docs/performance.md).

Every way a clip can be unusable ends in one error type, :class:`cinecap.errors.VideoError`, with a
message that names the problem and what to do: not a video, unreadable or truncated, no frames,
zero or absurd frame rate, over the configured limits, audio only.
"""
from __future__ import annotations

import logging
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from cinecap.errors import InputError, UnavailableError, VideoError

log = logging.getLogger(__name__)

BACKENDS = ("auto", "decord", "pyav")


@dataclass(frozen=True)
class VideoLimits:
    """What a clip may be. Checked by :func:`probe` before any frame is decoded."""

    max_bytes: int = field(default=500 * 1024 * 1024, metadata={
        "help": "largest file in bytes (a 10-minute 1080p clip at ~6 Mbit/s fits comfortably)"})
    max_duration_s: float = field(default=600.0, metadata={"help": "longest clip in seconds"})
    max_width: int = field(default=4096, metadata={"help": "widest frame in pixels"})
    max_height: int = field(default=4096, metadata={"help": "tallest frame in pixels"})
    min_fps: float = field(default=1.0, metadata={
        "help": "below this the frame rate is a broken header, not a film"})
    max_fps: float = field(default=240.0, metadata={
        "help": "high-speed cameras deliver files up to ~240 fps; beyond is a bad header"})
    max_pixel_rate: float = field(default=5.0e8, metadata={
        "help": "most decoded pixels per second of clip (width x height x fps): 4K UHD at 60 fps "
                "or 1080p at 240 fps; decoding cost grows with it, not with the file size"})
    max_total_pixels: float = field(default=4.0e10, metadata={
        "help": "most decoded pixels in the whole clip (width x height x frames): about 10 minutes "
                "of 1080p at 30 fps, a few tens of seconds of CPU analysis"})
    min_side: int = field(default=16, metadata={
        "help": "shortest frame side in pixels; smaller frames hold no film language to read"})
    max_aspect: float = field(default=8.0, metadata={
        "help": "widest frame aspect ratio (long side / short side); the widest cinema formats "
                "are under 4:1"})

    def __post_init__(self) -> None:
        if self.max_bytes <= 0:
            raise InputError("max_bytes must be positive")
        if not (self.max_duration_s > 0 and math.isfinite(self.max_duration_s)):
            raise InputError("max_duration_s must be a positive number")
        if self.max_width <= 0 or self.max_height <= 0:
            raise InputError("max_width and max_height must be positive")
        if not (0 < self.min_fps < self.max_fps):
            raise InputError("need 0 < min_fps < max_fps")
        if not (self.max_pixel_rate > 0 and self.max_total_pixels > 0):
            raise InputError("max_pixel_rate and max_total_pixels must be positive")
        if self.min_side < 1 or not self.max_aspect >= 1:
            raise InputError("need min_side >= 1 and max_aspect >= 1")


@dataclass(frozen=True)
class VideoInfo:
    """What :func:`probe` learned about a clip. Times in seconds."""

    path: str
    duration: float
    fps: float
    width: int
    height: int
    frame_count: int
    codec: str
    backend: str  # the reader that will decode it: "decord" or "pyav"
    size_bytes: int = 0
    has_audio: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class SampledFrames:
    """Frames sampled from a clip: ``frames`` uint8 RGB [N, H, W, 3], ``timestamps`` seconds [N].

    ``indices``: the source frame of each; ``sampling``: how they were chosen
    (:func:`sampling_id`; "" for :func:`sample_frames`' slice centres); ``source_frames`` and
    ``source_fps``: the frame count and rate the indices refer to (the decoder's own, as
    qwen-vl-utils reads them; 0 when they are the probe's ``info``).
    """

    frames: np.ndarray
    timestamps: np.ndarray
    info: VideoInfo
    indices: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    sampling: str = ""
    source_frames: int = 0
    source_fps: float = 0.0

    def __len__(self) -> int:
        return len(self.timestamps)

    @property
    def total_frames(self) -> int:
        return self.source_frames or self.info.frame_count

    @property
    def fps(self) -> float:
        return self.source_fps or self.info.fps


# --- probing ---------------------------------------------------------------------------------

def _decord_available() -> bool:
    try:
        import decord  # noqa: F401
    except Exception:  # an ImportError, or a broken native library on this platform
        return False
    return True


def _pyav_available() -> bool:
    try:
        import av  # noqa: F401
    except Exception:
        return False
    return True


def _choose_backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise InputError(f"unknown video backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend == "auto":
        if _decord_available():
            return "decord"
        if _pyav_available():
            return "pyav"
        raise UnavailableError("no video reader is installed: pip install av (or decord)")
    if backend == "pyav" and not _pyav_available():
        raise UnavailableError("the pyav video reader is not installed: pip install av")
    if backend == "decord" and not _decord_available():
        raise UnavailableError("the decord video reader is not installed here (no wheel for this "
                               "platform?); use backend='pyav'")
    return backend


def _human(n: int) -> str:
    for unit, scale in (("GB", 2**30), ("MB", 2**20), ("kB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def _check_file(path: Path, limits: VideoLimits) -> int:
    if not path.exists():
        raise VideoError(f"{path}: no such file")
    if not path.is_file():
        raise VideoError(f"{path}: not a file (is it a directory?)")
    size = path.stat().st_size
    if size == 0:
        raise VideoError(f"{path}: the file is empty (0 bytes)")
    if size > limits.max_bytes:
        raise VideoError(f"{path}: the file is {_human(size)}, over the limit of "
                         f"{_human(limits.max_bytes)}; trim or re-encode the clip")
    if not os.access(path, os.R_OK):
        raise VideoError(f"{path}: the file is not readable (permissions)")
    return size


def _open_container(path: Path):
    import av

    try:
        return av.open(str(path), metadata_errors="ignore")
    except av.error.InvalidDataError as e:
        raise VideoError(f"{path}: not a video file, or a truncated one (FFmpeg: {e.strerror or e})")
    except (av.error.FFmpegError, OSError) as e:
        raise VideoError(f"{path}: the file cannot be read as video ({e})")


def _stream_fps(stream) -> float:
    for rate in (stream.average_rate, stream.guessed_rate, stream.base_rate):
        if rate is not None and float(rate) > 0:
            return float(rate)
    return 0.0


def _probe_pyav(path: Path) -> dict:
    with _open_container(path) as container:
        videos = list(container.streams.video)
        if not videos:
            if container.streams.audio:
                raise VideoError(f"{path}: the file has audio but no video stream; give a video clip")
            raise VideoError(f"{path}: the file holds no video stream")
        s = videos[0]
        fps = _stream_fps(s)
        duration = 0.0
        if s.duration is not None and s.time_base is not None:
            duration = float(s.duration * s.time_base)
        elif container.duration is not None:
            duration = container.duration / 1_000_000
        frames = int(s.frames or 0)
        if frames == 0 and duration > 0 and fps > 0:
            frames = int(round(duration * fps))
        if duration <= 0 and frames > 0 and fps > 0:
            duration = frames / fps
        return {
            "fps": fps, "duration": duration, "frame_count": frames,
            "width": int(s.codec_context.width or 0), "height": int(s.codec_context.height or 0),
            "codec": s.codec_context.name or "", "has_audio": bool(container.streams.audio),
        }


def _probe_decord(path: Path) -> dict:
    """The header facts from decord, where PyAV is not installed (decodes the first frame)."""
    import decord

    try:
        vr = decord.VideoReader(str(path), ctx=decord.cpu(0))
    except Exception as e:  # decord raises its own DECORDError or RuntimeError
        if "cannot find video stream" in str(e):
            raise VideoError(f"{path}: the file holds no video stream (audio only?)") from None
        raise VideoError(f"{path}: not a video file, or an unreadable one (decord: "
                         f"{str(e).splitlines()[0][:200]})") from None
    n = len(vr)
    fps = float(vr.get_avg_fps() or 0.0)
    h, w = (vr[0].shape[:2] if n else (0, 0))
    return {"fps": fps, "duration": n / fps if fps > 0 else 0.0, "frame_count": n, "width": int(w),
            "height": int(h), "codec": "", "has_audio": False}


def probe(path: str | Path, limits: VideoLimits | None = None, backend: str = "auto") -> VideoInfo:
    """Validate a clip and read its duration, frame rate, size and frame count.

    Reads the container header only (no frame is decoded). Raises :class:`VideoError` with a clear
    message for every kind of unusable input.
    """
    limits = limits or VideoLimits()
    path = Path(path)
    chosen = _choose_backend(backend)
    size = _check_file(path, limits)
    meta = _probe_pyav(path) if _pyav_available() else _probe_decord(path)
    fps, duration, n = meta["fps"], meta["duration"], meta["frame_count"]
    if n <= 0:
        raise VideoError(f"{path}: the video stream contains no frames")
    if not math.isfinite(fps) or fps <= 0:
        raise VideoError(f"{path}: the frame rate is missing or zero; re-encode the clip")
    if not (limits.min_fps <= fps <= limits.max_fps):
        raise VideoError(f"{path}: the frame rate {fps:g} fps is outside the accepted range "
                         f"{limits.min_fps:g}–{limits.max_fps:g} fps (a broken header?); "
                         f"re-encode the clip at a normal rate")
    if meta["width"] <= 0 or meta["height"] <= 0:
        raise VideoError(f"{path}: the video has no frame size; the stream is damaged")
    if meta["width"] > limits.max_width or meta["height"] > limits.max_height:
        raise VideoError(f"{path}: the frame size {meta['width']}x{meta['height']} is over the "
                         f"limit of {limits.max_width}x{limits.max_height}; downscale the clip")
    if duration > limits.max_duration_s:
        raise VideoError(f"{path}: the clip lasts {duration:.1f} s, over the limit of "
                         f"{limits.max_duration_s:g} s; cut it into shorter clips")
    _check_pixels(path, meta["width"], meta["height"], fps, max(n, duration * fps), limits)
    return VideoInfo(path=str(path), duration=float(duration), fps=float(fps),
                     width=meta["width"], height=meta["height"], frame_count=int(n),
                     codec=meta["codec"], backend=chosen, size_bytes=size,
                     has_audio=meta["has_audio"])


def _check_pixels(path: Path, w: int, h: int, fps: float, frames: float,
                  limits: VideoLimits) -> None:
    """Refuse what would cost too much to decode, from the header alone (nothing decoded yet)."""
    short, long_ = min(w, h), max(w, h)
    if short < limits.min_side:
        raise VideoError(f"{path}: the frame size {w}x{h} is too small to analyse (at least "
                         f"{limits.min_side} px on each side)")
    if long_ / short > limits.max_aspect:
        raise VideoError(f"{path}: the frame size {w}x{h} is too elongated to analyse (aspect "
                         f"{long_ / short:.0f}:1, the limit is {limits.max_aspect:g}:1)")
    rate = w * h * fps
    if rate > limits.max_pixel_rate:
        raise VideoError(f"{path}: {w}x{h} at {fps:g} fps is {_many(rate)} pixels per second, "
                         f"over the limit of {_many(limits.max_pixel_rate)}; downscale the clip "
                         f"or lower its frame rate")
    total = w * h * frames
    if total > limits.max_total_pixels:
        raise VideoError(f"{path}: {w}x{h} x {frames:,.0f} frames is {_many(total)} pixels to "
                         f"decode, over the limit of {_many(limits.max_total_pixels)}; cut, "
                         f"downscale or lower the frame rate of the clip")


def _many(n: float) -> str:
    for scale, word in ((1e9, "billion"), (1e6, "million")):
        if n >= scale:
            return f"{n / scale:,.{0 if n >= 100 * scale else 1}f} {word}"
    return f"{n:,.0f}"


# --- sampling --------------------------------------------------------------------------------

def _resized_size(width: int, height: int, max_side: int | None) -> tuple[int, int]:
    """(w, h) with the long side at most ``max_side``, both even (codecs and resizers like it)."""
    if not max_side or max(width, height) <= max_side:
        return width, height
    scale = max_side / max(width, height)
    return max(2, int(round(width * scale / 2)) * 2), max(2, int(round(height * scale / 2)) * 2)


def sample_times(info: VideoInfo, fps: float = 2.0, max_frames: int = 80, min_frames: int = 4,
                 start: float | None = None, end: float | None = None) -> np.ndarray:
    """Timestamps to sample: ``fps`` per second over [start, end], clamped to [min, max] frames.

    Each timestamp is the centre of its slice of the interval, so a 2 s clip at 2 fps gives
    0.25, 0.75, 1.25, 1.75 s.
    """
    if fps <= 0:
        raise InputError("fps must be positive")
    if min_frames < 1 or max_frames < min_frames:
        raise InputError("need 1 <= min_frames <= max_frames")
    t0 = 0.0 if start is None else max(0.0, float(start))
    t1 = info.duration if end is None else min(info.duration, float(end))
    if not t1 > t0:
        raise VideoError(f"{info.path}: the interval [{t0:g}, {t1:g}] s is empty "
                         f"(the clip lasts {info.duration:.2f} s)")
    span_frames = max(1, int(round((t1 - t0) * info.fps)))
    n = int(round((t1 - t0) * fps))
    n = min(max(n, min_frames), max_frames, span_frames)
    return t0 + (np.arange(n) + 0.5) * (t1 - t0) / n


def _indices_for(times: np.ndarray, info: VideoInfo) -> np.ndarray:
    idx = np.floor(times * info.fps).astype(np.int64)
    return np.clip(idx, 0, info.frame_count - 1)


def _sample_decord(info: VideoInfo, idx: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    import decord

    w, h = size
    kw = {} if (w, h) == (info.width, info.height) else {"width": w, "height": h}
    vr = decord.VideoReader(info.path, ctx=decord.cpu(0), num_threads=0, **kw)
    n = len(vr)
    if n < info.frame_count * 0.9:
        raise VideoError(f"{info.path}: only {n} of {info.frame_count} frames are readable; "
                         f"the file looks truncated")
    return vr.get_batch(np.clip(idx, 0, n - 1).tolist()).asnumpy()


@dataclass
class _Decoding:
    """How far :func:`_decode_pyav` got: frames decoded, and why it stopped early ("" if not)."""

    decoded: int = 0
    failure: str = ""


def _decode_pyav(info: VideoInfo, run: _Decoding, tolerate: bool = False) -> Iterator[Any]:
    """The clip's video frames in order, decoded by PyAV with its threads, counted in ``run``.
    A decoding error is a VideoError naming the frame, unless ``tolerate`` and a frame decoded
    before it: then the frames stop there and ``run.failure`` says why (a damaged clip read up
    to its damage)."""
    import av

    with _open_container(Path(info.path)) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        try:
            for frame in container.decode(stream):
                run.decoded += 1
                yield frame
        except av.error.FFmpegError as e:
            if not tolerate or run.decoded == 0:
                raise VideoError(f"{info.path}: decoding failed at frame {run.decoded}: {e}; "
                                 f"the file is damaged or truncated") from None
            run.failure = f"decoding failed at frame {run.decoded}"


def _converter() -> Callable[..., np.ndarray]:
    """``convert(frame, format=, width=, height=)``: ``frame.to_ndarray(...)``, the same pixels,
    with one swscale context kept from frame to frame. PyAV's ``to_ndarray`` sets up a new one
    for every frame, which costs several times the conversion itself (bikes.mp4 to 400 px BGR:
    2.7 ms a frame against 0.4 ms)."""
    from av.video.reformatter import VideoReformatter

    reformatter = VideoReformatter()
    return lambda frame, **kw: reformatter.reformat(frame, **kw).to_ndarray()


def _sample_pyav(info: VideoInfo, idx: np.ndarray, size: tuple[int, int],
                 transform=None) -> np.ndarray:
    """The frames at ``idx`` decoded in order at ``size``; ``transform`` (e.g. a resize) is applied
    to each as it is decoded, so full-size frames are never all held at once."""
    w, h = size
    wanted = {int(i): k for k, i in enumerate(idx)}  # frame index → first position asking for it
    out: list[np.ndarray | None] = [None] * len(idx)
    last = int(idx.max())
    run = _Decoding()
    convert = _converter()
    for i, frame in enumerate(_decode_pyav(info, run)):
        if i in wanted:
            rgb = convert(frame, format="rgb24", width=w, height=h)
            out[wanted[i]] = rgb if transform is None else transform(rgb)
        if i >= last:
            break
    missing = [k for k, f in enumerate(out) if f is None]
    if missing:
        decoded = run.decoded
        if decoded < info.frame_count * 0.9 and decoded <= int(idx[missing[0]]):
            raise VideoError(f"{info.path}: only {decoded} of {info.frame_count} frames could be "
                             f"decoded; the file looks truncated")
        # A header that over-counts by a frame or two: reuse the nearest decoded frame.
        have = [k for k, f in enumerate(out) if f is not None]
        if not have:
            raise VideoError(f"{info.path}: no frame could be decoded")
        for k in missing:
            out[k] = out[min(have, key=lambda j: abs(j - k))]
    # Duplicate requests for one frame index share the decoded array.
    for k, i in enumerate(idx):
        if out[k] is None:
            out[k] = out[wanted[int(i)]]
    return np.stack(out)


def sample_frames(path: str | Path, fps: float = 2.0, max_frames: int = 80, min_frames: int = 4,
                  max_side: int | None = None, start: float | None = None,
                  end: float | None = None, limits: VideoLimits | None = None,
                  backend: str = "auto") -> SampledFrames:
    """Sample RGB frames at ``fps`` (the released sampling, docs/spec/method.md: 2 fps, 4–80 frames), resized on decode.

    decord reads by default; PyAV takes over where decord is missing or fails on the file.
    """
    info = probe(path, limits, backend)
    times = sample_times(info, fps, max_frames, min_frames, start, end)
    idx = _indices_for(times, info)
    size = _resized_size(info.width, info.height, max_side)
    frames, info = _with_decord(path, info, lambda: _sample_decord(info, idx, size))
    if frames is None:
        frames = _sample_pyav(info, idx, size)
    stamps = (idx + 0.5) / info.fps  # the centre of each decoded frame's display interval
    return SampledFrames(frames=np.ascontiguousarray(frames), timestamps=stamps.astype(np.float64),
                         info=info, indices=idx)


# --- the released sampling (qwen-vl-utils 0.0.14) ----------------------------------------------

#: Visual tokens per frame (min, max) of the release: its inference sets no pixel budget, so
#: qwen-vl-utils' defaults apply (128–768); its training used 64–256 (docs/spec/method.md).
PIXEL_BUDGETS = {"inference": (128, 768), "training": (64, 256)}
#: The frames the released inference asks for: 2 fps, at least 4, at most 80.
RELEASED_FPS, RELEASED_MIN_FRAMES, RELEASED_MAX_FRAMES = 2.0, 4, 80
_CHUNK = 8  # frames decoded at full size at once before they are resized


@dataclass(frozen=True)
class FramePlan:
    """Which frames the released sampling takes from a clip and at what size (qwen-vl-utils
    0.0.14's ``fetch_video``): ``indices`` evenly spaced over the clip, first and last included,
    an even count; ``timestamps`` = index / fps, the times Qwen-VL's processor derives from them;
    every frame resized to ``height`` x ``width``, multiples of ``factor`` (patch size x spatial
    merge) within [``min_pixels``, ``max_pixels``]."""

    indices: np.ndarray
    timestamps: np.ndarray
    height: int
    width: int
    factor: int
    min_pixels: int
    max_pixels: int
    total_frames: int
    fps: float

    @property
    def tokens_per_frame(self) -> int:
        """Visual tokens one frame's pixels make (``height·width / factor²``)."""
        return (self.height * self.width) // (self.factor * self.factor)


def _qwen_vision():
    try:
        from qwen_vl_utils import vision_process
    except ImportError:
        raise UnavailableError("the released frame sampling needs qwen-vl-utils: pip install "
                               "qwen-vl-utils==0.0.14 (pinned in requirements.txt)") from None
    return vision_process


def frame_plan(total_frames: int, video_fps: float, height: int, width: int,
               fps: float = RELEASED_FPS, min_frames: int = RELEASED_MIN_FRAMES,
               max_frames: int = RELEASED_MAX_FRAMES, patch_size: int = 16,
               min_tokens: int = PIXEL_BUDGETS["inference"][0],
               max_tokens: int = PIXEL_BUDGETS["inference"][1]) -> FramePlan:
    """The released sampling of a clip of ``total_frames`` at ``video_fps``, ``height`` x ``width``.

    Through qwen-vl-utils' own ``smart_nframes`` and ``smart_resize``, with ``fetch_video``'s
    pixel budget (min ``min_tokens``·factor², max the smaller of ``max_tokens``·factor² and the
    sequence-length cap over the frame count) and its ``torch.linspace(...).round()`` indices.
    ``patch_size``: the model's vision patch (16 for Qwen3-VL, 14 for Qwen2.5-VL).
    """
    import torch

    vp = _qwen_vision()
    factor = patch_size * vp.SPATIAL_MERGE_SIZE
    try:
        n = vp.smart_nframes({"fps": fps, "min_frames": min_frames, "max_frames": max_frames},
                             total_frames=total_frames, video_fps=video_fps)
    except ValueError:
        raise VideoError(f"the clip has {total_frames} frame(s); the released sampling needs at "
                         f"least {vp.FRAME_FACTOR}") from None
    indices = torch.linspace(0, total_frames - 1, n).round().long().numpy()
    min_pixels = min_tokens * factor * factor
    total_pixels = vp.MODEL_SEQ_LEN * factor * factor * 0.9
    cap = max(min(vp.VIDEO_MAX_TOKEN_NUM * factor * factor, total_pixels / n * vp.FRAME_FACTOR),
              int(min_pixels * 1.05))
    max_pixels = min(max_tokens * factor * factor, cap)
    try:
        h, w = vp.smart_resize(height, width, factor=factor, min_pixels=min_pixels,
                               max_pixels=max_pixels)
    except (ValueError, AssertionError) as e:
        raise VideoError(f"the frame size {width}x{height} cannot be sampled: {e}") from None
    return FramePlan(indices.astype(np.int64), indices / float(video_fps), int(h), int(w), factor,
                     int(min_pixels), int(max_pixels), int(total_frames), float(video_fps))


def sampling_id(fps: float = RELEASED_FPS, min_frames: int = RELEASED_MIN_FRAMES,
                max_frames: int = RELEASED_MAX_FRAMES,
                min_tokens: int = PIXEL_BUDGETS["inference"][0],
                max_tokens: int = PIXEL_BUDGETS["inference"][1],
                decode_max_side: int | None = None) -> str:
    """The name of a sampling for a bench result's protocol: ``released-inference``,
    ``released-training``, or ``qwen:fps=…,frames=…-…,tokens=…-…[,decode<=…]``."""
    frames = (float(fps), int(min_frames), int(max_frames))
    if frames == (RELEASED_FPS, RELEASED_MIN_FRAMES, RELEASED_MAX_FRAMES) and not decode_max_side:
        for name, budget in PIXEL_BUDGETS.items():
            if (min_tokens, max_tokens) == budget:
                return f"released-{name}"
    out = f"qwen:fps={fps:g},frames={min_frames}-{max_frames},tokens={min_tokens}-{max_tokens}"
    return out + (f",decode<={decode_max_side}" if decode_max_side else "")


def _resize_chunk(frames: np.ndarray, height: int, width: int) -> np.ndarray:
    """uint8 [n, H, W, 3] → uint8 [n, height, width, 3], as qwen-vl-utils resizes (torchvision,
    bicubic, antialiased)."""
    import torch
    from torchvision.transforms import InterpolationMode
    from torchvision.transforms import functional as F

    t = torch.from_numpy(np.ascontiguousarray(frames)).permute(0, 3, 1, 2)
    if t.shape[-2:] != (height, width):
        t = F.resize(t, [height, width], interpolation=InterpolationMode.BICUBIC, antialias=True)
    return t.permute(0, 2, 3, 1).contiguous().numpy()


def sample_frames_released(path: str | Path, fps: float = RELEASED_FPS,
                           min_frames: int = RELEASED_MIN_FRAMES,
                           max_frames: int = RELEASED_MAX_FRAMES, patch_size: int = 16,
                           min_tokens: int = PIXEL_BUDGETS["inference"][0],
                           max_tokens: int = PIXEL_BUDGETS["inference"][1],
                           decode_max_side: int | None = None,
                           limits: VideoLimits | None = None,
                           backend: str = "auto") -> SampledFrames:
    """Frames as the released inference samples them (qwen-vl-utils 0.0.14, :func:`frame_plan`),
    already resized to the plan's pixel budget: the same indices, timestamps and frame size as
    ``qwen_vl_utils.fetch_video`` (tests/test_video_sampling.py checks them on real clips).

    The clip is validated first (:func:`probe`, ``limits``). decord reads it, as qwen-vl-utils
    does where decord is installed (its frame count and rate); PyAV where decord is missing or
    fails. Frames are decoded at full size a few at a time and resized as qwen-vl-utils resizes
    them. ``decode_max_side`` (not the release's) shrinks frames on decode first, for speed.
    """
    info = probe(path, limits, backend)
    got, info = _with_decord(path, info, lambda: _released_decord(
        info, fps, min_frames, max_frames, patch_size, min_tokens, max_tokens, decode_max_side))
    frames, plan = got if got is not None else (None, None)
    if frames is None:
        w, h = _resized_size(info.width, info.height, decode_max_side)
        plan = frame_plan(info.frame_count, info.fps, h, w, fps, min_frames, max_frames,
                          patch_size, min_tokens, max_tokens)
        frames = _sample_pyav(info, plan.indices, (w, h),
                              transform=lambda f: _resize_chunk(f[None], plan.height,
                                                                plan.width)[0])
    return SampledFrames(frames=np.ascontiguousarray(frames), timestamps=plan.timestamps,
                         info=info, indices=plan.indices,
                         sampling=sampling_id(fps, min_frames, max_frames, min_tokens, max_tokens,
                                              decode_max_side),
                         source_frames=plan.total_frames, source_fps=plan.fps)


def _with_decord(path: Any, info: VideoInfo, decode: Callable[[], Any]) -> tuple[Any, VideoInfo]:
    """``(decode(), info)`` when ``info`` names decord; ``(None, info)`` for PyAV to do it — where
    decord is not the backend, or where it fails natively and PyAV is installed (then ``info``
    says ``pyav``). Our own VideoErrors pass through."""
    if info.backend != "decord":
        return None, info
    try:
        return decode(), info
    except VideoError:
        raise
    except Exception as e:  # decord's native errors have no common base class
        if not _pyav_available():
            raise VideoError(f"{path}: decoding failed (decord: {str(e).splitlines()[0][:200]})")
        log.warning("decord failed on %s (%s); decoding with PyAV", path, e)
        return None, VideoInfo(**{**info.to_dict(), "backend": "pyav"})


def _released_decord(info: VideoInfo, fps: float, min_frames: int, max_frames: int,
                     patch_size: int, min_tokens: int, max_tokens: int,
                     decode_max_side: int | None) -> tuple[np.ndarray, FramePlan]:
    import decord

    w, h = _resized_size(info.width, info.height, decode_max_side)
    kw = {} if (w, h) == (info.width, info.height) else {"width": w, "height": h}
    vr = decord.VideoReader(info.path, **kw)
    total, video_fps = len(vr), float(vr.get_avg_fps())
    if total < info.frame_count * 0.9:
        raise VideoError(f"{info.path}: only {total} of {info.frame_count} frames are readable; "
                         f"the file looks truncated")
    plan = frame_plan(total, video_fps, h, w, fps, min_frames, max_frames, patch_size,
                      min_tokens, max_tokens)
    idx = plan.indices.tolist()
    out = np.empty((len(idx), plan.height, plan.width, 3), dtype=np.uint8)
    for k in range(0, len(idx), _CHUNK):
        out[k:k + _CHUNK] = _resize_chunk(vr.get_batch(idx[k:k + _CHUNK]).asnumpy(),
                                          plan.height, plan.width)
    return out, plan


# --- dense reading for the anchors -----------------------------------------------------------

@dataclass
class GrayFrame:
    """One decoded frame for analysis: grey (luma) image, optional small colour image."""

    index: int
    t: float  # seconds from the start of the clip (frame centre)
    gray: np.ndarray | None  # uint8 [h, w] at the analysis size; None on frames skipped by step
    small_bgr: np.ndarray | None = None  # uint8 [sh, sw, 3] for cut detection, when asked
    #: The frame in colour (BGR, the grey image's size) on demand, for kept frames only: valid
    #: while the frame is the current one. Converting every frame would cost as much as decoding;
    #: the subject detectors need colour on a few keyframes.
    to_bgr: Callable[[], np.ndarray] | None = field(default=None, repr=False, compare=False)


@dataclass
class DecodeDamage:
    """Filled by :func:`iter_frames` when asked to read past damage instead of failing: where the
    decodable part of the clip ends and why (a truncated or corrupt stream)."""

    decoded: int = 0  # frames decoded
    expected: int = 0  # frames the header announces
    readable_until: float | None = None  # seconds; None when the whole clip decoded
    reason: str = ""

    @property
    def damaged(self) -> bool:
        return self.readable_until is not None

    def message(self, duration: float) -> str:
        """One line for a user: which part of the clip could not be read."""
        return (f"frames from {self.readable_until:.1f} s to {duration:.1f} s could not be decoded "
                f"({self.decoded} of {self.expected} frames read; {self.reason}); the analysis "
                f"covers 0.0–{self.readable_until:.1f} s")


def _plane(plane) -> np.ndarray:
    return np.frombuffer(plane, np.uint8).reshape(plane.height, plane.line_size)[:, :plane.width]


def iter_frames(path: str | Path, max_side: int = 480, step: int = 1, small_side: int = 0,
                start: float | None = None, end: float | None = None,
                limits: VideoLimits | None = None,
                info: VideoInfo | None = None,
                damage: DecodeDamage | None = None) -> Iterator[GrayFrame]:
    """Decode a clip in order and yield grey frames at ``max_side`` px for dense analysis.

    ``step`` keeps every n-th frame (the others are decoded but never converted: conversion, not
    decoding, is the cost). ``small_side`` > 0 also yields a tiny BGR image built from the Y, U
    and V planes for colour-aware cut detection on every frame. PyAV is used here: the Y plane of
    a yuv420p frame is the grey image, free of conversion.

    A clip that stops decoding part-way (truncated, corrupt) raises :class:`VideoError`, unless
    ``damage`` is given: then the frames before the damage are yielded and ``damage`` says where
    the readable part ends (at least one frame must decode).
    """
    info = info or probe(path, limits)
    if step < 1:
        raise InputError("step must be >= 1")
    gw, gh = _resized_size(info.width, info.height, max_side)
    sw, sh = _resized_size(info.width, info.height, small_side) if small_side else (0, 0)
    if damage is not None:
        damage.expected = info.frame_count
    if not _pyav_available():
        yield from _iter_frames_decord(info, (gw, gh), step, (sw, sh), start, end, damage=damage)
        return
    import cv2

    t0 = -1.0 if start is None else float(start)
    t1 = math.inf if end is None else float(end)
    # A header that under-counts its frames must not buy more decoding than the limits allow.
    most = int(info.frame_count * 1.25) + int(info.fps) + 1
    run = _Decoding()
    as_gray, as_small, as_bgr = _converter(), _converter(), _converter()  # one context each
    for i, frame in enumerate(_decode_pyav(info, run, tolerate=damage is not None)):
        if i >= most:
            raise VideoError(f"{info.path}: the clip holds more frames than its header "
                             f"says ({info.frame_count}); re-encode it")
        t = (i + 0.5) / info.fps
        if t < t0:
            continue
        if t > t1:
            break
        keep = i % step == 0
        if not keep and not small_side:
            continue
        yuv = frame.format.name in ("yuv420p", "yuvj420p")
        if yuv:
            y = _plane(frame.planes[0])
        else:
            y = as_gray(frame, format="gray")
        gray = None
        if keep:
            gray = y if (gw, gh) == (y.shape[1], y.shape[0]) else cv2.resize(
                y, (gw, gh), interpolation=cv2.INTER_AREA)
        small = None
        if small_side:
            if yuv:
                # Bilinear, not area: at these tiny sizes it is several times cheaper and
                # cut detection compares whole-frame statistics, not detail.
                ys = cv2.resize(y, (sw, sh), interpolation=cv2.INTER_LINEAR)
                u = cv2.resize(_plane(frame.planes[1]), (sw, sh), interpolation=cv2.INTER_LINEAR)
                v = cv2.resize(_plane(frame.planes[2]), (sw, sh), interpolation=cv2.INTER_LINEAR)
                small = cv2.cvtColor(cv2.merge([ys, v, u]), cv2.COLOR_YCrCb2BGR)
            else:
                small = as_small(frame, format="bgr24", width=sw, height=sh)
        to_bgr = (lambda f=frame: as_bgr(f, format="bgr24", width=gw, height=gh)) if keep else None
        yield GrayFrame(index=i, t=t, gray=gray, small_bgr=small, to_bgr=to_bgr)
    decoded = run.decoded
    if damage is not None and run.failure:
        damage.reason, damage.readable_until = run.failure, decoded / info.fps
    if decoded == 0:
        raise VideoError(f"{info.path}: no frame could be decoded")
    if damage is not None:
        damage.decoded = decoded
    if start is None and end is None and decoded < info.frame_count * 0.9:
        if damage is None:
            raise VideoError(f"{info.path}: only {decoded} of {info.frame_count} frames could be "
                             f"decoded; the file looks truncated")
        damage.readable_until = decoded / info.fps
        damage.reason = damage.reason or "the file looks truncated"


def _iter_frames_decord(info: VideoInfo, gray_size: tuple[int, int], step: int,
                        small_size: tuple[int, int], start: float | None,
                        end: float | None, batch: int = 32,
                        damage: DecodeDamage | None = None) -> Iterator[GrayFrame]:
    """``iter_frames`` through decord (where PyAV is missing): resized on decode, in batches."""
    import cv2
    import decord

    def reader(size):
        w, h = size
        return decord.VideoReader(info.path, ctx=decord.cpu(0), width=w, height=h)

    try:
        vr_gray = reader(gray_size)
        vr_small = reader(small_size) if small_size[0] else None
    except Exception as e:
        raise VideoError(f"{info.path}: not readable by decord ({str(e).splitlines()[0][:200]})")
    n = len(vr_gray)
    if n < info.frame_count * 0.9:
        if damage is None or n == 0:
            raise VideoError(f"{info.path}: only {n} of {info.frame_count} frames are readable; "
                             f"the file looks truncated")
        damage.readable_until, damage.reason = n / info.fps, "the file looks truncated"
    if damage is not None:
        damage.decoded = n
    t0 = -1.0 if start is None else float(start)
    t1 = math.inf if end is None else float(end)
    wanted = [i for i in range(n) if t0 <= (i + 0.5) / info.fps <= t1]
    for b in range(0, len(wanted), batch):
        ids = wanted[b:b + batch]
        keep = [i for i in ids if i % step == 0]
        grays = dict(zip(keep, vr_gray.get_batch(keep).asnumpy())) if keep else {}
        smalls = dict(zip(ids, vr_small.get_batch(ids).asnumpy())) if vr_small is not None else {}
        for i in ids:
            if i not in grays and vr_small is None:
                continue
            g = cv2.cvtColor(grays[i], cv2.COLOR_RGB2GRAY) if i in grays else None
            sm = cv2.cvtColor(smalls[i], cv2.COLOR_RGB2BGR) if i in smalls else None
            to_bgr = ((lambda a=grays[i]: cv2.cvtColor(a, cv2.COLOR_RGB2BGR))
                      if i in grays else None)
            yield GrayFrame(index=i, t=(i + 0.5) / info.fps, gray=g, small_bgr=sm, to_bgr=to_bgr)


__all__ = ["BACKENDS", "DecodeDamage", "FramePlan", "GrayFrame", "PIXEL_BUDGETS", "SampledFrames",
           "VideoInfo", "VideoLimits", "frame_plan", "iter_frames", "probe", "sample_frames",
           "sample_frames_released", "sample_times", "sampling_id"]
