"""Build the Blocks app from its parts, and the options to launch it with.

The page is a header (title, who is signed in, the Hugging Face login button under OAuth) and the
tabs of :data:`TABS`, each a :class:`ui.tabs.base.Tab`. The app knows no tab's insides: it opens a
``gr.Tab`` per entry, lets the tab build itself, shows it to users whose role reaches the tab's
``min_role``, and calls its ``on_show`` on page load and whenever it is selected.
"""
from __future__ import annotations

import importlib.util
import logging
import os
import secrets
import signal
import sys
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Sequence

import gradio as gr
from gradio.routes import App
from starlette.middleware import Middleware

from cinecap.captioners import Captioner
from cinecap.errors import UnavailableError
from cinecap.judge import Judge
from ui import zerogpu
from ui.backends import Backends
from ui.context import AppContext
from ui.jobs import Jobs
from ui.serving import EarlyScript, PageGuard
from ui.settings import Settings
from ui.signin import SignIn, session_name
from ui.tabs.base import Tab, shown_errors
from ui.tabs.accounts import AccountsTab
from ui.tabs.caption import CaptionTab
from ui.tabs.data import DataTab
from ui.tabs.leaderboard import LeaderboardTab
from ui.tabs import status
from ui.tabs.markup import render, script, static_text
from ui.tabs.review import ReviewTab
from ui.tabs.train import TrainTab
from ui.uploads import UploadGuard, VisitorUploads
from ui.usecases import accounts

log = logging.getLogger(__name__)

#: The page's tabs, in order. Adding a tab: a module in ui/tabs/ and a line here.
TABS: tuple[Tab, ...] = (CaptionTab(), LeaderboardTab(), ReviewTab(), TrainTab(), DataTab(),
                          AccountsTab())


class _Page(gr.Blocks):
    """``gr.Blocks`` whose FastAPI app and page config are made once, by ``launch``. Gradio 6.31
    makes an app in ``Blocks.__init__`` (its ``queue()``), one in ``__exit__`` (with the page's
    config) and one per ``queue()`` call, and ``launch`` replaces each with the one it makes and
    serves: ~0.15 s of CPU apiece (its routes' signatures through pydantic, the config), three
    thrown away in every start. Nothing reads them before the launch: ``demo.app`` is None and
    ``demo.config`` empty until then."""

    def __init__(self, *args: Any, **kwargs: Any):
        self._app_at_launch = True  # before Blocks.__init__, which calls queue()
        self._exiting = False
        super().__init__(*args, **kwargs)

    def __exit__(self, *exc: Any):
        self._exiting = True
        try:
            return super().__exit__(*exc)
        finally:
            self._exiting = False

    def get_config_file(self):
        if self._exiting and self._app_at_launch:
            return {}  # type: ignore[return-value]
        return super().get_config_file()

    def launch(self, *args: Any, **kwargs: Any):
        self._app_at_launch = False
        return super().launch(*args, **kwargs)


def _create_app_unless_deferred(blocks: gr.Blocks, *args: Any, **kwargs: Any) -> App | None:
    if getattr(blocks, "_app_at_launch", False):
        return None
    return _gradio_create_app(blocks, *args, **kwargs)


# Blocks calls App.create_app by name, so the page's deferral has to sit there; other Blocks
# (and mount_gradio_app) get Gradio's own. Once per process, however often this is imported.
_gradio_create_app = getattr(App.create_app, "_gradio_create_app", App.create_app)
_create_app_unless_deferred._gradio_create_app = _gradio_create_app  # type: ignore[attr-defined]
App.create_app = staticmethod(_create_app_unless_deferred)  # type: ignore[method-assign]


@dataclass
class _Shown:
    """One tab of one built app: the tab, its ``gr.Tab``, the components its on_show fills."""

    tab: Tab
    page: gr.Tab
    outputs: list
    public: bool  # visible to everyone from the start (min_role is the weakest role)


