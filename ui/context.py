"""What every handler needs, passed in once (no module globals): settings, store, backends.

Gradio-free: the tabs hold a context and hand its parts to the use cases; they never call the
store themselves (tests/test_imports.py checks that no module imports both Gradio and ``db``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from db.records import UserRecord
from db.store import Store
from ui.backends import Backends
from ui.settings import Settings
from ui.usecases import accounts


@dataclass
class AppContext:
    settings: Settings
    store: Store
    backends: Backends

    def user(self, request: Any) -> UserRecord:
        """Who sent this request (``gr.Request``, or None): resolved, not checked; the use case
        checks the role."""
        return accounts.current_user(request, self.settings, self.store)
