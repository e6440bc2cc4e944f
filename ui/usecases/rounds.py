"""Training rounds from the app: what there is to train on, the launch form, launching a round as
a background job, following it, cancelling it. The job itself, which the worker runs, is
:mod:`ui.usecases.round_job`.

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
offline model (``cinecap.testing.tiny``, built into ``<data dir>/models/`` by the first round's
job, not its launch: :func:`build_tiny_once`) with small settings (:data:`TINY_SETTINGS`), so
the whole loop runs anywhere in seconds per step.
"""
from __future__ import annotations

import functools
import json
import logging
import os
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from cinecap import taxonomy as tx
from cinecap.errors import InputError, UnavailableError
from cinecap.testing.tiny import TINY_MAX_NEW_TOKENS
from db.records import ModelVersionRecord, RoundRecord, UserRecord
from db.repositories.versions import new_folder
from db.roles import require_role
from db.store import Store
from ui.settings import Settings
from ui.usecases import datasets

log = logging.getLogger(__name__)

STAGES = ("sft", "grpo")
#: The settings the Train tab's form shows, per stage, in order (the rest keep their defaults,
#: or come from "More settings" as JSON). Every one is a field of the stage's config dataclass.
FORM_FIELDS: dict[str, tuple[str, ...]] = {
    "sft": ("finetune", "max_steps", "epochs", "learning_rate", "cot", "eval_fraction", "seed"),
    "grpo": ("finetune", "max_steps", "num_generations", "beta", "tau", "coverage", "judge",
             "learning_rate", "max_new_tokens", "eval_fraction", "seed"),
}
#: Without a GPU: the tiny model, a few steps, few visual tokens, short completions, a third of
#: the clips held out (few clips in a demo store), no anchors analysis for the CoT evidence, no
#: activation checkpointing (it saves memory the tiny model does not need, and made its steps
#: on the CPU ~3x slower: 40 SFT steps took 12.1 s of CPU with it, 3.6 s without, same losses).
TINY_SETTINGS: dict[str, Any] = {
    "max_steps": 4, "min_tokens_per_frame": 4, "max_tokens_per_frame": 16,
    "decode_max_side": 160, "max_frames": 8, "num_generations": 2, "max_new_tokens": 16,
    "eval_fraction": 0.34, "anchors": "off", "save_steps": 1000, "device": "cpu",
    "gradient_checkpointing": False,
}
TINY_FAMILY = "qwen3_vl"
#: The video settings a version is trained with, and captions with (``vlm`` captioner options).
VIDEO_OPTIONS = ("fps", "min_frames", "max_frames", "min_tokens_per_frame",
                 "max_tokens_per_frame", "decode_max_side")
#: A tiny version's longest caption (``vlm`` option): the tiny model's own limit (its
#: generation_config), enough for what a round teaches it. Its captions are random text that
#: never ends: the released 4096 tokens of it cost ~20 s of CPU per clip, and scoring a round
#: captions every held-out clip with two versions.
TINY_CAPTION_OPTIONS: dict[str, Any] = {"max_new_tokens": TINY_MAX_NEW_TOKENS}
#: Series the progress plot shows, per stage: one point per step event.
PLOTTED = {"sft": ("loss",), "grpo": ("reward", "reward/s_cmp", "reward/s_acc")}


# --- where rounds run ----------------------------------------------------------------------------
#: What a machine torch could find a GPU on has (Linux): NVIDIA's driver, ROCm's, WSL's.
GPU_DEVICES = ("/proc/driver/nvidia", "/dev/nvidiactl", "/dev/nvidia0", "/dev/kfd", "/dev/dxg")


def no_gpu_driver() -> bool:
    """True where torch cannot find a GPU: Linux without any of :data:`GPU_DEVICES`, and not a
    ZeroGPU Space (whose ``spaces`` package shows torch a GPU it attaches later)."""
    return (sys.platform.startswith("linux") and not os.environ.get("SPACES_ZERO_GPU")
            and not any(os.path.exists(p) for p in GPU_DEVICES))


