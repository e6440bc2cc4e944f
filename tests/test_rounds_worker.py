"""Rounds as background jobs with the real worker (``python -m ui worker``): the round runs in
the worker's own process and survives an app restart — the restarted app's page shows it running,
step by step, and can cancel it; a worker stopped with SIGTERM stops its round and marks it
failed; a round whose worker went silent (killed outright, the machine gone) shows failed once
silent for ``round_stale_s``; ``python app.py`` starts a worker for a round left queued, even
with the queue file lost, and that worker fails the round left under way; the serving version
never moves."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.support.app_server import free_port
from tests.support.rounds import (clips, heldout_seed, live_in_group, wait_until,
                                  with_gold_pairs, with_tiny_base)
from ui.backends import Backends
from ui.jobs import Jobs, stop_worker
from ui.settings import Settings
from ui.usecases import rounds

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def setup(tmp_path, small_clip, monkeypatch):
    from db.store import Store

    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    settings = Settings(data_dir=tmp_path / "data", rounds_base="tiny", worker="external",
                        round_stale_s=4.0)
    store = Store(settings.database_url, settings.data_dir)
    paths = clips(tmp_path / "clips", small_clip)
    with_gold_pairs(store, paths)
    store.users.add("ada", "admin", "ada-password")
    with_tiny_base(settings)  # a launch registers it; the worker builds nothing
    workers: list[subprocess.Popen] = []

    def start_worker() -> subprocess.Popen:
        # The child keeps its own copy of the log's descriptor: ours is closed at once.
        with open(tmp_path / f"worker-{len(workers)}.log", "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "ui", "worker", "--database-url", settings.database_url,
                 "--data-dir", str(settings.data_dir)], cwd=ROOT, stdout=subprocess.DEVNULL,
                stderr=log, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        workers.append(proc)
        jobs = Jobs(settings, store=store)
        wait_until(lambda: jobs.worker_pid() == proc.pid or proc.poll() is not None, 60, "the lock")
        assert proc.poll() is None, (tmp_path / f"worker-{len(workers) - 1}.log").read_text()
        return proc

    yield SimpleNamespace(settings=settings, store=store, admin=store.users.find("ada"),
                          seed=heldout_seed(paths, rounds.TINY_SETTINGS["eval_fraction"]),
                          start_worker=start_worker, tmp=tmp_path)
    for proc in workers:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)
    store.close()


def _app(settings, store):
    from ui.app import build_app

    return build_app(settings, store, Backends(captioners={}), jobs=Jobs(settings, store=store))


def _page_load(demo, name: str) -> dict:
    """What the page gets on load for ``name``: component elem_id → value."""
    load = next(f for f in demo.fns.values() if (demo._id, "load") in f.targets)
    values = load.fn(SimpleNamespace(username=name))
    return {getattr(c, "elem_id", None): v for c, v in zip(load.outputs, values)}


def _no_config(settings) -> dict:
    """A round's settings whose config.json was never written: it runs and fails at once."""
    return {"out": str(settings.data_dir / "versions" / "q"),
            "data": str(settings.data_dir / "rounds" / "q" / "gold.jsonl")}


def test_a_round_survives_an_app_restart_and_the_new_app_shows_it(setup):
    from db.store import Store

    s = setup
    s.start_worker()
    demo = _app(s.settings, s.store)
    r = rounds.launch_round(s.store, s.settings, demo.app_context.jobs, s.admin, "sft",
                            "serving", {"max_steps": 400, "seed": s.seed})
    wait_until(lambda: s.store.rounds.get(r.id).step >= 2, what="the worker's first steps")
    serving = s.store.versions.find_serving()  # the tiny base, registered by the launch
    assert serving is not None and s.store.rounds.get(r.id).base_version_id == serving.id
    demo.close()
    s.store.close()  # the app is gone; the worker and its round are not

    store = Store(s.settings.database_url, s.settings.data_dir)
    try:
        demo = _app(s.settings, store)
        first = _page_load(demo, "ada")
        assert f"**Round #{r.id}** · SFT from version #{serving.id} · **running**" in first[
            "train-status"]
        step = int(re.search(r"step (\d+) of 400", first["train-status"]).group(1))
        assert step >= 2
        plot = first["train-plot"]
        assert list(plot.columns) == ["step", "series", "value"] and len(plot) >= 2
        wait_until(lambda: store.rounds.get(r.id).step > step + 1, what="more steps")
        again = _page_load(demo, "ada")  # a reload: the live state, from the store
        assert len(again["train-plot"]) > len(plot)
        assert "**running**" in again["train-status"]

        rounds.cancel_round(store, s.admin, r.id)  # the restarted app controls it
        wait_until(lambda: store.rounds.get(r.id).status == "cancelled", 60, "the cancel")
        shown = _page_load(demo, "ada")["train-status"]
        assert "**cancelled**" in shown and "cancelled by an admin" in shown
        assert store.versions.find_serving() == serving
        demo.close()
    finally:
        store.close()


