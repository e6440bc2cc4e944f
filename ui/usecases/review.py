"""Reviewing a clip: the queue, a draft of edits (accept / fix / reject / add / delete), saving it
as a gold pair with its history, re-applying edits after a conflict, reviewer decisions on gold
pairs, annotator agreement, the history.

A save that meets someone else's save raises :class:`StoreConflict` (``db.errors``; named here too,
so the page catches it without importing the store) carrying both versions.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from cinecap import taxonomy as tx
from cinecap.errors import InputError
from cinecap.statements import Statement, format_reasoning, render_caption
from db.errors import StoreConflict
from db.records import GoldPairRecord, QueueItem, ReviewSnapshot, UserRecord
from db.roles import require_role
from db.store import Store
from ui.usecases.accounts import stored_user
from ui.usecases.limits import check_id

__all__ = ["DraftItem", "ReviewDraft", "STATUSES", "StoreConflict", "agreement", "decide_gold",
           "draft_edits", "edit_draft", "gold_pairs", "history", "open_review", "rebase_review",
           "review_action", "review_queue", "save_review", "statement_from_form"]

OPEN_A_CLIP = "open a clip first"


def review_queue(store: Store, user: UserRecord) -> list[QueueItem]:
    """Clips still needing work, least certain model caption first."""
    require_role(user.role, "annotator", "seeing the review queue")
    return store.review.queue()


STATUSES = ("pending", "accepted", "fixed", "rejected", "added", "deleted")


@dataclass
class DraftItem:
    """One statement in review: what the model (or the last gold pair) said, and what it is now."""

    original: dict[str, Any] | None  # None for a statement the annotator added
    current: dict[str, Any] | None
    status: str = "pending"

    @property
    def kept(self) -> bool:
        return self.status not in ("rejected", "deleted")


@dataclass
class ReviewDraft:
    """An annotator's work on one clip, and the clip version it started from (optimistic lock)."""

    clip_id: int
    version: int
    items: list[DraftItem]
    source: str = ""
    caption_id: int | None = None
    duration: float | None = None

    def item(self, index: int) -> DraftItem:
        if not 0 <= index < len(self.items):
            raise InputError(f"there is no statement #{index + 1} (the table has "
                             f"{len(self.items)}); pick a row first")
        return self.items[index]

    def statements(self) -> list[dict[str, Any]]:
        return [it.current for it in self.items if it.kept and it.current is not None]


def open_review(store: Store, user: UserRecord,
                clip_id: int | None) -> tuple[ReviewDraft, ReviewSnapshot]:
    """A fresh draft of the clip's current statements, and the snapshot it starts from."""
    require_role(user.role, "annotator", "reviewing a clip")
    if clip_id is None:
        raise InputError("type a clip number or click one in the queue")
    snap = store.review.load(check_id(clip_id, "clip"))
    items = [DraftItem(dict(st), dict(st)) for st in snap.statements]
    return (ReviewDraft(snap.clip.id, snap.version, items, snap.source, snap.caption_id,
                        snap.clip.duration), snap)


def statement_from_form(aspect: str, value: str, t_start: Any, t_end: Any, text: str = "",
                        evidence: str = "", subject: str | None = None,
                        duration: float | None = None) -> dict[str, Any]:
    """A checked statement dict from the edit form; InputError naming what is wrong."""
    t0, t1 = _time(t_start, "start"), _time(t_end, "end")
    try:
        dynamic = tx.is_dynamic(aspect, value)
    except ValueError as e:
        raise InputError(str(e)) from None
    if t0 == t1 == 0.0:
        t0 = t1 = None  # the form's empty number fields read as 0: no interval was given
    if dynamic and (t0 is None or t1 is None or t1 <= t0):
        raise InputError(f"{aspect} '{value}' happens over time: give a start and an end (s), "
                         "the end after the start")
    if duration is not None and t1 is not None and t1 > duration + 0.05:
        raise InputError(f"the interval ends at {t1:g} s, after the clip's end ({duration:.2f} s)")
    try:
        st = Statement(aspect=aspect, value=value, text=(text or "").strip(), t_start=t0, t_end=t1,
                       evidence=(evidence or "").strip(), subject=(subject or None))
    except ValueError as e:
        raise InputError(f"this statement is not valid: {e}") from None
    return st.to_dict()


