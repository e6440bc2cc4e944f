"""The bench runner: bench files, captioning + judging, aggregation, failures kept out of scores."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cinecap import taxonomy as tx
from cinecap.bench import judgements_of, load_bench, run_bench
from cinecap.captioners.base import Captioner, CaptionResult
from cinecap.errors import CaptionerError, InputError
from cinecap.judge import get_judge
from tests.support.cli import cli
from tests.support.openai_server import chat_reply



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


def test_results_name_every_protocol_choice(tmp_path):
    from cinecap.judge.protocol import PROTOCOL_KEYS

    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps([{"video_path": "a.mp4", "gt_caption": "A close-up."}]))
    d = run_bench(load_bench(bench), ScriptedCaptioner({"a.mp4": "A close-up."}),
                  get_judge("rules"), tx.TRAINING_ASPECTS).to_dict()
    p = d["protocol"]
    assert tuple(p) == PROTOCOL_KEYS and all(isinstance(v, str) for v in p.values())
    assert p == {"judge": "rules", "judge_version": get_judge("rules").version,
                 "judge_model": "none", "prompt": "none", "counting": "lists",
                 "judged_text": "answer", "answer_block": "first", "f1": "cinecap-hm-of-means",
                 "aggregation": "released", "aspects": "six", "sampling": "none",
                 "decoding": "none", "truncated": "scored"}
    assert "the released code computes no F1" in d["scores"]["f1_definition"]


CAPTION_OK = ("<think>[0.0–2.0] [the background slides left] → the camera pans right</think>"
              "<answer>The camera pans right. A close-up.</answer>")
CAPTION_CUT = "<think>[0.0–2.0] [the background slides left] → the camera pans right</think><answer>The cam"


def _bench_server(openai_server):
    """Captions for the openai captioner (the second one cut at max_tokens), and the benchmark
    judge's answers: full marks for a complete output, one matched statement of two otherwise."""
    captions = [(CAPTION_OK, "stop"), (CAPTION_CUT, "length")]

    def serve(req):
        if req["messages"][0]["role"] == "system":  # the captioner's request
            text, finish = captions.pop(0)
            return chat_reply(text, finish_reason=finish)
        prompt = req["messages"][0]["content"]
        whole = "</answer>" in prompt.split("- A:", 1)[1].split("# Thinking", 1)[0]
        cm = ["pans right"], ["pans right"], ["pans right"]
        ss = (["close-up"], ["close-up"], ["close-up"]) if whole else (["close-up"], [], [])
        by_dim = {a: {"gt_statements": [], "pred_statements": [], "matched_statements": [],
                      "gt_count": 0, "pred_count": 0, "matched_count": 0} for a in tx.ASPECTS}
        for a, (g, p, m) in ((tx.CAMERA_MOVEMENT, cm), (tx.SHOT_SIZE, ss)):
            by_dim[a] = {"gt_statements": g, "pred_statements": p, "matched_statements": m,
                         "gt_count": len(g), "pred_count": len(p), "matched_count": len(m)}
        tm = 2 if whole else 1
        tp = 2 if whole else 1
        data = {"by_dim": by_dim, "comprehensiveness_score": tm / 2, "accuracy_score": tm / tp}
        return chat_reply(f"<think>Step 1 …</think>\n<answer>{json.dumps(data)}</answer>")
    openai_server.default = serve


