"""The job of a training round, which the worker runs (``ui.jobs``): claim the queued round,
train in a process of its own, report its progress to the store, score the new version and the
serving one on the held-out clips, end the round (done, failed or cancelled).

The training process is ``python -m cinecap train STAGE --config FILE`` (under ``accelerate
launch`` when the round was launched so, :func:`ui.usecases.rounds.how_to_run`), in a process
group of its own: a cancel or the worker's shutdown stops the whole group (SIGTERM, then
SIGKILL). Its JSON lines become the round's progress events, its stderr the round's log
(``train.log`` in the round's folder; the store keeps the tail). Scoring runs in the worker
itself (``cinecap.bench``), with a heartbeat thread, and frees the models afterwards.
"""
from __future__ import annotations

import json
import logging
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from cinecap import taxonomy as tx
from db.records import ModelVersionRecord, RoundRecord
from db.store import Store
from ui.settings import Settings
from ui.usecases.rounds import how_to_run

log = logging.getLogger(__name__)

#: Where the product's packages are (the training process runs ``-m cinecap`` from here).
ROOT = Path(__file__).resolve().parents[2]
#: Seconds between two reports of a running round to the store (its heartbeat).
REPORT_EVERY_S = 1.0
#: Seconds a process gets to stop after SIGTERM before SIGKILL.
STOP_GRACE_S = 10.0


def training_command(run: dict[str, Any], stage: str, config_file: Path) -> list[str]:
    """``python -m cinecap train STAGE --config FILE``, under ``accelerate launch`` when the
    round's ``run`` (:func:`how_to_run`) names an accelerate config."""
    train = ["-m", "cinecap", "train", stage, "--config", str(config_file)]
    if not run.get("accelerate_config"):
        return [sys.executable, *train]
    launch = [sys.executable, "-m", "accelerate.commands.launch", "--config_file",
              str(run["accelerate_config"])]
    if run.get("accelerate_processes"):
        launch += ["--num_processes", str(run["accelerate_processes"])]
    return [*launch, *train]


