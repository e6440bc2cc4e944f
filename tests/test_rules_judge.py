"""The rules judge against hand-labelled caption pairs, each judge rule on its own, and bad input.

``tests/data/judge_pairs.jsonl``: one pair per line,
``{"id", "rule", "hard", "blind"?, "gt", "pred", "expected": {aspect: [gt, pred, matched]}}``.
``expected`` holds the counts a careful person gets by following docs/spec/judge.md (aspects not
listed: [0, 0, 0]); ``rule`` names the judge rule the pair exercises; ``hard`` marks pairs a plain
keyword matcher (``keyword_counts`` below) gets wrong; ``blind`` marks pairs written after the
judge, before running it on them (their first-run agreement is in docs/judge.md). From batch 5 on
the pairs are the blind writers' own lines, unchanged (``{"id", "batch", "blind", "hard", "style",
"note", "gt", "pred", "expected"}``): their ``hard`` is the writer's judgement, not the keyword
matcher's, and they carry a ``style`` instead of a ``rule``. The labels are hand-written: do not
regenerate them from the judge's output.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cinecap import taxonomy as tx
from cinecap.judge import get_judge
from cinecap.language.decompose import decompose
from cinecap.judge.rules import RulesJudge, intervals_agree, match
from cinecap.statements import Statement

PAIRS_FILE = Path(__file__).parent / "data" / "judge_pairs.jsonl"
PAIRS = [json.loads(line) for line in PAIRS_FILE.read_text().splitlines() if line.strip()]
RULES = ("synonyms", "sequence", "sequence with timestamps", "negation", "strict camera types",
         "strict shot size", "handheld + shake", "front and side = profile",
         "composition as position", "co-reference", "ignore outside the aspects",
         "only <answer> counts", "repeated fact once", "contradiction is an error",
         "invention is an error", "special shots only when explicit")


def counts(j, aspect):
    c = j.by_dim[aspect]
    return [c.gt_count, c.pred_count, c.matched_count]


def expected(pair, aspect):
    return pair["expected"].get(aspect, [0, 0, 0])


def keyword_counts(gt: str, pred: str) -> dict[str, list[int]]:
    """The baseline the hard pairs beat: every taxonomy term found anywhere in the text, as a set
    of judge classes per aspect; matched = the classes both sides name. Generous: it already
    merges synonyms and repeats."""
    def found(text):
        out = {a: set() for a in tx.ASPECTS}
        for v in tx.VALUES:
            for term in v.terms:
                if re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", text.lower()):
                    out[v.aspect].add(v.judge_class)
        return out
    g, p = found(gt), found(pred)
    return {a: [len(g[a]), len(p[a]), len(g[a] & p[a])] for a in tx.ASPECTS}


@pytest.fixture(scope="module")
def judged():
    judge = RulesJudge()
    return [(p, judge.judge(p["gt"], p["pred"])) for p in PAIRS]


# --- the labelled set ------------------------------------------------------------------------

def test_labelled_set_is_big_enough_and_covers_every_rule():
    assert len(PAIRS) >= 40
    assert len({p["id"] for p in PAIRS}) == len(PAIRS)
    assert sum(p["hard"] for p in PAIRS) * 3 >= len(PAIRS), "a third must be hard cases"
    assert set(RULES) <= {p.get("rule") for p in PAIRS}
    for p in PAIRS:
        assert set(p["expected"]) <= set(tx.ASPECTS), p["id"]
        for g, pr, m in p["expected"].values():
            assert 0 <= m <= min(g, pr), p["id"]


def test_hard_pairs_really_defeat_a_keyword_matcher():
    for p in PAIRS:
        if p.get("batch", 0) >= 5:
            continue  # the blind writers' own "hard" flag
        kw = keyword_counts(p["gt"], p["pred"])
        kw_right = all(kw[a] == expected(p, a) for a in tx.ASPECTS)
        assert kw_right != p["hard"], f"{p['id']}: hard={p['hard']} but keyword right={kw_right}"


_CM, _SS, _CA, _DF, _CO, _SO, _SP = tx.ASPECTS
#: The labelled pairs the judge gets wrong today, and on which aspects (docs/judge.md says why,
#: batch by batch: labels to decide, one-off wording left on purpose). Every other labelled pair
#: is exact on all seven aspects. A change either way — a pair that becomes wrong, a miss that
#: becomes right, a miss on other aspects — fails until this list changes in the same commit.
KNOWN_MISSES: dict[str, tuple[str, ...]] = {
    "c-static-then-pan": (_CO,),  # a label to decide: entering from frame left as a position
    "c-orbit-undirected": (_CM,),  # the taxonomy has no undirected arc
    "b15-10": (_CO,), "b15-23": (_CO,),
    "b17-02": (_CO,), "b17-07": (_DF,), "b17-15": (_CO,), "b17-22": (_SS, _SO), "b17-25": (_DF,),
    "b18-02": (_SO,), "b18-19": (_SO,),  # b18-19: a label to decide
    "b19-13": (_CM,),  # a label to decide
    "b22-22": (_DF,),  # no taxonomy value for a focus that stays put
    "b23-03": (_CM,), "b23-05": (_CA,), "b23-08": (_SS, _SP), "b23-09": (_SS,), "b23-12": (_CM,),
    "b23-14": (_SS,), "b23-17": (_CM,), "b23-21": (_SS, _CO, _SO), "b23-22": (_SS, _CO, _SO),
    "b23-23": (_SO,),
    "b24-03": (_DF,), "b24-04": (_CM, _CA), "b24-06": (_CO, _SO), "b24-11": (_SO,),
    "b24-13": (_SO,), "b24-14": (_CO, _SO), "b24-15": (_CO,),
    # Batch 25 (issue 23), copied unchanged after its first run at rules-52405fcb275d; not fixed.
    "b25-01": (_DF,), "b25-03": (_CM, _SS), "b25-06": (_CA,), "b25-08": (_SP,),
    "b25-13": (_CA, _CO), "b25-14": (_SP,), "b25-17": (_CM,), "b25-20": (_CA,),
    "b25-21": (_SS, _CA), "b25-22": (_SS, _SO), "b25-24": (_CA, _DF, _CO, _SO),
    "b25-25": (_SS, _CA, _CO),
}


def test_the_known_misses_name_labelled_pairs_and_aspects():
    ids = {p["id"] for p in PAIRS}
    assert set(KNOWN_MISSES) <= ids
    for pid, aspects in KNOWN_MISSES.items():
        assert aspects and set(aspects) <= set(tx.ASPECTS), pid


def test_rules_judge_is_exact_on_every_labelled_pair_but_the_known_misses(judged):
    wrong = {}
    for p, j in judged:
        missed = tuple(a for a in tx.ASPECTS if counts(j, a) != expected(p, a))
        if missed:
            wrong[p["id"]] = missed
    fixed = sorted(set(KNOWN_MISSES) - set(wrong))
    broken = {i: [(a, expected(p, a), counts(j, a)) for a in wrong[i]]
              for p, j in judged if (i := p["id"]) in wrong and wrong[i] != KNOWN_MISSES.get(i)}
    assert not broken, f"judged otherwise than KNOWN_MISSES says (aspect, label, judge): {broken}"
    assert not fixed, f"now exact — remove them from KNOWN_MISSES: {fixed}"


def test_every_judgement_is_sanitised_and_labelled(judged):
    for p, j in judged:
        assert not j.failed and j.judge == "rules" and j.version == RulesJudge.version
        d = j.to_dict()
        assert list(d["by_dim"]) == list(tx.ASPECTS)
        for c in d["by_dim"].values():
            assert len(c["gt_statements"]) == c["gt_count"]
            assert len(c["matched_statements"]) == c["matched_count"] <= min(c["gt_count"],
                                                                               c["pred_count"])


# --- each rule on its own --------------------------------------------------------------------

def values(text, aspect=None):
    return [s.value for s in decompose(text) if aspect is None or s.aspect == aspect]


def test_sequence_without_times_splits_into_statements():
    assert values("The camera first pans right, then tilts up, and finally zooms out.") == [
        "pan right", "tilt up", "zoom out"]


@pytest.mark.parametrize("text", [
    "From 0 to 2 s the camera pans left; from 2 to 5 s it tilts down.",
    "[0.0–2.0] The camera pans left. [2.0–5.0] The camera tilts down.",
    "The camera pans left (0-2s), then tilts down (2-5 s).",
    "Between 0 and 2 seconds the camera pans left, then between 2 and 5 seconds it tilts down.",
])
def test_explicit_intervals_bind_to_their_statements(text):
    got = [(s.value, s.t_start, s.t_end) for s in decompose(text)]
    assert got == [("pan left", 0.0, 2.0), ("tilt down", 2.0, 5.0)]


def test_a_sequence_word_inside_an_interval_does_not_cut_it():
    got = [(s.value, s.t_start, s.t_end) for s in decompose(
        "From 0 until 2 s the camera pans left, then from 2 to 4 s it tilts up.")]
    assert got == [("pan left", 0.0, 2.0), ("tilt up", 2.0, 4.0)]


def test_minutes_and_seconds_timestamps():
    got = [(s.value, s.t_start, s.t_end) for s in decompose(
        "0:00–0:03: static wide shot. 0:03–0:06: the camera pans left. From 1:02 to 1:10.5 the "
        "camera tilts up.")]
    assert got == [("static", 0.0, 3.0), ("wide shot", 0.0, 3.0), ("pan left", 3.0, 6.0),
                   ("tilt up", 62.0, 70.5)]


def test_in_the_first_seconds_is_an_interval_from_zero():
    (st,) = decompose("In the first 3 seconds the camera trucks left.")
    assert (st.value, st.t_start, st.t_end) == ("truck left", 0.0, 3.0)


@pytest.mark.parametrize("text, expect", [
    ("The camera does not move.", ["static"]),
    ("The camera doesn't zoom in; it dollies in.", ["dolly in"]),
    ("It pushes in rather than zooming in.", ["dolly in"]),
    ("The camera neither pans left nor tilts up.", []),
    ("Not a close-up but a medium close-up.", ["medium close-up"]),
    ("No handheld shake; a locked-off frame.", ["static"]),
    ("The shot is not in slow motion.", []),
])
def test_negations(text, expect):
    assert values(text) == expect


def test_strict_distinctions_are_not_merged():
    j = RulesJudge().judge("The camera zooms in. A close-up. The camera pans left.",
                           "The camera dollies in. A medium close-up. The camera trucks left.")
    assert counts(j, tx.CAMERA_MOVEMENT) == [2, 2, 0]
    assert counts(j, tx.SHOT_SIZE) == [1, 1, 0]


def test_synonyms_of_one_state_merge():
    assert values("A long shot, an establishing wide shot of the valley.") == ["wide shot"]
    j = RulesJudge().judge("An extreme long shot.", "A panorama of the city.")
    assert counts(j, tx.SHOT_SIZE) == [1, 1, 1]


def test_handheld_and_shake_are_one_statement():
    assert values("Handheld camera; the camera shakes throughout, a jittery, shaky frame.") == [
        "handheld shake"]


def test_front_and_side_is_profile():
    assert values("We see her front and side.", tx.SUBJECT_ORIENTATION) == ["profile"]


def test_composition_is_subject_position_only():
    sts = decompose("The dancer, on the left of the frame, turns right and walks to the left.")
    assert [(s.value, s.subject) for s in sts if s.aspect == tx.COMPOSITION] == [("left", "dancer")]
    assert [s.value for s in sts if s.aspect != tx.COMPOSITION] == []


def test_motion_and_gaze_directions_are_not_positions():
    # A bare direction of motion or gaze is not a place in the frame ...
    assert values("The dancer turns left and walks to the right.") == []
    assert values("The boy, facing screen left, sits on the right side of the frame.",
                  tx.COMPOSITION) == ["right"]


def test_positions_that_change_over_time_are_one_statement_each():
    # ... but entering, crossing to and leaving a place in the frame are positions (blind
    # writers' protocol, issue 16): each a statement of its own, for the subject that moves.
    sts = decompose("A skier enters from frame left, glides to the center and leaves frame right.")
    assert [(s.value, s.subject) for s in sts if s.aspect == tx.COMPOSITION] == [
        ("left", "skier"), ("center", "skier"), ("right", "skier")]
    assert [s.value for s in decompose("Boy run from the right edge of frame to left side of "
                                       "frame.")] == ["right", "left"]


@pytest.mark.parametrize("text, expect", [
    ("The camera holds perfectly still.", ["static"]),
    ("A wide static shot of the skyline.", ["static", "wide shot"]),
    ("It moves from medium to medium close-up.", ["medium shot", "medium close-up"]),
    ("A racking focus pulls our attention to the bride.", ["rack focus"]),
    ("Everything from the plinth to the clouds is in sharp focus.", ["deep focus"]),
    ("A handheld shot races down the corridor behind the suspect.", ["handheld shake", "tracking"]),
    ("The dog races down the corridor behind the cat.", []),
    ("A close-up of her face in three-quarter profile.", ["close-up", "three-quarter"]),
])
def test_phrasings_found_by_the_blind_pairs(text, expect):
    assert sorted(values(text)) == sorted(expect)


@pytest.mark.parametrize("text, expect", [
    ("Static from 0 to 1.5 s, then a zoom out until 3 s.", ["static", "zoom out"]),
    ("A slow counterclockwise camera roll.", ["roll counterclockwise"]),
    ("A surfer, tracked from the side by the camera.", ["tracking", "profile"]),
    ("Subject: woman facing camera.", ["frontal"]),
    ("The hikers walk on, their backs to the camera.", ["back"]),
    ("A medium two-shot of the couple.", ["medium shot"]),
    ("The camera does not move at all and the frame stays wide.", ["static", "wide shot"]),
    ("Keeping a medium wide framing.", ["medium full shot"]),
])
def test_phrasings_found_by_the_third_blind_batch(text, expect):
    assert sorted(values(text)) == sorted(expect)


@pytest.mark.parametrize("text, expect", [
    ("The camera, mounted on a gimbal, glides smoothly forward.", ["dolly in"]),
    ("The cowboy stares directly into the lens.", ["frontal"]),
    ("The boxer throws a punch toward the camera.", []),
    ("The couple walk slowly toward the camera.", ["frontal"]),
    # "aerial" is a high angle (taxonomy; blind batches 13-14), overhead only with an overhead term
    ("Aerial wide shot of the highway.", ["high angle", "wide shot"]),
    ("Shot from slightly above the subject's eye line.", ["high angle"]),
    ("The camera rolls 90 degrees clockwise, then stabilises.", ["roll clockwise", "static"]),
])
def test_phrasings_found_by_the_fourth_blind_batch(text, expect):
    assert sorted(values(text)) == sorted(expect)


@pytest.mark.parametrize("text, expect", [
    ("The child sits slightly left of center.", "center-left"),
    ("She stands center-right.", "center-right"),
    ("The tree is on the right third of the frame.", "right"),
    ("A symmetrical composition with the door in the middle of the frame.", "center"),
])
def test_composition_positions(text, expect):
    assert values(text, tx.COMPOSITION) == [expect]


def test_co_reference_single_subject_and_two_subjects():
    judge = RulesJudge()
    one = judge.judge("The guitarist, seen in profile, tunes his guitar.",
                      "The man is in profile.")
    assert counts(one, tx.SUBJECT_ORIENTATION) == [1, 1, 1]
    two = judge.judge("The man faces the camera while the woman is seen in profile.",
                      "The woman faces the camera while the man is seen in profile.")
    assert counts(two, tx.SUBJECT_ORIENTATION) == [2, 2, 0]
    swapped_back = judge.judge("The man faces the camera while the woman is seen in profile.",
                               "The woman is seen in profile and the man faces the camera.")
    assert counts(swapped_back, tx.SUBJECT_ORIENTATION) == [2, 2, 2]


def test_pronouns_and_body_parts_resolve_to_the_person():
    sts = decompose("The man stands under a streetlamp. Later he turns, revealing his face in "
                    "profile.")
    assert [(s.value, s.subject) for s in sts] == [("profile", "man")]
    j = RulesJudge().judge("The man stands under a streetlamp; his face is seen in profile.",
                           "The man is in profile, on the left of the frame.")
    assert counts(j, tx.SUBJECT_ORIENTATION) == [1, 1, 1]


def test_pronouns_pick_an_antecedent_of_their_gender():
    sts = decompose("A woman and a man sit. She faces the camera; he is seen in profile.")
    assert [(s.value, s.subject) for s in sts] == [("frontal", "woman"), ("profile", "man")]
    j = RulesJudge().judge("A woman and a man sit. She faces the camera; he is seen in profile.",
                           "The man is in profile while the woman faces the camera.")
    assert counts(j, tx.SUBJECT_ORIENTATION) == [2, 2, 2]
    swapped = RulesJudge().judge("A woman and a man sit. She faces the camera; he is in profile.",
                                 "The woman is in profile while the man faces the camera.")
    assert counts(swapped, tx.SUBJECT_ORIENTATION) == [2, 2, 0]


def test_both_and_each_other_give_one_fact_per_subject():
    sts = decompose("The woman on the right faces the man on the left, both in profile.")
    assert sorted((s.aspect, s.value, s.subject) for s in sts) == [
        (tx.COMPOSITION, "left", "man"), (tx.COMPOSITION, "right", "woman"),
        (tx.SUBJECT_ORIENTATION, "profile", "man"), (tx.SUBJECT_ORIENTATION, "profile", "woman")]


def test_relative_clause_subject_is_the_noun_before_it():
    (st,) = [s for s in decompose("The camera tilts down from the treetops to the hikers below, "
                                  "who are seen from behind.") if s.aspect == tx.SUBJECT_ORIENTATION]
    assert (st.value, st.subject) == ("back", "hikers")


def test_subject_named_after_the_term():
    assert [(s.value, s.subject) for s in decompose("A profile view of the woman.")] == [
        ("profile", "woman")]


def test_appositive_makes_two_names_one_subject():
    (st,) = decompose("The man, a guitarist, faces the camera.")
    assert st.subject == "man"
    sts = decompose("The man, a guitarist, stands on the left. The guitarist faces the camera.")
    assert {s.subject for s in sts} == {"man"}


def test_text_outside_the_aspects_is_ignored():
    assert decompose("Warm golden light, a melancholic mood; the sun rises as she looks up at "
                     "the sky and a bird follows the boat. The colours are muted.") == []


def test_camera_only_words_need_the_camera_as_subject():
    assert values("The camera rises over the wall.") == ["pedestal up"]
    assert values("The camera follows the runner.") == ["tracking"]
    assert values("The man is looking down at his phone.") == []
    assert values("The camera is looking down on the square.") == ["high angle"]


def test_only_the_answer_of_a_wrapped_output_counts():
    out = "<think>[0-2] [x] → the camera zooms in</think><answer>The camera tilts up.</answer>"
    assert values(out) == ["tilt up"]


def test_a_repeated_fact_counts_once_but_a_return_move_counts_again():
    assert values("The camera dollies in. As it dollies in, the slow dolly-in continues.") == [
        "dolly in"]
    assert values("The camera pans left, then right, then left again.") == [
        "pan left", "pan right", "pan left"]


def test_contradicted_and_invented_statements_are_errors():
    j = RulesJudge().judge("A low-angle static shot.",
                           "A high-angle static shot in slow motion.")
    assert counts(j, tx.CAMERA_ANGLE) == [1, 1, 0]
    assert counts(j, tx.SPECIAL_SHOTS) == [0, 1, 0]
    assert (j.total_gt_count, j.total_pred_count, j.total_matched_count) == (2, 3, 1)
    assert j.accuracy() == pytest.approx(1 / 3)


def test_special_shots_only_when_explicit():
    assert values("Rain falls in slow, heavy drops.", tx.SPECIAL_SHOTS) == []
    assert values("Rain falls in slow motion.", tx.SPECIAL_SHOTS) == ["slow motion"]


def test_short_abbreviations_count_only_in_capitals():
    assert values("A static MS of the chef.", tx.SHOT_SIZE) == ["medium shot"]
    assert values("it took 40 ms to load", tx.SHOT_SIZE) == []


# --- matching mechanics ----------------------------------------------------------------------

def _cm(value, t0=None, t1=None):
    return Statement(tx.CAMERA_MOVEMENT, value, t_start=t0, t_end=t1)


def test_intervals_agree_when_they_overlap_by_half_the_shorter():
    assert intervals_agree(_cm("pan left", 0, 4), _cm("pan left", 1, 3))
    assert intervals_agree(_cm("pan left", 0, 4), _cm("pan left", 2, 6))      # 2 of 4
    assert not intervals_agree(_cm("pan left", 0, 4), _cm("pan left", 3, 7))  # 1 of 4
    assert intervals_agree(_cm("pan left", 0, 4), _cm("pan left"))            # one side untimed
    assert intervals_agree(_cm("pan left", 3, 3), _cm("pan left", 2, 4))      # a moment inside
    assert not intervals_agree(_cm("pan left", 5, 5), _cm("pan left", 2, 4))  # a moment after


def test_matching_is_one_to_one_and_maximal():
    gt = [_cm("pan left", 0, 2), _cm("pan left", 4, 6)]
    pred = [_cm("pan left"), _cm("pan left", 4, 6)]
    # Greedy would give the untimed prediction to the first GT and could strand the second;
    # the maximum matching pairs both.
    assert len(match(gt, pred)) == 2
    assert len(match(gt, [_cm("pan left")])) == 1


def test_registry_gives_the_rules_judge_and_judge_many_keeps_order():
    judge = get_judge("rules")
    assert isinstance(judge, RulesJudge)
    js = judge.judge_many([("A close-up.", "A close-up."), ("A close-up.", "A wide shot.")])
    assert [j.total_matched_count for j in js] == [1, 0]


def test_aspect_subset():
    j = RulesJudge().judge("A static close-up.", "A static close-up.", aspects=[tx.SHOT_SIZE])
    assert list(j.to_dict()["by_dim"]) == [tx.SHOT_SIZE]
    assert j.total_gt_count == 1


# --- bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize("gt, pred", [
    ("", ""),
    ("   \n\t ", "A close-up."),
    ("Die Kamera schwenkt langsam nach links.", "摄像机向左摇。"),
    ("\x00\xff\xfe garbage \x07\x1b[31m", "\ud800 lone surrogate"),
    (b"\x89PNG\r\n\x1a\n\x00\x00binary", b"\xff\xfe\x00"),
    ("<think>unclosed <answer> <answer></think>", "</answer></think><think>"),
    (None, 12345),
])
def test_bad_input_gives_a_clear_result_never_a_crash(gt, pred):
    j = RulesJudge().judge(gt, pred)
    assert not j.failed
    assert j.total_pred_count == j.total_matched_count == 0 or j.total_gt_count == 0
    json.dumps(j.to_dict())


def test_a_100_kb_caption_is_judged_and_repeats_are_merged():
    long = ("The camera pans left across the market while vendors shout and colours glow. " * 1300)
    assert len(long) > 100_000
    j = RulesJudge().judge("The camera pans left.", long)
    assert counts(j, tx.CAMERA_MOVEMENT) == [1, 1, 1]


@pytest.mark.parametrize("unit, aspect", [
    ("the man faces the camera and ", tx.SUBJECT_ORIENTATION),   # one run-on sentence
    ("the dog is on the left and ", tx.COMPOSITION),
    ("The camera pans left, then right, then left again. ", tx.CAMERA_MOVEMENT),
])
def test_100_kb_of_repetition_collapses_to_the_facts(unit, aspect):
    text = unit * (100_000 // len(unit) + 1)
    j = RulesJudge().judge(text, "x")
    assert j.total_gt_count == j.by_dim[aspect].gt_count == (3 if "again" in unit else 1)


def test_junk_intervals_are_ignored_not_fatal():
    (st,) = decompose("From 0 to " + "9" * 400 + " s the camera pans left.")
    assert st.value == "pan left" and not st.has_interval


def test_a_caption_over_the_limit_is_a_failed_judgement_not_a_hang():
    from cinecap.judge.rules import MAX_CHARS
    j = RulesJudge().judge("A close-up.", "x" * (MAX_CHARS + 1))
    assert j.failed and "limit" in j.error


def test_unknown_aspect_is_a_failed_judgement_naming_the_known_ones():
    j = RulesJudge().judge("A close-up.", "A close-up.", aspects=["Lighting"])
    assert j.failed and "Shot Size" in j.error


def test_docs_say_how_the_rules_version_is_derived():
    docs = (Path(__file__).resolve().parents[1] / "docs" / "judge.md").read_text()
    assert "rules.code_version()`" in docs and "`BEHAVIOUR_FILES`" in docs
    assert re.fullmatch(r"rules-[0-9a-f]{12}", RulesJudge.version)


def _copy_behaviour_files(dest: Path) -> None:
    import shutil

    from cinecap.judge import rules
    for f in rules._behaviour_files(rules._PACKAGE):
        to = dest / f.relative_to(rules._PACKAGE)
        to.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, to)


def test_the_rules_version_follows_the_code_that_decides_what_is_counted(tmp_path):
    from cinecap.judge.rules import code_version
    _copy_behaviour_files(tmp_path)
    assert code_version(tmp_path) == RulesJudge.version
    phrases = tmp_path / "language" / "phrases.py"
    phrases.write_bytes(phrases.read_bytes().replace(b"\n", b"\r\n"))
    assert code_version(tmp_path) == RulesJudge.version, "a Windows checkout is the same version"
    tax = tmp_path / "taxonomy.toml"
    tax.write_text(tax.read_text(encoding="utf-8").replace('"zolly"', '"zolly", "trombone shot"'),
                   encoding="utf-8")
    changed = code_version(tmp_path)
    assert changed != RulesJudge.version
    (tmp_path / "language" / "moves.toml").write_text('pan = ["swish"]\n')
    assert code_version(tmp_path) not in (changed, RulesJudge.version), "a table is behaviour too"
    (tmp_path / "language" / "__pycache__").mkdir()
    before = code_version(tmp_path)
    (tmp_path / "language" / "__pycache__" / "phrases.cpython-311.pyc").write_bytes(b"\0")
    assert code_version(tmp_path) == before


def test_decompose_docstring_examples_hold():
    import doctest

    import cinecap.language.decompose as module
    assert doctest.testmod(module).failed == 0


def test_back_to_back_repeats_of_one_move_stay_two_statements():
    """Issue 11 item 5: intervals that only touch (0–3 s, 3–6 s) are two times, not one."""
    gt = "0–3 s tilts up. 3–6 s tilts up faster."
    assert [(s.value, s.t_start, s.t_end) for s in decompose(gt)] == [
        ("tilt up", 0.0, 3.0), ("tilt up", 3.0, 6.0)]
    for second in ("3", "3.1"):
        j = RulesJudge().judge(gt.replace("3–6", f"{second}–6"), f"{second}–6 s tilts up")
        assert counts(j, tx.CAMERA_MOVEMENT) == [2, 1, 1]
        assert (j.comprehensiveness(), j.accuracy()) == (0.5, 1.0)
    # The same move over overlapping times is still one fact.
    assert values("0–4 s the camera tilts up. 2–4 s it tilts up.") == ["tilt up"]


def test_film_words_said_of_something_else_are_not_camera_statements():
    assert values("A car pulls out of the driveway as the camera holds still.") == ["static"]
    assert values("The dog tracks the ball across the lawn.") == []
    assert values("Paper lanterns hang overhead; a medium shot of the couple.") == ["medium shot"]
    assert values("The man is seen from above.") == ["high angle"]
    assert values("The camera, mounted on a gimbal, pulls back.") == ["dolly out"]
    assert values("A slow pan left, then the camera tilts up.") == ["pan left", "tilt up"]


# --- the classes of wording of the blind batches (issue 16), each in new words ---------------

@pytest.mark.parametrize("text, expect", [
    # labelled fields: the label gives bare words their aspect
    ("Size: medium. Angle: a bit high. Focus: deep. Movement: static.",
     ["medium shot", "high angle", "deep focus", "static"]),
    ("Position: center-left. Facing: side.", ["center-left", "profile"]),
    # terse lists: a bare size item, a noun with a bare position
    ("Wide. Eye level. Horse right, profile.", ["wide shot", "eye level", "right", "profile"]),
    # the camera's stillness by negating its motion, a tripod
    ("Camera not moving at all.", ["static"]),
    ("The camera sits on a tripod.", ["static"]),
])
def test_structure_gives_bare_words_their_aspect(text, expect):
    assert sorted(values(text)) == sorted(expect)


def test_subject_label_names_the_subject():
    sts = decompose("Boy: frame right, facing away. Dog: left, frontal.")
    assert sorted((s.value, s.subject) for s in sts) == [
        ("back", "boy"), ("frontal", "dog"), ("left", "dog"), ("right", "boy")]


@pytest.mark.parametrize("text, expect", [
    ("The mountains behind her are a soft blur.", ["shallow depth of field"]),
    ("Her background dissolves into a smear of light.", ["shallow depth of field"]),
    ("We only see one side of his face.", ["profile"]),
    ("She turns and shows us her back.", ["back"]),
    ("The boy runs straight at us.", ["frontal"]),
    ("The old man is turned half toward the lens.", ["three-quarter"]),
    ("The camera looks down on the chessboard.", ["high angle"]),
    ("The street is seen through the cyclist's eyes.", ["pov"]),
    ("The footage is sped up.", ["fast motion"]),
])
def test_aspects_stated_through_their_effect(text, expect):
    assert values(text) == expect


def test_a_rack_focus_told_by_its_effect_is_one_statement():
    assert values("At first the cup is sharp and the woman behind it is blurred; then the focus "
                  "moves to the woman.") == ["rack focus"]
    # a shallow depth of field named as such is a statement of its own
    assert sorted(values("Shallow depth of field; the focus shifts from the cup to the woman.")) \
        == ["rack focus", "shallow depth of field"]


@pytest.mark.parametrize("text, expect", [
    ("Lanterns hang overhead.", []),
    ("Harsh overhead light on the table.", []),
    ("An overhead shot of the table.", ["overhead"]),
    ("The lorry pulls out of the yard.", []),
    ("The cat tracks a moth across the room.", []),
    ("A motorbike zooms past.", []),
])
def test_film_words_for_things_that_are_not_the_camera(text, expect):
    assert values(text) == expect


@pytest.mark.parametrize("text, expect", [
    ("The camera goes round the fountain in a circle to the right.", ["arc right"]),
    ("The drone moves backward in front of the cyclist.", ["tracking"]),
    ("The camera is moving sideway to the right.", ["truck right"]),
])
def test_motion_stated_by_where_the_camera_travels(text, expect):
    assert values(text) == expect


def test_one_name_at_two_positions_is_two_subjects():
    j = RulesJudge().judge("Two women: woman left, profile; woman right, profile.",
                           "Two women, one on each side of the frame, both in profile.")
    assert counts(j, tx.SUBJECT_ORIENTATION) == [2, 2, 2]


@pytest.mark.parametrize("text, expect", [
    ("Framed from behind the detective's shoulder, we see the suspect.", ["over the shoulder"]),
    ("He slings a rifle over his shoulder.", []),
    ("A neutral camera height, level with her eyes.", ["eye level"]),
    ("We fly forward over the rice terraces.", ["dolly in"]),
    ("The camera shakes while rushing forward.", ["handheld shake", "dolly in"]),
    ("The boy runs forward.", []),
    ("Left figure frontal, right figure in profile.", ["left", "frontal", "right", "profile"]),
])
def test_named_classes_of_issue_16(text, expect):
    assert values(text) == expect


@pytest.mark.parametrize("text, expect", [
    # subjects: a thing after a person leaves the person the subject; clothes are not subjects
    ("A boy waiting beside a lamppost on the left. He's turned away, we see the back of his "
     "jacket.", [("left", "boy"), ("back", "boy")]),
])
def test_subjects_prefer_the_person_over_the_thing_beside_it(text, expect):
    assert [(s.value, s.subject) for s in decompose(text)] == expect


@pytest.mark.parametrize("text, expect", [
    ("The camera opens fairly wide on the harbour.", ["wide shot"]),
    ("The lens is wide.", []),  # a wide-angle lens is not a shot size
    ("The depth of field is very shallow.", ["shallow depth of field"]),
    ("Everything behind the cup dissolves into a blur.", ["shallow depth of field"]),
    ("The trees behind her are still perfectly sharp.", ["deep focus"]),
    ("The whole valley is crisp from front to back.", ["deep focus"]),
    ("Focus stays on the glass in the foreground.", ["focus on foreground"]),
    ("The shot is completely still; nothing moves.", ["static"]),
    ("CLOSE ON the letter. Camera holds.", ["close-up", "static"]),
    ("It's placed slightly below him, looking up.", ["low angle"]),
    ("Filmed from a high vantage point.", ["high angle"]),
    ("A low, canted angle.", ["low angle", "dutch angle"]),
    ("The centre frame figure.", ["center"]),
])
def test_phrasings_of_the_sixth_blind_batch(text, expect):
    assert sorted(values(text)) == sorted(expect)


@pytest.mark.parametrize("text, expect", [
    ("A banner that pans across the screen from left to right.", []),
    ("The SPOTLIGHT TILTS DOWN onto the stage.", []),
    ("The camera itself is locked off.", ["static"]),
    ("A drone moving down the canyon toward the river.", ["dolly in"]),
    ("The camera circles around the dancing pair to the right.", ["arc right"]),
    ("The camera orbits her to the left.", ["arc left"]),
    ("She walks up the stairs.", []),
])
def test_motion_words_by_structure(text, expect):
    assert values(text) == expect


@pytest.mark.parametrize("text, expect", [
    ("A cyclist enters on the left, reaches the centre and leaves on the right.",
     ["left", "center", "right"]),
    ("The nurse begins at frame left, drifts to centre-right and ends at frame right.",
     ["left", "center-right", "right"]),
    ("She turns around to face the lens.", ["frontal"]),
    ("Framed from just behind the pilot's left shoulder.", ["over the shoulder"]),
    ("A medium shot over the man's shoulder.", ["medium shot", "over the shoulder"]),
    ("The camera swings down on a jib.", ["crane down"]),
    ("The camera booms straight up.", ["pedestal up"]),
    ("Static, extreme wide, eye level.", ["static", "extreme wide shot", "eye level"]),
])
def test_phrasings_of_the_seventh_blind_batch(text, expect):
    assert values(text) == expect


def test_plural_subjects_give_one_orientation_each():
    sts = decompose("Two sisters sit on a sofa facing the camera.")
    assert [s.value for s in sts] == ["frontal", "frontal"]
    j = RulesJudge().judge("The two men face each other in profile.",
                           "A man on the left and a man on the right, both in profile.")
    assert counts(j, tx.SUBJECT_ORIENTATION) == [2, 2, 2]
    # a thing named with the people is not one of "both"
    sts = decompose("A man and a woman on a bench, both facing the camera.")
    assert sorted(s.subject for s in sts) == ["man", "woman"]


@pytest.mark.parametrize("text, expect", [
    ("The camera is turning to the left side to keep the cyclist in frame.", ["pan left"]),
    ("The girl turns to the left.", []),
    ("We see the horse from its side.", ["profile"]),
    ("The trees behind him have dissolved into a blur.", ["shallow depth of field"]),
    ("Wide shot from the back of the church.", ["wide shot"]),
    ("The dancer is seen from the back.", ["back"]),
    ("A guard whose back is to us.", ["back"]),
    ("The striker runs through the centre, then moves over to the left side.",
     ["center", "left"]),
    ("The camera leads the boy, tracking backward in front of him.", ["tracking"]),
])
def test_phrasings_of_the_eighth_blind_batch(text, expect):
    assert values(text) == expect


def test_one_person_introduced_is_one_subject():
    sts = decompose("A follow shot behind a cyclist: the camera trails him from behind, the rider "
                    "seen from the back.")
    assert [(s.value, s.subject) for s in sts if s.aspect == tx.SUBJECT_ORIENTATION] == [
        ("back", "cyclist")]
    # two people introduced: no merging
    sts = decompose("A cyclist and a runner: the cyclist is seen from the back, the runner from "
                    "behind.")
    assert len([s for s in sts if s.aspect == tx.SUBJECT_ORIENTATION]) == 2


def test_a_subject_labels_parenthesis_is_about_that_subject():
    sts = decompose("Woman: center-right, three-quarter. Man (foreground, back to camera): left.")
    assert sorted((s.value, s.subject) for s in sts) == [
        ("back", "man"), ("center-right", "woman"), ("left", "man"), ("three-quarter", "woman")]


@pytest.mark.parametrize("text, expect", [
    ("The frame bobs as the camera runs.", ["handheld shake"]),
    ("The camera does not budge.", ["static"]),
    ("A crash zoom on the clock.", ["zoom in"]),
    ("The camera slowly closes in on the suspect.", ["dolly in"]),
    ("The lens refocuses on the door.", ["rack focus"]),
    ("Only her eyes are in sharp focus.", ["shallow depth of field"]),
    ("His face fills the frame.", ["close-up"]),
    ("The horizon runs diagonally across the shot.", ["dutch angle"]),
    ("The camera looks straight down on the pool.", ["overhead"]),
    ("A tracking shot behind the runner.", ["tracking", "back"]),
    ("Over-the-shoulder shot from behind the nurse, onto the patient.", ["over the shoulder"]),
    ("Between 0:02 and 0:05 the camera tilts up.", ["tilt up"]),
])
def test_classes_added_before_the_ninth_batch(text, expect):
    assert values(text) == expect


@pytest.mark.parametrize("text, expect", [
    ("Medium shot on the dog's nose, eye level, locked off.", ["medium shot", "eye level", "static"]),
    ("Wide, high angle, pans right along the shelf.", ["wide shot", "high angle", "pan right"]),
    ("The houses glide leftward across the frame as the camera slowly turns.", ["pan right"]),
    ("The houses glide leftward across the frame.", []),
    ("The hills are sharp from near to far.", ["deep focus"]),
    ("The audience is a soft blur.", ["shallow depth of field"]),
    ("The dancer is a blur of motion.", []),
    ("We see everything from her eyes.", ["pov"]),
    ("Camera at height of eyes.", ["eye level"]),
    ("He faces the camera three-quarters.", ["three-quarter"]),
    ("She is turned away, we see her back and a sliver of her cheek.", ["three-quarter back"]),
    ("A horse walks in from the left and stops at the centre.", ["left", "center"]),
    ("A crane shot descending over the crowd.", ["crane down"]),
    ("The bride framed wide at first.", ["wide shot"]),
])
def test_phrasings_of_the_ninth_blind_batch(text, expect):
    assert values(text) == expect


def test_times_bind_to_their_own_clause():
    got = [(s.value, s.t_start, s.t_end) for s in decompose(
        "0:00-0:04 girl frontal, 0:04-0:08 she turns away.")]
    assert got == [("frontal", 0.0, 4.0), ("back", 4.0, 8.0)]
    got = [(s.value, s.t_start) for s in decompose(
        "The cup in the foreground is in focus, and a rack focus happens around 5–7 s.")]
    assert got == [("focus on foreground", None), ("rack focus", 5.0)]


def test_two_named_people_never_match_and_roles_pair_up_by_elimination():
    j = RulesJudge().judge("OVER THE SHOULDER of TOM onto ANNA, who faces camera.",
                           "OVER THE SHOULDER of ANNA onto TOM, who faces us.")
    assert counts(j, tx.SUBJECT_ORIENTATION) == [1, 1, 0]
    assert counts(j, tx.SPECIAL_SHOTS) == [1, 1, 0]
    j = RulesJudge().judge("The presenter sits frame left in profile; the guest sits frame right.",
                           "The guest on the right; the host on the left, in profile.")
    assert counts(j, tx.SUBJECT_ORIENTATION) == [1, 1, 1]
    assert counts(j, tx.COMPOSITION) == [2, 2, 2]


@pytest.mark.parametrize("text, expect", [
    ("A quick whip pan right.", ["pan right"]),
    ("MLS of the rider; WS of the valley; XCU on the eye; FS of the dancer.",
     ["medium full shot", "wide shot", "extreme close-up", "full shot"]),
    ("The dogs track the ball.", []),
])
def test_film_school_shorthand(text, expect):
    assert values(text) == expect


@pytest.mark.parametrize("text, expect", [
    ("The camera is maybe slowly drifting to the left, a gentle pan.", ["pan left"]),
    ("The camera moves left, then pans right.", ["truck left", "pan right"]),
    ("Canted frame looking down at the dancer.", ["dutch angle", "high angle"]),
    ("Camera go on the train, going ahead always.", ["dolly in"]),
    ("All is in focus, near and far.", ["deep focus"]),
    ("Every leaf on the tree looks sharp.", ["deep focus"]),
    ("The host sits centre; the guest beside him on the left.", ["center", "left"]),
    ("The chef, centre, faces the camera.", ["center", "frontal"]),
])
def test_phrasings_of_the_tenth_blind_batch(text, expect):
    assert values(text) == expect


def test_it_is_the_camera_unless_an_animal_or_person_was_named_since():
    assert values("[0–2 s] the cat sits at frame left; [2–4 s] it stops at the centre.") == [
        "left", "center"]
    assert values("The camera pans left. Then it stops.") == ["pan left", "static"]
    assert values("The camera dollies out from the couple as it zooms out.") == [
        "dolly out", "zoom out"]


def test_a_subject_placed_over_time_is_one_subject():
    sts = decompose("[0–2 s] the fox is at frame right; [2–5 s] it trots through the centre.")
    assert {s.subject for s in sts} == {"fox"}


def test_anchoring_patterns_on_their_first_words_changes_nothing(monkeypatch):
    """Pattern.starts (try a pattern only where its first words are) and the index that picks
    the patterns a caption's words wake (``candidate_spots``) are a speed-up only: every
    labelled caption decomposes the same with every pattern scanned everywhere."""
    from dataclasses import replace

    import cinecap.language.decompose as dec
    from cinecap.language.phrases import patterns
    texts = [t for p in PAIRS for t in (p["gt"], p["pred"])]
    fast = [[(s.aspect, s.value, s.subject, s.t_start) for s in decompose(t)] for t in texts]
    scanned = [replace(p, starts=frozenset()) for p in patterns()]
    monkeypatch.setattr(dec, "candidate_spots", lambda low, words: [(p, []) for p in scanned])
    slow = [[(s.aspect, s.value, s.subject, s.t_start) for s in decompose(t)] for t in texts]
    assert [t for t, a, b in zip(texts, fast, slow) if a != b] == []


def test_the_fast_sentence_and_time_scans_find_what_the_plain_ones_find(monkeypatch):
    """Sentence and clause ends and "two numbers or first" are found by regexes that open with a
    character class, appositives in the lower-case text from "the" on, and each time regex runs
    only in a sentence that has what its matches contain (``decompose._TIMES``): speed-ups only,
    the same ends, appositives, segments and intervals as the plain regexes run everywhere."""
    import cinecap.language.decompose as dec
    from cinecap.language import parse
    texts = [t for p in PAIRS for t in (p["gt"], p["pred"])] + [
        "1.5 s. Then;\n\n2.5. x!?.;\n", "3.\n4;5 first\n9", "FIRST 3 s: static.", "a 1-2 b",
        "[0-2 s] pan. (3–4s) tilt. Between 2 and 4 s. From 1 to 3 sec. In the first 3 seconds it "
        "holds. 0:03–0:06 wide. Seconds 2—5 close. From second 2 to second 5. Next 1 − 2 s. 1–3 s."]
    texts += ["The bride, a tall woman, waits; AND the groom, 2,5 and then the end", "Anna and a",
              "then, the Man, an old man, sits. the dog , the pup ,x;and the"]
    for fast, plain in ((dec._SENTENCE, r"(?<!\d)[.!?;](?!\d)|\n+"),
                        (parse._SENTENCE_STOP, r"(?<!\d)[.!?;](?!\d)|\n"),
                        (dec._MAY_TIME, r"(?i)\d\D+\d|first\s+\d"),
                        (dec._CLAUSE_SEP, r"(?i)(?<!\d)[,;](?!\d)|\band\s+(?=(?:a|an|the|then)\b)")):
        plain = re.compile(plain)
        for t in texts:
            for pos, end in ((0, len(t)), (3, len(t)), (5, len(t) - 4), (1, 9)):
                assert [m.span() for m in fast.finditer(t, pos, end)] == [
                    m.span() for m in plain.finditer(t, pos, end)], (t, pos, end)
    plain = re.compile(r"\bthe\s+([a-z][\w-]*)\s*,\s*(?:a|an|the)\s+(?:[\w-]+\s+)?([a-z][\w-]*)\s*,", re.I)
    assert [[(m.span(), m.group(1).lower(), m.group(2).lower()) for m in plain.finditer(t)]
            for t in texts] == [[(m.span(), *m.groups()) for m in dec.APPOSITIVE.finditer(t.lower())]
                                for t in texts]
    segments = [dec._segments(t) for t in texts]
    assert any(s.intervals for segs in segments for s in segs)
    for name in ("_TIMES", "_TIMES_SEC"):
        monkeypatch.setattr(dec, name, tuple((rx, ("",)) for rx, _ in getattr(dec, name)))
    assert [dec._segments(t) for t in texts] == segments


def test_remembered_sentence_tokens_are_the_tokens_of_their_span():
    """``parse._sentence_tokens`` keeps a sentence's tokens by its text: the same tokens (words,
    word classes and positions in the caption) whether the span is new, seen in another caption at
    another offset, or seen at the start of one."""
    from cinecap.language import parse
    parse._TOKENS_OF.clear()
    a = "The kid runs. A man's dog is panning; the camera pans left."
    b = "Wide. " + a[14:]
    for text, start in ((a, 14), (b, 6), (a[14:], 0), (a, 14)):
        end = len(text)
        assert parse._sentence_tokens(text, start, end) == parse.tokens(text, start, end)
    assert parse._sentence_tokens(a, 14, len(a))[0] == parse.Token(14, 15, "a", parse.DET)
    assert len(parse._TOKENS_OF) == 1


def test_the_needs_scan_picks_the_patterns_a_pattern_by_pattern_check_picks():
    """``candidate_spots`` finds every ``needs`` substring in one scan (the longest at each
    position stands for its prefixes) and checks every pattern's clauses by the index of their
    words: the same patterns as checking each pattern's needs and clauses."""
    from cinecap.language import phrases
    from cinecap.language.starts import clauses, satisfied
    by_word, _, free, _, needing, _, _, pats = phrases._masks()
    pats = [p for p, _ in pats]

    def ids(bits: int) -> set[int]:
        return {i for i in range(len(pats)) if bits >> i & 1}
    wake, free, needing = {w: ids(x[0]) for w, x in by_word.items()}, ids(free), ids(needing)
    index = {id(p): i for i, p in enumerate(pats)}  # two patterns may be equal: by identity
    need = [clauses(p.regex) for p in pats]  # read off each regex once, not once per text
    texts = [t for p in PAIRS for t in (p["gt"], p["pred"])] + [
        "Into focus, in focus, out of focus; focused on the left of frame, screen left."]
    for text in texts:
        low = text.lower()
        words = set(re.findall(r"[a-z]+", low))
        woken = set(free).union(*(wake.get(w, ()) for w in words))
        want = [i for i in sorted(woken) if i not in needing or any(n in low for n in pats[i].needs)]
        want = [i for i in want if not pats[i].starts or pats[i].starts & words]
        want = [i for i in want if satisfied(need[i], words, low)]
        got = [index[id(p)] for p, _ in phrases.candidate_spots(low, words)]
        assert got == want, text


