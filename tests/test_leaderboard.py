"""Benchmark runs in the store and the leaderboard's use cases: a run stored and shown, an
interrupted run resumed to the same table, results files checked (good, wrong schema, wrong
aspects, unknown bench, edited scores, wrong type or size, a viewer), the paper's figures marked
reported and never ranked with measured rows, rows grouped by bench and protocol, filters, sort,
search, CSV."""
from __future__ import annotations

import copy
import csv
import json

import pytest

from cinecap.errors import InputError
from db.errors import PermissionDenied, StoreConflict
from db.records import UserRecord
from tests.support.bench_results import (FAIR, GOLD, GOOD, POOR, PROTOCOL, TableCaptioner,
                                         bench_file, known, results, write)
from tests.support.stores import store  # noqa: F401 - the fixture
from ui.usecases import bench as ub
from ui.usecases import leaderboard as lb
from ui.usecases.accounts import CONSOLE

VIEWER = UserRecord(0, "anonymous", "viewer", "none")


@pytest.fixture
def sqlite_store(tmp_path):
    from db.store import Store

    s = Store(f"sqlite:///{tmp_path / 'lb.sqlite3'}", tmp_path / "data")
    yield s
    s.close()


def rules():
    from cinecap.judge import get_judge

    return get_judge("rules")


def test_a_bench_run_is_stored_and_shown(store, tmp_path):  # noqa: F811 - the fixture
    bench = bench_file(tmp_path / "b")
    out = ub.run_bench(store, CONSOLE, bench, captioner_backend=TableCaptioner(FAIR, "fair"),
                       judge_backend=rules(), out=tmp_path / "r.json",
                       labels=ub.Labels(version="v7", round=3))
    run = store.bench_runs.get(out.run.id)
    assert run.status == "done" and run.items == 3 and run.bench_name == "bench.json"
    assert (run.model, run.model_family, run.model_version, run.round) == ("fair", "fair", "v7", 3)
    assert run.judge == "rules" and run.protocol["judge"] == "rules"
    written = json.loads((tmp_path / "r.json").read_text())
    named = "protocol" in written  # whether the library names its protocol in its results yet
    if named:
        assert run.protocol == written["protocol"]  # stored whole
    else:  # the judge and its version from meta, the rest unknown
        assert run.protocol["judge_version"] == written["meta"]["judge_version"]
        assert run.protocol["prompt"] == run.protocol["counting"] == "unknown"
    # Both averaging conventions, labelled, as the library computed them.
    assert run.scores == written["scores"] and run.f1 == written["scores"]["f1"]
    agg = run.scores["by_aspect"]["Camera Movement"]
    assert {"cmp_all_clips", "acc_all_clips", "cmp_present_only", "acc_present_only",
            "mean_all_clips"} <= set(agg) and "released" in run.scores["averaging"]
    assert "Camera Movement" in out.table and "overall" in out.table
    # Per clip: the model's caption beside the gold one, with its F1.
    items = store.bench_runs.items(run.id)
    assert [(i.video, i.gt_caption, i.caption) for i in items] == [
        (n, GOLD[n], FAIR[n]) for n in ("a.mp4", "b.mp4", "c.mp4")]
    assert all(i.f1 is not None and "judgement" in i.row for i in items)
    # Shown on the leaderboard with its scores: ranked when its protocol is known, else not, and
    # the page says why.
    board = lb.board(store, VIEWER)
    e = next(e for e in board.entries if e.key == str(run.id))
    assert e.f1 == run.f1 and e.aspects_all["Camera Movement"] == agg["mean_all_clips"]
    if named:
        assert (e.group, e.rank) == ("A", 1) and board.unranked == []
    else:
        assert e.rank is None and "prompt, counting" in e.note and board.unranked == [e]
    entry, clips = lb.clip_results(store, VIEWER, f"#{run.id}")
    assert entry.key == str(run.id) and [c.caption for c in clips] == list(FAIR.values())
    # The per-clip heading names the rank the table shows (issue 26: "(not ranked)" beside A1).
    assert (entry.group, entry.rank, entry.label) == (e.group, e.rank, e.label)
    assert ("(A1)" in entry.label) if named else ("(not ranked)" in entry.label)
    # The results file it wrote is that entry: recording it again adds nothing.
    with pytest.raises(StoreConflict, match=f"entry #{run.id}"):
        ub.record_results(store, CONSOLE, tmp_path / "r.json")
    assert store.counts()["bench_runs"] == 1


