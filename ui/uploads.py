"""Anonymous visitors' uploads: capped per client address, removed when the visitor goes (issue
27 item 2: 20 distinct 5 MB uploads from one visitor were all kept, 100 MB for a day, and each
may be up to 500 MB).

Gradio writes an upload (``POST /gradio_api/upload``) into its cache folder before any handler of
ours runs, so the cap sits in front of that route: :class:`UploadGuard`, ASGI middleware inside
``ui.serving.PageGuard`` (which notes the client address, ``ui.serving.CLIENT_ADDRESS``). For a
visitor who is not signed in it refuses an upload (HTTP 429, one line) once their address keeps
``Settings.visitor_uploads`` files or the next one would take it past
``Settings.visitor_upload_mb`` megabytes (counted as sent: the request's length). What was kept
is removed when that browser's page session ends (``forget``, called by the app's unload event)
or after ``Settings.visitor_upload_idle_s`` seconds without a request from the address
(``sweep``, on requests and from a background thread). Signed-in accounts are not capped here:
they own what they upload, and their captions have their own quota (``ui.usecases.limits``).
"""
from __future__ import annotations

import json
import logging
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

from starlette.concurrency import run_in_threadpool

from ui.serving import CLIENT_ADDRESS, _cookies
from ui.settings import Settings
from ui.usecases import accounts

log = logging.getLogger(__name__)

UPLOAD_ROUTE = "/gradio_api/upload"


@dataclass
class _Kept:
    path: Path
    size: int
    visitor: str  # the browser's visitor cookie, "" without one (what a page session ends)


class VisitorUploads:
    """The uploads each anonymous client address keeps, and when it was last seen."""

    def __init__(self, max_files: int, max_bytes: int, idle_s: float,
                 clock: Callable[[], float] = time.monotonic):
        self.max_files, self.max_bytes, self.idle_s, self.clock = max_files, max_bytes, idle_s, clock
        self._kept: dict[str, list[_Kept]] = {}
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> "VisitorUploads":
        return cls(settings.visitor_uploads, settings.visitor_upload_mb * 2**20,
                   settings.visitor_upload_idle_s)

    def seen(self, address: str) -> None:
        with self._lock:
            self._seen[address] = self.clock()

    def kept(self, address: str) -> tuple[int, int]:
        """(files, bytes) the address keeps uploaded now."""
        with self._lock:
            files = self._kept.get(address, [])
            return len(files), sum(k.size for k in files)

    def refusal(self, address: str, incoming: int) -> str | None:
        """Why the next upload of ``incoming`` bytes from ``address`` is refused, or None."""
        files, size = self.kept(address)
        if self.max_files and files >= self.max_files:
            return (f"this address keeps {files} uploaded clips, the most a visitor who is not "
                    f"signed in may keep; caption one of them, or come back after "
                    f"{_minutes(self.idle_s)} without uploads (they are removed then)")
        if self.max_bytes and size + incoming > self.max_bytes:
            return (f"this upload ({incoming / 2**20:,.1f} MB) would take this address's uploads "
                    f"to {(size + incoming) / 2**20:,.1f} MB, over the "
                    f"{self.max_bytes / 2**20:,.0f} MB a visitor who is not signed in may keep; "
                    f"they are removed after {_minutes(self.idle_s)} without uploads")
        return None

    def add(self, address: str, visitor: str, paths: list[str], size: int) -> None:
        """Note ``paths`` (one upload request of ``size`` bytes, shared out) as the address's."""
        if not paths:
            return
        each = size // len(paths)
        with self._lock:
            self._kept.setdefault(address, []).extend(
                _Kept(Path(p), each, visitor) for p in paths)
            self._seen[address] = self.clock()

    def forget(self, address: str | None, visitor: str | None = None) -> int:
        """Remove the uploads of ``address`` (of one browser's ``visitor`` cookie only, when
        given); how many files went."""
        if not address:
            return 0
        with self._lock:
            files = self._kept.get(address, [])
            gone = [k for k in files if visitor is None or k.visitor == visitor]
            left = [k for k in files if k not in gone]
            if left:
                self._kept[address] = left
            else:
                self._kept.pop(address, None)
        for k in gone:
            _remove(k.path)
        return len(gone)

    def sweep(self) -> int:
        """Remove the uploads of every address idle for ``idle_s``; how many files went."""
        now = self.clock()
        with self._lock:
            idle = [a for a in self._kept if now - self._seen.get(a, 0.0) >= self.idle_s]
            for a in list(self._seen):
                if a not in self._kept and now - self._seen[a] >= self.idle_s:
                    del self._seen[a]
        return sum(self.forget(a) for a in idle)