def test_bench_cli_defaults_to_the_released_benchmark_protocol(openai_server, tmp_path,
                                                               small_clip):
    _bench_server(openai_server)
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps([{"video_path": str(small_clip), "gt_caption": "Pans right. Close-up."},
                                 {"video_path": str(small_clip), "gt_caption": "Pans right. Close-up."}]))
    out = tmp_path / "r.json"
    proc = cli("bench", str(bench), "--captioner", "openai", "--base-url", openai_server.base_url,
               "--model", "cinecap-grpo-8b", "--captioner-option", "max_retries=0",
               "--judge", "llm", "--judge-option", f"base_url={openai_server.base_url}",
               "--judge-option", "model=judge-model", "--judge-option", "cache=off",
               "--out", str(out), unset=("CINECAP_JUDGE_PROMPT", "CINECAP_JUDGE_COUNTING"))
    assert proc.returncode == 0, proc.stderr
    res = json.loads(out.read_text())
    assert res["protocol"] == {
        "judge": "llm", "judge_version": "benchmark-7-v1", "judge_model": "judge-model",
        "prompt": "benchmark-7", "counting": "released", "judged_text": "raw",
        "answer_block": "first", "f1": "cinecap-hm-of-means", "aggregation": "released",
        "aspects": "seven", "sampling": "server", "decoding": "greedy/4096", "truncated": "scored"}
    assert "protocol: judge=llm" in proc.stdout and "F1 (ours: cinecap-hm-of-means)" in proc.stdout
    # The raw output, <think> included, reached the judge, as the committed evaluation sends it.
    judge_prompts = [r["messages"][0]["content"] for r in openai_server.chat_requests
                     if r["messages"][0]["role"] == "user"]
    assert len(judge_prompts) == 2 and all("<think>[0.0–2.0]" in p for p in judge_prompts)
    # The cut output is scored, as released, and flagged.
    first, cut = res["items"]
    assert first["truncated"] is False and cut["truncated"] is True
    assert cut["raw_output"] == CAPTION_CUT and cut["judgement"]["comprehensiveness"] == 0.5
    assert res["meta"]["truncated_outputs"] == 1 and res["scores"]["judged"] == 2
    assert res["scores"]["comprehensiveness"] == pytest.approx(0.75)


def test_bench_protocol_option(openai_server, tmp_path, small_clip):
    _bench_server(openai_server)
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps([{"video_path": str(small_clip), "gt_caption": "Pans right. Close-up."}]))
    out = tmp_path / "r.json"
    proc = cli("bench", str(bench), "--captioner", "openai", "--base-url", openai_server.base_url,
               "--model", "m", "--judge", "llm", "--protocol", "benchmark-7/released/answer",
               "--judge-option", f"base_url={openai_server.base_url}", "--judge-option", "model=j",
               "--judge-option", "cache=off", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["protocol"]["judged_text"] == "answer"
    judge_prompt = openai_server.chat_requests[-1]["messages"][0]["content"]
    assert '- A: "The camera pans right. A close-up."' in judge_prompt and "<think>[0" not in judge_prompt
    bad = cli("bench", str(bench), "--protocol", "released-benchmark", "--out", str(out))
    assert bad.returncode == 2 and "--protocol sets the llm judge's prompt" in bad.stderr
    unknown = cli("bench", str(bench), "--judge", "llm", "--protocol", "paper", "--out", str(out))
    assert unknown.returncode == 2 and "unknown judge protocol 'paper'" in unknown.stderr


def test_an_llm_run_through_the_apps_command_line_is_judged_under_the_same_protocol(
        openai_server, tmp_path, small_clip, monkeypatch, capsys):
    """``python -m ui bench run`` takes ``cinecap bench``'s options and defaults: the same llm run
    through both gives one protocol object (released-benchmark) and one leaderboard group."""
    from ui.cli import main as app_main

    _bench_server(openai_server)
    for var in ("CINECAP_JUDGE_PROMPT", "CINECAP_JUDGE_COUNTING"):
        monkeypatch.delenv(var, raising=False)
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps([{"video_path": str(small_clip),
                                  "gt_caption": "Pans right. Close-up."}]))
    same = ["--captioner", "anchors", "--judge", "llm", "--judge-option",
            f"base_url={openai_server.base_url}", "--judge-option", "model=judge-model",
            "--judge-option", "cache=off"]
    by_library, by_app = tmp_path / "library.json", tmp_path / "app.json"
    assert cli("bench", str(bench), *same, "--out", str(by_library)).returncode == 0
    store = ["--data-dir", str(tmp_path / "data"), "--database-url",
             f"sqlite:///{tmp_path / 'app.sqlite3'}"]
    assert app_main(["bench", *store, "run", str(bench), *same, "--out", str(by_app),
                     "--label", "via-app"]) == 0
    library, app = (json.loads(p.read_text())["protocol"] for p in (by_library, by_app))
    assert library == app and (app["prompt"], app["counting"], app["judged_text"]) == (
        "benchmark-7", "released", "raw")
    capsys.readouterr()
    assert app_main(["bench", *store, "list", "--json"]) == 0
    entries = {e["model"]: e for e in json.loads(capsys.readouterr().out)}
    # The app's run is measured and ranked. (A results file added with `bench add` is judged
    # again with this server's judge; the same group through both command lines, with the rules
    # judge: tests/test_leaderboard_cli.py.)
    assert entries["via-app"]["rank"] is not None and entries["via-app"]["kind"] == "measured"
