"""Active learning in the app, on the CPU with the tiny model and real clips: corrected
statements in the store → a round launched through the Train tab's use case → a new version with
held-out scores → promote → the Caption tab's use case captions with it → roll back → the old
one serves again. A round killed halfway fails with its log and leaves the serving version as it
was; a relaunch works; a cancel stops the process group.

The rounds run ``python -m cinecap train`` in processes of their own, as in the app; here the
job queue runs each job in the test's thread (huey's immediate mode) or the job is called
directly (``round_job.run_round``, what the worker calls). The full cycle starts from the
session's one trained round (``tests.support.rounds.trained``, which the Train tab's browser test
shares), in a copy of its store. The worker process itself, a page reload and an app restart are
tested in tests/test_rounds_worker.py.
"""
from __future__ import annotations

import gc
import os
import signal
import threading
import weakref
from pathlib import Path

import pytest

from tests.support.rounds import (TRAINED, clips, heldout_seed, live_in_group, wait_until,
                                  with_gold_pairs, with_tiny_base)
from ui.backends import Backends
from ui.settings import Settings
from ui.usecases import accounts, caption, round_job, rounds, versions

# The first test of the group also makes the session's trained round (tests/support/rounds.py).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


@pytest.fixture(autouse=True)
def one_thread(monkeypatch):
    """The round's processes use one intra-op thread: two fight the other work on two cores."""
    monkeypatch.setenv("OMP_NUM_THREADS", "1")


@pytest.fixture
def app(tmp_path, small_clip):
    """A store with four clips whose statements annotators corrected and a reviewer accepted,
    settings that train the tiny model, the app's backends with the vlm captioner."""
    from db.store import Store

    settings = Settings(data_dir=tmp_path / "data", rounds_base="tiny", worker="external")
    store = Store(settings.database_url, settings.data_dir)
    paths = clips(tmp_path / "clips", small_clip)
    with_gold_pairs(store, paths)
    admin = store.users.add("ada", "admin", "ada-password")
    yield {"settings": settings, "store": store, "admin": admin, "paths": paths,
           "seed": heldout_seed(paths, rounds.TINY_SETTINGS["eval_fraction"])}
    store.close()


@pytest.fixture
def cycle(tmp_path, trained):
    """A copy of the session's store whose round #1 ran to the end, with the app's backends."""
    from db.store import Store

    settings = Settings(data_dir=trained.copy_to(tmp_path / "data"), rounds_base="tiny",
                        worker="external")
    store = Store(settings.database_url, settings.data_dir)
    yield {"settings": settings, "store": store, "admin": store.users.find("ada"),
           "round_id": trained.round_id, "paths": list(trained.clips),
           "backends": Backends.from_registry(("anchors", "vlm"))}
    store.close()


def _caption_with_vlm(app, clip: Path):
    ann = app["store"].users.find("ann")
    return caption.caption_clip(app["store"], app["backends"], app["settings"], ann, clip, "vlm")


def _run_in_thread(app, round_id: int) -> threading.Thread:
    t = threading.Thread(target=round_job.run_round,
                         args=(app["store"], app["settings"], round_id), daemon=True)
    t.start()
    return t


class _Queue:
    """A job queue that keeps the round for the test to run."""

    def __init__(self):
        self.ids = []

    def submit_round(self, round_id):
        self.ids.append(round_id)


def test_a_killed_round_fails_with_its_log_and_changes_nothing(app):
    """A round killed halfway fails with its log and leaves the serving version as it was."""
    store, admin, settings = app["store"], app["admin"], app["settings"]
    before = rounds.overview(store, settings, admin)
    assert (before.pairs, before.new_pairs) == (4, 4) and before.hardware.tiny
    assert before.per_aspect["Camera Movement"] == (4, 4)

    with_tiny_base(settings)
    serving = rounds.ensure_base(store, settings)
    queue = _Queue()
    killed = rounds.launch_round(store, settings, queue, admin, "sft", "serving",
                                 {"max_steps": 500, "seed": app["seed"]})
    assert queue.ids == [killed.id] and store.rounds.get(killed.id).status == "queued"
    t = _run_in_thread(app, killed.id)
    wait_until(lambda: store.rounds.get(killed.id).step >= 2, what="two steps")
    pid = int(store.rounds.get(killed.id).worker.rpartition(":")[2])
    os.kill(pid, signal.SIGKILL)  # the training process dies halfway
    t.join(timeout=60)
    dead = store.rounds.get(killed.id)
    assert dead.status == "failed" and dead.error == "the process was killed (SIGKILL)"
    assert "cinecap train sft" in dead.log and 2 <= dead.step < 500
    assert store.versions.get(dead.version_id).status == "failed"
    assert store.versions.find_serving() == serving  # untouched
    assert rounds.overview(store, settings, admin).new_pairs == 4  # it trained nothing


