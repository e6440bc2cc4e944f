"""Reviewing a clip: the queue, server-side drafts of edits (the edit model is
``ui.usecases.edits``), the edit form, saving a draft as a gold pair with its history,
re-applying edits after a conflict, evidence overlays. What reviewers and the history read
(decisions, a pair against its model caption, agreement, history as text) is
``ui.usecases.gold``, re-exported here.

A draft lives in the store (``store.drafts``), one per annotator and clip: the page keeps only its
id, every call loads it for the user who asks and refuses a draft of anyone else, so a page reload
resumes it and a replayed session id cannot touch it. A save that meets someone else's save raises
:class:`StoreConflict` (``db.errors``; named here too, so the page catches it without importing the
store) carrying both versions; :func:`rebase_review` then re-applies the draft's edits statement
by statement and leaves a decision wherever both of you changed the same statement.
"""
from __future__ import annotations

import functools
import math
from pathlib import Path
import secrets
from dataclasses import dataclass
from typing import Any, Callable, TypeVar

from cinecap import taxonomy as tx
from cinecap.errors import InputError
from cinecap.statements import Statement, format_reasoning, render_caption
from db.errors import NotFound, StoreConflict
from db.records import ClipRecord, GoldPairRecord, QueueItem, UserRecord
from db.roles import has_role, require_role
from db.store import Store
from ui.usecases.accounts import stored_user
from ui.usecases.limits import check_id
from ui.usecases.preview import save_images
from ui.usecases.edits import (ACTION_WORDS, FIELD_LABELS, FORM_FIELDS, SHOWN_FIELDS, Conflict,
                               Draft, Item, Rebased, base_entries, brief, changed_fields,
                               describe_change, rebase)
from ui.usecases.gold import (AGAINST, GoldRow, GoldView, QueueProgress, agreement,
                              decide_gold, gold_pairs, gold_view, history, review_progress)

__all__ = ["AGAINST", "Conflict", "Draft", "Edited", "GoldRow", "GoldView", "Item", "Opened",
           "QueueProgress", "Selection",
           "StoreConflict", "agreement", "current_draft", "decide_gold", "draft_edits",
           "edit_review", "evidence_overlays", "gold_pairs", "gold_view", "history",
           "next_clip", "open_review", "queue_position", "read_form", "rebase_review",
           "redo_review", "resolve_conflict", "resume_review", "retime_statement",
           "review_progress", "review_queue", "save_review",
           "select_statement", "undo_review", "value_choices"]

OPEN_A_CLIP = "open a clip first (type its number or click it in the queue)"
F = TypeVar("F", bound=Callable[..., Any])
#: Queue statuses that are work, per kind of work.
ANNOTATE = ("to review", "sent back")
DECIDE = ("submitted",)


def one_transaction(fn: F) -> F:
    """The use case as one store transaction: what it reads (the draft, locked until it is
    written back; the clip) and what it writes, with one session and one commit, so two windows
    or two annotators acting at once are applied one after the other. A refused action (an
    error) writes nothing. The store calls inside it join it (``db.sessions``). Every review
    action needs the annotator role: a caller without it is refused by the use case's own check
    before any transaction opens (a viewer's refused click takes no write lock)."""
    @functools.wraps(fn)
    def run(store: Store, user: UserRecord, *args: Any, **kwargs: Any) -> Any:
        if not has_role(getattr(user, "role", None), "annotator"):
            return fn(store, user, *args, **kwargs)  # raises PermissionDenied, its own words
        with store.sessions.writing():
            return fn(store, user, *args, **kwargs)
    return run  # type: ignore[return-value]


# --- the queue -----------------------------------------------------------------------------------
def review_queue(store: Store, user: UserRecord, order: str = "certainty") -> list[QueueItem]:
    """Clips still needing work: least certain model caption first, or (``disagreement``) the
    model captions the pixels contradict most first."""
    require_role(user.role, "annotator", "seeing the review queue")
    return store.review.queue(order=order)