@functools.lru_cache(maxsize=1)
def gpu_name() -> str | None:
    """The first GPU's name, or None without one (torch is imported once, here). Without a GPU
    driver torch is not imported at all: the Train tab asks this while the app is built, and
    importing torch only to hear "no GPU" took seconds of every start."""
    if no_gpu_driver():
        return None
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
        return tiny_base(store, tiny_model_dir(settings))
    p = Path(hw.base).expanduser()
    return store.versions.ensure_base(hw.base, p if p.is_dir() else None)


def tiny_base(store: Store, path: Path) -> ModelVersionRecord:
    """The tiny model in ``path`` as the base version: built first when it is not there
    (:func:`build_tiny_once`), registered only once it is complete."""
    build_tiny_once(Path(path))
    return store.versions.ensure_base(f"tiny-{TINY_FAMILY}", path, options={
        **{k: TINY_SETTINGS[k] for k in VIDEO_OPTIONS if k in TINY_SETTINGS},
        **TINY_CAPTION_OPTIONS})


def build_tiny_once(path: Path) -> bool:
    """Build the tiny model into ``path`` unless it is there; whether this call built it.

    One build at a time per directory (an exclusive lock on ``<path>.lock``: threads and
    processes — the worker, the app, ``python -m ui`` — alike), into a temporary folder beside
    ``path`` that is renamed into place when complete: a build that is interrupted or fails
    leaves nothing that :func:`~cinecap.testing.tiny.is_tiny_build` would accept, and a second
    build waits for the first and then finds its result. (Two threads building at once also
    imported transformers at once, which fails in one of them: issue 26.)"""
    import fcntl
    import secrets

    from cinecap.testing.tiny import build_tiny_model, is_tiny_build

    if is_tiny_build(path):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_tiny_build(path):
            return False
        tmp = path.with_name(f".{path.name}.building-{secrets.token_hex(4)}")
        try:
            log.info("building the tiny offline model in %s", path)
            build_tiny_model(tmp, family=TINY_FAMILY)
            if path.exists():  # an earlier build's remains, from before builds were atomic
                _remove_tree(path)
            tmp.rename(path)
        finally:
            _remove_tree(tmp)
    return True


