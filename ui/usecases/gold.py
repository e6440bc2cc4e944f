"""Gold pairs as reviewers and annotators read them: a reviewer's decision (approve or send back),
exactly one pair against the model caption it corrects, annotator agreement, and the edit history
as text. ``ui.usecases.review`` re-exports these names."""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from cinecap import taxonomy as tx
from cinecap.errors import CinecapError, InputError
from db.errors import NotFound
from db.limits import MAX_FIELD_CHARS, check_text
from ui.usecases.limits import check_id
from db.records import ClipRecord, GoldPairRecord, QueueItem, UserRecord
from db.roles import require_role
from db.store import Store
from ui.usecases.accounts import stored_user
from ui.usecases.edits import (ACTION_WORDS, SHOWN_FIELDS, brief, changed_fields,
                               describe_change, same)

__all__ = ["AGAINST", "GoldRow", "GoldView", "QueueProgress", "agreement", "decide_gold",
           "gold_pairs", "gold_view", "history", "review_progress"]


def decide_gold(store: Store, user: UserRecord, gold_id: Any, decision: str,
                expected_version: Any, note: str = "") -> GoldPairRecord:
    """A reviewer accepts or sends back an annotator's gold pair (``decision``: accepted |
    sent_back) at the version they saw. StoreConflict when someone decided it meanwhile."""
    require_role(user.role, "reviewer", "accepting or sending back a gold pair")
    if gold_id is None or expected_version is None:
        raise InputError("open a gold pair first (click it in the list of gold pairs)")
    check_text("note", note or "", MAX_FIELD_CHARS)
    reviewer = stored_user(user, store)
    gold_id, expected_version = check_id(gold_id, "gold pair"), check_id(expected_version,
                                                                          "version")
    g = store.review.get_gold_pair(gold_id)
    if g.annotator == reviewer.name and reviewer.role != "admin":
        raise InputError("a reviewer does not accept their own gold pair; ask another reviewer")
    return store.review.decide(gold_id, reviewer, decision, expected_version, note or "")


@dataclass(frozen=True)
class QueueProgress:
    """How far the team is through the clips: the queue by status and the approved clips."""

    to_annotate: int  # to review or sent back
    to_decide: int  # submitted, waiting for a reviewer
    approved: list[tuple[ClipRecord, GoldPairRecord]]  # newest gold pair accepted, oldest first

    @property
    def total(self) -> int:
        return self.to_annotate + self.to_decide + len(self.approved)


def review_progress(store: Store, user: UserRecord,
                    queue: list[QueueItem]) -> QueueProgress:
    """The counts of ``queue`` (``review.review_queue``) and the approved clips (they leave the
    queue: listed here, each with the gold pair approved)."""
    require_role(user.role, "annotator", "seeing the review queue")
    queued = {q.clip_id for q in queue}
    approved = []
    for clip in store.clips.list():
        if clip.id in queued:
            continue
        golds = store.review.gold_pairs(clip.id)
        if golds and golds[-1].status == "accepted":
            approved.append((clip, golds[-1]))
    return QueueProgress(sum(q.status in ("to review", "sent back") for q in queue),
                    sum(q.status == "submitted" for q in queue), approved)


def gold_pairs(store: Store, user: UserRecord, clip_id: int) -> list[GoldPairRecord]:
    """The clip's gold pairs, oldest first (what reviewers decide on)."""
    require_role(user.role, "annotator", "seeing the gold pairs")
    return store.review.gold_pairs(check_id(clip_id, "clip"))


@dataclass
class GoldRow:
    """One line of a gold pair as a reviewer reads it, against the model caption it corrects."""

    change: str  # kept | changed | added | removed
    statement: dict[str, Any]  # the pair's (the model's, for a removed one)
    model: dict[str, Any] | None  # the model's statement it corrects
    fields: list[str] = field(default_factory=list)  # the fields that differ from the model's
    note: str = ""


@dataclass
class GoldView:
    gold: GoldPairRecord
    rows: list[GoldRow]
    compared_with: str  # "model caption #3"
    #: The model caption judged against the gold pair's caption (judge JSON; ``failed`` with
    #: ``error`` when the judge failed), and per aspect its matched / missed / extra statements
    #: (``cinecap.judge.statement_view`` as dicts). None: no judge asked, or no model caption.
    judge: dict[str, Any] | None = None
    views: dict[str, Any] | None = None


#: What a reviewer compares a gold pair with: the version they sent back (when there is one,
#: the default: what changed since), or the model caption it corrects.
AGAINST = ("sent back", "model")