def queue_position(queue: list[QueueItem], clip_id: int) -> tuple[int, int] | None:
    """(k, N): the clip is the k-th of the N clips of ``queue``; None when it is not in it."""
    for i, q in enumerate(queue):
        if q.clip_id == clip_id:
            return i + 1, len(queue)
    return None


def next_clip(queue: list[QueueItem], after: int | None,
              statuses: tuple[str, ...] = ANNOTATE) -> int | None:
    """The next clip of ``queue`` after ``after`` (wrapping round) whose status is work of this
    kind (``ANNOTATE`` or ``DECIDE``); None when there is none."""
    start = next((i + 1 for i, q in enumerate(queue) if q.clip_id == after), 0)
    for q in queue[start:] + queue[:start]:
        if q.clip_id != after and q.status in statuses:
            return q.clip_id
    return None


# --- opening and resuming ------------------------------------------------------------------------
@dataclass
class Opened:
    """A clip opened for review: the draft, the clip, its newest gold pair (a sent-back note),
    and whether an unsaved draft of yours was resumed."""

    draft: Draft
    clip: ClipRecord
    gold: GoldPairRecord | None
    resumed: bool
    stale: bool = False  # the resumed draft started from an older version of the clip


def _writer(store: Store, user: UserRecord) -> UserRecord:
    return stored_user(user, store)


def _fresh(store: Store, clip_id: int) -> tuple[Draft, Any]:
    snap = store.review.load(int(clip_id))
    draft = Draft(snap.clip.id, snap.version,
                  base_entries(snap.statement_ids, snap.statements, snap.notes),
                  source=snap.source, caption_id=snap.caption_id, duration=snap.clip.duration)
    return draft, snap


def _store_new(store: Store, writer: UserRecord, draft: Draft) -> Draft:
    rec = store.drafts.put(writer.id, draft.clip_id, draft.version, draft.to_data())
    draft.id, draft.row_version = rec.id, rec.version
    return draft


@one_transaction
def open_review(store: Store, user: UserRecord, clip_id: Any) -> Opened:
    """Open a clip: your unsaved draft of it when you have one with edits, else a fresh draft of
    its current statements (the newest gold pair's, else the newest model caption's)."""
    require_role(user.role, "annotator", "reviewing a clip")
    if clip_id is None or (isinstance(clip_id, str) and not clip_id.strip()):
        raise InputError("type a clip number or click one in the queue")
    cid = check_id(clip_id, "clip")
    writer = _writer(store, user)
    fresh, snap = _fresh(store, cid)
    rec = store.drafts.find(writer.id, cid)
    resumed = False
    if rec is not None:
        old = Draft.from_data(rec.data, rec.id, rec.version)
        if old.actions or old.conflicts or (old.undone and old.version == snap.version):
            draft, resumed = old, True
            _store(store, user, draft)  # now the most recent draft (what a reload resumes)
    if not resumed:
        draft = _store_new(store, writer, fresh)
    return Opened(draft, snap.clip, snap.gold, resumed,
                  stale=resumed and draft.version != snap.version)


def resume_review(store: Store, user: UserRecord) -> Opened | None:
    """After a page reload: the clip of your most recently changed draft, reopened."""
    if not has_role(user.role, "annotator"):
        return None
    for rec in store.drafts.list(_writer(store, user).id):
        try:
            return open_review(store, user, rec.clip_id)
        except NotFound:  # the clip is gone
            continue
    return None



def current_draft(store: Store, user: UserRecord, draft_id: Any) -> Draft:
    """The draft ``draft_id`` if it is this user's: PermissionDenied for anyone else's."""
    require_role(user.role, "annotator", "editing a review")
    if draft_id is None:
        raise InputError(OPEN_A_CLIP)
    rec = store.drafts.get(check_id(draft_id, "draft"), _writer(store, user).id)
    return Draft.from_data(rec.data, rec.id, rec.version)