@pytest.mark.parametrize("text, expect", [
    ("The camera holds at eye level as the two boys walk toward it.", ["eye level", "frontal",
                                                                      "frontal"]),
    ("The dog runs toward it.", []),
    ("The camera pulls back in front of the horse as it comes toward it.", ["tracking"]),
])
def test_toward_it_faces_the_camera_only_when_it_is_the_camera(text, expect):
    assert values(text) == expect


@pytest.mark.parametrize("text, expect", [
    ("Sunlight rising over the hills; the camera is static.", ["static"]),
    ("A rising crane shot.", ["crane up"]),  # the rig names the move (rules-1.19)
    ("Handheld tracking shot following the thief.", ["handheld shake", "tracking"]),
])
def test_an_ing_word_after_a_noun_is_that_nouns_doing(text, expect):
    assert values(text) == expect


def test_the_person_named_is_the_subject_rather_than_the_thing_that_opened_the_clause():
    sts = decompose("The video opens with a medium shot of a woman sitting at a table, centered "
                    "in the frame.")
    assert [(s.value, s.subject) for s in sts if s.aspect == tx.COMPOSITION] == [
        ("center", "woman")]


# --- issue 16, second round: classes generalised before blind batch 11 (from a stress set of our
# own paraphrases), each in words no labelled pair uses ------------------------------------------

