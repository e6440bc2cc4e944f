"""Training rounds from the app: what there is to train on, the launch form, launching a round as
a background job, following it, cancelling it — and the job itself, which the worker runs.

A round is one ``python -m cinecap train sft|grpo --config FILE`` process (under ``accelerate
launch`` when ``Settings.accelerate_config`` was set when it was launched), started by the worker (``python -m ui
worker``, ``ui.jobs``) in a process group of its own. Its JSON progress lines go to the store as
they come (``store.rounds.report``, with a heartbeat and the tail of its log), so the page, a
reload or a restarted app read the round's true state from the store. When training ends, the
worker scores the new version on the round's **held-out clips** (the split ``cinecap train``
recorded in the version's ``data.json``) with ``cinecap.bench``, and so the version serving at
that moment, with the app's judge (``Settings.judge``): both numbers come from the same clips
and judge, each version captioning with the video settings it was trained with. A crash, a
kill or a cancel marks the round failed (or cancelled) with its log; the serving version is
never touched by a round.

Files of a round live in the data directory: ``rounds/<folder>/`` (``gold.jsonl``, the
``config.json`` given to ``cinecap train``, ``train.log``, ``heldout.json``, the bench results)
and ``versions/<folder>/`` (the model version directory).

Without a GPU (and unless ``CINECAP_ROUNDS_BASE`` names a checkpoint) rounds train the tiny
offline model (``cinecap.testing.tiny``, built into ``<data dir>/models/`` on first use) with
small settings (:data:`TINY_SETTINGS`), so the whole loop runs anywhere in seconds per step.
"""
from __future__ import annotations

import functools
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
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

from cinecap import taxonomy as tx
from cinecap.errors import InputError, UnavailableError
from db.records import ModelVersionRecord, RoundRecord, UserRecord
from db.repositories.versions import new_folder
from db.roles import require_role
from db.store import Store
from ui.settings import Settings
from ui.usecases import datasets

log = logging.getLogger(__name__)

#: Where the product's packages are (the training process runs ``-m cinecap`` from here).
ROOT = Path(__file__).resolve().parents[2]
STAGES = ("sft", "grpo")
#: The settings the Train tab's form shows, per stage, in order (the rest keep their defaults,
#: or come from "More settings" as JSON). Every one is a field of the stage's config dataclass.
FORM_FIELDS: dict[str, tuple[str, ...]] = {
    "sft": ("finetune", "max_steps", "epochs", "learning_rate", "cot", "eval_fraction", "seed"),
    "grpo": ("finetune", "max_steps", "num_generations", "beta", "tau", "coverage", "judge",
             "learning_rate", "max_new_tokens", "eval_fraction", "seed"),
}
#: Without a GPU: the tiny model, a few steps, few visual tokens, short completions, a third of
#: the clips held out (few clips in a demo store), no anchors analysis for the CoT evidence.
TINY_SETTINGS: dict[str, Any] = {
    "max_steps": 4, "min_tokens_per_frame": 4, "max_tokens_per_frame": 16,
    "decode_max_side": 160, "max_frames": 8, "num_generations": 2, "max_new_tokens": 16,
    "eval_fraction": 0.34, "anchors": "off", "save_steps": 1000, "device": "cpu",
}
TINY_FAMILY = "qwen3_vl"
#: The video settings a version is trained with, and captions with (``vlm`` captioner options).
VIDEO_OPTIONS = ("fps", "min_frames", "max_frames", "min_tokens_per_frame",
                 "max_tokens_per_frame", "decode_max_side")
#: Series the progress plot shows, per stage: one point per step event.
PLOTTED = {"sft": ("loss",), "grpo": ("reward", "reward/s_cmp", "reward/s_acc")}
#: Seconds between two reports of a running round to the store (its heartbeat).
REPORT_EVERY_S = 1.0
#: Seconds a process gets to stop after SIGTERM before SIGKILL.
STOP_GRACE_S = 10.0


# --- where rounds run ----------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def gpu_name() -> str | None:
    """The first GPU's name, or None without one (torch is imported once, here)."""
    try:
        import torch
    except ImportError:
        return None
    if torch.cuda.is_available():
        return torch.cuda.get_device_name(0)
    return None


