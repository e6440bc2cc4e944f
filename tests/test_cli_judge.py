"""``cinecap judge``: its JSON contract, batches and errors, run in-process through
``cinecap.cli.main`` (tests/support/cli.py). A fresh interpreter runs it too, in
tests/test_layers.py (no heavy package imported, nothing but the JSON on stdout)."""
from __future__ import annotations

import json

import pytest

from cinecap import taxonomy as tx
from tests.support.cli import CliResult
from tests.support.cli import cli as run_cli

GT = "The camera pans left, then tilts up. A close-up of the man, who faces the camera."
PRED = ("<think>[0.0–2.0] [trees slide right] → the camera pans left</think>"
        "<answer>The camera pans left. A medium close-up of the man facing the camera.</answer>")


def cli(*args: str, stdin: str | bytes | None = None, **kw) -> CliResult:
    return run_cli("judge", *args, stdin=stdin, **kw)


def out_json(p: CliResult) -> dict:
    return p.json()


def test_json_contract():
    d = out_json(cli("--gt", GT, "--pred", PRED, "--json"))
    assert list(d["by_dim"]) == list(tx.ASPECTS)
    for key in ("total_gt_count", "total_pred_count", "total_matched_count", "comprehensiveness",
                "accuracy", "f1", "reward"):
        assert key in d
    for c in d["by_dim"].values():
        # The judge JSON (as the llm judge gives it), plus the rules judge's pairing in
        # words (docs/judge.md "What the judge JSON says").
        assert set(c) == {"gt_statements", "pred_statements", "matched_statements", "gt_count",
                          "pred_count", "matched_count", "matched_pairs", "missed_statements",
                          "extra_statements", "pairs", "gt_phrases", "pred_phrases"}
    cm, ss = d["by_dim"][tx.CAMERA_MOVEMENT], d["by_dim"][tx.SHOT_SIZE]
    assert (cm["gt_count"], cm["pred_count"], cm["matched_count"]) == (2, 1, 1)
    assert (ss["gt_count"], ss["pred_count"], ss["matched_count"]) == (1, 1, 0)
    # GT 4 statements, prediction 3, matched 2 (pan left, frontal): s_acc 2/3 ≤ τ, gate closed.
    assert (d["total_gt_count"], d["total_pred_count"], d["total_matched_count"]) == (4, 3, 2)
    assert d["reward"] == pytest.approx(0.5 * 0.5 + 0.5 * 2 / 3)
    assert d["judge"] == "rules" and d["judge_version"]


def test_files_and_coverage_option(tmp_path):
    (tmp_path / "gt.txt").write_text("The camera pans left, then tilts up. A close-up.")
    (tmp_path / "pred.txt").write_text("The camera pans left. A close-up.")
    sym = out_json(cli("--gt-file", str(tmp_path / "gt.txt"), "--pred-file",
                       str(tmp_path / "pred.txt"), "--json"))
    under = out_json(cli("--gt-file", str(tmp_path / "gt.txt"), "--pred-file",
                         str(tmp_path / "pred.txt"), "--json", "--coverage", "under"))
    # N_gt 3, N_pred 2, M 2: gate open, r_cov = -1/3 in both modes (too few statements).
    assert sym["reward"] == under["reward"] == pytest.approx(0.5 * 2 / 3 + 0.5 - 0.1 / 3)
    assert under["reward_config"]["coverage"] == "under"


def test_reward_uses_the_six_training_aspects_and_scores_all_seven():
    d = out_json(cli("--gt", "A close-up.", "--pred", "A close-up in slow motion.", "--json"))
    assert d["accuracy"] == 0.5            # benchmark scores: all seven aspects
    assert d["reward"] == 1.0              # training reward: Special Shots left out
    assert d["reward_breakdown"]["n_pred"] == 1