def build_app(settings: Settings, store: Any,
              captioners: Backends | dict[str, Callable[[], Captioner]] | None = None,
              judges: dict[str, Callable[[], Judge]] | None = None,
              tabs: Sequence[Tab] = TABS, jobs: Jobs | None = None) -> gr.Blocks:
    """The app over these parts (``store``: a ``db.store.Store``). ``captioners``: a
    :class:`Backends`, or name → factory (default: the registry's, limited to
    ``settings.captioners`` when set); ``judges`` likewise; ``jobs``: the round queue
    (default: this data directory's, ``ui.jobs.Jobs``)."""
    if isinstance(captioners, Backends):
        backends = captioners
    else:
        backends = Backends.from_registry(settings.captioners, judges=(settings.judge,))
        if captioners is not None:
            backends.captioners, backends.availability = dict(captioners), {}
    if judges is not None:
        backends.judges = dict(judges)
    settings = replace(settings, page_dir=page_dir(settings))
    zerogpu.prepare(settings, backends)  # on a ZeroGPU Space only: GPU captioners, loaded now
    ctx = AppContext(settings, store, backends, jobs=jobs)
    mode = accounts.auth_mode(settings, store)
    if mode == "oauth" and importlib.util.find_spec("authlib") is None:
        raise UnavailableError("CINECAP_AUTH=oauth needs Gradio's OAuth extra: "
                               "pip install 'gradio[oauth]==6.31.0' (Spaces install it when the "
                               "README sets hf_oauth: true)")
    # Every hour, page files older than a day are deleted; all of them at shutdown.
    with _Page(title="CineCap Studio", delete_cache=(3600, 86400)) as demo:
        with gr.Row(elem_id="header", equal_height=True):
            who = gr.HTML(header_html(None, mode), elem_id="header-box")
            if mode == "oauth":
                gr.LoginButton(logout_value="Sign out ({})", scale=0, min_width=160,
                               elem_id="oauth-button")
        shown: list[_Shown] = []
        with gr.Tabs():
            for tab in tabs:
                public = tab.min_role == accounts.ROLES[0]
                # A tab for stronger roles starts hidden until the page knows the user: Gradio
                # 6.31 can show a tab from an event but not hide one.
                with gr.Tab(tab.title, id=tab.id, visible=public) as page:
                    outputs = list(tab.build(ctx) or [])
                shown.append(_Shown(tab, page, outputs, public))

        def on_load(request: gr.Request):
            user = ctx.user(request)
            # Asked at each load: an account added while the app runs brings "Sign in" at once.
            values: list[Any] = [header_html(user, accounts.auth_mode(settings, store))]
            for s in shown:
                # Showing a tab is a courtesy; every use case its handlers call checks the role.
                allowed = accounts.has_role(user.role, s.tab.min_role)
                if not s.public:
                    values.append(gr.Tab(visible=allowed))
                values.extend(_on_show(ctx, s, user) if allowed else [gr.skip()] * len(s.outputs))
            return values[0] if len(values) == 1 else values

        load_outputs = [who]
        for s in shown:
            load_outputs += ([] if s.public else [s.page]) + s.outputs
        demo.load(shown_errors(on_load), None, load_outputs, api_visibility="private")
        for s in shown:
            if s.outputs:
                s.page.select(_on_select(ctx, s), None, s.outputs, api_visibility="private")
        def on_unload(request: gr.Request):
            # A visitor's uploads go when their page session ends (ui.uploads; or when idle).
            if not ctx.user(request).id:
                ctx.uploads.forget(ctx.address(request), ctx.visitor(request))

        demo.unload(on_unload)
    demo.queue(default_concurrency_limit=8)
    # Gradio's queue looks for work every millisecond while idle: ~7 % of a core for a server
    # nobody is using (a Space, a test's app). Every 20 ms: ~2 %, and at most 20 ms more before
    # an event that arrives after an idle spell starts.
    demo._queue.sleep_when_free = IDLE_POLL_S
    demo.app_context = ctx  # for launch_options: the same roles and sign-in throttle
    return demo


