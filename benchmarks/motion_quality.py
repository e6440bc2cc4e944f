"""Camera-motion quality on clips with known moves (cinecap.synthetic).

Real photographs (scikit-image's) filmed by a virtual camera: 1–4 segments per clip, compound
moves, an independently moving subject in half the clips. For each clip the anchors' camera-motion
intervals are scored against the ground truth:

- per-frame label accuracy: share of time whose predicted label set equals the truth;
- segment F1: a predicted segment matches a true one when the label sets are equal and the
  temporal IoU is ≥ 0.5 (one to one);
- boundary error: per true boundary, the distance (s) to the nearest predicted boundary;
- false camera motion: time the truth is static but a move is predicted (subject clips apart).

The baseline row is the same analysis with the motion-specific safeguards turned off (no static-
first test, no subject mask, corners wherever the texture is, the background re-chosen on every
pair); ratios compare against it in the same run.

    .venv/bin/python benchmarks/motion_quality.py            # 24 clips, 480x270
    .venv/bin/python benchmarks/motion_quality.py --clips 8 --size 320x180
    .venv/bin/python benchmarks/motion_quality.py --subject-size 0.85   # a frame-filling subject
    .venv/bin/python benchmarks/motion_quality.py --subject-area 0.06 0.25  # textured non-face subjects

Targets (issue 3): segment F1 ≥ 0.9, boundary error ≤ 0.3 s, no false camera motion from the
moving subject; with textured non-face subjects (issue 15, ``--subject-area 0.06 0.25``):
segment F1 ≥ 0.95, boundary error ≤ 0.15 s.
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def evaluate(clips, config) -> dict:
    from cinecap.anchors import analyze
    from cinecap.testing.synthetic import score_motion

    scores, seconds, video_s = [], 0.0, 0.0
    for clip in clips:
        t = time.perf_counter()
        d = analyze(clip.path, config=config).to_dict()
        seconds += time.perf_counter() - t
        video_s += clip.duration
        scores.append((clip, score_motion(clip.segments, d["camera_motion"])))
    m = sum(s.segments_matched for _, s in scores)
    t_ = sum(s.segments_true for _, s in scores)
    p_ = sum(s.segments_pred for _, s in scores)
    errors = [e for _, s in scores for e in s.boundary_errors]
    subj = [s for c, s in scores if c.has_subject]
    return {
        "frame_acc": float(np.mean([s.frame_accuracy for _, s in scores])),
        "seg_f1": 2 * m / (t_ + p_) if t_ + p_ else 0.0,
        "matched": f"{m}/{t_} (pred {p_})",
        "bound_err_mean": float(np.mean(errors)) if errors else 0.0,
        "bound_err_p90": float(np.percentile(errors, 90)) if errors else 0.0,
        "false_motion": (sum(s.false_motion_s for s in subj), sum(s.static_s for s in subj)),
        "x_realtime": video_s / seconds,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=24)
    ap.add_argument("--size", default="480x270", help="WxH of the synthetic clips")
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("--subject-size", type=float, default=0.3,
                    help="moving subject's side as a share of the frame height (0.85: a subject "
                         "that fills much of the frame, where the static-first test matters)")
    ap.add_argument("--subject-area", type=float, nargs=2, metavar=("LOW", "HIGH"),
                    help="the moving subject is a textured non-face blob covering a random share "
                         "of the frame in [LOW, HIGH] (e.g. 0.06 0.25), in every other clip")
    args = ap.parse_args(argv)
    w, h = (int(v) for v in args.size.lower().split("x"))

    from cinecap.testing import synthetic as syn
    from cinecap.anchors import AnchorsConfig
    from cinecap.anchors.motion import MotionConfig

    with tempfile.TemporaryDirectory() as tmp:
        clips = [syn.random_clip(Path(tmp) / f"c{s}.mp4", s, size=(w, h),
                                 subject_size=args.subject_size,
                                 subject_area=tuple(args.subject_area) if args.subject_area else None)
                 for s in range(args.seed, args.seed + args.clips)]
        n_segs = sum(len(c.segments) for c in clips)
        n_comp = sum(len(s.labels) > 1 for c in clips for s in c.segments)
        print(f"{len(clips)} clips, {n_segs} segments ({n_comp} compound), "
              f"{sum(c.has_subject for c in clips)} with a moving subject "
              + (f"(textured non-face blob, {args.subject_area[0]:.0%}–{args.subject_area[1]:.0%} "
                 f"of the frame), " if args.subject_area else
                 f"({args.subject_size:.0%} of the height), ") + f"{w}x{h}")
        full = AnchorsConfig()
        # Baseline: the plain global fit (no static-first test, no face mask).
        naive = dataclasses.replace(full, motion=MotionConfig(
            still_fraction=0.999, grid=(1, 1), background_memory=0.0), face_every=10 ** 6)
        rows = [("baseline (plain global fit)", evaluate(clips, naive)),
                ("anchors (default)", evaluate(clips, full))]
    base = rows[0][1]
    head = (f"{'configuration':<28} {'frame acc':>9} {'seg F1':>7} {'matched':>16} "
            f"{'bound err':>9} {'p90':>6} {'false motion (s)':>17} {'x RT':>6} {'F1 ratio':>8}")
    print(head)
    print("-" * len(head))
    for name, r in rows:
        fm = f"{r['false_motion'][0]:.2f}/{r['false_motion'][1]:.2f}"
        ratio = r["seg_f1"] / base["seg_f1"] if base["seg_f1"] else float("nan")
        print(f"{name:<28} {r['frame_acc']:>9.3f} {r['seg_f1']:>7.3f} {r['matched']:>16} "
              f"{r['bound_err_mean']:>8.3f}s {r['bound_err_p90']:>5.2f}s {fm:>17} "
              f"{r['x_realtime']:>6.1f} {ratio:>8.2f}")
    r = rows[1][1]
    ok = r["seg_f1"] >= 0.9 and r["bound_err_mean"] <= 0.3 and r["false_motion"][0] <= 0.1 * max(r["false_motion"][1], 1)
    print(f"targets (F1 ≥ 0.9, boundary error ≤ 0.3 s, no false motion): {'met' if ok else 'NOT met'}")
    if args.subject_area:
        ok15 = r["seg_f1"] >= 0.95 and r["bound_err_mean"] <= 0.15
        print(f"issue 15 targets with non-face subjects (F1 ≥ 0.95, boundary error ≤ 0.15 s): "
              f"{'met' if ok15 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
