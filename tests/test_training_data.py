"""Training data from gold pairs: the JSONL contract, the data hash, the split by clip, and the
atomic chain-of-thought SFT targets (parsed back by parse_output), on real clips. No torch."""
from __future__ import annotations

import json
import shutil

import pytest

from cinecap import taxonomy as tx
from cinecap.errors import InputError
from cinecap.statements import Statement, parse_output
from cinecap.training import data as td
from tests.support.training import gold_pairs, toy_pairs, write_jsonl


@pytest.fixture
def pairs_file(tmp_path):
    return gold_pairs(tmp_path / "gold")


def test_pairs_are_read_with_paths_relative_to_the_file(pairs_file):
    pairs = td.load_pairs(pairs_file)
    assert [p.id for p in pairs] == ["pan-right", "pan-left", "carphone"]
    assert pairs[0].video_path == (pairs_file.parent / "right.mp4").resolve()
    assert pairs[0].statements[0].evidence == "the background slides left"
    assert pairs[2].statements is None  # decomposed from the caption when needed
    assert len({p.clip_id for p in pairs}) == 3


@pytest.mark.parametrize("record, says", [
    ({"gt_caption": "Static."}, "video_path is missing"),
    ({"video_path": "right.mp4", "gt_caption": "  "}, "gt_caption is missing or empty"),
    ({"video_path": "nope.mp4", "gt_caption": "Static."}, "clip 'nope.mp4' does not exist"),
    ({"video_path": "right.mp4", "gt_caption": "Static.",
      "statements": [{"aspect": "Camera Movement", "value": "moonwalk"}]}, "bad statement 'moonwalk'"),
    ({"video_path": "right.mp4", "gt_caption": "Static.", "statements": "pan"}, "must be a list"),
])
def test_bad_records_name_their_line_and_the_problem(pairs_file, record, says):
    bad = pairs_file.parent / "bad.jsonl"
    bad.write_text(pairs_file.read_text().splitlines()[0] + "\n" + json.dumps(record) + "\n")
    with pytest.raises(InputError, match=f"bad.jsonl line 2: .*{says}"):
        td.load_pairs(bad)


def test_a_json_list_in_the_bench_format_is_read(tmp_path, pairs_file):
    bench = tmp_path / "gold" / "bench.json"
    bench.write_text(json.dumps([{"video_path": "right.mp4", "gt_caption": "The camera pans right."}]))
    (pair,) = td.load_pairs(bench)
    assert pair.gt_caption == "The camera pans right." and pair.statements is None


def test_the_data_hash_follows_content_not_location(tmp_path, pairs_file):
    moved = tmp_path / "moved"
    shutil.copytree(pairs_file.parent, moved)
    h = td.data_hash(td.load_pairs(pairs_file))
    assert td.data_hash(td.load_pairs(moved / "pairs.jsonl")) == h
    text = (moved / "pairs.jsonl").read_text().replace("It is a wide shot.", "It is a close-up.", 1)
    (moved / "pairs.jsonl").write_text(text)
    assert td.data_hash(td.load_pairs(moved / "pairs.jsonl")) != h


def test_the_split_is_by_clip_deterministic_and_stable_when_data_grows(tmp_path):
    root = tmp_path / "many"
    toy_pairs(root, clips=12)
    records = [json.loads(line) for line in (root / "toy.jsonl").read_text().splitlines()]
    # Two pairs per clip: a clip's pairs must land on the same side.
    both = records + [dict(r, gt_caption="The camera is static.") for r in records]
    f = write_jsonl(root / "both.jsonl", both)
    pairs = td.load_pairs(f)
    split = td.split_by_clip(pairs, eval_fraction=0.3, seed=7)
    assert split == td.split_by_clip(pairs, eval_fraction=0.3, seed=7)
    assert split.train and split.heldout
    held = {pairs[i].clip_id for i in split.heldout}
    assert held == set(split.heldout_clips)
    assert not held & {pairs[i].clip_id for i in split.train}
    # Fewer clips: the clips that remain keep their side.
    fewer = td.load_pairs(write_jsonl(root / "fewer.jsonl", records[:6]))
    small = td.split_by_clip(fewer, eval_fraction=0.3, seed=7)
    assert set(small.heldout_clips) == held & {p.clip_id for p in fewer}
    assert td.split_by_clip(pairs, 0.3, seed=8) != split  # the seed matters


def test_a_split_with_nothing_to_train_on_is_refused(tmp_path):
    pairs = td.load_pairs(toy_pairs(tmp_path / "one", clips=1))
    with pytest.raises(InputError, match="leaves no clip to train on"):
        td.split_by_clip(pairs, eval_fraction=0.999999, seed=0)


def test_atomic_cot_target_parses_back_line_for_line(pairs_file):
    pair = td.load_pairs(pairs_file)[0]
    target = td.sft_target(pair, "atomic", anchors=None)
    parsed = parse_output(target["text"])
    assert parsed.warnings == []
    assert parsed.caption == pair.gt_caption
    timed, static = parsed.lines
    assert (timed.t_start, timed.t_end, timed.anchor) == (0.0, 2.0, "the background slides left")
    assert timed.statement == "The camera pans right."
    assert (static.t_start, static.anchor, static.statement) == (None, "", "It is a wide shot.")
    assert target["cot_lines"] == 2 and target["timed_without_evidence"] == 0