def _time(v: Any, which: str) -> float | None:
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    try:
        t = float(v)
    except (TypeError, ValueError):
        raise InputError(f"the {which} time {v!r} is not a number of seconds") from None
    if t != t or t < 0:
        raise InputError(f"the {which} time must be 0 s or later")
    return t


def review_action(draft: ReviewDraft, action: str, index: int | None = None,
                  statement: dict[str, Any] | None = None) -> ReviewDraft:
    """Apply accept / fix / reject / delete to row ``index``, or add ``statement``."""
    if action == "add":
        if statement is None:
            raise InputError("fill in the form to add a statement")
        draft.items.append(DraftItem(None, statement, "added"))
        return draft
    if index is None:
        raise InputError("select a statement in the table first")
    it = draft.item(index)
    if action == "accept":
        it.current = dict(it.original or it.current)
        it.status = "accepted" if it.original else "added"
    elif action == "fix":
        if statement is None:
            raise InputError("fill in the form with the corrected statement")
        base = it.original or it.current
        if (statement.get("text") == base.get("text")
                and (statement["aspect"], statement["value"]) != (base["aspect"], base["value"])):
            # The form still carried the old sentence: write one that says the new value.
            statement = Statement.from_dict({**statement, "text": ""}).to_dict()
        it.current = statement
        it.status = "fixed" if it.original is not None else "added"
    elif action == "reject":
        if it.original is None:
            raise InputError("only the model's statements can be rejected; delete an added one")
        it.status = "rejected"
    elif action == "delete":
        if it.original is None:
            draft.items.remove(it)
        else:
            it.status = "deleted"
    else:
        raise InputError(f"unknown review action {action!r}")
    return draft


def edit_draft(user: UserRecord, draft: ReviewDraft | None, action: str, row: Any = None,
               aspect: str = "", value: str = "", t_start: Any = None, t_end: Any = None,
               text: str = "", evidence: str = "") -> ReviewDraft:
    """The page's edit form applied to the draft: ``action`` on statement number ``row`` (from 1),
    with the form's fields for fix and add."""
    require_role(user.role, "annotator", f"the review action {action!r}")
    if draft is None:
        raise InputError(OPEN_A_CLIP)
    st = None
    if action in ("fix", "add"):
        st = statement_from_form(aspect, value, t_start, t_end, text, evidence,
                                 duration=draft.duration)
    index = None if row is None or action == "add" else check_id(row, "statement") - 1
    return review_action(draft, action, index, st)


def draft_edits(draft: ReviewDraft) -> list[dict[str, Any]]:
    """The history rows a save writes: one per statement the annotator acted on."""
    edits = []
    for it in draft.items:
        action = {"accepted": "accept", "fixed": "fix", "rejected": "reject", "added": "add",
                  "deleted": "delete"}.get(it.status)
        if action is None:
            continue
        before = it.original
        after = None if action in ("reject", "delete") else it.current
        edits.append({"action": action, "before": before, "after": after})
    return edits


def save_review(store: Store, user: UserRecord, draft: ReviewDraft | None) -> GoldPairRecord:
    """Save the draft as a gold pair with its history. StoreConflict if the clip moved on."""
    require_role(user.role, "annotator", "saving a review")
    if draft is None:
        raise InputError(OPEN_A_CLIP)
    sts = draft.statements()
    if not sts:
        raise InputError("the gold caption would be empty: keep or add at least one statement")
    objs = [Statement.from_dict(d) for d in sts]
    return store.review.save(draft.clip_id, draft.version, stored_user(user, store), sts,
                             draft_edits(draft), caption=render_caption(objs),
                             reasoning=format_reasoning(objs), source_caption_id=draft.caption_id)


def _key(st: dict[str, Any]) -> tuple:
    return (st["aspect"], st["value"], st.get("t_start"), st.get("t_end"), st.get("text"))


