"""The status line a tab shows under its controls: what the last action did, or what went wrong,
kept visible until the next action (a toast alone vanishes).

Handlers wrapped in :func:`reported` never raise to Gradio: a raised error would replace every
output of the event (the statements table included) with an "Error" badge. Instead a domain error
(``cinecap.errors``, ``db.errors``) updates only the status line, in red, and shows a toast; the
other outputs keep what they showed. Anything else is logged with its traceback and reads as a
short "internal error" line. No message shows a server path: absolute paths become file names.
"""
from __future__ import annotations

import functools
import logging
import re
from typing import Any, Callable

import gradio as gr

from cinecap.errors import CinecapError
from ui.tabs.tables import escaped

log = logging.getLogger(__name__)

ERROR_MARK = "⚠ "
CSS = """
.status-line textarea { font-weight: 500; }
.status-line.status-error textarea { color: #b42318 !important; background: #fef3f2 !important; }
.cinecap-hidden { display: none !important; }
"""
#: Marks a status line red while its text is an error (the text itself is plain, for API
#: clients too: an error starts with ERROR_MARK).
HEAD = ("<script>(() => { if (window.__cinecapStatus) return; window.__cinecapStatus = true;"
        "setInterval(() => { document.querySelectorAll('.status-line').forEach((el) => {"
        " const t = el.querySelector('textarea'); if (!t) return;"
        f" el.classList.toggle('status-error', t.value.startsWith('{ERROR_MARK.strip()}'));"
        " }); }, 250); })();</script>")

#: An absolute POSIX or Windows path (at least two components), as it may appear in a message.
_PATH = re.compile(r"(?<![\w/:.])(?:/[^\s'\"/]+)+/([^\s'\"/]+)|[A-Za-z]:\\(?:[^\s'\"\\]+\\)+"
                   r"([^\s'\"\\]+)")


def public_message(text: str) -> str:
    """``text`` with every absolute path replaced by its file name."""
    return _PATH.sub(lambda m: m.group(1) or m.group(2), str(text))


def status_line(elem_id: str, label: str = "Status") -> gr.Textbox:
    return gr.Textbox(label=label, interactive=False, elem_id=elem_id,
                      elem_classes=["status-line"], lines=1, max_lines=6)





def ok(message: str) -> str:
    """The status line after an action that worked."""
    return public_message(message)


def error(message: str) -> str:
    """The status line after an action that failed (starts with the error mark: shown red)."""
    return ERROR_MARK + public_message(message)


def reported(status: gr.Textbox) -> Callable[[Callable], Callable]:
    """Wrap a handler whose outputs include ``status``: errors go to the status line only."""

    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args, **kwargs) -> Any:
            try:
                return fn(*args, **kwargs)
            except CinecapError as e:
                message = public_message(e.message)
            except Exception as e:  # noqa: BLE001 - the edge: log it, show a line
                log.exception("handler %s failed", fn.__name__)
                message = f"internal error ({type(e).__name__}); see the server log"
            gr.Warning(escaped(message))  # Gradio renders toasts as HTML
            return {status: error(message)}
        return wrapper
    return wrap
