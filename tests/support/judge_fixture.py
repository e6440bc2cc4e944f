"""The rules judge's "before" fixture: its judgements, kept, so a refactor can show it changed none.

``tests/data/judge_fixture.xz`` (xz-compressed JSONL, about 0.3 MB) holds one line per
judged pair: the 638 labelled pairs of ``tests/data/judge_pairs.jsonl`` by id, and 2,500 pairs
(5,000 captions) generated here from random statements (seeded). Each line keeps what the judge
said — per aspect the statement lists, the matched list, the counts, the pairs and the phrases —
and the pair's scores (comprehensiveness, accuracy, F1, reward). The generated
captions are stored with their judgements, so the fixture does not depend on the generator, the
taxonomy or ``render_caption`` staying the same; the labelled pairs are stored by id with a hash
of their text (the labelled file is hand-written and only grows).

Regenerate (only when a change of behaviour is meant, in the same commit as that change):

    .venv/bin/python -m tests.support.judge_fixture
"""
from __future__ import annotations

import hashlib
import json
import lzma
import random
import sys
from pathlib import Path
from typing import Any, Iterator

from cinecap import taxonomy as tx
from cinecap.statements import Statement, render_caption

ROOT = Path(__file__).resolve().parents[2]
PAIRS_FILE = ROOT / "tests" / "data" / "judge_pairs.jsonl"
FIXTURE = ROOT / "tests" / "data" / "judge_fixture.xz"
GENERATED = 2500  # pairs: 5,000 generated captions
SEED = 23

# Surface forms beyond render_caption's one professional register, so that the generated
# captions reach the judge's structural rules too: subjects, negation, hedges, sequence words,
# timestamp formats, labelled fields, terse lists, <answer> tags.
_SUBJECTS = ("the man", "the woman", "a dog", "the girl", "two friends", "Anna", "the host",
             "the boy on the left", "her", "the chef", "an old man", "the rider")
_TIMES = ("From {a} to {b} s, {c}.", "[{a}–{b}] {C}.", "{C} ({a}-{b}s).", "{a}–{b} s: {c}.",
          "Between {a} and {b} seconds {c}.", "0:0{ai}–0:0{bi} {c}.", "{C}.")
_SEQ = ("then", "and then", "after that", "finally", "next", "before that", "later")
_STATIC = ("{T}.", "A {t} of {s}.", "{S}, {t}.", "The shot is a {t}.", "{T} on {s}.",
           "It looks like a {t}, maybe.", "Not a {t}.", "{S} is framed {t}.", "{S}: {t}.",
           "We see {s} in a {t}.", "{T}, {t2}.")
_MOVES = ("the camera {t}", "it {t}", "a {t}", "the camera slowly {t}", "we {t}",
          "the camera does not {t}", "{s} {t}", "the shot {t}")
_FIELDS = {tx.CAMERA_MOVEMENT: "Movement", tx.SHOT_SIZE: "Size", tx.CAMERA_ANGLE: "Angle",
           tx.DEPTH_OF_FIELD: "Focus", tx.COMPOSITION: "Position",
           tx.SUBJECT_ORIENTATION: "Facing", tx.SPECIAL_SHOTS: "Special"}


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def random_statements(rng: random.Random) -> list[Statement]:
    """3–9 statements over random aspects: moves timed back to back, some with a subject."""
    out, t = [], 0.0
    for _ in range(rng.randint(3, 9)):
        v = rng.choice(tx.VALUES)
        subject = rng.choice(_SUBJECTS) if v.aspect in (
            tx.COMPOSITION, tx.SUBJECT_ORIENTATION) and rng.random() < 0.7 else None
        if v.dynamic:
            d = rng.choice((0.5, 1.0, 2.0, 3.0))
            out.append(Statement(v.aspect, v.canonical, t_start=t, t_end=t + d, subject=subject))
            t += d
        else:
            out.append(Statement(v.aspect, v.canonical, subject=subject))
    return out


def perturbed(rng: random.Random, sts: list[Statement]) -> list[Statement]:
    """A prediction of the same clip: some facts dropped, some contradicted, some invented, some
    intervals moved."""
    out = []
    for s in sts:
        r = rng.random()
        if r < 0.15:
            continue
        if r < 0.35:
            v = rng.choice(tx.values_for(s.aspect))
            ts = (s.t_start, s.t_end) if v.dynamic and s.has_interval else (
                (0.0, 1.0) if v.dynamic else (None, None))
            out.append(Statement(s.aspect, v.canonical, t_start=ts[0], t_end=ts[1],
                                 subject=s.subject))
            continue
        if r < 0.45 and s.has_interval:
            shift = rng.choice((0.5, 1.0, 2.5))
            out.append(Statement(s.aspect, s.value, t_start=s.t_start + shift,
                                 t_end=s.t_end + shift, subject=s.subject))
            continue
        out.append(s)
    if rng.random() < 0.3:
        out.extend(random_statements(rng)[:1])
    return out


def _term(rng: random.Random, st: Statement) -> str:
    return rng.choice(tx.get(st.aspect, st.value).terms)