def _minutes(seconds: float) -> str:
    return f"{seconds:g} s" if seconds < 120 else f"{seconds / 60:g} min"


def _remove(path: Path) -> None:
    """Remove an uploaded file and the folder Gradio made for it, when it holds nothing else."""
    try:
        path.unlink(missing_ok=True)
        folder = path.parent
        if folder.is_dir() and not any(folder.iterdir()):
            shutil.rmtree(folder, ignore_errors=True)
    except OSError as e:
        log.warning("could not remove the upload %s: %s", path.name, e)


class UploadGuard:
    """ASGI middleware (inside ``PageGuard``): the visitor upload cap in front of Gradio's
    upload route, and the address's last request noted for the idle removal."""

    def __init__(self, app, settings: Settings, store: Any, uploads: VisitorUploads,
                 roles: accounts.OAuthRoles | None = None):
        self.app, self.settings, self.store, self.uploads = app, settings, store, uploads
        self.roles = roles or accounts.OAuthRoles(settings)
        self._next_sweep = 0.0
        threading.Thread(target=self._sweeping, name="cinecap-uploads", daemon=True).start()

    def _sweeping(self) -> None:
        while True:  # a daemon: the files of visitors who left go even when nobody comes by
            time.sleep(max(1.0, min(60.0, self.uploads.idle_s / 2)))
            try:
                self.uploads.sweep()
            except Exception:  # noqa: BLE001 - a failed sweep is retried next time
                log.exception("removing idle visitors' uploads failed")

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        address = CLIENT_ADDRESS.get() or "unknown"
        self.uploads.seen(address)
        path = scope.get("path", "")
        root = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root):]
        if scope.get("method") != "POST" or path.rstrip("/") != UPLOAD_ROUTE:
            return await self.app(scope, receive, send)
        cookies = _cookies(scope)
        # A local account is known by its session cookie (ui.signin), as the page guard reads it.
        request = SimpleNamespace(username=None, session=scope.get("session"), cookies=cookies)
        user = await run_in_threadpool(accounts.current_user, request, self.settings, self.store,
                                       self.roles)
        if user.id:  # a signed-in account
            return await self.app(scope, receive, send)
        now = time.monotonic()
        if now >= self._next_sweep:
            self._next_sweep = now + 5.0
            self.uploads.sweep()
        size = _content_length(scope)
        refusal = self.uploads.refusal(address, size)
        if refusal:
            return await _refuse(send, refusal)
        visitor = next((cookies[c] for c in accounts.VISITOR_COOKIES if cookies.get(c)), "")
        answer: dict[str, Any] = {"status": 0, "body": b""}

        async def sending(message):
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
            elif message["type"] == "http.response.body" and answer["status"] == 200:
                answer["body"] += message.get("body", b"")
            await send(message)

        await self.app(scope, receive, sending)
        if answer["status"] == 200:
            try:
                paths = [p for p in json.loads(answer["body"] or b"[]") if isinstance(p, str)]
            except ValueError:
                paths = []
            self.uploads.add(address, visitor, paths, size)


def _content_length(scope) -> int:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return max(0, int(value))
            except ValueError:
                return 0
    return 0


async def _refuse(send, message: str) -> None:
    body = message.encode("utf-8")
    await send({"type": "http.response.start", "status": 429,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