def subjects(text, aspect):
    return [(s.value, s.subject) for s in decompose(text) if s.aspect == aspect]


@pytest.mark.parametrize("text, expect", [
    # the object of a verb is not who does the next thing
    ("A boy reads a comic in profile.", [("profile", "boy")]),
    # a position that opens its clause places the noun phrase after it
    ("On the right, a porter waits; on the left a nun stands.", [("right", "porter"),
                                                                  ("left", "nun")]),
    # "each other" stops at a new noun phrase of its own
    ("A cook and a waiter look at each other in profile, the cook on the left and the waiter "
     "on the right.", [("profile", "cook"), ("profile", "waiter"), ("left", "cook"),
                        ("right", "waiter")]),
])
def test_who_a_position_or_orientation_is_about(text, expect):
    assert [(s.value, s.subject) for s in decompose(text)
            if s.aspect in (tx.COMPOSITION, tx.SUBJECT_ORIENTATION)] == expect


def test_two_captions_naming_the_same_people_differently_are_aligned():
    j = RulesJudge().judge(
        "The mother stands on the left in profile; the daughter on the right faces the camera.",
        "A woman on the left is side-on, a girl on the right looks into the lens.")
    assert counts(j, tx.COMPOSITION) == [2, 2, 2]
    assert counts(j, tx.SUBJECT_ORIENTATION) == [2, 2, 2]
    # never across genders: the man on the left is not the mother
    j = RulesJudge().judge(
        "The mother stands on the left in profile; the daughter on the right faces the camera.",
        "A man on the left is side-on, a boy on the right looks into the lens.")
    assert counts(j, tx.COMPOSITION)[2] == 0