@dataclass(frozen=True)
class Hardware:
    """Where rounds run here and from which base; ``note`` is what the Train tab says."""

    gpu: str | None
    tiny: bool
    base: str | None  # the base checkpoint (None: none configured)
    note: str


def hardware(settings: Settings) -> Hardware:
    gpu = gpu_name() if settings.rounds_base != "tiny" else None
    if settings.rounds_base == "tiny" or (not settings.rounds_base and gpu is None):
        why = ("CINECAP_ROUNDS_BASE=tiny" if settings.rounds_base == "tiny"
               else "No GPU on this machine")
        return Hardware(gpu, True, str(tiny_model_dir(settings)),
                        f"{why}: rounds train the tiny offline test model on the CPU (a few "
                        f"seconds per step), so the whole loop — launch, progress, held-out "
                        f"scores, promote, caption, roll back — works end to end. Its captions "
                        f"are random text; on a GPU machine set CINECAP_MODEL to a real base.")
    base = settings.rounds_base or settings.model or None
    if base is None:
        return Hardware(gpu, False, None, f"GPU: {gpu}. No base model is configured: set "
                                          f"CINECAP_MODEL (or CINECAP_ROUNDS_BASE) to the "
                                          f"checkpoint rounds start from.")
    where = f"GPU: {gpu}" if gpu else "No GPU (CINECAP_ROUNDS_BASE names the base)"
    launcher = (f"; rounds run under accelerate launch ({settings.accelerate_config.name})"
                if settings.accelerate_config else "")
    return Hardware(gpu, False, base, f"{where}. Base model: {base}{launcher}.")


def tiny_model_dir(settings: Settings) -> Path:
    return settings.data_dir.resolve() / "models" / f"tiny-{TINY_FAMILY}"


def ensure_base(store: Store, settings: Settings) -> ModelVersionRecord:
    """The base model version, registered on first use (serving when nothing serves yet); the
    tiny model is built into the data directory first when it is the base."""
    hw = hardware(settings)
    if hw.base is None:
        raise UnavailableError("no base model to train from: set CINECAP_MODEL (or "
                               "CINECAP_ROUNDS_BASE) to a checkpoint")
    if hw.tiny:
        from cinecap.testing.tiny import build_tiny_model, is_tiny_build

        path = tiny_model_dir(settings)
        if not is_tiny_build(path):
            log.info("building the tiny offline model in %s", path)
            build_tiny_model(path, family=TINY_FAMILY)
        return store.versions.ensure_base(f"tiny-{TINY_FAMILY}", path, options={
            k: TINY_SETTINGS[k] for k in VIDEO_OPTIONS if k in TINY_SETTINGS})
    p = Path(hw.base).expanduser()
    return store.versions.ensure_base(hw.base, p if p.is_dir() else None)


# --- what there is to train on, and the form --------------------------------------------------
@dataclass(frozen=True)
class Overview:
    """The Train tab's top: the gold pairs a round would get, per aspect, and what is new."""

    hardware: Hardware
    pairs: int
    clips: int
    new_pairs: int  # gold pairs newer than what the last finished round trained on
    per_aspect: dict[str, tuple[int, int]]  # aspect → (statements, of them new)
    include_submitted: bool
    serving: ModelVersionRecord | None
    worker: str  # "running (pid 123)" | "not running" | "external"


def overview(store: Store, settings: Settings, user: UserRecord,
             include_submitted: bool = False, jobs: Any = None) -> Overview:
    require_role(user.role, "admin", "training rounds")
    pairs = datasets.gold_pairs(store, include_submitted)
    mark = store.rounds.trained_mark()
    all_counts = datasets.statements_per_aspect(pairs)
    new = [g for g in pairs if g.id > mark]
    new_counts = datasets.statements_per_aspect(new)
    worker = "unknown"
    if jobs is not None:
        pid = jobs.worker_pid()
        worker = f"running (pid {pid})" if pid else (
            "not running (the app starts one when a round is queued)"
            if settings.worker == "auto" else "not running: start `python -m ui worker`")
    return Overview(hardware(settings), len(pairs), len({g.clip_id for g in pairs}), len(new),
                    {a: (all_counts[a], new_counts[a]) for a in tx.ASPECTS}, include_submitted,
                    store.versions.find_serving(), worker)


