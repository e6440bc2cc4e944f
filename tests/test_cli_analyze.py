"""``cinecap analyze``, ``caption`` and ``captioners`` as a user runs them: real files, the JSON
contracts of docs/architecture.md, and one clear error line (no traceback) for bad input. In-process
through ``cinecap.cli.main`` (tests/support/cli.py); the ``analyze --json`` contract also runs as a
real ``python -m cinecap`` program, whose stdout must hold the JSON and nothing else (``caption``
and ``judge`` run in a fresh interpreter in tests/test_layers.py)."""
from __future__ import annotations

import json

import pytest

from tests.support.cli import cli as run


@pytest.mark.parametrize("subprocess_run", [False, True], ids=["in-process", "program"])
def test_analyze_json_contract(small_clip, subprocess_run):
    p = run("analyze", str(small_clip), "--json", subprocess_run=subprocess_run)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    for key in ("duration", "fps", "width", "height", "shots", "camera_motion", "shot_size",
                "subject_orientation", "depth_of_field", "camera_angle", "composition"):
        assert key in d
    assert d["duration"] == pytest.approx(2.0, abs=0.05) and (d["width"], d["height"]) == (160, 120)
    assert d["shots"] == [{"t_start": 0.0, "t_end": d["duration"]}]
    m = d["camera_motion"][0]
    assert set(m) >= {"t_start", "t_end", "movement", "steadiness", "evidence"}
    assert m["movement"] == ["pan right"]  # the fixture's texture slides left


def test_analyze_text_and_overlays(small_clip, tmp_path):
    p = run("analyze", str(small_clip), "--overlays", str(tmp_path / "ov"))
    assert p.returncode == 0, p.stderr
    assert "shot 1:" in p.stdout and "pan right" in p.stdout
    pngs = sorted((tmp_path / "ov").glob("*.png"))
    assert len(pngs) == 4 and all(f.stat().st_size > 1000 for f in pngs)


def test_caption_json_contract(small_clip):
    p = run("caption", str(small_clip), "--captioner", "anchors", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert set(d) >= {"caption", "reasoning", "statements", "captioner", "seconds"}
    assert d["captioner"] == "anchors" and "pans right" in d["caption"]
    st = d["statements"][0]
    assert set(st) >= {"aspect", "value", "text", "t_start", "t_end", "evidence"}
    assert st["aspect"] == "Camera Movement" and st["value"] == "pan right"
    assert "evidence" not in d or d["evidence"] is None


def test_caption_json_with_evidence(small_clip):
    d = json.loads(run("caption", str(small_clip), "--json", "--evidence").stdout)
    assert d["evidence"]["camera_motion"][0]["movement"] == ["pan right"]


def test_caption_plain_text(small_clip):
    p = run("caption", str(small_clip))
    assert p.returncode == 0 and "pans right" in p.stdout and "reasoning:" in p.stdout


@pytest.mark.parametrize("command", ["analyze", "caption"])
def test_bad_video_is_one_clear_line(tmp_path, command):
    bad = tmp_path / "notes.mp4"
    bad.write_text("shot list, not a video")
    p = run(command, str(bad), "--json")
    assert p.returncode == 3
    assert p.stderr.startswith("error: ") and "not a video" in p.stderr
    assert p.stderr.count("\n") == 1
    assert "Traceback" not in p.stderr and p.stdout == ""


def test_missing_file(tmp_path):
    p = run("analyze", str(tmp_path / "nope.mp4"))
    assert p.returncode == 3 and "no such file" in p.stderr


def test_unknown_captioner_suggests(small_clip):
    p = run("caption", str(small_clip), "--captioner", "anchor")
    assert p.returncode == 2 and "Did you mean 'anchors'" in p.stderr


def test_option_the_captioner_does_not_take(small_clip):
    p = run("caption", str(small_clip), "--model", "some/model")
    assert p.returncode == 2 and "the anchors captioner has no option 'model'" in p.stderr
    assert "Traceback" not in p.stderr


def test_captioners_lists_anchors_as_available():
    p = run("captioners", "--json")
    assert p.returncode == 0, p.stderr
    rows = {r["name"]: r for r in json.loads(p.stdout)}
    assert rows["anchors"]["available"] is True
    assert set(rows) >= {"anchors", "vlm", "openai"}
