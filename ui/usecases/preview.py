"""A browser-playable copy of a clip for the page's video player (Caption and Review tabs).

Browsers play H.264/VP8/VP9/AV1, not MPEG-4 Part 2 (OpenCV's mp4v), ProRes or MJPEG. Those are
transcoded once to H.264 with PyAV (which bundles libx264) at up to 720 px; the analysis always
reads the original.
"""
from __future__ import annotations

import logging
import tempfile
from fractions import Fraction
from pathlib import Path

from ui.settings import Settings

log = logging.getLogger(__name__)

PLAYABLE_CODECS = ("h264", "vp8", "vp9", "av1")
PLAYABLE_SUFFIXES = (".mp4", ".webm", ".m4v", ".mov")


def video_for_page(settings: Settings, path: str | Path, codec: str | None,
                   stored: bool) -> str:
    """A file the browser can play: the clip, or its H.264 preview (kept beside stored clips,
    in a temp dir for a viewer's unstored run)."""
    cache = settings.data_dir / "previews" if stored else Path(tempfile.mkdtemp(prefix="prev-"))
    return playable(path, codec, cache)


def playable(path: str | Path, codec: str | None, cache_dir: str | Path) -> str:
    """``path`` itself when a browser plays it, else a cached H.264 copy (``cache_dir``).

    A clip that cannot be transcoded is returned as is: the player stays blank, captioning works.
    """
    path = Path(path)
    if (codec or "").lower() in PLAYABLE_CODECS and path.suffix.lower() in PLAYABLE_SUFFIXES:
        return str(path)
    out = Path(cache_dir) / f"{path.stem}.h264.mp4"
    if out.exists():
        return str(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".part.mp4")
    try:
        _transcode(path, tmp)
        tmp.replace(out)
    except Exception as e:  # noqa: BLE001 - a preview is a courtesy; log and show the original
        log.warning("no browser preview for %s: %s", path.name, e)
        tmp.unlink(missing_ok=True)
        return str(path)
    return str(out)


def _transcode(src: Path, dst: Path, max_side: int = 720) -> None:
    import av

    with av.open(str(src)) as inp, av.open(str(dst), "w") as outp:
        vin = inp.streams.video[0]
        vin.thread_type = "AUTO"
        w, h = vin.codec_context.width, vin.codec_context.height
        scale = min(1.0, max_side / max(w, h))
        w, h = max(2, int(w * scale) // 2 * 2), max(2, int(h * scale) // 2 * 2)
        rate = vin.average_rate or 25
        vout = outp.add_stream("libx264", rate=rate)
        vout.width, vout.height, vout.pix_fmt = w, h, "yuv420p"
        vout.codec_context.time_base = Fraction(1, 1) / rate
        vout.options = {"preset": "ultrafast", "crf": "26", "movflags": "+faststart"}
        for i, frame in enumerate(inp.decode(vin)):
            frame = frame.reformat(width=w, height=h, format="yuv420p")
            frame.pts, frame.time_base = i, vout.codec_context.time_base
            for packet in vout.encode(frame):
                outp.mux(packet)
        for packet in vout.encode():
            outp.mux(packet)
