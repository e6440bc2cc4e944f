"""Shot size on people and animals across the four development sets: what the rule measured, and a
leave-one-set-out fit of its lines (task sizes2, docs/anchors.md).

Runs the anchors analysis once per clip (dev, heldout2, heldout3, heldout4), keeping each shot's
detector checks; then re-reads the shot size from those checks under other lines without running
the analysis again (``subjects.judge_subjects`` on the kept checks, the statements made as the
captioner makes them, scored as ``real_quality.py`` scores them).

    .venv/bin/python benchmarks/shot_size_fit.py --table          # gold vs measured, per statement
    .venv/bin/python benchmarks/shot_size_fit.py --cv             # leave-one-set-out fit

Folders: ``../shared/footage`` (dev) and ``/work/shared/footage-heldoutN`` unless ``--footage
SET=DIR`` says otherwise. The six clips of split "heldout" are never read.
"""
from __future__ import annotations

import argparse
import copy
import itertools
import json
import pickle
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

from real_quality import load_gold, score_clip  # noqa: E402

from cinecap import taxonomy as tx  # noqa: E402
from cinecap.anchors import analysis as _analysis  # noqa: E402
from cinecap.anchors import subjects as sj  # noqa: E402
from cinecap.anchors.detectors import kind_of  # noqa: E402

SETS = ("dev", "heldout2", "heldout3", "heldout4")
DEFAULT_DIRS = {"dev": ROOT.parent.parent / "shared" / "footage",
                **{s: Path(f"/work/shared/footage-{s}") for s in SETS[1:]}}
#: The lines fitted: where the frame cuts a person, in head heights from the crown, between close-up
#: and medium close-up, medium close-up and medium shot, medium shot and medium full shot, medium
#: full shot and full shot (``subjects.CUT_SIZES``), and the share of the frame's height from which
#: a whole figure is a full shot (``subjects.FULL_FIGURE``).
GRID = {"close_up": [round(1.2 + 0.1 * i, 2) for i in range(10)],          # 1.2 .. 2.1
        "medium_close_up": [round(2.0 + 0.05 * i, 2) for i in range(17)],  # 2.00 .. 2.80
        "medium": [round(3.0 + 0.25 * i, 2) for i in range(11)],           # 3.0 .. 5.5
        "medium_full": [5.6, 6.1, 6.6, 7.1]}
#: swept one at a time (the others at today's values), not fitted jointly
SWEEP = {"full_figure": [round(0.3 + 0.05 * i, 2) for i in range(7)]}     # 0.30 .. 0.60
_LINES = ("close_up", "medium_close_up", "medium", "medium_full")
TODAY = {**dict(zip(_LINES, (ln for ln, _ in sj.CUT_SIZES))), "full_figure": sj.FULL_FIGURE}


def collect(dirs: dict[str, Path], cache: Path) -> dict:
    """{set: {clip: (analysis, [(checks, s0, s1, cfg, aspect, claims)], gold)}} (cached)."""
    if cache.is_file():
        return pickle.loads(cache.read_bytes())
    from cinecap.captioners.anchors import AnchorsCaptioner

    sys.path.insert(0, str(ROOT / "footage"))
    from split import select

    gold = load_gold(ROOT / "footage" / "gold.jsonl")
    split = json.loads((ROOT / "footage" / "split.json").read_text())
    cap = AnchorsCaptioner()
    calls: list = []
    real = _analysis.judge_subjects

    def spy(checks, s0, s1, cfg, aspect=16 / 9):
        out = real(checks, s0, s1, cfg, aspect)
        calls.append((checks, s0, s1, cfg, aspect, out[0]))
        return out

    data: dict = {}
    _analysis.judge_subjects = spy
    try:
        for name in SETS:
            data[name] = {}
            for clip in select(split, name, sorted(gold)):
                calls.clear()
                an = cap.analyse(dirs[name] / f"{clip}.mp4")
                an.keyframes = []  # images: not read here
                data[name][clip] = (an, list(calls), gold[clip])
                print(f"{name} {clip}: {len(calls)} shots with checks", file=sys.stderr)
    finally:
        _analysis.judge_subjects = real
    data["min_confidence"] = cap.min_confidence
    cache.write_bytes(pickle.dumps(data))
    return data


