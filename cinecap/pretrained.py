"""The pretrained detector files: the one place the library finds, checks and fetches them.

The files never enter the repository (docs/models.md "Pretrained detector files"). Each is
looked for, in order: the path a caller gives, else the folder ``CINECAP_MODELS_DIR``; the user's
cache (``$XDG_CACHE_HOME/cinecap/models``, by default ``~/.cache/cinecap/models``); the team's copy
in ``shared/models`` beside the checkout (off with ``CINECAP_MODELS_SHARED=0``, as the tests of the
"missing" path do). A file found anywhere is used only when its SHA-256 is the official one: a
changed file is refused (:class:`ChecksumError`), never silently skipped, because a detector that
reads wrong is worse than none. :func:`fetch` downloads a file from its official URL (or a mirror:
``CINECAP_MODELS_URL_BASE``) into the cache, verifying size and digest before it is renamed into
place.
"""
from __future__ import annotations

import difflib
import hashlib
import http.client
import os
import tempfile
import threading
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from cinecap.errors import ChecksumError, InputError, ModelFetchError
from cinecap.files import sha256_file
from cinecap.progress import Progress


@dataclass(frozen=True)
class ModelFile:
    """One pretrained file: where it officially comes from, its exact bytes, its licence."""

    name: str
    filename: str
    url: str
    size: int  # bytes
    sha256: str
    licence: str
    purpose: str
    #: Not needed by default (``missing()`` leaves it out): MoveNet needs ai-edge-litert.
    optional: bool = False


MODELS: dict[str, ModelFile] = {m.name: m for m in (
    ModelFile(
        name="yolox_nano", filename="yolox_nano.onnx",
        url="https://github.com/Megvii-BaseDetection/YOLOX/releases/download/0.1.1rc0/"
            "yolox_nano.onnx",
        size=3_659_407,
        sha256="c789161ed43c8269fcd4e67c67eeeb4e80c622da2eb296a20bc6007bd18a0b7d",
        licence="Apache-2.0",
        purpose="YOLOX-Nano (Megvii, release 0.1.1rc0): people, animals and vehicles, "
                "COCO's 80 classes"),
    ModelFile(
        name="yunet", filename="face_detection_yunet_2023mar.onnx",
        url="https://github.com/opencv/opencv_zoo/raw/main/models/face_detection_yunet/"
            "face_detection_yunet_2023mar.onnx",
        size=232_589,
        sha256="8f2383e4dd3cfbb4553ea8718107fc0423210dc964f9f4280604804ed2552fa4",
        licence="MIT",
        purpose="YuNet 2023mar (OpenCV Zoo): faces with five landmarks"),
    ModelFile(
        name="movenet", filename="movenet_single_pose_lightning_ptq.tflite",
        url="https://github.com/google-coral/test_data/raw/master/"
            "movenet_single_pose_lightning_ptq.tflite",
        size=2_894_840,
        sha256="cd7cc22fa946e5d146a7b98d496853e1923e22828d3972d579973f27f91bb105",
        licence="Apache-2.0",
        purpose="MoveNet SinglePose Lightning int8 (Google): 17 body keypoints; optional, "
                "runs only with ai-edge-litert", optional=True),
)}

#: What the anchors need by default (``missing()``, ``status_line()``).
DEFAULT_NAMES: tuple[str, ...] = ("yolox_nano", "yunet")

#: The team's copy beside the checkout: <root>/../shared/models.
SHARED_DIR = Path(__file__).resolve().parents[2] / "shared" / "models"

# Hashing a 3.7 MB file costs ~10 ms; once per (path, size, mtime) per process is enough.
_digests: dict[tuple[str, int, int, int, int], str] = {}
_digests_lock = threading.Lock()