def base_pending(settings: Settings) -> Path | None:
    """Where the tiny base will be built when it is the base and not built yet (the round's
    job builds it, not the launch: a build takes seconds, minutes on a loaded machine), else
    None."""
    from cinecap.testing.tiny import is_tiny_build

    hw = hardware(settings)
    path = tiny_model_dir(settings)
    return path if hw.tiny and not is_tiny_build(path) else None


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
    values = {k: v for k, v in (settings_values or {}).items()
              if v is not None and not (isinstance(v, str) and not v.strip())}
    given = {**(TINY_SETTINGS if hardware(settings).tiny else {}), **values}
    cls = CONFIGS[stage]
    known = {f for f in cls.__dataclass_fields__}
    given = {k: v for k, v in given.items() if k in known or k in values}
    folder = new_folder()
    round_dir = settings.data_dir.resolve() / "rounds" / folder
    out = settings.data_dir.resolve() / "versions" / folder
    # The settings are checked before any work: a refused launch (max_steps=0, a typo) must not
    # build the tiny model or register a base version (placeholders stand in for what the
    # launch would make; the real config is built from the same values below).
    cls.from_dict({**given, "base": "(checked below)", "data": "gold.jsonl", "out": str(out)})
    _check_start(store, start_from)
    try:
        export = datasets.export_gold_pairs(store, user, round_dir / "gold.jsonl",
                                            include_submitted)
        if not export.pairs:
            which = "accepted or submitted" if include_submitted else "accepted"
            raise InputError(f"there are no {which} gold pairs to train on: review clips (and "
                             f"accept their gold pairs) first")
        checked = cls.from_dict({**given, "base": "(checked below)", "data": str(export.path),
                                 "out": str(out)})
        split = split_by_clip(load_pairs(export.path), checked.eval_fraction, checked.seed)
        if not split.heldout:
            raise InputError(f"eval_fraction {checked.eval_fraction:g} holds none of the "
                             f"{export.clips} clips out, so the new version could not be "
                             f"scored: raise eval_fraction (or change the seed)")
        base = _start_version(store, settings, start_from)
        build = tiny_model_dir(settings) if base is None else None  # see _start_version
        cfg = cls.from_dict({**given, "base": base.model if base else str(build),
                             "data": str(export.path), "out": str(out)})
        config = cfg.to_dict()
        (round_dir / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
        data = {**export.to_dict(), "train_clips": len(split.train_clips),
                "heldout_clips": len(split.heldout_clips), "include_submitted": include_submitted,
                "run": how_to_run(settings)}
        if build is not None:
            data["build_base"] = str(build)  # the job builds and registers it first
        # The new version captions with its training's video settings and the caption limit of
        # the version it starts from (a tiny base's: TINY_CAPTION_OPTIONS).
        limit = {k: v for k, v in (base.options if base else TINY_CAPTION_OPTIONS).items()
                 if k == "max_new_tokens"}
        r = store.rounds.add(stage, config, data, user, base.id if base else None, folder,
                             captioner_options={**{k: config[k] for k in VIDEO_OPTIONS}, **limit})
    except BaseException:
        _remove_tree(round_dir)
        raise
    log.info("%s launched round #%d (%s from %s): %d pairs", user.name, r.id, stage,
             base.label if base else "the tiny base its job builds", export.pairs)
    jobs.submit_round(r.id)
    return store.rounds.get(r.id)


def _check_start(store: Store, start_from: str) -> ModelVersionRecord | None:
    """The version ``start_from`` names (None for ``serving`` and ``base``), refused when it
    cannot start a round; reads only, so a refusal leaves nothing behind."""
    start_from = str(start_from or "serving").strip()
    if start_from in ("base", "serving"):
        return None
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


def _start_version(store: Store, settings: Settings,
                   start_from: str) -> ModelVersionRecord | None:
    """The version the round starts from; None for the tiny base not built yet, which the
    round's job builds and registers (:func:`base_pending`)."""
    start_from = str(start_from or "serving").strip()
    if start_from in ("base", "serving"):
        serving = store.versions.find_serving() if start_from == "serving" else None
        if serving is not None:
            return serving
        return None if base_pending(settings) else ensure_base(store, settings)
    return _check_start(store, start_from)


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

    @property
    def undecided(self) -> str:
        """What to say when the held-out comparison cannot tell the new version from the
        serving one (equal F1 at the two decimals shown, e.g. 0.00 against 0.00); "" otherwise."""
        return comparison_undecided(self.round.comparison if self.round is not None else {})


def comparison_undecided(comparison: dict[str, Any]) -> str:
    """"" unless both versions were scored and their held-out F1 is equal as shown (2 decimals):
    then the sentence that says the comparison cannot tell them apart, and why that matters."""
    new = ((comparison or {}).get("new") or {}).get("scores") or {}
    old = ((comparison or {}).get("serving") or {}).get("scores") or {}
    a, b = old.get("f1"), new.get("f1")
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return ""
    if f"{a:.2f}" != f"{b:.2f}":
        return ""
    clips = comparison.get("heldout_clips")
    on = f" on {clips} held-out clip{'' if clips == 1 else 's'}" if clips else ""
    return (f"The comparison cannot tell the two versions apart: both score F1 {b:.2f}{on}. "
            f"Promoting is a guess, not an improvement shown; more gold pairs (more held-out "
            f"clips) or a longer round give a comparison that can.")


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


def how_to_run(settings: Settings) -> dict[str, Any]:
    """What a round launched now runs with, recorded on the round (``data["run"]``) so the
    worker — a process with an environment of its own — runs it as the app decided: the
    launcher (``accelerate launch`` with its config and processes, or none) and the judge that
    scores the held-out clips."""
    accelerate = settings.accelerate_config
    return {"accelerate_config": str(accelerate.resolve()) if accelerate else None,
            "accelerate_processes": settings.accelerate_processes, "judge": settings.judge}


def _remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
