"""The foundation's statements module: CoT line format/parse, output parsing, caption rendering,
and the render → decompose round trip for every taxonomy value."""
from __future__ import annotations

import pytest

from cinecap import taxonomy as tx
from cinecap.language.decompose import decompose
from cinecap.statements import (Statement, format_cot_line, format_reasoning, parse_cot_line,
                                parse_output, render_caption, wrap_output)


def _statement(v: tx.Value) -> Statement:
    subject = "the man" if v.aspect in (tx.COMPOSITION, tx.SUBJECT_ORIENTATION) else None
    if v.dynamic:
        return Statement(v.aspect, v.canonical, t_start=1.0, t_end=3.5, subject=subject)
    return Statement(v.aspect, v.canonical, subject=subject)


@pytest.mark.parametrize("value", tx.VALUES, ids=lambda v: f"{v.aspect}:{v.canonical}")
def test_render_then_decompose_gives_the_value_back(value):
    st = _statement(value)
    caption = render_caption([st])
    got = decompose(caption)
    assert [(s.aspect, s.value) for s in got] == [(value.aspect, value.canonical)], caption
    if value.dynamic:
        assert (got[0].t_start, got[0].t_end) == (1.0, 3.5)


def test_render_joins_compound_moves_and_decompose_splits_them():
    sts = [Statement(tx.CAMERA_MOVEMENT, "pan right", t_start=0.0, t_end=2.0),
           Statement(tx.CAMERA_MOVEMENT, "tilt up", t_start=0.0, t_end=2.0),
           Statement(tx.CAMERA_MOVEMENT, "zoom in", t_start=2.0, t_end=4.0),
           Statement(tx.SHOT_SIZE, "wide shot")]
    caption = render_caption(sts)
    assert "pans right and tilts up" in caption
    got = [(s.value, s.t_start, s.t_end) for s in decompose(caption)]
    assert got == [("pan right", 0.0, 2.0), ("tilt up", 0.0, 2.0), ("zoom in", 2.0, 4.0),
                   ("wide shot", None, None)]


def test_render_says_a_repeated_fact_once():
    st = Statement(tx.SHOT_SIZE, "close-up")
    assert render_caption([st, Statement(tx.SHOT_SIZE, "close-up")]) == "It is a close-up."


def test_cot_line_round_trip():
    st = Statement(tx.CAMERA_MOVEMENT, "pan left", t_start=0.5, t_end=2.0,
                   evidence="the trees slide right")
    line = format_cot_line(st)
    assert line == "[0.5–2.0] [the trees slide right] → The camera pans left."
    parsed = parse_cot_line(line)
    assert (parsed.t_start, parsed.t_end, parsed.anchor) == (0.5, 2.0, "the trees slide right")
    assert parsed.statement == "The camera pans left."


@pytest.mark.parametrize("line, expected", [
    ("- [2-4] [sky grows] -> the camera tilts up", (2.0, 4.0, "sky grows", "the camera tilts up")),
    ("1. (4.0 s to 1.0 s) [x] => pans", (1.0, 4.0, "x", "pans")),  # reversed bounds are sorted
    ("[blur] shallow focus", (None, None, "blur", "shallow focus")),
    ("A static shot.", (None, None, "", "A static shot.")),
])
def test_parse_cot_line_tolerates_odd_forms(line, expected):
    p = parse_cot_line(line)
    assert (p.t_start, p.t_end, p.anchor, p.statement) == expected


def test_parse_cot_line_blank_is_none():
    assert parse_cot_line("   ") is None


def test_static_statement_is_its_text_alone():
    assert format_cot_line(Statement(tx.SHOT_SIZE, "close-up")) == "It is a close-up."


def test_parse_output_splits_think_and_answer():
    sts = [Statement(tx.CAMERA_MOVEMENT, "tilt down", t_start=0.0, t_end=1.0, evidence="e")]
    out = wrap_output(format_reasoning(sts), "The camera tilts down.")
    p = parse_output(out)
    assert p.caption == "The camera tilts down." and p.well_formed
    assert p.lines[0].t_end == 1.0


