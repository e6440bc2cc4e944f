"""Gold pairs in and out of the store (``ui.usecases.datasets``): a Hugging Face ``datasets``
folder loaded with ``datasets.load_dataset`` and imported into an empty store gives the same gold
pairs; importing twice adds nothing; the bench and training exports are read by the library's own
readers; bad items are skipped with their reason; uploaded zips cannot write outside their
folder; only admins export and import."""
from __future__ import annotations

import json
import zipfile

import pytest

from cinecap.errors import InputError
from cinecap.files import sha256_file
from db.errors import PermissionDenied
from tests.support.clips import moving_pattern, write_clip
from tests.support.stores import store  # noqa: F401 - the fixture
from ui.usecases import datasets as ds
from ui.usecases.accounts import CONSOLE

STATEMENTS = [
    {"aspect": "Camera Movement", "value": "pan left", "text": "The camera pans left.",
     "t_start": 0.0, "t_end": 0.64, "evidence": "the background slides right", "subject": None},
    {"aspect": "Shot Size", "value": "close-up", "text": "It is a close-up of the woman.",
     "t_start": None, "t_end": None, "evidence": "", "subject": "the woman"},
]


def _gold(store, tmp_path):
    """Three clips: one approved pair (then a newer version still submitted), one approved, one
    only submitted. Returns the pairs a default export takes, by clip sha256."""
    ann = store.users.add("ann", "annotator", "ann-password")
    rita = store.users.add("rita", "reviewer", "rita-password")
    chosen = {}
    for i, (caption, sts, accept) in enumerate([
            ("The camera pans left. It is a close-up of the woman.", STATEMENTS, True),
            ("A static wide shot from a high angle.",
             [{"aspect": "Camera Movement", "value": "static", "text": "The camera is static.",
               "t_start": 0.0, "t_end": 0.64, "evidence": "", "subject": None},
              {"aspect": "Camera Angle", "value": "high angle", "text": "From a high angle.",
               "t_start": None, "t_end": None, "evidence": "horizon low", "subject": None}],
             True),
            ("A medium shot.", [{"aspect": "Shot Size", "value": "medium shot",
                                 "text": "A medium shot.", "t_start": None, "t_end": None,
                                 "evidence": "", "subject": None}], False)]):
        path = write_clip(tmp_path / f"clip {i}.mp4", moving_pattern(n=16, dx=2, seed=i))
        clip = store.clips.add(path, path.name, {"duration": 0.64}, ann)
        g = store.review.save(clip.id, clip.version, ann, sts, [], caption)
        if accept:
            g = store.review.decide(g.id, rita, "accepted", g.version)
            chosen[clip.sha256] = g
    first = store.clips.list()[0]
    store.review.save(first.id, store.clips.get(first.id).version, ann, STATEMENTS[:1], [],
                      "The camera pans left.")  # newer, not approved: not exported by default
    return chosen


def _pairs(s):
    """The store's gold pairs as data: clip content → (caption, statements' contract fields)."""
    sha = {c.id: c.sha256 for c in s.clips.list()}
    return {sha[g.clip_id]: (g.caption, [{k: st[k] for k in ds.GOLD_FIELDS} for st in g.statements])
            for g in s.review.gold_pairs()}


