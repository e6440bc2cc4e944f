"""``python -m ui rounds`` and ``versions``: the same use cases as the Train tab, from the app's
command line (run as the console admin), errors as one line and an exit code."""
from __future__ import annotations

import json

import pytest

from tests.support.rounds import clips, heldout_seed, with_gold_pairs
from ui.cli import main
from ui.usecases import rounds

pytestmark = pytest.mark.slow


@pytest.fixture
def store_args(tmp_path, small_clip, monkeypatch):
    from db.store import Store

    monkeypatch.setenv("CINECAP_WORKER", "external")  # nothing runs the queued rounds here
    monkeypatch.setenv("CINECAP_ROUNDS_BASE", "tiny")
    data = tmp_path / "data"
    url = f"sqlite:///{data / 'cinecap.sqlite3'}"
    store = Store(url, data)
    paths = clips(tmp_path / "clips", small_clip)
    with_gold_pairs(store, paths)
    store.close()
    return ["--database-url", url, "--data-dir", str(data)], paths


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_launch_list_show_cancel_and_versions(capsys, store_args):
    args, paths = store_args
    seed = heldout_seed(paths, rounds.TINY_SETTINGS["eval_fraction"])
    code, out, _ = _run(capsys, "rounds", *args, "launch", "sft", "--set", "max_steps=2",
                        "--set", f"seed={seed}")
    assert code == 0 and out.startswith("round #1 (sft) queued: 4 gold pairs, ")
    # #1: the anchors captions; the tiny base is built and registered by the round's job
    assert "version #2 will hold it" in out
    code, out, _ = _run(capsys, "rounds", *args, "list", "--json")
    (listed,) = json.loads(out)
    assert (listed["status"], listed["pairs"], listed["base_version_id"]) == ("queued", 4, None)
    code, out, _ = _run(capsys, "rounds", *args, "cancel", "1")
    assert (code, out.strip()) == (0, "round #1: cancelled")
    code, out, _ = _run(capsys, "rounds", *args, "show", "1")
    assert out.startswith("round #1 (sft): cancelled, step 0/? - cancelled before it started")
    code, out, _ = _run(capsys, "versions", *args, "list", "--json")
    assert [(v["id"], v["status"]) for v in json.loads(out)] == [(2, "failed")]  # no base built

    code, out, err = _run(capsys, "rounds", *args, "launch", "grpo", "--set",
                          "num_generations=1")
    assert code == 2 and out == ""
    assert err.startswith("error: num_generations must be at least 2") and err.count("\n") == 1
    code, _, err = _run(capsys, "rounds", *args, "launch", "sft", "--set", "seed")
    assert code == 2 and err.strip() == "error: --set needs KEY=VALUE, got 'seed'"
    code, _, err = _run(capsys, "versions", *args, "rollback")
    assert code == 2 and err.strip() == "error: no model version is serving: nothing to roll back"
    code, _, err = _run(capsys, "rounds", *args, "show", "7")
    assert code == 2 and err.strip() == "error: no round #7"