#: How often the idle queue looks for new events (Gradio's own: every millisecond).
IDLE_POLL_S = 0.02

#: The header's styles (``ui/static/app_header.css``).
HEADER_CSS = static_text("app_header.css")
#: What must run before Gradio's own scripts (``ui.serving.EarlyScript``): the fix of Gradio's
#: loading timer that never stops (``ui/static/app_frames.js``).
EARLY_HEAD = script("app_frames.js")


def header_html(user: Any, mode: str) -> str:
    """The page's title, and who is signed in as text; with local accounts, a "Sign in" button
    for a visitor (``ui.signin``'s page) and "Sign out" / "Sign out everywhere" for a signed-in
    user (``/logout``, which ends the session in the store); under OAuth the Hugging Face
    button beside it signs in and out."""
    if user is None:
        who = ""
    elif user.name == accounts.ANONYMOUS and not user.id:
        who = "visitor"
    else:
        who = "user"
    return render("app_header.html", who=who, mode=mode, name=getattr(user, "name", ""),
                  role=getattr(user, "role", ""))


def page_dir(settings: Settings) -> Path:
    """This app's folder for the page's files: inside Gradio's cache folder (GRADIO_TEMP_DIR),
    where Gradio serves a handler's file in place (a file anywhere else is copied into a folder
    of the cache that ``ui.serving`` never serves), one folder per app started."""
    root = Path(gr.utils.get_upload_folder()).resolve()
    current = settings.page_dir
    if current is not None:
        try:
            Path(current).resolve().relative_to(root)
            return Path(current)
        except ValueError:
            pass
    return root / "cinecap-page" / secrets.token_hex(8)


def blocked_paths(settings: Settings, store: Any) -> list[str]:
    """What Gradio must never serve nor copy, whatever else allows it: the data directory and the
    SQLite database with its -wal, -shm and -journal files (wherever DATABASE_URL puts it)."""
    paths = [settings.data_dir.resolve()]
    db_file = getattr(getattr(store, "files", None), "path", None)
    if db_file is not None:
        paths += [Path(f"{db_file}{suffix}") for suffix in ("", "-wal", "-shm", "-journal")]
    return [str(p) for p in paths]


def _on_show(ctx: AppContext, s: _Shown, user) -> list:
    values = list(s.tab.on_show(ctx, user))
    if len(values) != len(s.outputs):
        raise RuntimeError(f"tab {s.tab.id!r}: on_show gave {len(values)} values for "
                           f"{len(s.outputs)} components")
    return values


def _on_select(ctx: AppContext, s: _Shown):
    @shown_errors
    def on_select(request: gr.Request):
        values = _on_show(ctx, s, ctx.user(request))
        return values[0] if len(values) == 1 else values
    return on_select


