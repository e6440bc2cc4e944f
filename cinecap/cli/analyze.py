"""``cinecap analyze CLIP [--json] [--overlays DIR]``: the anchors' evidence for one clip.

``--json`` prints the contract of docs/architecture.md: ``duration, fps, width, height, shots[{t_start,
t_end}], camera_motion[{t_start, t_end, movement, steadiness, evidence}]`` plus the other evidence
(``shot_size``, ``subject_orientation``, ``depth_of_field``, ``camera_angle``, ``composition``,
``cuts``, ``subjects``, ``tracks``, ``detectors``); times in seconds. ``--overlays DIR`` also
writes the evidence images (tracked background vectors, subject boxes, sharpness heat map,
horizon) as PNG files. The subject detectors (YOLOX-Nano, YuNet) are used where their files are
found (``cinecap models``), as the ``anchors`` captioner uses them; ``--no-detectors`` analyses
without them.
"""
from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("analyze", help="spatio-temporal evidence for a clip (CPU)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("clip", help="video file")
    p.add_argument("--json", action="store_true", help="print the analysis as JSON")
    p.add_argument("--overlays", metavar="DIR", help="write evidence images (PNG) into DIR")
    p.add_argument("--no-detectors", action="store_true",
                   help="without the YOLOX / YuNet subject detectors (Haar faces and HOG only)")
    p.set_defaults(func=run)


def write_overlays(clip: str, analysis, out_dir: str) -> list[Path]:
    import re

    import cv2

    from cinecap.captioners.anchors import evidence_overlays
    from cinecap.errors import InputError

    d = Path(out_dir)
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create the overlay folder {out_dir!r}: {e.strerror}") from None
    paths = []
    for i, (title, img) in enumerate(evidence_overlays(clip, analysis)):
        name = f"{i:02d}_" + re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_") + ".png"
        path = d / name
        cv2.imwrite(str(path), cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
        paths.append(path)
    return paths


def run(args: argparse.Namespace) -> int:
    import sys

    from cinecap.anchors import analyze
    from cinecap.anchors.detectors import load_detectors
    from cinecap.cli import print_json, progress_printer

    detectors = None if args.no_detectors else load_detectors()
    for m in detectors.missing if detectors is not None else []:
        print(f"note: subject detector missing: {m}", file=sys.stderr)
    an = analyze(args.clip, progress_printer(args.verbose), detectors=detectors)
    written = write_overlays(args.clip, an, args.overlays) if args.overlays else []
    if args.json:
        d = an.to_dict()
        if written:
            d["overlays"] = [str(p) for p in written]
        print_json(d)
        return 0
    d = an.to_dict()
    print(f"{args.clip}: {d['duration']:.2f} s, {d['width']}x{d['height']}, {d['fps']:g} fps, "
          f"{len(d['shots'])} shot(s), analysed in {d['analysis']['seconds']:.2f} s")
    for i, s in enumerate(d["shots"]):
        print(f"shot {i + 1}: {s['t_start']:.2f}–{s['t_end']:.2f} s")
        for m in (m for m in d["camera_motion"] if m["shot"] == i):
            what = " + ".join(m["movement"]) or "no reading"
            flag = " (abstained)" if m["abstained"] else ""
            print(f"  camera {m['t_start']:.2f}–{m['t_end']:.2f} s: {what}, steadiness "
                  f"{m['steadiness']:.2f}, confidence {m['confidence']:.2f}{flag}")
        for key in ("shot_size", "subject_orientation", "depth_of_field", "camera_angle",
                    "composition"):
            for f in (f for f in d[key] if f["shot"] == i):
                print(f"  {key.replace('_', ' ')}: {f['value']} ({f['confidence']:.2f}) — {f['anchor']}")
    for p in written:
        print(f"wrote {p}")
    return 0