def gold_view(store: Store, user: UserRecord, gold_id: Any, judge: Any = None,
              against: str = "sent back") -> GoldView:
    """Exactly the statements of gold pair ``gold_id``, each marked against what it is compared
    with (kept, changed and which fields, added, removed), with the annotator's notes:
    ``against`` ``sent back``, the newest earlier pair of the clip a reviewer sent back (the
    model caption when there is none); ``model``, the model caption it corrects. With a
    ``judge`` (``cinecap.judge.Judge``), the model caption is also judged against the gold
    caption, so a reviewer sees per aspect which model statements the gold pair keeps (matched),
    which gold statements the model missed, and what it said that the gold pair does not."""
    require_role(user.role, "annotator", "reading a gold pair")
    if gold_id is None:
        raise InputError("pick a gold pair in the list")
    if against not in AGAINST:
        raise InputError(f"compare with {' or '.join(AGAINST)}, not {str(against)[:40]!r}")
    g = store.review.get_gold_pair(check_id(gold_id, "gold pair"))
    sent_back = None
    if against == "sent back":
        sent_back = next((p for p in reversed(store.review.gold_pairs(g.clip_id))
                          if p.id < g.id and p.status == "sent_back"), None)
    if sent_back is not None:
        view = GoldView(g, _rows(g, sent_back.statement_ids, sent_back.statements),
                        f"gold pair #{sent_back.id}, the version sent back"
                        + (f" by {sent_back.reviewer}" if sent_back.reviewer else ""))
    else:
        model_ids, model_sts = ([], [])
        if g.source_caption_id is not None:
            try:
                model_ids, model_sts = store.review.caption_statements(g.source_caption_id)
            except NotFound:
                pass
        view = GoldView(g, _rows(g, model_ids, model_sts), f"model caption #{g.source_caption_id}"
                        if g.source_caption_id else "no model caption")
    if judge is not None and g.source_caption_id is not None:
        try:
            model_caption = store.clips.get_caption(g.source_caption_id).caption
        except NotFound:
            return view
        view.judge, view.views = judged(judge, g.caption, model_caption)
    return view


def _rows(g: GoldPairRecord, base_ids: list[str], base_sts: list[dict[str, Any]]
          ) -> list[GoldRow]:
    """The pair's statements against ``base`` (the model caption or an earlier pair), matched
    by statement id, else by content (a re-captioned clip gives new ids)."""
    by_id = dict(zip(base_ids, base_sts))
    used: set[str] = set()
    rows = []
    for sid, st in zip(g.statement_ids, g.statements):
        model = by_id.get(sid)
        if model is None:
            sid_model = next((i for i, m in zip(base_ids, base_sts)
                              if i not in used and same(m, st)), None)
            model = by_id.get(sid_model) if sid_model else None
            sid = sid_model or sid
        if model is not None:
            used.add(sid)
            shown = [f for f in changed_fields(model, st) if f in SHOWN_FIELDS]
            rows.append(GoldRow("changed" if shown else "kept", st, model, shown,
                                g.notes.get(sid, "")))
        else:
            rows.append(GoldRow("added", st, None, [], g.notes.get(sid, "")))
    for sid, st in zip(base_ids, base_sts):
        if sid not in used:
            rows.append(GoldRow("removed", st, st, [], g.notes.get(sid, "")))
    return rows


def judged(judge: Any, gold: str, pred: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(judge JSON, statement views) of ``pred`` against ``gold``; a judge that raises (an
    unreachable LLM endpoint, a malformed answer) gives a failed judgement, never an error."""
    from cinecap.judge import Judgement, statement_view

    try:
        j = judge.judge(gold, pred)
    except CinecapError as e:
        j = Judgement.failure(getattr(judge, "name", "?"), getattr(judge, "version", ""), str(e),
                              tx.ASPECTS)
    data = j.to_dict()
    if data.get("failed"):
        return data, None
    return data, {a: v.to_dict() for a, v in statement_view(data).items()}


# --- reading --------------------------------------------------------------------------------------
def agreement(store: Store, user: UserRecord, clip_id: int) -> dict[str, float | None]:
    """Per-aspect agreement between annotators of one clip (their newest gold pair each).

    For each pair of annotators and each aspect: the Jaccard overlap of the judge classes they
    stated (1.0 when both said nothing about it), averaged over pairs. Empty when fewer than two
    annotators saved the clip.
    """
    require_role(user.role, "annotator", "seeing annotator agreement")
    newest: dict[str, GoldPairRecord] = {}
    for g in store.review.gold_pairs(check_id(clip_id, "clip")):
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
    """The edit history (of one clip, or all) as text to read: who, when, what was done to which
    statement, and what changed."""
    require_role(user.role, "annotator", "reading the edit history")
    rows = []
    for e in store.review.history(clip_id):
        if e.action == "review":
            after = e.after or {}
            word = {"accepted": "approved", "sent_back": "sent back"}.get(after.get("status"),
                                                                         str(after.get("status")))
            statement, change = "(the whole gold pair)", (f"note: {after['note']}"
                                                          if after.get("note") else "")
        else:
            word = ACTION_WORDS.get(e.action, e.action)
            statement = brief(e.after if e.action == "add" else e.before)
            change = {"accept": "kept as it was", "reject": "removed as wrong",
                      "delete": "removed"}.get(e.action, "")
            if e.action == "fix":
                change = describe_change(e.before, e.after)
            elif e.action == "add" and e.after:
                change = f"“{e.after.get('text', '')}”" + (
                    f"; evidence: {e.after['evidence']}" if e.after.get("evidence") else "")
        rows.append({"id": e.id, "at": e.at.strftime("%Y-%m-%d %H:%M:%S"), "user": e.user,
                     "action": word, "gold_pair": e.gold_pair_id, "statement": statement,
                     "change": change})
    return rows