def child_env() -> dict[str, str]:
    """The environment of a round's processes: this one's, with the product importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"
    return env


def run_round(store: Store, settings: Settings, round_id: int,
              stop: Callable[[], bool] = lambda: False) -> RoundRecord:
    """Run a queued round to its end (the worker's job): claim it, train in a process of its
    own, report progress, score the new version and the serving one on the held-out clips,
    and end the round (done, failed or cancelled). ``stop``: the worker is shutting down.
    A round that is not queued (run already, cancelled) is left alone. Never raises for a
    round's failure: it is recorded on the round."""
    me = f"{socket.gethostname()}:{os.getpid()}"
    r = store.rounds.claim(int(round_id), me)
    if r is None:
        log.info("round #%s is not queued any more; skipped", round_id)
        return store.rounds.get(int(round_id))
    log.info("round #%d (%s) started", r.id, r.stage)
    try:
        ended = _run(store, settings, r, stop)
    except Exception as e:  # noqa: BLE001 - whatever happens, the round must not stay "running"
        log.exception("round #%d: the worker failed", r.id)
        ended = store.rounds.finish(r.id, "failed", f"the worker failed ({type(e).__name__}: "
                                                    f"{str(e)[:300]}); see the worker's log")
    log.info("round #%d %s%s", ended.id, ended.status, f": {ended.error}" if ended.error else "")
    return ended


@dataclass
class _Files:
    root: Path
    out: Path

    @classmethod
    def of(cls, r: RoundRecord) -> "_Files":
        """The round's folder (where its gold.jsonl is) and its version's directory."""
        return cls(Path(r.config["data"]).parent, Path(r.config["out"]))

    @property
    def config(self) -> Path:
        return self.root / "config.json"

    @property
    def log(self) -> Path:
        return self.root / "train.log"


def _run(store: Store, settings: Settings, r: RoundRecord,
         stop: Callable[[], bool]) -> RoundRecord:
    files = _Files.of(r)
    how = r.data.get("run") or how_to_run(settings)
    if r.data.get("build_base"):
        _build_base(store, r, files, stop)
    run = _supervise(store, r.id, training_command(how, r.stage, files.config), files.log,
                     stop, events=True)
    if run.stopped:
        return _stopped(store, r, run, files)
    from cinecap.training.version import is_complete

    if run.returncode != 0 or not is_complete(files.out):
        return store.rounds.finish(r.id, "failed", _failure(run, files.log, r),
                                   log=_tail(files.log))
    store.rounds.set_status(r.id, "benchmarking")
    items = heldout_items(files.out)
    (files.root / "heldout.json").write_text(json.dumps(items, indent=2, ensure_ascii=False),
                                             encoding="utf-8")
    version = store.versions.for_round(r.id)
    serving = store.versions.find_serving()
    with _Heartbeat(store, r.id, files.log, stop) as beat:
        try:
            scores = score_version(how["judge"], version, items, beat)
            baseline = (score_version(how["judge"], serving, items, beat)
                        if serving is not None else None)
        except _Stopped:
            return _stopped(store, r, _Run(stopped=beat.stopped), files)
        except _Failed as e:
            return store.rounds.finish(r.id, "failed", str(e), log=_tail(files.log))
    comparison = {"judge": how["judge"], "heldout_clips": len(items),
                  "new": {"version_id": version.id, "label": version.label, "scores": scores},
                  "serving": ({"version_id": serving.id, "label": serving.label,
                               "scores": baseline} if serving is not None else None)}
    done = store.rounds.finish(r.id, "done", log=_tail(files.log), scores=scores,
                               comparison=comparison)
    log.info("round #%d done: version #%d, held-out F1 %.3f", r.id, version.id,
             scores.get("f1") or 0.0)
    return done


def _build_base(store: Store, r: RoundRecord, files: _Files, stop: Callable[[], bool]) -> None:
    """The tiny base a round was launched without (none was built yet): built here, once and
    atomically (:func:`ui.usecases.rounds.build_tiny_once`), registered, and made the round's
    start, before training; a heartbeat meanwhile (a loaded machine takes a minute)."""
    from ui.usecases.rounds import tiny_base

    path = Path(r.data["build_base"])
    with _Heartbeat(store, r.id, files.log, stop) as beat:
        beat.say(f"building the tiny base model in {path.name} (once per data directory)")
        base = tiny_base(store, path)
        beat.say(f"base model version {base.label} ready")
    store.rounds.set_base(r.id, base.id)


def heldout_items(version_dir: Path) -> list[dict[str, str]]:
    """The held-out clips of a finished round as a bench file's items (``video_path``,
    ``gt_caption``): the split ``cinecap train`` recorded in the version's ``data.json``."""
    from cinecap.training.data import load_pairs

    info = json.loads((Path(version_dir) / "data.json").read_text(encoding="utf-8"))
    pairs = load_pairs(info["data_file"])
    return [{"video_path": str(pairs[i].video_path), "gt_caption": pairs[i].gt_caption}
            for i in info["split"]["heldout_pairs"]]


def score_version(judge: str, version: ModelVersionRecord, items: list[dict[str, str]],
                  beat: "_Heartbeat") -> dict[str, Any]:
    """``version`` captions the held-out clips (the ``vlm`` captioner with the video settings
    it was trained with) and the app's judge scores them (``cinecap.bench.run_bench``, all
    seven aspects). The model is freed afterwards. Raises :class:`_Stopped` on a cancel."""
    from cinecap.bench import BenchItem, run_bench
    from cinecap.captioners import get_captioner
    from cinecap.judge import get_judge
    from ui.backends import release_models

    beat.say(f"scoring version {version.label} on {len(items)} held-out clips "
             f"({judge} judge)")

    def progress(fraction: float, message: str) -> None:
        beat.check()
        beat.say(f"  [{100 * fraction:5.1f}%] {message}")

    captioner = get_captioner("vlm", model=version.model, **version.options)
    try:
        results = run_bench([BenchItem(Path(i["video_path"]), i["gt_caption"]) for i in items],
                            captioner, get_judge(judge), tx.ASPECTS, progress,
                            meta={"model_version": version.id})
    finally:
        del captioner
        release_models()
    beat.check()
    errors = [row["error"] for row in results.items if row.get("error")]
    for e in errors:
        beat.say(f"  a clip could not be captioned: {e}")
    if results.scores.judged == 0:
        raise _Failed(f"version {version.label} scored no held-out clip "
                      f"({'; '.join(errors[:2]) or 'every judgement failed'})")
    return {**results.scores.to_dict(),
            "meta": {k: results.meta.get(k) for k in ("judge", "judge_version", "items",
                                                      "failed_captions", "aspects")}}


class _Stopped(Exception):
    """A cancel or the worker's shutdown arrived while the round was being scored."""


class _Failed(Exception):
    """Scoring failed in a way the round reports as its error."""


class _Heartbeat:
    """While the worker itself works for a round (scoring), a thread reports to the store
    every :data:`REPORT_EVERY_S` (heartbeat, log tail) and notes a cancel; :meth:`check`
    raises :class:`_Stopped` once one arrived (or the worker is stopping)."""

    def __init__(self, store: Store, round_id: int, log_file: Path, stop: Callable[[], bool]):
        self.store, self.round_id, self.log_file, self.stop = store, round_id, log_file, stop
        self.stopped = ""
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"round-{round_id}-beat",
                                        daemon=True)

    def __enter__(self) -> "_Heartbeat":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._done.wait(REPORT_EVERY_S):
            try:
                if self.store.rounds.report(self.round_id, log=_tail(self.log_file)):
                    self.stopped = self.stopped or "cancel"
            except Exception:  # noqa: BLE001 - a missed heartbeat is retried next second
                log.exception("round #%d: heartbeat failed", self.round_id)
            if self.stop():
                self.stopped = self.stopped or "worker"

    def check(self) -> None:
        if self.stop():
            self.stopped = self.stopped or "worker"
        if self.stopped:
            raise _Stopped(self.stopped)

    def say(self, line: str) -> None:
        with open(self.log_file, "a", encoding="utf-8") as f:
            f.write(line.rstrip("\n") + "\n")


