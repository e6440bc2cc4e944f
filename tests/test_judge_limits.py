"""Wherever a ``rules`` score is shown, what it is worth is said beside it (issue 23): one text,
``cinecap.judge.limits.RULES_LIMITS``, with the first-run figures of docs/judge.md — checked
against that table here — in ``cinecap judge`` (human and ``--json``), ``cinecap bench``, the
Caption tab's scores and download, the Review tab's model caption judged against the gold pair,
and the Leaderboard's rows and CSV; never beside another judge's scores."""
from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from cinecap.judge import get_judge, judge_limits
from cinecap.judge.limits import (FIRST_BATCH, FIRST_RUN_HIGH, FIRST_RUN_LOW, LAST_BATCH,
                                  LATEST, LATEST_BATCHES, RULES_LIMITS)
from tests.support.cli import cli

DOCS = Path(__file__).resolve().parents[1] / "docs" / "judge.md"
GT = "The camera pans left, then tilts up. A close-up of the man, who faces the camera."
PRED = "The camera pans left. A medium close-up of the man facing the camera."


def test_the_figures_are_the_first_runs_of_docs_judge_md():
    # | 23 | d45dacc (rules-1.33) | 7/25 = 28.0 % | …: the first-run table of the blind batches
    runs = {int(b): float(p) for b, p in re.findall(
        r"^\| (\d+) \| \w+ \(rules-[\w.]+\) \| \d+/\d+ = ([\d.]+) % \|", DOCS.read_text(), re.M)}
    assert set(range(5, LAST_BATCH + 1)) <= set(runs), "the table of first runs moved"
    span = [runs[b] for b in range(FIRST_BATCH, LAST_BATCH + 1)]
    assert (round(min(span)), round(max(span))) == (FIRST_RUN_LOW, FIRST_RUN_HIGH)
    assert max(runs) == LAST_BATCH, "a newer blind batch: update cinecap/judge/limits.py"
    latest = [int(b) for b in LATEST_BATCHES.split("–")]
    assert latest[-1] == LAST_BATCH and {round(runs[b]) for b in latest} == {LATEST}
    for figure in (f"{FIRST_RUN_LOW}–{FIRST_RUN_HIGH} %", f"latest {LATEST} %", "--judge llm",
                   "docs/llm_judge.md", "offline approximation"):
        assert figure in RULES_LIMITS


def test_only_the_rules_judge_states_limits():
    assert judge_limits("rules") == judge_limits(get_judge("rules")) == RULES_LIMITS
    assert judge_limits({"judge": "rules"}) == RULES_LIMITS
    for other in ("llm", {"judge": "llm"}, None, "", {"judge": None}):
        assert judge_limits(other) is None


def test_cinecap_judge_says_it_in_words_and_adds_one_json_field():
    human = cli("judge", "--gt", GT, "--pred", PRED)
    assert human.returncode == 0 and RULES_LIMITS in human.stdout
    assert human.stdout.index("comprehensiveness") < human.stdout.index(RULES_LIMITS)
    d = cli("judge", "--gt", GT, "--pred", PRED, "--json").json()
    assert d["judge_limits"] == RULES_LIMITS
    assert d["judge"] == "rules" and d["reward"] is not None  # the rest as it was


def test_cinecap_judge_pairs_carry_the_field_on_every_line(tmp_path):
    f = tmp_path / "pairs.jsonl"
    f.write_text("".join(json.dumps({"gt": GT, "pred": p}) + "\n" for p in (PRED, GT)))
    out = cli("judge", "--pairs", str(f))
    rows = [json.loads(x) for x in out.stdout.splitlines()]
    assert out.returncode == 0 and [r["judge_limits"] for r in rows] == [RULES_LIMITS] * 2


def test_cinecap_bench_prints_it_under_the_scores(tmp_path, small_clip):
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps([{"video_path": str(small_clip),
                                  "gt_caption": "The camera pans right."}]))
    out = cli("bench", str(bench), "--captioner", "anchors", "--out", str(tmp_path / "r.json"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.index("overall") < out.stdout.index(RULES_LIMITS)


@pytest.fixture(scope="module")
def judged():
    return get_judge("rules").judge(GT, PRED).to_dict()


def test_the_caption_tab_shows_it_with_the_scores_and_the_download_keeps_it(judged):
    from ui.tabs.results import scores_html
    from ui.tabs.tables import escaped
    from ui.usecases import caption

    html = scores_html(judged, caption.statement_views(judged), caption.rewards(judged),
                       caption.COVERAGE_HELP)
    assert f"id='cc-aspects-limits'>{escaped(RULES_LIMITS)}</p>" in html
    data = caption.export_data(caption.CaptionOutcome({"caption": PRED}, "clip.mp4", {},
                                                      judge=judged, gold_caption=GT))
    assert data["judge_limits"] == RULES_LIMITS
    llm = {**judged, "judge": "llm"}
    assert "offline approximation" not in scores_html(llm, None, None, caption.COVERAGE_HELP)


def test_the_review_tab_says_it_under_the_model_caption_judged_against_the_gold_pair():
    from ui.tabs.results import model_against_gold_html
    from ui.tabs.tables import escaped
    from ui.usecases.gold import GoldView, judged as judge_pair

    data, views = judge_pair(get_judge("rules"), GT, PRED)
    html = model_against_gold_html(GoldView(None, [], "model caption #1", data, views))
    assert f"id='gold-aspects-limits'>{escaped(RULES_LIMITS)}</p>" in html


def test_the_leaderboard_rows_and_csv_say_it_for_rules_runs(tmp_path):
    from db.records import UserRecord
    from db.store import Store
    from tests.support.bench_results import FAIR, TableCaptioner, bench_file
    from ui.tabs.tables import LEADERBOARD_HEADERS, leaderboard_rows
    from ui.usecases import bench as ub
    from ui.usecases import leaderboard as lb
    from ui.usecases.accounts import CONSOLE

    store = Store(f"sqlite:///{tmp_path / 'lb.sqlite3'}", tmp_path / "data")
    try:
        ub.run_bench(store, CONSOLE, bench_file(tmp_path / "b"),
                     captioner_backend=TableCaptioner(FAIR, "fair"), judge_backend=get_judge())
        board = lb.board(store, UserRecord(0, "anonymous", "viewer", "none"))
    finally:
        store.close()
    measured = [e for e in board.entries if e.kind == "measured"]
    reported = [e for e in board.entries if e.kind == "reported"]
    assert measured and reported
    note = LEADERBOARD_HEADERS.index("note")
    rows = leaderboard_rows(board.entries)
    assert all(RULES_LIMITS in r[note] for r, e in zip(rows, board.entries) if e.kind == "measured")
    assert not any(RULES_LIMITS in e.note for e in reported)  # the paper's judge is not ours
    with lb.write_csv(board.entries, tmp_path).open(encoding="utf-8") as f:
        lines = list(csv.DictReader(f))
    assert [RULES_LIMITS in r["note"] for r in lines] == [e.kind == "measured"
                                                          for e in board.entries]
