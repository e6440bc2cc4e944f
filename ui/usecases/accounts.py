"""Accounts: who is asking (a local account, a Hugging Face OAuth user, or an anonymous visitor),
signing in, and managing accounts and roles.

The page resolves the user of each request with :func:`current_user`; the other use cases check
that user's role. :func:`add_user`, :func:`list_users` and :func:`set_role` are what ``python -m ui
users`` runs (as :data:`CONSOLE`), and what an admin page will call with the signed-in admin.

Signing in: :func:`sign_in` costs one scrypt whether or not the name exists (timing tells no
names) and goes through a :class:`LoginThrottle` (failed attempts per account and per client
address). Hugging Face sign-ins: the session must not be past its ``expires_at``, and the role is
the one the configuration gives now (:class:`OAuthRoles`), applied at every request, not the one
stored at the first sign-in.
"""
from __future__ import annotations

import hashlib
import logging
import time
from pathlib import Path
from typing import Any, Callable

from cinecap.errors import InputError
from db.records import UserRecord
from db.roles import ROLES, has_role, require_role
from db.store import Store
from ui.settings import Settings, parse_roles
from ui.usecases.limits import SlidingWindow, TooManyRequests, wait_text

log = logging.getLogger(__name__)

__all__ = ["ANONYMOUS", "CONSOLE", "MIN_PASSWORD_LENGTH", "ROLES", "LoginThrottle", "OAuthRoles",
           "TooManyRequests", "VISITOR_COOKIES", "add_user", "auth_mode", "check_new_password",
           "current_user", "has_role", "list_users", "requester_key", "set_role", "sign_in",
           "stored_user"]

#: The visitor when nobody signed in (id 0 never matches a stored user).
ANONYMOUS = "anonymous"
#: Whoever runs ``python -m ui users …`` on the server: they can open the database already, so the
#: account commands run with the admin role.
CONSOLE = UserRecord(0, "console", "admin", "none")
MIN_PASSWORD_LENGTH = 8
#: The cookies that tell one anonymous browser from another (set by ``ui.serving`` with one value:
#: a ``SameSite=None; Secure`` one for pages framed by another site, a ``Lax`` one for plain
#: http): what a visitor's own page files and caption quota are keyed by.
VISITOR_COOKIES = ("cinecap_visitor", "cinecap_visitor_lax")


# --- who is asking ------------------------------------------------------------------------------
def auth_mode(settings: Settings, store: Store) -> str:
    """``none``, ``local`` or ``oauth``: ``auto`` means local when any account has a password."""
    if settings.auth != "auto":
        return settings.auth
    return "local" if store.users.has_local() else "none"