def _store(store: Store, user: UserRecord, draft: Draft) -> Draft:
    rec = store.drafts.update(draft.id, _writer(store, user).id, draft.to_data(), draft.version,
                              draft.row_version)
    draft.row_version = rec.version
    return draft


# --- the form --------------------------------------------------------------------------------------
def value_choices(aspect: str) -> list[tuple[str, str]]:
    """(label, value) for the value menu: the canonical value with the words people type for it
    ("dolly in — push in, pushes in, dollies in…"), so typing a synonym finds it.

    The menu filters by substring and keeps its order, so a value whose label contains another
    value's name comes after it: typing "close-up" or "wide" finds close-up and wide shot first,
    not extreme close-up or medium full shot ("medium wide shot")."""
    try:
        values = tx.values_for(aspect)
    except ValueError:
        return []
    labelled = []
    for v in values:
        syn = [s for s in v.synonyms if s.lower() != v.canonical.lower()][:5]
        labelled.append((f"{v.canonical} — {', '.join(syn)}" if syn else v.canonical, v.canonical))
    names = [v.canonical.lower() for v in values]

    def contains_others(item: tuple[str, str]) -> int:
        label = item[0].lower()
        return sum(1 for n in names if n != item[1].lower() and n in label)

    return sorted(labelled, key=contains_others)


def _time(v: Any, which: str) -> float | None:
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    try:
        t = float(v)
    except (TypeError, ValueError):
        raise InputError(f"the {which} time {str(v)[:40]!r} is not a number of seconds") from None
    if not math.isfinite(t) or t < 0:
        raise InputError(f"the {which} time must be 0 s or later")
    return t


def read_form(form: dict[str, Any]) -> dict[str, Any]:
    """The edit form as statement fields: the value found among the aspect's values and their
    synonyms ("push in" → dolly in), times in seconds (both 0 or both empty: no interval), text
    stripped. InputError naming an unknown aspect or value or a bad time."""
    aspect = form.get("aspect") or ""
    try:
        tx.check_aspect(aspect)
    except ValueError as e:
        raise InputError(str(e)) from None
    raw = str(form.get("value") or "").strip()
    if not raw:
        raise InputError(f"choose a {aspect} value")
    found = tx.normalize(aspect, raw)
    if found is None:
        known = ", ".join(v.canonical for v in tx.values_for(aspect))
        raise InputError(f"unknown {aspect} value {raw[:60]!r}; known: {known}")
    t0, t1 = _time(form.get("t_start"), "start"), _time(form.get("t_end"), "end")
    if t0 == 0.0 and t1 in (None, 0.0) or (t0 is None and t1 == 0.0):
        t0 = t1 = None  # untouched number fields read as 0: no interval was given
    return {"aspect": aspect, "value": found.canonical, "t_start": t0, "t_end": t1,
            "text": str(form.get("text") or "").strip(),
            "evidence": str(form.get("evidence") or "").strip(),
            "note": str(form.get("note") or "").strip()}


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and abs(float(a) - float(b)) < 1e-9
    return (a or "") == (b or "") if isinstance(a, (str, type(None))) else a == b


def form_values(it: Item | None) -> dict[str, Any]:
    """What the form shows for a statement (empty for none)."""
    if it is None:
        return {"aspect": tx.CAMERA_MOVEMENT, "value": None, "t_start": None, "t_end": None,
                "text": "", "evidence": "", "note": ""}
    st = it.shown
    return {"aspect": st["aspect"], "value": st["value"], "t_start": st.get("t_start"),
            "t_end": st.get("t_end"), "text": st.get("text") or "",
            "evidence": st.get("evidence") or "", "note": it.note}


