"""How long each scheduling unit of the suite takes (a test file, or a group of files sharing a
session fixture: :data:`SHARED`), and the order pytest-xdist hands them out in.

xdist gives a worker its next unit when it is nearly out of work, in the collection's order. The
longest first, then shorter and shorter ones, keeps the two workers' ends close together (the
longest-processing-time rule); handed out by file name, a unit of minutes that came last ran
alone while the other worker sat idle. The seconds come from a recorded run on the CI machine
(``pytest --record-unit-seconds tests/support/unit_seconds.json``, all units, both workers):
wall-clock times of one run, good enough to order by. A unit the table does not know yet (a
new test file) is estimated from its number of tests and slow tests."""
from __future__ import annotations

import json
from pathlib import Path

TABLE = Path(__file__).with_name("unit_seconds.json")
#: Test files that share a session fixture, run on one pytest-xdist worker so it is made once.
SHARED = {"tests/test_rounds.py": "trained-round", "tests/test_browser_train.py": "trained-round",
          "tests/test_anchors_captioner.py": "anchors-captions",
          "tests/test_anchors_subjects.py": "anchors-captions"}
#: A unit the table lacks: seconds per test, per slow test (about the suite's medians).
FAST_TEST_S, SLOW_TEST_S = 0.3, 10.0


def unit(nodeid: str) -> str:
    """A test's scheduling unit: its file, or the group of :data:`SHARED` the file is in."""
    path = nodeid.split("::", 1)[0]
    return SHARED.get(path, path)


def recorded(path: Path = TABLE) -> dict[str, float]:
    try:
        return {str(k): float(v) for k, v in json.loads(path.read_text()).items()}
    except (OSError, ValueError, AttributeError):
        return {}  # no table (or a broken one): every unit is estimated


def estimate(tests: list) -> float:
    """Seconds for a unit the table lacks, from its tests (pytest items)."""
    return sum(SLOW_TEST_S if t.get_closest_marker("slow") else FAST_TEST_S for t in tests)


def longest_first(units: dict[str, list], table: dict[str, float] | None = None) -> list[str]:
    """The units' names, the longest first (recorded seconds, else :func:`estimate`); ties keep
    the collection's order."""
    seconds = recorded() if table is None else table
    order = {u: i for i, u in enumerate(units)}
    return sorted(units, key=lambda u: (-seconds.get(u, estimate(units[u])), order[u]))


def write_seconds(path: Path, spent: dict[str, float]) -> None:
    """The seconds a run spent per unit (setup, call and teardown of its tests) into the table
    at ``path``, longest first; the units this run did not run keep their recorded seconds."""
    merged = {**recorded(path), **{u: round(s, 1) for u, s in spent.items()}}
    table = dict(sorted(merged.items(), key=lambda kv: -kv[1]))
    path.write_text(json.dumps(table, indent=0) + "\n", encoding="utf-8")