@pytest.mark.slow
def test_export_load_dataset_import_gives_the_same_gold_pairs(store, tmp_path):  # noqa: F811
    import datasets

    from db.store import Store

    chosen = _gold(store, tmp_path)
    out = ds.export_hf(store, CONSOLE, tmp_path / "hf")
    assert out.pairs == 2 and sorted(out.gold_pair_ids) == sorted(g.id for g in chosen.values())
    assert (tmp_path / "hf" / "README.md").read_text().startswith("---\nconfigs:")
    cache = str(tmp_path / "hf-cache")  # not the user's ~/.cache
    loaded = datasets.load_dataset(str(tmp_path / "hf"), split="train", cache_dir=cache)
    assert loaded.num_rows == 2
    assert loaded.features["statements"].feature["t_start"].dtype == "float64"
    for row in loaded:
        g = chosen[row["video_sha256"]]
        assert row["gt_caption"] == g.caption and row["status"] == "accepted"
        assert row["statements"] == [{k: st[k] for k in ds.GOLD_FIELDS} for st in g.statements]
        assert sha256_file(tmp_path / "hf" / row["video_path"]) == row["video_sha256"]
    # Another export into a folder of the same name loads as itself, not as the cached first one.
    ds.export_hf(store, CONSOLE, tmp_path / "again" / "hf", include_submitted=True)
    newer = datasets.load_dataset(str(tmp_path / "again" / "hf"), split="train", cache_dir=cache)
    assert newer.num_rows == 3 and "The camera pans left." in newer["gt_caption"]

    empty = Store(f"sqlite:///{tmp_path / 'empty.sqlite3'}", tmp_path / "empty")
    try:
        report = ds.import_dataset(empty, CONSOLE, tmp_path / "hf")
        assert (report.format, len(report.added), report.clips_added, report.skipped) == (
            "hf", 2, 2, [])
        expected = {sha: (g.caption, [{k: st[k] for k in ds.GOLD_FIELDS}
                                      for st in g.statements]) for sha, g in chosen.items()}
        assert _pairs(empty) == expected
        assert {c.filename for c in empty.clips.list()} == {"clip 0.mp4", "clip 1.mp4"}
        assert all(g.status == "accepted" for g in empty.review.gold_pairs())
        # Importing twice adds nothing, and says why for every item.
        before = empty.counts()
        again = ds.import_dataset(empty, CONSOLE, tmp_path / "hf")
        assert again.added == [] and empty.counts() == before
        assert len(again.skipped) == 2 and all("already in the store" in s
                                               for s in again.skipped)
        # The bench and training exports: the library's readers take them as they are.
        from cinecap.bench import load_bench
        from cinecap.training.data import load_pairs

        bench = ds.export_bench(empty, CONSOLE, tmp_path / "bench")
        items = load_bench(bench.data_file)
        assert {sha256_file(i.video_path): i.gt_caption for i in items} == {
            sha: c for sha, (c, _) in expected.items()}
        assert empty.bench_runs.find_bench(bench.bench_sha256).source == "export"
        training = ds.export_training(empty, CONSOLE, tmp_path / "training")
        pairs = load_pairs(training.data_file)
        assert {p.clip_id: (p.gt_caption, [{k: getattr(s, k) for k in ds.GOLD_FIELDS}
                                           for s in p.statements]) for p in pairs} == expected
        # ... and so does the import: the same pairs again are skipped, a zip of the folder too.
        assert ds.import_dataset(empty, CONSOLE, tmp_path / "training").added == []
        zipped = ds.zip_folder(tmp_path / "training", tmp_path / "training.zip")
        assert ds.import_dataset(empty, CONSOLE, zipped, confined=True).added == []
        with pytest.raises(InputError, match="not an empty folder"):
            ds.export_hf(empty, CONSOLE, tmp_path / "hf")
    finally:
        empty.close()


def test_import_reports_what_it_skipped_and_why(tmp_path):
    from db.store import Store

    s = Store(f"sqlite:///{tmp_path / 'i.sqlite3'}", tmp_path / "data")
    try:
        for i in range(2):
            write_clip(tmp_path / f"c{i}.mp4", moving_pattern(n=16, dx=2, seed=i))
        (tmp_path / "junk.mp4").write_bytes(b"this is not a video")
        bench = tmp_path / "bench.json"
        bench.write_text(json.dumps([
            {"video_path": "c0.mp4", "gt_caption": "The camera pans right. A wide shot."},
            {"video_path": "c1.mp4", "gt_caption": "  "},
            {"video_path": "missing.mp4", "gt_caption": "A close-up."},
            {"video_path": "junk.mp4", "gt_caption": "A close-up."},
            {"gt_caption": "no video"},
        ]))
        report = ds.import_dataset(s, CONSOLE, bench)
        assert len(report.added) == 1 and report.items == 5
        assert [r.split(":")[0] for r in report.skipped] == [
            "item 2 (c1.mp4)", "item 3 (missing.mp4)", "item 4 (junk.mp4)", "item 5"]
        text = report.summary()
        assert "gold caption is missing or empty" in text and "video file is not there" in text
        assert str(tmp_path) not in text  # no server path in the report
        [g] = s.review.gold_pairs()
        assert [(st["aspect"], st["value"]) for st in g.statements] == [
            ("Camera Movement", "pan right"), ("Shot Size", "wide shot")]  # decomposed
        assert s.bench_runs.find_bench(sha256_file(bench)).source == "import"
        assert ds.import_dataset(s, CONSOLE, bench).added == []
        # JSONL with statements: a bad statement skips that line only.
        lines = tmp_path / "pairs.jsonl"
        lines.write_text("\n".join(json.dumps(x) for x in [
            {"video_path": "c1.mp4", "gt_caption": "A close-up.",
             "statements": [{"aspect": "Shot Size", "value": "gigantic"}]},
            {"video_path": "c1.mp4", "gt_caption": "It is a close-up.",
             "statements": [{"aspect": "Shot Size", "value": "close-up"}]}]) + "\n")
        report = ds.import_dataset(s, CONSOLE, lines, accept=False)
        assert len(report.added) == 1 and "bad statement 'gigantic'" in report.skipped[0]
        assert s.review.get_gold_pair(report.added[0]).status == "submitted"
        # An uploaded zip cannot reach outside its folder, nor unpack without bound.
        evil = tmp_path / "evil.zip"
        with zipfile.ZipFile(evil, "w") as z:
            z.writestr("../outside.txt", "x")
        with pytest.raises(InputError, match="path outside its folder"):
            ds.import_dataset(s, CONSOLE, evil)
        assert not (tmp_path / "outside.txt").exists()
        escape = tmp_path / "escape.zip"
        with zipfile.ZipFile(escape, "w") as z:
            z.writestr("d/bench.json", json.dumps([{"video_path": str(tmp_path / "c0.mp4"),
                                                    "gt_caption": "A wide shot."}]))
        report = ds.import_dataset(s, CONSOLE, escape)
        assert report.added == [] and "points outside the folder" in report.skipped[0]
        bomb = tmp_path / "bomb.zip"
        with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as z:
            z.writestr("d/big.bin", b"\0" * (3 << 20))
        with pytest.raises(InputError, match="unpacks to more than 2 MB"):
            ds.unpack_zip(bomb, tmp_path / "unpacked", 2 << 20)
        with pytest.raises(InputError, match="not a dataset this app reads"):
            ds.import_dataset(s, CONSOLE, tmp_path / "c0.mp4")
        # Only admins move whole datasets.
        ann = s.users.add("ann", "annotator", "ann-password")
        with pytest.raises(PermissionDenied, match="admin role"):
            ds.import_dataset(s, ann, bench)
        with pytest.raises(PermissionDenied, match="admin role"):
            ds.export_bench(s, ann, tmp_path / "x")
    finally:
        s.close()


