"""What a person sees of a judgement: matched, missed and extra statements per aspect.

The rules judge pairs its statements (``matched_pairs``, ``missed_statements``,
``extra_statements``, ``pairs``, and the caption phrases); ``statement_view`` shows any judgement
(or its JSON) the same way, and a judgement that lists only the GT side of its matches (the
``llm`` judge) as far as it can.
"""
from __future__ import annotations

import json

from cinecap import taxonomy as tx
from cinecap.judge import Judgement, statement_view
from cinecap.judge.rules import RulesJudge

CM, SS, SO = tx.CAMERA_MOVEMENT, tx.SHOT_SIZE, tx.SUBJECT_ORIENTATION
GT = "The camera pans left, then tilts up. A close-up of the man in profile."
PRED = "The camera pans left and zooms in. A close-up; the man faces the camera."


def test_the_rules_json_says_which_statement_matched_which():
    d = RulesJudge().judge(GT, PRED).to_dict()
    cm = d["by_dim"][CM]
    assert cm["matched_pairs"] == [["pan left", "pan left"]]
    assert cm["missed_statements"] == ["tilt up"]
    assert cm["extra_statements"] == ["zoom in"]
    assert cm["gt_phrases"] == ["pans left", "tilts up"]
    assert cm["pred_phrases"] == ["pans left", "zooms in"]
    so = d["by_dim"][SO]
    assert (so["missed_statements"], so["extra_statements"]) == (["man: profile"], ["man: frontal"])


def test_view_of_a_rules_judgement_and_of_its_json_after_a_round_trip():
    j = RulesJudge().judge(GT, PRED)
    for source in (j, json.loads(json.dumps(j.to_dict()))):
        view = statement_view(source)
        cm = view[CM]
        assert [(g.statement, g.phrase, p.statement, p.phrase) for g, p in cm.matched] == [
            ("pan left", "pans left", "pan left", "pans left")]
        assert [m.statement for m in cm.missed] == ["tilt up"]
        assert [e.statement for e in cm.extra] == ["zoom in"] and cm.n_extra == 1
        assert [g.statement for g, _ in view[SS].matched] == ["close-up"]
        json.dumps({a: v.to_dict() for a, v in view.items()})
    again = Judgement.from_dict(j.to_dict())
    assert again.by_dim[CM].pairs == [(0, 0)]


def test_view_of_a_judgement_that_lists_only_the_gt_side():
    llm_json = {"by_dim": {CM: {"gt_statements": ["pans left", "tilts up"],
                                "pred_statements": ["pans left", "zooms in"],
                                "matched_statements": ["pans left"],
                                "gt_count": 2, "pred_count": 2, "matched_count": 1}}}
    view = statement_view(llm_json)[CM]
    assert [(g.statement, p) for g, p in view.matched] == [("pans left", None)]
    assert [m.statement for m in view.missed] == ["tilts up"]
    assert view.extra is None and view.n_extra == 1


def test_pairs_that_do_not_fit_the_lists_are_dropped_not_trusted():
    d = RulesJudge().judge(GT, PRED).to_dict()
    d["by_dim"][CM]["pairs"] = [[0, 5]]          # no predicted statement 5
    d["by_dim"][SS]["pairs"] = [[0, 0], [0, 0]]  # one GT statement matched twice
    j = Judgement.from_dict(d)
    assert j.by_dim[CM].pairs is None and j.by_dim[SS].pairs is None
    assert statement_view(j)[CM].extra is None   # back to the GT-side-only view
