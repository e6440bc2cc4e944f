"""What every handler needs, passed in once (no module globals): settings, store, backends.

Gradio-free: the tabs hold a context and hand its parts to the use cases; they never call the
store themselves (tests/test_imports.py checks that no module imports both Gradio and ``db``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from db.records import UserRecord
from db.store import Store
from ui.addresses import client_address
from ui.backends import Backends
from ui.jobs import Jobs
from ui.settings import Settings
from ui.serving import ADDRESS_STATE
from ui.usecases import accounts
from ui.uploads import VisitorUploads
from ui.usecases.caption import caption_limiter
from ui.usecases.examples import ExampleCache
from ui.usecases.limits import CaptionQuota


@dataclass
class AppContext:
    """The app's parts, and the state its requests share: the Hugging Face roles (re-read from
    the configuration), the caption quota (per account, address and clip), the sign-in throttle,
    the example cache, what anonymous visitors keep uploaded,
    the job queue (training rounds, ``ui.jobs``)."""

    settings: Settings
    store: Store
    backends: Backends
    oauth_roles: accounts.OAuthRoles = field(default=None)  # type: ignore[assignment]
    captions: CaptionQuota = field(default=None)  # type: ignore[assignment]
    logins: accounts.LoginThrottle = field(default=None)  # type: ignore[assignment]
    #: The example clips' runs (one lock per run: a click and the start-up warm-up caption once)
    examples: ExampleCache = field(default=None)  # type: ignore[assignment]
    jobs: Jobs = field(default=None)  # type: ignore[assignment]
    #: What anonymous visitors keep uploaded, per client address (``ui.uploads``)
    uploads: VisitorUploads = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        self.uploads = self.uploads or VisitorUploads.from_settings(self.settings)
        self.jobs = self.jobs or Jobs(self.settings, store=self.store)
        self.oauth_roles = self.oauth_roles or accounts.OAuthRoles(self.settings)
        self.captions = self.captions or caption_limiter(self.settings)
        self.logins = self.logins or accounts.LoginThrottle.from_settings(self.settings,
                                                                          self.store)
        self.examples = self.examples or ExampleCache(self.settings.data_dir)

    def user(self, request: Any) -> UserRecord:
        """Who sent this request (``gr.Request``, or None): resolved, not checked; the use case
        checks the role."""
        return accounts.current_user(request, self.settings, self.store, self.oauth_roles)

    def address(self, request: Any) -> str | None:
        """The client's address as the server takes it (:func:`client_address`: the page guard
        notes it in the request, ``ui.serving.CLIENT_ADDRESS``), for the quotas and the sign-in
        throttle; None without a request."""
        http = getattr(request, "request", None) if request is not None else None
        state = getattr(getattr(http, "state", None), "_state", None)
        if isinstance(state, dict) and state.get(ADDRESS_STATE):
            return state[ADDRESS_STATE]
        return client_address(http if http is not None else request,
                              self.settings.trusted_proxies)

    def visitor(self, request: Any) -> str:
        """The browser's visitor cookie ("" without one): what a page session's uploads are
        removed by when it ends."""
        cookies = getattr(request, "cookies", None) or {}
        return next((cookies[c] for c in accounts.VISITOR_COOKIES if cookies.get(c)), "")

    def owner(self, request: Any) -> str | None:
        """The request's sender as the owner of page files (``accounts.owner_key``)."""
        return accounts.owner_key(request)
