"""What every handler needs, passed in once (no module globals): settings, store, backends."""
from __future__ import annotations

import functools
import html
import logging
from dataclasses import dataclass
from typing import Any, Callable

from cinecap.errors import CinecapError
from db.records import UserRecord
from db.store import Store
from ui import auth
from ui.backends import Backends
from ui.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class AppContext:
    settings: Settings
    store: Store
    backends: Backends

    def user(self, request: Any) -> UserRecord:
        return auth.current_user(request, self.settings, self.store)

    def require(self, request: Any, role: str, action: str) -> UserRecord:
        return auth.require(request, self.settings, self.store, role, action)


def shown_errors(fn: Callable) -> Callable:
    """Domain errors become a raised ``gr.Error`` (an unraised one shows nothing); anything else is
    logged with its traceback and shown as a short message, never as a traceback. Messages are
    HTML-escaped: Gradio renders an error's message as HTML, and it may quote a file name."""
    import gradio as gr

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except gr.Error:
            raise
        except CinecapError as e:
            raise gr.Error(html.escape(e.message), print_exception=False) from None
        except Exception as e:  # noqa: BLE001 - the edge: log it, show a message
            log.exception("handler %s failed", fn.__name__)
            raise gr.Error(f"internal error ({type(e).__name__}); see the server log",
                           print_exception=False) from None
    return wrapper