def set_lines(p: dict) -> None:
    p = {**TODAY, **p}
    sj.CUT_SIZES = tuple(zip([p[k] for k in _LINES], [n for _, n in sj.CUT_SIZES]))
    sj.FULL_FIGURE = p["full_figure"]


def statements(entry, min_conf: float):
    """The clip's statements with the shot size re-read under the lines set now."""
    from cinecap.captioners.anchors import statements_from_analysis

    an, calls, _ = entry
    an = copy.copy(an)
    key = lambda c: (c.aspect, c.value, round(c.t_start, 6), round(c.t_end, 6), c.subject)  # noqa: E731
    old = {key(c) for *_, claims in calls for c in claims if c.aspect == tx.SHOT_SIZE}
    keep = [f for f in an.findings if not (f.aspect == tx.SHOT_SIZE and key(f) in old)]
    for checks, s0, s1, cfg, aspect, _ in calls:
        claims, _, _ = sj.judge_subjects(checks, s0, s1, cfg, aspect)
        shot = an.shot_of(0.5 * (s0 + s1))
        keep += [_analysis.Finding(c.aspect, c.value, shot, c.t_start, c.t_end, float(c.confidence),
                                   c.anchor, c.measurements, c.subject)
                 for c in claims if c.aspect == tx.SHOT_SIZE]
    an.findings = keep
    return statements_from_analysis(an, min_conf)


def score(data: dict, name: str, p: dict) -> tuple[int, int, int]:
    """(gold, predicted, matched) shot-size statements on one set under lines ``p``."""
    set_lines(p)
    g = q = m = 0
    for clip, entry in data[name].items():
        an = entry[0]
        sc = score_clip(entry[2], statements(entry, data["min_confidence"]), float(an.info.duration))
        a, b, c = sc["counts"][tx.SHOT_SIZE]
        g, q, m = g + a, q + b, m + c
    set_lines(TODAY)
    return g, q, m


def table(data: dict) -> None:
    """Per gold shot-size statement on a person or animal: what the main subject measured."""
    print("| set | clip | interval | gold | subject (detector) | checks: heads visible (w: from the"
          " shoulders' width) / face h / body h / area, edges | read (most checks) |")
    print("|---|---|---|---|---|---|---|")
    bias: dict = {name: [] for name in SETS}
    for name in SETS:
        for clip, (an, calls, gold) in data[name].items():
            dur = float(an.info.duration)
            for s in gold:
                if s.aspect != tx.SHOT_SIZE:
                    continue
                t0, t1 = (s.t_start, s.t_end) if s.has_interval else (0.0, dur)
                rows, labels, reads = [], set(), []
                for checks, s0, s1, cfg, aspect, _ in calls:
                    if s1 <= t0 or s0 >= t1:
                        continue
                    main = sj.main_track(sj.link_tracks(checks), len(checks), cfg)
                    if main is None:
                        continue
                    for si in main.sightings:
                        if not t0 - 0.05 <= si.t <= t1 + 0.05:
                            continue
                        v, meas = sj.size_of(si, cfg, aspect)
                        labels.add(main.label)
                        if v is not None:
                            reads.append(v)
                        if "head_heights_visible" in meas:
                            desc = (f"{meas['head_heights_visible']:.2f}h"
                                    + ("w" if meas.get("from_width") else "")
                                    + (f" f{meas['face_height']:.2f}" if "face_height" in meas else "")
                                    + f" b{meas['body_height']:.2f}")
                        elif "area" in meas:
                            desc = f"a{meas['area']:.2f} e{meas['edges_cut']} b{meas['body_height']:.2f}"
                        else:
                            desc = f"b{meas['body_height']:.2f}"
                        rows.append(f"{si.t:.1f}s {desc} {_abbr(v)}")
                if not any(kind_of(lb) in ("person", "animal") for lb in labels):
                    continue
                read = statistics.mode(reads) if reads else None
                if read is not None:
                    bias[name].append(sj._SIZES.index(read) - sj._SIZES.index(s.value))
                print(f"| {name} | {clip} | {t0:.1f}-{t1:.1f} | {_abbr(s.value)} | {s.subject or '-'} "
                      f"({'/'.join(sorted(labels))}) | {'; '.join(rows)} | {_abbr(read)} |")
    print("\n| set | statements read | right | one step tighter | one step wider | further off | mean step |")
    print("|---|---|---|---|---|---|---|")
    for name, steps in bias.items():
        print(f"| {name} | {len(steps)} | {steps.count(0)} | {steps.count(-1)} | {steps.count(1)} | "
              f"{sum(abs(x) > 1 for x in steps)} | {statistics.mean(steps) if steps else 0:+.2f} |")