def _touched(form: dict[str, Any], loaded: dict[str, Any] | None) -> dict[str, Any]:
    """The fields of ``form`` (read) that differ from ``loaded`` (what the form was filled with);
    all of them when nothing was loaded. The interval counts as one field."""
    if loaded is None:
        return dict(form)
    out = {k: form[k] for k in ("aspect", "value", "text", "evidence", "note")
           if not _equal(form[k], loaded[k])}
    if not (_equal(form["t_start"], loaded["t_start"]) and _equal(form["t_end"], loaded["t_end"])):
        out["t_start"], out["t_end"] = form["t_start"], form["t_end"]
    return out


# --- selecting and editing -----------------------------------------------------------------------
@dataclass
class Selection:
    draft: Draft
    item: Item | None
    row: int | None
    form: dict[str, Any]


def select_statement(store: Store, user: UserRecord, draft_id: Any, row: Any) -> Selection:
    """Statement number ``row`` (from 1) of the draft and what the form shows for it: all of its
    fields, from the draft as stored now."""
    draft = current_draft(store, user, draft_id)
    it = draft.at_row(row)
    return Selection(draft, it, draft.find(it.id)[0], form_values(it))


def reselect(draft: Draft, statement_id: str | None) -> Selection:
    """The selection after the draft changed: the same statement (by id) wherever its row is now,
    or nothing when it is gone."""
    found = draft.find(statement_id) if statement_id else None
    if found is None:
        return Selection(draft, None, None, form_values(None))
    return Selection(draft, found[1], found[0], form_values(found[1]))


@dataclass
class Edited:
    """A draft after an action: the statement to show in the form (by id) and what happened."""

    draft: Draft
    selected: str | None
    message: str


def _label(row: int | None, st: dict[str, Any] | None) -> str:
    return f"#{row} ({brief(st)})" if row else brief(st)


@one_transaction
def edit_review(store: Store, user: UserRecord, draft_id: Any, action: str,
                statement_id: str | None = None, form: dict[str, Any] | None = None,
                loaded: dict[str, Any] | None = None) -> Edited:
    """One action on the draft, stored at once.

    ``accept``/``reject``/``delete``/``fix`` act on ``statement_id`` (the selected statement).
    ``form`` is the edit form as sent and ``loaded`` what it was filled with (the page keeps it
    beside the form); the fields that differ are the ones the person touched. ``fix`` changes only
    those on the statement as it is now (without ``loaded``: the fields that differ from it);
    ``add`` makes a new statement from the form's aspect and value and only the touched fields, so
    nothing of the statement the form was showing is carried over: its sentence is written for the
    value and it has no evidence unless typed.
    """
    require_role(user.role, "annotator", f"the review action {action!r}")
    return _edit(store, user, current_draft(store, user, draft_id), action, statement_id, form,
                 loaded)


def _edit(store: Store, user: UserRecord, draft: Draft, action: str, statement_id: str | None,
          form: dict[str, Any] | None, loaded: dict[str, Any] | None) -> Edited:
    if action == "add":
        return _add(store, user, draft, form, loaded)
    if action not in ("accept", "fix", "reject", "delete"):
        raise InputError(f"unknown review action {action!r}")
    found = draft.find(statement_id) if statement_id else None
    if found is None:
        raise InputError("select a statement first (click its row, or press its number)"
                         if not statement_id else
                         "the selected statement is no longer in this draft (saved, deleted or "
                         "undone): click a row")
    row, it = found
    before = dict(it.shown)
    if action == "fix":
        if form is None:
            raise InputError("fill in the form with the corrected statement")
        changes = _touched(read_form(form), _read_loaded(loaded) or read_loaded(it))
        if not changes:
            raise InputError(f"nothing to fix in {_label(row, before)}: change a field in the "
                             "form first")
        draft.apply({"op": "fix", "id": it.id, "changes": changes})
    else:
        draft.apply({"op": action, "id": it.id})
    _store(store, user, draft)
    after = draft.find(it.id)
    if action == "fix":
        message = f"fixed {_label(row, before)}: {describe_change(before, after[1].current)}"
        if "note" in changes:
            message += "; note " + ("removed" if not changes["note"] else "set")
    elif action == "delete" and after is None:
        message = f"deleted your addition {_label(row, before)}; the rows after it moved up"
    else:
        message = f"{ACTION_WORDS[action]} {_label(row, before)}"
    return Edited(draft, it.id if after else None, message + "; save to keep it")