def test_a_full_active_learning_cycle(cycle):
    """A round run to the end: a new version with held-out scores, promoted, captioning in the
    Caption tab's use case, rolled back."""
    app = cycle
    store, admin, settings = app["store"], app["admin"], app["settings"]
    serving = store.versions.find_serving()
    # The job ran (the queue's immediate mode): trained in its own process, then scored.
    r = store.rounds.get(app["round_id"])
    assert r.status == "done", (r.error, r.log[-2000:])
    steps = TRAINED["max_steps"]
    assert r.step == r.max_steps == steps and r.data["pairs"] == 4
    held = r.data["heldout_clips"]
    assert 1 <= held <= 2 and r.data["train_clips"] == 4 - held

    new = store.versions.get(r.version_id)
    base = store.versions.get(r.base_version_id)
    assert (new.status, new.stage, new.parent_id) == ("ready", "sft", base.id)
    assert base == serving and (base.status, base.round_id) == ("serving", None)
    assert Path(new.model, "COMPLETE").is_file()
    # Held-out scores: both versions on the same held-out clips, the app's judge.
    assert new.scores["judged"] == held and new.scores["meta"]["judge"] == "rules"
    assert set(new.scores["by_aspect"]) == set(rounds.tx.ASPECTS)
    cmp = r.comparison
    assert cmp["new"]["scores"] == new.scores and cmp["serving"]["version_id"] == base.id
    assert cmp["serving"]["scores"]["judged"] == held and cmp["heldout_clips"] == held
    view = rounds.round_view(store, settings, admin, r.id)
    assert [p[0] for p in view.points] == list(range(1, steps + 1)) and {
        p[1] for p in view.points} == {"loss"} and view.can_promote
    after = rounds.overview(store, settings, admin)
    assert after.new_pairs == 0  # everything was trained on

    clip = app["paths"][0]
    old = _caption_with_vlm(app, clip)
    assert old.model_version_id == base.id and old.result["meta"]["model"] == base.model
    old_model = weakref.ref(app["backends"].captioner("vlm").loaded.model)

    versions.promote(store, app["backends"], admin, new.id)
    gc.collect()
    assert old_model() is None  # the old model was freed, no restart
    out = _caption_with_vlm(app, clip)
    assert out.model_version_id == new.id and out.result["meta"]["model"] == new.model
    assert f"model version {new.label}" in out.notes
    stored = store.clips.latest_caption(out.clip_id)
    assert (stored.captioner, stored.model_version) == ("vlm", f"round-{r.id}")
    from cinecap.captioners import get_captioner

    own = get_captioner("vlm", model=new.model, **new.options).caption(clip).caption
    assert out.result["caption"] == own != old.result["caption"]

    back = versions.rollback(store, app["backends"], admin)
    assert back.id == base.id and store.versions.get(new.id).status == "retired"
    again = _caption_with_vlm(app, clip)
    assert again.model_version_id == base.id
    assert again.result["caption"] == old.result["caption"]



#: accelerate on a machine without GPUs: its simple launcher, one process (several processes
#: on CPUs need MPI; several GPUs use configs/accelerate/ddp.yaml, whose DDP code path the
#: training tests run under torchrun).
ACCELERATE_CPU = """\
compute_environment: LOCAL_MACHINE
distributed_type: "NO"
num_machines: 1
num_processes: 1
mixed_precision: "no"
use_cpu: true
"""


def test_cancel_stops_the_round_process_group_under_accelerate_launch(app, tmp_path):
    """``Settings.accelerate_config``: the round is ``accelerate launch --config_file …
    -m cinecap train …`` (decided at launch); a cancel stops the whole process group, the
    launcher and the training process it started."""
    import dataclasses

    store, admin = app["store"], app["admin"]
    config = tmp_path / "cpu.yaml"
    config.write_text(ACCELERATE_CPU)
    settings = dataclasses.replace(app["settings"], accelerate_config=config)
    cmd = round_job.training_command(rounds.how_to_run(settings), "grpo",
                                     Path("/r/config.json"))
    assert cmd[1:5] == ["-m", "accelerate.commands.launch", "--config_file", str(config)]
    assert cmd[5:] == ["-m", "cinecap", "train", "grpo", "--config", "/r/config.json"]
    with_tiny_base(settings)
    queue = _Queue()
    r = rounds.launch_round(store, settings, queue, admin, "grpo", "base",
                            {"max_steps": 500, "seed": app["seed"]})
    # judge None: the training judge (docs/protocol.md), the rules judge standing in here
    assert r.config["num_generations"] == 2 and r.config["judge"] is None
    assert r.data["run"]["accelerate_config"] == str(config)
    t = _run_in_thread(app, r.id)  # the worker's own settings name no accelerate config
    wait_until(lambda: store.rounds.get(r.id).step >= 1, what="a GRPO step")
    start = store.rounds.events(r.id)[0].event
    assert start["event"] == "start" and start["processes"] == 1
    pid = int(store.rounds.get(r.id).worker.rpartition(":")[2])
    assert rounds.cancel_round(store, admin, r.id).cancel_requested
    t.join(timeout=60)
    done = store.rounds.get(r.id)
    assert (done.status, done.error) == ("cancelled", "cancelled by an admin")
    assert "-m accelerate.commands.launch --config_file" in done.log
    assert live_in_group(pid) == []  # the whole group is gone: launcher and training process
    view = rounds.round_view(store, settings, admin, r.id)
    assert {p[1] for p in view.points} == {"reward", "reward/s_cmp", "reward/s_acc"}
    assert not view.can_promote and not view.can_cancel
    assert store.versions.get(r.version_id).status == "failed"