@pytest.mark.parametrize("text, caption, warns", [
    ("plain caption", "plain caption", False),
    ("<think>r</think>tail text", "tail text", True),
    ("<think>r<answer>the answer", "the answer", True),
    ("<answer>a</answer><answer>b</answer>", "a", True),  # the first block, as released
    ("reasoning</think><answer>x</answer>", "x", True),
    ("```\n<answer>fenced</answer>\n```", "fenced", False),
    ("", "", True),
    (None, "", True),
    (b"<answer>bytes</answer>", "bytes", True),
])
def test_parse_output_is_best_effort_never_raises(text, caption, warns):
    p = parse_output(text)
    assert p.caption == caption
    assert bool(p.warnings) == warns


def test_several_answer_blocks_first_as_released_or_last_on_request():
    text = "<think>r</think><answer>The camera pans left.</answer><answer>It tilts up.</answer>"
    assert parse_output(text).caption == "The camera pans left."
    last = parse_output(text, answer="last")
    assert last.caption == "It tilts up." and "the last one is used" in last.warnings[0]
    with pytest.raises(ValueError, match="first, last"):
        parse_output(text, answer="middle")


@pytest.mark.parametrize("text, caption", [
    ("<think>r</think><answer> The camera\n pans  left. </answer>", "The camera pans left."),
    ("<answer>a</answer><answer>b</answer>", "a"),
    # No closing tag (an output cut at max_new_tokens): the release judges the whole text.
    ("<think>[0.0–1.0] x → pans</think><answer>The camera pa", "<think>[0.0–1.0] x → pans</think><answer>The camera pa"),
    ("plain\n caption", "plain caption"),
    ("", ""),
    (None, ""),
])
def test_released_answer_extracts_as_the_release_does(text, caption):
    from cinecap.statements import released_answer

    assert released_answer(text) == caption


def test_statement_rejects_bad_values_and_intervals():
    with pytest.raises(ValueError, match="known"):
        Statement(tx.SHOT_SIZE, "gigantic shot")
    with pytest.raises(ValueError):
        Statement(tx.CAMERA_MOVEMENT, "pan left", t_start=2.0, t_end=1.0)
    with pytest.raises(ValueError):
        Statement(tx.CAMERA_MOVEMENT, "pan left", t_start=1.0)


def test_statement_dict_round_trip():
    st = Statement(tx.SUBJECT_ORIENTATION, "profile", subject="the man")
    assert Statement.from_dict({**st.to_dict(), "junk": 1}) == st


def test_non_text_output_warning_names_its_type():
    p = parse_output(42)
    assert p.caption == "42"
    assert p.warnings == ["the output was a int, not text"]


def test_a_caption_in_time_order_tells_the_clip_as_it_unfolds():
    from cinecap.statements import Statement, render_caption

    sts = [Statement.from_dict(d) for d in [
        {"aspect": "Camera Movement", "value": "pan left", "text": "", "t_start": 0.0,
         "t_end": 1.8},
        {"aspect": "Shot Size", "value": "full shot", "text": "", "t_start": 0.0, "t_end": 0.5},
        {"aspect": "Shot Size", "value": "medium shot", "text": "", "t_start": 0.5, "t_end": 1.8},
        {"aspect": "Camera Angle", "value": "low angle", "text": ""}]]
    by_aspect = render_caption(sts)
    by_time = render_caption(sts, order="time")
    assert by_aspect.index("pans left") < by_aspect.index("full shot")
    assert by_time.index("low angle") < by_time.index("full shot") < by_time.index(
        "pans left") < by_time.index("medium shot")
    assert sorted(by_time.rstrip(".").split(". ")) == sorted(by_aspect.rstrip(".").split(". "))
    with pytest.raises(ValueError, match="order"):
        render_caption(sts, order="random")
