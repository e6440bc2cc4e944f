"""Accounts: local (scrypt password) and OAuth (no password), each with one role."""
from __future__ import annotations

import unicodedata

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from db import models as m
from db.errors import NotFound, StoreConflict
from db.passwords import hash_password, verify_nobody, verify_password
from db.records import UserRecord
from db.repositories.base import Repository
from db.repositories.rows import user_record
from db.roles import check_role


#: The longest user name (the column's size, on every database).
MAX_NAME_LENGTH = 100


def check_name(name: str | None) -> str:
    """The name without surrounding spaces, or ValueError: empty, longer than
    :data:`MAX_NAME_LENGTH`, or holding a control or format character (a newline or tab would fake
    lines in ``users list``; a bidi override would make one name read as another)."""
    name = (name or "").strip()
    if not name:
        raise ValueError("the user name is empty")
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(f"the user name is {len(name)} characters long; at most "
                         f"{MAX_NAME_LENGTH}")
    bad = next((c for c in name if unicodedata.category(c).startswith("C")), None)
    if bad is not None:
        raise ValueError(f"the user name contains the control character U+{ord(bad):04X}; use "
                         "letters, digits, spaces and punctuation")
    return name


class UserRepository(Repository):
    def add(self, name: str, role: str, password: str | None,
            provider: str = "local") -> UserRecord:
        """A new account. ValueError for a bad name (:func:`check_name`), an unknown role or a
        local account without a password; StoreConflict when the name is taken."""
        name = check_name(name)
        check_role(role)
        if provider == "local" and not password:
            raise ValueError("a local account needs a password")
        try:
            with self.sessions.writing() as s:
                u = m.User(name=name, role=role, provider=provider,
                           password_hash=hash_password(password) if password else None)
                s.add(u)
                s.flush()
                return user_record(u)
        except IntegrityError:
            raise StoreConflict(f"a user named {name!r} already exists") from None

    def set_role(self, name: str, role: str) -> UserRecord:
        check_role(role)
        with self.sessions.writing() as s:
            u = s.scalar(select(m.User).where(m.User.name == name))
            if u is None:
                raise NotFound(f"no user named {name!r}")
            u.role = role
            return user_record(u)

    def set_password(self, name: str, password: str) -> UserRecord:
        """A new password for a local account; its sessions end (a password change is how a
        stolen session is ended). NotFound when there is no such account."""
        if not password:
            raise ValueError("the password is empty")
        digest = hash_password(password)
        with self.sessions.writing() as s:
            u = s.scalar(select(m.User).where(m.User.name == name))
            if u is None:
                raise NotFound(f"no user named {name!r}")
            if u.provider != "local":
                raise ValueError(f"{name!r} signs in with {u.provider}, not a password")
            u.password_hash = digest
            s.execute(delete(m.SignInSession).where(m.SignInSession.user_id == u.id))
            return user_record(u)

    def delete(self, name: str) -> UserRecord:
        """Remove an account with its sessions and drafts. StoreConflict when gold pairs or
        their history name it (they are kept: their author stays known); NotFound when there is
        no such account."""
        try:
            with self.sessions.writing() as s:
                u = s.scalar(select(m.User).where(m.User.name == name))
                if u is None:
                    raise NotFound(f"no user named {name!r}")
                record = user_record(u)
                authored = s.scalar(select(func.count()).select_from(m.GoldPair).where(
                    (m.GoldPair.annotator_id == u.id) | (m.GoldPair.reviewer_id == u.id)))
                if authored:
                    raise StoreConflict(
                        f"{name!r} wrote or reviewed {authored} gold pair(s), which keep their "
                        "author: the account stays. To shut it out, give it a new password "
                        f"(users passwd) and the viewer role (users set-role {name} viewer)")
                s.execute(delete(m.SignInSession).where(m.SignInSession.user_id == u.id))
                s.delete(u)
                s.flush()
                return record
        except IntegrityError:
            raise StoreConflict(f"{name!r} is named by stored work (its history); the account "
                                "stays") from None

    def ensure(self, name: str, role: str, provider: str) -> UserRecord:
        """An OAuth user's account, made on first sight with ``role``; an existing one is kept."""
        existing = self.find(name)
        if existing is not None:
            return existing
        try:
            return self.add(name, role, None, provider=provider)
        except StoreConflict:  # made by a concurrent first request
            return self.find(name)

    def find(self, name: str) -> UserRecord | None:
        with self.sessions.reading() as s:
            u = s.scalar(select(m.User).where(m.User.name == name))
            return user_record(u) if u else None

    def list(self) -> list[UserRecord]:
        """Every account, by name."""
        with self.sessions.reading() as s:
            return [user_record(u) for u in s.scalars(select(m.User).order_by(m.User.name))]

    def has_local(self) -> bool:
        """Whether any account signs in with a password (the app then asks for a login)."""
        with self.sessions.reading() as s:
            return bool(s.scalar(select(func.count()).select_from(m.User)
                                 .where(m.User.password_hash.is_not(None))))

    def check_password(self, name: str, password: str) -> UserRecord | None:
        """The account when ``password`` is its password, else None. As slow for an unknown
        name as for a wrong password (one scrypt either way), so timing tells no names."""
        with self.sessions.reading() as s:
            u = s.scalar(select(m.User).where(m.User.name == name))
        if u is None or not u.password_hash:
            verify_nobody(password)
            return None
        return user_record(u) if verify_password(password, u.password_hash) else None
