"""The store on a real SQLite file and a real PostgreSQL server: migrations, users, clips,
captions, reviews with history, optimistic locking, reviewer decisions, the queue."""
from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from db import PermissionDenied, StoreConflict
from db.migrate import downgrade, upgrade
from tests.support.stores import store  # noqa: F401 - the parametrised fixture

CAM = "Camera Movement"


def _statements(value: str = "pan left", t1: float = 4.0, conf: float | None = 0.5) -> list[dict]:
    return [{"aspect": CAM, "value": value, "text": f"The camera {value}s.", "t_start": 0.0,
             "t_end": t1, "evidence": "trees slide", "subject": None, "confidence": conf,
             "measurements": {"rate": 1.5}},
            {"aspect": "Shot Size", "value": "wide shot", "text": "It is a wide shot.",
             "t_start": None, "t_end": None, "evidence": "", "subject": None,
             "confidence": conf, "measurements": {}}]


def _clip_with_caption(store, clip_path: Path, user, conf: float | None = 0.5) -> tuple[int, int]:
    clip = store.clips.add(clip_path, clip_path.name, {"duration": 10.0, "fps": 25.0}, user)
    cap = store.clips.add_caption(clip.id, {"caption": "The camera pans left.", "reasoning": "",
                                            "statements": _statements(conf=conf), "seconds": 0.5},
                                  "anchors", "test-1", user)
    return clip.id, cap.id


def test_migrations_make_every_table_and_roll_back(store):
    names = set(inspect(store.engine).get_table_names())
    assert {"users", "clips", "model_versions", "captions", "statements", "statement_edits",
            "gold_pairs", "judge_results", "alembic_version"} <= names
    downgrade(store.engine, "base")
    assert set(inspect(store.engine).get_table_names()) <= {"alembic_version"}
    upgrade(store.engine)
    assert "gold_pairs" in inspect(store.engine).get_table_names()


def test_sqlite_connections_use_wal_busy_timeout_and_foreign_keys(tmp_path):
    from db.store import Store

    s = Store(f"sqlite:///{tmp_path / 'x.sqlite3'}", tmp_path)
    with s.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 1000
    s.close()


def test_users_passwords_are_hashed_and_checked(store):
    u = store.users.add("alice", "annotator", "correct horse")
    assert store.users.check_password("alice", "correct horse") == u
    assert store.users.check_password("alice", "wrong") is None
    assert store.users.check_password("nobody", "correct horse") is None
    with store.engine.connect() as conn:
        stored = conn.execute(text("SELECT password_hash FROM users")).scalar()
    assert "correct horse" not in stored and stored.startswith("scrypt$")
    with pytest.raises(StoreConflict, match="already exists"):
        store.users.add("alice", "viewer", "another one")
    with pytest.raises(ValueError, match="unknown role"):
        store.users.add("bob", "superuser", "whatever1")
    assert [x.name for x in store.users.list()] == ["alice"]


def test_clip_is_kept_once_under_the_data_dir(store, small_clip):
    u = store.users.add("ann", "annotator", "password1")
    a = store.clips.add(small_clip, "slide.mp4", {"duration": 2.0, "fps": 25.0}, u)
    b = store.clips.add(small_clip, "again.mp4", {"duration": 2.0}, u)
    assert a.id == b.id and store.counts()["clips"] == 1
    kept = Path(a.path)
    assert kept.is_file() and store.data_dir in kept.parents
    assert kept.read_bytes() == small_clip.read_bytes()


def test_review_save_stores_gold_pair_history_and_bumps_version(store, small_clip):
    u = store.users.add("ann", "annotator", "password1")
    clip_id, cap_id = _clip_with_caption(store, small_clip, u)
    snap = store.review.load(clip_id)
    assert snap.caption_id == cap_id and snap.statements[0]["value"] == "pan left"
    fixed = _statements("pan right")
    edits = [{"action": "fix", "before": snap.statements[0], "after": fixed[0]},
             {"action": "accept", "before": snap.statements[1], "after": snap.statements[1]}]
    gold = store.review.save(clip_id, snap.version, u, fixed, edits, "The camera pans right.",
                             source_caption_id=cap_id)
    assert gold.annotator == "ann" and gold.status == "submitted"
    again = store.review.load(clip_id)
    assert again.version == snap.version + 1
    assert again.statements[0]["value"] == "pan right" and again.source.startswith("gold pair")
    hist = store.review.history(clip_id)
    assert [(h.action, h.user) for h in hist] == [("fix", "ann"), ("accept", "ann")]
    assert hist[0].before["value"] == "pan left" and hist[0].after["value"] == "pan right"
    # The model's caption is untouched: the pair is (model caption, gold caption).
    assert store.clips.latest_caption(clip_id).statements[0]["value"] == "pan left"


