"""Background jobs: the queue of training rounds and the worker that runs them.

The queue is huey's (``huey.SqliteHuey``: a SQLite file in the data directory,
``jobs.sqlite3``, no broker to run); the worker is huey's consumer in a process of its own,
``python -m ui worker`` (:func:`run_worker`), which runs one round at a time
(``ui.usecases.round_job.run_round``). The queue only carries "run round N": everything about a
round (its state, progress, log) is in the store, so a lost queue loses nothing — a starting
worker queues again every round still ``queued`` (running one twice is impossible: a round is
claimed once) and fails those it finds under way (no other worker can be running them: one
worker per data directory, held by a lock file).

``Settings.worker``: ``auto`` (the default) — the app starts a worker when it queues a round
and none runs (:meth:`Jobs.ensure_worker`); that worker lives in its own session, so it and
its round survive a page reload and an app restart, and it exits once idle for
``worker_idle_exit_s``. ``external`` — you run ``python -m ui worker`` yourself (a service,
a second container).
"""
from __future__ import annotations

import fcntl
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from cinecap.errors import UnavailableError
from ui.settings import Settings

log = logging.getLogger(__name__)

QUEUE_FILE = "jobs.sqlite3"
LOCK_FILE = "worker.lock"
WORKER_LOG = "worker.log"
ROUND_TASK = "cinecap.round"


class Jobs:
    """The round queue of one data directory. ``immediate``: run each job in the caller's
    thread when it is submitted (huey's immediate mode; tests and one-off scripts)."""

    def __init__(self, settings: Settings, immediate: bool = False, store: Any = None):
        self.settings = settings
        self.immediate = immediate
        self.store = store  # the store the jobs run on (a worker's own, or the app's)
        self._huey = None
        self._task = None
        self.stopping = threading.Event()  # set when the worker shuts down

    @property
    def huey(self):
        if self._huey is None:
            from huey import SqliteHuey

            data = self.settings.data_dir.resolve()
            data.mkdir(parents=True, exist_ok=True)
            self._huey = SqliteHuey("cinecap", filename=str(data / QUEUE_FILE),
                                    immediate=self.immediate, results=False, utc=True)

            @self._huey.task(name=ROUND_TASK)
            def round_task(round_id: int) -> None:
                from ui.usecases import round_job

                round_job.run_round(self._store(), self.settings, round_id,
                                 stop=self.stopping.is_set)

            self._task = round_task
        return self._huey

    def _store(self):
        if self.store is None:
            raise UnavailableError("this job queue has no store to run jobs on")
        return self.store

    def submit_round(self, round_id: int) -> None:
        """Queue round ``round_id`` for the worker (started here if none runs and
        ``Settings.worker`` is ``auto``)."""
        self.queue_round(round_id)
        if not self.immediate and self.settings.worker == "auto":
            self.ensure_worker()

    def queue_round(self, round_id: int) -> None:
        """Put "run round ``round_id``" in the queue (in immediate mode: run it now)."""
        self.huey  # noqa: B018 - builds the queue and registers the task
        self._task(int(round_id))

    def pending(self) -> int:
        """Jobs in the queue not yet taken by a worker."""
        return self.huey.pending_count()

    # --- the worker process -----------------------------------------------------------------
    def lock_path(self) -> Path:
        return self.settings.data_dir.resolve() / LOCK_FILE

    def worker_pid(self) -> int | None:
        """The pid of the worker running for this data directory, or None."""
        path = self.lock_path()
        if not path.exists():
            return None
        with open(path, "a+") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                f.seek(0)
                text = f.read().strip()
                return int(text) if text.isdigit() else -1
            fcntl.flock(f, fcntl.LOCK_UN)
            return None

    def ensure_worker(self) -> int:
        """Start ``python -m ui worker`` for this data directory unless one runs; its pid.
        The worker gets a session of its own (an app restart does not stop it), the app's
        store (``DATABASE_URL``/``CINECAP_DATA_DIR``) and stops once idle for
        ``worker_idle_exit_s``; its output goes to ``worker.log`` in the data directory."""
        pid = self.worker_pid()
        if pid:
            return pid
        from ui.usecases.round_job import ROOT, child_env

        s = self.settings
        cmd = [sys.executable, "-m", "ui", "worker", "--idle-exit", f"{s.worker_idle_exit_s:g}"]
        # The store by the environment, not argv: a database URL may hold a password (ps).
        env = {**child_env(), "DATABASE_URL": s.database_url,
               "CINECAP_DATA_DIR": str(s.data_dir.resolve())}
        out = open(s.data_dir.resolve() / WORKER_LOG, "ab")
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                    cwd=ROOT, env=env, start_new_session=True)
        finally:
            out.close()
        log.info("started a worker (pid %d) for %s", proc.pid, s.data_dir)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            if self.worker_pid():
                break
            time.sleep(0.1)
        return proc.pid


