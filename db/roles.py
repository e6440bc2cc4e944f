"""Roles, weakest first. Each role can do everything the roles before it can."""
from __future__ import annotations

from db.errors import PermissionDenied

#: viewer: caption only (the public demo); annotator: review and save gold pairs;
#: reviewer: accept or send back gold pairs; admin: everything, including accounts.
ROLES: tuple[str, ...] = ("viewer", "annotator", "reviewer", "admin")


def check_role(role: str) -> str:
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; known: {', '.join(ROLES)}")
    return role


def has_role(role: str | None, needed: str) -> bool:
    """True when ``role`` is ``needed`` or stronger. ``None`` (nobody) has no role."""
    check_role(needed)
    return role in ROLES and ROLES.index(role) >= ROLES.index(needed)


def require_role(role: str | None, needed: str, action: str) -> None:
    if not has_role(role, needed):
        who = f"the {role} role" if role else "an anonymous visitor"
        raise PermissionDenied(f"{action} needs the {needed} role or higher; {who} cannot do it. "
                               "Sign in with an account that has it (ask an admin).")