def test_a_stopped_or_silent_worker_fails_its_round_and_the_app_restarts_one(setup):
    s = setup
    serving = rounds.ensure_base(s.store, s.settings)
    worker = s.start_worker()
    jobs = Jobs(s.settings, store=s.store)
    r = rounds.launch_round(s.store, s.settings, jobs, s.admin, "sft", "serving",
                            {"max_steps": 400, "seed": s.seed})
    wait_until(lambda: s.store.rounds.get(r.id).step >= 1, what="a step")
    worker.send_signal(signal.SIGTERM)  # docker stop, a service restart
    assert worker.wait(timeout=90) == 0
    stopped = s.store.rounds.get(r.id)
    assert stopped.status == "failed" and "worker was stopped" in stopped.error
    assert "cinecap train sft" in stopped.log
    assert live_in_group(int(stopped.worker.rpartition(":")[2])) == []  # it stopped its round

    # A worker that dies without a word (SIGKILL, the machine going down): its round stays as
    # the store last heard it, until it has been silent for round_stale_s.
    r2 = s.store.rounds.add("sft", _no_config(s.settings), {}, s.admin, serving.id, "r2")
    s.store.rounds.claim(r2.id, "gone:1")
    s.store.rounds.report(r2.id, [{"event": "step", "step": 3, "max_steps": 400}],
                          log="the last lines")
    assert rounds.round_view(s.store, s.settings, s.admin, r2.id).round.status == "running"
    wait_until(lambda: rounds.round_view(s.store, s.settings, s.admin, r2.id).round.status
          == "failed", 30, "the silent round to fail")
    failed = s.store.rounds.get(r2.id)
    assert "no word from its worker" in failed.error and failed.log == "the last lines"
    orphan = s.store.rounds.add("sft", _no_config(s.settings), {}, s.admin, serving.id, "o")
    s.store.rounds.claim(orphan.id, "gone:2")  # under way when everything stopped

    # The app restarts with a round left queued and the queue file lost: `python app.py`
    # starts a worker (CINECAP_WORKER=auto), which queues it again and runs it.
    queued = s.store.rounds.add("sft", _no_config(s.settings), {}, s.admin, serving.id, "q")
    for lost in s.settings.data_dir.glob("jobs.sqlite3*"):
        lost.unlink()
    env = dict(os.environ, PYTHONPATH=str(ROOT), CINECAP_DATA_DIR=str(s.settings.data_dir),
               DATABASE_URL=s.settings.database_url, CINECAP_WORKER="auto",
               CINECAP_WORKER_IDLE_EXIT_S="30")
    app = subprocess.Popen([sys.executable, "app.py", "--host", "127.0.0.1", "--port",
                            str(free_port())], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: s.store.rounds.get(queued.id).status == "failed", 120, "the round")
        error = s.store.rounds.get(queued.id).error
        assert "config.json' does not exist" in error  # it ran: this round was given no config
        assert jobs.worker_pid() not in (None, worker.pid)  # the worker the app started
        assert "not running when a new worker started" in s.store.rounds.get(orphan.id).error
    finally:
        app.send_signal(signal.SIGTERM)
        app.wait(timeout=60)
        assert stop_worker(jobs)
    assert s.store.versions.find_serving() == serving

