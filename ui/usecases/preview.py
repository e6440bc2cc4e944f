"""Files for the page: a browser-playable copy of a clip (Caption and Review tabs), and the folder
every file the page shows is put in.

Browsers play H.264/AV1 in MP4 and VP8/VP9/AV1 in WebM, not MPEG-4 Part 2 (OpenCV's mp4v), ProRes
or MJPEG. Those are transcoded once to H.264 with PyAV (which bundles libx264) at up to 720 px; the
analysis always reads the original.

**Serving only what the page needs** (issue 10, docs/security.md). The store's files (the database,
the clips, their transcoded previews in ``<data dir>/previews``) are never handed to the page.
What the page shows is put under ``Settings.page_dir`` (the app sets it inside Gradio's cache
folder, so Gradio serves the file in place instead of copying it elsewhere), as

    <page_dir>/<role>/<owner>/<token>/<file>

``role`` is the weakest role that may fetch it (``annotator`` for a stored clip), ``owner`` is
``shared`` (any user with that role: stored clips) or the requester's :func:`owner key
<ui.usecases.accounts.owner_key>` (their own unstored upload, overlays, exports), ``token`` a
random or content-derived folder name. ``ui.serving`` serves a file only when
:func:`may_fetch` says so for the requester, and nothing else of the disk at all.
"""
from __future__ import annotations

import hashlib
import logging
import os
import secrets
import shutil
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Any

from db.roles import ROLES, has_role
from ui.settings import Settings

log = logging.getLogger(__name__)

#: (suffixes, codecs, the suffix the page file gets) that browsers (and Gradio's own check, which
#: would otherwise convert the file into a folder nobody serves) play as they are.
PLAYABLE = ((frozenset({".mp4", ".m4v", ".mov"}), frozenset({"h264", "av1"}), ".mp4"),
            (frozenset({".webm"}), frozenset({"vp8", "vp9", "av1"}), ".webm"))
SHARED = "shared"  # the owner folder of files for every user with the role (stored clips)
NOBODY = "nobody"  # the owner folder of a requester who cannot be told apart: served to no one


def page_root(settings: Settings) -> Path:
    """Where the page's files go (``Settings.page_dir``; a temp folder when it is unset)."""
    return Path(settings.page_dir or Path(tempfile.gettempdir()) / "cinecap-page")


def page_folder(settings: Settings, role: str, owner: str | None,
                token: str | None = None) -> Path:
    """A folder for files the page shows to ``owner`` (an owner key; :data:`SHARED` for every
    user with ``role``; None — a requester with no key — for no one) with at least ``role``; a
    new random one unless ``token`` names it."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    folder = page_root(settings) / role / (owner or NOBODY) / (token or secrets.token_hex(16))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def may_fetch(settings: Settings, path: str | Path, role: str | None,
              owner: str | None) -> bool:
    """Whether a requester with ``role`` and owner key ``owner`` may fetch ``path`` (relative
    paths are taken from the working directory, as Gradio takes them; links are followed):
    only a file laid out as ``<page_dir>/<role>/<owner>/<token>/<file>`` for them."""
    try:
        root = page_root(settings).resolve()
        resolved = Path(os.path.abspath(path)).resolve()
        parts = resolved.relative_to(root).parts
    except (ValueError, OSError, RuntimeError):
        return False
    if len(parts) != 4 or not resolved.is_file():
        return False
    need, who = parts[0], parts[1]
    return (need in ROLES and has_role(role, need)
            and (who == SHARED or (owner is not None and who == owner)))


def video_for_page(settings: Settings, path: str | Path, codec: str | None, stored: bool,
                   owner: str | None = None, public: bool = False) -> str:
    """A file the browser can play, in a page folder: a stored clip (``stored``) for any
    annotator, else the upload of ``owner`` (an owner key) for them alone (None: for no one,
    a requester who cannot be told apart from others). The clip itself when
    a browser plays it, else its H.264 preview (kept in ``<data dir>/previews`` for stored clips,
    so it is made once). ``public``: a clip every visitor may see (the example clips)."""
    path = Path(path)
    if stored or public:
        source = Path(playable(path, codec, settings.data_dir / "previews"))
        return shared_file(settings, "viewer" if public else "annotator", source,
                           _page_name(source, codec))
    folder = page_folder(settings, "viewer", owner)
    suffix = _playable_suffix(path, codec)
    if suffix:
        return str(_page_copy(path, folder / f"{path.stem}{suffix}"))
    return playable(path, codec, folder)


def shared_file(settings: Settings, role: str, source: str | Path, name: str | None = None
                ) -> str:
    """``source`` in a page folder for every user with ``role`` (a stored clip for annotators;
    the public example clips and their overlays for everyone), named ``name`` (default: its
    own). The folder is named after the file's identity, so it is made once."""
    source = Path(source)
    st = source.stat()
    key = hashlib.sha256(f"{source.resolve()}|{st.st_size}|{st.st_mtime_ns}".encode())
    folder = page_folder(settings, role, SHARED, key.hexdigest()[:32])
    return str(_page_copy(source, folder / (name or source.name)))


def save_images(images: list[tuple[Any, str]], directory: str | Path,
                stem: str = "overlay") -> list[tuple[str, str]]:
    """(RGB array, title) pairs written as WebP files into ``directory`` (a page folder):
    (file, title) pairs for a gallery."""
    from PIL import Image

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    files = []
    for i, (img, title) in enumerate(images):
        path = directory / f"{stem}-{i:02d}.webp"
        Image.fromarray(img).save(path, "WEBP", quality=80)
        files.append((str(path), title))
    return files


def _playable_suffix(path: Path, codec: str | None) -> str | None:
    for suffixes, codecs, page_suffix in PLAYABLE:
        if path.suffix.lower() in suffixes and (codec or "").lower() in codecs:
            return page_suffix
    return None


def _page_name(source: Path, codec: str | None) -> str:
    return f"{source.stem}{_playable_suffix(source, codec) or source.suffix.lower()}"


def _page_copy(src: Path, dest: Path) -> Path:
    """``src`` at ``dest``: a hard link where the two share a file system (no bytes copied, and
    the page never holds a path into the data directory), else a copy; made once."""
    if dest.exists():
        return dest
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    os.close(fd)
    os.unlink(tmp)
    try:
        try:
            os.link(src, tmp)
        except OSError:  # another file system, or links not allowed: copy
            shutil.copyfile(src, tmp)
        os.replace(tmp, dest)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return dest


def playable(path: str | Path, codec: str | None, cache_dir: str | Path) -> str:
    """``path`` itself when a browser plays it, else a cached H.264 copy (``cache_dir``).

    A clip that cannot be transcoded is returned as is: the player stays blank, captioning works.
    """
    path = Path(path)
    if _playable_suffix(path, codec):
        return str(path)
    out = Path(cache_dir) / f"{path.stem}.h264.mp4"
    if out.exists():
        return str(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    # A temp name of its own: two requests transcoding one clip never write one file.
    fd, tmp_name = tempfile.mkstemp(dir=out.parent, prefix=f".{path.stem}.", suffix=".part.mp4")
    os.close(fd)
    tmp = Path(tmp_name)
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

    with av.open(str(src)) as inp, av.open(str(dst), "w", format="mp4") as outp:
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
