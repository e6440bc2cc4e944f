"""Signing in to local accounts beside the public demo (issue 26 item 2, issue 27 items 4–6).

Gradio's ``auth=`` puts a login wall in front of everyone and keeps its sessions in memory, so
the app does not use it. Instead, in front of the Gradio app (an ASGI middleware, like
``ui.serving.PageGuard``):

- ``GET /sign-in``: a small sign-in page; ``POST /sign-in`` checks the form and goes back to the
  app signed in (or shows the page again with the reason);
- ``POST /login``: the same check answered as Gradio's own route answers (``{"success": true}``
  or 400 / 429), for ``gradio_client.Client(url, auth=(name, password))`` and scripts;
- ``GET|POST /logout``: ends this browser's session in the store (``?everywhere=1``: every
  session of the account), clears the cookies, back to the app as a visitor.

A session is a random token in two cookies (``accounts.SESSION_COOKIES``); the store keeps its
hash, bound to the account's id, with an expiry (``store.sign_ins``). :func:`session_name` is the
app's ``auth_dependency``: Gradio then names the user of each request (``request.username``,
``/gradio_api/user``) from the store, and never refuses an anonymous visitor (who is ``""``).
Every check goes through ``ui.usecases.accounts`` (the throttle, the password, the session).
"""
from __future__ import annotations

import html
import logging
from typing import Any
from urllib.parse import parse_qs

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from ui.addresses import client_address
from ui.serving import _route_path
from ui.settings import Settings
from ui.usecases import accounts

log = logging.getLogger(__name__)

#: A sign-in form is two short fields; anything bigger is refused unread.
MAX_FORM_BYTES = 16 * 1024


def session_name(store: Any):
    """Gradio's ``auth_dependency``: the signed-in account's name, or ``""`` for a visitor
    (``None`` would make Gradio answer 401 to the public demo)."""

    async def name(request) -> str:
        token = accounts.session_token(request)
        if not token:
            return ""
        user = await run_in_threadpool(accounts.session_user, store, token)
        return user.name if user is not None else ""
    return name


class SignIn:
    """ASGI middleware serving the sign-in routes; everything else goes to the app."""

    def __init__(self, app, settings: Settings, store: Any, throttle: accounts.LoginThrottle):
        self.app = app
        self.settings, self.store, self.throttle = settings, store, throttle

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path, method = _route_path(scope).rstrip("/") or "/", scope.get("method", "GET")
        if path == "/sign-in" and method in ("GET", "HEAD"):
            response = sign_in_page()
        elif path in ("/sign-in", "/login") and method == "POST":
            response = await self._sign_in(Request(scope, receive), page=path == "/sign-in")
        elif path == "/logout" and method in ("GET", "POST"):
            response = await self._sign_out(Request(scope, receive))
        else:
            return await self.app(scope, receive, send)
        await response(scope, receive, send)

    async def _sign_in(self, request: Request, page: bool) -> Response:
        if int(request.headers.get("content-length") or 0) > MAX_FORM_BYTES:
            return _refused(page, 413, "the sign-in form is too large")
        try:
            form = await request.form(max_files=0, max_fields=8)
        except Exception:  # noqa: BLE001 - a malformed body is a refused sign-in, not a 500
            return _refused(page, 400, "the sign-in form could not be read")
        name, password = str(form.get("username") or ""), str(form.get("password") or "")
        address = client_address(request.scope, self.settings.trusted_proxies)
        try:
            user = await run_in_threadpool(accounts.sign_in, self.store, name, password,
                                           self.throttle, address)
        except accounts.TooManyRequests as e:
            return _refused(page, 429, e.message, name,
                            {"Retry-After": str(int(e.retry_after_s) + 1)})
        if user is None:
            return _refused(page, 400, "Incorrect credentials.", name)
        token = await run_in_threadpool(accounts.start_session, self.store, self.settings, user)
        log.info("signed in: %s (%s) from %s", user.name, user.role, address)
        response: Response = (RedirectResponse("./", status_code=303) if page
                              else JSONResponse({"success": True}))
        _set_session_cookies(response, token, self.settings.session_lifetime_s)
        return response

    async def _sign_out(self, request: Request) -> Response:
        token = accounts.session_token(request)
        everywhere = (parse_qs(request.url.query).get("everywhere") or [""])[0] in ("1", "true")
        ended = await run_in_threadpool(accounts.sign_out, self.store, token, everywhere)
        log.info("signed out: %d session(s) ended", ended)
        response = RedirectResponse("./", status_code=303)
        for cookie in accounts.SESSION_COOKIES:
            response.delete_cookie(cookie, path="/")
        return response