@pytest.mark.parametrize("text, expect", [
    ("0:00-0:02 tight, camera still.", ["close-up", "static"]),
    ("Very wide.", ["wide shot"]),
    ("Handheld medium: the runner.", ["handheld shake", "medium shot"]),
    ("It's fairly tight and nothing moves.", ["close-up", "static"]),
    ("Cam stay fix, no move.", ["static"]),
    ("The camera keeps still while the dancers spin.", ["static"]),
    ("The camera still drifts left.", ["truck left"]),
])
def test_terse_and_predicative_sizes_and_stillness(text, expect):
    assert values(text) == expect


@pytest.mark.parametrize("text, expect", [
    ("We orbit the well counter-clockwise.", ["arc right"]),
    ("The lens swivels on its axis to the left.", ["pan left"]),
    ("The camera edges forward.", ["dolly in"]),
    ("The camera withdraws from the altar.", ["dolly out"]),
    ("The drone chases the jeep.", ["tracking"]),
    ("The camera tilts left to right.", []),
    ("The camera travels right to left past the shop windows.", ["truck left"]),
    ("A right-to-left pan across the dunes.", ["pan left"]),
    ("The camera dollies right along the bar.", ["truck right"]),
    ("We back off from the fountain.", ["dolly out"]),
    ("The camera pans right to follow the tram.", ["pan right"]),
    ("The camera pans right slowly to follow the tram.", ["pan right"]),
    ("Rising on a jib, the camera finds the choir.", ["crane up"]),
    ("A descending jib move onto the stage.", ["crane down"]),
    ("A crash zoom out from her eye.", ["zoom out"]),
    ("A slow push on the widow.", ["dolly in"]),
    ("The camera ascends while tilting down.", ["pedestal up", "tilt down"]),
])
def test_moves_told_by_where_the_camera_goes_or_by_jargon(text, expect):
    assert values(text, tx.CAMERA_MOVEMENT) == expect


@pytest.mark.parametrize("text, expect", [
    ("The forklift tracks along the fence; a cat zooms by; static wide shot.", ["static"]),
    ("The comedian tilts his head back and the camera stays locked.", ["static"]),
    ("A balloon rises high overhead; the camera tilts up.", ["tilt up"]),
    ("A trembling hand lifts the cup; the camera is locked off.", ["static"]),
    ("Sliding left with the skater, the camera keeps her in frame.", ["truck left"]),
    ("A yacht pulls out while a seagull follows it; the camera holds.", ["static"]),
])
def test_film_words_said_of_other_things(text, expect):
    assert values(text, tx.CAMERA_MOVEMENT) == expect


@pytest.mark.parametrize("text, expect", [
    ("The orchard behind him blurs into soft green.", ["shallow depth of field"]),
    ("Behind the barman the bottles are all fuzzy.", ["shallow depth of field"]),
    ("Both the near fence and the far barn are crisp.", ["deep focus"]),
    ("The vase up front is sharp.", ["focus on foreground"]),
    ("Then the focus drifts over to the window.", ["rack focus"]),
    ("The focus follows the skater as she moves.", ["focus tracking"]),
])
def test_depth_of_field_by_its_effect(text, expect):
    assert values(text, tx.DEPTH_OF_FIELD) == expect


@pytest.mark.parametrize("text, expect", [
    ("The frame is tilted sideways.", ["dutch angle"]),
    ("The camera, set low and angled upward, frames the giant.", ["low angle"]),
    ("Camera at the level of her eyes.", ["eye level"]),
    ("From way up, we see the square.", ["high angle"]),
    ("Looking straight up from the pavement.", ["worm's-eye view"]),
    ("The camera descends from above the trees.", []),
])
def test_angles_by_where_the_camera_is(text, expect):
    assert values(text, tx.CAMERA_ANGLE) == expect


@pytest.mark.parametrize("text, expect", [
    ("His face is partly turned toward us.", ["three-quarter"]),
    ("She turns mostly away from the lens.", ["three-quarter back"]),
    ("He is turned away so we only glimpse his jaw.", ["three-quarter back"]),
    ("She has her back half turned to us.", ["three-quarter back"]),
    ("He stands turned fully to the side.", ["profile"]),
    ("The pilot looks straight down the lens.", ["frontal"]),
    ("The singer faces camera left.", []),
    ("The camera looks up at it.", []),
])
def test_orientation_by_how_far_the_subject_turns(text, expect):
    assert values(text, tx.SUBJECT_ORIENTATION) == expect


@pytest.mark.parametrize("text, expect", [
    ("A waist-up shot of the pianist.", ["medium shot"]),
    ("Framed from the knees up.", ["medium full shot"]),
    ("Head and shoulders on the anchor.", ["medium close-up"]),
    ("We see her whole body.", ["full shot"]),
    ("Cut off at the chest.", ["medium close-up"]),
])
def test_sizes_by_where_the_frame_cuts_the_body(text, expect):
    assert values(text, tx.SHOT_SIZE) == expect


@pytest.mark.parametrize("text, expect", [
    ("The clip plays at a fraction of real speed.", ["slow motion"]),
    ("Footage runs faster than real time.", ["fast motion"]),
    ("As if we were the goalkeeper, we watch the ball come.", ["pov"]),
    ("Shot over a nurse's shoulder.", ["over the shoulder"]),
])
def test_special_shots_described(text, expect):
    assert values(text, tx.SPECIAL_SHOTS) == expect


@pytest.mark.parametrize("text, expect", [
    ("From second 1 to second 4 the camera pans left.", (1.0, 4.0)),
    ("Seconds 2-5: tilt up.", (2.0, 5.0)),
    ("Between the 3rd and 6th second the camera zooms out.", (3.0, 6.0)),
])
def test_more_ways_to_write_a_time(text, expect):
    (st,) = [s for s in decompose(text) if s.aspect == tx.CAMERA_MOVEMENT]
    assert (st.t_start, st.t_end) == expect


