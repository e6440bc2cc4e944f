"""The review edit model: a draft is the statements it started from (its base) and the actions
taken on them since. What the draft says now is the base with the actions replayed, so undo and
redo move actions between two lists, and a draft is plain JSON that the store keeps.

Every action names the statement it acts on by its id (``uid``: stable across saves and
renumbering, never a row number) and, for a fix, exactly the fields it changes. Nothing else
changes:

- ``{"op": "accept", "id"}``: the statement as it was in the base (the model's, or the last gold
  pair's); a fix of it is undone.
- ``{"op": "fix", "id", "changes"}``: only the fields in ``changes`` (statement fields and
  ``note``). A new aspect or value is a new claim: its sentence is written for the new value and
  the old value's evidence, confidence and measurements are dropped, unless the same fix sets them.
  A fix that only changes the note keeps the statement's status.
- ``{"op": "reject", "id"}``: a base statement that is wrong; ``{"op": "delete", "id"}``: removed
  (an addition disappears from the list, which renumbers the rows after it).
- ``{"op": "add", "id", "statement", "note"}``: a new statement, exactly the fields given (a
  sentence written for the value when none is given; no evidence unless given).
- ``{"op": "resolve", "id", "choice"}``: a conflict left by re-applying your edits on a version
  someone else saved (:func:`rebase`): keep ``theirs`` or ``yours``.

Invalid actions raise :class:`InputError` and leave the draft as it was. Gradio-free and
store-free: ``ui.usecases.review`` loads and stores drafts; this module only edits them.
"""
from __future__ import annotations

import copy
import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable

from cinecap import taxonomy as tx
from cinecap.errors import InputError
from cinecap.statements import Statement
from db.limits import MAX_FIELD_CHARS, MAX_STATEMENTS, check_statement, check_text

FORMAT = 1
#: The fields of a statement (``Statement.to_dict()``).
STATEMENT_KEYS = ("aspect", "value", "text", "t_start", "t_end", "evidence", "subject",
                  "confidence", "measurements")
#: What belongs to a statement's value: dropped when a fix changes the aspect or value.
VALUE_BOUND = ("text", "evidence", "confidence", "measurements")
#: Fields a person edits (the form), in the form's order.
FORM_FIELDS = ("aspect", "value", "t_start", "t_end", "text", "evidence", "note")
STATUSES = ("pending", "accepted", "fixed", "rejected", "added", "deleted")
OPS = ("accept", "fix", "reject", "delete", "add", "resolve")
CHOICES = ("theirs", "yours")
FIELD_LABELS = {"aspect": "aspect", "value": "value", "t_start": "start", "t_end": "end",
                "text": "sentence", "evidence": "evidence", "subject": "subject",
                "confidence": "confidence", "measurements": "measurements", "note": "note"}


def canonical(st: dict[str, Any] | None) -> str | None:
    """A statement's content as one comparable string (None for no statement)."""
    if st is None:
        return None
    return json.dumps({k: st.get(k) for k in STATEMENT_KEYS}, sort_keys=True, default=str)


