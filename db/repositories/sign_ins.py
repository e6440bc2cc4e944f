"""Sign-in sessions and failed sign-ins (``store.sign_ins``).

A session is a random token handed to the browser in a cookie; the store keeps only its SHA-256,
the account's id and an expiry, so sessions survive an app restart, end when the account is
deleted (the rows cascade), and a new account of the same name inherits none. Failed sign-ins
are kept per name typed and client address, for the throttle of ``ui.usecases.accounts``: in the
store, so every app process and ``python -m ui users unthrottle`` see and clear the same ones.
"""
from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta, timezone

from sqlalchemy import delete, select

from db import models as m
from db.errors import NotFound
from db.records import UserRecord
from db.repositories.base import Repository
from db.repositories.rows import user_record
from db.repositories.users import MAX_NAME_LENGTH

#: The longest address kept (an IPv6 address with a zone fits).
MAX_ADDRESS_LENGTH = 64


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _aware(t: datetime) -> datetime:
    # SQLite hands back naive datetimes; everything written here is UTC.
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


class SignInRepository(Repository):
    # --- sessions -------------------------------------------------------------------------------
    def start(self, user_id: int, lifetime_s: float) -> str:
        """A new session of the account ``user_id`` for ``lifetime_s`` seconds: its token (the
        cookie's value; only its hash is stored). Expired sessions are dropped on the way."""
        token = secrets.token_urlsafe(32)
        now = _now()
        with self.sessions.writing() as s:
            if s.get(m.User, user_id) is None:
                raise NotFound(f"no account #{user_id}")
            s.execute(delete(m.SignInSession).where(m.SignInSession.expires_at <= now))
            s.add(m.SignInSession(token_sha256=token_hash(token), user_id=user_id,
                                  created_at=now,
                                  expires_at=now + timedelta(seconds=lifetime_s)))
        return token

    def user(self, token: str | None) -> UserRecord | None:
        """The account of an unexpired session, as it is now (its current role), else None."""
        if not token or len(token) > 200:
            return None
        with self.sessions.reading() as s:
            u = s.scalar(select(m.User).join(m.SignInSession,
                                             m.SignInSession.user_id == m.User.id)
                         .where(m.SignInSession.token_sha256 == token_hash(token),
                                m.SignInSession.expires_at > _now()))
            return user_record(u) if u is not None else None

    def end(self, token: str | None) -> int:
        """End the session of ``token`` (sign-out); how many ended (0 or 1)."""
        if not token:
            return 0
        with self.sessions.writing() as s:
            return s.execute(delete(m.SignInSession).where(
                m.SignInSession.token_sha256 == token_hash(token))).rowcount or 0

    def end_all(self, user_id: int) -> int:
        """End every session of the account (sign out everywhere, a new password)."""
        with self.sessions.writing() as s:
            return s.execute(delete(m.SignInSession).where(
                m.SignInSession.user_id == user_id)).rowcount or 0

    def count(self, user_id: int) -> int:
        """The account's unexpired sessions."""
        with self.sessions.reading() as s:
            return len(s.scalars(select(m.SignInSession.id).where(
                m.SignInSession.user_id == user_id,
                m.SignInSession.expires_at > _now())).all())

    # --- failed sign-ins ------------------------------------------------------------------------
    def fail(self, account: str, address: str | None, at: datetime | None = None,
             forget_before: datetime | None = None) -> None:
        """Note one failed sign-in with the name ``account`` from ``address`` (at ``at``, now by
        default), forgetting on the way the failures before ``forget_before``."""
        with self.sessions.writing() as s:
            if forget_before is not None:
                s.execute(delete(m.SignInFailure).where(m.SignInFailure.at <= forget_before))
            s.add(m.SignInFailure(account=account[:MAX_NAME_LENGTH],
                                  address=address[:MAX_ADDRESS_LENGTH] if address else None,
                                  at=at or _now()))

    def failures(self, since: datetime, account: str | None = None,
                 address: str | None = None) -> list[datetime]:
        """When the failures after ``since`` happened (oldest first, UTC), for the name
        ``account`` and/or from ``address`` (both given: both must match)."""
        q = select(m.SignInFailure.at).where(m.SignInFailure.at > since)
        if account is not None:
            q = q.where(m.SignInFailure.account == account[:MAX_NAME_LENGTH])
        if address is not None:
            q = q.where(m.SignInFailure.address == address[:MAX_ADDRESS_LENGTH])
        with self.sessions.reading() as s:
            times = [_aware(t) for t in s.scalars(q.order_by(m.SignInFailure.at))]
        return times

    def clear_failures(self, account: str | None = None, address: str | None = None) -> int:
        """Forget the failures of ``account`` and/or ``address`` (neither: all of them); how many
        were forgotten."""
        q = delete(m.SignInFailure)
        if account is not None:
            q = q.where(m.SignInFailure.account == account[:MAX_NAME_LENGTH])
        if address is not None:
            q = q.where(m.SignInFailure.address == address[:MAX_ADDRESS_LENGTH])
        with self.sessions.writing() as s:
            return s.execute(q).rowcount or 0
