"""Gold pairs → training data (ui/usecases/datasets.py): the store's gold pairs written as the
``cinecap-gold-pairs/1`` JSONL contract that ``cinecap train`` reads — each clip's newest accepted
pair by default, not-yet-reviewed ones on request, never a sent-back one; admins only; and
``python -m ui export gold-pairs`` writes the same file."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cinecap.training.data import data_hash, load_pairs
from db import PermissionDenied
from tests.support.rounds import GOLD, clips, with_gold_pairs
from tests.support.stores import store  # noqa: F401 - the parametrised fixture
from ui.usecases import accounts, datasets


@pytest.fixture
def stocked(store, tmp_path, small_clip):
    paths = clips(tmp_path / "clips", small_clip)
    accepted = with_gold_pairs(store, paths[:3])
    submitted = with_gold_pairs(store, paths[3:], accept=False)
    return store, paths, accepted, submitted


def test_accepted_gold_pairs_export_to_the_training_contract(stocked, tmp_path):
    store, paths, accepted, _ = stocked
    out = datasets.export_gold_pairs(store, accounts.CONSOLE, tmp_path / "gold.jsonl")
    assert out.gold_pair_ids == accepted and out.pairs == out.clips == 3
    lines = [json.loads(x) for x in out.path.read_text().splitlines()]
    assert [x["id"] for x in lines] == [f"gold-pair-{i}" for i in accepted]
    for line, path in zip(lines, paths):
        assert Path(line["video_path"]).read_bytes() == path.read_bytes()  # the stored clip
        assert [(s["aspect"], s["value"]) for s in line["statements"]] == [
            (s["aspect"], s["value"]) for s in GOLD[path.name]]
        assert all("confidence" not in s and "measurements" not in s
                   for s in line["statements"])
    pairs = load_pairs(out.path)  # what cinecap train reads, with its own checks
    assert [p.gt_caption for p in pairs] == [x["gt_caption"] for x in lines]
    timed = pairs[0].statements[1]
    assert (timed.value, timed.t_start, timed.t_end, timed.evidence) == (
        "handheld shake", 0.0, 3.8, "the whole frame jitters")
    assert out.per_aspect["Camera Movement"] == 3 and out.per_aspect["Special Shots"] == 0
    # The data hash is the content's, not the paths': a second export trains on the same data.
    again = datasets.export_gold_pairs(store, accounts.CONSOLE, tmp_path / "again.jsonl")
    assert data_hash(load_pairs(again.path)) == data_hash(pairs)


def test_submitted_pairs_on_request_sent_back_ones_never(stocked, tmp_path):
    store, paths, accepted, submitted = stocked
    out = datasets.export_gold_pairs(store, accounts.CONSOLE, tmp_path / "g.jsonl",
                                     include_submitted=True)
    assert out.gold_pair_ids == accepted + submitted
    rita = store.users.find("rita")
    g = store.review.get_gold_pair(submitted[0])
    store.review.decide(g.id, rita, "sent_back", g.version, "wrong pan")
    out = datasets.export_gold_pairs(store, accounts.CONSOLE, tmp_path / "g.jsonl",
                                     include_submitted=True)
    assert out.gold_pair_ids == accepted


def test_each_clip_gives_its_newest_accepted_pair(stocked, tmp_path):
    store, paths, accepted, _ = stocked
    ann, rita = store.users.find("ann"), store.users.find("rita")
    clip_id = store.review.get_gold_pair(accepted[0]).clip_id
    snap = store.review.load(clip_id)
    fixed = [dict(snap.statements[0], value="medium close-up", text="It is a medium close-up.")]
    newer = store.review.save(clip_id, snap.version, ann, fixed, [], "It is a medium close-up.")
    out = datasets.export_gold_pairs(store, accounts.CONSOLE, tmp_path / "g.jsonl")
    assert out.gold_pair_ids[0] == accepted[0]  # the newer one is not reviewed yet
    store.review.decide(newer.id, rita, "accepted", newer.version)
    out = datasets.export_gold_pairs(store, accounts.CONSOLE, tmp_path / "g.jsonl")
    assert out.gold_pair_ids == [newer.id, *accepted[1:]]
    assert json.loads(out.path.read_text().splitlines()[0])["gt_caption"] == (
        "It is a medium close-up.")


def test_empty_pairs_are_skipped_and_only_admins_export(stocked, tmp_path):
    store, paths, accepted, _ = stocked
    ann, rita = store.users.find("ann"), store.users.find("rita")
    clip_id = store.review.get_gold_pair(accepted[1]).clip_id
    snap = store.review.load(clip_id)
    empty = store.review.save(clip_id, snap.version, ann, [], [], "")
    store.review.decide(empty.id, rita, "accepted", empty.version)
    out = datasets.export_gold_pairs(store, accounts.CONSOLE, tmp_path / "g.jsonl")
    assert empty.id not in out.gold_pair_ids and out.pairs == 2
    assert out.skipped == [f"gold pair #{empty.id}: empty caption (every statement rejected)"]
    with pytest.raises(PermissionDenied, match="admin"):
        datasets.export_gold_pairs(store, rita, tmp_path / "r.jsonl")
    assert not (tmp_path / "r.jsonl").exists()


def test_the_app_cli_exports_the_same_file(tmp_path, small_clip, capsys):
    from db.store import Store
    from ui.cli import main

    store = Store(f"sqlite:///{tmp_path / 'cli.sqlite3'}", tmp_path / "data")
    with_gold_pairs(store, clips(tmp_path / "clips", small_clip)[:3])
    ours = datasets.export_gold_pairs(store, accounts.CONSOLE, tmp_path / "ours.jsonl")
    code = main(["export", "--database-url", store.url, "--data-dir", str(store.data_dir),
                 "gold-pairs", str(tmp_path / "cli.jsonl")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "wrote 3 gold pairs on 3 clips" in out
    assert (tmp_path / "cli.jsonl").read_text() == ours.path.read_text()
    store.close()