def _stopped(store: Store, r: RoundRecord, run: "_Run", files: _Files) -> RoundRecord:
    if run.stopped == "cancel":
        return store.rounds.finish(r.id, "cancelled", "cancelled by an admin",
                                   log=_tail(files.log))
    return store.rounds.finish(r.id, "failed", "the worker was stopped while the round ran; "
                                               "launch it again", log=_tail(files.log))


def _failure(run: "_Run", log_file: Path, r: RoundRecord) -> str:
    """One line: the process's own ``error: …`` line when it printed one, else how it ended."""
    for line in reversed(_tail(log_file, 8000).splitlines()):
        if line.startswith("error: "):
            return line[len("error: "):][:500]
    code = run.returncode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the process was killed ({name})"
    return f"the process exited with code {code}"


# --- running a process for a round ------------------------------------------------------------
@dataclass
class _Run:
    returncode: int | None = None
    stopped: str = ""  # "cancel" (an admin) | "worker" (the worker is shutting down) | ""


def _supervise(store: Store, round_id: int, cmd: list[str], log_file: Path,
               stop: Callable[[], bool], events: bool) -> _Run:
    """Run ``cmd`` in a process group of its own, its stderr appended to ``log_file``; report
    to the store every :data:`REPORT_EVERY_S` (the JSON lines of its stdout as progress events
    when ``events``, else its stdout joins the log); stop the group on a cancel or ``stop()``."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    with open(log_file, "ab") as f:
        f.write(f"$ {' '.join(cmd)}\n".encode())
    logf = open(log_file, "ab", buffering=0)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=logf, stdin=subprocess.DEVNULL,
                            cwd=ROOT, env=child_env(), start_new_session=True)
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        for raw in proc.stdout:
            lines.put(raw)
        lines.put(None)

    reader = threading.Thread(target=read, name=f"round-{round_id}-stdout", daemon=True)
    reader.start()
    run, ended, last = _Run(), False, 0.0
    worker = f"{socket.gethostname()}:{proc.pid}"
    try:
        while True:
            batch, done_reading = [], False
            try:
                item = lines.get(timeout=0.2)
                while True:
                    if item is None:
                        done_reading = True
                        break
                    batch.append(item)
                    item = lines.get_nowait()
            except queue.Empty:
                pass
            progress = []
            for raw in batch:
                text = raw.decode("utf-8", "replace")
                event = _event(text) if events else None
                if event is not None:
                    progress.append(event)
                else:
                    logf.write(raw)
            ended = ended or done_reading
            now = time.monotonic()
            if progress or now - last >= REPORT_EVERY_S or ended:
                last = now
                cancel = store.rounds.report(round_id, progress, log=_tail(log_file),
                                             worker=worker)
                if not run.stopped and (cancel or stop()):
                    run.stopped = "cancel" if cancel else "worker"
                    _stop_group(proc)
            if ended:
                run.returncode = proc.wait()
                return run
    finally:
        if proc.poll() is None:
            _stop_group(proc)
        reader.join(timeout=5)
        if not reader.is_alive():  # an open pipe left for the garbage collector is a leak
            proc.stdout.close()
        logf.close()


def _event(line: str) -> dict[str, Any] | None:
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        obj = json.loads(line)
    except json.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) and "event" in obj else None


def _stop_group(proc: subprocess.Popen) -> None:
    """SIGTERM to the process group (accelerate's children too), SIGKILL after a grace."""
    for sig, wait in ((signal.SIGTERM, STOP_GRACE_S), (signal.SIGKILL, 30.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _tail(path: Path, limit: int = 20_000) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - limit))
            return f.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return ""