def model(name: str) -> ModelFile:
    """The registry entry ``name``; InputError (with "did you mean") for an unknown one."""
    if name in MODELS:
        return MODELS[name]
    close = difflib.get_close_matches(name, list(MODELS), n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise InputError(f"unknown model file {name!r}.{hint} Known: {', '.join(MODELS)}")


def cache_dir() -> Path:
    """The user's model cache: ``$XDG_CACHE_HOME/cinecap/models`` (``~/.cache/cinecap/models``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cinecap" / "models"


def _shared_enabled() -> bool:
    return os.environ.get("CINECAP_MODELS_SHARED", "1").strip().lower() not in (
        "0", "no", "false", "off")


def search_path(name: str, path: str | Path | None = None) -> list[Path]:
    """Where ``name`` is looked for, in order (the candidates, whether they exist or not)."""
    m = model(name)
    out: list[Path] = []
    given = path if path is not None else os.environ.get("CINECAP_MODELS_DIR") or None
    if given is not None:
        p = Path(given).expanduser()
        out.append(p / m.filename if p.is_dir() or not p.suffix else p)
    out.append(cache_dir() / m.filename)
    if _shared_enabled():
        out.append(SHARED_DIR / m.filename)
    return out


def digest(path: Path) -> str:
    """SHA-256 of ``path``, memoised per (path, size, mtime) so each file is hashed once."""
    st = path.stat()
    # inode and ctime too: a file rewritten within one mtime tick still counts as new.
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
    with _digests_lock:
        found = _digests.get(key)
    if found is None:
        found = sha256_file(path)
        with _digests_lock:
            _digests[key] = found
    return found


def verify(name: str, path: str | Path) -> Path:
    """``path`` when it holds exactly the official bytes of ``name``; ChecksumError otherwise."""
    m, p = model(name), Path(path)
    found = digest(p)
    if found != m.sha256:
        raise ChecksumError(
            f"model file {m.filename} in {p.parent} does not match its official checksum "
            f"(expected SHA-256 {m.sha256}, found {found}); it is refused. Delete it and run "
            f"`cinecap models fetch {m.name}` to download it again")
    return p


def resolve(name: str, path: str | Path | None = None) -> Path | None:
    """The verified file of ``name``, or None when it is nowhere in :func:`search_path`.

    The first candidate that exists decides: a file there whose checksum is wrong raises
    :class:`ChecksumError` (naming the file, where it is, both digests and the fix).
    """
    for p in search_path(name, path):
        if p.is_file():
            return verify(name, p)
    return None


def fetch(name: str, dest: str | Path | None = None, progress: Progress | None = None,
          url: str | None = None) -> Path:
    """Download ``name`` into ``dest`` (a folder; the cache by default) and return its path.

    From ``url``, else ``$CINECAP_MODELS_URL_BASE/<filename>`` (a mirror), else the official URL.
    The bytes go to a temporary name in ``dest``, are checked for size and SHA-256, then renamed
    into place; a mismatch deletes them and raises :class:`ChecksumError`, a failed download
    :class:`ModelFetchError`. A verified copy already in ``dest`` is kept, not downloaded again.
    """
    m = model(name)
    folder = Path(dest).expanduser() if dest is not None else cache_dir()
    target = folder / m.filename
    report = progress or (lambda fraction, message: None)
    if target.is_file():
        try:
            verify(name, target)
            report(1.0, f"{m.filename}: already there, checksum verified")
            return target
        except ChecksumError:
            pass  # replaced below by a verified download
    source = url or _mirror_url(m) or m.url
    if urllib.parse.urlsplit(source).scheme not in ("http", "https"):
        raise InputError(f"cannot download {m.filename} from {source!r}: only http(s) URLs")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{m.filename}.", suffix=".part", dir=folder)
    except OSError as e:
        raise ModelFetchError(f"cannot write model file {m.filename} into {folder}: "
                              f"{e.strerror or e}") from e
    tmp = Path(tmp_name)
    try:
        found, size = _download(source, fd, m, report)
        if size != m.size or found != m.sha256:
            got = (f"more than {m.size} bytes" if size > m.size else
                   f"{size} bytes, SHA-256 {found}")
            raise ChecksumError(
                f"the download of model file {m.filename} from {source} does not match its "
                f"official checksum (expected {m.size} bytes, SHA-256 {m.sha256}; got {got}); "
                f"it was refused and nothing was kept. Check the URL (or "
                f"CINECAP_MODELS_URL_BASE) and try `cinecap models fetch {m.name}` again")
        # mkstemp makes it 0600; a model file in a shared cache is for every user to read.
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    report(1.0, f"{m.filename}: downloaded, checksum verified")
    return target


def _mirror_url(m: ModelFile) -> str | None:
    base = os.environ.get("CINECAP_MODELS_URL_BASE", "").strip()
    return f"{base.rstrip('/')}/{m.filename}" if base else None


def _download(source: str, fd: int, m: ModelFile, report: Progress) -> tuple[str, int]:
    """Stream ``source`` into the open file ``fd``: (SHA-256, bytes). Stops as soon as more bytes
    arrive than the file has, so a wrong URL cannot fill the disk."""
    h, size, shown = hashlib.sha256(), 0, -1
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(source, timeout=60) as resp:
            while block := resp.read(1 << 16):
                size += len(block)
                if size > m.size:
                    break
                h.update(block)
                out.write(block)
                pct = int(100 * size / m.size)
                if pct // 5 != shown // 5:  # every 5 %: enough to see it move
                    shown = pct
                    report(min(size / m.size, 1.0),
                           f"{m.filename}: {size / 1e6:.2f} of {m.size / 1e6:.2f} MB")
    except urllib.error.HTTPError as e:
        e.close()  # the error holds the answer's socket; the raised error keeps it alive
        raise ModelFetchError(f"could not download model file {m.filename} from {source}: "
                              f"HTTP {e.code} {e.reason}") from e
    except (urllib.error.URLError, http.client.HTTPException, OSError, TimeoutError) as e:
        reason = getattr(e, "reason", None) or getattr(e, "strerror", None) or e
        raise ModelFetchError(f"could not download model file {m.filename} from {source}: "
                              f"{reason}") from e
    return h.hexdigest(), size


def state(name: str, path: str | Path | None = None) -> tuple[Path | None, str]:
    """(the verified path or None, ``"found"`` | ``"missing"`` | ``"mismatch"``), never raising
    for a bad checksum: for listings and status lines."""
    try:
        p = resolve(name, path)
    except ChecksumError:
        return None, "mismatch"
    return (p, "found") if p is not None else (None, "missing")


def missing(names: tuple[str, ...] | list[str] = DEFAULT_NAMES) -> list[str]:
    """The names among ``names`` with no usable file (not found, or failing its checksum)."""
    return [n for n in names if state(n)[1] != "found"]


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def status_line(names: tuple[str, ...] | list[str] = DEFAULT_NAMES) -> str | None:
    """One sentence on which detector files are missing and how to get them; None when all are
    there. No server path in it: the app shows it to visitors."""
    states = {n: state(n)[1] for n in names}
    absent = [MODELS[n].filename for n, s in states.items() if s == "missing"]
    refused = [MODELS[n].filename for n, s in states.items() if s == "mismatch"]
    if not absent and not refused:
        return None
    clauses = []
    if absent:
        clauses.append(f"{_listed(absent)} {'is' if len(absent) == 1 else 'are'} missing")
    if refused:
        clauses.append(f"{_listed(refused)} "
                       f"{'fails its' if len(refused) == 1 else 'fail their'} checksum")
    one = len(absent) + len(refused) == 1
    it = "it" if one else "them"
    return (f"Detector file{'' if one else 's'}: {' and '.join(clauses)}; the analysis runs "
            f"without {it}. Get {it} with `cinecap models fetch`.")


__all__ = ["ChecksumError", "DEFAULT_NAMES", "MODELS", "ModelFetchError", "ModelFile",
           "cache_dir", "fetch", "missing", "model", "resolve", "search_path", "state",
           "status_line", "verify"]
