"""Build the Blocks app from its parts, and the options to launch it with.

The page is a header (title, who is signed in, the Hugging Face login button under OAuth) and the
tabs of :data:`TABS`, each a :class:`ui.tabs.base.Tab`. The app knows no tab's insides: it opens a
``gr.Tab`` per entry, lets the tab build itself, shows it to users whose role reaches the tab's
``min_role``, and calls its ``on_show`` on page load and whenever it is selected.
"""
from __future__ import annotations

import importlib.util
import logging
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import gradio as gr

from cinecap.captioners import Captioner
from cinecap.errors import UnavailableError
from cinecap.judge import Judge
from ui.backends import Backends
from ui.context import AppContext
from ui.settings import Settings
from ui.tabs.base import Tab, shown_errors
from ui.tabs.caption import CaptionTab
from ui.tabs.review import ReviewTab
from ui.usecases import accounts

log = logging.getLogger(__name__)

#: The page's tabs, in order. Adding a tab: a module in ui/tabs/ and a line here.
TABS: tuple[Tab, ...] = (CaptionTab(), ReviewTab())


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
              tabs: Sequence[Tab] = TABS) -> gr.Blocks:
    """The app over these parts (``store``: a ``db.store.Store``). ``captioners``: a
    :class:`Backends`, or name → factory (default: the registry's, limited to
    ``settings.captioners`` when set); ``judges`` likewise."""
    if isinstance(captioners, Backends):
        backends = captioners
    else:
        backends = Backends.from_registry(settings.captioners, judges=(settings.judge,))
        if captioners is not None:
            backends.captioners, backends.availability = dict(captioners), {}
    if judges is not None:
        backends.judges = dict(judges)
    ctx = AppContext(settings, store, backends)
    mode = accounts.auth_mode(settings, store)
    if mode == "oauth" and importlib.util.find_spec("authlib") is None:
        raise UnavailableError("CINECAP_AUTH=oauth needs Gradio's OAuth extra: "
                               "pip install 'gradio[oauth]==6.31.0' (Spaces install it when the "
                               "README sets hf_oauth: true)")
    with gr.Blocks(title="CineCap Studio") as demo:
        with gr.Row():
            gr.Markdown("## CineCap Studio — film-language captions grounded in evidence")
            who = gr.Textbox(label="Signed in as", interactive=False, elem_id="who", scale=0,
                             min_width=220)
            if mode == "oauth":
                gr.LoginButton()
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
            values: list[Any] = [f"{user.name} ({user.role})"]
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
    demo.queue(default_concurrency_limit=8)
    return demo


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


def launch_options(settings: Settings, store: Any, tabs: Sequence[Tab] = TABS) -> dict[str, Any]:
    """Keyword arguments for ``demo.launch``: upload cap, login, the tabs' page head and css."""
    opts: dict[str, Any] = {
        "max_file_size": settings.max_upload_bytes,
        "head": "".join(t.head for t in tabs),
        "css": "\n".join(t.css for t in tabs if t.css),
        "allowed_paths": [str(settings.data_dir.resolve())],
        "show_error": True,
    }
    if accounts.auth_mode(settings, store) == "local":
        opts["auth"] = lambda name, password: accounts.sign_in(store, name, password) is not None
        opts["auth_message"] = "Sign in with your CineCap Studio account."
    return opts