_ABBR = {"extreme close-up": "ECU", "close-up": "CU", "medium close-up": "MCU", "medium shot": "MS",
         "medium full shot": "MFS", "full shot": "FS", "wide shot": "WS", "extreme wide shot": "EWS"}


def _abbr(v: str | None) -> str:
    return _ABBR.get(v, "-") if v else "-"


def cv(data: dict) -> None:
    grid = [dict(zip(GRID, vals)) for vals in itertools.product(*GRID.values())]
    per = {name: [score(data, name, p) for p in grid] for name in SETS}
    today = {name: score(data, name, TODAY) for name in SETS}

    def best(names: list[str]) -> dict:
        # Most matches on the training sets; ties: fewest predictions, then closest to today's lines.
        def rank(i):
            m = sum(per[n][i][2] for n in names)
            q = sum(per[n][i][1] for n in names)
            dist = sum(abs(grid[i][k] - TODAY[k]) for k in GRID)
            return (-m, q, dist)
        return grid[min(range(len(grid)), key=rank)]

    def fmt(g: int, q: int, m: int) -> str:
        return f"{m / q if q else 0:.2f} / {m / g if g else 0:.2f} ({m} of {q}; gold {g})"

    print("| held-out set | lines fitted on the other three | today's lines P / R | fitted P / R |")
    print("|---|---|---|---|")
    wins = 0
    for held in SETS:
        p = best([n for n in SETS if n != held])
        got = score(data, held, p)
        wins += got[2] > today[held][2]
        print(f"| {held} | {' / '.join(f'{p[k]:.2f}' for k in GRID)} | {fmt(*today[held])} | {fmt(*got)} |")
    p = best(list(SETS))
    print(f"\nfitted on all four: {' / '.join(f'{p[k]:.2f}' for k in GRID)} "
          f"(today {' / '.join(f'{TODAY[k]:.2f}' for k in GRID)}); folds won: {wins} of 4")
    # How flat the optimum is: matches on all four sets along each line, the other at today's.
    for k, values in {**GRID, **SWEEP}.items():
        row = []
        for v in values:
            got = [score(data, n, {k: v}) for n in SETS]
            row.append(f"{v:.2f}:{sum(x[2] for x in got)}/{sum(x[1] for x in got)}"
                       f"[{','.join(str(x[2]) for x in got)}]")
        print(f"{k} (others today), matched/predicted on all four [per set]: {' '.join(row)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--footage", action="append", default=[], metavar="SET=DIR")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/shot_size_fit.pkl"))
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--cv", action="store_true")
    args = ap.parse_args(argv)
    dirs = dict(DEFAULT_DIRS)
    for f in args.footage:
        k, _, v = f.partition("=")
        dirs[k] = Path(v)
    data = collect(dirs, args.cache)
    if args.table:
        table(data)
    if args.cv:
        cv(data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
