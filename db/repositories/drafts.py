"""Review drafts: an annotator's unsaved review of one clip, kept server-side (one per user and
clip) so that it survives a page reload and can never be saved by anyone else.

Every call names the user the draft must belong to: a draft id alone (what a page keeps in its
session) reaches nothing. A draft of another user reads as :class:`PermissionDenied`, so a client
that replays someone else's session id cannot read, change or save their draft.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm.exc import StaleDataError

from db import models as m
from db.errors import NotFound, PermissionDenied, StoreConflict
from db.limits import check_draft
from db.records import DraftRecord
from db.repositories.base import Repository


def _record(d: m.ReviewDraft) -> DraftRecord:
    return DraftRecord(d.id, d.user_id, d.clip_id, d.clip_version, dict(d.data), d.version,
                       d.updated_at)


def _owned(d: m.ReviewDraft | None, draft_id: int, user_id: int) -> m.ReviewDraft:
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
        with self.sessions.reading() as s:
            d = s.scalar(select(m.ReviewDraft).where(m.ReviewDraft.user_id == user_id,
                                                     m.ReviewDraft.clip_id == clip_id))
            return _record(d) if d else None

    def get(self, draft_id: int, user_id: int) -> DraftRecord:
        """The draft if it is this user's; NotFound when it is gone, PermissionDenied when it is
        someone else's."""
        with self.sessions.reading() as s:
            return _record(_owned(s.get(m.ReviewDraft, int(draft_id)), draft_id, user_id))

    def list(self, user_id: int) -> list[DraftRecord]:
        """The user's drafts, most recently changed first."""
        with self.sessions.reading() as s:
            q = (select(m.ReviewDraft).where(m.ReviewDraft.user_id == user_id)
                 .order_by(m.ReviewDraft.updated_at.desc(), m.ReviewDraft.id.desc()))
            return [_record(d) for d in s.scalars(q)]

    def put(self, user_id: int, clip_id: int, clip_version: int,
            data: dict[str, Any]) -> DraftRecord:
        """Start the user's draft of a clip, replacing any draft of theirs for it."""
        check_draft(data)
        with self.sessions.writing() as s:
            s.execute(delete(m.ReviewDraft).where(m.ReviewDraft.user_id == user_id,
                                                  m.ReviewDraft.clip_id == clip_id))
            d = m.ReviewDraft(user_id=user_id, clip_id=clip_id, clip_version=clip_version,
                              data=data)
            s.add(d)
            s.flush()
            return _record(d)

    def update(self, draft_id: int, user_id: int, data: dict[str, Any], clip_version: int,
               expected_version: int) -> DraftRecord:
        """Replace the draft's content if it is this user's and nobody wrote it since
        ``expected_version`` (another window of the same user): StoreConflict otherwise."""
        check_draft(data)
        try:
            with self.sessions.writing() as s:
                d = _owned(s.get(m.ReviewDraft, int(draft_id)), draft_id, user_id)
                if d.version != expected_version:
                    raise _changed_meanwhile(draft_id)
                d.data, d.clip_version, d.updated_at = data, clip_version, m.utcnow()
                s.flush()
                return _record(d)
        except StaleDataError:
            raise _changed_meanwhile(draft_id) from None

    def delete(self, draft_id: int, user_id: int) -> None:
        """Discard the user's draft (nothing when it is already gone)."""
        with self.sessions.writing() as s:
            d = s.get(m.ReviewDraft, int(draft_id))
            if d is not None:
                s.delete(_owned(d, draft_id, user_id))


def _changed_meanwhile(draft_id: int) -> StoreConflict:
    return StoreConflict(f"review draft #{draft_id} changed in another window meanwhile; "
                         "your last action was not applied: try it again")
