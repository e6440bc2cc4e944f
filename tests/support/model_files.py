"""The pretrained detector files in tests: real copies of the team's files (``shared/models``
beside the checkout, never written to), an environment where none is found, and a real HTTP
server on loopback that serves a folder (the mirror ``CINECAP_MODELS_URL_BASE`` points at).

    env = no_model_files(tmp_path)               # nothing found anywhere, nothing touches ~/.cache
    copy_model_files(tmp_path / "m", "yunet")    # real bytes, checksum-true
    with FolderServer(folder) as srv: ...        # srv.url, srv.requests
"""
from __future__ import annotations

import shutil
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cinecap import pretrained
from tests.support.require import missing

#: Variables the resolver and fetch read; cleared so the developer's own settings never leak in.
MODEL_VARIABLES = ("CINECAP_MODELS_DIR", "CINECAP_MODELS_URL_BASE", "CINECAP_MODELS_SHARED",
                   "XDG_CACHE_HOME")
#: The team's folder, as found on import (a test may point the resolver elsewhere).
TEAM_DIR = pretrained.SHARED_DIR


def require_shared(*names: str) -> Path:
    """The team's folder, where it holds ``names`` (skip on a developer's machine without it;
    fail under CI, which must provide it)."""
    folder = TEAM_DIR
    absent = [n for n in names if not (folder / pretrained.MODELS[n].filename).is_file()]
    if absent:
        missing(f"the detector files {absent} are not in {folder}")
    return folder


def copy_model_files(dest: Path, *names: str) -> Path:
    """Copies of ``names`` from the team's folder into ``dest`` (created)."""
    src = require_shared(*names)
    dest.mkdir(parents=True, exist_ok=True)
    for n in names:
        shutil.copyfile(src / pretrained.MODELS[n].filename, dest / pretrained.MODELS[n].filename)
    return dest


def write_changed(path: Path, source: Path, at: int | None = None) -> Path:
    """``source``'s bytes with one byte changed (the middle by default), written to ``path``."""
    data = bytearray(source.read_bytes())
    i = len(data) // 2 if at is None else at
    data[i] ^= 0xFF
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(data))
    return path


def no_model_files(tmp: Path) -> dict[str, str]:
    """Environment in which no detector file is found: an empty configured folder, the user's
    cache and home in ``tmp``, the team's folder switched off."""
    empty = tmp / "no-models"
    empty.mkdir(parents=True, exist_ok=True)
    return {"CINECAP_MODELS_DIR": str(empty), "XDG_CACHE_HOME": str(tmp / "xdg-cache"),
            "HOME": str(tmp / "home"), "CINECAP_MODELS_SHARED": "0"}


class _Quiet(SimpleHTTPRequestHandler):
    def log_request(self, code="-", size="-"):  # once per request, whatever its status
        self.server.requests.append(self.path)  # type: ignore[attr-defined]

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


class FolderServer:
    """``http.server`` on 127.0.0.1 in a thread, serving ``folder`` (404 for what it lacks)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def __enter__(self) -> "FolderServer":
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0),
                                         partial(_Quiet, directory=str(self.folder)))
        self.httpd.requests = []  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def requests(self) -> list[str]:
        return self.httpd.requests  # type: ignore[attr-defined]

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)
