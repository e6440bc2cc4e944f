"""Who is asking, and may they? Checked inside every handler: hiding a tab protects nothing."""
from __future__ import annotations

import logging
from typing import Any

from db.records import UserRecord
from db.roles import require_role
from db.store import Store
from ui.settings import Settings

log = logging.getLogger(__name__)

#: The visitor when nobody signed in (id 0 never matches a stored user).
ANONYMOUS = "anonymous"


def auth_mode(settings: Settings, store: Store) -> str:
    if settings.auth != "auto":
        return settings.auth
    return "local" if store.has_local_users() else "none"


def current_user(request: Any, settings: Settings, store: Store) -> UserRecord:
    """The signed-in user (local account or Hugging Face OAuth), else an anonymous visitor."""
    name = getattr(request, "username", None) if request is not None else None
    if name:
        user = store.get_user(name)
        if user is not None:
            return user
    oauth_name = _oauth_username(request)
    if oauth_name:
        role = settings.oauth_roles.get(oauth_name, "viewer")
        user = store.ensure_user(oauth_name, role, provider="huggingface")
        return user
    return UserRecord(0, ANONYMOUS, settings.anonymous_role, "none")


def require(request: Any, settings: Settings, store: Store, role: str,
            action: str) -> UserRecord:
    """The current user, or PermissionDenied when their role is weaker than ``role``."""
    user = current_user(request, settings, store)
    require_role(user.role, role, action)
    return user


def stored_user(user: UserRecord, store: Store) -> UserRecord:
    """A user that can own rows: the anonymous visitor with a write role (a local demo without
    accounts) writes as the stored ``anonymous`` account, made on first use."""
    if user.id:
        return user
    stored = store.ensure_user(ANONYMOUS, user.role, provider="none")
    return UserRecord(stored.id, stored.name, user.role, stored.provider)


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
