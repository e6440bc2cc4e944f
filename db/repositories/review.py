"""Review: the queue, saving a gold pair with its edit history, reviewer decisions, the history.

Optimistic locking: a clip's ``version`` goes up with every saved review. A save names the version
its editor loaded; when someone saved in between, :class:`StoreConflict` carries both versions.
Statements carry an id across versions (``statement_ids``, the rows' ``uid``), and every save is
checked against the length limits of ``db.limits``.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Sequence

from sqlalchemy import Select, bindparam, delete, func, insert, select, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from cinecap.errors import InputError
from db import models as m
from db.errors import NotFound, PermissionDenied, StoreConflict
from db.limits import check_gold_pair
from db.records import EditRecord, GoldPairRecord, QueueItem, ReviewSnapshot, UserRecord
from db.repositories.base import Repository
from db.repositories.rows import (clip_record, gold_pair_record, gold_record, statement_dict,
                                  statement_uid, statement_values)
from db.roles import require_role

CLIPS, GOLD, STATEMENTS = m.Clip.__table__, m.GoldPair.__table__, m.StatementRow.__table__
DRAFTS = m.ReviewDraft.__table__
EDITS, USERS = m.StatementEdit.__table__, m.User.__table__


#: The gold pair's columns a snapshot reads (``gold_<name>`` in its row).
GOLD_FIELDS = ("id", "clip_id", "caption", "status", "version", "created_at", "review_note",
               "source_caption_id", "clip_version", "notes", "reviewed_at")


def _snapshot_query() -> Select:
    """A clip's row with its newest caption (id, text, captioner) and its newest gold pair with
    the names of its annotator and reviewer, in one query of table rows."""
    clip_id = bindparam("clip_id")
    caps, versions = m.Caption.__table__, m.ModelVersion.__table__
    newest_cap = (select(func.max(caps.c.id)).where(caps.c.clip_id == clip_id)
                  .correlate(None).scalar_subquery())
    newest_gold = (select(func.max(GOLD.c.id)).where(GOLD.c.clip_id == clip_id)
                   .correlate(None).scalar_subquery())
    annotator, reviewer = m.User.__table__.alias("annotator"), m.User.__table__.alias("reviewer")
    return (select(*CLIPS.c, caps.c.id.label("cap_id"), caps.c.caption.label("cap_text"),
                   versions.c.captioner, *(GOLD.c[f].label(f"gold_{f}") for f in GOLD_FIELDS),
                   annotator.c.name.label("annotator"), reviewer.c.name.label("reviewer"))
            .select_from(CLIPS)
            .outerjoin(caps, caps.c.id == newest_cap)
            .outerjoin(versions, versions.c.id == caps.c.model_version_id)
            .outerjoin(GOLD, GOLD.c.id == newest_gold)
            .outerjoin(annotator, annotator.c.id == GOLD.c.annotator_id)
            .outerjoin(reviewer, reviewer.c.id == GOLD.c.reviewer_id)
            .where(CLIPS.c.id == clip_id))


def _statements_of(owner: Any) -> Select:
    return select(STATEMENTS).where(owner == bindparam("owner")).order_by(STATEMENTS.c.position)


# Built once: a review action runs them every time, and building them was a good part of it.
SNAPSHOT = _snapshot_query()
CAPTION_STATEMENTS = _statements_of(STATEMENTS.c.caption_id)
GOLD_STATEMENTS = _statements_of(STATEMENTS.c.gold_pair_id)
CLIP_VERSION_LOCKED = (select(CLIPS.c.version).where(CLIPS.c.id == bindparam("clip_id"))
                       .with_for_update(key_share=True))
DISCARD_DRAFT = (delete(DRAFTS).where(DRAFTS.c.id == bindparam("draft_id"))
                 .returning(DRAFTS.c.user_id))
BUMP_CLIP = (update(CLIPS).where(CLIPS.c.id == bindparam("clip"),
                                 CLIPS.c.version == bindparam("expected"))
             .values(updated_at=bindparam("now", type_=CLIPS.c.updated_at.type),
                     version=bindparam("new_version")))
INSERT_GOLD = insert(GOLD).returning(GOLD.c.id)
INSERT_STATEMENTS = insert(STATEMENTS)
INSERT_EDITS = insert(EDITS)
_HISTORY = (select(EDITS.c.id, EDITS.c.clip_id, EDITS.c.gold_pair_id, USERS.c.name, EDITS.c.action,
                   EDITS.c.before, EDITS.c.after, EDITS.c.at)
            .join(USERS, USERS.c.id == EDITS.c.user_id).order_by(EDITS.c.id))
#: The history, by (of one clip?, of one gold pair?); its rows are EditRecord's fields in order.
HISTORY = {(by_clip, by_gold): _HISTORY.where(
    *([EDITS.c.clip_id == bindparam("clip")] if by_clip else []),
    *([EDITS.c.gold_pair_id == bindparam("gold")] if by_gold else []))
    for by_clip in (False, True) for by_gold in (False, True)}
GOLD_STATEMENT_IDS = (select(STATEMENTS.c.id)
                      .where(STATEMENTS.c.gold_pair_id == bindparam("gold"))
                      .order_by(STATEMENTS.c.position))
EDIT_ACTIONS = ("accept", "fix", "reject", "add", "delete")
DECISIONS = ("accepted", "sent_back")
QUEUE_ORDERS = ("certainty", "disagreement")


def _contradicted(meta: Any) -> int | None:
    n = ((meta or {}).get("verification") or {}).get("contradicted") if isinstance(meta, dict) \
        else None
    return n if isinstance(n, int) and not isinstance(n, bool) else None


class ReviewRepository(Repository):
    def queue(self, limit: int = 100, order: str = "certainty") -> list[QueueItem]:
        """Clips still needing work. Clips whose newest gold pair is accepted are done.

        ``order="certainty"``: least certain model caption first (unknown counts as least
        certain). ``order="disagreement"``: the model captions the pixels contradict most first
        (the count in the caption's meta, ``verification.contradicted``; unverified last), then
        least certain. Ties: oldest clip first. Four queries, however many clips there are.
        """
        if order not in QUEUE_ORDERS:
            raise InputError(f"queue order must be one of {', '.join(QUEUE_ORDERS)}, not {order!r}")
        with self.sessions.reading() as s:
            newest_cap = dict(s.execute(select(m.Caption.clip_id, func.max(m.Caption.id))
                                        .group_by(m.Caption.clip_id)).all())
            gold_stats = {cid: (n, last) for cid, n, last in s.execute(
                select(m.GoldPair.clip_id, func.count(), func.max(m.GoldPair.id))
                .group_by(m.GoldPair.clip_id)).all()}
            last_status = dict(s.execute(select(m.GoldPair.id, m.GoldPair.status).where(
                m.GoldPair.id.in_([last for _, last in gold_stats.values()] or [-1]))).all())
            rows = s.execute(
                select(m.Clip.id, m.Clip.filename, m.Caption.certainty, m.ModelVersion.captioner,
                       m.Caption.meta)
                .join(m.Caption, m.Caption.clip_id == m.Clip.id)
                .join(m.ModelVersion, m.ModelVersion.id == m.Caption.model_version_id)
                .where(m.Caption.id.in_(list(newest_cap.values()) or [-1]))).all()
        items = []
        for clip_id, filename, certainty, captioner, meta in rows:
            n, last = gold_stats.get(clip_id, (0, None))
            status = last_status.get(last, "to review")
            if status != "accepted":
                items.append(QueueItem(clip_id, filename, certainty, n, status.replace("_", " "),
                                       captioner, _contradicted(meta)))

        def by_certainty(q: QueueItem) -> tuple:
            return (-1.0 if q.certainty is None else q.certainty, q.clip_id)

        if order == "disagreement":
            items.sort(key=lambda q: (q.contradicted is None, -(q.contradicted or 0),
                                      *by_certainty(q)))
        else:
            items.sort(key=by_certainty)
        return items[:limit]

    def load(self, clip_id: int) -> ReviewSnapshot:
        """The statements to edit: the newest gold pair's, else the newest model caption's. Two
        queries: the clip with its newest caption and newest gold pair (and the names it
        shows), then the statements."""
        with self.sessions.rows() as c:
            row = c.execute(SNAPSHOT, {"clip_id": clip_id}).first()
            if row is None:
                raise NotFound(f"no clip #{clip_id}")
            gold = None
            if row.gold_id is not None:
                gold = SimpleNamespace(**{f: getattr(row, f"gold_{f}") for f in GOLD_FIELDS})
                rows = c.execute(GOLD_STATEMENTS, {"owner": gold.id}).all()
                source = f"gold pair #{gold.id} by {row.annotator}"
            elif row.cap_id is not None:
                rows = c.execute(CAPTION_STATEMENTS, {"owner": row.cap_id}).all()
                source = f"model caption #{row.cap_id} ({row.captioner})"
            else:
                rows, source = [], "no caption yet"
        ids = [statement_uid(r) for r in rows]
        notes = dict(gold.notes or {}) if gold else {}
        return ReviewSnapshot(clip_record(row, self.data_dir), row.version,
                              [statement_dict(r) for r in rows], source, row.cap_id,
                              gold.id if gold else None, row.cap_text or "", ids,
                              {k: v for k, v in notes.items() if k in ids},
                              gold_pair_record(gold, row.annotator, row.reviewer, rows)
                              if gold else None)

    def caption_statements(self, caption_id: int) -> tuple[list[str], list[dict[str, Any]]]:
        """A model caption's statement ids and statements (what a gold pair is compared with)."""
        with self.sessions.reading() as s:
            cap = s.get(m.Caption, caption_id)
            if cap is None:
                raise NotFound(f"no caption #{caption_id}")
            rows = list(cap.statements)
            return [statement_uid(r) for r in rows], [statement_dict(r) for r in rows]

    def save(self, clip_id: int, expected_version: int, user: UserRecord,
             statements: Sequence[dict[str, Any]], edits: Sequence[dict[str, Any]],
             caption: str, reasoning: str = "",
             source_caption_id: int | None = None, statement_ids: Sequence[str] | None = None,
             notes: dict[str, str] | None = None,
             discard_draft: int | None = None) -> GoldPairRecord:
        """Store a gold pair and its edit history in one transaction, if nobody saved meanwhile.

        ``edits`` are ``{"action", "before", "after"}`` (before/after: statement dicts or None).
        ``statement_ids`` name the statements across versions (one per statement; new ids for
        added ones); ``notes`` are the annotator's notes by statement id. ``discard_draft``: the
        user's review draft this save turns into the gold pair, deleted in the same transaction
        (PermissionDenied when it is someone else's). Raises StoreConflict with your statements
        and the stored ones when the clip moved on; InputError over the length limits.
        """
        require_role(user.role, "annotator", "saving a review")
        for e in edits:
            if e.get("action") not in EDIT_ACTIONS:
                raise ValueError(f"unknown edit action {e.get('action')!r}; known: {EDIT_ACTIONS}")
        ids = list(statement_ids) if statement_ids is not None else [None] * len(statements)
        if len(ids) != len(statements) or len(set(i for i in ids if i)) != len(
                [i for i in ids if i]):
            raise ValueError("statement_ids must name each statement once")
        check_gold_pair(statements, caption, reasoning, notes)
        stored = [statement_values(st) for st in statements]
        kept_notes = {k: v for k, v in (notes or {}).items() if v} or None
        # Table rows, not ORM objects: a save is a handful of plain statements (the ORM's unit of
        # work inserted the statements one by one on SQLite, and cost more than the SQL).
        with self.sessions.writing() as s:
            c = s.connection()
            # Locked until the save commits (PostgreSQL; SQLite's write transaction holds the
            # whole database): a concurrent save of this clip waits, then meets the new version.
            current = c.execute(CLIP_VERSION_LOCKED, {"clip_id": clip_id}).scalar()
            if current is None:
                raise NotFound(f"no clip #{clip_id}")
            if discard_draft is not None:
                # Deleted first, and put back by the rollback when it is not this user's.
                owner = c.execute(DISCARD_DRAFT, {"draft_id": int(discard_draft)}).scalar()
                if owner is not None and owner != user.id:
                    raise PermissionDenied(f"review draft #{discard_draft} belongs to "
                                           "another annotator")
            now = m.utcnow()
            version = expected_version + 1
            if current != expected_version or c.execute(BUMP_CLIP, {
                    "clip": clip_id, "expected": expected_version, "now": now,
                    "new_version": version}).rowcount != 1:
                raise _conflict(s, clip_id, expected_version, statements)
            gold_id = c.execute(INSERT_GOLD, {
                "clip_id": clip_id, "annotator_id": user.id, "caption": caption,
                "reasoning": reasoning, "status": "submitted", "clip_version": version,
                "source_caption_id": source_caption_id, "review_note": "", "notes": kept_notes,
                "created_at": now, "version": 1}).scalar_one()
            if stored:
                c.execute(INSERT_STATEMENTS, [
                    {**d, "gold_pair_id": gold_id, "position": i, "uid": uid}
                    for i, (d, uid) in enumerate(zip(stored, ids))])
            if not all(ids):  # stored without a uid: named by its row id (``statement_uid``)
                row_ids = c.execute(GOLD_STATEMENT_IDS, {"gold": gold_id}).scalars().all()
                ids = [uid or f"r{rid}" for uid, rid in zip(ids, row_ids)]
            if edits:
                c.execute(INSERT_EDITS, [
                    {"clip_id": clip_id, "gold_pair_id": gold_id, "user_id": user.id,
                     "action": e["action"], "before": e.get("before"),
                     "after": e.get("after"), "at": now} for e in edits])
            return GoldPairRecord(gold_id, clip_id, user.name, caption, "submitted", 1,
                                  [dict(d) for d in stored], now, None, "", source_caption_id,
                                  version, ids, dict(kept_notes or {}), None)

    def gold_pairs(self, clip_id: int | None = None,
                   status: str | None = None) -> list[GoldPairRecord]:
        """Gold pairs, oldest first: all, or one clip's, or those with one status."""
        with self.sessions.reading() as s:
            q = select(m.GoldPair).order_by(m.GoldPair.id)
            if clip_id is not None:
                q = q.where(m.GoldPair.clip_id == clip_id)
            if status is not None:
                q = q.where(m.GoldPair.status == status)
            return [gold_record(s, g) for g in s.scalars(q)]

    def get_gold_pair(self, gold_id: int) -> GoldPairRecord:
        with self.sessions.reading() as s:
            g = s.get(m.GoldPair, gold_id)
            if g is None:
                raise NotFound(f"no gold pair #{gold_id}")
            return gold_record(s, g)

    def decide(self, gold_id: int, reviewer: UserRecord, decision: str,
               expected_version: int, note: str = "") -> GoldPairRecord:
        """A reviewer accepts or sends back a gold pair (``decision``: accepted | sent_back)."""
        require_role(reviewer.role, "reviewer", "accepting or sending back a gold pair")
        if decision not in DECISIONS:
            raise ValueError(f"unknown decision {decision!r}; use 'accepted' or 'sent_back'")
        try:
            with self.sessions.writing() as s:
                g = s.get(m.GoldPair, gold_id)
                if g is None:
                    raise NotFound(f"no gold pair #{gold_id}")
                if g.version != expected_version:
                    raise _decided_meanwhile(s, g, expected_version)
                before = {"status": g.status}
                g.status, g.reviewer_id, g.review_note = decision, reviewer.id, note
                g.reviewed_at = m.utcnow()
                s.flush()
                s.add(m.StatementEdit(clip_id=g.clip_id, gold_pair_id=g.id, user_id=reviewer.id,
                                      action="review", before=before,
                                      after={"status": decision, "note": note}))
                s.flush()
                return gold_record(s, g)
        except StaleDataError:
            with self.sessions.reading() as s:
                raise _decided_meanwhile(s, s.get(m.GoldPair, gold_id),
                                         expected_version) from None

    def history(self, clip_id: int | None = None,
                gold_pair_id: int | None = None) -> list[EditRecord]:
        """Every edit and decision (of one clip, of one gold pair, or all), oldest first."""
        q = HISTORY[clip_id is not None, gold_pair_id is not None]
        with self.sessions.rows() as c:
            return [EditRecord(*row) for row in c.execute(q, {"clip": clip_id,
                                                              "gold": gold_pair_id})]


def _conflict(s: Session, clip_id: int, expected: int,
              yours: Sequence[dict[str, Any]]) -> StoreConflict:
    current = s.scalar(select(m.Clip.version).where(m.Clip.id == clip_id))
    gold = s.scalar(select(m.GoldPair).where(m.GoldPair.clip_id == clip_id)
                    .order_by(m.GoldPair.id.desc()).limit(1))
    theirs = gold_record(s, gold) if gold else None
    who = f" by {theirs.annotator} at {theirs.created_at:%H:%M:%S}" if theirs else ""
    return StoreConflict(
        f"clip #{clip_id} was saved{who} after you opened it (you had version {expected}, "
        f"it is now {current}). Nothing was overwritten: both versions are shown; "
        "reload, merge your changes and save again.",
        yours=list(yours), theirs=theirs, expected_version=expected,
        current_version=current)


def _decided_meanwhile(s: Session, g: m.GoldPair, expected: int) -> StoreConflict:
    return StoreConflict(f"gold pair #{g.id} was decided by someone else meanwhile "
                         f"(now {g.status}); reload it.", theirs=gold_record(s, g),
                         expected_version=expected, current_version=g.version)