def _free(rng: random.Random, sts: list[Statement]) -> str:
    """The statements told one by one in varied, partly terse, partly hedged wording."""
    parts = []
    for i, st in enumerate(sts):
        t = _term(rng, st)
        s = st.subject or rng.choice(_SUBJECTS)
        if st.has_interval:
            clause = rng.choice(_MOVES).format(t=t, s=s)
            if i and rng.random() < 0.3:
                clause = f"{rng.choice(_SEQ)} {clause}"
            a, b = st.t_start, st.t_end
            parts.append(rng.choice(_TIMES).format(
                a=f"{a:g}", b=f"{b:g}", ai=int(a) % 10, bi=int(b) % 10, c=clause, C=_cap(clause)))
        else:
            other = rng.choice(tx.VALUES).terms[0]
            parts.append(rng.choice(_STATIC).format(t=t, T=_cap(t), s=s, S=_cap(s), t2=other))
    return " ".join(parts)


def _fields(rng: random.Random, sts: list[Statement]) -> str:
    lines = []
    for st in sts:
        label = _FIELDS[st.aspect]
        if st.subject and rng.random() < 0.5:
            label = _cap(st.subject.removeprefix("the "))
        lines.append(f"{label}: {_term(rng, st)}.")
    return (" " if rng.random() < 0.5 else "\n").join(lines)


def caption(rng: random.Random, sts: list[Statement]) -> str:
    """One caption of ``sts`` in a register drawn at random."""
    style = rng.random()
    if style < 0.3:
        text = render_caption(sts)
    elif style < 0.8:
        text = _free(rng, sts)
    else:
        text = _fields(rng, sts)
    if rng.random() < 0.1:
        text = f"<think>{render_caption(sts[:2])}</think><answer>{text}</answer>"
    return text


def generated_pairs(n: int = GENERATED, seed: int = SEED) -> Iterator[tuple[str, str, str]]:
    """(id, gt, pred) for ``n`` pairs; the same ``seed`` gives the same pairs in one version of
    this module and the taxonomy (the fixture stores the text, so it does not rely on this)."""
    rng = random.Random(seed)
    for i in range(n):
        gt_sts = random_statements(rng)
        pred_sts = perturbed(rng, gt_sts) if rng.random() < 0.8 else random_statements(rng)
        yield f"gen-{i:05d}", caption(rng, gt_sts), caption(rng, pred_sts)


def text_hash(gt: str, pred: str) -> str:
    return hashlib.sha256(json.dumps([gt, pred], ensure_ascii=False).encode()).hexdigest()[:16]


def labelled_pairs() -> list[dict[str, Any]]:
    return [json.loads(x) for x in PAIRS_FILE.read_text().splitlines() if x.strip()]


def record(j) -> dict[str, Any]:
    """What the fixture keeps of a judgement: each aspect that states anything (lists, counts,
    pairs, phrases as the judge JSON has them) and the scores; not the version, which moves with
    the code by design."""
    from cinecap.reward import reward

    d = j.to_dict()
    dims = {a: [c["gt_statements"], c["pred_statements"], c["matched_statements"],
                [c["gt_count"], c["pred_count"], c["matched_count"]], c.get("pairs"),
                c.get("gt_phrases"), c.get("pred_phrases")]
            for a, c in d["by_dim"].items() if c["gt_count"] or c["pred_count"]}
    return {"by_dim": dims, "totals": [d["total_gt_count"], d["total_pred_count"],
                                       d["total_matched_count"]],
            "scores": [d["comprehensiveness"], d["accuracy"], d["f1"], reward(j).total],
            "failed": d["failed"], "error": d["error"]}


def cases() -> list[dict[str, Any]]:
    """Every pair the fixture covers: ``{"id", "gt", "pred"}``, labelled first."""
    out = [{"id": p["id"], "gt": p["gt"], "pred": p["pred"]} for p in labelled_pairs()]
    out += [{"id": i, "gt": g, "pred": p} for i, g, p in generated_pairs()]
    return out


def judge_all(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from cinecap.judge.rules import RulesJudge

    judge = RulesJudge()
    return [record(judge.judge(c["gt"], c["pred"])) for c in items]


def load() -> list[dict[str, Any]]:
    """The stored lines: labelled ones get their text back from the labelled file by id."""
    by_id = {p["id"]: p for p in labelled_pairs()}
    out = []
    with lzma.open(FIXTURE, "rt", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if "gt" not in row:
                p = by_id.get(row["id"], {})
                row["gt"], row["pred"] = p.get("gt"), p.get("pred")
            out.append(row)
    return out


def write(path: Path = FIXTURE) -> int:
    items = cases()
    labelled = {p["id"] for p in labelled_pairs()}
    lines = []
    for c, rec in zip(items, judge_all(items)):
        row: dict[str, Any] = {"id": c["id"]}
        if c["id"] in labelled:
            row["text"] = text_hash(c["gt"], c["pred"])
        else:
            row["gt"], row["pred"] = c["gt"], c["pred"]
        row.update(rec)
        lines.append(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
    # xz stores no time stamp: the same judgements give the same bytes, so no spurious diff.
    path.write_bytes(lzma.compress("".join(lines).encode("utf-8"),
                                   preset=9 | lzma.PRESET_EXTREME))
    return len(items)


if __name__ == "__main__":
    n = write()
    print(f"wrote {n} judgements to {FIXTURE.relative_to(ROOT)}", file=sys.stderr)