def test_second_save_on_a_stale_version_conflicts_and_loses_nothing(store, small_clip):
    a = store.users.add("ann", "annotator", "password1")
    b = store.users.add("bea", "annotator", "password2")
    clip_id, _ = _clip_with_caption(store, small_clip, a)
    v = store.review.load(clip_id).version
    store.review.save(clip_id, v, a, _statements("pan right"), [], "A's caption")
    before = store.counts()
    with pytest.raises(StoreConflict) as err:
        store.review.save(clip_id, v, b, _statements("tilt up"), [], "B's caption")
    assert "ann" in err.value.message and "saved" in err.value.message
    assert err.value.yours[0]["value"] == "tilt up"
    assert err.value.theirs.statements[0]["value"] == "pan right"
    assert err.value.current_version == v + 1
    assert store.counts() == before  # B's attempt wrote nothing
    # B reloads and saves on the new version: both gold pairs are kept.
    store.review.save(clip_id, store.review.load(clip_id).version, b, _statements("tilt up"), [],
                      "B's caption")
    assert [g.annotator for g in store.review.gold_pairs(clip_id)] == ["ann", "bea"]


def test_history_is_append_only(store, small_clip):
    u = store.users.add("ann", "annotator", "password1")
    clip_id, _ = _clip_with_caption(store, small_clip, u)
    sts = _statements()
    store.review.save(clip_id, store.review.load(clip_id).version, u, sts,
                      [{"action": "accept", "before": sts[0], "after": sts[0]}], "c")
    from db import models as m

    with pytest.raises(RuntimeError, match="append-only"):
        with store.sessions.writing() as s:
            s.get(m.StatementEdit, store.review.history(clip_id)[0].id).action = "fix"
    assert store.review.history(clip_id)[0].action == "accept"


def test_reviewer_decides_gold_pairs_with_locking_and_roles(store, small_clip):
    ann = store.users.add("ann", "annotator", "password1")
    rev = store.users.add("rita", "reviewer", "password2")
    clip_id, _ = _clip_with_caption(store, small_clip, ann)
    g = store.review.save(clip_id, store.review.load(clip_id).version, ann, _statements(), [], "c")
    with pytest.raises(PermissionDenied, match="reviewer"):
        store.review.decide(g.id, ann, "accepted", g.version)
    done = store.review.decide(g.id, rev, "sent_back", g.version, note="tilt, not pan")
    assert done.status == "sent_back" and done.reviewer == "rita" and done.version == g.version + 1
    with pytest.raises(StoreConflict, match="decided by someone else"):
        store.review.decide(g.id, rev, "accepted", g.version)
    assert store.review.history(clip_id)[-1].after == {"status": "sent_back", "note": "tilt, not pan"}


def test_queue_is_least_certain_first_and_drops_accepted_clips(store, tmp_path, small_clip):
    from tests.support.clips import moving_pattern, write_clip

    ann = store.users.add("ann", "annotator", "password1")
    rev = store.users.add("rita", "reviewer", "password2")
    sure, _ = _clip_with_caption(store, small_clip, ann, conf=0.9)
    other = write_clip(tmp_path / "other.mp4", moving_pattern(n=10, dx=-2, seed=3))
    unsure, _ = _clip_with_caption(store, other, ann, conf=0.2)
    assert [q.clip_id for q in store.review.queue()] == [unsure, sure]
    g = store.review.save(unsure, store.review.load(unsure).version, ann, _statements(), [], "c")
    assert store.review.queue()[0].status == "submitted"
    store.review.decide(g.id, rev, "accepted", g.version)
    assert [q.clip_id for q in store.review.queue()] == [sure]


def test_judge_results_are_stored_with_the_caption(store, small_clip):
    u = store.users.add("ann", "annotator", "password1")
    _, cap = _clip_with_caption(store, small_clip, u)
    store.judge_results.add(cap, "gold text", {"judge": "rules", "judge_version": "1",
                                               "f1": 0.5, "by_dim": {}})
    (row,) = store.judge_results.for_caption(cap)
    assert row.f1 == 0.5 and row.gold_caption == "gold text"


def test_migrations_match_the_models(store):
    """The migration and db/models.py describe the same schema (else: write a new revision with
    `DATABASE_URL=… alembic -c db/alembic.ini revision --autogenerate -m "…"`)."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from db.models import Base

    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}),
                                Base.metadata)
    assert diff == []
