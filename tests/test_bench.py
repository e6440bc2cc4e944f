"""The bench runner: bench files, captioning + judging, aggregation, failures kept out of scores."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cinecap.bench import judgements_of, load_bench, run_bench
from cinecap.captioners.base import Captioner, CaptionResult
from cinecap.errors import CaptionerError, InputError
from cinecap.judge import get_judge
from tests.support.cli import cli



class ScriptedCaptioner(Captioner):
    """Answers from a table keyed on the clip's file name; raises for unknown clips.
    The captioner is not what these tests are about: the bench bookkeeping is."""

    name = "scripted"

    def __init__(self, answers: dict[str, str]):
        self.answers = answers

    def caption(self, clip, progress=None):
        name = Path(clip).name
        if name not in self.answers:
            raise CaptionerError(f"no answer for {name}")
        return CaptionResult(self.answers[name], "", [], self.name)


def test_load_bench_resolves_relative_paths_and_rejects_bad_files(tmp_path):
    (tmp_path / "clips").mkdir()
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps([{"video_path": "clips/a.mp4", "gt_caption": "A static shot."}]))
    items = load_bench(bench)
    assert items[0].video_path == tmp_path / "clips" / "a.mp4"
    for bad, msg in [("[]", "no items"), ("{}", "JSON list"), ("not json", "not a JSON"),
                     ('[{"video_path": 3}]', "item 0")]:
        bench.write_text(bad)
        with pytest.raises(InputError, match=msg):
            load_bench(bench)
    with pytest.raises(InputError, match="not found"):
        load_bench(tmp_path / "missing.json")


def test_run_bench_scores_and_keeps_failed_clips_out(tmp_path):
    gt_a = "The camera pans left. It is a close-up of the woman, who faces the camera."
    gt_b = "A static wide shot from a high angle."
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps([
        {"video_path": "a.mp4", "gt_caption": gt_a},
        {"video_path": "b.mp4", "gt_caption": gt_b},
        {"video_path": "broken.mp4", "gt_caption": "A close-up."},
    ]))
    captioner = ScriptedCaptioner({
        "a.mp4": "The camera pans left. It is a close-up of the woman, who faces the camera.",
        "b.mp4": "A static medium shot at eye level.",
    })
    results = run_bench(load_bench(bench), captioner, get_judge("rules"))
    d = results.to_dict()
    assert d["meta"]["failed_captions"] == 1 and d["meta"]["items"] == 3
    assert d["meta"]["judge"] == "rules" and d["meta"]["judge_version"]
    assert d["items"][2]["error"] == "no answer for broken.mp4"
    # Clip a is a perfect match, clip b gets only "static" right (1 of 3 either way).
    assert d["items"][0]["judgement"]["f1"] == pytest.approx(1.0)
    assert d["items"][1]["judgement"]["total_matched_count"] == 1
    assert results.scores.judged == 2
    assert results.scores.comprehensiveness == pytest.approx((1 + 1 / 3) / 2)
    assert len(judgements_of(d)) == 2


@pytest.mark.slow
def test_bench_cli_with_the_anchors_captioner(tmp_path, bikes, bigbuckbunny):
    shutil.copy(bigbuckbunny, tmp_path / "bbb.mp4")
    (tmp_path / "junk.mp4").write_bytes(b"this is not a video")
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps([
        {"video_path": "bbb.mp4", "gt_caption": "A static wide shot at eye level with deep focus."},
        {"video_path": str(bikes), "gt_caption": "Several shots of cyclists; the camera pans."},
        {"video_path": "junk.mp4", "gt_caption": "A close-up."},
    ]))
    out = tmp_path / "results.json"
    proc = cli("bench", str(bench), "--captioner", "anchors", "--judge", "rules", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    res = json.loads(out.read_text())
    assert res["meta"]["failed_captions"] == 1
    assert res["meta"]["bench_sha256"] and res["meta"]["captioner"] == "anchors"
    assert res["scores"]["judged"] == 2
    assert "error" in res["items"][2] and "video" in res["items"][2]["error"].lower()
    assert res["items"][0]["caption"]  # the static shot is described
    assert "overall" in proc.stdout


def test_bench_as_a_program_and_its_option_errors(tmp_path):
    """A real ``python -m cinecap bench`` process: a missing bench file is one error line; an option
    the judge does not take is the registry's error, as everywhere."""
    missing = cli("bench", str(tmp_path / "none.json"), "--out", str(tmp_path / "r.json"),
                  subprocess_run=True)
    assert missing.returncode == 2 and missing.stderr.startswith("error: bench file not found")
    assert "Traceback" not in missing.stderr
    (tmp_path / "b.json").write_text(json.dumps([{"video_path": "x.mp4", "gt_caption": "A close-up."}]))
    bad = cli("bench", str(tmp_path / "b.json"), "--out", str(tmp_path / "r.json"),
              "--judge-option", "temperature=0")
    assert bad.returncode == 2 and "the rules judge has no option 'temperature'" in bad.stderr
    assert not (tmp_path / "r.json").exists()
