"""The review edit model against a reference model of the intended edits, on a real SQLite store.

Thousands of seeded random action sequences run through the real use cases
(``ui.usecases.review``: select, fix any field, add, delete, reject, accept, undo, redo, page
reload, save; and a second annotator saving first: conflict, re-apply, decide each conflict). A
small reference model written from the rules in docs/app.md, not from the code (plain lists of
statements, snapshots for undo, identities for conflicts), predicts after every action what the
draft holds and which actions must be refused; after every save the stored gold pair (statements,
ids, notes) and its history rows must equal the reference's.

``CINECAP_RANDOM_SEQUENCES`` raises the number of sequences (default 2000); ``CINECAP_RANDOM_SEED``
replays another seed. A failure prints the seed and the sequence number.
"""
from __future__ import annotations

import copy
import os
import random
from pathlib import Path

import pytest

from cinecap import taxonomy as tx
from cinecap.errors import InputError
from cinecap.statements import Statement
from db import PermissionDenied, StoreConflict
from ui.usecases import review

DURATION = 10.0
SEQUENCES = int(os.environ.get("CINECAP_RANDOM_SEQUENCES", "2000"))
SEED = int(os.environ.get("CINECAP_RANDOM_SEED", "20261130"))
KEYS = ("aspect", "value", "text", "t_start", "t_end", "evidence", "subject", "confidence",
        "measurements")
WORDS = ("trees", "slide", "left", "the", "rider", "sharp", "horizon", "tilted", "blur", "cars",
         "points", "still", "face", "frame", "<b>bold</b>", "“quoted”")


# --- the reference model -------------------------------------------------------------------------
def stmt(d: dict) -> dict:
    """A statement dict as the library writes it (sentence filled in for an empty text)."""
    return Statement.from_dict({k: d[k] for k in KEYS if k in d}).to_dict()


def valid(st: dict) -> bool:
    """The rules of a valid statement (docs/app.md): a known value; timed values need an
    interval with the end after the start; an interval inside the clip; fields within limits."""
    if tx.normalize(st["aspect"], st["value"]) is None:
        return False
    t0, t1 = st.get("t_start"), st.get("t_end")
    if (t0 is None) != (t1 is None):
        return False
    if tx.get(st["aspect"], st["value"]).dynamic and (t0 is None or t1 <= t0):
        return False
    if t0 is not None and (t1 < t0 or t0 < 0 or t1 > DURATION + 0.05):
        return False
    return len(st.get("text") or "") <= 2000 and len(st.get("evidence") or "") <= 2000