def test_launching_refuses_what_could_not_train_or_be_scored(app):
    from cinecap.errors import InputError
    from db import PermissionDenied

    store, admin, settings = app["store"], app["admin"], app["settings"]
    queue = _Queue()
    with pytest.raises(InputError, match="holds none of the 4 clips out"):
        rounds.launch_round(store, settings, queue, admin, "sft", "serving",
                            {"eval_fraction": 0.0})
    with pytest.raises(InputError, match="unknown sft setting.*'max_step'"):
        rounds.launch_round(store, settings, queue, admin, "sft", "serving", {"max_step": 3})
    with pytest.raises(InputError, match="num_generations must be at least 2"):
        rounds.launch_round(store, settings, queue, admin, "grpo", "serving",
                            {"num_generations": 1})
    with pytest.raises(PermissionDenied, match="admin"):
        rounds.launch_round(store, settings, queue, store.users.find("rita"), "sft")
    assert queue.ids == [] and store.rounds.list() == []
    assert not any((settings.data_dir / "rounds").iterdir())  # nothing left behind
    store_empty = rounds.overview(store, settings, admin, include_submitted=False)
    assert store_empty.pairs == 4
    with pytest.raises(PermissionDenied):
        rounds.overview(store, settings, accounts.UserRecord(0, "x", "reviewer"))


#: Two admins launch at once on a fresh data directory, in an interpreter that has not imported
#: transformers yet (the app's, before its first round): then the launches, and then two builds
#: of the tiny base at once (what two processes wanting it do). JSON on stdout.
_AT_ONCE = """
import json, sys, threading
from pathlib import Path
from db.store import Store
from ui.settings import Settings
from ui.usecases import rounds

settings = Settings(data_dir=Path(sys.argv[1]), rounds_base="tiny", worker="external")
store = Store(settings.database_url, settings.data_dir)
admin = store.users.find("ada")
out = {"rounds": [], "errors": [], "built": []}

class Queue:
    def submit_round(self, round_id):
        pass

def at_once(fn):
    start = threading.Barrier(2)
    def run():
        start.wait()
        try:
            fn()
        except Exception as e:
            out["errors"].append(repr(e))
    threads = [threading.Thread(target=run) for _ in range(2)]
    [t.start() for t in threads]
    [t.join() for t in threads]

at_once(lambda: out["rounds"].append(rounds.launch_round(
    store, settings, Queue(), admin, "sft", "serving", {"max_steps": 1, "seed": int(sys.argv[2])}
).id))
out["transformers_after_launch"] = "transformers" in sys.modules
out["built_by_launch"] = rounds.tiny_model_dir(settings).exists()
out["versions_after_launch"] = len(store.versions.list())
path = rounds.tiny_model_dir(settings)
at_once(lambda: out["built"].append(rounds.build_tiny_once(path)))
at_once(lambda: out["rounds"].append(rounds.tiny_base(store, path).id))
out["left_beside"] = sorted(p.name for p in path.parent.iterdir())
print(json.dumps(out))
"""


def test_two_first_launches_at_once_queue_both_and_the_base_is_built_once(app):
    """Issue 26: the first launch on a fresh data directory built the tiny model inside the
    request; two at once imported transformers in two threads at once and one failed
    ("internal error (ImportError)", no round), the next one worked. Now a launch builds nothing
    (the round's job builds the base), and two builds at once make one model, atomically."""
    import json
    import subprocess
    import sys

    from cinecap.testing.tiny import is_tiny_build

    settings = app["settings"]
    done = subprocess.run([sys.executable, "-c", _AT_ONCE, str(settings.data_dir),
                           str(app["seed"])], cwd=round_job.ROOT, env=round_job.child_env(),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.splitlines()[-1])
    assert out["errors"] == []
    launched, bases = out["rounds"][:2], out["rounds"][2:]
    assert len(launched) == 2 and not out["transformers_after_launch"]
    assert not out["built_by_launch"] and out["versions_after_launch"] == 2  # the rounds' own
    store = app["store"]
    for rid in launched:
        r = store.rounds.get(rid)
        assert r.status == "queued" and r.base_version_id is None
        assert r.data["build_base"] == str(rounds.tiny_model_dir(settings))
        assert r.config["base"] == r.data["build_base"]
    assert sorted(out["built"]) == [False, True]  # one build; the other waited and found it
    assert len(set(bases)) == 1 and is_tiny_build(rounds.tiny_model_dir(settings))
    assert out["left_beside"] == ["tiny-qwen3_vl", "tiny-qwen3_vl.lock"]  # no half-built copy
    base = store.versions.get(bases[0])
    assert base.status == "serving" and base.round_id is None