def test_an_interrupted_run_resumed_gives_the_same_table(sqlite_store, tmp_path):
    s = sqlite_store
    bench = bench_file(tmp_path / "b")
    whole = ub.run_bench(s, CONSOLE, bench, captioner_backend=TableCaptioner(FAIR),
                         judge_backend=rules())
    stopped = TableCaptioner(FAIR, stop_at="c.mp4")
    with pytest.raises(KeyboardInterrupt):
        ub.run_bench(s, CONSOLE, bench, captioner_backend=stopped, judge_backend=rules())
    [left] = ub.unfinished(s, CONSOLE)
    assert left.status == "running" and sorted(s.bench_runs.rows(left.id)) == [0, 1]
    assert [e.key for e in lb.board(s, VIEWER).entries if e.kind == "measured"] == [
        str(whole.run.id)]  # an unfinished run is not on the leaderboard
    with pytest.raises(InputError, match="another judge version"):
        ub.run_bench(s, CONSOLE, bench, captioner_backend=TableCaptioner(FAIR),
                     judge_backend=_OtherVersion(), resume=left.id)
    rest = TableCaptioner(FAIR)
    resumed = ub.run_bench(s, CONSOLE, bench, captioner_backend=rest, judge_backend=rules(),
                           resume=left.id)
    assert rest.calls == ["c.mp4"] and resumed.resumed_rows == 2  # kept clips not redone
    assert resumed.table == whole.table
    assert resumed.run.scores == whole.run.scores and resumed.run.status == "done"
    with pytest.raises(InputError, match="is finished"):
        ub.run_bench(s, CONSOLE, bench, captioner_backend=rest, judge_backend=rules(),
                     resume=left.id)


class _OtherVersion:
    """The rules judge claiming another version (a judge upgraded between two sessions)."""

    def __init__(self):
        self._judge = rules()
        self.name, self.version = self._judge.name, "rules-0.1"

    def judge_many(self, *a, **kw):
        return self._judge.judge_many(*a, **kw)


