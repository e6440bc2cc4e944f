"""Accounts: who is asking (a local account, a Hugging Face OAuth user, or an anonymous visitor),
signing in, and managing accounts and roles.

The page resolves the user of each request with :func:`current_user`; the other use cases check
that user's role. :func:`add_user`, :func:`list_users` and :func:`set_role` are what ``python -m ui
users`` runs (as :data:`CONSOLE`), and what an admin page will call with the signed-in admin.

Signing in: :func:`sign_in` costs one scrypt whether or not the name exists (timing tells no
names) and goes through a :class:`LoginThrottle` (a growing delay per account and per client
address that never holds back a client that has not failed). A local sign-in starts a session in
the store (:func:`start_session`), bound to the account's id; :func:`sign_out`,
:func:`change_password`, :func:`end_sessions` and :func:`delete_user` end sessions
(``ui/signin.py`` serves the routes). Hugging Face sign-ins: the session must not be past its ``expires_at``, and the role is
the one the configuration gives now (:class:`OAuthRoles`), applied at every request, not the one
stored at the first sign-in.
"""
from __future__ import annotations

import hashlib
import logging
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

from cinecap.errors import InputError
from db.errors import NotFound
from db.records import UserRecord
from db.roles import ROLES, has_role, require_role
from db.store import Store
from ui.settings import Settings, parse_roles
from ui.usecases.limits import TooManyRequests, wait_text

log = logging.getLogger(__name__)

__all__ = ["ANONYMOUS", "CONSOLE", "MIN_PASSWORD_LENGTH", "ROLES", "LoginThrottle", "OAuthRoles",
           "SESSION_COOKIES", "TooManyRequests", "VISITOR_COOKIES", "add_user", "auth_mode",
           "change_password", "check_new_password", "clear_throttle", "current_user",
           "delete_user", "end_sessions", "has_role", "list_users", "offers_sign_in",
           "requester_key", "session_token", "session_user", "set_role", "sign_in", "sign_out",
           "start_session", "stored_user"]

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
#: The cookies of a local sign-in's session, one token in both, set as the visitor cookies are:
#: ``SameSite=None; Secure`` for a framed https page, ``Lax`` for plain http.
SESSION_COOKIES = ("cinecap_session", "cinecap_session_lax")


# --- who is asking ------------------------------------------------------------------------------
def auth_mode(settings: Settings, store: Store) -> str:
    """``none``, ``local`` or ``oauth`` now: ``auto`` is local once any account has a password
    (asked again at each page load, so an account added while the app runs counts at once)."""
    if settings.auth != "auto":
        return settings.auth
    return "local" if store.users.has_local() else "none"


def offers_sign_in(settings: Settings) -> bool:
    """Whether the app serves the local sign-in (its page, ``/login``, ``/logout``): always but
    under Hugging Face OAuth or CINECAP_AUTH=none, so accounts added later need no restart."""
    return settings.auth in ("auto", "local")


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
    token = session_token(request)
    if token:  # a local sign-in: bound to the account's id, never its name
        user = session_user(store, token)
        if user is not None:
            return user
    else:
        name = getattr(request, "username", None) if request is not None else None
        if name:  # resolved by the app from a session (Gradio's ``request.username``)
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


#: The wait after the last free failed sign-in; each failure after it doubles the wait.
FIRST_DELAY_S = 5.0