def _set_session_cookies(response: Response, token: str, lifetime_s: float) -> None:
    """Both cookies with one token: a Secure ``SameSite=None`` one for an https page inside
    another site's frame (a Space), a ``Lax`` one for plain http, where a browser may drop a
    Secure cookie. Signing out revokes the token in the store, so either cookie left behind in a
    browser opens nothing."""
    strict, lax = accounts.SESSION_COOKIES
    age = int(lifetime_s)
    response.set_cookie(strict, token, max_age=age, path="/", httponly=True, secure=True,
                        samesite="none")
    response.set_cookie(lax, token, max_age=age, path="/", httponly=True, samesite="lax")


def _refused(page: bool, status: int, message: str, name: str = "",
             headers: dict[str, str] | None = None) -> Response:
    if page:
        return sign_in_page(message, name, status, headers)
    return JSONResponse({"detail": message}, status_code=status, headers=headers)


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · CineCap Studio</title>
<style>
body {{ font-family: system-ui, sans-serif; background: #f6f7f9; color: #1f2328; margin: 0;
  display: flex; min-height: 100vh; align-items: center; justify-content: center; }}
main {{ background: #fff; border: 1px solid #d0d7de; border-radius: 10px; padding: 28px 32px;
  width: min(360px, 90vw); box-shadow: 0 2px 10px rgba(0,0,0,.06); }}
h1 {{ font-size: 1.4rem; margin: 0 0 4px; }}
p {{ margin: 0 0 18px; color: #57606a; }}
label {{ display: block; font-weight: 600; margin: 12px 0 4px; }}
input {{ width: 100%; box-sizing: border-box; padding: 8px 10px; font-size: 1rem;
  border: 1px solid #d0d7de; border-radius: 6px; }}
button {{ margin-top: 18px; width: 100%; padding: 9px; font-size: 1rem; font-weight: 600;
  border: 0; border-radius: 6px; background: #f97316; color: #fff; cursor: pointer; }}
.error {{ background: #fff1f0; border: 1px solid #ffccc7; color: #a8071a; border-radius: 6px;
  padding: 8px 10px; margin: 0 0 12px; }}
a {{ color: #0969da; }}
</style></head>
<body><main>
<h1>CineCap Studio</h1>
<p>Sign in with your account. Visitors can use the Caption and Leaderboard tabs without one.</p>
{error}
<form method="post" action="sign-in" id="sign-in-form">
<label for="username">Name</label>
<input id="username" name="username" autocomplete="username" required autofocus value="{name}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit" id="sign-in-submit">Sign in</button>
</form>
<p style="margin:16px 0 0"><a href="./" id="back">Back to the app without signing in</a></p>
</main></body></html>
"""


def sign_in_page(error: str = "", name: str = "", status: int = 200,
                 headers: dict[str, str] | None = None) -> HTMLResponse:
    """The sign-in page (``error``: why the last attempt was refused), user text escaped."""
    box = (f"<div class='error' id='sign-in-error' role='alert'>{html.escape(error)}</div>"
           if error else "")
    return HTMLResponse(PAGE.format(error=box, name=html.escape(name[:200], quote=True)),
                        status_code=status, headers={**(headers or {}),
                                                     "Cache-Control": "no-store"})