def test_results_files_are_checked(sqlite_store, tmp_path):
    s = sqlite_store
    bench = bench_file(tmp_path / "b")
    good = results(bench, GOOD, "good")
    unknown = write(tmp_path / "good.json", good)
    # The bench is unknown here: refused, unless declared by name.
    with pytest.raises(InputError, match="bench this app does not know"):
        ub.record_results(s, CONSOLE, unknown)
    run = ub.record_results(s, CONSOLE, unknown, bench_name="CineCap-Bench mini")
    assert run.bench_name == "CineCap-Bench mini" and run.protocol == PROTOCOL
    assert s.bench_runs.find_bench(run.bench_sha256).source == "declared"
    # Now the bench is known: a second file needs no name.
    fair = ub.record_results(s, CONSOLE, write(tmp_path / "fair.json", results(bench, FAIR)))
    assert fair.bench_name == "CineCap-Bench mini"

    def refused(data, match, name="bad.json", **kw):
        path = tmp_path / name
        path.write_text(data if isinstance(data, str) else json.dumps(data))
        with pytest.raises(InputError, match=match):
            ub.record_results(s, CONSOLE, path, **kw)

    # Wrong schema.
    refused([1, 2], "not a cinecap bench results file")
    refused({"meta": {}, "scores": {}}, "not a cinecap bench results file")
    refused({**good, "items": {}}, "items a list")
    refused({**good, "meta": {**good["meta"], "bench_sha256": "abc"}}, "not a sha256")
    bad_item = copy.deepcopy(good)
    bad_item["items"][1] = {"caption": "x"}
    refused(bad_item, "item 1 needs video_path")
    refused({**good, "protocol": {"judge": "rules", "counting": 3}}, "flat, strings only")
    # Wrong aspects.
    lighting = copy.deepcopy(good)
    lighting["meta"]["aspects"] = [*good["meta"]["aspects"][:6], "Lighting"]
    refused(lighting, "unknown aspect\\(s\\) 'Lighting'")
    six = copy.deepcopy(good)
    six["meta"]["aspects"] = good["meta"]["aspects"][:6]
    refused(six, "scores.by_aspect has .*Special Shots, not the run's aspects")
    dims = copy.deepcopy(good)
    del dims["items"][2]["judgement"]["by_dim"]["Composition"]
    refused(dims, "item 2's judgement covers")
    # Scores that do not follow from the per-clip judgements.
    edited = copy.deepcopy(good)
    edited["scores"]["f1"] = 0.99
    refused(edited, "scores.f1 is 0.9900 but the per-clip judgements give")
    # Type, size, encoding.
    refused("{}", "not a results file: expected a .json", name="r.txt")
    refused("{not json", "not valid JSON \\(line 1")
    refused('{"meta": NaN}', "NaN")
    big = write(tmp_path / "big.json", good)
    with pytest.raises(InputError, match="over the limit of 0 MB"):
        ub.record_results(s, CONSOLE, big, max_bytes=100)
    # Adding needs a reviewer (Settings.leaderboard_add_role).
    with pytest.raises(PermissionDenied, match="reviewer role"):
        ub.record_results(s, VIEWER, unknown)
    assert s.counts()["bench_runs"] == 2


def test_reported_figures_are_marked_and_never_ranked_with_measured_rows(sqlite_store,
                                                                        tmp_path):
    s = sqlite_store
    bench = bench_file(tmp_path / "b")
    known(s, bench, "mini")
    for name, answers in (("good", GOOD), ("poor", POOR)):
        ub.record_results(s, CONSOLE, write(tmp_path / f"{name}.json",
                                            results(bench, answers, name)), bench_name="mini")
    board = lb.board(s, VIEWER)
    reported = [e for e in board.entries if e.kind == "reported"]
    # The paper's figures as it states them: CineCap-GRPO-8B F1 73.57 (camera movement 57.44,
    # depth of field 81.29, camera angle 89.20) and Gemini-3.1-Pro F1 52.45; nothing invented.
    assert [(e.key, e.model, e.f1) for e in reported] == [
        ("R1", "CineCap-GRPO-8B", 0.7357), ("R2", "Gemini-3.1-Pro", 0.5245)]
    assert {a: v for a, v in reported[0].aspects_all.items() if v is not None} == {
        "Camera Movement": 0.5744, "Depth of Field": 0.8129, "Camera Angle": 0.8920}
    assert all(v is None for v in reported[1].aspects_all.values())
    assert all(e.group == "reported" and "reported in" in e.note for e in reported)
    measured = [e for e in board.entries if e.kind == "measured"]
    # The good model's F1 (1.0) is above 73.57, yet no reported row shares its group or ranks.
    assert [(e.model, e.group, e.rank) for e in measured] == [("good", "A", 1), ("poor", "A", 2)]
    assert {e.group for e in measured}.isdisjoint({e.group for e in reported})
    assert [e.key for e in lb.board(s, VIEWER, lb.Filters(reported=False)).entries] == [
        e.key for e in measured]
    with pytest.raises(InputError, match="reported in the paper"):
        lb.clip_results(s, VIEWER, "R1")