@one_transaction
def retime_statement(store: Store, user: UserRecord, draft_id: Any, statement_id: Any,
                     t_start: Any, t_end: Any) -> Edited:
    """A timeline bar dragged: the statement's interval becomes ``t_start``–``t_end`` (to the
    hundredth of a second, inside the clip), one ``fix`` of the interval alone, undone by Undo."""
    draft = current_draft(store, user, draft_id)
    found = draft.find(str(statement_id)) if statement_id else None
    if found is None:
        raise InputError("that bar's statement is no longer in this draft: click a row")
    t0, t1 = _time(t_start, "start"), _time(t_end, "end")
    if t0 is None or t1 is None:
        raise InputError("a dragged bar needs a start and an end")
    if draft.duration:
        t0, t1 = min(t0, draft.duration), min(t1, draft.duration)
    t0, t1 = round(t0, 2), round(t1, 2)
    if not t1 > t0:
        raise InputError(f"the interval {t0:.2f}–{t1:.2f} s is empty: drag the end after the "
                         f"start")
    it = found[1]
    loaded = form_values(it)
    return _edit(store, user, draft, "fix", it.id, {**loaded, "t_start": t0, "t_end": t1},
                 loaded)


def _add(store: Store, user: UserRecord, draft: Draft, form: dict[str, Any] | None,
         loaded: dict[str, Any] | None) -> Edited:
    if form is None:
        raise InputError("fill in the form to add a statement")
    read = read_form(form)
    touched = _touched(read, _read_loaded(loaded))
    st = {"aspect": read["aspect"], "value": read["value"],
          "t_start": touched.get("t_start"), "t_end": touched.get("t_end"),
          "text": touched.get("text", ""), "evidence": touched.get("evidence", "")}
    new_id = "s" + secrets.token_hex(8)
    try:
        draft.apply({"op": "add", "id": new_id, "statement": st, "note": touched.get("note", "")})
    except InputError as e:
        if "t_start" not in touched and read["t_start"] is not None:
            raise InputError(f"{e.message} (Add takes only the fields you typed, not those of "
                             "the statement the form was showing)") from None
        raise
    row, it = draft.find(new_id)
    _store(store, user, draft)
    extra = "" if it.current.get("evidence") else "; no evidence"
    return Edited(draft, new_id, f"added {_label(row, it.current)}: “{it.current['text']}”"
                                 f"{extra}; save to keep it")


def _read_loaded(loaded: dict[str, Any] | None) -> dict[str, Any] | None:
    """What the form was filled with, read like a typed form; None when unknown or empty."""
    if not loaded or not loaded.get("value"):
        return None if not loaded else {**{k: None for k in FORM_FIELDS},
                                        **{k: loaded.get(k) for k in FORM_FIELDS},
                                        "text": (loaded.get("text") or "").strip(),
                                        "evidence": (loaded.get("evidence") or "").strip(),
                                        "note": (loaded.get("note") or "").strip()}
    return read_form(loaded)


def read_loaded(it: Item) -> dict[str, Any]:
    """The form as :func:`form_values` fills it for ``it``, read back like a typed form (so an
    untouched field compares equal)."""
    return read_form(form_values(it))


def _describe_action(action: dict[str, Any], draft: Draft) -> str:
    op = action["op"]
    if op == "add":
        return f"the addition of {brief(action['statement'])}"
    if op == "resolve":
        return f"keeping {action['choice']} on a conflict"
    found = draft.find(action["id"])
    what = _label(*found[:1], found[1].shown) if found else "a statement"
    return f"the {op} of {what}" if op != "fix" else f"the fix of {what}"


