"""What the web server hands out: only the page's own files, to whom they are for (issue 10).

Gradio serves ``GET /gradio_api/file=PATH`` (and ``/gradio_api/file/PATH``) for any file under its
``allowed_paths``, its cache folder (``GRADIO_TEMP_DIR``: every user's uploads and every output),
and its examples cache, by absolute or working-directory-relative path. :class:`PageGuard` stands
in front of those routes and answers 404 for everything except

- a page file (``ui.usecases.preview``: ``<page_dir>/<role>/<owner>/<token>/<file>``) that the
  requester may fetch: their role reaches ``<role>``, and ``<owner>`` is ``shared`` or them;
- Gradio's own static files (its icons).

So the database, its ``-wal``/``-shm``, the data directory, other users' uploads, and any other
path of the disk are never served, by any spelling of the path (relative, ``..``, URL-encoded,
symbolic links: the path is resolved first, as Gradio resolves it). The launch options add a
second lock: nothing in ``allowed_paths``, and the data directory and the database's files in
``blocked_paths`` (Gradio refuses to serve or to copy those even if this guard had a hole).

It also hands each anonymous browser a random ``cinecap_visitor`` cookie (their own files and
caption quota are keyed by it), and notes the client's address (``ui.context.client_address``).
:class:`EarlyScript` puts the page's scripts that must run before Gradio's own into the page.
"""
from __future__ import annotations

import contextvars
import logging
import re
import secrets
from http.cookies import SimpleCookie
from types import SimpleNamespace
from typing import Any

from starlette.concurrency import run_in_threadpool

from ui.addresses import client_address
from ui.settings import Settings
from ui.usecases import accounts
from ui.usecases.preview import may_fetch

log = logging.getLogger(__name__)

#: The address of the client whose request is being handled (``ui.context.client_address``:
#: the peer, or what trusted proxies forwarded), for the sign-in throttle.
CLIENT_ADDRESS: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "cinecap_client_address", default=None)

#: Where the client's address (as :data:`CLIENT_ADDRESS` has it) is noted in the request's
#: ``scope["state"]``: a handler runs later, in Gradio's queue, outside this context, and reads it
#: there (``AppContext.address``) for the caption quota.
ADDRESS_STATE = "cinecap_client_address"

FILE_ROUTE = re.compile(r"^/gradio_api/file(?:=|/)(?P<target>.*)$", re.DOTALL)


class PageGuard:
    """ASGI middleware (innermost: Gradio's session middleware has run) over the Gradio app."""

    def __init__(self, app, settings: Settings, store: Any,
                 roles: accounts.OAuthRoles | None = None):
        self.app = app
        self.settings, self.store = settings, store
        self.roles = roles or accounts.OAuthRoles(settings)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        token = CLIENT_ADDRESS.set(client_address(scope, self.settings.trusted_proxies))
        scope.setdefault("state", {})[ADDRESS_STATE] = CLIENT_ADDRESS.get()
        try:
            cookies = _cookies(scope)
            m = FILE_ROUTE.match(_route_path(scope))
            if m and not await self._may_serve(scope, cookies, m.group("target")):
                return await _not_found(send)
            if not any(name in cookies for name in accounts.VISITOR_COOKIES):
                send = _with_visitor_cookie(send)
            await self.app(scope, receive, send)
        finally:
            CLIENT_ADDRESS.reset(token)

    async def _may_serve(self, scope, cookies: dict[str, str], target: str) -> bool:
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or "\x00" in target:
            return False  # a URL Gradio would fetch itself, or no path at all: never
        try:
            from gradio.utils import is_static_file

            if is_static_file(target):  # Gradio's own icons
                return True
            request = SimpleNamespace(username=None, session=scope.get("session"),
                                      cookies=cookies)
            return await run_in_threadpool(self._check, request, target)
        except Exception:  # noqa: BLE001 - a failed check serves nothing
            log.exception("checking a file request failed")
            return False

    def _check(self, request, target: str) -> bool:
        user = accounts.current_user(request, self.settings, self.store, self.roles)
        if user.id and user.provider == "local":  # signed in: their files are keyed by name
            request.username = user.name
        return may_fetch(self.settings, target, user.role, accounts.owner_key(request))


class EarlyScript:
    """ASGI middleware: ``html`` (``<script>`` elements) put into Gradio's page (``GET /``) before
    its first script, ahead of Gradio's modules: what a script must change before they load
    (``ui/static/app_frames.js``). Gradio's ``head`` option adds its scripts later, from the
    page's own code. Any other response passes untouched."""

    def __init__(self, app, html: str):
        self.app, self.html = app, html.encode()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("method") != "GET" or _route_path(scope) != "/":
            return await self.app(scope, receive, send)
        start: dict = {}
        chunks: list[bytes] = []

        async def sending(message):
            if message["type"] == "http.response.start":
                start.update(message)  # sent with the body, once its length is known
                return
            if message["type"] != "http.response.body":
                return await send(message)
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            body = b"".join(chunks)
            headers = [(k, v) for k, v in start.get("headers", [])]
            html = any(k.lower() == b"content-type" and v.startswith(b"text/html")
                       for k, v in headers)
            at = body.find(b"<script") if html else -1
            if at >= 0:
                body = body[:at] + self.html + body[at:]
                headers = [(k, str(len(body)).encode() if k.lower() == b"content-length" else v)
                           for k, v in headers]
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, sending)


def _route_path(scope) -> str:
    path, root = scope.get("path", ""), scope.get("root_path", "")
    return path[len(root):] if root and path.startswith(root) else path


def _cookies(scope) -> dict[str, str]:
    jar = SimpleCookie()
    for name, value in scope.get("headers", []):
        if name == b"cookie":
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # noqa: BLE001 - a malformed cookie header: no cookies
                pass
    return {k: m.value for k, m in jar.items()}


async def _not_found(send) -> None:
    body = b'{"detail":"Not Found"}'
    await send({"type": "http.response.start", "status": 404,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _with_visitor_cookie(send):
    """Two cookies with one random value, as Gradio sets its login cookie: ``SameSite=None;
    Secure`` for a page inside another site's frame (a Space), and a ``Lax`` one for plain http
    (a browser refuses a Secure cookie there)."""
    value = secrets.token_urlsafe(24)
    strict, lax = accounts.VISITOR_COOKIES
    cookies = [f"{strict}={value}; Path=/; HttpOnly; SameSite=None; Secure".encode("latin-1"),
               f"{lax}={value}; Path=/; HttpOnly; SameSite=Lax".encode("latin-1")]

    async def sending(message):
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []),
                                              *((b"set-cookie", c) for c in cookies)]}
        await send(message)
    return sending