class Ref:
    """What a draft should hold: items {id, original, current, status, note, base_note,
    conflict}, in row order; undo and redo as whole snapshots."""

    def __init__(self, base: list[tuple[str, dict, str]]):
        self.items = [{"id": i, "original": st, "current": st, "status": "pending", "note": n,
                       "base_note": n, "conflict": False} for i, st, n in base]
        self.conflicts: dict[str, dict] = {}
        self.decided: set[str] = set()
        self.past: list = []
        self.future: list = []

    def _state(self):
        # Changes replace values in an item (never change a statement dict in place).
        return [dict(it) for it in self.items], set(self.decided)

    def _do(self, change) -> bool:
        before = self._state()
        if change() is False:
            self.items, self.decided = before
            return False
        self.past.append(before)
        self.future = []
        return True

    def undo(self) -> bool:
        if not self.past:
            return False
        self.future.append(self._state())
        self.items, self.decided = self.past.pop()
        return True

    def redo(self) -> bool:
        if not self.future:
            return False
        self.past.append(self._state())
        self.items, self.decided = self.future.pop()
        return True

    def get(self, sid):
        return next(it for it in self.items if it["id"] == sid)

    def accept(self, sid) -> bool:
        def change():
            it = self.get(sid)
            if it["conflict"] or it["original"] is None or it["status"] == "accepted":
                return False
            it["current"], it["status"] = it["original"], "accepted"
        return self._do(change)

    def reject(self, sid) -> bool:
        def change():
            it = self.get(sid)
            if it["conflict"] or it["original"] is None or it["status"] == "rejected":
                return False
            it["status"] = "rejected"
        return self._do(change)

    def delete(self, sid) -> bool:
        def change():
            it = self.get(sid)
            if it["conflict"] or it["status"] == "deleted":
                return False
            if it["original"] is None:
                self.items.remove(it)
            else:
                it["status"] = "deleted"
        return self._do(change)

    def fix(self, sid, touched: dict) -> bool:
        def change():
            it = self.get(sid)
            if it["conflict"] or not touched:
                return False
            cur = it["current"]
            new = {**cur, **{k: v for k, v in touched.items() if k != "note"}}
            if (new["aspect"], new["value"]) != (cur["aspect"], cur["value"]):
                new.update({k: v for k, v in (("text", ""), ("evidence", ""),
                                              ("confidence", None), ("measurements", {}))
                            if k not in touched})
            if not valid(new):
                return False
            new = stmt(new)
            note = touched.get("note", it["note"])
            if len(note) > 2000 or (new == cur and note == it["note"]):
                return False
            it["current"], it["note"] = new, note
            if it["original"] is not None and new != cur:
                it["status"] = "accepted" if new == it["original"] else "fixed"
        return self._do(change)

    def add(self, sid, st: dict, note: str) -> bool:
        def change():
            if not valid(st) or len(note) > 2000 or len(self.kept()) >= 100:
                return False
            self.items.append({"id": sid, "original": None, "current": stmt(st),
                               "status": "added", "note": note, "base_note": "",
                               "conflict": False})
        return self._do(change)

    def resolve(self, cid, choice) -> bool:
        def change():
            if cid in self.decided:
                return False
            self.decided.add(cid)
            c = self.conflicts[cid]
            it = next((x for x in self.items if x["id"] == cid), None)
            if it is None:
                if choice == "yours":
                    self.items.append({"id": cid, "original": None, "current": c["yours"],
                                       "status": "added", "note": c["note"], "base_note": "",
                                       "conflict": False})
                return
            it["conflict"] = False
            if choice == "theirs":
                it["current"], it["status"] = it["original"], "accepted"
            elif c["yours"] is None:
                it["note"], it["status"] = c["note"], c["status"]
            else:
                it["note"], it["current"] = c["note"], c["yours"]
                it["status"] = "accepted" if c["yours"] == it["original"] else "fixed"
        return self._do(change)

    def kept(self):
        return [it for it in self.items if it["status"] not in ("rejected", "deleted")]

    def edits(self):
        word = {"accepted": "accept", "fixed": "fix", "rejected": "reject", "added": "add",
                "deleted": "delete"}
        return [(word[it["status"]], it["original"],
                 None if it["status"] in ("rejected", "deleted") else it["current"])
                for it in self.items if it["status"] in word]

    def rebased(self, saved: list[tuple[str, dict, str]]) -> "Ref":
        """Your edits on the version someone else saved: statements you acted on that they left
        as you found them get your result; ones both of you changed differently are conflicts;
        your additions come after theirs."""
        new = Ref(saved)
        theirs = {i: (st, n) for i, st, n in saved}
        for it in self.items:
            if it["original"] is None:
                new.items.append({**copy.deepcopy(it), "base_note": ""})
                continue
            acted = it["status"] != "pending" or it["note"] != it["base_note"]
            if not acted:
                continue
            t = theirs.get(it["id"])
            if t is not None and t == (it["original"], it["base_note"]):
                mine = new.get(it["id"])
                mine["status"], mine["note"] = it["status"], it["note"]
                if it["status"] in ("accepted", "fixed"):
                    mine["current"] = it["current"]
                continue
            kept = it["status"] not in ("rejected", "deleted")
            yours = it["current"] if kept else None
            if yours == (t[0] if t else None) and (yours is None or it["note"] == t[1]):
                continue
            new.conflicts[it["id"]] = {"yours": yours, "note": it["note"],
                                       "status": it["status"]}
            if t is not None:
                new.get(it["id"])["conflict"] = True
        return new


# --- driving the use cases -----------------------------------------------------------------------
def impl_items(draft) -> list[dict]:
    return [{"id": it.id, "original": it.original, "current": it.current, "status": it.status,
             "note": it.note, "conflict": it.conflict} for it in draft.items()]


def ref_items(ref: Ref) -> list[dict]:
    return [{k: it[k] for k in ("id", "original", "current", "status", "note", "conflict")}
            for it in ref.items]


def same_items(draft, ref: Ref) -> None:
    """The draft holds what the reference says, item by item (a readable message if not)."""
    got, want = impl_items(draft), ref_items(ref)
    assert [g["id"] for g in got] == [w["id"] for w in want], "rows differ"
    for row, (g, w) in enumerate(zip(got, want), 1):
        for k in w:
            if k in ("original", "current") and g[k] and w[k]:
                bad = {f: (g[k].get(f), w[k].get(f)) for f in KEYS if g[k].get(f) != w[k].get(f)}
                assert not bad, f"row {row} {k}: (draft, reference) {bad}"
            assert g[k] == w[k], f"row {row} {k}: draft {g[k]!r}, reference {w[k]!r}"


