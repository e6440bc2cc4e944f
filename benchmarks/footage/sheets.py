"""Contact sheets for writing gold statements blind: frames of each clip, labelled with their time.

Frames every 0.25 s (every 0.5 s for clips over 8 s), 4 per row, each with its timestamp in
seconds; at most 24 frames per sheet (``<stem>-1.png``, ``<stem>-2.png``, … when a clip needs
more). Also writes ``clips.json`` (clip, file, duration, fps, size, sheets, source note).

    .venv/bin/python benchmarks/footage/sheets.py --out /work/blind/anchors [--footage benchmarks/footage]
    .venv/bin/python benchmarks/footage/sheets.py --footage ../shared/footage-heldout2 --out /work/blind/heldout2
    .venv/bin/python benchmarks/footage/sheets.py --footage ../shared/footage-heldout3 --out /work/blind/heldout3
    .venv/bin/python benchmarks/footage/sheets.py --footage ../shared/footage-heldout4 --out /work/blind/heldout4

The clips are those of the set of ``make_footage.SETS`` that the folder holds whole (``--set`` to
name it).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

PER_SHEET = 24
COLS = 4
THUMB_W = 360


def frames_at(path: Path, times: list[float], fps: float) -> list:
    import av

    wanted = {min(int(math.floor(t * fps + 1e-6)), 10 ** 9): t for t in times}
    out = {}
    with av.open(str(path)) as c:
        s = c.streams.video[0]
        for i, f in enumerate(c.decode(s)):
            if i in wanted:
                out[wanted[i]] = f.to_image()
            if i > max(wanted):
                break
    return [(t, out[t]) for t in times if t in out]


def sheet(items, title: str):
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=22)
    small = ImageFont.load_default(size=18)
    w0, h0 = items[0][1].size
    tw, th = THUMB_W, int(round(THUMB_W * h0 / w0))
    rows = math.ceil(len(items) / COLS)
    pad, head, lab = 6, 34, 28
    img = Image.new("RGB", (COLS * (tw + pad) + pad, head + rows * (th + lab + pad)), (255, 255, 255))
    d = ImageDraw.Draw(img)
    d.text((pad, 6), title, fill=(0, 0, 0), font=small)
    for k, (t, im) in enumerate(items):
        x = pad + (k % COLS) * (tw + pad)
        y = head + (k // COLS) * (th + lab + pad)
        d.text((x, y), f"t = {t:.2f} s", fill=(0, 0, 160), font=font)
        img.paste(im.resize((tw, th)), (x, y + lab))
    return img


def main(argv: list[str] | None = None) -> int:
    from cinecap.video import probe
    from make_footage import SETS, set_in

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--footage", type=Path, default=HERE)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--set", choices=tuple(SETS), help="which list of clips (default: the one whose "
                                                         "every clip is in --footage)")
    args = ap.parse_args(argv)
    name = args.set or set_in(args.footage)
    if name is None:
        print(f"error: {args.footage} holds no set of make_footage.SETS whole "
              f"({', '.join(SETS)}): cut one with make_footage.py", file=sys.stderr)
        return 2
    (args.out / "sheets").mkdir(parents=True, exist_ok=True)
    listing = []
    for c in SETS[name]:
        path = (args.footage / f"{c['stem']}.mp4").resolve()
        info = probe(path)
        step = 0.5 if info.duration > 8 else 0.25
        n = int(math.floor((info.duration - 1e-3) / step)) + 1
        items = frames_at(path, [round(k * step, 3) for k in range(n)], info.fps)
        chunks = [items[i:i + PER_SHEET] for i in range(0, len(items), PER_SHEET)]
        names = []
        for j, chunk in enumerate(chunks):
            name = f"{c['stem']}.png" if len(chunks) == 1 else f"{c['stem']}-{j + 1}.png"
            title = (f"{c['stem']}  ({info.duration:.2f} s, {info.fps:g} fps, every {step} s"
                     + (f", sheet {j + 1}/{len(chunks)})" if len(chunks) > 1 else ")"))
            sheet(chunk, title).save(args.out / "sheets" / name)
            names.append(str((args.out / "sheets" / name).resolve()))
        listing.append({"clip": c["stem"], "file": str(path), "duration": round(info.duration, 3),
                        "fps": round(info.fps, 3), "width": info.width, "height": info.height,
                        "sheets": names, "source_note": c["work"]})
    (args.out / "clips.json").write_text(json.dumps(listing, indent=1) + "\n")
    print(f"{len(listing)} clips, {sum(len(x['sheets']) for x in listing)} sheets → {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