def test_table_output():
    p = cli("--gt", GT, "--pred", PRED)
    text = p.stdout
    assert p.returncode == 0 and "Camera Movement" in text and "reward" in text


def test_batch_jsonl_one_result_per_line_and_error_lines(tmp_path):
    lines = [json.dumps({"id": "a", "gt": "A close-up.", "pred": "A close-up."}),
             "this is not json",
             json.dumps({"gt": "A wide shot.", "pred": 3}),
             "",
             json.dumps({"id": 7, "gt": "The camera zooms in.", "pred": "The camera dollies in."})]
    f = tmp_path / "pairs.jsonl"
    f.write_text("\n".join(lines) + "\n")
    p = cli("--pairs", str(f))
    rows = [json.loads(x) for x in p.stdout.splitlines()]
    assert p.returncode == 2  # some lines were bad; every line still has its answer
    assert [r.get("id") for r in rows] == ["a", None, None, None, 7]  # a row per input line
    assert rows[0]["f1"] == 1.0 and rows[0]["reward"] == 1.0
    assert rows[1] == {"line": 2, "error": rows[1]["error"]} and "line 2" in rows[1]["error"]
    assert "line 3" in rows[2]["error"] and '"pred"' in rows[2]["error"]
    assert rows[3] == {"line": 4, "skipped": "blank line"}
    assert rows[4]["total_matched_count"] == 0 and rows[4]["total_gt_count"] == 1
    assert "judged 2 pairs" in p.stderr


def test_batch_from_stdin_all_good():
    data = "\n".join(json.dumps({"gt": "A close-up.", "pred": x})
                     for x in ("A close-up.", "A wide shot.")) + "\n"
    p = cli("--pairs", "-", stdin=data)
    assert p.returncode == 0
    assert [json.loads(x)["f1"] for x in p.stdout.splitlines()] == [1.0, 0.0]


@pytest.mark.parametrize("args, needle", [
    (("--gt", "", "--pred", "A close-up."), "GT caption is empty"),
    (("--gt", "A close-up."), "give both"),
    ((), "nothing to judge"),
    (("--gt", "x", "--pred", "y", "--judge", "rulez"), "Did you mean 'rules'"),
    (("--gt-file", "/nonexistent/gt.txt", "--pred", "y"), "does not exist"),
    (("--pairs", "p.jsonl", "--gt", "x", "--pred", "y"), "not both"),
    (("--gt", "x", "--pred", "y", "--tau", "2"), "tau"),
    (("--gt", "x", "--pred", "y", "--judge-option", "colour=red"), "has no option 'colour'"),
    (("--gt", "x", "--pred", "y", "--judge-option", "novalue"), "KEY=VALUE"),
])
def test_bad_usage_is_one_clear_line_and_exit_2(args, needle):
    p = cli(*args)
    err = p.stderr
    assert p.returncode == 2 and needle in err, err
    assert "Traceback" not in err


def test_binary_file_is_a_clear_error(tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe\xfd" * 50)
    p = cli("--gt-file", str(junk), "--pred", "A close-up.")
    assert p.returncode == 2 and "not UTF-8" in p.stderr


@pytest.mark.parametrize("pred", ["", "Die Kamera schwenkt nach links.", "<answer><think>",
                                  "\u0007\u001b[2J ☃" * 100])
def test_odd_predictions_score_zero_without_crashing(pred):
    d = out_json(cli("--gt", "A close-up.", "--pred", pred, "--json"))
    assert d["total_pred_count"] == 0 and d["reward"] == 0.0


def test_100_kb_prediction():
    big = "The camera pans left past stalls full of colourful fruit. " * 1800
    assert len(big) > 100_000
    d = out_json(cli("--gt", "The camera pans left.", "--pred", big, "--json"))
    assert d["total_matched_count"] == 1 and d["total_pred_count"] == 1


def test_judge_help_is_served():
    p = cli("--help")
    assert p.returncode == 0 and "--pairs" in p.stdout
