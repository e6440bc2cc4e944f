"""Accounts: who is asking (a local account, a Hugging Face OAuth user, or an anonymous visitor),
signing in, and managing accounts and roles.

The page resolves the user of each request with :func:`current_user`; the other use cases check
that user's role. :func:`add_user`, :func:`list_users` and :func:`set_role` are what ``python -m ui
users`` runs (as :data:`CONSOLE`), and what an admin page will call with the signed-in admin.
"""
from __future__ import annotations

import logging
from typing import Any

from cinecap.errors import InputError
from db.records import UserRecord
from db.roles import ROLES, has_role, require_role
from db.store import Store
from ui.settings import Settings

log = logging.getLogger(__name__)

__all__ = ["ANONYMOUS", "CONSOLE", "MIN_PASSWORD_LENGTH", "ROLES", "add_user", "auth_mode",
           "check_new_password", "current_user", "has_role", "list_users", "set_role", "sign_in",
           "stored_user"]

#: The visitor when nobody signed in (id 0 never matches a stored user).
ANONYMOUS = "anonymous"
#: Whoever runs ``python -m ui users …`` on the server: they can open the database already, so the
#: account commands run with the admin role.
CONSOLE = UserRecord(0, "console", "admin", "none")
MIN_PASSWORD_LENGTH = 8


# --- who is asking ------------------------------------------------------------------------------
def auth_mode(settings: Settings, store: Store) -> str:
    """``none``, ``local`` or ``oauth``: ``auto`` means local when any account has a password."""
    if settings.auth != "auto":
        return settings.auth
    return "local" if store.users.has_local() else "none"


def current_user(request: Any, settings: Settings, store: Store) -> UserRecord:
    """The signed-in user (local account or Hugging Face OAuth), else an anonymous visitor.

    ``request`` is the web request (Gradio's ``gr.Request``; anything with ``username`` and, for
    OAuth, ``session``), or None.
    """
    name = getattr(request, "username", None) if request is not None else None
    if name:
        user = store.users.find(name)
        if user is not None:
            return user
    oauth_name = _oauth_username(request)
    if oauth_name:
        role = settings.oauth_roles.get(oauth_name, "viewer")
        return store.users.ensure(oauth_name, role, provider="huggingface")
    return UserRecord(0, ANONYMOUS, settings.anonymous_role, "none")


def stored_user(user: UserRecord, store: Store) -> UserRecord:
    """A user that can own rows: the anonymous visitor with a write role (a local demo without
    accounts) writes as the stored ``anonymous`` account, made on first use."""
    if user.id:
        return user
    stored = store.users.ensure(ANONYMOUS, user.role, provider="none")
    return UserRecord(stored.id, stored.name, user.role, stored.provider)


def sign_in(store: Store, name: str, password: str) -> UserRecord | None:
    """The account when the password is right, else None (the login page's check)."""
    return store.users.check_password(name, password)


def _oauth_username(request: Any) -> str | None:
    # Gradio keeps the Hugging Face login in the session (gradio/oauth.py, "oauth_info").
    try:
        session = request.session
    except (AttributeError, AssertionError):  # no session middleware: OAuth is off
        return None
    info = session.get("oauth_info") if session is not None else None
    if not info:
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
