"""Build the Blocks app from its parts, and the options to launch it with."""
from __future__ import annotations

import importlib.util
import logging
from typing import Any, Callable

import gradio as gr

from cinecap.captioners import Captioner
from cinecap.errors import UnavailableError
from cinecap.judge import Judge
from db.store import Store
from ui import caption_tab, review_tab
from ui.auth import auth_mode
from ui.backends import Backends
from ui.context import AppContext
from ui.settings import Settings

log = logging.getLogger(__name__)

CSS = "#caption-text textarea, #review-table td { white-space: pre-wrap; }"


def build_app(settings: Settings, store: Store,
              captioners: Backends | dict[str, Callable[[], Captioner]] | None = None,
              judges: dict[str, Callable[[], Judge]] | None = None) -> gr.Blocks:
    """The app over these parts. ``captioners``: a :class:`Backends`, or name → factory (default:
    the registry's, limited to ``settings.captioners`` when set); ``judges`` likewise."""
    if isinstance(captioners, Backends):
        backends = captioners
    else:
        backends = Backends.from_registry(settings.captioners, judges=(settings.judge,))
        if captioners is not None:
            backends.captioners, backends.availability = dict(captioners), {}
    if judges is not None:
        backends.judges = dict(judges)
    ctx = AppContext(settings, store, backends)
    if auth_mode(settings, store) == "oauth" and importlib.util.find_spec("authlib") is None:
        raise UnavailableError("CINECAP_AUTH=oauth needs Gradio's OAuth extra: "
                               "pip install 'gradio[oauth]==6.31.0' (Spaces install it when the "
                               "README sets hf_oauth: true)")
    with gr.Blocks(title="CineCap Studio") as demo:
        with gr.Row():
            gr.Markdown("## CineCap Studio — film-language captions grounded in evidence")
            who = gr.Textbox(label="Signed in as", interactive=False, elem_id="who", scale=0,
                             min_width=220)
            if auth_mode(settings, store) == "oauth":
                gr.LoginButton()
        with gr.Tabs():
            with gr.Tab("Caption", id="caption"):
                caption_tab.build(ctx)
            # Hidden until the page knows the user: Gradio 6.31 can show a tab from an event
            # but not hide one.
            with gr.Tab("Review", id="review", visible=False) as review:
                queue, on_queue = review_tab.build(ctx)

        def on_load(request: gr.Request):
            user = ctx.user(request)
            can_review = user.role != "viewer"
            rows = review_tab.queue_rows(ctx) if can_review else []
            # Hiding the tab is a courtesy; every review handler checks the role itself.
            return f"{user.name} ({user.role})", gr.Tab(visible=can_review), rows

        demo.load(on_load, None, [who, review, queue], api_visibility="private")
        review.select(on_queue, None, [queue], api_visibility="private")
    demo.queue(default_concurrency_limit=8)
    return demo


def launch_options(settings: Settings, store: Store) -> dict[str, Any]:
    """Keyword arguments for ``demo.launch``: upload cap, login, page head (shortcuts), css."""
    opts: dict[str, Any] = {
        "max_file_size": settings.max_upload_bytes,
        "head": review_tab.shortcut_script(),
        "css": CSS,
        "allowed_paths": [str(settings.data_dir.resolve())],
        "show_error": True,
    }
    if auth_mode(settings, store) == "local":
        opts["auth"] = lambda name, password: store.check_password(name, password) is not None
        opts["auth_message"] = "Sign in with your CineCap Studio account."
    return opts
