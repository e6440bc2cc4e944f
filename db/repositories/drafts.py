"""Review drafts: an annotator's unsaved review of one clip, kept server-side (one per user and
clip) so that it survives a page reload and can never be saved by anyone else.

Every call names the user the draft must belong to: a draft id alone (what a page keeps in its
session) reaches nothing. A draft of another user reads as :class:`PermissionDenied`, so a client
that replays someone else's session id cannot read, change or save their draft.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import Row, bindparam, delete, insert, select, update

from db import models as m
from db.errors import NotFound, PermissionDenied, StoreConflict
from db.limits import check_draft
from db.records import DraftRecord
from db.repositories.base import Repository

# The drafts are read and written as table rows through statements built once, not ORM objects:
# every review action reads one and writes it back, and the ORM's identity map, its unit of work
# and building each statement again were most of what that cost.
T = m.ReviewDraft.__table__
COLUMNS = (T.c.id, T.c.user_id, T.c.clip_id, T.c.clip_version, T.c.data, T.c.version,
           T.c.updated_at)
BY_ID = select(*COLUMNS).where(T.c.id == bindparam("draft_id"))
#: Read to be written back in the same transaction (PostgreSQL: FOR NO KEY UPDATE; SQLite
#: renders none: its write transaction holds the whole database).
BY_ID_LOCKED = BY_ID.with_for_update(key_share=True)
BY_USER_CLIP = select(*COLUMNS).where(T.c.user_id == bindparam("user_id"),
                                      T.c.clip_id == bindparam("clip_id"))
BY_USER = (select(*COLUMNS).where(T.c.user_id == bindparam("user_id"))
           .order_by(T.c.updated_at.desc(), T.c.id.desc()))
DELETE_MINE = delete(T).where(T.c.user_id == bindparam("user_id"),
                              T.c.clip_id == bindparam("clip_id"))
DELETE_ONE = delete(T).where(T.c.id == bindparam("draft_id"), T.c.user_id == bindparam("user_id"))
INSERT = insert(T)
# (Parameters named unlike the columns: an UPDATE's parameter named as a column sets it.)
UPDATE = (update(T).where(T.c.id == bindparam("draft_id"), T.c.user_id == bindparam("owner"),
                          T.c.version == bindparam("expected"))
          .values(data=bindparam("new_data", type_=T.c.data.type),
                  clip_version=bindparam("new_clip_version"),
                  updated_at=bindparam("new_updated_at", type_=T.c.updated_at.type),
                  version=bindparam("new_version"))
          .returning(T.c.clip_id))


def _record(d: Row) -> DraftRecord:
    return DraftRecord(d.id, d.user_id, d.clip_id, d.clip_version, dict(d.data), d.version,
                       d.updated_at)


def _owned(d: Row | None, draft_id: int, user_id: int) -> Row:
    if d is None:
        raise NotFound(f"review draft #{draft_id} is gone (saved or discarded): open the clip "
                       "again")
    if d.user_id != user_id:
        raise PermissionDenied(f"review draft #{draft_id} belongs to another annotator; open the "
                               "clip to start your own")
    return d


class DraftRepository(Repository):
    def find(self, user_id: int, clip_id: int) -> DraftRecord | None:
        """The user's draft of this clip, or None."""
        with self.sessions.rows() as c:
            d = c.execute(BY_USER_CLIP, {"user_id": user_id,
                                                      "clip_id": clip_id}).first()
            return _record(d) if d else None

    def get(self, draft_id: int, user_id: int) -> DraftRecord:
        """The draft if it is this user's; NotFound when it is gone, PermissionDenied when it is
        someone else's. Inside a write transaction (``sessions.writing()``) the row is locked
        until it ends (PostgreSQL; a SQLite write transaction holds the whole database), so the
        action that read it writes it back with nobody in between."""
        q = BY_ID_LOCKED if self.sessions.writing_now else BY_ID
        with self.sessions.rows() as c:
            d = c.execute(q, {"draft_id": int(draft_id)}).first()
            return _record(_owned(d, draft_id, user_id))

    def list(self, user_id: int) -> list[DraftRecord]:
        """The user's drafts, most recently changed first."""
        with self.sessions.rows() as c:
            return [_record(d) for d in c.execute(BY_USER, {"user_id": user_id})]

    def put(self, user_id: int, clip_id: int, clip_version: int,
            data: dict[str, Any]) -> DraftRecord:
        """Start the user's draft of a clip, replacing any draft of theirs for it (the new one
        has a new id: a page still holding the old one reaches nothing)."""
        check_draft(data)
        now = m.utcnow()
        with self.sessions.writing() as s:
            c = s.connection()
            c.execute(DELETE_MINE, {"user_id": user_id, "clip_id": clip_id})
            new_id = c.execute(INSERT, {
                "user_id": user_id, "clip_id": clip_id, "clip_version": clip_version,
                "data": data, "created_at": now, "updated_at": now,
                "version": 1}).inserted_primary_key[0]
            return DraftRecord(new_id, user_id, clip_id, clip_version, dict(data), 1, now)

    def update(self, draft_id: int, user_id: int, data: dict[str, Any], clip_version: int,
               expected_version: int) -> DraftRecord:
        """Replace the draft's content if it is this user's and nobody wrote it since
        ``expected_version`` (another window of the same user): StoreConflict otherwise. One
        UPDATE; the row is read only to say why it changed none."""
        check_draft(data)
        now = m.utcnow()
        with self.sessions.writing() as s:
            c = s.connection()
            row = c.execute(UPDATE, {
                "draft_id": int(draft_id), "owner": user_id, "expected": expected_version,
                "new_data": data, "new_clip_version": clip_version, "new_updated_at": now,
                "new_version": expected_version + 1}).first()
            if row is None:
                d = _owned(c.execute(BY_ID, {"draft_id": int(draft_id)}).first(), draft_id,
                           user_id)
                raise _changed_meanwhile(d.id)
            return DraftRecord(int(draft_id), user_id, row.clip_id, clip_version, dict(data),
                               expected_version + 1, now)

    def delete(self, draft_id: int, user_id: int) -> None:
        """Discard the user's draft (nothing when it is already gone)."""
        with self.sessions.writing() as s:
            c = s.connection()
            gone = c.execute(DELETE_ONE, {"draft_id": int(draft_id), "user_id": user_id}).rowcount
            if not gone:
                d = c.execute(BY_ID, {"draft_id": int(draft_id)}).first()
                if d is not None:
                    _owned(d, draft_id, user_id)


def _changed_meanwhile(draft_id: int) -> StoreConflict:
    return StoreConflict(f"review draft #{draft_id} changed in another window meanwhile; "
                         "your last action was not applied: try it again")