def test_a_state_said_again_for_the_next_interval_goes_on():
    sts = decompose("0-2 s: static, wide. 2-5 s: pan left, wide.")
    assert [(s.value, s.t_start, s.t_end) for s in sts if s.aspect == tx.SHOT_SIZE] == [
        ("wide shot", 0.0, 5.0)]
    # a move done again is two moves (issue 11)
    assert len([s for s in decompose("0-2 s: pan left. 2-5 s: pan left.")]) == 2


# --- the classes of blind batch 11 (writer C), in new words ----------------------------------------

@pytest.mark.parametrize("text, expect", [
    ("The harbour's gantry crane swings left; the camera is static.", ["static"]),
    ("A crane in the background turns right; static shot.", ["static"]),
    ("The camera, on a crane, swings left.", ["pan left"]),
])
def test_a_rig_word_for_a_thing_in_the_scene_is_not_the_camera(text, expect):
    assert values(text, tx.CAMERA_MOVEMENT) == expect


def test_an_ing_clause_after_while_is_the_main_subjects():
    assert values("The camera glides toward the gate while gently rising.",
                  tx.CAMERA_MOVEMENT) == ["dolly in", "pedestal up"]


def test_an_effect_in_the_sentence_of_an_ultra_shallow_focus_is_that_focus():
    assert values("Ultra-shallow focus: only her lashes are sharp.", tx.DEPTH_OF_FIELD) == [
        "ultra-shallow depth of field"]


def test_a_hedged_back_or_front_is_three_quarters():
    assert subjects("We see the monk mostly from behind.", tx.SUBJECT_ORIENTATION) == [
        ("three-quarter back", "monk")]
    assert values("The boy is almost facing the camera.", tx.SUBJECT_ORIENTATION) == [
        "three-quarter"]


def test_the_noun_after_a_fronted_term_is_the_one_before_the_verb():
    assert subjects("In profile, the baker kneads the dough.", tx.SUBJECT_ORIENTATION) == [
        ("profile", "baker")]


@pytest.mark.parametrize("text, expect", [
    ("It is a clip from my own eyes on the bike.", ["pov"]),
    ("Taken from behind a stranger's shoulder.", ["over the shoulder"]),
])
def test_point_of_view_and_shoulder_with_any_owner(text, expect):
    assert values(text, tx.SPECIAL_SHOTS) == expect


def test_a_body_cut_in_non_native_english():
    assert values("We see him from the chest to up.", tx.SHOT_SIZE) == ["medium close-up"]


# --- the classes of blind batch 12 (writer C), in new words ----------------------------------------

@pytest.mark.parametrize("text, expect", [
    ("CLOSE on the nurse, framed left.", [("left", "nurse")]),
    ("The pianist, placed right, plays.", [("right", "pianist")]),
    ("Two-shot, the boxer positioned centre-left.", [("center-left", "boxer")]),
])
def test_a_position_after_a_verb_of_placing(text, expect):
    assert subjects(text, tx.COMPOSITION) == expect


def test_the_scene_sliding_toward_one_side_of_the_frame_is_a_pan_the_other_way():
    assert values("The rooftops glide toward the right of the frame as the camera turns on its "
                  "head.") == ["pan left"]


@pytest.mark.parametrize("text, expect", [
    ("The operator has the camera in her hand.", ["handheld shake"]),
    ("Phone in hand, the frame wobble all the time.", ["handheld shake"]),
    ("The bride holds a bouquet in her hand; the camera is locked off.", ["static"]),
])
def test_a_camera_held_by_hand(text, expect):
    assert values(text, tx.CAMERA_MOVEMENT) == expect


@pytest.mark.parametrize("text, expect", [
    ("The whole bus is visible from bumper to bumper.", ["full shot"]),
    ("We see the dancer from head to foot.", ["full shot"]),
    ("The whole square is visible.", []),
])
def test_a_full_shot_by_the_whole_subject_in_frame(text, expect):
    assert values(text, tx.SHOT_SIZE) == expect


def test_the_camera_coming_down_like_a_crane_is_a_crane_move():
    assert values("The camera comes down like a crane onto the stage.", tx.CAMERA_MOVEMENT) == [
        "crane down"]


def test_it_is_an_animal_kept_in_view():
    assert values("The lens keeps the fox in frame as it approaches.", tx.CAMERA_MOVEMENT) == []


@pytest.mark.parametrize("text, expect", [
    ("The lamp stands a bit right from centre.", ["center-right"]),
    ("All is in clear focus.", ["deep focus"]),
    ("Lens looks like eye of a fish.", ["fisheye"]),
])
def test_non_native_phrasings_of_position_focus_and_lens(text, expect):
    assert values(text) == expect


# --- the classes of blind batch 13, in new words -----------------------------------------------

@pytest.mark.parametrize("text, expect", [
    ("Top view of the chessboard, held still.", ["overhead"]),
    ("A bowl of soup, overhead shot.", ["overhead"]),
    ("Lanterns hang overhead.", []),
])
def test_an_angle_word_with_its_noun_is_never_an_adverb_of_place(text, expect):
    assert values(text, tx.CAMERA_ANGLE) == expect


@pytest.mark.parametrize("text, expect", [
    ("Framing: cowboy.", ["medium full shot"]),
    ("ESTABLISHING: harbour at dawn.", ["wide shot"]),
    ("An establishing view of the village.", ["wide shot"]),
    ("The mayor is establishing new rules.", []),
])
def test_screenplay_and_report_names_of_sizes(text, expect):
    assert values(text, tx.SHOT_SIZE) == expect


@pytest.mark.parametrize("text, expect", [
    ("85mm wide open, BG falls off fast.", ["shallow depth of field"]),
    ("The branches in the foreground are blurry.", ["shallow depth of field"]),
])
def test_a_background_falling_off_or_a_blurred_foreground_is_shallow(text, expect):
    assert values(text, tx.DEPTH_OF_FIELD) == expect


@pytest.mark.parametrize("text, expect", [
    ("Lens sits above her eye line.", ["high angle"]),
    ("The operator is shooting down at the kids.", ["high angle"]),
    ("Fireworks shooting up over the bay.", []),
])
def test_the_camera_against_the_eyeline_or_shooting_up_or_down(text, expect):
    assert values(text, tx.CAMERA_ANGLE) == expect


@pytest.mark.parametrize("text, aspect, expect", [
    ("We watch the nurse from side.", tx.SUBJECT_ORIENTATION, ["profile"]),
    ("Camera is tiny bit shaking, like hand held.", tx.CAMERA_MOVEMENT, ["handheld shake"]),
    ("Camera stays in the height of eyes.", tx.CAMERA_ANGLE, ["eye level"]),
])
def test_non_native_spellings_of_known_terms(text, aspect, expect):
    assert values(text, aspect) == expect


def test_moving_with_a_manner_is_not_moving_with_someone():
    assert values("The camera drifts forward with a slight wobble.", tx.CAMERA_MOVEMENT) == [
        "dolly in", "handheld shake"]
    assert values("The camera drifts forward with the skier.", tx.CAMERA_MOVEMENT) == ["tracking"]


def test_a_subject_placed_toward_a_side_or_crossing_the_centre():
    assert subjects("The drummer is positioned toward the left side of the frame.",
                    tx.COMPOSITION) == [("left", "drummer")]
    assert values("[3-5 s] the dog crosses the middle of the frame.", tx.COMPOSITION) == ["center"]


def test_is_contracted_after_a_name_is_not_a_possessive():
    assert subjects("The nurse's on the right, the doctor's on the left.", tx.COMPOSITION) == [
        ("right", "nurse"), ("left", "doctor")]


def test_where_the_light_comes_from_is_lighting():
    assert values("Warm light pours in from a lamp on the right; the boy sits in the centre.",
                  tx.COMPOSITION) == ["center"]
    assert values("The actor, lit from the side, faces us.", tx.SUBJECT_ORIENTATION) == ["frontal"]
    assert values("The hero is turned at an angle to the lens.", tx.SUBJECT_ORIENTATION) == [
        "three-quarter"]


def test_a_rack_focus_told_by_one_thing_softening_as_another_sharpens():
    assert values("The fence in front is sharp at first, then it blurs as the horse behind "
                  "comes into focus.", tx.DEPTH_OF_FIELD) == ["rack focus"]
    assert values("The fence in front is sharp at first, then it blurs as the horse behind "
                  "comes into focus.", tx.CAMERA_MOVEMENT) == []


def test_a_vehicle_is_it_like_an_animal():
    assert values("Wide frame: the bus rolls out of the depot as it pulls away.",
                  tx.CAMERA_MOVEMENT) == []


def test_a_possessor_of_a_body_part_and_verbs_of_placing_are_not_names():
    assert subjects("The boxer's arm fills frame right.", tx.COMPOSITION) == [("right", "boxer")]
    assert subjects("The singer stands by the mic, located left.", tx.COMPOSITION) == [
        ("left", "singer")]


def test_a_shot_list_opening_over_a_shoulder_with_planes():
    text = "OVER HER SHOULDER — CU on HIM, frame left. HER back in FG right."
    assert values(text, tx.SPECIAL_SHOTS) == ["over the shoulder"]
    assert values(text, tx.SUBJECT_ORIENTATION) == ["back"]
    assert values(text, tx.COMPOSITION) == ["left", "right"]
    assert values("He glances over his shoulder.", tx.SPECIAL_SHOTS) == []


# --- the classes of blind batch 14, in new words -----------------------------------------------

@pytest.mark.parametrize("text, expect", [
    ("Aerial footage of the coast.", ["high angle"]),
    ("A drone shot from above of the harbour.", ["high angle"]),
    ("An aerial top-down shot of the maze.", ["overhead"]),
    ("Filmed from straight above, looking down at the map.", ["overhead"]),
    ("A kite hangs from straight above.", []),
])
def test_aerial_and_drone_views_are_high_unless_an_overhead_is_named(text, expect):
    assert values(text, tx.CAMERA_ANGLE) == expect


def test_a_rise_in_a_caption_that_names_a_crane_as_its_means_is_a_crane_move():
    assert values("The view lifts slowly upward. Probably done with a jib.",
                  tx.CAMERA_MOVEMENT) == ["crane up"]


@pytest.mark.parametrize("text, expect", [
    ("Static. Foreground crisp.", ["focus on foreground"]),
    ("[0-4 s] cup crisp in front, the cook behind is a blur.", ["focus on foreground"]),
])
def test_a_sharp_plane_and_the_blur_on_its_other_side_are_one_fact(text, expect):
    assert values(text, tx.DEPTH_OF_FIELD) == expect


@pytest.mark.parametrize("text, aspect, expect", [
    ("We are so close to her eyes that we see the lashes.", tx.SHOT_SIZE, ["close-up"]),
    ("You can see the entire gym from the door.", tx.SHOT_SIZE, ["wide shot"]),
    ("Nothing in the shot moves.", tx.CAMERA_MOVEMENT, ["static"]),
    ("The camera pans left and then it stops moving.", tx.CAMERA_MOVEMENT, ["pan left", "static"]),
    ("The lens sits at adult eye height.", tx.CAMERA_ANGLE, ["eye level"]),
])
def test_size_movement_and_angle_told_by_where_we_are(text, aspect, expect):
    assert values(text, aspect) == expect


@pytest.mark.parametrize("text, aspect, expect", [
    ("Nice wide of harbour.", tx.SHOT_SIZE, ["wide shot"]),
    ("Super wide, the dunes rolling away.", tx.SHOT_SIZE, ["wide shot"]),
    ("Angle from high.", tx.CAMERA_ANGLE, ["high angle"]),
    ("Canted angle, high.", tx.CAMERA_ANGLE, ["dutch angle", "high angle"]),
])
def test_terse_sizes_and_heights(text, aspect, expect):
    assert values(text, aspect) == expect


def test_shot_list_subjects_with_report_shorthand_and_two_word_names():
    assert values("Subj 1 screen R, Subj 2 frame L.", tx.COMPOSITION) == ["right", "left"]
    assert subjects("Wide. Lead singer centre, frontal.", tx.COMPOSITION) == [
        ("center", "singer")]
    assert subjects("Two dancers: tenor left, facing camera; alto right, profile.",
                    tx.SUBJECT_ORIENTATION) == [("frontal", "tenor"), ("profile", "alto")]


def test_a_tracking_word_after_an_article_is_a_noun():
    assert values("The camera pans left to a jogger on the trail.", tx.CAMERA_MOVEMENT) == [
        "pan left"]
    assert values("Athletes circle the track; a follow shot.", tx.CAMERA_MOVEMENT) == ["tracking"]


# --- after batch 14: the same families of wording, widened (no batch opened for them) -----------

@pytest.mark.parametrize("text, aspect, expect", [
    ("Rack to BG as the runner arrives.", tx.DEPTH_OF_FIELD, ["rack focus"]),
    ("Shot wide open, BG is smeared.", tx.DEPTH_OF_FIELD, ["shallow depth of field"]),
    ("Sticks, 3/4 front, camera left.", tx.COMPOSITION, ["left"]),
    ("We see the castle from a great distance.", tx.SHOT_SIZE, ["wide shot"]),
    ("A heron waits from a distance.", tx.SHOT_SIZE, []),
    ("The camera just sits there for the whole scene.", tx.CAMERA_MOVEMENT, ["static"]),
    ("The clerk just sits there.", tx.CAMERA_MOVEMENT, []),
    ("The frame is tilted to one side.", tx.CAMERA_ANGLE, ["dutch angle"]),
    ("Her head tilted to one side.", tx.CAMERA_ANGLE, []),
])
def test_report_shorthand_distance_stillness_and_tilt_in_more_words(text, aspect, expect):
    assert values(text, aspect) == expect
    if aspect == tx.COMPOSITION:
        assert subjects(text, aspect) == [("left", None)]  # "camera left" names no subject