def test_direct_variant_is_the_caption_alone(pairs_file):
    pair = td.load_pairs(pairs_file)[0]
    parsed = parse_output(td.sft_target(pair, "direct")["text"])
    assert parsed.warnings == [] and parsed.lines == [] and parsed.caption == pair.gt_caption


def test_timed_statements_without_evidence_take_it_from_the_anchors(pairs_file):
    """The left-sliding clip's "pan left" has no interval or evidence: the anchors analysis of the
    clip (a real run) supplies both; the static orientation line stays a plain statement."""
    pair = td.load_pairs(pairs_file)[1]
    cache: dict = {}
    target = td.sft_target(pair, "atomic", td.anchors_evidence(cache))
    parsed = parse_output(target["text"])
    assert parsed.warnings == []
    pan = next(line for line in parsed.lines if "pans left" in line.statement)
    found = next(m for m in cache[pair.video_path]["camera_motion"] if "pan left" in m["movement"])
    assert (pan.t_start, pan.t_end) == (round(found["t_start"], 1), round(found["t_end"], 1))
    assert pan.anchor.startswith("the background slides right at")
    back = next(line for line in parsed.lines if "back" in line.statement)
    assert back.t_start is None and back.anchor == ""
    assert target["timed_without_evidence"] == 0 and target["contradicted"] == []


def test_a_gold_statement_the_pixels_contradict_is_reported_and_kept_or_dropped(pairs_file):
    """The left-sliding clip pans left: a gold "tilt up" over the same stretch is contradicted.
    It is listed with the reason in the data summary, kept in the target by default, and left
    out of both the CoT and the answer with ``contradicted=drop``."""
    pair = td.load_pairs(pairs_file)[1]
    wrong = Statement(tx.CAMERA_MOVEMENT, "tilt up", "The camera tilts up.")
    pair = td.GoldPair(pair.index, pair.id, pair.video_path, pair.gt_caption + " It tilts up.",
                       (*pair.statements, wrong), pair.clip_id)
    anchors = td.anchors_evidence({})
    kept = td.sft_target(pair, "atomic", anchors)
    (flag,) = kept["contradicted"]
    assert (flag["aspect"], flag["value"]) == (tx.CAMERA_MOVEMENT, "tilt up")
    assert flag["reason"].startswith("the analysis measured pan left")
    assert "tilts up" in parse_output(kept["text"]).caption and kept["dropped"] == 0
    dropped = td.sft_target(pair, "atomic", anchors, contradicted="drop")
    parsed = parse_output(dropped["text"])
    assert dropped["dropped"] == 1 and "tilt" not in parsed.caption
    assert all("tilt" not in line.statement for line in parsed.lines)
    samples = td.sft_samples([pair], "atomic", anchors, "drop")
    summary = td.samples_summary(samples, "atomic", "drop")
    assert (summary["contradicted"], summary["contradicted_dropped"]) == (1, 1)
    assert summary["contradicted_statements"][0]["pair"] == pair.id


def test_without_anchors_a_timed_statement_keeps_its_interval_and_invents_no_evidence(tmp_path):
    pair = td.GoldPair(0, "x", tmp_path / "clip.mp4", "The camera pans left from 1.0 to 3.0 s.",
                       (Statement(tx.CAMERA_MOVEMENT, "pan left", "", 1.0, 3.0),))
    target = td.sft_target(pair, "atomic", anchors=None)
    (line,) = parse_output(target["text"]).lines
    assert (line.t_start, line.t_end, line.anchor) == (1.0, 3.0, "")
    assert "visual evidence" not in target["text"]
    assert target["timed_without_evidence"] == 1


def test_brackets_and_arrows_inside_evidence_cannot_break_a_line(tmp_path):
    st = Statement(tx.CAMERA_MOVEMENT, "pan left", "The camera pans left.", 0.0, 1.5,
                   "the wall [left] slides -> right → fast")
    pair = td.GoldPair(0, "x", tmp_path / "clip.mp4", "The camera pans left.", (st,))
    (line,) = parse_output(td.sft_target(pair)["text"]).lines
    assert line.statement == "The camera pans left."
    assert line.anchor == "the wall left slides right fast"


def test_a_caption_with_model_tags_is_refused(tmp_path):
    pair = td.GoldPair(0, "tagged", tmp_path / "c.mp4", "<answer>Static.</answer>", None)
    with pytest.raises(InputError, match="pair 'tagged'.*remove any <think>/<answer> tags"):
        td.sft_target(pair)


def test_grpo_prompts_keep_the_gold_caption(pairs_file):
    ds = td.load_dataset(pairs_file, eval_fraction=0.0, seed=0)
    prompts = td.grpo_prompts(ds.train_pairs)
    assert [p.gt_caption for p in prompts] == [p.gt_caption for p in ds.pairs]
    info = ds.info()
    assert info["format"] == td.FORMAT and info["data_hash"] == ds.data_hash
    assert info["split"]["unit"] == "clip" and info["split"]["heldout_pairs"] == []
