"""SQL statements and time per review action, through the real use cases on a real store.

    .venv/bin/python benchmarks/review_queries.py                      # SQLite file, 200 rounds
    .venv/bin/python benchmarks/review_queries.py --rounds 50 --database-url postgresql+psycopg://…

One clip with a five-statement model caption and two annotators. Each round: ann opens the clip,
selects, accepts, fixes, adds, rejects, deletes, undoes, redoes, drags a bar and saves; bea, who
opened it before that save, saves hers (refused: a conflict), re-applies her edits on ann's version,
decides the conflict and saves. Every statement the database is sent is counted by an SQLAlchemy
``before_cursor_execute`` listener (BEGIN included; COMMIT and ROLLBACK are the driver's own calls,
not statements, and are not counted); the time is the wall-clock mean per call. Prints one row per
action: statements per call (mean, and the range when it varies) and milliseconds per call.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STATEMENTS = [
    {"aspect": "Camera Movement", "value": "static", "t_start": 0.0, "t_end": 4.0,
     "text": "The camera is static.", "evidence": "103 points stay still", "confidence": 0.9},
    {"aspect": "Camera Movement", "value": "pan right", "t_start": 4.0, "t_end": 10.0,
     "text": "The camera pans right.", "evidence": "background slides left", "confidence": 0.7},
    {"aspect": "Camera Angle", "value": "dutch angle", "text": "A dutch angle.",
     "evidence": "horizon tilted 12°", "confidence": 0.6},
    {"aspect": "Depth of Field", "value": "shallow depth of field", "text": "Shallow focus.",
     "evidence": "subject sharper"},
    {"aspect": "Shot Size", "value": "wide shot", "text": "A wide shot.", "subject": "riders"},
]


class Counter:
    """Statements sent per named call."""

    def __init__(self, engine):
        from sqlalchemy import event

        self.n = 0
        self.calls: dict[str, list[tuple[int, float]]] = defaultdict(list)
        event.listen(engine, "before_cursor_execute", self._count)

    def _count(self, *args) -> None:
        self.n += 1

    def __call__(self, name: str, fn, *a, **kw):
        n0, t0 = self.n, time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            self.calls[name].append((self.n - n0, time.perf_counter() - t0))


def one_round(c: Counter, store, ann, bea, clip_id: int, k: int) -> None:
    from db.errors import StoreConflict
    from ui.usecases import review

    opened = c("open_review (fresh)", review.open_review, store, bea, clip_id)
    theirs = opened.draft.id
    c("edit_review accept", review.edit_review, store, bea, theirs, "accept",
      opened.draft.items()[0].id)
    d = c("open_review (fresh)", review.open_review, store, ann, clip_id).draft.id
    sel = c("select_statement", review.select_statement, store, ann, d, 1)
    sid = sel.item.id
    c("edit_review accept", review.edit_review, store, ann, d, "accept", sid)
    form = {**sel.form, "text": f"The camera holds still, take {k}."}
    c("edit_review fix", review.edit_review, store, ann, d, "fix", sid, form, sel.form)
    added = c("edit_review add", review.edit_review, store, ann, d, "add", None,
              {"aspect": "Camera Movement", "value": "tilt up", "t_start": 1.0, "t_end": 2.0},
              None)
    third = review.select_statement(store, ann, d, 3).item.id
    c("edit_review reject", review.edit_review, store, ann, d, "reject", third)
    c("edit_review (refused)", _refused, review.edit_review, store, ann, d, "reject", third)
    c("edit_review accept", review.edit_review, store, ann, d, "accept", third)
    c("edit_review delete", review.edit_review, store, ann, d, "delete", added.selected)
    c("undo_review", review.undo_review, store, ann, d)
    c("redo_review", review.redo_review, store, ann, d)
    c("retime_statement", review.retime_statement, store, ann, d, sid, 0.5, 3.0 + k % 9 / 10)
    c("current_draft", review.current_draft, store, ann, d)
    c("open_review (resumed)", review.open_review, store, ann, clip_id)
    c("save_review", review.save_review, store, ann, d)
    try:
        c("save_review (conflict)", review.save_review, store, bea, theirs)
    except StoreConflict:
        pass
    else:
        raise SystemExit("bea's save should have met ann's")
    out = c("rebase_review", review.rebase_review, store, bea, theirs)
    if out.draft.open_conflicts():
        c("resolve_conflict", review.resolve_conflict, store, bea, theirs, 1, "yours")
    c("save_review", review.save_review, store, bea, theirs)
    c("review_queue", review.review_queue, store, ann)


def _refused(fn, *a):
    from cinecap.errors import InputError

    try:
        fn(*a)
    except InputError:
        return
    raise SystemExit("the refused action was not refused")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=200)
    p.add_argument("--database-url", default=None,
                   help="another database (its tables are emptied first); default: a new "
                        "SQLite file in a temporary folder")
    args = p.parse_args(argv)

    from cinecap.testing.clips import moving_pattern, write_clip
    from db.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if args.database_url:
            from benchmarks.support import reset_postgres

            reset_postgres(args.database_url)
        url = args.database_url or f"sqlite:///{tmp / 'review.sqlite3'}"
        store = Store(url, tmp / "data")
        ann = store.users.add("ann", "annotator", "password1")
        bea = store.users.add("bea", "annotator", "password2")
        clip_path = write_clip(tmp / "c.mp4", moving_pattern(n=10, dx=2))
        clip = store.clips.add(clip_path, clip_path.name, {"duration": 10.0, "fps": 25.0}, ann)
        store.clips.add_caption(clip.id, {"caption": "…", "statements": STATEMENTS}, "anchors",
                                "bench", ann)
        c = Counter(store.engine)
        one_round(c, store, ann, bea, clip.id, 0)  # warm: compiled-statement caches, imports
        c.calls.clear()
        for k in range(args.rounds):
            one_round(c, store, ann, bea, clip.id, k + 1)
        store.close()
    print(f"{store.backend}, {args.rounds} rounds")
    print("| action | statements per call | ms per call |")
    print("|---|---|---|")
    for name, calls in c.calls.items():
        ns = [n for n, _ in calls]
        mean = sum(ns) / len(ns)
        span = f" ({min(ns)}–{max(ns)})" if min(ns) != max(ns) else ""
        ms = 1000 * sum(t for _, t in calls) / len(calls)
        print(f"| {name} | {mean:.1f}{span} | {ms:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