@pytest.mark.parametrize("text, aspect, expect", [
    ("Camera go far from the old woman.", tx.CAMERA_MOVEMENT, ["dolly out"]),
    ("The cat runs away from the boy.", tx.CAMERA_MOVEMENT, []),
    ("We watch the crowd from up.", tx.CAMERA_ANGLE, ["high angle"]),
    ("The boy jumps down from up.", tx.CAMERA_ANGLE, []),
    ("All is crisp, front and back.", tx.DEPTH_OF_FIELD, ["deep focus"]),
    ("Only the lamp is clear.", tx.DEPTH_OF_FIELD, ["shallow depth of field"]),
    ("Focus go from the candle to the priest.", tx.DEPTH_OF_FIELD, ["rack focus"]),
    ("The clip plays slower than real life.", tx.SPECIAL_SHOTS, ["slow motion"]),
    ("The cyclist rides faster than usual.", tx.SPECIAL_SHOTS, []),
])
def test_non_native_moves_heights_focus_and_speed(text, aspect, expect):
    assert values(text, aspect) == expect


@pytest.mark.parametrize("text, aspect, expect", [
    ("There is no visible camera motion at all.", tx.CAMERA_MOVEMENT, ["static"]),
    ("The hills behind her compress into a creamy blur.", tx.DEPTH_OF_FIELD,
     ["shallow depth of field"]),
    ("The violinist stands against a gently blurred backdrop.", tx.DEPTH_OF_FIELD,
     ["shallow depth of field"]),
])
def test_model_paragraph_phrasings_of_stillness_and_a_soft_background(text, aspect, expect):
    assert values(text, aspect) == expect


@pytest.mark.parametrize("text, expect", [
    ("Picture askew.", ["dutch angle"]),
    ("The lens sits at ground level.", ["worm's-eye view"]),
    ("A cellar window at ground level.", []),
])
def test_terse_tilted_frames_and_a_camera_on_the_floor(text, expect):
    assert values(text, tx.CAMERA_ANGLE) == expect


def test_a_light_verb_before_from_is_lighting_but_walking_in_from_a_side_is_a_place():
    assert values("Moonlight spills through a skylight on the left.", tx.COMPOSITION) == []
    assert values("In the moonlight, a fox trots in from the right.", tx.COMPOSITION) == ["right"]


def test_he_or_she_is_never_a_known_thing():
    assert subjects("A candle burns on the bench; he stands right.", tx.COMPOSITION) == [
        ("right", None)]


def test_decompositions_are_remembered_without_changing_a_judgement():
    """The GRPO shape: one gold caption, several samples. The gold side is decomposed once per
    judge (least recently used out), the judgements equal a fresh judge's, and what a caller
    does to the statements it gets does not reach the next judgement."""
    from concurrent.futures import ThreadPoolExecutor

    gold = "From 0 to 3 s the camera pans left; then it tilts up. A close-up of the man, in profile."
    samples = [f"The camera pans left{', then tilts up' * (i % 2)}. A close-up {i}."
               for i in range(8)]
    judge = RulesJudge()
    with ThreadPoolExecutor(4) as pool:  # as GRPO judges a group
        got = list(pool.map(lambda s: judge.judge(gold, s).to_dict(), samples))
    assert got == [RulesJudge().judge(gold, s).to_dict() for s in samples]
    assert len(judge._cache) == 1 + len(samples)
    first = judge._decompose(gold, tuple(tx.ASPECTS))
    first[0].value = "zoom in"  # a caller's own copy
    assert judge._decompose(gold, tuple(tx.ASPECTS))[0].value == "pan left"
    small = RulesJudge()
    small.cache_size = 3
    for s in samples:
        small.judge(gold, s)
    assert len(small._cache) == 3  # bounded


# --- the classes of blind batches 15 and 16, in new words ----------------------------------------

@pytest.mark.parametrize("text, expect", [
    ("The lens is on eye height with the rider.", ["eye level"]),
    ("Camera sits at eyeline level.", ["eye level"]),
    ("It is filmed on the same height as the boy's eyes.", ["eye level"]),
    ("We watch her at our own height.", ["eye level"]),
    ("WIDE. Level. Locked off.", ["eye level"]),
    ("The drone hangs in the air, looking straight at the dam.", ["eye level"]),
    ("She looks straight at the camera.", []),
    ("The shelf is level.", []),
])
def test_eye_level_told_by_the_height_of_the_eyes_or_a_straight_look(text, expect):
    assert values(text, tx.CAMERA_ANGLE) == expect


@pytest.mark.parametrize("text, expect", [
    ("The camera watches the square without moving.", ["static"]),
    ("The frame just isn't going anywhere.", ["static"]),
    ("Our camera refuses to budge while the parade goes by.", ["static"]),
    ("The dancer spins without moving her feet.", []),
])
def test_stillness_told_by_refusing_to_move(text, expect):
    assert values(text, tx.CAMERA_MOVEMENT) == expect


@pytest.mark.parametrize("text, expect", [
    ("The backdrop, a wall of old books, is gently blurred.", ["shallow depth of field"]),
    ("The bg's totally mushy behind the singer.", ["shallow depth of field"]),
    ("A shallow band of focus isolates the bride.", ["shallow depth of field"]),
    ("The houses melt into a soft wash while he walks.", ["shallow depth of field"]),
])
def test_a_blur_behind_told_with_a_parenthesis_a_contraction_or_a_wash(text, expect):
    assert values(text, tx.DEPTH_OF_FIELD) == expect


@pytest.mark.parametrize("text, aspect, expect", [
    ("The camera glides in on the boxer; it settles on his face.", tx.SHOT_SIZE, ["close-up"]),
    ("Zoom in until there's only the baby's face.", tx.SHOT_SIZE, ["close-up"]),
    ("A tilt up from her shoes, ending on her face.", tx.SHOT_SIZE, []),
    ("We're in close on the cards.", tx.SHOT_SIZE, ["close-up"]),
    ("The camera pushes sooo slowly in.", tx.CAMERA_MOVEMENT, ["dolly in"]),
    ("The lens zooms way out to the whole bay.", tx.CAMERA_MOVEMENT, ["zoom out"]),
    ("Camera is tilted on its side.", tx.CAMERA_ANGLE, ["dutch angle"]),
])
def test_sizes_by_the_face_the_shot_reaches_and_informal_intensifiers(text, aspect, expect):
    assert values(text, aspect) == expect


@pytest.mark.parametrize("text, aspect, expect", [
    ("Camera do quick pan left.", tx.CAMERA_MOVEMENT, ["pan left"]),
    ("The camera glides along, its faint jitter always there.", tx.CAMERA_MOVEMENT,
     ["handheld shake"]),
    ("The steadicam backs away before the bride as she walks in.", tx.CAMERA_MOVEMENT,
     ["tracking"]),
    ("A long lens shot leading the runner down the track.", tx.CAMERA_MOVEMENT, ["tracking"]),
    ("The gimbal is matching her stride.", tx.CAMERA_MOVEMENT, ["tracking"]),
])
def test_non_native_and_described_moves(text, aspect, expect):
    assert values(text, aspect) == expect


def test_places_and_sides_in_plain_words():
    assert values("A heron stands in the reeds; it's way off to the left.",
                  tx.COMPOSITION) == ["left"]
    assert values("The violinist is giving us her side.", tx.SUBJECT_ORIENTATION) == ["profile"]
    assert values("He turns back to us and waves.", tx.SUBJECT_ORIENTATION) == ["frontal"]
    assert values("A girl walks toward the camera with a three-quarter turn.",
                  tx.SUBJECT_ORIENTATION) == ["three-quarter"]


def test_a_named_owner_of_a_body_part_in_a_shot_list_is_the_subject():
    assert subjects("Ana centre, frontal. Leo's back in frame right, back to lens.",
                    tx.COMPOSITION) == [("center", "ana"), ("right", "leo")]
    assert subjects("REVERSE over Tom's shoulder. Tom's shoulder at frame right, back to us.",
                    tx.SUBJECT_ORIENTATION) == [("back", "Tom")]  # a proper name keeps its capital


# --- the classes of blind batches 17 and 18, in new words ----------------------------------------

@pytest.mark.parametrize("text, aspect, expect", [
    ("Hair-thin focus plane on the watch face.", tx.DEPTH_OF_FIELD, ["ultra-shallow depth of field"]),
    ("The focus is wafer-thin here.", tx.DEPTH_OF_FIELD, ["ultra-shallow depth of field"]),
    ("Only a narrow band of the table stays sharp.", tx.DEPTH_OF_FIELD, ["shallow depth of field"]),
    ("Crisp from the foreground reeds to the far hills.", tx.DEPTH_OF_FIELD, ["deep focus"]),
    ("Every boat in the harbour, big and small, is sharp.", tx.DEPTH_OF_FIELD, ["deep focus"]),
    ("We frame him from the waist to the head.", tx.SHOT_SIZE, ["medium shot"]),
    ("The horizon line isn't level at all.", tx.CAMERA_ANGLE, ["dutch angle"]),
    ("Behind her the horizon rotates clockwise.", tx.CAMERA_MOVEMENT, ["roll counterclockwise"]),
    ("A Vertigo-like zoom on the stairwell.", tx.CAMERA_MOVEMENT, ["dolly zoom"]),
    ("Replayed at half speed.", tx.SPECIAL_SHOTS, ["slow motion"]),
    ("A whole day passes in mere seconds over the harbour.", tx.SPECIAL_SHOTS, ["timelapse"]),
    ("The nurse is seen three-quarters from behind.", tx.SUBJECT_ORIENTATION,
     ["three-quarter back"]),
    ("Watch detail, then the hands.", tx.SHOT_SIZE, ["close-up"]),
    ("The vision mixer goes in on the zoom.", tx.CAMERA_MOVEMENT, ["zoom in"]),
    ("The camera is way high above the crowd.", tx.CAMERA_ANGLE, ["high angle"]),
    ("Opens tight, then becomes wide.", tx.SHOT_SIZE, ["close-up", "wide shot"]),
    ("Shot from about the height of the children's eyes.", tx.CAMERA_ANGLE, ["eye level"]),
])
def test_operators_and_commentators_words(text, aspect, expect):
    assert values(text, aspect) == expect


@pytest.mark.parametrize("text, aspect, expect", [
    ("I slide it right along the bar.", tx.CAMERA_MOVEMENT, ["truck right"]),
    ("I keep jogging backwards ahead of the groom.", tx.CAMERA_MOVEMENT,
     ["tracking"]),
    ("A bus pulling out of the depot, seen from above.", tx.CAMERA_MOVEMENT, []),
    ("The horse gallops along the fence, coming in from the left.", tx.CAMERA_MOVEMENT, []),
    ("Looks like somebody is walking behind the kid with a phone.", tx.CAMERA_MOVEMENT,
     ["tracking"]),
    ("The dolly track running right alongside him.", tx.CAMERA_MOVEMENT, ["tracking"]),
    ("The lens tilts up, slowly following the rooftops.", tx.CAMERA_MOVEMENT,
     ["tilt up"]),
    ("The camera turns upward to the flag.", tx.CAMERA_MOVEMENT, ["tilt up"]),
    ("Boat sails fwd.", tx.CAMERA_MOVEMENT, []),
    ("Drone moves fwd over the bay.", tx.CAMERA_MOVEMENT, ["dolly in"]),
    ("The image keeps bouncing around as the fans cheer.", tx.CAMERA_MOVEMENT, ["handheld shake"]),
    ("Locked frame on the door.", tx.CAMERA_MOVEMENT, ["static"]),
])
def test_who_moves_the_camera_in_operators_words(text, aspect, expect):
    assert values(text, aspect) == expect


def test_places_and_sides_in_operators_words():
    assert values("The cat trots sideways across the frame.", tx.SUBJECT_ORIENTATION) == [
        "profile"]
    assert values("A clerk at the counter, facing forward.", tx.SUBJECT_ORIENTATION) == [
        "frontal"]
    assert values("She's in the middle, facing you.", tx.SUBJECT_ORIENTATION) == ["frontal"]
    assert values("We see really close the fingers of the pianist.", tx.SHOT_SIZE) == [
        "close-up"]
    assert values("The drone lifts from behind a hedge.", tx.SUBJECT_ORIENTATION) == []
    assert values("Cyclist crosses: enters frame R, exits frame L.", tx.COMPOSITION) == [
        "right", "left"]
    assert subjects("Cast: tall man - right, profile; small boy - left, frontal.",
                    tx.COMPOSITION) == [("right", "man"), ("left", "boy")]
    assert subjects("A father sits left; his son sits right.", tx.COMPOSITION) == [
        ("left", "father"), ("right", "son")]


# --- blind batches 19–20 (round 5): classes of wording, tested in new words ------------------

@pytest.mark.parametrize("text, aspect, expect", [
    # stillness told by the picture itself
    ("The image does not once budge while the guests arrive.", tx.CAMERA_MOVEMENT, ["static"]),
    ("Each lamp post remains pinned to the exact same spot on screen.", tx.CAMERA_MOVEMENT,
     ["static"]),
    # a zoom by the lens magnifying or the focal length growing
    ("The zoom slowly enlarges the distant rider.", tx.CAMERA_MOVEMENT, ["zoom in"]),
    ("Over the shot the focal length gradually shortens.", tx.CAMERA_MOVEMENT, ["zoom out"]),
    # a size by what fills or takes up the frame
    ("His mouth takes up most of the picture.", tx.SHOT_SIZE, ["close-up"]),
    ("Her hands fill up the entire frame.", tx.SHOT_SIZE, ["close-up"]),
    # a place seen whole (wide), in operators' and viewers' words
    ("Field of view covers the whole pier.", tx.SHOT_SIZE, ["wide shot"]),
    ("From the rooftop, taking in the entire courtyard.", tx.SHOT_SIZE, ["wide shot"]),
    ("We see all the rink.", tx.SHOT_SIZE, ["wide shot"]),
    # a worm's-eye view by where the camera lies
    ("The phone is placed flat on the asphalt, pointing straight up at the kite.",
     tx.CAMERA_ANGLE, ["worm's-eye view"]),
    # the angle by the mount
    ("Ceiling mount, axis tilted down.", tx.CAMERA_ANGLE, ["high angle"]),
    # a part of the composition held
    ("The goalkeeper occupies the left of the frame.", tx.COMPOSITION, ["left"]),
    ("He takes the right hand of the bride.", tx.COMPOSITION, []),
    # a POV told by the viewer seeing what someone sees
    ("The audience sees just what the pilot sees.", tx.SPECIAL_SHOTS, ["pov"]),
    # depth of field said with a hedge
    ("The dof looks fairly shallow here.", tx.DEPTH_OF_FIELD, ["shallow depth of field"]),
    ("The whole vineyard, from the first vine to the hills, appears to be in crisp focus.",
     tx.DEPTH_OF_FIELD, ["deep focus"]),
])
def test_aspects_told_by_the_picture_and_the_lens(text, aspect, expect):
    assert values(text, aspect) == expect


