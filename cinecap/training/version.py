"""The model version directory a training round writes, and the events it reports.

    OUT/
      adapter_config.json, adapter_model.safetensors   LoRA: the adapter (its base is named inside)
      config.json, model*.safetensors                   full fine-tuning: the whole model
      processor / tokenizer files                       so the directory loads on its own
      run_config.json     the resolved config, the stage, library versions, the judge (GRPO)
      data.json           the data file, its hash, the split by clip
      metrics.json        final metrics (and held-out figures where computed)
      events.jsonl        every progress event of the run, one JSON object per line
      checkpoints/        resumable state (removed once complete unless keep_checkpoints)
      COMPLETE            written last: a run that crashed or was killed never has it

``cinecap caption CLIP --captioner vlm --model OUT`` loads the version (a LoRA directory names
its base in ``adapter_config.json``; the captioner loads the base and applies the adapter).
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Callable

from cinecap.errors import InputError, TrainingError

log = logging.getLogger(__name__)

MARKER = "COMPLETE"
RUN_CONFIG = "run_config.json"
DATA_INFO = "data.json"
METRICS = "metrics.json"
EVENTS = "events.jsonl"
CHECKPOINTS = "checkpoints"

#: A structured progress event: {"event": "step", "stage": "sft", "step": 3, "loss": …, "eta_s": …}.
EventSink = Callable[[dict[str, Any]], None]


def write_json(path: Path, obj: Any) -> None:
    """Write JSON atomically (a temporary file renamed over the target), flushed to disk."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=2, default=str)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def is_complete(path: str | Path) -> bool:
    """True only for a version whose run finished and wrote everything."""
    return (Path(path) / MARKER).is_file()


def library_versions() -> dict[str, str]:
    from importlib import metadata

    out = {"python": sys.version.split()[0]}
    for pkg in ("cinecap-studio", "torch", "transformers", "trl", "peft", "accelerate"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            continue
    from cinecap import __version__

    out["cinecap"] = __version__
    return out


class VersionDir:
    """One model version being written. ``begin`` checks the directory, ``complete`` seals it."""

    def __init__(self, path: str | Path, events: EventSink | None = None, main: bool = True,
                 sync: Callable[[], None] | None = None):
        self.path = Path(path)
        self._sink = events
        self.main = main  # only the main process writes files under accelerate launch
        self.sync = sync or (lambda: None)  # a barrier across processes

    @property
    def checkpoints(self) -> Path:
        return self.path / CHECKPOINTS

    # ---------------------------------------------------------------------------------- events
    def emit(self, event: dict[str, Any]) -> None:
        """Report an event: to the sink (the CLI prints it as a JSON line) and to events.jsonl."""
        event = {k: v for k, v in event.items() if v is not None}
        if not self.main:
            return
        if self.path.is_dir():
            with open(self.path / EVENTS, "a", encoding="utf-8") as f:
                f.write(json.dumps(event, ensure_ascii=False, default=str) + "\n")
        if self._sink is not None:
            self._sink(event)

    # ------------------------------------------------------------------------------- lifecycle
    def begin(self, stage: str, config: dict[str, Any], data_info: dict[str, Any],
              resume: bool, extra: dict[str, Any] | None = None,
              resumable_changes: frozenset[str] = frozenset()) -> None:
        """Write the run config and the data info (after :meth:`check`, on every process).

        A complete version is never overwritten (``check``); an unfinished run is continued only
        with ``resume`` and only on the same data and (nearly) the same config.
        """
        p = self.path
        if resume:
            self._check_same_run(stage, config, data_info, resumable_changes)
        self.sync()  # every process has checked before the main one writes
        if not self.main:
            return
        p.mkdir(parents=True, exist_ok=True)
        run = {"stage": stage, "config": config, "versions": library_versions(),
               "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **(extra or {})}
        if resume:
            previous = read_json(p / RUN_CONFIG)
            run["started_at"] = previous.get("started_at", run["started_at"])
            run["resumed_at"] = previous.get("resumed_at", []) + [time.strftime("%Y-%m-%dT%H:%M:%S%z")]
        write_json(p / RUN_CONFIG, run)
        write_json(p / DATA_INFO, data_info)

    def check(self, resume: bool) -> None:
        """Can this directory take a run? Call it first, on every process, before anything
        (a Trainer, a checkpoint) creates files there; then a barrier, then :meth:`begin`."""
        p = self.path
        if p.exists() and not p.is_dir():
            raise InputError(f"--out {p} exists and is not a directory")
        if is_complete(p):
            raise InputError(f"{p} already holds a complete model version; choose a new --out")
        started = (p / RUN_CONFIG).is_file()
        if resume and not started:
            raise InputError(f"nothing to resume in {p}: it holds no unfinished run")
        if not resume and p.is_dir() and any(p.iterdir()):
            hint = " (an unfinished run: add --resume to continue it)" if started else ""
            raise InputError(f"--out {p} is not empty{hint}; choose an empty or new directory")

    def _check_same_run(self, stage: str, config: dict[str, Any], data_info: dict[str, Any],
                        allowed: frozenset[str]) -> None:
        previous = read_json(self.path / RUN_CONFIG)
        if previous.get("stage") != stage:
            raise InputError(f"{self.path} holds an unfinished {previous.get('stage')} run, not {stage}")
        old_data = read_json(self.path / DATA_INFO) if (self.path / DATA_INFO).is_file() else {}
        if old_data.get("data_hash") != data_info.get("data_hash"):
            raise TrainingError(f"the data changed since this run started (hash "
                                f"{str(old_data.get('data_hash'))[:12]} → "
                                f"{str(data_info.get('data_hash'))[:12]}); resume with the same "
                                f"data or start a new version")
        old = previous.get("config", {})
        changed = sorted(k for k in set(old) | set(config)
                         if k not in allowed and k != "out" and old.get(k) != config.get(k))
        if changed:
            raise InputError(f"cannot resume with different settings: {', '.join(changed)} "
                             f"(only {', '.join(sorted(allowed))} may change)")

    def complete(self, metrics: dict[str, Any], keep_checkpoints: bool = False) -> None:
        """Write the metrics, drop the checkpoints, then the marker: the version is usable."""
        if not self.main:
            return
        write_json(self.path / METRICS, metrics)
        if not keep_checkpoints and self.checkpoints.is_dir():
            shutil.rmtree(self.checkpoints, ignore_errors=True)
        write_json(self.path / MARKER, {"complete": True, "stage": metrics.get("stage"),
                                        "steps": metrics.get("steps"),
                                        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")})


def eta(started: float, done: int, remaining: int) -> float | None:
    """Seconds left at the pace of this process so far (None before the first step)."""
    if done <= 0:
        return None
    return round((time.perf_counter() - started) / done * max(0, remaining), 1)
