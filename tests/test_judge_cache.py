"""The judge cache: a real SQLite file shared by threads and by separate processes."""
from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cinecap import taxonomy as tx
from cinecap.errors import InputError
from cinecap.judge.base import AspectCounts, Judgement
from cinecap.judge.cache import JudgeCache, cache_key, default_path

ROOT = Path(__file__).resolve().parents[1]


def judgement(n: int, version: str = "v1") -> Judgement:
    dims = {a: AspectCounts() for a in tx.ASPECTS}
    dims[tx.CAMERA_MOVEMENT] = AspectCounts([f"gt {n}"], [f"pred {n}"], [f"gt {n}"], 1, 1, 1)
    return Judgement(dims, "llm", version)


def test_key_depends_on_every_part_and_is_unambiguous():
    base = ("model", "v1", tx.ASPECTS, "gt", "pred")
    key = cache_key(*base)
    assert key == cache_key(*base) and len(key) == 64
    for i, other in enumerate(["model2", "v2", tx.TRAINING_ASPECTS, "gt2", "pred2"]):
        changed = list(base)
        changed[i] = other
        assert cache_key(*changed) != key
    # Moving text across the GT/prediction boundary is another pair, another key.
    assert cache_key("m", "v", tx.ASPECTS, "ab", "c") != cache_key("m", "v", tx.ASPECTS, "a", "bc")


def test_round_trip_and_failures_are_not_stored(tmp_path):
    cache = JudgeCache(tmp_path / "j.sqlite")
    j = judgement(1)
    assert cache.get("k") is None
    assert cache.put("k", "model", j)
    back = cache.get("k")
    assert back.to_dict() == j.to_dict() and back.aspects == tx.ASPECTS
    six = Judgement({a: AspectCounts() for a in tx.TRAINING_ASPECTS}, "llm", "v1",
                    aspects=tx.TRAINING_ASPECTS)
    cache.put("six", "model", six)
    assert cache.get("six").aspects == tx.TRAINING_ASPECTS
    assert not cache.put("bad", "model", Judgement.failure("llm", "v1", "server down"))
    assert cache.get("bad") is None and len(cache) == 2
    assert cache.clear() == 2 and len(cache) == 0


def test_default_location_follows_cinecap_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("CINECAP_CACHE_DIR", str(tmp_path / "here"))
    assert default_path() == tmp_path / "here" / "judge.sqlite"
    assert JudgeCache().path.is_file()
    monkeypatch.delenv("CINECAP_CACHE_DIR")
    assert default_path() == Path.home() / ".cache" / "cinecap" / "judge.sqlite"


def test_unusable_location_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(InputError, match="cannot use judge cache file"):
        JudgeCache(blocker / "judge.sqlite")
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database" * 100)
    with pytest.raises(InputError, match="CINECAP_CACHE_DIR"):
        JudgeCache(garbage)


def test_many_threads_write_and_read_one_file(tmp_path):
    cache = JudgeCache(tmp_path / "j.sqlite")

    def work(n: int) -> bool:
        cache.put(f"k{n}", "m", judgement(n))
        return cache.get(f"k{n}").by_dim[tx.CAMERA_MOVEMENT].gt_statements == [f"gt {n}"]

    with ThreadPoolExecutor(16) as pool:
        assert all(pool.map(work, range(200)))
    assert len(cache) == 200


_WRITER = """
import sys
sys.path.insert(0, sys.argv[3])
from cinecap import taxonomy as tx
from cinecap.judge.base import AspectCounts, Judgement
from cinecap.judge.cache import JudgeCache
cache = JudgeCache(sys.argv[1])
who = sys.argv[2]
for n in range(60):
    dims = {a: AspectCounts() for a in tx.ASPECTS}
    dims[tx.SHOT_SIZE] = AspectCounts([who], [who], [who], 1, 1, 1)
    cache.put(f"{who}-{n}", "m", Judgement(dims, "llm", "v1"))
    assert cache.get(f"{who}-{n}") is not None
print("ok")
"""


def test_separate_processes_share_the_file(tmp_path):
    path = tmp_path / "shared.sqlite"
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), f"p{i}", str(ROOT)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [e for _, e in outs]
    cache = JudgeCache(path)
    assert len(cache) == 180
    assert cache.get("p2-59").by_dim[tx.SHOT_SIZE].gt_statements == ["p2"]
    rows = json.loads(json.dumps([cache.get(f"p{i}-0").to_dict() for i in range(3)]))
    assert {r["by_dim"][tx.SHOT_SIZE]["gt_statements"][0] for r in rows} == {"p0", "p1", "p2"}