def rebase_review(store: Store, user: UserRecord,
                  draft: ReviewDraft | None) -> tuple[ReviewDraft, str]:
    """After a conflict: your edits re-applied on top of the version saved meanwhile.

    Each statement you accepted, fixed, rejected or deleted is found in the saved version by its
    original content and gets the same action; one the other person removed comes back as an
    addition when you had kept or fixed it; your additions are appended. Returns the new draft
    (at the current version, not saved yet) and a summary to show.
    """
    require_role(user.role, "annotator", "re-applying your edits")
    if draft is None:
        raise InputError(OPEN_A_CLIP)
    fresh, _ = open_review(store, user, draft.clip_id)
    by_key = {_key(it.original): it for it in fresh.items if it.original is not None}
    reapplied = readded = dropped = 0
    for old in draft.items:
        if old.status == "pending":
            continue
        if old.original is None:  # an addition of yours
            fresh.items.append(DraftItem(None, old.current, "added"))
            readded += 1
            continue
        target = by_key.get(_key(old.original))
        if target is not None:
            target.current, target.status = old.current, old.status
            reapplied += 1
        elif old.status in ("accepted", "fixed"):
            fresh.items.append(DraftItem(None, old.current, "added"))
            readded += 1
        else:  # you rejected or deleted what is already gone
            dropped += 1
    summary = (f"{reapplied} of your edits re-applied on version {fresh.version}, {readded} "
               f"added back, {dropped} already gone; check and save")
    return fresh, summary


def decide_gold(store: Store, user: UserRecord, gold_id: int | None, decision: str,
                expected_version: int | None, note: str = "") -> GoldPairRecord:
    """A reviewer accepts or sends back an annotator's gold pair (``decision``: accepted |
    sent_back) at the version they saw. StoreConflict when someone decided it meanwhile."""
    require_role(user.role, "reviewer", "accepting or sending back a gold pair")
    if gold_id is None or expected_version is None:
        raise InputError("type the gold pair number and its version (see the table)")
    reviewer = stored_user(user, store)
    gold_id, expected_version = check_id(gold_id, "gold pair"), check_id(expected_version,
                                                                          "version")
    g = store.review.get_gold_pair(gold_id)
    if g.annotator == reviewer.name and reviewer.role != "admin":
        raise InputError("a reviewer does not accept their own gold pair; ask another reviewer")
    return store.review.decide(gold_id, reviewer, decision, expected_version, note or "")


def gold_pairs(store: Store, user: UserRecord, clip_id: int) -> list[GoldPairRecord]:
    """The clip's gold pairs, oldest first (what reviewers decide on)."""
    require_role(user.role, "annotator", "seeing the gold pairs")
    return store.review.gold_pairs(int(clip_id))


def agreement(store: Store, user: UserRecord, clip_id: int) -> dict[str, float | None]:
    """Per-aspect agreement between annotators of one clip (their newest gold pair each).

    For each pair of annotators and each aspect: the Jaccard overlap of the judge classes they
    stated (1.0 when both said nothing about it), averaged over pairs. Empty when fewer than two
    annotators saved the clip.
    """
    require_role(user.role, "annotator", "seeing annotator agreement")
    newest: dict[str, GoldPairRecord] = {}
    for g in store.review.gold_pairs(int(clip_id)):
        newest[g.annotator] = g  # ordered by id: the last one wins
    if len(newest) < 2:
        return {}
    out: dict[str, float | None] = {}
    for aspect in tx.ASPECTS:
        scores = []
        for a, b in combinations(newest.values(), 2):
            sa, sb = _classes(a.statements, aspect), _classes(b.statements, aspect)
            scores.append(1.0 if not (sa or sb) else len(sa & sb) / len(sa | sb))
        out[aspect] = sum(scores) / len(scores)
    return out


def _classes(statements: list[dict[str, Any]], aspect: str) -> set[str]:
    out = set()
    for st in statements:
        if st["aspect"] == aspect:
            try:
                out.add(tx.get(aspect, st["value"]).judge_class)
            except ValueError:
                out.add(st["value"])
    return out


def history(store: Store, user: UserRecord, clip_id: int | None = None) -> list[dict[str, Any]]:
    """The edit history (of one clip, or all) as rows to show: who, when, what, before, after."""
    require_role(user.role, "annotator", "reading the edit history")
    return [{"id": e.id, "at": e.at.strftime("%Y-%m-%d %H:%M:%S"), "user": e.user,
             "action": e.action, "gold_pair": e.gold_pair_id, "before": _brief(e.before),
             "after": _brief(e.after)} for e in store.review.history(clip_id)]


def _brief(st: dict[str, Any] | None) -> str:
    if not st:
        return ""
    if "aspect" not in st:
        return json.dumps(st, ensure_ascii=False)
    t = (f" [{st['t_start']:.1f}–{st['t_end']:.1f}]" if st.get("t_start") is not None else "")
    return f"{st['aspect']}: {st['value']}{t}"