@dataclass(frozen=True)
class FormField:
    """One setting of the launch form: a field of the stage's config (``describe()``)."""

    name: str
    type: str  # int | float | str | bool | dict | tuple
    default: Any
    help: str
    choices: tuple[str, ...] | None
    optional: bool


def form_fields(stage: str, settings: Settings) -> list[FormField]:
    """The form of ``stage`` from its config dataclass (``cinecap.training.config.describe``):
    the fields of :data:`FORM_FIELDS`, with the tiny model's settings as defaults on a machine
    that trains the tiny model."""
    from cinecap.training.config import CONFIGS, describe

    if stage not in STAGES:
        raise InputError(f"unknown stage {stage!r}; use sft or grpo")
    tiny = hardware(settings).tiny
    by_name = {d["name"]: d for d in describe(CONFIGS[stage])}
    out = []
    for name in FORM_FIELDS[stage]:
        d = by_name[name]
        default = TINY_SETTINGS.get(name, d["default"]) if tiny else d["default"]
        out.append(FormField(name, d["type"], default, d["help"],
                             tuple(d["choices"]) if d.get("choices") else None, d["optional"]))
    return out


def base_choices(store: Store, user: UserRecord) -> list[tuple[str, str]]:
    """(label, value) pairs for "start from": the serving version, the base, every ready one."""
    require_role(user.role, "admin", "training rounds")
    out = [("the serving version", "serving"), ("the base model", "base")]
    out += [(f"version {v.label} ({v.status})", str(v.id)) for v in store.versions.list()
            if v.status in ("ready", "retired") and v.round_id]
    return out