def random_text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))


def random_interval(rng: random.Random) -> tuple[float | None, float | None]:
    t0 = round(rng.uniform(0, DURATION - 1), 2)
    return t0, round(rng.uniform(t0 + 0.1, DURATION), 2)


def random_form(rng: random.Random, loaded: dict, bad: bool) -> dict:
    """The form as a person leaves it: some fields of ``loaded`` changed (the value sometimes as a
    synonym people type), sometimes something invalid."""
    form = dict(loaded)
    fields = rng.sample(["value", "interval", "text", "evidence", "note", "aspect"],
                        rng.randint(1, 3))
    for f in fields:
        if f == "aspect":
            form["aspect"] = rng.choice(tx.ASPECTS)
            form["value"] = rng.choice(tx.values_for(form["aspect"])).canonical
        elif f == "value":
            v = rng.choice(tx.values_for(form["aspect"]))
            form["value"] = rng.choice(v.terms)  # canonical or a synonym
        elif f == "interval":
            form["t_start"], form["t_end"] = (random_interval(rng) if rng.random() < 0.8
                                              else (None, None))
        elif f == "text":
            form["text"] = "" if rng.random() < 0.3 else random_text(rng)
        else:
            form[f] = "" if rng.random() < 0.3 else random_text(rng)
    if bad:
        kind = rng.randrange(4)
        if kind == 0:
            form["t_start"], form["t_end"] = 6.0, 2.0
        elif kind == 1:
            form["t_start"], form["t_end"] = 1.0, DURATION + 5
        elif kind == 2:
            form["text"] = "x" * 2001
        else:
            form["value"] = "sideways somersault"
    return form


def touched(form: dict, loaded: dict) -> dict | None:
    """What the reference counts as changed (the fields that differ), or None when the form
    cannot be read (an unknown value)."""
    found = tx.normalize(form["aspect"], form["value"] or "")
    if found is None:
        return None
    read = {**form, "value": found.canonical}
    out = {k: read[k] for k in ("aspect", "value", "text", "evidence", "note")
           if read[k] != loaded[k]}
    if (read["t_start"], read["t_end"]) != (loaded["t_start"], loaded["t_end"]):
        out["t_start"], out["t_end"] = read["t_start"], read["t_end"]
    return out


REFUSED = {"n": 0}


def expect(ok: bool, call):
    """Run ``call``: it must succeed when the reference says ``ok``, else raise InputError."""
    if ok:
        return call()
    with pytest.raises(InputError):
        call()
    REFUSED["n"] += 1
    return None


