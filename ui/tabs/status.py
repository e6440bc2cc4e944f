"""The status line a tab shows under its controls: what the last action did, or what went wrong,
kept visible until the next action (a toast alone vanishes).

Handlers wrapped in :func:`reported` never raise to Gradio: a raised error would replace every
output of the event (the statements table included) with an "Error" badge. Instead a domain error
(``cinecap.errors``, ``db.errors``) updates only the status line, in red, and shows a toast; the
other outputs keep what they showed. Anything else is logged with its traceback and reads as a
short "internal error" line. No message shows a server path: absolute paths become file names.
A generator handler (a page updated in steps) keeps the steps it showed; an error after them is
one more step, the same line.
"""
from __future__ import annotations

import functools
import inspect
import json
import logging
import re
from typing import Any, Callable

import gradio as gr

from cinecap.errors import CinecapError
from ui.tabs.markup import script, static_text
from ui.tabs.tables import escaped

log = logging.getLogger(__name__)

ERROR_MARK = "⚠ "
CSS = static_text("status.css")
#: Marks a status line red while its text is an error (the text itself is plain, for API
#: clients too: an error starts with ERROR_MARK). Run by each line's change event
#: (:func:`status_line`): nothing polls the page.
HEAD = script("status.js")

#: An absolute POSIX path (two parts or more, not inside a URL, a relative path or another
#: word) or a Windows one, as it may appear in a message; group 1 or 2 is its file name.
_PATH = re.compile(r"(?<![\w.:/~-])(?:/[^\s'\"/]+)+/([^\s'\"/]+)"
                   r"|[A-Za-z]:\\(?:[^\s'\"\\]+\\)+([^\s'\"\\]+)")


def public_message(text: str) -> str:
    """``text`` with every absolute path replaced by its file name: the page never learns where
    the server keeps uploads, clips or its database."""
    return _PATH.sub(lambda m: m.group(1) or m.group(2), str(text))


def status_line(elem_id: str, label: str = "Status") -> gr.Textbox:
    """A tab's status line (inside the tab's Blocks): red while it shows an error, from its own
    change event, which runs only in the page."""
    box = gr.Textbox(label=label, interactive=False, elem_id=elem_id,
                     elem_classes=["status-line"], lines=1, max_lines=6)
    box.change(None, [box], None, show_progress="hidden", queue=False, api_visibility="private",
               js=f"(v) => {{ if (window.cinecapStatusLine) window.cinecapStatusLine("
                  f"{json.dumps(elem_id)}, v, {json.dumps(ERROR_MARK.strip())}); return []; }}")
    return box


def ok(message: str) -> str:
    """The status line after an action that worked."""
    return public_message(message)


def error(message: str) -> str:
    """The status line after an action that failed (starts with the error mark: shown red)."""
    return ERROR_MARK + public_message(message)


def reported(status: gr.Textbox) -> Callable[[Callable], Callable]:
    """Wrap a handler whose outputs include ``status``: errors go to the status line only."""

    def failed(fn: Callable, e: Exception) -> dict:
        if isinstance(e, CinecapError):
            message = public_message(e.message)
        else:  # the edge: log it, show a line
            log.exception("handler %s failed", fn.__name__)
            message = f"internal error ({type(e).__name__}); see the server log"
        gr.Warning(escaped(message))  # Gradio renders toasts as HTML
        return {status: error(message)}

    def wrap(fn: Callable) -> Callable:
        if inspect.isgeneratorfunction(fn):  # a handler that updates the page in steps
            @functools.wraps(fn)
            def steps(*args, **kwargs) -> Any:
                try:
                    yield from fn(*args, **kwargs)
                except Exception as e:  # noqa: BLE001 - the steps shown so far stay
                    yield failed(fn, e)
            return steps

        @functools.wraps(fn)
        def wrapper(*args, **kwargs) -> Any:
            try:
                return fn(*args, **kwargs)
            except Exception as e:  # noqa: BLE001
                return failed(fn, e)
        return wrapper
    return wrap
