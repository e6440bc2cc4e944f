"""Leaderboard entries earn "measured" only when this server judged them (issue 27 item 3).

Before: ``bench add`` checked only that a file's scores follow from its own per-clip judgements,
which its author writes; a results file from a judge server answering consistent made-up lists
went on the board as "MyModel-v2 … F1 100.00", measured, ranked first, ``judge_model=gpt-4o``; a
run judged on 1 clip of 2 ranked first at F1 100.00 with no note; a run where every judgement
failed ranked at 0.00. Here: real clips captioned by the real anchors captioner through the
library's own bench code (what ``cinecap bench --out`` writes), then forged as the report did; the
server judges each file again with the rules judge against the bench's own gold captions.
"""
from __future__ import annotations

import copy
import json

import pytest

from cinecap.errors import InputError
from db.errors import PermissionDenied
from db.records import UserRecord
from tests.support.bench_results import write
from ui.usecases import bench as ub
from ui.usecases import leaderboard as lb
from ui.usecases.accounts import CONSOLE

VIEWER = UserRecord(0, "anonymous", "viewer", "none")
GOLD = ("A static medium shot of a man who faces the camera, at eye level.",
        "The camera pans right over a textured surface. A close-up.")


@pytest.fixture(scope="module")
def made(tmp_path_factory, carphone, small_clip):
    """A two-clip bench of real footage and the results the library writes for it."""
    from cinecap.bench import load_bench, run_bench
    from cinecap.captioners import get_captioner
    from cinecap.files import sha256_file
    from cinecap.judge import get_judge

    folder = tmp_path_factory.mktemp("bench")
    bench = folder / "bench.json"
    bench.write_text(json.dumps([{"video_path": str(carphone), "gt_caption": GOLD[0]},
                                 {"video_path": str(small_clip), "gt_caption": GOLD[1]}]))
    results = run_bench(load_bench(bench), get_captioner("anchors"), get_judge("rules"),
                        meta={"bench_file": str(bench), "bench_sha256": sha256_file(bench),
                              "options": {}, "judge_options": {}}).to_dict()
    return bench, sha256_file(bench), results


@pytest.fixture
def store(tmp_path):
    from db.store import Store

    s = Store(f"sqlite:///{tmp_path / 'lb.sqlite3'}", tmp_path / "data")
    yield s
    s.close()


def _forged(results: dict) -> dict:
    """What a judge server that answers consistent made-up lists produces: every clip judged as
    if the caption said exactly the gold caption (the lists agree with the counts), the scores
    aggregated from those judgements, the judge named gpt-4o."""
    from cinecap.judge import Judgement, get_judge
    from cinecap.judge.scores import aggregate

    rules = get_judge("rules")
    out = copy.deepcopy(results)
    judgements = []
    for row in out["items"]:
        j = rules.judge(row["gt_caption"], row["gt_caption"])
        row["judgement"] = {**j.to_dict(), "judge": "llm", "judge_version": "llm-1"}
        judgements.append(Judgement.from_dict(row["judgement"], aspects=out["meta"]["aspects"]))
    out["scores"] = aggregate(judgements, out["meta"]["aspects"]).to_dict()
    out["meta"].update(judge="llm", judge_version="llm-1")
    out["protocol"] = {**out["protocol"], "judge": "llm", "judge_version": "llm-1",
                       "judge_model": "gpt-4o"}
    return out


def test_a_made_up_perfect_score_is_judged_again_here(store, made, tmp_path):
    bench, digest, honest = made
    store.bench_runs.add_bench(digest, "real-footage", 2, "import", CONSOLE, file=bench)
    forged = _forged(honest)
    ub.check_results(forged)  # consistent: the old check alone accepted it
    assert forged["scores"]["f1"] == pytest.approx(1.0)
    run = ub.record_results(store, CONSOLE, write(tmp_path / "mymodel.json", forged),
                            labels=ub.Labels(model="MyModel-v2"))
    # Stored as this server judged it: the rules judge's score of the real captions.
    assert run.f1 == pytest.approx(honest["scores"]["f1"]) and run.f1 < 0.9
    assert run.judge == "rules" and run.protocol["judge"] == "rules"
    assert run.protocol["judge_model"] == "none" and ub.judged_here(run)
    assert run.meta[ub.SERVER_KEY]["file_judge"] == "llm"
    [entry] = [e for e in lb.board(store, VIEWER).entries if e.key == str(run.id)]
    assert (entry.kind, entry.model, entry.rank) == ("measured", "MyModel-v2", 1)
    assert entry.f1 == pytest.approx(honest["scores"]["f1"])
    # The rows hold the server's judgement against the bench's own gold captions.
    items = store.bench_runs.items(run.id)
    assert [i.gt_caption for i in items] == list(GOLD)
    assert all(i.row["judgement"]["judge"] == "rules" for i in items)