class Annotator:
    """One annotator's page: the draft id, the selected statement and what the form was filled
    with, and the reference of what the draft should be."""

    def __init__(self, store, user, clip_id, focus: int = 0):
        self.store, self.user, self.clip_id = store, user, clip_id
        self.focus = focus  # pick among the first rows only (two annotators on the same ones)
        self.open()

    def open(self):
        opened = review.open_review(self.store, self.user, self.clip_id)
        self.draft_id, self.selected, self.loaded = opened.draft.id, None, None
        snap = self.store.review.load(self.clip_id)
        self.version = snap.version
        self.ref = Ref([(i, st, snap.notes.get(i, ""))
                        for i, st in zip(snap.statement_ids, snap.statements)])
        same_items(opened.draft, self.ref)

    def check(self, draft=None):
        draft = draft or review.current_draft(self.store, self.user, self.draft_id)
        same_items(draft, self.ref)
        if self.selected and draft.find(self.selected) is None:
            self.selected = self.loaded = None  # the page clears the form

    def select(self, rng):
        n = len(self.ref.items)
        row = rng.randint(1, min(n, self.focus)) if self.focus and n else rng.randint(0, n + 1)
        if not 1 <= row <= n:
            expect(False, lambda: review.select_statement(self.store, self.user, self.draft_id,
                                                          row))
            return
        sel = review.select_statement(self.store, self.user, self.draft_id, row)
        it = self.ref.items[row - 1]
        shown = it["current"]
        assert sel.item.id == it["id"]
        # Selecting loads every field of that statement, nothing of another one.
        assert sel.form == {"aspect": shown["aspect"], "value": shown["value"],
                            "t_start": shown["t_start"], "t_end": shown["t_end"],
                            "text": shown["text"], "evidence": shown["evidence"],
                            "note": it["note"]}
        self.selected, self.loaded = sel.item.id, sel.form

    def act(self, rng):
        # Fewer additions once the clip has many statements: its size stays a random walk
        # around a dozen instead of drifting up to the limit.
        many = len(self.ref.kept()) > 10
        kind = rng.choices(["select", "fix", "accept", "reject", "delete", "add", "undo", "redo"],
                           [3, 4, 2, 4 if many else 2, 3 if many else 1.5, 0.5 if many else 2,
                            1.5, 1])[0]
        if kind == "select" or (kind in ("fix", "accept", "reject", "delete")
                                and not self.selected):
            self.select(rng)
            return
        s, u, d = self.store, self.user, self.draft_id
        out = None
        if kind == "undo":
            ok = self.ref.undo()
            out = expect(ok, lambda: review.undo_review(s, u, d, self.selected))
        elif kind == "redo":
            ok = self.ref.redo()
            out = expect(ok, lambda: review.redo_review(s, u, d, self.selected))
        elif kind in ("accept", "reject", "delete"):
            ok = getattr(self.ref, kind)(self.selected)
            out = expect(ok, lambda: review.edit_review(s, u, d, kind, self.selected))
        elif kind == "fix":
            form = random_form(rng, self.loaded, bad=rng.random() < 0.1)
            t = touched(form, self.loaded)
            ok = t is not None and self.ref.fix(self.selected, t)
            out = expect(ok, lambda: review.edit_review(s, u, d, "fix", self.selected, form,
                                                        self.loaded))
        else:
            loaded = self.loaded or {"aspect": tx.CAMERA_MOVEMENT, "value": None,
                                     "t_start": None, "t_end": None, "text": "",
                                     "evidence": "", "note": ""}
            form = random_form(rng, loaded, bad=rng.random() < 0.1)
            if not form["value"]:
                form["value"] = rng.choice(tx.values_for(form["aspect"])).canonical
            t = touched(form, loaded)
            if t is None:
                expect(False, lambda: review.edit_review(s, u, d, "add", None, form, loaded))
                return
            st = {"aspect": form["aspect"], "value": tx.normalize(form["aspect"],
                                                                  form["value"]).canonical,
                  "t_start": t.get("t_start"), "t_end": t.get("t_end"),
                  "text": t.get("text", ""), "evidence": t.get("evidence", "")}
            if not valid(st) or len(t.get("note", "")) > 2000 or len(self.ref.kept()) >= 100:
                expect(False, lambda: review.edit_review(s, u, d, "add", None, form, loaded))
                return
            out = review.edit_review(s, u, d, "add", None, form, loaded)
            assert self.ref.add(out.selected, st, t.get("note", ""))
            self.selected = out.selected
            self.loaded = review.select_statement(s, u, d, len(self.ref.items)).form
        # The draft the use case stored (a refused action: the stored one, unchanged).
        self.check(out.draft if out is not None else None)

    def save(self) -> bool:
        """Save; True when stored. The stored gold pair must be the reference's."""
        kept = self.ref.kept()
        if self.ref.conflicts.keys() - self.ref.decided or not kept:
            expect(False, lambda: review.save_review(self.store, self.user, self.draft_id))
            return False
        gold = review.save_review(self.store, self.user, self.draft_id)
        assert [st for st in gold.statements] == [it["current"] for it in kept]
        assert gold.statement_ids == [it["id"] for it in kept]
        assert gold.notes == {it["id"]: it["note"] for it in self.ref.items if it["note"]}
        rows = self.store.review.history(gold_pair_id=gold.id)
        assert [(h.action, h.before, h.after) for h in rows] == self.ref.edits()
        return True


def _clip(store, user, path: Path) -> int:
    clip = store.clips.add(path, path.name, {"duration": DURATION, "fps": 25.0}, user)
    sts = [
        {"aspect": "Camera Movement", "value": "static", "t_start": 0.0, "t_end": 4.0,
         "evidence": "103 tracked background points stay still", "confidence": 0.9,
         "measurements": {"still_points": 103}},
        {"aspect": "Camera Movement", "value": "pan right", "t_start": 4.0, "t_end": 10.0,
         "evidence": "background slides left 40 px/s", "confidence": 0.7,
         "measurements": {"rate": 40.0}},
        {"aspect": "Camera Angle", "value": "dutch angle", "evidence": "horizon tilted 12°",
         "confidence": 0.6},
        {"aspect": "Depth of Field", "value": "shallow depth of field",
         "evidence": "subject 3.1x sharper than background"},
        {"aspect": "Shot Size", "value": "wide shot", "subject": "the riders"},
    ]
    store.clips.add_caption(clip.id, {"caption": "…", "statements": [stmt(s) for s in sts]},
                            "anchors", "test", user)
    return clip.id