def resume_rounds(settings: Settings, store: Any, jobs: Jobs) -> int | None:
    """At the app's start: when rounds are queued or under way and ``Settings.worker`` is
    ``auto``, make sure a worker runs (it queues them again, or fails those its predecessor left
    under way). Returns its pid, or None when nothing needed one."""
    if settings.worker != "auto" or not store.rounds.active():
        return None
    return jobs.ensure_worker()


class _Lock:
    """The one-worker-per-data-directory lock: an exclusive ``flock`` on ``worker.lock``, held
    for the worker's life, with its pid written in the file."""

    def __init__(self, path: Path):
        self.path = path
        self.file = None

    def __enter__(self) -> "_Lock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.file = open(self.path, "a+")
        try:
            fcntl.flock(self.file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.file.seek(0)
            other = self.file.read().strip()
            self.file.close()
            raise UnavailableError(f"a worker already runs for this data directory (pid "
                                   f"{other or '?'}); one is enough") from None
        self.file.seek(0)
        self.file.truncate()
        self.file.write(str(os.getpid()))
        self.file.flush()
        return self

    def __exit__(self, *exc) -> None:
        self.file.seek(0)
        self.file.truncate()
        fcntl.flock(self.file, fcntl.LOCK_UN)
        self.file.close()


def run_worker(settings: Settings, store: Any, idle_exit_s: float | None = None) -> int:
    """Run the worker until SIGINT/SIGTERM (or, with ``idle_exit_s``, until nothing was queued
    or under way for that long). On a stop signal the round under way is stopped and marked
    failed ("the worker was stopped"), never left running. Returns 0."""
    from huey.consumer import Consumer, ConsumerStopped

    jobs = Jobs(settings, store=store)
    with _Lock(jobs.lock_path()):
        orphans = store.rounds.fail_active("the worker stopped while the round ran (it was not "
                                           "running when a new worker started); launch it again")
        for rid in orphans:
            log.warning("round #%d was under way when its worker stopped: failed", rid)
        for r in store.rounds.active():
            if r.status == "queued":  # its message may be lost; a second one is harmless
                jobs.queue_round(r.id)

        class RoundConsumer(Consumer):
            """huey's consumer that tells the running round to stop on a stop signal and
            exits when idle for ``idle_exit_s``."""

            idle_since = time.monotonic()

            def stop(self, graceful: bool = False) -> None:
                jobs.stopping.set()
                super().stop(graceful=True)  # the round stops its process, then returns

            def loop(self, health_check_ts=None):
                ts = super().loop(health_check_ts)
                if idle_exit_s:
                    busy = bool(store.rounds.active()) or jobs.pending() > 0
                    now = time.monotonic()
                    if busy:
                        self.idle_since = now
                    elif now - self.idle_since > idle_exit_s:
                        log.info("idle for %.0f s: the worker stops", now - self.idle_since)
                        self.stop(graceful=True)
                        raise ConsumerStopped
                return ts

        consumer = RoundConsumer(jobs.huey, workers=1, worker_type="thread", periodic=False,
                                 check_worker_health=True, shutdown_timeout=60,
                                 graceful_signal="TERM")
        consumer._stop_flag_timeout = 1.0  # the idle check runs about once a second
        print(f"worker {os.getpid()}: running rounds for {settings.data_dir.resolve()}",
              file=sys.stderr, flush=True)
        consumer.run()
    return 0


def stop_worker(jobs: Jobs, timeout: float = 90.0) -> bool:
    """SIGTERM the worker of ``jobs``' data directory and wait until it has let go of its lock
    (it stops the round under way first); whether it did. True when none ran."""
    pid = jobs.worker_pid()
    if not pid or pid < 0:
        return pid is None
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return True
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if jobs.worker_pid() is None:
            return True
        time.sleep(0.1)
    return False