@one_transaction
def undo_review(store: Store, user: UserRecord, draft_id: Any,
                selected: str | None = None) -> Edited:
    """Take back the draft's last action (stored at once; redo brings it back)."""
    draft = current_draft(store, user, draft_id)
    action = draft.undo()
    _store(store, user, draft)
    return Edited(draft, selected if selected and draft.find(selected) else None,
                  f"undid {_describe_action(action, draft)}")


@one_transaction
def redo_review(store: Store, user: UserRecord, draft_id: Any,
                selected: str | None = None) -> Edited:
    draft = current_draft(store, user, draft_id)
    action = draft.redo()
    _store(store, user, draft)
    return Edited(draft, selected if selected and draft.find(selected) else None,
                  f"redid {_describe_action(action, draft)}")


@one_transaction
def resolve_conflict(store: Store, user: UserRecord, draft_id: Any, which: Any,
                     choice: str) -> Edited:
    """Decide an open conflict (``which``: its number in the conflict list from 1, or ``"all"``):
    keep ``theirs`` (the saved version) or ``yours``."""
    draft = current_draft(store, user, draft_id)
    open_ = draft.open_conflicts()
    if not open_:
        raise InputError("there is no open conflict to decide")
    if which == "all":
        chosen = open_
    else:
        try:
            k = int(which)
        except (TypeError, ValueError):
            raise InputError("pick a conflict by its number in the list") from None
        if not 1 <= k <= len(draft.conflicts):
            raise InputError(f"there is no conflict #{k} (the list has "
                             f"{len(draft.conflicts)})")
        chosen = [draft.conflicts[k - 1]]
    for c in chosen:
        draft.apply({"op": "resolve", "id": c.id, "choice": choice})
    _store(store, user, draft)
    left = len(draft.open_conflicts())
    return Edited(draft, None, f"kept {choice} on {len(chosen)} statement(s); "
                               + (f"{left} still need your decision" if left else
                                  "all decided: check and save"))


# --- saving ---------------------------------------------------------------------------------------
def draft_edits(draft: Draft) -> list[dict[str, Any]]:
    """The history rows a save writes: one per statement the annotator acted on."""
    edits = []
    for it in draft.items():
        action = {"accepted": "accept", "fixed": "fix", "rejected": "reject", "added": "add",
                  "deleted": "delete"}.get(it.status)
        if action is None:
            continue
        after = None if action in ("reject", "delete") else it.current
        edits.append({"action": action, "before": it.original, "after": after})
    return edits


@one_transaction
def save_review(store: Store, user: UserRecord, draft_id: Any) -> GoldPairRecord:
    """Save your draft as a gold pair with its history, and discard the draft.

    PermissionDenied when the draft is someone else's; InputError while a conflict waits for your
    decision; StoreConflict (nothing written) when the clip was saved since the draft's version.
    """
    require_role(user.role, "annotator", "saving a review")
    draft = current_draft(store, user, draft_id)
    open_ = draft.open_conflicts()
    if open_:
        raise InputError(f"{len(open_)} statement(s) need your decision first (keep theirs or "
                         "yours, in the conflict list), then save")
    kept = [it for it in draft.items() if it.kept]
    if not kept:
        raise InputError("the gold caption would be empty: keep or add at least one statement")
    objs = [Statement.from_dict(it.current) for it in kept]
    notes = {it.id: it.note for it in draft.items() if it.note}
    try:
        return store.review.save(draft.clip_id, draft.version, _writer(store, user),
                                 [it.current for it in kept], draft_edits(draft),
                                 caption=render_caption(objs, order="time"),
                                 reasoning=format_reasoning(objs),
                                 source_caption_id=draft.caption_id,
                                 statement_ids=[it.id for it in kept], notes=notes,
                                 discard_draft=draft.id)
    except StoreConflict as e:
        theirs = e.theirs
        who = f" by {theirs.annotator} at {theirs.created_at:%H:%M:%S}" if theirs else ""
        raise StoreConflict(
            f"clip #{draft.clip_id} was saved{who} after you opened it (you had version "
            f"{draft.version}, it is now {e.current_version}). Nothing was overwritten and your "
            "draft is kept: compare both versions below, then re-apply your edits on the saved "
            "version.", yours=e.yours, theirs=theirs, expected_version=e.expected_version,
            current_version=e.current_version) from None