class LoginThrottle:
    """A delay after failed sign-ins that grows per account and per client address, and never
    keeps the right password from a client that has not itself failed (so nobody can lock an
    admin out by failing on their name).

    - From one address: after ``per_address`` failures within ``window_s`` seconds (any names),
      each attempt from it waits ``delay(n)`` after its latest failure.
    - On one account: after ``per_account`` failures on it within the window (from anywhere), a
      client that has itself failed on it waits ``delay(n)`` after its own latest failure on it.
      A client with no failure of its own on that account is never held back by the account's.

    ``delay(n)`` is :data:`FIRST_DELAY_S` at the last free failure and doubles with each one
    past it, up to ``window_s``.
    Attempts made while waiting are refused (429) before any password is checked; they are not
    failures. A right password clears that client's failures on that account. The failures are
    kept in the store (``store.sign_ins``): every app process sees them, a restart keeps them,
    and ``python -m ui users unthrottle`` clears them. 0 free failures: that limit is off.
    """

    def __init__(self, store: Store, per_account: int, per_address: int, window_s: float,
                 clock: Callable[[], datetime] | None = None):
        self.store = store
        self.per_account, self.per_address, self.window_s = per_account, per_address, window_s
        self.clock = clock or (lambda: datetime.now(timezone.utc))

    @classmethod
    def from_settings(cls, settings: Settings, store: Store) -> "LoginThrottle":
        return cls(store, settings.login_max_failures, settings.login_max_failures_per_address,
                   settings.login_window_s)

    def delay_s(self, failures: int, free: int) -> float:
        """How long a client waits after its latest failure, once there are ``failures``."""
        if not free or failures < free:
            return 0.0
        return float(min(self.window_s, FIRST_DELAY_S * 2.0 ** min(failures - free, 40)))

    def wait_s(self, name: str, address: str | None) -> float:
        """How long this client must still wait before trying ``name`` (0: it may try now)."""
        now = self.clock()
        since = now - timedelta(seconds=self.window_s)
        waits = [0.0]
        if address and self.per_address:
            times = self.store.sign_ins.failures(since, address=address)
            if times:
                waits.append(self._left(times[-1], self.delay_s(len(times), self.per_address),
                                        now))
        if self.per_account:
            mine = self.store.sign_ins.failures(since, account=name, address=address) if (
                address) else self.store.sign_ins.failures(since, account=name)
            if mine:  # only a client that failed on this account is held back by its count
                total = len(self.store.sign_ins.failures(since, account=name))
                waits.append(self._left(mine[-1], self.delay_s(total, self.per_account), now))
        return max(waits)

    @staticmethod
    def _left(latest: datetime, delay: float, now: datetime) -> float:
        return max(0.0, (latest - now).total_seconds() + delay)

    def check(self, name: str, address: str | None) -> None:
        wait = self.wait_s(name, address)
        if wait > 0:
            raise TooManyRequests(f"too many failed sign-ins for this account or from this "
                                  f"address; try again in {wait_text(wait)}", wait)

    def record(self, name: str, address: str | None, ok: bool) -> None:
        if ok:
            self.store.sign_ins.clear_failures(account=name, address=address)
            return
        now = self.clock()
        self.store.sign_ins.fail(name, address, at=now,
                                 forget_before=now - timedelta(seconds=self.window_s))


def sign_in(store: Store, name: str, password: str, throttle: LoginThrottle | None = None,
            address: str | None = None) -> UserRecord | None:
    """The account when the password is right, else None (the sign-in page's check).
    TooManyRequests when ``throttle`` says this client must wait (refused before the password is
    looked at)."""
    name = (name or "").strip()
    if throttle is not None:
        throttle.check(name, address)
    user = store.users.check_password(name, password or "")
    if throttle is not None:
        throttle.record(name, address, ok=user is not None)
    return user


# --- sessions of local accounts -----------------------------------------------------------------
def start_session(store: Store, settings: Settings, user: UserRecord) -> str:
    """A new session of ``user`` (signed in just now): the token for its cookies."""
    return store.sign_ins.start(user.id, settings.session_lifetime_s)


def session_token(request: Any) -> str | None:
    """The session token the request's cookies carry (either of :data:`SESSION_COOKIES`)."""
    cookies = getattr(request, "cookies", None) if request is not None else None
    if not cookies or not hasattr(cookies, "get"):
        return None
    return next((cookies.get(c) for c in SESSION_COOKIES if cookies.get(c)), None)


def session_user(store: Store, token: str | None) -> UserRecord | None:
    """The account of an unexpired session token, with its role now; None otherwise (expired,
    signed out, its account deleted or given a new password)."""
    return store.sign_ins.user(token) if token else None


def sign_out(store: Store, token: str | None, everywhere: bool = False) -> int:
    """End the session of ``token``, or (``everywhere``) every session of its account: the
    sessions ended."""
    if not everywhere:
        return store.sign_ins.end(token)
    user = session_user(store, token)
    return store.sign_ins.end_all(user.id) if user is not None else 0


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


def change_password(store: Store, actor: UserRecord, name: str, password: str) -> UserRecord:
    """A new password for a local account; every session of it ends (whoever held one signs in
    again). NotFound when there is no such account."""
    require_role(actor.role, "admin", "changing a password")
    check_new_password(password)
    try:
        return store.users.set_password(name, password)
    except ValueError as e:
        raise InputError(str(e)) from None


def end_sessions(store: Store, actor: UserRecord, name: str) -> int:
    """Sign an account out everywhere: how many sessions ended. NotFound when there is no such
    account."""
    require_role(actor.role, "admin", "ending an account's sessions")
    user = store.users.find(name)
    if user is None:
        raise NotFound(f"no user named {name!r}")
    return store.sign_ins.end_all(user.id)


def delete_user(store: Store, actor: UserRecord, name: str) -> UserRecord:
    """Remove an account and its sessions; StoreConflict when stored gold pairs name it."""
    require_role(actor.role, "admin", "deleting an account")
    return store.users.delete(name)


def clear_throttle(store: Store, actor: UserRecord, name: str | None = None,
                   address: str | None = None) -> int:
    """Forget failed sign-ins (of the name ``name``, from ``address``, or all): how many."""
    require_role(actor.role, "admin", "clearing the sign-in throttle")
    return store.sign_ins.clear_failures(account=name, address=address)