@pytest.mark.parametrize("text, aspect, expect", [
    ("Gimbal forward down the aisle. MS.", tx.CAMERA_MOVEMENT, ["dolly in"]),
    ("Slider L, slow.", tx.CAMERA_MOVEMENT, ["truck left"]),
    ("A drone left the launch pad at dawn.", tx.CAMERA_MOVEMENT, []),
    ("Camera at eye lvl, locked.", tx.CAMERA_ANGLE, ["eye level"]),
    ("Porter R, back to cam.", tx.SUBJECT_ORIENTATION, ["back"]),
    ("Documentary, handheld-style wobble.", tx.CAMERA_MOVEMENT, ["handheld shake"]),
])
def test_shot_list_abbreviations(text, aspect, expect):
    assert values(text, aspect) == expect


def test_screenplay_places_and_roles_in_capitals():
    assert subjects("MEDIUM on the porch. GRANDFATHER L, profile. NEPHEW CR.", tx.COMPOSITION) == [
        ("left", "grandfather"), ("center-right", "nephew")]
    assert subjects("Juggler ctr, facing us.", tx.COMPOSITION) == [("center", "juggler")]
    assert values("He's R; the dog is at frame left.", tx.COMPOSITION) == ["right", "left"]


@pytest.mark.parametrize("text, aspect, expect", [
    # a film word as the first half of another noun
    ("The follow spot finds the tenor; a dolly grip waits.", tx.CAMERA_MOVEMENT, []),
    ("The jet leaves a vapour trail.", tx.CAMERA_MOVEMENT, []),
    ("A slow trail behind the bikers.", tx.CAMERA_MOVEMENT, ["tracking"]),
    ("A loft with huge panoramic windows.", tx.SHOT_SIZE, []),
    ("A panoramic view of the loft.", tx.SHOT_SIZE, ["extreme wide shot"]),
    # things coming at the camera have no orientation; people and animals do
    ("The snowflakes race toward the lens.", tx.SUBJECT_ORIENTATION, []),
    ("The pony trots toward the camera.", tx.SUBJECT_ORIENTATION, ["frontal"]),
    # "to the right with him" is a direction; "right with him" an intensifier
    ("The camera pivots to the right with her.", tx.CAMERA_MOVEMENT, ["pan right"]),
    ("Camera going lateral to the right past the shelves.", tx.CAMERA_MOVEMENT, ["truck right"]),
    ("A porter at frame left, back turned.", tx.SUBJECT_ORIENTATION, ["back"]),
])
def test_film_words_that_name_other_things_and_directions(text, aspect, expect):
    assert values(text, aspect) == expect


def test_subjects_not_taken_from_the_wrong_noun():
    # an unknown verb after "then" is no subject; a gaze toward a side is no place
    assert [(v, name.partition(" (")[0]) for v, name in subjects(
        "The clown waits at the centre, then shuffles to frame left.", tx.COMPOSITION)] == [
        ("center", "clown"), ("left", "clown")]
    assert values("The girl, glancing toward frame right, smiles.", tx.COMPOSITION) == []
    # a verb of filling is no name ("fill frame right" places the owner)
    assert subjects("The coach's arm and the side of his head fill frame right.",
                    tx.COMPOSITION) == [("right", "coach")]
    # "she" is the person named after a thing, not the thing
    assert subjects("The drone drops past the lighthouse towards the keeper: she stands at "
                    "frame right.", tx.COMPOSITION) == [("right", "keeper")]


@pytest.mark.parametrize("text, aspect, expect", [
    ("The backdrop is never in focus.", tx.DEPTH_OF_FIELD, ["shallow depth of field"]),
    ("Dome cam, no pan movement for the whole take.", tx.CAMERA_MOVEMENT, ["static"]),
    ("Courier: frame-right exit.", tx.COMPOSITION, ["right"]),
    ("Honestly we're just jogging behind this runner the whole way.", tx.CAMERA_MOVEMENT,
     ["tracking"]),
    ("We see the pool from top, the swimmers tiny.", tx.CAMERA_ANGLE, ["overhead"]),
    ("The crane drops from top of the mast.", tx.CAMERA_ANGLE, []),
    ("Framing steady, the camera's gaze neutral.", tx.CAMERA_ANGLE, ["eye level"]),
    ("His gaze is neutral as he listens.", tx.CAMERA_ANGLE, []),
    ("The vantage shifts from low to eye level.", tx.CAMERA_ANGLE, ["low angle", "eye level"]),
    ("The lens swivels to the left and at the same time looks up to the balcony.",
     tx.CAMERA_MOVEMENT, ["pan left", "tilt up"]),
    ("Medium aerial.", tx.SHOT_SIZE, ["medium shot"]),
    ("Size: wide. Focus: both in focus.", tx.DEPTH_OF_FIELD, ["deep focus"]),
    ("Orientation: clerk 3/4 towards camera.", tx.SUBJECT_ORIENTATION, ["three-quarter"]),
])
def test_terse_and_non_native_reports(text, aspect, expect):
    assert values(text, aspect) == expect


def test_doubt_backs_and_planes_in_reports():
    # doubt between two readings claims neither
    assert values("It is hard to tell whether the angle is low or at eye level.",
                  tx.CAMERA_ANGLE) == []
    assert values("Not sure if the camera trucks left or pans left.", tx.CAMERA_MOVEMENT) == []
    assert values("Hard to say whether she smiles; the camera is at eye level.",
                  tx.CAMERA_ANGLE) == ["eye level"]
    # a back that fills part of the frame, and its owner's place
    assert subjects("The bouncer's back fills the right side; a singer stands at the centre.",
                    tx.SUBJECT_ORIENTATION) == [("back", "bouncer")]
    # a blurred foreground before a sharp subject: the focus is on the plane behind
    assert values("FG branches soft, the owl in focus.", tx.DEPTH_OF_FIELD) == [
        "focus on background"]
    # a possessive refers to the nearest person before it in its sentence
    assert subjects("A close shot of the juror, centred; the judge's hand and the side of his "
                    "face fill frame right.", tx.COMPOSITION) == [
        ("center", "juror"), ("right", "judge")]


@pytest.mark.parametrize("text, aspect", [
    ("He takes the left fork in the road.", tx.COMPOSITION),
    ("The shot never changes focus.", tx.CAMERA_MOVEMENT),
    ("The dancer holds a low position.", tx.CAMERA_ANGLE),
    ("The diver's gaze is calm and neutral.", tx.CAMERA_ANGLE),
])
def test_this_rounds_wordings_stay_where_they_belong(text, aspect):
    assert values(text, aspect) == []


# --- round 6 (blind batches 21–22): each class in new words, and where it must not fire -------

@pytest.mark.parametrize("text, aspect, expect", [
    # the angle by where the camera is and where it looks
    ("Our camera is on the tiled floor, looking up at the chef.", tx.CAMERA_ANGLE,
     ["worm's-eye view"]),
    ("We gaze up from the pavement at the skyscraper.", tx.CAMERA_ANGLE, ["worm's-eye view"]),
    ("Bird's-eye shot looking straight down at the chessboard.", tx.CAMERA_ANGLE, ["overhead"]),
    ("The drone peers down on the harbour.", tx.CAMERA_ANGLE, ["high angle"]),
    ("From the balcony, looking down at the parade.", tx.CAMERA_ANGLE, ["high angle"]),
    ("Framed at roughly the boy's own eye level.", tx.CAMERA_ANGLE, ["eye level"]),
    # special shots by their effect
    ("The lens turns into the pilot's eyes as the jet banks.", tx.SPECIAL_SHOTS, ["pov"]),
    ("A montage that squeezes a whole week of construction into a minute.", tx.SPECIAL_SHOTS,
     ["timelapse"]),
    ("Everything freezes mid-punch as the camera circles round the boxer.", tx.SPECIAL_SHOTS,
     ["bullet time"]),
    # the whole picture sideways or jiggling; stillness said plainly
    ("The entire image is turned sideways.", tx.CAMERA_ANGLE, ["dutch angle"]),
    ("Everything jiggles as the courier runs.", tx.CAMERA_MOVEMENT, ["handheld shake"]),
    ("The camera stands still while the crowd surges.", tx.CAMERA_MOVEMENT, ["static"]),
    ("Lens doesn't really move.", tx.CAMERA_MOVEMENT, ["static"]),
    # keeping pace: tracking alone, the manner of a sideways move after one
    ("The drone keeps pace with the horse.", tx.CAMERA_MOVEMENT, ["tracking"]),
    ("The dolly slides left, keeping pace with the skater.", tx.CAMERA_MOVEMENT, ["truck left"]),
    # non-native and word-for-word orientation, sizes and focus
    ("We film her from her back.", tx.SUBJECT_ORIENTATION, ["back"]),
    ("The clerk is seen of front.", tx.SUBJECT_ORIENTATION, ["frontal"]),
    ("He turns to front.", tx.SUBJECT_ORIENTATION, ["frontal"]),
    ("Left baker is showing side of face.", tx.SUBJECT_ORIENTATION, ["profile"]),
    ("Plane general of the plaza.", tx.SHOT_SIZE, ["wide shot"]),
    ("The fund is unfocused.", tx.DEPTH_OF_FIELD, ["shallow depth of field"]),
    ("We see his hands really close up.", tx.SHOT_SIZE, ["close-up"]),
    # a model's keys and values written out
    ("shot_type equals close; camera_movement is static", tx.SHOT_SIZE, ["close-up"]),
    ("shot_type equals close; camera_movement is static", tx.CAMERA_MOVEMENT, ["static"]),
    # a side and a plane; a side before a role noun
    ("A bystander in the right background.", tx.COMPOSITION, ["right"]),
    ("Right drummer faces us.", tx.COMPOSITION, ["right"]),
])
def test_round_6_wordings(text, aspect, expect):
    assert values(text, aspect) == expect


@pytest.mark.parametrize("text, aspect", [
    ("Two monks look up from the floor at the bell.", tx.CAMERA_ANGLE),
    ("The girl gazes down at her shoes.", tx.CAMERA_ANGLE),
    ("The sniper stares down the barrel of the rifle.", tx.CAMERA_ANGLE),
    ("Looking down the aisle, the camera waits.", tx.CAMERA_ANGLE),
    ("The camera is the star of this ad.", tx.SPECIAL_SHOTS),
    ("She packs her bags into the car.", tx.SPECIAL_SHOTS),
    ("The jelly jiggles on the plate.", tx.CAMERA_MOVEMENT),
    ("The guard stands still at the gate.", tx.CAMERA_MOVEMENT),
    ("The courier grabs the parcel and zooms off on his scooter.", tx.CAMERA_MOVEMENT),
    ("The cat zooms out of the kitchen.", tx.CAMERA_MOVEMENT),
    ("We watch the shoreline recede.", tx.CAMERA_MOVEMENT),
    ("The boy keeps pace with his father.", tx.CAMERA_MOVEMENT),
    ("An old phone lies on its side by the sink.", tx.SUBJECT_ORIENTATION),
    ("He waits at the front door.", tx.SUBJECT_ORIENTATION),
    ("She turns to the front of the book.", tx.SUBJECT_ORIENTATION),
    ("The charity fund is small.", tx.DEPTH_OF_FIELD),
    ("We see his hands very close to the flame.", tx.SHOT_SIZE),
    ("The sky fills the right half of the frame.", tx.COMPOSITION),
    ("The left corner stays dark.", tx.COMPOSITION),
])
def test_round_6_wordings_stay_where_they_belong(text, aspect):
    assert values(text, aspect) == []


def test_round_6_controls_and_subjects():
    # the camera's own moves still count where the new no-term spans do not reach
    assert values("The camera zooms out slowly.", tx.CAMERA_MOVEMENT) == ["zoom out"]
    assert values("The camera recedes from the altar.", tx.CAMERA_MOVEMENT) == ["dolly out"]
    assert values("The bride fills the right half of the frame.", tx.COMPOSITION) == ["right"]
    # whoever films is the camera: "it" after "the woman filming" is still the camera
    assert values("We see what the woman filming sees; then it whips left.",
                  tx.CAMERA_MOVEMENT) == ["pan left"]
    assert values("The camera guy walks behind the dancers.", tx.CAMERA_MOVEMENT) == ["tracking"]
    # a field said in prose belongs to its owner
    assert subjects("The dog's position is right and its orientation is frontal.",
                    tx.COMPOSITION) == [("right", "dog")]
    # pairs: "both of them", non-native "two guard are", "their backs" after a pair, a pair's
    # fact said twice is one each, and "the one on the right" is one of them
    assert values("Two chefs, both of them seen from the side.",
                  tx.SUBJECT_ORIENTATION) == ["profile", "profile"]
    assert values("Two guard are facing the camera.", tx.SUBJECT_ORIENTATION) == [
        "frontal", "frontal"]
    assert values("The camera trails the two hikers. We see their backs.",
                  tx.SUBJECT_ORIENTATION) == ["back", "back"]
    assert values("Two joggers run toward the lens. Both face the camera.",
                  tx.SUBJECT_ORIENTATION) == ["frontal", "frontal"]
    assert values("Two judges: the one on the right in profile.",
                  tx.SUBJECT_ORIENTATION) == ["profile"]