def test_gold_captions_in_the_file_do_not_count(store, made, tmp_path):
    """A file whose gold captions were swapped for its own captions (a perfect match) is judged
    against the bench's gold captions all the same; a file on another bench's clips is refused."""
    bench, digest, honest = made
    store.bench_runs.add_bench(digest, "real-footage", 2, "import", CONSOLE, file=bench)
    swapped = copy.deepcopy(honest)
    for row in swapped["items"]:
        row["gt_caption"] = row["caption"]
    run = ub.record_results(store, CONSOLE, write(tmp_path / "swapped.json", swapped))
    assert run.f1 == pytest.approx(honest["scores"]["f1"])
    moved = copy.deepcopy(honest)
    moved["items"].reverse()
    with pytest.raises(InputError, match="clip 1 is 'slide.mp4' but the bench's clip 1 is "
                                         "'carphone_pristine.mp4'"):
        ub.record_results(store, CONSOLE, write(tmp_path / "moved.json", moved))


def test_failed_clips_count_and_a_run_with_no_judgement_is_not_ranked(store, made, tmp_path):
    bench, digest, honest = made
    store.bench_runs.add_bench(digest, "real-footage", 2, "import", CONSOLE, file=bench)
    half = copy.deepcopy(honest)  # the second clip's caption failed: judged 1, failed 1
    half["items"][1].update(caption=None, error="the model server timed out")
    half["items"][1].pop("judgement")
    from cinecap.judge import Judgement
    from cinecap.judge.scores import aggregate

    half["scores"] = aggregate([Judgement.from_dict(half["items"][0]["judgement"])],
                               half["meta"]["aspects"]).to_dict()
    none = copy.deepcopy(half)
    none["items"][0].update(caption=None, error="the model server timed out")
    none["items"][0].pop("judgement")
    none["scores"] = aggregate([], none["meta"]["aspects"]).to_dict()
    full = ub.record_results(store, CONSOLE, write(tmp_path / "full.json", honest),
                             labels=ub.Labels(model="full"))
    one = ub.record_results(store, CONSOLE, write(tmp_path / "half.json", half),
                            labels=ub.Labels(model="half"))
    zero = ub.record_results(store, CONSOLE, write(tmp_path / "none.json", none),
                             labels=ub.Labels(model="none"))
    by = {e.model: e for e in lb.board(store, VIEWER).entries if e.kind != "reported"}
    # The failed clip scores 0: half the first clip's F1, ranked below the run judged on both.
    first_only = one.f1
    assert by["half"].f1 == pytest.approx(first_only / 2)
    # The failures first, then what a rules score is worth (cinecap.judge.limits).
    assert by["half"].note.startswith("judged 1, failed 1; The rules judge is an offline")
    assert "judged 1, failed 1" in ub.added_line(one)
    assert by["full"].rank == 1 and by["half"].rank == 2
    assert by["none"].rank is None and by["none"].note.startswith(
        "not ranked: every judgement failed (judged 0, failed 2)")
    assert zero.judged == 0 and by["none"] in lb.board(store, VIEWER).unranked
    assert full.judged == 2


def test_a_file_on_a_bench_known_only_by_name_is_self_reported(store, made, tmp_path):
    _, _, honest = made
    forged = _forged(honest)
    run = ub.record_results(store, CONSOLE, write(tmp_path / "declared.json", forged),
                            bench_name="my bench", labels=ub.Labels(model="MyModel-v2"))
    assert not ub.judged_here(run) and run.f1 == pytest.approx(1.0)  # the file's word, kept
    board = lb.board(store, VIEWER)
    [entry] = [e for e in board.entries if e.key == str(run.id)]
    assert entry.kind == "submitted" and entry.rank is None and entry.group == ""
    assert entry.note.startswith("submitted (self-reported)") and entry in board.unranked
    assert "submitted (self-reported)" in ub.added_line(run)
    # A file cannot claim the server's marker for itself.
    claims = copy.deepcopy(forged)
    claims["meta"][ub.SERVER_KEY] = {"judged_here": True, "results_sha256": "0" * 64}
    again = ub.record_results(store, CONSOLE, write(tmp_path / "claims.json", claims))
    assert not ub.judged_here(again)
    assert next(e for e in lb.board(store, VIEWER).entries
                if e.key == str(again.id)).kind == "submitted"


def test_who_may_add_entries_is_a_setting(store, made, tmp_path):
    from ui.settings import Settings

    _, _, honest = made
    path = write(tmp_path / "r.json", honest)
    ann = store.users.add("ann", "annotator", "password1")
    assert Settings().leaderboard_add_role == "reviewer"
    with pytest.raises(PermissionDenied, match="reviewer role"):
        ub.record_results(store, ann, path, bench_name="b")
    run = ub.record_results(store, ann, path, bench_name="b", min_role="annotator")
    assert run.id and store.counts()["bench_runs"] == 1
    with pytest.raises(InputError, match="leaderboard_add_role"):
        Settings(leaderboard_add_role="everyone")
