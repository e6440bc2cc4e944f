"""Store errors, in the project's domain-error family (cinecap.errors), so the CLI and the UI
translate them like any other."""
from __future__ import annotations

from typing import Any

from cinecap.errors import CinecapError, InputError, UnavailableError


class NotFound(InputError):
    """A clip, gold pair or user that does not exist (wrong id, deleted meanwhile)."""


class PermissionDenied(CinecapError):
    """The user's role does not allow this action."""

    exit_code = 7


class StoreConflict(CinecapError):
    """Someone saved the same clip (or decided the same gold pair) since you loaded it.

    Carries both versions so nothing is lost: ``yours`` is what you tried to save, ``theirs`` what
    is stored now (with who saved it and when). Reload, merge and save again.
    """

    exit_code = 8

    def __init__(self, message: str, yours: Any = None, theirs: Any = None,
                 expected_version: int | None = None, current_version: int | None = None):
        super().__init__(message)
        self.yours = yours
        self.theirs = theirs
        self.expected_version = expected_version
        self.current_version = current_version


class StoreFilesChanged(UnavailableError):
    """The SQLite database's files were removed or replaced under the running app (see
    ``db.engine.SqliteFiles``): no write is accepted until it restarts, so none is acknowledged
    and then lost."""
