"""The tab protocol every page tab follows, and the error edge every handler goes through.

A tab is an object with:

- ``id`` and ``title``: the Gradio tab's id and label;
- ``min_role``: the weakest role that sees the tab (``viewer``: everyone). Hiding a tab is a
  courtesy; the use cases its handlers call check the role themselves;
- ``head`` and ``css``: what the tab needs in the page head (scripts) and style sheet, or ""
  (``ui/static`` files through ``ui/tabs/markup.py``; the status line's are the page's own,
  ``ui/app.py``, as every tab has one);
- ``build(ctx)``: make the tab's components (inside the ``gr.Tab`` the app opened) and wire their
  handlers; return the components that :meth:`on_show` fills (often none);
- ``on_show(ctx, user)``: values or updates for those components, in the same order, for a user
  who may see the tab. The app calls it when the page loads and each time the tab is selected.

Tabs keep no per-app state on themselves (one instance serves every app built in the process):
what a tab needs later lives in the closures ``build`` makes.
"""
from __future__ import annotations

import functools
import logging
from typing import Any, Callable, Sequence

import gradio as gr

from cinecap.errors import CinecapError
from ui.context import AppContext
from ui.tabs.status import public_message
from ui.tabs.tables import escaped

log = logging.getLogger(__name__)


class Tab:
    """Base of the page's tabs (see the module docstring for the protocol)."""

    id: str = ""
    title: str = ""
    min_role: str = "viewer"
    head: str = ""
    css: str = ""

    def build(self, ctx: AppContext) -> Sequence[gr.components.Component]:
        raise NotImplementedError

    def on_show(self, ctx: AppContext, user: Any) -> Sequence[Any]:
        return []


def shown_errors(fn: Callable) -> Callable:
    """Domain errors become a raised ``gr.Error`` (an unraised one shows nothing); anything else is
    logged with its traceback and shown as a short message, never as a traceback. Messages are
    HTML-escaped (Gradio renders an error's message as HTML, and it may quote a file name) and
    name files without their server path."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except gr.Error:
            raise
        except CinecapError as e:
            raise gr.Error(escaped(public_message(e.message)), print_exception=False) from None
        except Exception as e:  # noqa: BLE001 - the edge: log it, show a message
            log.exception("handler %s failed", fn.__name__)
            raise gr.Error(f"internal error ({type(e).__name__}); see the server log",
                           print_exception=False) from None
    return wrapper