@pytest.fixture
def sqlite_store(tmp_path):
    """A real SQLite file; on tmpfs when there is one (the test writes thousands of drafts)."""
    from db.store import Store

    shm = Path("/dev/shm")
    base = Path(os.environ.get("CINECAP_RANDOM_DIR", shm if shm.is_dir() else tmp_path))
    import tempfile

    d = Path(tempfile.mkdtemp(prefix="cinecap-random-", dir=base))
    s = Store(f"sqlite:///{d / 'random.sqlite3'}", tmp_path / "data")
    yield s
    s.close()
    for f in d.iterdir():
        f.unlink()
    d.rmdir()


@pytest.mark.slow
def test_random_action_sequences_store_exactly_the_intended_gold_pair(sqlite_store, small_clip):
    store = sqlite_store
    ann = store.users.add("ann", "annotator", "password1")
    bea = store.users.add("bea", "annotator", "password2")
    clip_id = _clip(store, ann, small_clip)
    counts = {"saves": 0, "conflicts": 0, "decisions": 0}
    REFUSED["n"] = 0
    for n in range(SEQUENCES):
        rng = random.Random(SEED * 100_003 + n)
        try:
            _sequence(rng, store, ann, bea, clip_id, counts)
        except AssertionError as e:
            raise AssertionError(f"sequence {n} (CINECAP_RANDOM_SEED={SEED}) failed: {e}") from e
    counts["refused"] = REFUSED["n"]
    print(counts)
    # The sequences reached every path (not a vacuous pass).
    assert counts["saves"] > SEQUENCES // 3 and counts["conflicts"] > SEQUENCES // 20
    assert counts["decisions"] > SEQUENCES // 20 and counts["refused"] > SEQUENCES // 5


def _sequence(rng, store, ann, bea, clip_id, counts):
    both = rng.random() < 0.25
    a = Annotator(store, ann, clip_id, focus=2 if both else 0)
    b = Annotator(store, bea, clip_id, focus=2) if both else None
    for _ in range(rng.randint(3, 10) if both else rng.randint(1, 8)):
        a.act(rng)
        if rng.random() < 0.05:  # a page reload: the draft is resumed as it was
            opened = review.open_review(store, ann, clip_id)
            assert opened.resumed == bool(a.ref.past or a.ref.future)
            assert opened.draft.id == a.draft_id or not opened.resumed
            a.draft_id = opened.draft.id
            a.check(opened.draft)
            a.selected = a.loaded = None
    if b is not None:
        for _ in range(rng.randint(3, 8)):
            b.act(rng)
        if not b.save():
            store.drafts.delete(b.draft_id, bea.id)
            b = None
    if b is None:
        counts["saves"] += a.save()
        _discard(store, ann, a)
        return
    # bea saved first: ann's save is refused, nothing written; her edits are re-applied.
    before = store.counts()
    if a.ref.conflicts.keys() - a.ref.decided or not a.ref.kept():
        _discard(store, ann, a)
        return
    with pytest.raises(StoreConflict):
        review.save_review(store, ann, a.draft_id)
    assert store.counts() == before
    with pytest.raises(PermissionDenied):  # and nobody else can save her draft
        review.save_review(store, bea, a.draft_id)
    counts["conflicts"] += 1
    snap = store.review.load(clip_id)
    saved = [(i, st, snap.notes.get(i, "")) for i, st in zip(snap.statement_ids, snap.statements)]
    a.ref = a.ref.rebased(saved)
    out = review.rebase_review(store, ann, a.draft_id)
    a.check(out.draft)
    assert {c.id for c in out.draft.conflicts} == set(a.ref.conflicts)
    a.selected = a.loaded = None
    for k, c in enumerate(out.draft.conflicts):
        choice = rng.choice(["theirs", "yours"])
        assert a.ref.resolve(c.id, choice)
        review.resolve_conflict(store, ann, a.draft_id, k + 1, choice)
        counts["decisions"] += 1
        a.check()
    for _ in range(rng.randint(0, 3)):
        a.act(rng)
    counts["saves"] += a.save()
    _discard(store, ann, a)


def _discard(store, user, annotator):
    """An unsaved draft is dropped so that the next sequence opens the newest gold pair."""
    try:
        store.drafts.delete(annotator.draft_id, user.id)
    except Exception:  # saved: already gone
        pass
