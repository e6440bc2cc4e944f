"""``cinecap models [--json]``: the pretrained detector files, where each was found and whether its
SHA-256 is the official one. ``cinecap models fetch [NAME ...] [--dest DIR]``: download them
(default: yolox_nano and yunet; movenet only when named) from their official URLs, or from the
mirror in CINECAP_MODELS_URL_BASE, into the user's cache ($XDG_CACHE_HOME/cinecap/models, by
default ~/.cache/cinecap/models), with progress on stderr; each download is checked for size and
SHA-256 before it is kept.

Search order: the folder CINECAP_MODELS_DIR; the user's cache; shared/models beside the checkout
(CINECAP_MODELS_SHARED=0 leaves it out). A listing always exits 0; fetch exits 4 when a download
fails or does not match its checksum (nothing of it is kept), 2 for an unknown name.
"""
from __future__ import annotations

import argparse
import sys

from cinecap.errors import CinecapError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("models", help="the pretrained detector files: where, verified, "
                                             "fetch", description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run_list)
    sub = p.add_subparsers(dest="models_command", metavar="ACTION")
    f = sub.add_parser("fetch", help="download the files, verified, into the cache")
    f.add_argument("names", metavar="NAME", nargs="*",
                   help="yolox_nano, yunet, movenet (default: yolox_nano yunet)")
    f.add_argument("--dest", metavar="DIR", default=None,
                   help="the folder to write into (default: the user's model cache)")
    f.set_defaults(func=run_fetch)


def rows() -> list[dict]:
    from cinecap import pretrained

    out = []
    for m in pretrained.MODELS.values():
        error = None
        try:
            path = pretrained.resolve(m.name)
            state = "found" if path else "missing"
        except pretrained.ChecksumError as e:
            path, state, error = None, "mismatch", e.message
        out.append({"name": m.name, "filename": m.filename, "state": state,
                    "path": str(path) if path else None, "verified": state == "found",
                    "optional": m.optional, "bytes": m.size, "sha256": m.sha256,
                    "licence": m.licence, "url": m.url, "purpose": m.purpose,
                    "searched": [str(c) for c in pretrained.search_path(m.name)],
                    "error": error})
    return out


def run_list(args: argparse.Namespace) -> int:
    from cinecap import pretrained
    from cinecap.cli import print_json

    found = rows()
    if args.json:
        print_json(found)
        return 0
    width = max(len(r["name"]) for r in found)
    for r in found:
        print(f"{r['name']:<{width}}  {r['filename']} ({r['bytes'] / 1e6:.2f} MB, {r['licence']})"
              f": {r['purpose']}")
        if r["state"] == "found":
            state = f"found, SHA-256 verified: {r['path']}"
        elif r["state"] == "mismatch":
            state = f"refused: {r['error']}"
        else:
            state = (f"missing{' (optional)' if r['optional'] else ''}: get it with "
                     f"`cinecap models fetch {r['name']}`")
        print(f"{'':<{width}}  {state}")
    line = pretrained.status_line()
    if line:
        print(line)
    return 0


def run_fetch(args: argparse.Namespace) -> int:
    from cinecap import pretrained
    from cinecap.cli import progress_printer

    names = list(dict.fromkeys(args.names)) or list(pretrained.DEFAULT_NAMES)
    for n in names:
        pretrained.model(n)  # an unknown name stops everything before any download (exit 2)
    show = progress_printer()
    failed: list[CinecapError] = []
    for n in names:
        try:
            if args.dest is None and pretrained.state(n)[1] == "found":
                print(f"{n}: already there, SHA-256 verified: {pretrained.resolve(n)}")
                continue
            path = pretrained.fetch(n, dest=args.dest, progress=show)
            print(f"{n}: SHA-256 verified: {path}")
            if args.dest is None:
                pretrained.resolve(n)  # a bad copy earlier in the search order still wins: say so
        except CinecapError as e:
            print(f"error: {e.message}", file=sys.stderr)
            failed.append(e)
    return failed[0].exit_code if failed else 0