@one_transaction
def rebase_review(store: Store, user: UserRecord, draft_id: Any) -> Edited:
    """After a conflict: your edits re-applied on the version saved meanwhile (stored as your
    draft, not saved). The message names what was re-applied and what needs your decision."""
    require_role(user.role, "annotator", "re-applying your edits")
    mine = current_draft(store, user, draft_id)
    fresh, snap = _fresh(store, mine.clip_id)
    if fresh.version == mine.version:
        raise InputError("nobody saved this clip since you opened it: just save")
    merged, report = rebase(mine, fresh)
    merged.id, merged.row_version = mine.id, mine.row_version
    merged.summary = rebase_summary(merged, report, snap.source)
    _store(store, user, merged)
    return Edited(merged, None, merged.summary)


def rebase_summary(draft: Draft, report: Rebased, source: str) -> str:
    def rows(items) -> str:
        out = []
        for it in items:
            found = draft.find(it.id)
            out.append(_label(found[0] if found else None, it.shown))
        return ", ".join(out)

    parts = [f"re-applied on version {draft.version} ({source})"]
    if report.reapplied:
        parts.append(f"{len(report.reapplied)} of your edits re-applied: " + ", ".join(
            f"{a} {_label(draft.find(it.id)[0] if draft.find(it.id) else None, it.shown)}"
            for a, it in report.reapplied))
    if report.added:
        parts.append(f"{len(report.added)} addition(s) added again: {rows(report.added)}")
    if report.agreed:
        parts.append(f"{len(report.agreed)} already as you had them: {rows(report.agreed)}")
    if report.conflicts:
        parts.append(f"{len(report.conflicts)} need your decision, changed by both of you: "
                     + "; ".join(f"{brief(c.original)} (they: {_their_change(c)}; you: "
                                 f"{_your_change(c)})" for c in report.conflicts))
    else:
        parts.append("nothing needs a decision")
    return ". ".join(parts) + ". Check and save."


def _their_change(c: Conflict) -> str:
    if c.theirs is None:
        return "removed it"
    fields = [FIELD_LABELS[f] for f in changed_fields(c.original, c.theirs)
              if f in SHOWN_FIELDS]
    if c.their_note != c.original_note:
        fields.append("note")
    return "changed " + ", ".join(fields)


def _your_change(c: Conflict) -> str:
    if c.yours is None:
        return "rejected it" if c.your_action == "reject" else "deleted it"
    if c.your_action == "accept":
        return "accepted it as it was"
    fields = [FIELD_LABELS[f] for f in changed_fields(c.original, c.yours)
              if f in SHOWN_FIELDS]
    if c.your_note != c.original_note:
        fields.append("note")
    return "changed " + ", ".join(fields)


def evidence_overlays(store: Store, user: UserRecord, clip_id: Any, max_images: int = 24,
                      directory: str | Path | None = None) -> list[tuple[Any, str]]:
    """The anchors' evidence overlays of a stored clip (per shot: tracked background vectors,
    subject boxes, sharpness, horizon), from a fresh analysis of the clip (a few seconds): (RGB
    image, title), or with ``directory`` (a page folder) (image file, title)."""
    require_role(user.role, "annotator", "drawing evidence overlays")
    clip = store.clips.get(check_id(clip_id, "clip"))
    from cinecap.captioners.anchors import evidence_overlays as draw

    shown = [(img, title) for title, img in draw(clip.path)[:max_images]]
    return shown if directory is None else save_images(shown, directory)