def test_rows_group_by_bench_and_protocol_filters_sort_search_csv(sqlite_store, tmp_path):
    s = sqlite_store
    bench = bench_file(tmp_path / "b")
    other = bench_file(tmp_path / "o", ("a.mp4", "b.mp4"))
    known(s, bench, "mini")
    known(s, other, "o/bench")
    # The judge's side of a protocol is the server's (each file is judged again here); the
    # captioner's side is the file's word: another sampling is another group.
    released = {**PROTOCOL, "sampling": "frames:8"}
    made = {}
    for name, data in (("good", results(bench, GOOD, "CineCap-SFT-8B")),
                       ("fair", results(bench, FAIR, "Qwen3-VL-8B")),
                       ("poor", {**(p := results(bench, POOR, "=HYPERLINK(1)")), "meta": {
                           **p["meta"], "date": '=HYPERLINK("x","y")'}}),
                       ("released", results(bench, FAIR, "Qwen3-VL-8B", released)),
                       ("other", results(other, GOOD, "CineCap-SFT-8B")),
                       ("old", results(bench, FAIR, "Qwen3-VL-8B", protocol=None))):
        made[name] = ub.record_results(s, CONSOLE, write(tmp_path / f"{name}.json", data),
                                       bench_name="o/bench" if name == "other" else "mini")
    board = lb.board(s, VIEWER, lb.Filters(reported=False))
    by = {e.key: e for e in board.entries}
    g = {n: by[str(r.id)] for n, r in made.items()}
    # Same bench and protocol: one group, ranked by F1. Another counting or another bench: its
    # own group. An older file without a protocol: shown, not ranked.
    assert g["good"].group == g["fair"].group == g["poor"].group
    assert [g[n].rank for n in ("good", "fair", "poor")] == [1, 2, 3]
    assert len({g["good"].group, g["released"].group, g["other"].group}) == 3
    assert g["released"].rank == g["other"].rank == 1 and g["old"].rank is None
    assert len(board.groups) == 3 and board.unranked == [g["old"]]
    assert g["good"].family == "CineCap" and g["fair"].family == "Qwen"
    # Filters and search.
    def keys(**kw):
        return [e.key for e in lb.board(s, VIEWER, lb.Filters(reported=False, **kw)).entries]
    assert set(keys(family="Qwen")) == {str(made[n].id) for n in ("fair", "released", "old")}
    assert keys(bench=made["other"].bench_name) == [str(made["other"].id)]
    assert keys(search="sft o/bench") == [str(made["other"].id)]
    assert keys(judge="nobody 1") == []
    assert set(keys(judge=g["good"].judge)) == set(by)
    # Sort: F1 both ways (blanks last), an aspect, and the default by group and rank.
    f1s = [by[k].f1 for k in keys(sort="F1")]
    assert f1s == sorted(f1s, reverse=True)
    assert [by[k].f1 for k in keys(sort="F1", descending=False)] == sorted(f1s)
    cm = [by[k].aspect("Camera Movement") for k in keys(sort="Camera Movement")]
    assert cm == sorted(cm, reverse=True)
    assert keys()[-1] == str(made["old"].id)  # unranked last
    with pytest.raises(InputError, match="cannot sort by"):
        keys(sort="bogus")
    # CSV of the rows shown: full precision, both conventions, the protocol; no formula cells.
    path = lb.write_csv(lb.board(s, VIEWER).entries, tmp_path)
    with path.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(by) + 2 and [r["kind"] for r in rows].count("reported") == 2
    poor = next(r for r in rows if r["entry"] == str(made["poor"].id))
    assert poor["model"] == "'=HYPERLINK(1)" and json.loads(poor["protocol"]) == PROTOCOL
    assert poor["date"] == "'=HYPERLINK(\"x\",\"y\")"  # every column, the date too
    formula = [(r["entry"], k) for r in rows for k, v in r.items() if v and v[0] in "=+-@\t\r"]
    assert formula == []
    assert float(poor["f1"]) == pytest.approx(g["poor"].f1)
    assert "Camera Movement (present only)" in poor