def same(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    return canonical(a) == canonical(b)


def changed_fields(a: dict[str, Any] | None, b: dict[str, Any] | None) -> list[str]:
    """The statement fields that differ between ``a`` and ``b`` (all of them if one is None)."""
    if a is None or b is None:
        return [] if a is b else list(STATEMENT_KEYS)
    return [k for k in STATEMENT_KEYS if json.dumps(a.get(k), sort_keys=True, default=str)
            != json.dumps(b.get(k), sort_keys=True, default=str)]


def checked_statement(st: dict[str, Any], duration: float | None) -> dict[str, Any]:
    """``st`` as a valid statement dict (sentence written when empty); InputError naming what is
    wrong: an unknown value, a timed value without an interval, an interval past the clip's end,
    a field over its length limit."""
    aspect, value = st.get("aspect"), st.get("value")
    try:
        dynamic = tx.is_dynamic(aspect, value)
    except ValueError as e:
        raise InputError(str(e)) from None
    t0, t1 = st.get("t_start"), st.get("t_end")
    for t, which in ((t0, "start"), (t1, "end")):
        if t is not None and (not isinstance(t, (int, float)) or not math.isfinite(t) or t < 0):
            raise InputError(f"the {which} time must be a number of seconds, 0 or later")
    if dynamic and (t0 is None or t1 is None or t1 <= t0):
        raise InputError(f"{aspect} '{value}' happens over time: give a start and an end (s), "
                         "the end after the start")
    if (t0 is None) != (t1 is None):
        raise InputError("give both a start and an end, or neither")
    if t0 is not None and t1 < t0:
        raise InputError(f"bad interval: the end ({t1:g} s) is before the start ({t0:g} s)")
    if duration is not None and t1 is not None and t1 > duration + 0.05:
        raise InputError(f"the interval ends at {t1:g} s, after the clip's end ({duration:.2f} s)")
    check_statement(st)
    try:
        return Statement.from_dict({k: st.get(k) for k in STATEMENT_KEYS if k in st}).to_dict()
    except (TypeError, ValueError) as e:
        raise InputError(f"this statement is not valid: {e}") from None


@dataclass
class Item:
    """One statement of a draft: what the base said, what it says now, and what was done."""

    id: str
    original: dict[str, Any] | None  # None: added in this draft
    current: dict[str, Any] | None
    status: str = "pending"
    note: str = ""
    original_note: str = ""
    conflict: bool = False  # re-applying left a decision open on this statement

    @property
    def kept(self) -> bool:
        return self.status not in ("rejected", "deleted")

    @property
    def added(self) -> bool:
        return self.original is None

    @property
    def shown(self) -> dict[str, Any]:
        return self.current if self.current is not None else self.original

    @property
    def acted(self) -> bool:
        """Something of yours to keep: a status other than pending, or a note you changed."""
        return self.status != "pending" or self.note != self.original_note


@dataclass
class Conflict:
    """A statement you acted on that someone else changed (or removed) in the version saved
    meanwhile: both versions, and what each of you made of the one you both started from."""

    id: str
    original: dict[str, Any] | None
    theirs: dict[str, Any] | None  # None: they removed it
    yours: dict[str, Any] | None  # None: you rejected or deleted it
    your_action: str  # accept | fix | reject | delete | note
    original_note: str = ""
    their_note: str = ""
    your_note: str = ""

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Conflict":
        return cls(**{k: d.get(k) for k in cls.__dataclass_fields__})


@dataclass
class Draft:
    """An annotator's work on one clip: the base it started from, the actions taken since."""

    clip_id: int
    version: int  # the clip version the base was loaded at (the save's optimistic lock)
    base: list[dict[str, Any]]  # {"id", "statement", "note"}
    actions: list[dict[str, Any]] = field(default_factory=list)
    undone: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    source: str = ""
    caption_id: int | None = None
    duration: float | None = None
    summary: str = ""  # what the last re-apply did
    floor: int = 0  # actions before this index were re-applied after a conflict: undo stops there
    # Where the store keeps it (not part of the JSON): the draft row and its version.
    id: int | None = None
    row_version: int | None = None
    _state: "_State | None" = field(default=None, repr=False, compare=False)

    # --- reading -------------------------------------------------------------------------------
    def items(self) -> list[Item]:
        """The statements as they are now, in row order (base order, then additions)."""
        return self._now().items

    def _now(self) -> "_State":
        if self._state is None:
            self._state = _replay(self.base, self.actions, self.conflicts, self.duration)
        return self._state

    def statements(self) -> list[dict[str, Any]]:
        """The statements a save would store."""
        return [it.current for it in self.items() if it.kept]

    def find(self, statement_id: str | None) -> tuple[int, Item] | None:
        """(row number from 1, item) of a statement id, or None when it is not in the draft."""
        for i, it in enumerate(self.items()):
            if it.id == statement_id:
                return i + 1, it
        return None

    def at_row(self, row: Any) -> Item:
        items = self.items()
        try:
            i = int(row)
        except (TypeError, ValueError):
            raise InputError(f"{row!r} is not a statement number") from None
        if not 1 <= i <= len(items):
            raise InputError(f"there is no statement #{i} (the table has {len(items)}); "
                             "click a row")
        return items[i - 1]

    def open_conflicts(self) -> list[Conflict]:
        decided = self._now().decided
        return [c for c in self.conflicts if c.id not in decided]

    def decision(self, conflict_id: str) -> str | None:
        for a in self.actions:
            if a["op"] == "resolve" and a["id"] == conflict_id:
                return a["choice"]
        return None

    # --- changing --------------------------------------------------------------------------------
    def apply(self, action: dict[str, Any]) -> None:
        """Take one more action (the redo list is cleared). InputError leaves the draft as is."""
        self._step(action)
        self.undone = []

    def undo(self) -> dict[str, Any]:
        if len(self.actions) <= self.floor:
            raise InputError("nothing to undo" if not self.floor else
                             "nothing to undo since your edits were re-applied on the saved "
                             "version")
        action = self.actions.pop()
        self.undone.append(action)
        self._state = None
        return action

    def redo(self) -> dict[str, Any]:
        if not self.undone:
            raise InputError("nothing to redo")
        action = self.undone[-1]
        self._step(action)
        self.undone.pop()
        return action

    def _step(self, action: dict[str, Any]) -> None:
        now = self._now()
        # Actions replace an item's fields (statement dicts are never changed in place), so a
        # copy of each item is enough to leave ``now`` as it was when the action is refused.
        state = _State([copy.copy(it) for it in now.items], set(now.decided))
        _apply(state, action, {c.id: c for c in self.conflicts}, self.duration)
        self.actions.append(action)
        self._state = state

    # --- JSON ------------------------------------------------------------------------------------
    def to_data(self) -> dict[str, Any]:
        return {"format": FORMAT, "clip_id": self.clip_id, "version": self.version,
                "base": self.base, "actions": self.actions, "undone": self.undone,
                "conflicts": [asdict(c) for c in self.conflicts], "source": self.source,
                "caption_id": self.caption_id, "duration": self.duration,
                "summary": self.summary, "floor": self.floor}

    @classmethod
    def from_data(cls, data: dict[str, Any], id: int | None = None,
                  row_version: int | None = None) -> "Draft":
        if data.get("format") != FORMAT:
            raise InputError("this review draft was made by another version of the app; open "
                             "the clip again")
        return cls(data["clip_id"], data["version"], list(data["base"]),
                   list(data.get("actions", [])), list(data.get("undone", [])),
                   [Conflict.from_dict(c) for c in data.get("conflicts", [])],
                   data.get("source", ""), data.get("caption_id"), data.get("duration"),
                   data.get("summary", ""), data.get("floor", 0), id, row_version)


def base_entries(ids: Iterable[str], statements: Iterable[dict[str, Any]],
                 notes: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """A draft's base from stored statements and their ids (and the notes kept with them)."""
    notes = notes or {}
    return [{"id": i, "statement": {k: st.get(k) for k in STATEMENT_KEYS},
             "note": notes.get(i, "")} for i, st in zip(ids, statements)]


# --- replaying actions ---------------------------------------------------------------------------
@dataclass
class _State:
    items: list[Item]
    decided: set[str] = field(default_factory=set)  # conflicts decided so far


def _replay(base: list[dict[str, Any]], actions: list[dict[str, Any]],
            conflicts: list[Conflict], duration: float | None) -> _State:
    by_id = {c.id: c for c in conflicts}
    state = _State([Item(b["id"], dict(b["statement"]), dict(b["statement"]), "pending",
                         b.get("note", ""), b.get("note", ""), conflict=b["id"] in by_id)
                    for b in base])
    for action in actions:
        _apply(state, action, by_id, duration)
    return state


def _label(row: int, st: dict[str, Any] | None) -> str:
    return f"#{row} ({st['aspect']}: {st['value']})" if st else f"#{row}"


def _locate(items: list[Item], statement_id: Any) -> tuple[int, Item]:
    for i, it in enumerate(items):
        if it.id == statement_id:
            return i + 1, it
    raise InputError("that statement is no longer in this draft (saved, deleted or undone): "
                     "click a row to select one")


def _apply(state: _State, action: dict[str, Any], conflicts: dict[str, Conflict],
           duration: float | None) -> None:
    items = state.items
    op = action.get("op")
    if op not in OPS:
        raise InputError(f"unknown review action {op!r}; known: {', '.join(OPS)}")
    if op == "add":
        _add(items, action, duration)
        return
    if op == "resolve":
        _resolve(state, action, conflicts)
        return
    row, it = _locate(items, action.get("id"))
    what = _label(row, it.shown)
    if it.conflict:
        raise InputError(f"{what} has a conflict with the saved version: keep theirs or yours "
                         "first")
    if op == "accept":
        if it.added:
            raise InputError(f"{what} is your addition: it is kept already (Accept is for the "
                             "statements you started from)")
        if it.status == "accepted":
            raise InputError(f"{what} is accepted already")
        it.current, it.status = dict(it.original), "accepted"
    elif op == "reject":
        if it.added:
            raise InputError(f"{what} is your addition: delete it instead (only statements you "
                             "started from can be rejected)")
        if it.status == "rejected":
            raise InputError(f"{what} is rejected already")
        it.status = "rejected"
    elif op == "delete":
        if it.added:
            items.remove(it)
        elif it.status == "deleted":
            raise InputError(f"{what} is deleted already")
        else:
            it.status = "deleted"
    else:
        _fix(it, what, action.get("changes") or {}, duration)


def _fix(it: Item, what: str, changes: dict[str, Any], duration: float | None) -> None:
    unknown = set(changes) - set(STATEMENT_KEYS) - {"note"}
    if unknown:
        raise InputError(f"a fix cannot change {', '.join(sorted(unknown))}")
    before = it.current if it.current is not None else it.original
    new = dict(before)
    new.update({k: v for k, v in changes.items() if k in STATEMENT_KEYS})
    if (new["aspect"], new["value"]) != (before["aspect"], before["value"]):
        # A new value is a new claim: the old value's sentence and evidence do not say it.
        for k in VALUE_BOUND:
            if k not in changes:
                new[k] = {} if k == "measurements" else (None if k == "confidence" else "")
    new = checked_statement(new, duration)
    note = changes.get("note", it.note)
    check_text("note", note, MAX_FIELD_CHARS)
    content_changed = not same(new, before)
    if not content_changed and note == it.note:
        raise InputError(f"nothing to fix in {what}: change a field in the form first")
    it.current, it.note = new, note
    if it.added:
        return
    if content_changed:
        it.status = "accepted" if same(new, it.original) else "fixed"


def _add(items: list[Item], action: dict[str, Any], duration: float | None) -> None:
    sid = action.get("id")
    if not sid or any(it.id == sid for it in items):
        raise InputError("a new statement needs a new id")
    if sum(1 for it in items if it.kept) >= MAX_STATEMENTS:
        raise InputError(f"a gold pair holds at most {MAX_STATEMENTS} statements")
    st = checked_statement(dict(action.get("statement") or {}), duration)
    note = action.get("note") or ""
    check_text("note", note, MAX_FIELD_CHARS)
    items.append(Item(sid, None, st, "added", note, ""))


def _resolve(state: _State, action: dict[str, Any], conflicts: dict[str, Conflict]) -> None:
    c = conflicts.get(action.get("id"))
    choice = action.get("choice")
    if c is None:
        raise InputError("there is no such conflict to decide")
    if choice not in CHOICES:
        raise InputError(f"keep 'theirs' or 'yours', not {choice!r}")
    if c.id in state.decided:
        raise InputError("this conflict is decided already (undo to change your decision)")
    state.decided.add(c.id)
    found = next((it for it in state.items if it.id == c.id), None)
    if found is None:  # they removed it: theirs leaves it out, yours adds it back
        if choice == "yours":
            state.items.append(Item(c.id, None, dict(c.yours), "added", c.your_note, ""))
        return
    found.conflict = False
    if choice == "theirs":
        found.current, found.status = dict(found.original), "accepted"
        return
    found.note = c.your_note
    if c.yours is None:
        found.status = "rejected" if c.your_action == "reject" else "deleted"
    else:
        found.current = dict(c.yours)
        found.status = "accepted" if same(c.yours, found.original) else "fixed"


# --- re-applying your edits on a version saved meanwhile ------------------------------------------
@dataclass
class Rebased:
    """What re-applying did, statement by statement (rows are those of the new draft)."""

    reapplied: list[tuple[str, Item]] = field(default_factory=list)  # (action, your item)
    added: list[Item] = field(default_factory=list)
    agreed: list[Item] = field(default_factory=list)  # they did what you did
    conflicts: list[Conflict] = field(default_factory=list)


def _action_of(it: Item) -> str:
    return {"accepted": "accept", "fixed": "fix", "rejected": "reject",
            "deleted": "delete"}.get(it.status, "note")


def _replayed(it: Item) -> list[dict[str, Any]]:
    """Actions that make ``it`` again on a base where it is unchanged: the whole statement for a
    fix (so nothing depends on what the fix rule would derive), then the note if you changed it."""
    out: list[dict[str, Any]] = []
    if it.status == "accepted":
        out.append({"op": "accept", "id": it.id})
    elif it.status == "fixed":
        out.append({"op": "fix", "id": it.id, "changes": dict(it.current)})
    elif it.status in ("rejected", "deleted"):
        out.append({"op": "reject" if it.status == "rejected" else "delete", "id": it.id})
    if it.note != it.original_note:
        out.append({"op": "fix", "id": it.id, "changes": {"note": it.note}})
    return out


def rebase(mine: Draft, fresh: Draft) -> tuple[Draft, Rebased]:
    """Your edits (``mine``) re-applied on ``fresh``, a new draft of the version saved meanwhile.

    Statements are matched by id. One you acted on is re-applied when the saved version still has
    it exactly as you started from it (every field, evidence and note included); when they changed
    or removed it, and the result differs from yours, it becomes a :class:`Conflict` that you
    decide (keep theirs or yours): never a silent overwrite either way. Your additions are added
    again. Statements you did not touch are theirs.
    """
    if mine.open_conflicts():
        raise InputError("decide the open conflicts first (keep theirs or yours), then save")
    saved = {b["id"]: b for b in fresh.base}
    report = Rebased()
    actions: list[dict[str, Any]] = []
    for it in mine.items():
        if it.added:
            actions.append({"op": "add", "id": it.id, "statement": dict(it.current),
                            "note": it.note})
            report.added.append(it)
            continue
        if not it.acted:
            continue
        theirs = saved.get(it.id)
        if (theirs is not None and same(theirs["statement"], it.original)
                and theirs.get("note", "") == it.original_note):
            actions.extend(_replayed(it))
            report.reapplied.append((_action_of(it), it))
            continue
        yours = dict(it.current) if it.kept else None
        their_st = dict(theirs["statement"]) if theirs else None
        their_note = theirs.get("note", "") if theirs else ""
        if same(yours, their_st) and (yours is None or it.note == their_note):
            report.agreed.append(it)
            continue
        report.conflicts.append(Conflict(it.id, dict(it.original), their_st, yours,
                                         _action_of(it), it.original_note, their_note, it.note))
    fresh.conflicts = report.conflicts
    fresh._state = None
    for action in actions:
        fresh.apply(action)
    fresh.undone, fresh.floor = [], len(fresh.actions)
    return fresh, report


# --- saying what changed ----------------------------------------------------------------------------
#: The fields a person reads (the others follow from them).
SHOWN_FIELDS = ("aspect", "value", "t_start", "t_end", "text", "evidence")
#: An action as the history says it.
ACTION_WORDS = {"accept": "accepted", "fix": "fixed", "reject": "rejected", "add": "added",
                "delete": "deleted"}


def brief(st: dict[str, Any] | None) -> str:
    """A statement in a few words: ``Camera Movement: pan right [4.00–10.00]``."""
    if not st:
        return ""
    t = (f" [{st['t_start']:.2f}–{st['t_end']:.2f}]" if st.get("t_start") is not None else "")
    return f"{st['aspect']}: {st['value']}{t}"


def _show(field_name: str, v: Any) -> str:
    if field_name in ("t_start", "t_end"):
        return "none" if v is None else f"{v:.2f} s"
    if field_name in ("text", "evidence"):
        return f"“{v}”" if v else "none"
    return str(v)


def describe_change(before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
    """What a fix changed, in words: "value static → dolly in; sentence “…” → “…”; evidence
    “…” removed"."""
    if not before or not after:
        return ""
    parts = []
    for f in changed_fields(before, after):
        if f in ("confidence", "measurements", "subject"):
            continue
        old, new = before.get(f), after.get(f)
        if f == "evidence" and not new:
            parts.append(f"evidence {_show(f, old)} removed")
        elif f == "evidence" and not old:
            parts.append(f"evidence {_show(f, new)} added")
        else:
            parts.append(f"{FIELD_LABELS[f]} {_show(f, old)} → {_show(f, new)}")
    return "; ".join(parts) or "no change"