def launch_options(settings: Settings, store: Any, tabs: Sequence[Tab] = TABS,
                   demo: gr.Blocks | None = None) -> dict[str, Any]:
    """Keyword arguments for ``demo.launch``: upload cap, the sign-in routes and the user of each
    request from the store's sessions (``ui.signin``: throttled, as slow for unknown names), the
    tabs' page head and css, and what may be served: nothing but the page's own files
    (``ui.serving.PageGuard``; no ``allowed_paths``; the store in ``blocked_paths``).
    Pass the built ``demo`` so the sign-in and the file guard share its state."""
    ctx: AppContext | None = getattr(demo, "app_context", None)
    settings = ctx.settings if ctx else settings  # the built app's: it chose the page's folder
    roles = ctx.oauth_roles if ctx else accounts.OAuthRoles(settings)
    opts: dict[str, Any] = {
        "max_file_size": settings.max_upload_bytes,
        # Every tab's status line (ui/tabs/status.py) needs its styles and script: the page's.
        "head": status.HEAD + "".join(t.head for t in tabs),
        "css": "\n".join([HEADER_CSS, status.CSS, *(t.css for t in tabs if t.css)]),
        "allowed_paths": [],
        "blocked_paths": blocked_paths(settings, store),
        # Only gr.Error messages (the use cases' own, path-free) reach the page, never str(e).
        "show_error": False,
        "run_history": False,
        "app_kwargs": {"middleware": [Middleware(PageGuard, settings=settings, store=store,
                                                 roles=roles),
                                      # inside the page guard: it notes the client's address
                                      Middleware(UploadGuard, settings=settings, store=store,
                                                 roles=roles, uploads=ctx.uploads if ctx else
                                                 VisitorUploads.from_settings(settings)),
                                      Middleware(EarlyScript, html=EARLY_HEAD)]},
    }
    if accounts.offers_sign_in(settings):
        throttle = ctx.logins if ctx else accounts.LoginThrottle.from_settings(settings, store)
        opts["app_kwargs"]["middleware"].insert(0, Middleware(
            SignIn, settings=settings, store=store, throttle=throttle))
        opts["auth_dependency"] = session_name(store)
    _trust_no_forwarded_peer()
    return opts


def _trust_no_forwarded_peer() -> None:
    """Stop uvicorn from replacing the TCP peer with X-Forwarded-For: by default it believes
    that header from loopback (FORWARDED_ALLOW_IPS), so a client behind a local proxy, or on the
    same machine, could name any address it liked and never be throttled. The one place that
    reads the header is ``ui.context.client_address``, for CINECAP_TRUSTED_PROXIES only.
    uvicorn reads the variable when Gradio's launch makes its config, after this."""
    current = os.environ.get("FORWARDED_ALLOW_IPS")
    if current:
        log.warning("FORWARDED_ALLOW_IPS=%s is ignored: set CINECAP_TRUSTED_PROXIES instead",
                    current)
    os.environ["FORWARDED_ALLOW_IPS"] = ""


def serve(demo: gr.Blocks, store: Any, grace_s: float = 5.0, **launch_kwargs) -> None:
    """Launch ``demo`` and serve until SIGINT or SIGTERM, then stop within a few seconds: the
    server stops taking requests, handlers still running get ``grace_s`` seconds, the store is
    closed (SQLite checkpoints its log into the file), and the process exits — it does not wait
    for a caption that would take minutes (nothing unsaved was acknowledged; SQLite's commits are
    atomic, so an interrupted one leaves the database as it was)."""
    stop = threading.Event()

    def on_signal(signum, _frame):
        if stop.is_set():  # a second signal: stop now
            os._exit(128 + signum)
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        demo.launch(prevent_thread_lock=True, **launch_kwargs)
        while not stop.wait(0.2):
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("stopping: no new requests; finishing what runs (at most "
          f"{grace_s:g} s)", file=sys.stderr, flush=True)
    deadline = time.monotonic() + grace_s
    watchdog = threading.Timer(grace_s + 10, lambda: os._exit(1))  # a close that hangs
    watchdog.daemon = True
    watchdog.start()
    # Gradio's close waits up to 5 s for the server's open connections, and a running handler
    # keeps its event's stream open: the wait is bounded by the grace instead.
    closing = threading.Thread(target=demo.close, kwargs={"verbose": False}, daemon=True)
    closing.start()
    closing.join(max(0.0, deadline - time.monotonic()))
    for t in threading.enumerate():
        if t is not threading.current_thread() and not t.daemon and t is not watchdog:
            t.join(max(0.0, deadline - time.monotonic()))
    store.close()
    print("stopped", file=sys.stderr, flush=True)
    logging.shutdown()
    sys.stdout.flush()
    os._exit(0)  # threads still running a handler are not waited for
