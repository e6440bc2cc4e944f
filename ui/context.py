"""What every handler needs, passed in once (no module globals): settings, store, backends.

Gradio-free: the tabs hold a context and hand its parts to the use cases; they never call the
store themselves (tests/test_imports.py checks that no module imports both Gradio and ``db``).
"""
from __future__ import annotations

import functools
import ipaddress
from dataclasses import dataclass, field
from typing import Any

from db.records import UserRecord
from db.store import Store
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


@functools.lru_cache(maxsize=16)
def _networks(trusted: tuple[str, ...]) -> tuple:
    return tuple(ipaddress.ip_network(p, strict=False) for p in trusted)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An address as a peer or a forwarded hop writes it (``1.2.3.4``, ``1.2.3.4:5678``,
    ``[::1]:80``, ``::1``), else None."""
    text = text.strip().strip('"')
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def client_address(request: Any, trusted_proxies: tuple[str, ...] = ()) -> str | None:
    """The address of the client that sent ``request`` (an ASGI scope, a Starlette request or a
    ``gr.Request``), for everything keyed by client (the sign-in throttle, quotas).

    The TCP peer, unless it is one of ``trusted_proxies`` (``Settings.trusted_proxies``,
    CINECAP_TRUSTED_PROXIES: addresses or CIDRs): then ``X-Forwarded-For`` is read from the
    right, hop by hop, while the hop that reported it is a trusted proxy; the first address
    reported by a trusted proxy about an untrusted one is the client. A client cannot choose its
    address by sending the header itself: from an untrusted peer the header is never read, and
    entries to the left of the first untrusted hop are the client's own words. (The launch
    options stop uvicorn from rewriting the peer from that header itself: ``ui.app``.)
    """
    if request is None:
        return None
    if isinstance(request, dict):  # an ASGI scope
        client = request.get("client")
        peer = client[0] if client else None
        forwarded = [v.decode("latin-1") for k, v in request.get("headers", [])
                     if k == b"x-forwarded-for"]
    else:
        client = getattr(request, "client", None)
        peer = getattr(client, "host", None) if client is not None else None
        headers = getattr(request, "headers", None) or {}
        getlist = getattr(headers, "getlist", None)
        forwarded = list(getlist("x-forwarded-for")) if getlist else (
            [headers["x-forwarded-for"]] if "x-forwarded-for" in headers else [])
    if peer is None:
        return None
    networks = _networks(tuple(trusted_proxies))
    current = _address(peer)
    if current is None:
        return peer[:64]
    hops = [h for value in forwarded for h in value.split(",") if h.strip()]
    while hops and any(current in n for n in networks if n.version == current.version):
        hop = _address(hops.pop())
        if hop is None:  # a garbled entry: the proxy that passed it on is the last one known
            break
        current = hop
    return str(current)
