"""The suite's scheduling (tests/conftest.py, tests/support/units.py): the table of recorded unit
seconds names only units that exist, and the units go out longest first."""
from __future__ import annotations

import json
from pathlib import Path

from tests.support import units
from tests.support.units import SHARED

ROOT = Path(__file__).resolve().parent.parent


class _Item:
    def __init__(self, slow: bool = False):
        self.slow = slow

    def get_closest_marker(self, name: str):
        return object() if name == "slow" and self.slow else None


def test_the_table_names_only_units_that_exist():
    table = units.recorded()  # empty without a table: every unit estimated
    known = set(SHARED.values())
    stale = [u for u in table if u not in known and not (ROOT / u).is_file()]
    assert stale == [], f"renamed or removed: re-record {units.TABLE.name} ({stale})"
    assert not any(path in table for path in SHARED), "a SHARED file is recorded under its group"


def test_units_go_out_longest_first_and_unknown_ones_are_estimated(tmp_path):
    found = {"unit-a": [_Item()] * 3, "unit-b": [_Item()],
             "new": [_Item(slow=True), _Item()], "unit-c": [_Item()]}
    table = {"unit-a": 2.0, "unit-b": 40.0, "unit-c": 2.0}
    # new: one slow and one fast test, estimated between b and a (ties keep their order)
    assert units.longest_first(found, table) == ["unit-b", "new", "unit-a", "unit-c"]
    assert units.estimate(found["new"]) == units.SLOW_TEST_S + units.FAST_TEST_S

    path = tmp_path / "seconds.json"
    units.write_seconds(path, {"unit-a": 1.234, "unit-b": 9.87})
    assert list(json.loads(path.read_text()).items()) == [("unit-b", 9.9), ("unit-a", 1.2)]
    units.write_seconds(path, {"unit-a": 20.0})  # a run of one file keeps the rest
    assert list(units.recorded(path).items()) == [("unit-a", 20.0), ("unit-b", 9.9)]
    path.write_text("not json")
    assert units.recorded(path) == {}