# --- round 7 (blind batches 23–24): each class in new words, and where it must not fire -------
@pytest.mark.parametrize("text, aspect, expect", [
    # the camera's look with a degree, a vantage below or above, a shot looking up at someone
    ("The lens is pointed a tiny bit downward at the cook.", tx.CAMERA_ANGLE, ["high angle"]),
    ("Camera looks slightly from down to up at the tower.", tx.CAMERA_ANGLE, ["low angle"]),
    ("The camera is aimed a little bit up at the flag.", tx.CAMERA_ANGLE, ["low angle"]),
    ("The footage is taken from a spot far beneath the bridge.", tx.CAMERA_ANGLE, ["low angle"]),
    ("The lens, directed downward at the desk, stays put.", tx.CAMERA_ANGLE, ["high angle"]),
    ("Filmed from a vantage point straight above the pool.", tx.CAMERA_ANGLE, ["overhead"]),
    ("A wide shot peering down on the harbour market.", tx.CAMERA_ANGLE, ["high angle"]),
    # closeness said plainly
    ("The locket is shot super near.", tx.SHOT_SIZE, ["close-up"]),
    ("Really close shot of the violin strings.", tx.SHOT_SIZE, ["close-up"]),
    ("We see in close the watch on his wrist.", tx.SHOT_SIZE, ["close-up"]),
    # time passing in a heartbeat; through someone's eyes
    ("Days of the harvest flash by in instants.", tx.SPECIAL_SHOTS, ["timelapse"]),
    ("We are seeing just what the pilot sees.", tx.SPECIAL_SHOTS, ["pov"]),
    ("The whole clip is thru the courier's eyes.", tx.SPECIAL_SHOTS, ["pov"]),
    # a frame that never stirs; a focus that is passing
    ("The framing does not once budge.", tx.CAMERA_MOVEMENT, ["static"]),
    ("Then focus was slowly drifting from the vase to the girl.", tx.DEPTH_OF_FIELD, ["rack focus"]),
    # set shorthand and German word for word
    ("Steadicam, high and slightly dutched.", tx.CAMERA_ANGLE, ["high angle", "dutch angle"]),
    ("In half-total the two farmers stand by the barn.", tx.SHOT_SIZE, ["medium full shot"]),
    ("The camera drives gently up to the bakery window.", tx.CAMERA_MOVEMENT, ["dolly in"]),
    # only one thing sharp; a pan said of a vertical move; hedged negation
    ("Only the bride's bouquet stays sharp.", tx.DEPTH_OF_FIELD, ["shallow depth of field"]),
    ("Only the nearest candles and wick are sharp.", tx.DEPTH_OF_FIELD, ["shallow depth of field"]),
    ("Then the camera pans down to the puddle.", tx.CAMERA_MOVEMENT, ["tilt down"]),
    ("I do not believe it is a crane shot.", tx.CAMERA_MOVEMENT, []),
    # places in the frame and stage words
    ("The vase takes up the middle section of the picture.", tx.COMPOSITION, ["center"]),
    ("The tenor sings centre stage.", tx.COMPOSITION, ["center"]),
    ("The choir faces front.", tx.SUBJECT_ORIENTATION, ["frontal"]),
    ("A jogger runs down the dead center of the bridge.", tx.COMPOSITION, ["center"]),
    ("His back is towards the camera.", tx.SUBJECT_ORIENTATION, ["back"]),
    # a distance kept; the picture turning; a dolly against its zoom
    ("The gimbal trails the cyclist at the same fixed distance.", tx.CAMERA_MOVEMENT, ["tracking"]),
    ("The frame slowly rotates anticlockwise.", tx.CAMERA_MOVEMENT, ["roll clockwise"]),
    ("The rig pushes forward as the lens zooms out.", tx.CAMERA_MOVEMENT, ["dolly zoom"]),
    # a sweep by its plane; a size the shot starts at; a size before a two-shot; from the waist
    ("Ends on a sideways sweep to the left.", tx.CAMERA_MOVEMENT, ["pan left"]),
    ("The camera pulls back, beginning tight and ending on the whole room.", tx.SHOT_SIZE,
     ["close-up"]),
    ("A medium wide two-shot of the sisters.", tx.SHOT_SIZE, ["medium full shot"]),
    ("The teacher is seen from the waist.", tx.SHOT_SIZE, ["medium shot"]),
    ("Medium throughout.", tx.SHOT_SIZE, ["medium shot"]),
    ("The framing stays tight throughout.", tx.SHOT_SIZE, ["close-up"]),
    # directions said by height; the operator and the camera in shorthand
    ("The drone sinks lower over the lake.", tx.CAMERA_MOVEMENT, ["pedestal down"]),
    ("Then the camera swings down to her shoes.", tx.CAMERA_MOVEMENT, ["tilt down"]),
    ("The cam tilts up to the spire.", tx.CAMERA_MOVEMENT, ["tilt up"]),
    ("We cruise right alongside the yacht.", tx.CAMERA_MOVEMENT, ["tracking"]),
    ("Foreground and horizon, near and far are equally readable.", tx.DEPTH_OF_FIELD,
     ["deep focus"]),
])
def test_round_7_wordings(text, aspect, expect):
    assert values(text, aspect) == expect


@pytest.mark.parametrize("text, aspect", [
    ("The boy is looking a bit down at his phone.", tx.CAMERA_ANGLE),
    ("Her gaze is directed upward at the stars.", tx.CAMERA_ANGLE),
    ("The road is wide throughout.", tx.SHOT_SIZE),
    ("She stood close to the wall, shot very near the door.", tx.SHOT_SIZE),
    ("The hikers walk very close to the edge.", tx.SHOT_SIZE),
    ("The guide shows what she saw on the trip.", tx.SPECIAL_SHOTS),
    ("Tears run thru his eyes.", tx.SPECIAL_SHOTS),
    ("The dog never stirs from its bed.", tx.CAMERA_MOVEMENT),
    ("The cyclist keeps a fixed distance behind the bus.", tx.CAMERA_MOVEMENT),
    ("The taxi pulls out into the traffic.", tx.CAMERA_MOVEMENT),
    ("The mayor, turned towards frame right, waves.", tx.CAMERA_MOVEMENT),
    ("He swings up onto the saddle.", tx.CAMERA_MOVEMENT),
    ("The skaters glide, tracking in slow circles.", tx.CAMERA_MOVEMENT),
    ("The rider pans down the slope.", tx.CAMERA_MOVEMENT),
    ("In the middle of the video the lights go out.", tx.COMPOSITION),
    ("She waits by the front door.", tx.SUBJECT_ORIENTATION),
    ("The man dollies in while zooming in.", tx.SPECIAL_SHOTS),
    ("It is low, and the tide is out.", tx.CAMERA_ANGLE),
    ("The half-time whistle blows.", tx.SHOT_SIZE),
    ("The truck drives onto the ferry.", tx.CAMERA_MOVEMENT),
])
def test_round_7_wordings_stay_where_they_belong(text, aspect):
    assert values(text, aspect) == []


def test_round_7_controls_and_subjects():
    # a dolly and a zoom the same way stay two moves; a camera pulling out is still a dolly out
    assert values("The camera dollies in while zooming in.", tx.CAMERA_MOVEMENT) == [
        "dolly in", "zoom in"]
    assert values("The camera pulls out to reveal the hall.", tx.CAMERA_MOVEMENT) == ["dolly out"]
    # "I don't think it's slow motion" states none; a plain "it's" still ends a negation
    assert values("I don't think it's slow motion.", tx.SPECIAL_SHOTS) == []
    assert values("There is no zoom, it's a push-in.", tx.CAMERA_MOVEMENT) == ["dolly in"]
    # all of the frame but one thing blurred is shallow, not deep
    assert values("The street is all blur, only the busker is sharp.", tx.DEPTH_OF_FIELD) == [
        "shallow depth of field"]
    # "it" right after a thing named before "as it" is that thing, not the camera
    assert values("The camera tilts up with the kite as it climbs higher.",
                  tx.CAMERA_MOVEMENT) == ["tilt up"]
    assert values("The camera pulls back as it rises.", tx.CAMERA_MOVEMENT) == [
        "dolly out", "pedestal up"]
    # "both" before a plural noun is the pair named before, one fact each (not "both hands")
    assert values("A nurse at the left, a porter at the right. Both workers face the camera.",
                  tx.SUBJECT_ORIENTATION) == ["frontal", "frontal"]
    assert values("Both hands face the camera.", tx.SUBJECT_ORIENTATION) == ["frontal"]
    # chat spellings are no subjects; the vertigo effect leaves the place after it
    assert subjects("a cat on the left n a dog on the right n theyre both in profile",
                    tx.SUBJECT_ORIENTATION) == [("profile", "cat"), ("profile", "dog")]
    assert subjects("The pilot stays the same size at centre while the hangar warps away.",
                    tx.COMPOSITION) == [("center", "pilot")]


def test_the_language_modules_import_one_another_without_a_cycle():
    """Every import counted, those inside functions too (issue 23: described ↔ phrases was one)."""
    from tests.test_imports import imports_of, product_modules

    mods = {n: p for n, p in product_modules().items() if n.startswith("cinecap.language.")}
    edges = {}
    for name, path in mods.items():
        found = imports_of(path.read_text(encoding="utf-8"), name)
        edges[name] = {m for m in mods if m != name and any(f == m or f.startswith(m + ".")
                                                            for f in found)}
    assert "cinecap.language.pattern" in edges["cinecap.language.described"]
    state: dict[str, int] = {}

    def visit(n, path):
        state[n] = 1
        for m in edges[n]:
            assert state.get(m) != 1, f"import cycle: {' → '.join(path + [n, m])}"
            if m not in state:
                visit(m, path + [n])
        state[n] = 2

    for n in edges:
        if n not in state:
            visit(n, [])


@pytest.mark.parametrize("rx, words", [
    (r"(?<![\w-])(?:slightly\s+)?(left|right)\s+of", {"slightly", "left", "right"}),
    (r"(?<![\w-])(low|high)(?=\s*(?:[.;)]|$))", {"low", "high"}),
    (r"\b(?:go|goes)\s+(?:far|away)", {"go", "goes"}),
    (r"(?<![\w-])(?:camera|frame)(?![\w-])", {"camera", "frame"}),
    (r"(?:his|her)\s+back", None),  # no check before: "this back" holds "his back"
    (r"(?<![\w-])aerial", None),  # the word may run on ("aerials")
    (r"(?<![\w-])(?:the\s+)?[\w-]+'s\s+back", None),  # any word first
    (r"(?<![\w-])(?:very\s+)*close\s", {"very", "close"}),
    (r"(?<![\w-])(?:ab)+\s", None),  # a second round could add letters
    (r"(?<![\w-])(?:1/4|half)\s+speed", None),  # a first word of digits
])
def test_start_words_are_read_off_the_regex_only_where_exact(rx, words):
    from cinecap.language.starts import derived_starts
    got = derived_starts(re.compile(rx, re.I))
    assert got == (None if words is None else frozenset(words))


@pytest.mark.slow  # ~5 s: 169 patterns scanned over 6,300 captions
def test_derived_start_words_find_what_a_scan_finds_on_every_kept_caption():
    """Trying a pattern only at its derived start words finds exactly its matches of a scan of
    the whole text, on the labelled captions and the fixture's generated ones."""
    from cinecap.language.decompose import _WORDS
    from cinecap.language.phrases import patterns
    from tests.support import judge_fixture as fx

    derived = [p for p in patterns() if p.derived]
    assert len(derived) >= 10
    texts = [t for p in PAIRS for t in (p["gt"], p["pred"])]
    texts += [t for r in fx.load() if "text" not in r for t in (r["gt"], r["pred"])]
    for text in texts:
        where = None
        for p in derived:
            scanned = [m.span() for m in p.regex.finditer(text)]
            if not scanned:
                # The scan tried every position, the start words' too: none to try again (most
                # pairs of a pattern and a caption; trying them was a third of the time).
                continue
            if where is None:
                where = {}
                for w in _WORDS.finditer(text.lower()):
                    where.setdefault(w.group(0), []).append(w.start())
            tried, done = [], -1
            for i in sorted(i for w in p.starts if w in where for i in where[w]):
                if i >= done and (m := p.regex.match(text, i)):
                    tried.append(m.span())
                    done = m.end()
            assert tried == scanned, (p.regex.pattern[:60], text)


def test_the_camera_words_are_one_list():
    """The camera's own words are kept once (parse.CAMERA_RIG); the parser's camera heads add
    the words of what the camera sees and does, and nothing is listed twice."""
    from cinecap.language import parse, subjects
    assert subjects.CAMERA_WORDS is parse.CAMERA_RIG < parse.CAMERA_WORDS
    src = (Path(parse.__file__).parent / "subjects.py").read_text()
    assert '"camera cameras' not in src


@pytest.mark.parametrize("text, expect", [
    ("The camera tilts up wıthout zooming in.", ["tilt up"]),  # dotless i: "without" to re.I
    ("The camera tilts up wİthout zooming in.", ["tilt up"]),
    ("The camera tilts up, inſtead of zooming in.", ["tilt up"]),  # long s
    ("Focus shıfts from the candle to the woman behind it.", ["rack focus"]),  # the patterns
    ("Focus ſhiftſ from the ring to the bride; shallow depth of field.", [
        "rack focus", "shallow depth of field"]),
    ("In the first 3 seconds the camera trucks left; after that it is ſtatic.", [
        "truck left", "static"]),
    ("A WIDE SHOT. The camera is LOC\u212aED OFF.", ["wide shot", "static"]),  # "K": k, lower-cased
])
def test_letters_that_lower_does_not_fold_still_reach_the_prefilters(text, expect):
    """The word prefilters (``starts.clauses``: the negation search, the patterns) read a
    caption's ``[a-z]`` words; "ı", "ſ" and "İ" match ASCII letters under ``re.I`` but lower()
    does not make them so: ``decompose`` folds them first (``starts.ASCII_FOLD``), so they are
    read as the letters the regexes take them for."""
    assert values(text) == expect


@pytest.mark.parametrize("text, expect", [
    ("two-shot medıum", ["medium shot"]),  # the matched word was looked up as "medıum shot"
    ("A MEDİUM SHOT of the bride.", ["medium shot"]),
    ("<anſwer>The camera pans left.</anſwer>", ["pan left"]),  # no tag: all of it is caption
    ("<think>It moves.</think><answer>A cloſe-up.</answer>", ["close-up"]),
])
def test_odd_letters_give_statements_or_none_never_an_error(text, expect):
    """A caption with "ı", "İ" or "ſ" (a Turkish keyboard, an old-style scan) raised
    ValueError / KeyError from ``decompose``, whose promise is to never raise on odd text."""
    assert values(text) == expect
    RulesJudge().judge(text, "The camera pans left. A medium shot.")  # and the judge judges it