class OAuthRoles:
    """The role configured for each Hugging Face account: ``Settings.oauth_roles``
    (CINECAP_OAUTH_ROLES) and, over it, the lines of ``Settings.oauth_roles_file``, re-read when
    the file changes (looked at again every ``oauth_refresh_s`` seconds). Unlisted: viewer."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic):
        self.settings, self.clock = settings, clock
        self._file_roles: dict[str, str] = {}
        self._stamp: tuple | None = None
        self._looked = -float("inf")

    def _refresh(self) -> None:
        path: Path | None = self.settings.oauth_roles_file
        now = self.clock()
        if path is None or now - self._looked < self.settings.oauth_refresh_s:
            return
        self._looked = now
        try:
            st = path.stat()
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
            if stamp != self._stamp:
                roles = parse_roles(path.read_text(encoding="utf-8").splitlines())
                bad = {n: r for n, r in roles.items() if r not in ROLES}
                if bad:
                    raise ValueError(f"unknown role(s) {bad}")
                self._file_roles, self._stamp = roles, stamp
                log.info("OAuth roles re-read from %s: %d accounts", path.name, len(roles))
        except (OSError, ValueError, UnicodeDecodeError) as e:
            # Fail closed: an unreadable or broken file grants nothing beyond the environment.
            log.error("cannot use the OAuth roles file %s: %s", path, e)
            self._file_roles, self._stamp = {}, None

    def role_for(self, name: str) -> str:
        self._refresh()
        return self._file_roles.get(name) or self.settings.oauth_roles.get(name) or "viewer"


def current_user(request: Any, settings: Settings, store: Store,
                 roles: OAuthRoles | None = None) -> UserRecord:
    """The signed-in user (local account or Hugging Face OAuth), else an anonymous visitor.

    ``request`` is the web request (Gradio's ``gr.Request``; anything with ``username`` and, for
    OAuth, ``session``), or None. ``roles``: the app's :class:`OAuthRoles` (kept between
    requests); a fresh one otherwise.
    """
    name = getattr(request, "username", None) if request is not None else None
    if name:
        user = store.users.find(name)
        if user is not None:
            return user
    oauth_name = _oauth_username(request)
    if oauth_name:
        return _oauth_user(oauth_name, (roles or OAuthRoles(settings)).role_for(oauth_name),
                           store)
    return UserRecord(0, ANONYMOUS, settings.anonymous_role, "none")


def _oauth_user(name: str, role: str, store: Store) -> UserRecord:
    existing = store.users.find(name)
    if existing is not None and existing.provider != "huggingface":
        # A Hugging Face user named like a local account must not get that account's role.
        log.warning("Hugging Face user %r has the name of a %s account; signed in as a viewer",
                    name, existing.provider)
        return UserRecord(0, name, "viewer", "huggingface")
    try:
        if existing is None:
            existing = store.users.ensure(name, role, provider="huggingface")
        if existing.role != role:  # the configuration now, not the role of the first sign-in
            log.info("Hugging Face user %r: role %s → %s (configuration)", name, existing.role,
                     role)
            existing = store.users.set_role(name, role)
    except ValueError as e:  # a name the store refuses
        log.warning("Hugging Face user %r not stored: %s", name, e)
        return UserRecord(0, ANONYMOUS, "viewer", "none")
    return existing


def requester_key(request: Any) -> str | None:
    """Who is asking, as a key for their own files and quotas: ``user:NAME`` when signed in
    (local or unexpired OAuth), ``visitor:COOKIE`` for an anonymous browser with the visitor
    cookie, else None (nothing can be told apart)."""
    name = getattr(request, "username", None) if request is not None else None
    name = name or _oauth_username(request)
    if name:
        return f"user:{name}"
    cookies = getattr(request, "cookies", None) or {}
    visitor = next((cookies.get(c) for c in VISITOR_COOKIES if cookies.get(c)), None) if hasattr(
        cookies, "get") else None
    return f"visitor:{visitor}" if visitor else None


def owner_key(request: Any) -> str | None:
    """:func:`requester_key` as a short folder name (a hash: names never reach a path)."""
    key = requester_key(request)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32] if key else None


def stored_user(user: UserRecord, store: Store) -> UserRecord:
    """A user that can own rows: the anonymous visitor with a write role (a local demo without
    accounts) writes as the stored ``anonymous`` account, made on first use."""
    if user.id:
        return user
    stored = store.users.ensure(ANONYMOUS, user.role, provider="none")
    return UserRecord(stored.id, stored.name, user.role, stored.provider)


class LoginThrottle:
    """Failed sign-ins allowed per account and per client address within ``window_s`` seconds
    (``Settings.login_max_failures``, ``login_max_failures_per_address``, ``login_window_s``).
    Past either limit an attempt is refused before any password is checked, until the oldest
    failure ages out; a successful sign-in clears the account's count (not the address's)."""

    def __init__(self, per_user: int, per_address: int, window_s: float,
                 clock: Callable[[], float] = time.monotonic):
        self.users = SlidingWindow(per_user, window_s, clock)
        self.addresses = SlidingWindow(per_address, window_s, clock)

    @classmethod
    def from_settings(cls, settings: Settings) -> "LoginThrottle":
        return cls(settings.login_max_failures, settings.login_max_failures_per_address,
                   settings.login_window_s)

    def check(self, name: str, address: str | None) -> None:
        wait = max(self.users.retry_after(f"user:{name}"),
                   self.addresses.retry_after(f"address:{address}") if address else 0.0)
        if wait > 0:
            raise TooManyRequests(f"too many failed sign-ins for this account or from this "
                                  f"address; try again in {wait_text(wait)}", wait)

    def record(self, name: str, address: str | None, ok: bool) -> None:
        if ok:
            self.users.clear(f"user:{name}")
            return
        self.users.add(f"user:{name}")
        if address:
            self.addresses.add(f"address:{address}")


def sign_in(store: Store, name: str, password: str, throttle: LoginThrottle | None = None,
            address: str | None = None) -> UserRecord | None:
    """The account when the password is right, else None (the login page's check).
    TooManyRequests when ``throttle`` says this account or ``address`` failed too often lately
    (refused before the password is looked at)."""
    name = (name or "").strip()
    if throttle is not None:
        throttle.check(name, address)
    user = store.users.check_password(name, password or "")
    if throttle is not None:
        throttle.record(name, address, ok=user is not None)
    return user


def _oauth_username(request: Any) -> str | None:
    """The Hugging Face user of an unexpired OAuth session (Gradio keeps the login in the session,
    gradio/oauth.py "oauth_info"), else None. An expired one is dropped from the session."""
    try:
        session = request.session
    except (AttributeError, AssertionError):  # no session middleware: OAuth is off
        return None
    info = session.get("oauth_info") if session is not None else None
    if not info:
        return None
    expires_at = info.get("expires_at")
    try:
        expired = expires_at is None or float(expires_at) <= time.time()
    except (TypeError, ValueError):
        expired = True
    if expired:  # no expiry at all counts as expired: fail closed
        try:
            session.pop("oauth_info", None)
        except (AttributeError, TypeError):
            pass
        return None
    userinfo = info.get("userinfo") or {}
    return userinfo.get("preferred_username") or userinfo.get("name")


# --- managing accounts (admin) ------------------------------------------------------------------
def check_new_password(password: str) -> str:
    """The password, or InputError when it is too short to be an account's password."""
    if len(password or "") < MIN_PASSWORD_LENGTH:
        raise InputError(f"the password is too short (at least {MIN_PASSWORD_LENGTH} characters)")
    return password


def add_user(store: Store, actor: UserRecord, name: str, role: str,
             password: str) -> UserRecord:
    """A new local account. InputError for a bad name, role or password; StoreConflict when the
    name is taken."""
    require_role(actor.role, "admin", "adding an account")
    check_new_password(password)
    try:
        return store.users.add(name, role, password)
    except ValueError as e:
        raise InputError(str(e)) from None


def list_users(store: Store, actor: UserRecord) -> list[UserRecord]:
    require_role(actor.role, "admin", "listing the accounts")
    return store.users.list()


def set_role(store: Store, actor: UserRecord, name: str, role: str) -> UserRecord:
    """Change an account's role; NotFound when there is no such account."""
    require_role(actor.role, "admin", "changing a role")
    try:
        return store.users.set_role(name, role)
    except ValueError as e:
        raise InputError(str(e)) from None
