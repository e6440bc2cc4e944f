"""Model versions and rounds in the store, on a SQLite file and on PostgreSQL: one version serves
at a time, promoting remembers the one before and rolling back serves it again, a round's life
(queued → running → done/failed/cancelled) moves its version (training → ready/failed) and never
the serving one, progress lines and heartbeats, stale rounds, admins only."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy.exc import IntegrityError

from cinecap.errors import InputError
from db import PermissionDenied
from db import models as m
from tests.support.stores import store  # noqa: F401 - the parametrised fixture

ADMIN_NAME = "ada"


@pytest.fixture
def admin(store):
    return store.users.add(ADMIN_NAME, "admin", "ada-password")


def _round(store, admin, base_id, folder="f1"):
    return store.rounds.add("sft", {"max_steps": 3, "out": f"/x/{folder}"}, {"pairs": 2},
                            admin, base_id, folder, captioner_options={"max_frames": 8})


def test_a_round_makes_a_version_that_promotes_and_rolls_back(store, admin, tmp_path):
    base = store.versions.ensure_base("tiny-qwen3_vl", store.data_dir / "models" / "tiny")
    assert base.status == "serving" and base.model == str(
        (store.data_dir / "models" / "tiny").resolve())
    assert store.versions.ensure_base("tiny-qwen3_vl") == base  # registered once

    r = _round(store, admin, base.id)
    assert r.status == "queued" and r.base_version_id == base.id
    v = store.versions.get(r.version_id)
    assert (v.status, v.parent_id, v.round_id, v.stage) == ("training", base.id, r.id, "sft")
    assert v.model.endswith("versions/f1") and v.options == {"max_frames": 8}
    with pytest.raises(InputError, match="only a ready"):
        store.versions.promote(v.id, admin)

    assert store.rounds.claim(r.id, "host:1").status == "running"
    assert store.rounds.claim(r.id, "host:2") is None  # claimed once
    store.rounds.finish(r.id, "done", scores={"f1": 0.4}, comparison={"new": {}})
    v = store.versions.get(v.id)
    assert v.status == "ready" and v.scores == {"f1": 0.4}
    assert store.versions.find_serving().id == base.id  # a round never touches the serving one

    promoted = store.versions.promote(v.id, admin)
    assert (promoted.status, promoted.previous_id) == ("serving", base.id)
    assert store.versions.get(base.id).status == "retired"
    assert [x.status for x in store.versions.list()] == ["serving", "retired"]

    back = store.versions.rollback(admin)
    assert back.id == base.id and back.status == "serving"
    assert store.versions.get(v.id).status == "retired"
    with pytest.raises(InputError, match="no earlier version"):
        store.versions.rollback(admin)
    assert store.versions.promote(v.id, admin).status == "serving"  # a retired one may return


def test_only_one_version_serves_even_past_the_repository(store, admin):
    base = store.versions.ensure_base("base-model")
    r = _round(store, admin, base.id)
    with pytest.raises(IntegrityError):
        with store.sessions.writing() as s:
            s.get(m.ModelVersion, r.version_id).status = "serving"
    assert store.versions.find_serving().id == base.id


def test_failed_and_cancelled_rounds_fail_their_version_only(store, admin):
    base = store.versions.ensure_base("base-model")
    queued = _round(store, admin, base.id, "a")
    assert store.rounds.request_cancel(queued.id, admin).status == "cancelled"
    assert store.versions.get(queued.version_id).status == "failed"
    with pytest.raises(InputError, match="nothing to cancel"):
        store.rounds.request_cancel(queued.id, admin)
    assert store.rounds.claim(queued.id, "host:1") is None  # a cancelled round never runs

    running = _round(store, admin, base.id, "b")
    store.rounds.claim(running.id, "host:1")
    assert store.rounds.report(running.id) is False
    assert store.rounds.request_cancel(running.id, admin).cancel_requested
    assert store.rounds.report(running.id) is True  # the worker hears it at its next report
    store.rounds.finish(running.id, "cancelled", "cancelled by an admin", log="last lines")
    r = store.rounds.get(running.id)
    assert (r.status, r.log, r.finished_at is not None) == ("cancelled", "last lines", True)
    assert store.versions.get(running.version_id).status == "failed"
    assert store.versions.find_serving().id == base.id


def test_progress_lines_heartbeats_and_stale_rounds(store, admin):
    base = store.versions.ensure_base("base-model")
    r = _round(store, admin, base.id)
    store.rounds.claim(r.id, "host:1")
    store.rounds.report(r.id, [{"event": "start", "step": 0, "max_steps": 3},
                               {"event": "step", "step": 1, "max_steps": 3, "loss": 2.5,
                                "odd": object()}], log="x" * 30_000, worker="host:99")
    r2 = store.rounds.get(r.id)
    assert (r2.step, r2.max_steps, r2.worker) == (1, 3, "host:99")
    assert len(r2.log) <= 20_001 and r2.log.endswith("x")
    events = store.rounds.events(r.id)
    assert [e.event["event"] for e in events] == ["start", "step"]
    assert "odd" not in events[1].event and events[1].event["loss"] == 2.5
    assert store.rounds.events(r.id, after_id=events[0].id)[0].id == events[1].id

    now = datetime.now(timezone.utc)
    assert store.rounds.fail_active("stale", stale_before=now - timedelta(minutes=5)) == []
    assert store.rounds.fail_active("stale", stale_before=now + timedelta(seconds=1)) == [r.id]
    r3 = store.rounds.get(r.id)
    assert (r3.status, r3.error) == ("failed", "stale")
    store.rounds.finish(r.id, "done")  # an ended round stays as it ended
    assert store.rounds.get(r.id).status == "failed"
    assert store.versions.get(r.version_id).status == "failed"


def test_trained_mark_counts_from_the_last_finished_round(store, admin):
    base = store.versions.ensure_base("base-model")
    assert store.rounds.trained_mark() == 0
    a = store.rounds.add("sft", {}, {"max_gold_pair_id": 7}, admin, base.id, "a")
    b = store.rounds.add("grpo", {}, {"max_gold_pair_id": 9}, admin, base.id, "b")
    for r in (a, b):
        store.rounds.claim(r.id, "h:1")
    store.rounds.finish(a.id, "done")
    store.rounds.finish(b.id, "failed", "boom")
    assert store.rounds.trained_mark() == 7  # the failed round trained nothing


def test_versions_and_rounds_are_for_admins(store, admin):
    ann = store.users.add("ann", "annotator", "ann-password")
    base = store.versions.ensure_base("base-model")
    with pytest.raises(PermissionDenied, match="admin"):
        _round(store, ann, base.id)
    r = _round(store, admin, base.id)
    for attempt in (lambda: store.versions.promote(base.id, ann),
                    lambda: store.versions.rollback(ann),
                    lambda: store.versions.discard(r.version_id, ann),
                    lambda: store.rounds.request_cancel(r.id, ann)):
        with pytest.raises(PermissionDenied):
            attempt()