# --- launching, cancelling, following ---------------------------------------------------------
def launch_round(store: Store, settings: Settings, jobs: Any, user: UserRecord, stage: str,
                 start_from: str = "serving", settings_values: dict[str, Any] | None = None,
                 include_submitted: bool = False) -> RoundRecord:
    """Check everything, export the gold pairs, queue the round and hand it to the worker.

    ``start_from``: ``serving`` (the version serving now; the base when none does), ``base``,
    or a version id. ``settings_values``: config fields (the form's, as given; empty or None
    values keep the default). Refused before anything is queued: a bad setting, no gold pair,
    a split that holds no clip out (nothing to score the new version on), or nothing left to
    train on. ``jobs``: what queues the round (``ui.jobs.Jobs``: ``submit_round(id)``).
    """
    require_role(user.role, "admin", "launching a training round")
    from cinecap.training.config import CONFIGS
    from cinecap.training.data import load_pairs, split_by_clip

    if stage not in STAGES:
        raise InputError(f"unknown stage {stage!r}; use sft or grpo")
    folder = new_folder()
    round_dir = settings.data_dir.resolve() / "rounds" / folder
    out = settings.data_dir.resolve() / "versions" / folder
    try:
        export = datasets.export_gold_pairs(store, user, round_dir / "gold.jsonl",
                                            include_submitted)
        if not export.pairs:
            which = "accepted or submitted" if include_submitted else "accepted"
            raise InputError(f"there are no {which} gold pairs to train on: review clips (and "
                             f"accept their gold pairs) first")
        base = _start_version(store, settings, start_from)
        values = {k: v for k, v in (settings_values or {}).items()
                  if v is not None and not (isinstance(v, str) and not v.strip())}
        given = {**(TINY_SETTINGS if hardware(settings).tiny else {}), **values}
        cls = CONFIGS[stage]
        known = {f for f in cls.__dataclass_fields__}
        given = {k: v for k, v in given.items() if k in known or k in values}
        cfg = cls.from_dict({**given, "base": base.model, "data": str(export.path),
                             "out": str(out)})
        split = split_by_clip(load_pairs(export.path), cfg.eval_fraction, cfg.seed)
        if not split.heldout:
            raise InputError(f"eval_fraction {cfg.eval_fraction:g} holds none of the "
                             f"{export.clips} clips out, so the new version could not be "
                             f"scored: raise eval_fraction (or change the seed)")
        config = cfg.to_dict()
        (round_dir / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
        data = {**export.to_dict(), "train_clips": len(split.train_clips),
                "heldout_clips": len(split.heldout_clips), "include_submitted": include_submitted,
                "run": how_to_run(settings)}
        r = store.rounds.add(stage, config, data, user, base.id, folder,
                             captioner_options={k: config[k] for k in VIDEO_OPTIONS})
    except BaseException:
        _remove_tree(round_dir)
        raise
    log.info("%s launched round #%d (%s from %s): %d pairs", user.name, r.id, stage, base.label,
             export.pairs)
    jobs.submit_round(r.id)
    return store.rounds.get(r.id)


def _start_version(store: Store, settings: Settings, start_from: str) -> ModelVersionRecord:
    start_from = str(start_from or "serving").strip()
    if start_from == "base":
        return ensure_base(store, settings)
    if start_from == "serving":
        return store.versions.find_serving() or ensure_base(store, settings)
    try:
        version_id = int(start_from)
    except ValueError:
        raise InputError(f"start from 'serving', 'base' or a version id, not "
                         f"{start_from!r}") from None
    v = store.versions.get(version_id)
    if v.status not in ("ready", "serving", "retired"):
        raise InputError(f"version {v.label} is {v.status}: a round starts from a version "
                         f"that finished training")
    return v


def cancel_round(store: Store, user: UserRecord, round_id: int) -> RoundRecord:
    """Cancel a round: a queued one at once, one under way within a second or two (its process
    group is stopped; the round ends cancelled, its version failed)."""
    require_role(user.role, "admin", "cancelling a training round")
    return store.rounds.request_cancel(int(round_id), user)


def list_rounds(store: Store, settings: Settings, user: UserRecord,
                limit: int = 20) -> list[RoundRecord]:
    require_role(user.role, "admin", "training rounds")
    check_stale(store, settings)
    return store.rounds.list(limit)


def check_stale(store: Store, settings: Settings) -> list[int]:
    """Fail the rounds under way whose worker has said nothing for ``round_stale_s`` (it
    stopped, or the machine restarted): their true state, with their log as it was."""
    before = datetime.now(timezone.utc) - timedelta(seconds=settings.round_stale_s)
    failed = store.rounds.fail_active(
        f"no word from its worker for over {settings.round_stale_s:g} s: the worker stopped "
        f"while the round ran (its log is below); launch it again", stale_before=before)
    for rid in failed:
        log.warning("round #%d failed: its worker stopped reporting", rid)
    return failed


@dataclass(frozen=True)
class RoundView:
    """One round as the Train tab shows it."""

    round: RoundRecord | None
    version: ModelVersionRecord | None  # the version it makes
    serving: ModelVersionRecord | None
    points: list[tuple[int, str, float]]  # (step, series, value) for the progress plot
    last: dict[str, Any] = field(default_factory=dict)  # the newest step event

    @property
    def can_cancel(self) -> bool:
        return self.round is not None and self.round.active and not self.round.cancel_requested

    @property
    def can_promote(self) -> bool:
        return self.version is not None and self.version.status == "ready"


def round_view(store: Store, settings: Settings, user: UserRecord,
               round_id: int | None = None) -> RoundView:
    """The round ``round_id`` (default: the newest), its progress points, the version it makes
    and the serving one. Rounds whose worker went silent are failed first (:func:`check_stale`)."""
    require_role(user.role, "admin", "training rounds")
    check_stale(store, settings)
    r = store.rounds.get(int(round_id)) if round_id else next(iter(store.rounds.list(1)), None)
    serving = store.versions.find_serving()
    if r is None:
        return RoundView(None, None, serving, [])
    points, last = [], {}
    series = PLOTTED[r.stage]
    for e in store.rounds.events(r.id):
        ev = e.event
        if ev.get("event") != "step" or not isinstance(ev.get("step"), int):
            continue
        last = ev
        points += [(ev["step"], s, float(ev[s])) for s in series
                   if isinstance(ev.get(s), (int, float))]
    version = store.versions.get(r.version_id) if r.version_id else None
    return RoundView(r, version, serving, points, last)


# --- the job (the worker runs it) ------------------------------------------------------------
def how_to_run(settings: Settings) -> dict[str, Any]:
    """What a round launched now runs with, recorded on the round (``data["run"]``) so the
    worker — a process with an environment of its own — runs it as the app decided: the
    launcher (``accelerate launch`` with its config and processes, or none) and the judge that
    scores the held-out clips."""
    accelerate = settings.accelerate_config
    return {"accelerate_config": str(accelerate.resolve()) if accelerate else None,
            "accelerate_processes": settings.accelerate_processes, "judge": settings.judge}


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


def _remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