@pytest.mark.slow
def test_the_datasets_folder_loads_both_ways_with_a_video_column_notes_and_reviewer(
        store, tmp_path):  # noqa: F811
    """Issue 26 item 8: ``datasets.load_from_disk`` as well as ``load_dataset`` read the export;
    the clip is a ``Video`` column; the annotator's notes and the reviewer travel with the pair;
    the gold caption tells the timed statements as the clip unfolds."""
    import datasets

    from cinecap.statements import Statement, render_caption

    ann = store.users.add("ann", "annotator", "ann-password")
    rita = store.users.add("rita", "reviewer", "rita-password")
    path = write_clip(tmp_path / "walk.mp4", moving_pattern(n=48, dx=2, seed=5))
    clip = store.clips.add(path, path.name, {"duration": 1.92}, ann)
    sts = [{"aspect": "Camera Movement", "value": "pan left", "text": "The camera pans left.",
            "t_start": 0.0, "t_end": 1.8, "evidence": "", "subject": None},
           {"aspect": "Shot Size", "value": "full shot", "text": "It is a full shot.",
            "t_start": 0.0, "t_end": 0.5, "evidence": "", "subject": None},
           {"aspect": "Shot Size", "value": "medium shot", "text": "It is a medium shot.",
            "t_start": 0.5, "t_end": 1.8, "evidence": "", "subject": None}]
    cap = store.clips.add_caption(clip.id, {"caption": "x", "statements": sts, "seconds": 0.1},
                                  "anchors", "test", ann)
    # The caption as the review use case renders it on save.
    caption = render_caption([Statement.from_dict(s) for s in sts], order="time")
    g = store.review.save(clip.id, clip.version, ann, sts, [], caption,
                          source_caption_id=cap.id, statement_ids=["a", "b", "c"],
                          notes={"b": "the knees are cut"})
    g = store.review.decide(g.id, rita, "accepted", g.version, note="checked against the cut")
    assert g.caption.index("From 0.0 to 0.5 s, it is a full shot") < g.caption.index(
        "From 0.0 to 1.8 s, the camera pans left") < g.caption.index("From 0.5 to 1.8 s")

    ds.export_hf(store, CONSOLE, tmp_path / "hf")
    cache = str(tmp_path / "hf-cache")
    by_load = datasets.load_dataset(str(tmp_path / "hf"), split="train", cache_dir=cache)
    by_disk = datasets.load_from_disk(str(tmp_path / "hf"))["train"]
    for loaded in (by_load, by_disk):
        assert loaded.num_rows == 1
        assert isinstance(loaded.features["video"], datasets.Video)
        row = loaded[0]
        assert (tmp_path / "hf" / row["video_path"]).is_file()
        assert sha256_file(tmp_path / "hf" / row["video_path"]) == clip.sha256
        # Both layouts name the file beside them: the clip's bytes are in the folder once.
        assert row["video"] == {"path": row["video_path"], "bytes": None}
        assert row["notes"] == ["", "the knees are cut", ""]
        assert (row["reviewer"], row["review_note"]) == ("rita", "checked against the cut")
        assert row["reviewed_at"] and row["annotator"] == "ann"
        assert row["gt_caption"] == g.caption
    # issue 26: save_to_disk embedded every clip in train/ besides videos/, doubling the export
    arrow = sum(f.stat().st_size for f in (tmp_path / "hf" / "train").glob("*.arrow"))
    assert arrow < path.stat().st_size / 2, (arrow, path.stat().st_size)
